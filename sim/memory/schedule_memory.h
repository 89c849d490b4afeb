#pragma once
// The memory a schedule needs, known before any duration: a rank's compute runs its actions one
// after another, so the order of its actions alone fixes how many micro-batches' activations
// it holds at once. The layout search rules a candidate out on this before simulating it.
#include <vector>  // std::vector

#include "scenario/scenario.h"
#include "schedules/schedule.h"

namespace trainsim {

/// Per pipeline rank, the bytes one GPU of that rank holds at its fullest: its static memory
/// (static_memory over the stages it holds; buffers only with a model) plus the peak of the
/// activations its actions keep, walked in order: F adds its stage's stage_activation_bytes, B
/// frees them (the head stage's F also the loss's instant, loss_transient_bytes, on top), I
/// frees `input_frees` of them and W the rest, an overlapped F&B pair adds its F's
/// and frees its B's; activation offload's bytes count only while its forward runs and from the
/// reload before its backward. This is the peak the simulated memory report finds, less ZeRO-3's
/// gathered parameters, which depend on timing: a lower bound in general, the peak itself
/// otherwise.
std::vector<double> schedule_memory_peaks(const Scenario& s, const Schedule& sch);

}  // namespace trainsim
