#include "memory_view.h"

#include <algorithm>
#include <cmath>

#include <QPainter>
#include <QPainterPath>

namespace trainsim::gui {

std::vector<MemorySeries> memory_series(const Timeline& tl, const MemoryReport& mem) {
  std::vector<MemorySeries> out;
  const auto samples = memory_over_time(tl, mem);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    MemorySeries s;
    s.stage = mem.stages[i].stage;
    for (const MemorySample& m : samples[i]) {
      s.points.emplace_back(m.time, m.total());
      s.peak = std::max(s.peak, m.total());
    }
    out.push_back(std::move(s));
  }
  return out;
}

double memory_tick_step(double top) {
  double decade = 1e-3;
  while (decade * 50 < top) decade *= 10;  // now top / decade ≤ 50
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (top / (m * decade) <= 5) return m * decade;
  return 10 * decade;
}

MemoryView::MemoryView(QWidget* parent) : QWidget(parent) {
  setMinimumHeight(90);
}

void MemoryView::set_data(std::shared_ptr<const Timeline> tl,
                          std::shared_ptr<const MemoryReport> report,
                          std::shared_ptr<const std::vector<MemorySeries>> series) {
  tl_ = std::move(tl);
  report_ = report ? std::move(report) : std::make_shared<const MemoryReport>();
  series_ = series ? std::move(series) : std::make_shared<const std::vector<MemorySeries>>();
  update();
}

void MemoryView::set_mapper(const TimeMapper& m) {
  mapper_ = m;
  update();
}

namespace {
// Up to ten stages, ten colours no two alike (Tableau 10, red first); more, one hue each along
// red → violet in stage order, so no colour comes back and neighbours read as neighbours.
QColor stage_color(int stage, int stages) {
  static const QRgb kDistinct[] = {0xe15759, 0x4e79a7, 0x59a14f, 0xf28e2b, 0xb07aa1,
                                   0x76b7b2, 0xedc948, 0xff9da7, 0x9c755f, 0x8c8c8c};
  if (stages <= 10) return QColor(kDistinct[stage % 10]);
  const double at = stages > 1 ? static_cast<double>(stage) / (stages - 1) : 0;
  return QColor::fromHsv(static_cast<int>(280 * at), 200, stage % 2 == 0 ? 210 : 160);
}
}  // namespace

