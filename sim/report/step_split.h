#pragma once
// Where a series' error sits: in each micro-batch, or once a step. Runs of one series
// (`measured.series`) whose scenarios differ only in scale (the data-parallel degree, the node
// count and the global batch: scale_keys) run the same micro-batch on every GPU, n of them a step
// on each data-parallel rank (StepReport::microbatches). Their step times, fitted by least squares
// as
//
//   step time = per_step + n · per_microbatch,
//
// measured and predicted, split a series' error in two: a micro-batch priced too cheap or too dear
// (the kernels, the per-micro-batch communication), and what a step adds once (the gradient
// reduction and the parameter gathers at that scale, the optimizer, the pipeline's fill and
// drain, the host's work between steps). NVIDIA's DeepSeek-V3 on 512 to 8,192 GB200s (240 to 16
// micro-batches) measures a micro-batch within 10 % of trainsim's and a step 1.2 s longer: a
// per-step cost the model lacks, where one run's error alone could not say which.
//
// The per-step part includes whatever grows with the scale the runs differ in (a data-parallel
// reduction over more GPUs), so it is a step's fixed cost at these scales, not a constant. Two
// runs make an exact fit; with more, the residuals say how linear the series is (max_residual).
#include <cstddef>  // std::size_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "report/accuracy.h"

namespace trainsim {

/// The settings runs of one split may differ in (scenario/scenario_schema.h keys).
const std::vector<std::string>& scale_keys();

struct StepSplit {
  std::string series;
  std::vector<std::size_t> runs;  ///< indices into the cases, by micro-batches, then by name
  double measured_per_step = 0, measured_per_microbatch = 0;    ///< seconds
  double predicted_per_step = 0, predicted_per_microbatch = 0;  ///< seconds
  /// The largest |measured step − its fit| over the runs, in seconds (0, but for rounding, with
  /// two runs).
  double max_residual = 0;
};

/// A run's step time as measured, in seconds: its predicted step time over (1 + its error).
double measured_step_time(const CheckedCase& c);

/// Of each series' runs whose settings are known (CheckedCase::settings), the groups that
/// differ only in scale_keys and run two or more micro-batch counts; by series, then by their
/// first run's name. Runs whose settings match no other run's, or whose group runs one micro-batch
/// count, are in none.
std::vector<StepSplit> step_splits(const std::vector<CheckedCase>& cases);

}  // namespace trainsim
