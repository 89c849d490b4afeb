#pragma once
// A measured step (a PyTorch profiler trace, sim/measured/) beside the simulated one, per
// category and per rank: where the simulator is wrong (`trainsim diff`).
//
// Categories line up with the cost model's kernel kinds (kernel_class.h): GEMM, attention and
// memory-bound compute; the optimizer step; communication (all of it, and the part no compute
// hides); idle. Predicted per category: the kernel report's per-micro-batch time of that kind
// on the rank's stage (chunks), × micro-batches per step, scaled by the simulated compute's
// stretch from overlapping communication (busy / unstretched sum), so the categories add up to
// the simulated compute busy time. Measured: the union of the category's kernel intervals.
//
// Communication is also split by what it serves: a measured collective is TP's or DP's when its
// group size (PyTorch ≥ 2.2 records it) is the layout's tp or dp degree (or dp · cp / ep, the
// experts' gradients), an all-to-all over the ep degree is expert parallelism's, and point-to-point
// kernels are the pipeline's; what cannot be told apart is named in a note.
//
// Not compared: kernels the cost model does not have (`other`, listed by family).
#include <string>  // std::string
#include <vector>  // std::vector

#include <nlohmann/json_fwd.hpp>

#include "measured/step_breakdown.h"
#include "report/kernel_report.h"
#include "report/step_report.h"
#include "run/timeline.h"

namespace trainsim {

struct DiffRow {
  /// step, gemm, attention, memory_bound, optimizer, communication, communication_exposed (a part
  /// of communication), communication_tp / _dp / _pp / _ep and their _exposed parts (where the
  /// layout or the trace has them; DP includes ZeRO's parameter gathers), idle, idle_host (a part
  /// of idle: the GPU waiting for the CPU to launch work; predicted where the scenario simulates
  /// its CPU), other: the JSON
  /// key; the text table writes it as a label.
  std::string what;
  double measured_s = 0;
  double predicted_s = 0;
  bool predicted_known = true;  ///< false: the simulator has no such figure (e.g. other)
  /// (predicted − measured) / measured; 0 when measured is 0.
  double error() const { return measured_s > 0 ? (predicted_s - measured_s) / measured_s : 0; }
};

/// One predicted kernel of a category over the step: a kernel report row ("forward norm",
/// "backward qkv.dgrad"; "(recompute)" when it runs again before its backward), its runs and time
/// summed over the stages the rank holds × the micro-batches: one GPU's kernel times, before the
/// simulated step stretches them beside communication or paces them to its slowest GPU.
struct PredictedKernel {
  std::string name;
  double runs = 0, seconds = 0;
};

/// A compute category's kernels, measured by family (summed durations: kernels overlapping on
/// several streams count each) and predicted by kernel, most time first.
struct CategoryKernels {
  std::string what;  ///< gemm, attention, memory_bound (as the rows)
  std::vector<FamilyTime> measured;
  std::vector<PredictedKernel> predicted;
};

struct RankDiff {
  std::string file, step, device;
  int rank = 0, stage = 0;
  std::vector<DiffRow> rows;
  std::vector<FamilyTime> other;         ///< measured kernels the model lacks
  std::vector<FamilyTime> collectives;   ///< measured communication by collective
  std::vector<CategoryKernels> kernels;  ///< gemm, attention, memory_bound
};

struct MeasuredDiff {
  std::string scenario, gpu, schedule, cost_sources;
  std::vector<RankDiff> ranks;
  std::vector<std::string> notes;  ///< caveats: device or world size differing from the scenario
};

/// Pairs each measured rank's step with its pipeline rank (the scenario's layout order) in the
/// simulated step `tl` (`r` its report) and the kernel reports `kernels` (one per stage, index =
/// the schedule's stage; a pipeline rank holds the stages `tl.schedule.stage_rank` gives it).
MeasuredDiff make_measured_diff(const Timeline& tl, const StepReport& r,
                                const std::vector<KernelReport>& kernels,
                                const std::vector<TorchTrace>& traces,
                                const std::vector<StepBreakdown>& steps);

/// The same from the traces and the index of each one's compared step (pick_step): the kernel
/// reports and step breakdowns made here. The CLI's `diff` and the GUI both call this.
MeasuredDiff make_measured_diff(const Timeline& tl, const StepReport& r,
                                const std::vector<TorchTrace>& traces,
                                const std::vector<int>& steps);

/// The text table: one block per rank, rows measured / predicted / error, then the three
/// largest differences and the kernels the model lacks; with `kernels`, each compute category's
/// measured kernel families and predicted kernels, the `most` longest of each.
std::string format_measured_diff(const MeasuredDiff& d, bool kernels = false, std::size_t most = 8);

/// One Chrome trace (Perfetto) with the simulated step (write_chrome_trace's processes) and,
/// as neighbouring processes "measured rank R", each trace's compared step: its kernels, one
/// thread per CUDA stream, shifted so the step's first kernel starts where the simulated step
/// does. `steps[i]` is the index of the compared step in `traces[i]`. InputError when `path`
/// cannot be written.
void write_measured_trace_file(const Timeline& tl, const std::vector<TorchTrace>& traces,
                               const std::vector<int>& steps, const std::string& path);
nlohmann::json measured_diff_to_json(const MeasuredDiff& d);

}  // namespace trainsim
