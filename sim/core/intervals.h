#pragma once
// Sets of time intervals [begin, end): their union, its length, and the part of one set no
// other set covers. The step report (exposed communication) and a measured step's breakdown
// both reduce kernels or tasks on several streams to these.
#include <utility>  // std::pair
#include <vector>   // std::vector

#include "core/time.h"

namespace trainsim {

using Interval = std::pair<TimeNs, TimeNs>;

/// The union of `v` as sorted, disjoint intervals (touching ones joined).
std::vector<Interval> merged(std::vector<Interval> v);
/// The length of the union of `v`.
TimeNs union_length(std::vector<Interval> v);
/// The length of union(a) not covered by union(b).
TimeNs uncovered(const std::vector<Interval>& a, const std::vector<Interval>& b);

}  // namespace trainsim
