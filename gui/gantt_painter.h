#pragma once
// Paints GanttData with a TimeMapper: lanes, boxes coloured by kind with the micro-batch number
// when it fits, idle time left as the grey bubble, the selected micro-batch's path with its p2p
// arrows, and the time axis. Level of detail: boxes narrower than a pixel merge into one pixel
// column per lane (a binary search skips the rest), so a full zoom-out of 10⁶ tasks costs
// O(lanes × width × log n). Used by the widget, the PNG/SVG export and the benchmark alike.
#include <vector>  // std::vector

#include <QColor>
#include <QRect>
#include <QString>

#include "gantt_data.h"
#include "time_mapper.h"

class QPainter;

namespace trainsim::gui {

QColor box_color(BoxKind k);
/// The colour legend of box kinds as rich text (the Timeline's and the Compare tab's), the
/// measured kernels' kinds only `with_measured`.
QString box_legend_html(bool with_measured);

struct GanttStyle {
  int lane_height = 20;         ///< a compute lane
  int stream_lane_height = 10;  ///< a communication lane
  int stage_gap = 4;            ///< between pipeline stages
  int label_width = 170;
  int axis_height = 22;
};

/// Where each visible lane sits, top to bottom (y relative to the lanes' area).
struct GanttLayout {
  std::vector<int> lanes;  ///< indices into GanttData::lanes
  std::vector<int> top;    ///< per visible lane
  std::vector<int> height;
  int total_height = 0;
  /// The visible lane at `y`, or -1.
  int lane_at(int y) const;
};
GanttLayout layout_lanes(const GanttData& d, const std::vector<int>& visible, const GanttStyle& st);

struct PaintStats {
  std::size_t boxes = 0;  ///< drawn as boxes (3 px wide or more)
  /// One-pixel columns where boxes under 3 px wide are drawn as the time-weighted mix of the
  /// kinds running there (no barcode of alternating F and B).
  std::size_t columns = 0;
};

/// Paints the lanes' boxes inside `plot` (x from plot.left() = mapper x 0, y from plot.top()).
/// `selected_mb` ≥ 0 dims other micro-batches' compute and draws that micro-batch's arrows.
PaintStats paint_lanes(QPainter& p, const QRect& plot, const GanttData& d, const GanttLayout& lay,
                       const TimeMapper& m, int selected_mb = -1);
/// Lane labels in the `labels` column.
void paint_labels(QPainter& p, const QRect& labels, const GanttData& d, const GanttLayout& lay);
/// Tick marks and labels along the top of `axis`, with faint grid lines down to `grid_bottom`.
void paint_axis(QPainter& p, const QRect& axis, const TimeMapper& m, int grid_bottom);
/// The whole chart (labels, axis, lanes) into `target` — for export and the benchmark.
PaintStats paint_gantt(QPainter& p, const QRect& target, const GanttData& d, const GanttLayout& lay,
                       const TimeMapper& m, const GanttStyle& st, int selected_mb = -1);

}  // namespace trainsim::gui
