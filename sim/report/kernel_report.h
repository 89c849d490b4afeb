#pragma once
// Where one micro-batch's compute time goes: every kernel the cost model times for a stage's
// forward and backward, merged by name, with its time, share and achieved rate, and where its
// duration comes from (`trainsim kernels`). Reads the cost model; adds no cost of its own.
#include <string>   // std::string
#include <utility>  // std::pair
#include <vector>   // std::vector

#include <nlohmann/json_fwd.hpp>

#include "cost/cost_model.h"
#include "scenario/scenario.h"

namespace trainsim {

struct KernelRow {
  std::string what, kind, source;
  int count = 0;       ///< runs per micro-batch
  double flops = 0;    ///< all runs
  double bytes = 0;    ///< all runs
  double seconds = 0;  ///< all runs, launches included
  bool recompute = false;
};

struct KernelPass {
  std::string op;               ///< "forward" or "backward"
  std::vector<KernelRow> rows;  ///< in the order the kernels first run
  double seconds = 0;           ///< the sum of the rows (= the cost model's compute time)
  /// The CPU issuing the pass's kernels (CostModel::host_launch): its time and how many it
  /// launches; 0 when the CPU keeps ahead of the GPU (efficiency.host_per_kernel 0).
  double cpu_seconds = 0, launches = 0;
  /// The collectives the pass runs beside or after its kernels, on communication streams
  /// (tensor, expert and context parallelism's; CostModel::tp/ep/cp_collectives), with what
  /// parallelism each serves: not in `rows` nor `seconds`.
  std::vector<std::pair<std::string, CollectiveRun>> collectives;
  double seconds_of(const std::string& kind) const;
};

struct KernelReport {
  std::string scenario, gpu;
  int stage = 0, stages = 1;
  /// With several chunks a rank (vpp > 1): the layout's pp and vpp, and the pipeline rank the
  /// schedule places `stage` on (-1 where it cannot say: a schedule from a CSV file).
  int pp = 1, vpp = 1, rank = 0;
  double peak_flops = 0, hbm_bandwidth = 0;
  std::vector<KernelPass> passes;  ///< empty when the model does not time kernels
  std::string sources;             ///< the model's sources() line
  /// The step runs these kernels at its slowest GPU's pace: their times × this
  /// (CostModel::compute_pace; 1 on one GPU) on `gpus` GPUs.
  double compute_pace = 1.0;
  int gpus = 1;
  /// FP8 GEMMs (training.precision fp8): the header names the FP8 peak too.
  bool fp8 = false;
  /// Context parallelism's exchange runs as a ring (parallelism.cp_comm ring): its runs, which
  /// the model sizes as the all-gather moving the same bytes, are named so.
  bool cp_ring = false;
  /// How much slower the step runs these kernels while communication shares the GPU
  /// (contention.compute_slowdown; 0 on one GPU, where nothing runs beside them).
  double compute_slowdown = 0;
};

/// The kernels of pipeline stage `stage` (a chunk index, 0 … pp·vpp − 1) under `model`.
/// Throws InputError when `stage` is out of range.
KernelReport make_kernel_report(const Scenario& s, const CostModel& model, int stage);
std::string format_kernel_report(const KernelReport& r);
nlohmann::json kernel_report_to_json(const KernelReport& r);

}  // namespace trainsim
