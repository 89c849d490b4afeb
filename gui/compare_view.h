#pragma once
// "Compare bubble sizes across schedules" in one screen: the chosen schedules' Gantts stacked on
// one time axis (zooming one zooms all), and bar charts (Qt Charts) of step time, bubble in both
// conventions and peak memory per schedule. Draws what SimOutcome::compared holds.
#include <memory>  // std::shared_ptr
#include <vector>  // std::vector

#include <QWidget>

#include "sim_worker.h"

class QVBoxLayout;
class QLabel;
class QHBoxLayout;

namespace trainsim::gui {

class GanttView;

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(QWidget* parent = nullptr);
  void set_outcome(std::shared_ptr<const SimOutcome> o);
  const std::vector<GanttView*>& gantts() const { return gantts_; }

 private:
  void sync_from(GanttView* source);
  std::shared_ptr<const SimOutcome> outcome_;
  QVBoxLayout* stack_ = nullptr;
  QHBoxLayout* charts_ = nullptr;
  QLabel* hint_ = nullptr;
  std::vector<GanttView*> gantts_;
  std::vector<QWidget*> rows_;
};

}  // namespace trainsim::gui
