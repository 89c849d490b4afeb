#pragma once
// A terminal Gantt of a Timeline: one row per simulated rank's compute stream, each task drawn
// over the columns its time span covers, labelled with its op letter and micro-batch ("F12"),
// '-' continuing it, '.' for idle; odd model chunks in lower case ("f3", "b3"). Time runs left to
// right at makespan / width per column. A legend names every letter drawn.
#include <string>  // std::string

#include "run/timeline.h"

namespace trainsim {

/// The narrowest width, from 100 up to kMaxGanttWidth columns, at which every task is as wide
/// as its label.
int gantt_width_for_labels(const Timeline& tl);
inline constexpr int kMaxGanttWidth = 1000;

/// `width` columns for the whole step (at least 10; 0: gantt_width_for_labels). A task narrower
/// than its label shows its letter alone, and a line under the chart says how many did.
std::string format_gantt(const Timeline& tl, int width = 0);

}  // namespace trainsim
