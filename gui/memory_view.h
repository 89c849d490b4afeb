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

class MemoryView : public QWidget {
  Q_OBJECT
 public:
  explicit MemoryView(QWidget* parent = nullptr);
  /// Empty when `tl` has no model (costs-only scenarios have no bytes).
  void set_data(std::shared_ptr<const Timeline> tl);
  void set_mapper(const TimeMapper& m);
  void set_label_width(int w) { label_width_ = w; }
  const std::vector<MemorySeries>& series() const { return series_; }
  const MemoryReport& report() const { return report_; }

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  std::shared_ptr<const Timeline> tl_;
  MemoryReport report_;
  std::vector<MemorySeries> series_;
  TimeMapper mapper_;
  int label_width_ = 170;
};

}  // namespace trainsim::gui
