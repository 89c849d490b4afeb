#pragma once
// A terminal Gantt of a Timeline: one row per simulated rank's compute stream, each task drawn
// over the columns its time span covers, labelled with its op letter and micro-batch ("F12")
// when it fits, '-' continuing it, '.' for idle; odd model chunks in lower case ("f3", "b3").
// Time runs left to right at makespan / width per column.
#include <string>  // std::string

#include "run/timeline.h"

namespace trainsim {

/// `width` columns for the whole step (at least 10).
std::string format_gantt(const Timeline& tl, int width = 100);

}  // namespace trainsim
