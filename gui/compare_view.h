#pragma once
// "Compare bubble sizes across schedules" in one screen: the chosen schedules' Gantts stacked on
// one time axis (zooming one zooms all); below them, horizontal bar charts (Qt Charts) of step
// time, bubble in both conventions and peak memory per schedule (the device as a line, a schedule
// far out of memory clipped in red), or the same measures as a sortable table. Draws what
// SimOutcome::compared holds.
#include <memory>  // std::shared_ptr
#include <vector>  // std::vector

#include <QWidget>

#include "sim_worker.h"

class QVBoxLayout;
class QLabel;
class QHBoxLayout;
class QTabWidget;
class QTableWidget;

namespace trainsim::gui {

class GanttView;

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(QWidget* parent = nullptr);
  void set_outcome(std::shared_ptr<const SimOutcome> o);
  const std::vector<GanttView*>& gantts() const { return gantts_; }
  QTabWidget* details() const { return details_; }
  QTableWidget* table() const { return table_; }

 private:
  void sync_from(GanttView* source);
  /// `step` in ms when `ms`, else in s.
  void fill_table(const QStringList& names, const std::vector<double>& step, bool ms,
                  const std::vector<double>& bubble_step, const std::vector<double>& bubble_ideal,
                  const std::vector<double>& peak, const std::vector<bool>& oom);
  std::shared_ptr<const SimOutcome> outcome_;
  QVBoxLayout* stack_ = nullptr;
  QHBoxLayout* charts_ = nullptr;
  QLabel* hint_ = nullptr;
  QLabel* legend_ = nullptr;  ///< the box colours, above the stacked Gantts
  QTabWidget* details_ = nullptr;
  QTableWidget* table_ = nullptr;
  std::vector<GanttView*> gantts_;
  std::vector<QWidget*> rows_;
};

}  // namespace trainsim::gui
