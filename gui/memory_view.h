#pragma once
// Memory over time under the Gantt: one step line per pipeline stage's GPU (static state +
// activations + gathered parameters, from the sim library's memory report and activation
// events), the device's memory as a dashed red line and each out-of-memory moment marked.
// Follows the Gantt's time range.
#include <memory>  // std::shared_ptr
#include <vector>  // std::vector

#include <QWidget>

#include "report/memory_report.h"
#include "run/timeline.h"
#include "time_mapper.h"

namespace trainsim::gui {

/// One stage's bytes over time (the library's memory_over_time, summed): (time, bytes held
/// from then on), starting at 0.
struct MemorySeries {
  int stage = 0;
  std::vector<std::pair<TimeNs, double>> points;
  double peak = 0;
};
std::vector<MemorySeries> memory_series(const Timeline& tl, const MemoryReport& mem);

/// The y axis' grid step for a plot from 0 to `top` (any unit): the smallest of 1, 2, 5 × 10^k
/// that draws at most 5 lines (93 GB: 20 GB; 12 GB: 5 GB; 0.3 GB: 0.1 GB).
double memory_tick_step(double top);

class MemoryView : public QWidget {
  Q_OBJECT
 public:
  explicit MemoryView(QWidget* parent = nullptr);
  /// The memory report and its series as SimWorker computed them off the GUI thread (empty
  /// when `tl` has no model: costs-only scenarios have no bytes). Nothing is computed here.
  void set_data(std::shared_ptr<const Timeline> tl, std::shared_ptr<const MemoryReport> report,
                std::shared_ptr<const std::vector<MemorySeries>> series);
  void set_mapper(const TimeMapper& m);
  void set_label_width(int w) { label_width_ = w; }
  const std::vector<MemorySeries>& series() const { return *series_; }
  const MemoryReport& report() const { return *report_; }

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  std::shared_ptr<const Timeline> tl_;
  std::shared_ptr<const MemoryReport> report_ = std::make_shared<const MemoryReport>();
  std::shared_ptr<const std::vector<MemorySeries>> series_ =
      std::make_shared<const std::vector<MemorySeries>>();
  TimeMapper mapper_;
  int label_width_ = 170;
};

}  // namespace trainsim::gui
