#include "gantt_painter.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <QFontMetrics>
#include <QImage>
#include <QObject>
#include <QPainter>
#include <QPainterPath>

#include "lower/task_types.h"

namespace trainsim::gui {

QColor box_color(BoxKind k) {
  switch (k) {  // the Playbook's pipeline figures: blue forwards, green backwards
    case BoxKind::Forward:
      return QColor(0x4c, 0x8b, 0xf5);
    case BoxKind::Backward:
      return QColor(0x34, 0xa8, 0x53);
    case BoxKind::BackwardInput:  // a darker green than B's, told apart at a glance
      return QColor(0x1b, 0x5e, 0x20);
    case BoxKind::BackwardWeight:
      return QColor(0x9c, 0x6a, 0xde);
    case BoxKind::ForwardBackward:
      // Indigo: F's blue and B's green blended where boxes are narrower than a pixel make a
      // teal, which an F&B teal would be read as.
      return QColor(0x28, 0x35, 0x93);
    case BoxKind::Optimizer:
      return QColor(0xf2, 0x99, 0x1e);
    case BoxKind::TensorParallel:
      return QColor(0xe8, 0xc5, 0x1a);
    case BoxKind::ExpertParallel:
      return QColor(0xd8, 0x1b, 0x60);
    case BoxKind::ContextParallel:
      return QColor(0x7e, 0x57, 0xc2);
    case BoxKind::HostLink:
      return QColor(0x60, 0x7d, 0x8b);
    case BoxKind::DataParallel:
      return QColor(0xd9, 0x4f, 0x4f);
    case BoxKind::P2p:
      return QColor(0x8d, 0x6e, 0x63);
    case BoxKind::Launch:  // the CPU: a pale grey, apart from every GPU kind
      return QColor(0xb0, 0xbe, 0xc5);
    // Measured kernels: GEMM and attention in the blues and teals of compute, NCCL in the red
    // of DP, memory-bound grey-green, unknown grey.
    case BoxKind::Gemm:
      return QColor(0x3b, 0x6f, 0xc4);
    case BoxKind::Attention:
      return QColor(0x00, 0x89, 0x7b);
    case BoxKind::MemoryBound:
      return QColor(0x8b, 0xa8, 0x7a);
    case BoxKind::Communication:
      return QColor(0xc6, 0x28, 0x28);
    case BoxKind::OtherKernel:
      return QColor(0x75, 0x75, 0x75);
    case BoxKind::Count:
      break;
  }
  return Qt::black;
}

int GanttLayout::lane_at(int y) const {
  for (std::size_t i = 0; i < lanes.size(); ++i)
    if (y >= top[i] && y < top[i] + height[i]) return static_cast<int>(i);
  return -1;
}

QString box_legend_html(bool with_measured) {
  QString legend;
  for (int k = 0; k < static_cast<int>(BoxKind::Count); ++k) {
    const auto kind = static_cast<BoxKind>(k);
    if (is_measured_kind(kind) && !with_measured) continue;
    if (is_measured_kind(kind) && (k == 0 || !is_measured_kind(static_cast<BoxKind>(k - 1))))
      legend += QObject::tr("&nbsp;measured: ");
    // A swatch and its name never split over two lines ("■ activation offload" whole): the
    // line breaks only between entries.
    legend +=
        QStringLiteral("<span style='color:%1'>&#9632;</span>&nbsp;%2&nbsp;&nbsp; ")
            .arg(box_color(kind).name(), QString::fromUtf8(box_kind_name(kind))
                                             .toHtmlEscaped()
                                             .replace(QLatin1Char(' '), QStringLiteral("&nbsp;")));
  }
  legend += QObject::tr(
      "<span style='color:#bbbbbb'>&#9632;</span>&nbsp;idle&nbsp;(bubble) &nbsp; · B hatched "
      "when it includes recomputation");
  return legend;
}

GanttLayout layout_lanes(const GanttData& d, const std::vector<int>& visible,
                         const GanttStyle& st) {
  GanttLayout lay;
  int y = 0, last_stage = -1;
  for (int i : visible) {
    const Lane& l = d.lanes[static_cast<std::size_t>(i)];
    if (last_stage >= 0 && l.stage != last_stage && l.compute) y += st.stage_gap;
    last_stage = l.stage;
    const int h = l.compute ? st.lane_height : st.stream_lane_height;
    lay.lanes.push_back(i);
    lay.top.push_back(y);
    lay.height.push_back(h);
    y += h + 1;
  }
  lay.total_height = y;
  return lay;
}

namespace {

constexpr QColor kBubble(0xe4, 0xe4, 0xe4);
constexpr QColor kStreamBackground(0xf3, 0xf3, 0xf3);

bool is_compute_kind(BoxKind k) {
  return k == BoxKind::Forward || k == BoxKind::Backward || k == BoxKind::BackwardInput ||
         k == BoxKind::BackwardWeight || k == BoxKind::ForwardBackward;
}

// Boxes narrower than this are drawn blended (paint_lanes): too narrow for a micro-batch
// number, and where F and B alternate every few pixels they read as a barcode.
constexpr double kDetailPx = 6.0;
// A lone short box (a transfer, a reduction) shows at least this strongly, so it stays visible
// on its lane instead of fading into the background.
constexpr double kLeastShown = 0.6;
// Pixels a blended run's end is looked for at a time (paint_lanes): under half of kDetailPx.
constexpr double kStep = 3.0;
// Sparse work in a dense run (p2p transfers between long computations) at least this strongly.
constexpr double kFaintest = 0.3;

// One lane over `r` as columns of the time-weighted mix of its kinds' colours over
// `background`, each averaged over `window` pixels centred on it (a box filter: wide enough to
// hold a whole F/B period, the pattern becomes its mean instead of aliasing): a one-pixel-high
// image stretched to the lane's height.
void paint_blend(QPainter& p, const Lane& lane, const QRectF& r, double left, const TimeMapper& m,
                 double window, bool few, const QColor& background, const QColor* colors) {
  const int x0 = static_cast<int>(std::floor(r.left())),
            x1 = static_cast<int>(std::ceil(r.right()));
  if (x1 <= x0) return;
  QImage row(x1 - x0, 1, QImage::Format_RGB32);
  auto* out = reinterpret_cast<QRgb*>(row.scanLine(0));
  // Each pixel's busy time by kind: what has run before its window's end less what had run
  // before its start, both walking forward (at a one-pixel window the end of one pixel is the
  // start of the next, so one search per pixel).
  std::vector<double> busy(lane.kinds.size()), before0, before1;
  std::size_t from0 = 0, from1 = 0;
  const double bg[3] = {static_cast<double>(background.red()),
                        static_cast<double>(background.green()),
                        static_cast<double>(background.blue())};
  // Each kind's colour less the background, per channel.
  std::vector<std::array<double, 3>> delta;
  for (BoxKind kind : lane.kinds) {
    const QColor& c = colors[static_cast<int>(kind)];
    delta.push_back({c.red() - bg[0], c.green() - bg[1], c.blue() - bg[2]});
  }
  const double first_t0 = m.t_of(x0 + 0.5 - left - window / 2);
  busy_before(lane, first_t0, before1, &from1);
  for (int x = x0; x < x1; ++x) {
    const double centre = x + 0.5 - left;
    const double t0 = m.t_of(centre - window / 2), t1 = m.t_of(centre + window / 2);
    if (window == 1.0) {
      before0.swap(before1);
    } else {
      busy_before(lane, t0, before0, &from0);
      from1 = std::max(from1, from0);
    }
    busy_before(lane, t1, before1, &from1);
    for (std::size_t k = 0; k < busy.size(); ++k) busy[k] = before1[k] - before0[k];
    double busy_all = 0;
    for (double b : busy) busy_all += b;
    // How strongly the work shows: the square root of the busy fraction (a lane busy 16 % of
    // the time shows at 40 %, a full one is full), at least kFaintest (kLeastShown for a lone
    // box); shared among the kinds in proportion to their time.
    const double busy_part = std::clamp(busy_all / (t1 - t0), 0.0, 1.0);
    const double shown =
        busy_part > 0 ? std::max(std::sqrt(busy_part), few ? kLeastShown : kFaintest) : 0.0;
    double rgb[3] = {bg[0] + 0.5, bg[1] + 0.5, bg[2] + 0.5};  // + 0.5: rounded below
    if (busy_all > 0) {
      const double per_ns = shown / busy_all;
      for (std::size_t k = 0; k < delta.size(); ++k)
        for (int ch = 0; ch < 3; ++ch)
          rgb[ch] += per_ns * busy[k] * delta[k][static_cast<std::size_t>(ch)];
    }
    auto channel = [](double v) { return static_cast<int>(std::clamp(v, 0.0, 255.0)); };
    out[x - x0] = qRgb(channel(rgb[0]), channel(rgb[1]), channel(rgb[2]));
  }
  p.drawImage(QRectF(x0, r.top(), x1 - x0, r.height()), row);
}

}  // namespace

PaintStats paint_lanes(QPainter& p, const QRect& plot, const GanttData& d, const GanttLayout& lay,
                       const TimeMapper& m, int selected_mb) {
  PaintStats stats;
  const Timeline& tl = *d.timeline;
  const TaskGraph& g = *tl.graph;
  const double t_a = m.t0(), t_b = m.t1();
  const double left = plot.left();
  p.save();
  p.setClipRect(plot);
  QColor colors[static_cast<int>(BoxKind::Count)], dim[static_cast<int>(BoxKind::Count)];
  for (int k = 0; k < static_cast<int>(BoxKind::Count); ++k) {
    colors[k] = box_color(static_cast<BoxKind>(k));
    dim[k] = colors[k].lighter(165);
  }
  const QFontMetrics fm(p.font());
  const int digit = fm.horizontalAdvance(QLatin1Char('0'));
  const double step_x0 = left + m.x_of(0),
               step_x1 = left + m.x_of(static_cast<double>(tl.makespan));
  std::vector<int> compute_lane_of_rank(tl.ranks.ranks.size(), -1);
  for (std::size_t i = 0; i < lay.lanes.size(); ++i) {
    const Lane& lane = d.lanes[static_cast<std::size_t>(lay.lanes[i])];
    if (lane.compute && !lane.measured)
      compute_lane_of_rank[static_cast<std::size_t>(lane.rank)] = static_cast<int>(i);
    const int y = plot.top() + lay.top[i], h = lay.height[i];
    if (y > plot.bottom() || y + h < plot.top()) continue;
    // Idle time is what stays of this background: the bubble.
    const double end_x =
        lane.measured ? left + m.x_of(static_cast<double>(measured_span(d))) : step_x1;
    const QColor background = lane.compute ? kBubble : kStreamBackground;
    p.fillRect(QRectF(step_x0, y, end_x - step_x0, h), background);
    const auto& boxes = lane.boxes;
    auto it = std::upper_bound(boxes.begin(), boxes.end(), t_a, [](double t, const Box& b) {
      return t < static_cast<double>(b.end);
    });
    while (it != boxes.end() && static_cast<double>(it->start) < t_b) {
      const double x0 = left + m.x_of(static_cast<double>(it->start));
      const double x1 = left + m.x_of(static_cast<double>(it->end));
      const int k = static_cast<int>(it->kind);
      const int mb = lane.measured ? -1 : g.tasks[it->task].microbatch;
      const bool faded = selected_mb >= 0 && is_compute_kind(it->kind) && mb != selected_mb;
      const QColor& c = faded ? dim[k] : colors[k];
      if (x1 - x0 >= kDetailPx) {
        const QRectF r(x0, y, x1 - x0, h);
        p.fillRect(r, c);
        if (d.recompute && it->kind == BoxKind::Backward && r.width() > 6)
          p.fillRect(r, QBrush(c.darker(125), Qt::BDiagPattern));
        if (x1 - x0 >= 3.0 && h >= 12) {  // a hairline between neighbours
          p.setPen(QColor(255, 255, 255, 160));
          p.drawLine(QPointF(x0, y), QPointF(x0, y + h - 1));
        }
        if (mb >= 0 && h >= 12 && is_compute_kind(it->kind)) {
          const int digits = mb >= 1000 ? 4 : mb >= 100 ? 3 : mb >= 10 ? 2 : 1;
          if (x1 - x0 >= digits * digit + 4) {
            p.setPen(faded ? QColor(255, 255, 255, 170) : Qt::white);
            p.drawText(r, Qt::AlignCenter, QString::number(mb));
          }
        }
        ++stats.boxes;
        ++it;
      } else {
        // Narrow boxes (a long pipeline zoomed out): from this box's pixel on, as long as the
        // boxes that follow are narrow and close, one column per pixel in the time-weighted mix
        // of the kinds running around it over the idle background. F and B alternating every
        // pixel or two would otherwise alias into a barcode; blended, a steady state reads as
        // one band, warm-up and cool-down as their own colours, bubbles as grey. The run's end
        // is looked for every kDetailPx / 2 pixels (a wide box or a gap spans more, so none is
        // stepped over): the cost follows the pixels, not the boxes.
        const double first_px = std::floor(x0 - left);
        double px = first_px;
        const auto first_box = it;
        while (true) {
          // The boxes starting in the next kStep pixels: the last of them may be wide (it ends
          // the run, and is drawn as a box from its start); boxes never overlap, so only it can
          // reach past.
          const auto next =
              boxes.begin() +
              static_cast<std::ptrdiff_t>(first_starting_at(
                  lane, static_cast<std::size_t>(it + 1 - boxes.begin()), m.t_of(px + kStep)));
          const Box& last = *(next - 1);
          px += kStep;
          const double last_x1 = m.x_of(static_cast<double>(last.end));
          if (last_x1 - m.x_of(static_cast<double>(last.start)) >= kDetailPx) {
            it = next - 1;
            break;
          }
          it = next;
          // The run ends at the end of its last narrow box when the next box is wide, comes
          // after idle time, or is past the view.
          const bool more = it != boxes.end() && static_cast<double>(it->start) < t_b;
          const double bx0 = more ? m.x_of(static_cast<double>(it->start)) : 0;
          if (!more || m.x_of(static_cast<double>(it->end)) - bx0 >= kDetailPx ||
              bx0 - last_x1 >= kDetailPx) {
            px = std::max(px, std::ceil(last_x1));
            break;
          }
          px = std::max(px, std::floor(bx0));
        }
        // A run of a few boxes (a warm-up's forwards, a bucketed reduction) is drawn as it is
        // (a one-pixel window); a long one averaged over four boxes' width: a whole period of
        // 1F1B's F, B or ZB's F, I, W.
        const auto boxes_here = it - first_box;
        const double window =
            boxes_here < 16 ? 1.0
                            : std::max(1.0, 4 * (px - first_px) / static_cast<double>(boxes_here));
        paint_blend(p, lane, QRectF(left + first_px, y, px - first_px, h), left, m, window,
                    boxes_here < 16, background, colors);
        stats.columns += static_cast<std::size_t>(px - first_px);
      }
    }
  }
  p.setBrush(Qt::NoBrush);
  if (selected_mb >= 0) {  // the micro-batch's path: producer -> consumer across ranks
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(QPen(QColor(0x20, 0x20, 0x20), 1.5));
    p.setBrush(QColor(0x20, 0x20, 0x20));
    for (const P2pFlow& f : d.flows) {
      if (g.tasks[f.send].microbatch != selected_mb) continue;
      const int la = compute_lane_of_rank[g.streams[g.tasks[f.from].stream].owner];
      const int lb = compute_lane_of_rank[g.streams[g.tasks[f.to].stream].owner];
      if (la < 0 || lb < 0) continue;
      const QPointF a(left + m.x_of(static_cast<double>(tl.end[f.from])),
                      plot.top() + lay.top[static_cast<std::size_t>(la)] +
                          lay.height[static_cast<std::size_t>(la)] / 2.0);
      const QPointF b(left + m.x_of(static_cast<double>(tl.start[f.to])),
                      plot.top() + lay.top[static_cast<std::size_t>(lb)] +
                          lay.height[static_cast<std::size_t>(lb)] / 2.0);
      p.drawLine(a, b);
      const QPointF dir = (b - a) / std::max(1.0, std::hypot(b.x() - a.x(), b.y() - a.y()));
      const QPointF n(-dir.y(), dir.x());
      QPainterPath head;
      head.moveTo(b);
      head.lineTo(b - 7 * dir + 3.5 * n);
      head.lineTo(b - 7 * dir - 3.5 * n);
      head.closeSubpath();
      p.drawPath(head);
    }
  }
  p.restore();
  return stats;
}

void paint_labels(QPainter& p, const QRect& labels, const GanttData& d, const GanttLayout& lay) {
  p.save();
  p.setClipRect(labels);
  const QFont base = p.font();
  QFont small = base;
  small.setPointSizeF(base.pointSizeF() * 0.85);
  for (std::size_t i = 0; i < lay.lanes.size(); ++i) {
    const Lane& lane = d.lanes[static_cast<std::size_t>(lay.lanes[i])];
    const QRect r(labels.left() + 4, labels.top() + lay.top[i], labels.width() - 8, lay.height[i]);
    if (r.top() > labels.bottom()) break;
    p.setFont(lane.compute ? base : small);
    p.setPen(lane.compute ? QColor(0x20, 0x20, 0x20) : QColor(0x50, 0x50, 0x50));
    p.drawText(r, Qt::AlignVCenter | Qt::AlignLeft, QString::fromStdString(lane.label));
  }
  p.restore();
}

void paint_axis(QPainter& p, const QRect& axis, const TimeMapper& m, int grid_bottom) {
  p.save();
  p.setClipRect(QRect(axis.left(), axis.top(), axis.width(), grid_bottom - axis.top()));
  const QFontMetrics fm(p.font());
  for (const Tick& t : m.ticks()) {
    const double x = axis.left() + t.x;
    p.setPen(QColor(0, 0, 0, 28));
    p.drawLine(QPointF(x, axis.bottom()), QPointF(x, grid_bottom));
    p.setPen(QColor(0x40, 0x40, 0x40));
    p.drawLine(QPointF(x, axis.bottom() - 4), QPointF(x, axis.bottom()));
    // Right of its tick, or left of it when the axis ends first (never cut: "3.5 s", not "3.").
    const QString label = QString::fromStdString(t.label);
    const int w = fm.horizontalAdvance(label);
    const double left = x + 3 + w <= axis.right() ? x + 3 : x - 3 - w;
    p.drawText(QRectF(left, axis.top(), w + 1, axis.height() - 4), Qt::AlignLeft | Qt::AlignVCenter,
               label);
  }
  p.setPen(QColor(0x40, 0x40, 0x40));
  p.drawLine(axis.bottomLeft(), axis.bottomRight());
  p.restore();
}

PaintStats paint_gantt(QPainter& p, const QRect& target, const GanttData& d, const GanttLayout& lay,
                       const TimeMapper& m, const GanttStyle& st, int selected_mb) {
  p.fillRect(target, Qt::white);
  const QRect axis(target.left() + st.label_width, target.top(), target.width() - st.label_width,
                   st.axis_height);
  const QRect plot(axis.left(), axis.bottom() + 3, axis.width(),
                   target.bottom() - axis.bottom() - 3);
  const QRect labels(target.left(), plot.top(), st.label_width, plot.height());
  paint_axis(p, axis, m, plot.bottom());
  paint_labels(p, labels, d, lay);
  return paint_lanes(p, plot, d, lay, m, selected_mb);
}

}  // namespace trainsim::gui
