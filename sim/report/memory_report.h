#pragma once
// Memory over time on each pipeline stage's GPUs: the static state (memory/footprint.h) plus the
// activations the Timeline shows alive at every instant, the peak with its moment and breakdown,
// out-of-memory against the device, and a peak too tight for its usable memory (the device's less
// the caching allocator's fragmentation, scenario.h usable_memory). Reads the Timeline;
// recomputes nothing.
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include <nlohmann/json_fwd.hpp>

#include "run/timeline.h"
#include "scenario/model.h"

namespace trainsim {

/// One change of a GPU's activation memory or of its gathered (ZeRO-3) parameters.
struct ActivationEvent {
  TimeNs time = 0;
  double microbatches = 0;  ///< a chunk's share of whole-stage micro-batches (1/vpp each)
  double bytes = 0;         ///< activation bytes
  double gathered = 0;      ///< bytes of all-gathered ZeRO-3 parameters
  /// bytes held only at this instant, beside the others (the loss's, loss_transient_bytes)
  double transient = 0;
};

/// Per pipeline rank (its representative GPU, tp = dp = 0): activation deltas sorted by time,
/// frees before allocations at the same instant, an instant's transient bytes last. F allocates
/// at its start, and on the head's stage the loss's transient bytes at its end (an overlapped
/// F&B at its start, after its forward's); a fused B frees at
/// its end; a split backward frees Schedule::input_frees at I and the rest at W; an overlapped
/// F&B allocates its forward's at its start and frees its backward's at its end. Under ZeRO-3 a
/// unit's all-gather allocates its full 16-bit parameters at its start; they are freed when the
/// compute part that used them ends, or at the end of the step when kept across micro-batches.
/// Activation offload: a copy to host memory frees its bytes when it ends, the copy back
/// allocates them when it starts.
std::vector<std::vector<ActivationEvent>> activation_events(const Timeline& tl);

struct StageMemory {
  int stage = 0;  ///< pipeline rank
  double parameters = 0;
  double weights = 0, gradients = 0, optimizer = 0, buffers = 0;
  /// The layers' linear weights in FP8 (training.precision fp8), counted in `buffers`: a copy
  /// (and on Hopper its transpose) beside the 16-bit weights, or with training.fp8_params the
  /// weights themselves (then not in `weights`).
  double fp8_weights = 0;
  double activations = 0;  ///< at the peak
  double gathered = 0;     ///< ZeRO-3 gathered parameters at the peak
  double total = 0;        ///< weights + gradients + optimizer + buffers + activations + gathered
  double peak = 0;         ///< the most bytes at any instant (= total while the state is static)
  double peak_time_s = 0;
};

/// The scenario's logged peak (measured.peak_memory) against stage 0's predicted peak less the
/// runtime overhead the allocator does not count (memory.runtime_overhead).
struct MemoryCheck {
  double measured = 0;   ///< bytes: the run's max_memory_allocated on its first GPU
  double predicted = 0;  ///< bytes: stage 0's peak − memory.runtime_overhead
  double error() const { return predicted / measured - 1; }
};

struct OutOfMemory {
  int stage = 0;
  double time_s = 0;
  double excess = 0;     ///< bytes over the device's memory (`tight`: over its usable memory)
  std::string dominant;  ///< the largest component at that moment
};

struct MemoryReport {
  std::optional<ModelSpec> model;        ///< the model trained (none in a costs-only study)
  std::vector<std::string> model_edits;  ///< its command-line edits (StepReport's)
  double device_memory = 0;              ///< bytes, 0 without a cluster
  /// What the live tensors may peak at with room to spare: device_memory less the caching
  /// allocator's fragmentation (memory.fragmentation). 0 without a cluster.
  double usable_memory = 0;
  double fragmentation = 0;  ///< memory.fragmentation: the share of device_memory unusable
  DpBuckets dp_buckets = DpBuckets::View;  ///< memory.dp_buckets: what the buffers counted
  std::vector<StageMemory> stages;
  std::vector<OutOfMemory> out_of_memory;  ///< stages whose peak exceeds the device
  /// Stages whose peak fits the device but not its usable memory: PyTorch's caching allocator
  /// may run out there, or slow down flushing its cache (of the Ultra-Scale Playbook's layouts
  /// predicted in that band, 78 crashed and 1 ran; Megatron's preallocated buffers leave less to
  /// fragment: MLPerf's NeMo LoRA on B200 ran in it; tests/published/README.md).
  std::vector<OutOfMemory> tight;
  std::optional<MemoryCheck> measured;  ///< with measured.peak_memory
  /// training.recompute: selective, but no stage keeps a byte less for it than without
  /// recompute (its modules' stored tensors are kept anyway: FlashAttention's or cuDNN's
  /// attention core stores no scores, and its inputs and output stay for the projections
  /// around it): the recompute costs time and saves nothing.
  bool selective_saves_nothing = false;
  /// The fullest GPU's peak: the largest stage peak (0 without stages).
  double largest_peak() const;
};

MemoryReport make_memory_report(const Timeline& tl);

/// The stage of `list` (out_of_memory or tight) furthest over its line, nullptr when empty.
const OutOfMemory* worst_excess(const std::vector<OutOfMemory>& list);
/// "stage 3 (+170.5 GB) and 3 more": the worst of `list` and how many others ("" when empty).
std::string worst_excess_words(const std::vector<OutOfMemory>& list);

/// One GPU's bytes at an instant: the static state, activations and gathered parameters.
struct MemorySample {
  TimeNs time = 0;
  double fixed = 0;  ///< weights + gradients + optimizer + buffers
  double activations = 0;
  double gathered = 0;
  double total() const { return fixed + activations + gathered; }
};
/// Per pipeline rank (index = StageMemory::stage): a sample at 0, one after each instant at
/// which activation_events change something, and one at the makespan. The trace's memory
/// counters and the GUI's memory plot draw these.
std::vector<std::vector<MemorySample>> memory_over_time(const Timeline& tl, const MemoryReport& m);
/// The per-stage table under the model's line; a costs-only scenario (no model) says memory is
/// not modelled.
std::string format_memory(const MemoryReport& m);
/// The usable memory in words, for a tight peak's message: "the 76.02 GB usable of the
/// device's 85.90 GB (memory.fragmentation 11.5 %)".
std::string usable_words(const MemoryReport& m);
nlohmann::json memory_to_json(const MemoryReport& m);
/// `{"peak_memory", "predicted", "error"}`, or null without a logged peak: memory_to_json's
/// "measured" and `trainsim check --json`'s per-case "memory".
nlohmann::json memory_check_to_json(const std::optional<MemoryCheck>& c);

}  // namespace trainsim
