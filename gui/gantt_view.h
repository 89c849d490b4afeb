#pragma once
// The interactive Gantt chart: draws GanttData with gantt_painter, zooms (Ctrl+wheel, pinch,
// + / − keys, Shift-drag or right-drag a range), pans (drag, Shift+wheel, arrow keys), fits
// (F or 0), scrolls lanes (wheel), shows a tooltip per box and selects a micro-batch by click
// (its path is highlighted with its p2p arrows).
#include <memory>   // std::shared_ptr
#include <utility>  // std::pair

#include <QWidget>

#include "gantt_data.h"
#include "gantt_painter.h"
#include "time_mapper.h"

namespace trainsim::gui {

class GanttView : public QWidget {
  Q_OBJECT
 public:
  explicit GanttView(QWidget* parent = nullptr);

  /// Shows `d` (nullptr: empty). The time range is fitted when the step length changes.
  void set_data(std::shared_ptr<const GanttData> d);
  const GanttData* data() const { return data_.get(); }
  const TimeMapper& mapper() const { return mapper_; }
  /// Takes another view's time range (compare and memory views follow the main one).
  void set_mapper(const TimeMapper& m);
  /// Lanes grow (to 2.5 × their height) to fill a pane taller than they need (default on; the
  /// compare view's stacked Gantts, sized to their lanes, turn it off).
  void set_fill_height(bool on);
  /// True until the user zooms or pans: the view refits itself on every resize.
  bool auto_fit() const { return auto_fit_; }
  /// What "fit" shows: [0, span] (0: this timeline's step). Compare views share the longest.
  void set_fit_span(TimeNs span);
  const GanttLayout& layout() const { return layout_; }
  const GanttStyle& style() const { return style_; }
  int selected_microbatch() const { return selected_mb_; }
  void select_microbatch(int mb);

  bool show_peers() const { return show_peers_; }
  bool show_streams() const { return show_streams_; }
  void set_show_peers(bool on);
  void set_show_streams(bool on);

  /// The lane area's geometry in widget pixels: x of time mapper 0 and y of the first lane.
  QRect plot_rect() const;
  /// The task under a widget point, or kNone.
  TaskId task_at(QPoint pos) const;
  /// Text of a task's tooltip: op, micro-batch, chunk, start, duration, FLOPs, bytes.
  QString describe(TaskId t) const;
  /// The lane and box under `pos` (either may be null).
  std::pair<const Lane*, const Box*> box_under(QPoint pos) const;
  /// The measured kernel under `pos` (a measured lane), or nullptr.
  const TraceKernel* kernel_at(QPoint pos) const;
  QString describe(const TraceKernel& k) const;

  QSize sizeHint() const override;

 public slots:
  void fit();
  void zoom_in();
  void zoom_out();

 signals:
  void view_changed();  ///< the time range moved
  void microbatch_selected(int mb);

 protected:
  void paintEvent(QPaintEvent*) override;
  void resizeEvent(QResizeEvent*) override;
  void wheelEvent(QWheelEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void mouseReleaseEvent(QMouseEvent*) override;
  void keyPressEvent(QKeyEvent*) override;
  bool event(QEvent*) override;

 private:
  void relayout();
  void changed();

  std::shared_ptr<const GanttData> data_;
  GanttStyle style_;
  GanttLayout layout_;
  TimeMapper mapper_;
  bool show_peers_ = false, show_streams_ = true;
  int selected_mb_ = -1;
  int scroll_y_ = 0;
  TimeNs fitted_makespan_ = -1;
  TimeNs fit_span_ = 0;
  bool auto_fit_ = true;  ///< refit on resize until the user zooms or pans
  bool fill_height_ = true;
  // Mouse: a drag pans, a Shift- or right-drag selects a range to zoom into.
  QPoint press_, last_;
  bool dragging_ = false, ranging_ = false, moved_ = false;
};

}  // namespace trainsim::gui
