#pragma once
// Where one measured step's GPU time went, per category (kernel_class.h), on one rank: the
// busy time of each category (the union of its kernels' intervals, so kernels overlapping on
// several streams count once), communication hidden behind compute and exposed, idle time,
// and the kernels no rule knows, by family.
#include <array>   // std::array
#include <string>  // std::string
#include <vector>  // std::vector

#include "core/time.h"
#include "measured/torch_trace.h"

namespace trainsim {

struct FamilyTime {
  std::string family;
  int count = 0;
  TimeNs time = 0;  ///< summed durations
};

/// The communication kernels of one collective and group size: their busy time (union of
/// intervals) and the part of it no other kernel covers.
struct CommGroupTime {
  std::string collective;  ///< kernel_class.h's name ("" unknown)
  int group_size = 0;      ///< from the trace's collective metadata, 0 when it has none
  int count = 0;
  TimeNs busy = 0, exposed = 0;
};

struct StepBreakdown {
  std::string file, step;  ///< trace file, "ProfilerStep#12"
  int rank = 0;
  TimeNs span = 0;  ///< first kernel start to last kernel end of the step
  /// Per KernelCategory (index = the enum value): kernels, summed durations, union of intervals.
  std::array<int, kKernelCategories> count{};
  std::array<TimeNs, kKernelCategories> sum{};
  std::array<TimeNs, kKernelCategories> busy{};
  TimeNs compute_busy = 0;  ///< union of every non-communication kernel
  TimeNs comm_exposed = 0;  ///< communication while no other kernel runs
  TimeNs idle = 0;          ///< span − union of every kernel
  /// The part of `idle` spent waiting for the CPU: the gaps, every stream idle, after which the
  /// next kernel to start had been launched (TraceKernel::launch: the launch call's start; a
  /// call begun before the gap counts as launched) only once the gap had begun.
  /// The GPU had run out of launched work; a host-bound run (many short kernels, an eager
  /// framework's per-operator time) shows it. The rest of `idle` waited with work launched: on
  /// an event from another stream, a copy from the host, a synchronization.
  TimeNs idle_host = 0;
  int host_gaps = 0;            ///< how many gaps idle_host adds up
  bool launches_known = false;  ///< whether the step's kernels carry their launch calls
  /// The step's kernels with a launch call, and the CPU time from the first call to the last:
  /// when the GPU waits for the CPU, the CPU's time for the step's launches (`trainsim diff`
  /// spreads it over the simulated step's kernels for efficiency.host_per_kernel).
  int launches = 0;
  TimeNs launch_span = 0;
  /// Communication per collective (all_reduce, all_gather, …; "" unknown): summed durations.
  std::vector<FamilyTime> collectives;
  std::vector<FamilyTime> other;  ///< `Other` kernels by family, most time first
  /// Every category's kernels by family, most time first (index = the KernelCategory; the
  /// `Other` entry is `other`): what `trainsim diff --kernels` lists.
  std::array<std::vector<FamilyTime>, kKernelCategories> families;
  /// Communication per (collective, group size), in that order: what `trainsim diff` attributes
  /// to TP, DP or PP by the scenario's layout.
  std::vector<CommGroupTime> comm_groups;
  TimeNs busy_of(KernelCategory c) const { return busy[static_cast<std::size_t>(c)]; }
};

/// The breakdown of step `step` (an index into t.steps) of one trace. Throws InputError when the
/// step holds no kernels.
StepBreakdown break_down_step(const TorchTrace& t, int step);

/// The index of the step to compare: `name` ("ProfilerStep#12", or "12") when given, else the
/// median-length step among those with kernels, skipping the first when there are three or more
/// (the first step after the profiler starts carries warm-up). A trace without ProfilerStep
/// annotations gets one step spanning all its kernels, named "whole trace". `name` "A..B" (two
/// times, e.g. "1.2s..1.9s") makes the kernels starting in [A, B) after the trace's first
/// kernel a step of their own ("window 1.200 s..1.900 s"), annotated or not. Throws InputError
/// naming the steps there are when `name` is not among them, and for a window that is not two
/// times, ends before it starts, or holds no kernel.
int pick_step(TorchTrace& t, const std::string& name = "");

}  // namespace trainsim
