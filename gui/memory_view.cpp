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
QColor stage_color(int stage) {
  return QColor::fromHsv((stage * 67) % 360, 190, 200);
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
    const QString name = tr("usable %1 GB").arg(report_->usable_memory / 1e9, 0, 'f', 1);
    p.setPen(QColor(0x30, 0x30, 0x30, 160));
    p.drawText(QPointF(plot.left() + 60, y - 3), name);
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
    p.setPen(QPen(stage_color(s.stage), width));
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
  // Tight: an orange marker on the usable line at each tight stage's peak, the worst one named.
  p.setPen(Qt::NoPen);
  p.setBrush(QColor(0xe0, 0x80, 0x10));
  const OutOfMemory* worst = nullptr;
  for (const OutOfMemory& o : report_->tight) {
    p.drawEllipse(QPointF(plot.left() + mapper_.x_of(o.time_s * 1e9), y_of(report_->usable_memory)),
                  4, 4);
    if (!worst || o.excess > worst->excess) worst = &o;
  }
  if (worst) {
    p.setPen(QColor(0xb3, 0x59, 0x00));
    const QString more =
        report_->tight.size() > 1 ? tr(" and %1 more").arg(report_->tight.size() - 1) : QString();
    p.drawText(QPointF(plot.left() + mapper_.x_of(worst->time_s * 1e9) + 8,
                       y_of(report_->usable_memory) + 14),
               tr("tight: stage %1 (+%2 GB)%3")
                   .arg(worst->stage)
                   .arg(worst->excess / 1e9, 0, 'f', 1)
                   .arg(more));
    p.setPen(Qt::NoPen);
  }
  // Out of memory: a red marker where the stage first exceeds the device.
  p.setPen(Qt::NoPen);
  p.setBrush(QColor(0xd0, 0x20, 0x20));
  for (const OutOfMemory& o : report_->out_of_memory) {
    const double x = plot.left() + mapper_.x_of(o.time_s * 1e9);
    const double y = y_of(report_->device_memory);
    p.drawEllipse(QPointF(x, y), 5, 5);
    p.setPen(QColor(0xd0, 0x20, 0x20));
    p.drawText(QPointF(x + 8, y - 4),
               tr("OOM: stage %1 (+%2 GB)").arg(o.stage).arg(o.excess / 1e9, 0, 'f', 1));
    p.setPen(Qt::NoPen);
  }
  // Legend.
  p.setClipping(false);
  int lx = 4, ly = plot.top() + 20;
  for (const auto& s : *series_) {
    if (ly + 12 > height()) break;
    p.fillRect(QRect(lx, ly + 4, 10, 3), stage_color(s.stage));
    p.setPen(QColor(0x40, 0x40, 0x40));
    p.drawText(QPoint(lx + 14, ly + 10),
               tr("pp %1: peak %2 GB").arg(s.stage).arg(s.peak / 1e9, 0, 'f', 1));
    ly += 13;
  }
}

}  // namespace trainsim::gui