void MemoryView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  const QRect plot(label_width_, 6, std::max(1, width() - label_width_),
                   std::max(1, height() - 12));
  if (series_->empty()) {
    p.setPen(Qt::gray);
    p.drawText(plot, Qt::AlignCenter, tr("memory over time needs a model (costs-only scenario)"));
    return;
  }
  double top = report_->device_memory;
  for (const auto& s : *series_) top = std::max(top, s.peak);
  top *= 1.08;
  const auto y_of = [&](double bytes) { return plot.bottom() - bytes / top * plot.height(); };
  p.setPen(QColor(0x40, 0x40, 0x40));
  p.drawText(QRect(4, plot.top(), label_width_ - 8, 16), Qt::AlignLeft, tr("memory per GPU"));
  p.setClipRect(plot);
  // The y axis: faint grid lines at a 1-2-5 step giving at most 5 of them, each labelled in GB
  // at the plot's left edge (the labels go on last, over the curves).
  std::vector<std::pair<double, QString>> ticks;
  {
    const double top_gb = top / 1e9;
    const double step = memory_tick_step(top_gb);
    for (int i = 1; i * step < top_gb; ++i) {
      const double gb = i * step;
      const double y = y_of(gb * 1e9);
      p.setPen(QColor(0, 0, 0, 28));
      p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
      ticks.emplace_back(y, tr("%1 GB").arg(gb, 0, 'g', 3));
    }
  }
  p.setRenderHint(QPainter::Antialiasing, true);
  // The usable memory (the device's less the caching allocator's fragmentation): faint and
  // dotted, named at its left end; a peak past it is tight.
  if (report_->usable_memory > 0 && report_->usable_memory < report_->device_memory) {
    const double y = y_of(report_->usable_memory);
    p.setPen(QPen(QColor(0x30, 0x30, 0x30, 120), 1, Qt::DotLine));
    p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    // Named at its right end, under it on a white ground (the curves rise through its left).
    const QString name = tr("usable %1 GB").arg(report_->usable_memory / 1e9, 0, 'f', 1);
    const QFontMetrics fm = p.fontMetrics();
    const int w = fm.horizontalAdvance(name);
    p.fillRect(QRectF(plot.right() - w - 8, y + 2, w + 6, fm.height()), QColor(255, 255, 255, 225));
    p.setPen(QColor(0x30, 0x30, 0x30, 170));
    p.drawText(QPointF(plot.right() - w - 5, y + 2 + fm.ascent()), name);
  }
  // The device's memory: dark grey and dashed (stage 0's curve is red), named at its right end.
  if (report_->device_memory > 0) {
    const double y = y_of(report_->device_memory);
    p.setPen(QPen(QColor(0x30, 0x30, 0x30), 1.5, Qt::DashLine));
    p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    const QString name = tr("device %1 GB").arg(report_->device_memory / 1e9, 0, 'f', 1);
    const QFontMetrics fm = p.fontMetrics();
    const int w = fm.horizontalAdvance(name);
    // Above the line, or below it when the line runs near the top.
    const double text_top = y - fm.height() - 2 >= plot.top() ? y - fm.height() - 2 : y + 2;
    p.fillRect(QRectF(plot.right() - w - 8, text_top, w + 6, fm.height()), Qt::white);
    p.setPen(QColor(0x30, 0x30, 0x30));
    p.drawText(QPointF(plot.right() - w - 5, text_top + fm.ascent()), name);
  }
  const double end_x = std::min<double>(
      plot.right() + 1, plot.left() + mapper_.x_of(static_cast<double>(tl_->makespan)));
  const int stages = static_cast<int>(series_->size());
  // Widest first: a curve equal to another's stays visible inside it.
  const double widest = std::min(3.5, 1.5 + 0.7 * static_cast<double>(series_->size() - 1));
  double width = widest;
  for (const auto& s : *series_) {
    // A step line; changes within one pixel column collapse to a vertical segment there.
    QPainterPath path;
    double prev_y = y_of(s.points.front().second);
    path.moveTo(plot.left() + mapper_.x_of(0), prev_y);
    double column = -1e300;
    for (std::size_t i = 1; i < s.points.size(); ++i) {
      const double x = plot.left() + mapper_.x_of(static_cast<double>(s.points[i].first));
      const double y = y_of(s.points[i].second);
      if (x < plot.left() - 1 || std::floor(x) == column) {
        if (x >= plot.left() - 1)
          path.lineTo(column, y);
        else
          path.moveTo(plot.left() - 1, y);
        prev_y = y;
        continue;
      }
      if (x > plot.right() + 1) break;
      column = std::floor(x);
      path.lineTo(column, prev_y);
      path.lineTo(column, y);
      prev_y = y;
    }
    path.lineTo(end_x, prev_y);
    p.setPen(QPen(stage_color(s.stage, stages), width));
    p.drawPath(path);
    width = std::max(1.0, width - 0.7);
  }
  {
    QFont small = p.font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p.setFont(small);
    const QFontMetrics fm = p.fontMetrics();
    for (const auto& [y, text] : ticks) {
      p.fillRect(QRectF(plot.left() + 1, y - fm.ascent() - 2, fm.horizontalAdvance(text) + 4,
                        fm.ascent() + 1),
                 QColor(255, 255, 255, 210));
      p.setPen(QColor(0x70, 0x70, 0x70));
      p.drawText(QPointF(plot.left() + 3, y - 2), text);
    }
    p.setFont(QFont());
  }
  // Each stage past the device (red) or past its usable memory (orange): a marker on its curve
  // at its peak, the report's excess over that line; the worst of each kind named once, with
  // how many more, on a white ground clear of the curves ("OOM: stage 1 (+66.1 GB) and 15 more").
  const auto mark = [&](const std::vector<OutOfMemory>& list, double line, const QColor& fill,
                        const QColor& ink, const QString& what, double radius) {
    p.setPen(QPen(Qt::white, 1));
    p.setBrush(fill);
    for (const OutOfMemory& o : list)
      p.drawEllipse(QPointF(plot.left() + mapper_.x_of(o.time_s * 1e9), y_of(line + o.excess)),
                    radius, radius);
    const OutOfMemory* worst = worst_excess(list);
    if (!worst) return;
    const QString text =
        what + QStringLiteral(": ") + QString::fromStdString(worst_excess_words(list));
    const QFontMetrics fm = p.fontMetrics();
    const int w = fm.horizontalAdvance(text);
    // Right of the worst marker, or left of it near the right edge; kept inside the plot.
    double x = plot.left() + mapper_.x_of(worst->time_s * 1e9) + 9;
    if (x + w + 4 > plot.right()) x = std::max<double>(plot.left() + 2, x - w - 22);
    const double y =
        std::clamp(y_of(line + worst->excess) - fm.height() / 2.0, static_cast<double>(plot.top()),
                   static_cast<double>(plot.bottom() - fm.height()));
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(255, 255, 255, 225));
    p.drawRect(QRectF(x - 2, y, w + 4, fm.height()));
    p.setPen(ink);
    p.drawText(QPointF(x, y + fm.ascent()), text);
  };
  mark(report_->tight, report_->usable_memory, QColor(0xe0, 0x80, 0x10), QColor(0xb3, 0x59, 0x00),
       tr("tight"), 4);
  mark(report_->out_of_memory, report_->device_memory, QColor(0xd0, 0x20, 0x20),
       QColor(0xb0, 0x10, 0x10), tr("OOM"), 5);
  p.setBrush(Qt::NoBrush);
  // Legend.
  p.setClipping(false);
  // One line a stage while they fit; the last line then says how many it leaves out.
  int lx = 4, ly = plot.top() + 20;
  const int fit = std::max(1, (height() - ly) / 13);
  for (std::size_t i = 0; i < series_->size(); ++i) {
    const auto& s = (*series_)[i];
    p.setPen(QColor(0x40, 0x40, 0x40));
    if (static_cast<int>(i) == fit - 1 && series_->size() > static_cast<std::size_t>(fit)) {
      p.drawText(QPoint(lx, ly + 10), tr("… and %1 more stages (pp %2–%3)")
                                          .arg(series_->size() - i)
                                          .arg(s.stage)
                                          .arg(series_->back().stage));
      break;
    }
    p.fillRect(QRect(lx, ly + 4, 10, 3), stage_color(s.stage, stages));
    p.drawText(QPoint(lx + 14, ly + 10),
               tr("pp %1: peak %2 GB").arg(s.stage).arg(s.peak / 1e9, 0, 'f', 1));
    ly += 13;
  }
}

}  // namespace trainsim::gui
