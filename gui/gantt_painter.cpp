#include "gantt_painter.h"

#include <algorithm>
#include <cmath>

#include <QFontMetrics>
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
    case BoxKind::BackwardInput:
      return QColor(0x2e, 0x8b, 0x57);
    case BoxKind::BackwardWeight:
      return QColor(0x9c, 0x6a, 0xde);
    case BoxKind::ForwardBackward:
      return QColor(0x00, 0x9e, 0xa8);
    case BoxKind::Optimizer:
      return QColor(0xf2, 0x99, 0x1e);
    case BoxKind::TensorParallel:
      return QColor(0xe8, 0xc5, 0x1a);
    case BoxKind::DataParallel:
      return QColor(0xd9, 0x4f, 0x4f);
    case BoxKind::P2p:
      return QColor(0x8d, 0x6e, 0x63);
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
    legend +=
        QStringLiteral("<span style='color:%1'>&#9632;</span> %2&nbsp;&nbsp; ")
            .arg(box_color(kind).name(), QString::fromUtf8(box_kind_name(kind)).toHtmlEscaped());
  }
  legend += QObject::tr(
      "<span style='color:#bbbbbb'>&#9632;</span> idle (bubble) &nbsp; · B hatched "
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
  // Runs of merged one-pixel columns, batched per colour (index 2·kind + faded).
  struct Run {
    int colour = -1, y = 0, h = 0;
    double x0 = 0, x1 = 0;
  } run;
  std::vector<QRectF> batches[2 * static_cast<int>(BoxKind::Count)];
  const auto flush_run = [&] {
    if (run.colour >= 0)
      batches[run.colour].emplace_back(left + run.x0, run.y, run.x1 - run.x0, run.h);
    run.colour = -1;
  };
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
    p.fillRect(QRectF(step_x0, y, end_x - step_x0, h), lane.compute ? kBubble : kStreamBackground);
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
      if (x1 - x0 >= 1.0) {
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
        // Sub-pixel: one column for everything in this pixel, then jump past it. Adjacent
        // columns of one colour extend a run; runs are drawn in one call per colour below.
        const double px = std::floor(x0 - left);
        const int colour = k * 2 + (faded ? 1 : 0);
        if (run.colour == colour && run.y == y && run.x1 == px) {
          run.x1 = px + 1;
        } else {
          flush_run();
          run = {colour, y, h, px, px + 1};
        }
        ++stats.columns;
        const double next_t = m.t_of(px + 1);
        it = std::lower_bound(it + 1, boxes.end(), next_t, [](const Box& b, double t) {
          return static_cast<double>(b.start) < t;
        });
      }
    }
  }
  flush_run();
  p.setPen(Qt::NoPen);
  for (int b = 0; b < 2 * static_cast<int>(BoxKind::Count); ++b) {
    if (batches[b].empty()) continue;
    p.setBrush(b % 2 ? dim[b / 2] : colors[b / 2]);
    p.drawRects(batches[b].data(), static_cast<int>(batches[b].size()));
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
