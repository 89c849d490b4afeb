#pragma once
// How far trainsim's step times were off on its validation suite: the published, measured runs
// of tests/published/ and the two published scenarios (Llama 3 405B, DeepSeek-V3), simulated
// by `trainsim check` and summarized per GPU (by the device name reports print: a preset's,
// or the one a scenario gives its GPU, as the suite's A800 and H800 files do). The report
// prints the record of the scenario's GPU beside every prediction, so a reader sees how far
// the model has been off on that kind of GPU, and in which direction, without reading the
// suite. A layout search also quotes how well the suite's runs measured together were ordered
// (report/ranking.h): its ranking stands on that more than on the step times.
//
// The figures are data (data/validation.inc), written by `trainsim check … --validation-inc`
// and checked against a fresh run of the suite by CTest's `validation_record`: a model change
// that moves them fails until the file is regenerated (tests/published/README.md says how).
#include <optional>  // std::optional
#include <string>    // std::string
#include <utility>   // std::pair
#include <vector>    // std::vector

#include "report/accuracy.h"
#include "report/ranking.h"

namespace trainsim {

/// The suite's summary for the GPU named `gpu` (mean and largest |step-time error|, mean
/// signed error), or nullopt when none of its runs used that GPU.
std::optional<AccuracySummary> validation_for_gpu(const std::string& gpu);
/// The summary over the whole suite.
AccuracySummary validation_overall();
/// Every GPU preset's summary, in name order.
std::vector<GpuAccuracy> validation_by_gpu();

/// The record a report quotes for the GPU named `gpu`: its own, or, when no run of the suite
/// used that GPU, the whole suite's (then `gpu` is ""); nullopt without a GPU (`gpu` empty).
std::optional<GpuAccuracy> validation_record(const std::string& gpu);
/// validation_record as one line for the text report; "" without a GPU.
std::string validation_line(const std::string& gpu);

/// The step time a real run of the scenario would likely measure, by how the suite's runs
/// came out: the prediction over 1 + the 90th and the 10th percentile of their signed errors
/// (error = predicted / measured − 1), the range 8 in 10 of them measured in. From the GPU's
/// own record when it holds kLikelyMinCases runs or more, else the whole suite's (`basis.gpu`
/// ""): percentiles of a handful of runs say little. nullopt without a GPU or a step.
///
/// With `runtime` ("compiled", "eager" or "fused", training.runtime: runtime_name), the runs of
/// that runtime on the GPU come first when they are kLikelyMinCases or more (`runtime` then names
/// it): eager runs have been predicted further too fast than compiled ones on the same GPU.
/// With tensor parallelism (`tp` > 1), the suite's runs of that TP degree on any GPU replace
/// that basis when they are kLikelyMinCases or more and their mean signed error is further from
/// zero than the basis's (`tp` then names it, `runtime` is empty): the suite's runs at tp 2 and 8
/// have come out further too fast than its runs on one GPU or of one runtime (11–12 % on
/// average; in good part the speed of the sites that ran them, as the layout ranking's paced
/// errors show: tests/published/README.md), at tp 4 not (−1.8 %).
struct LikelyStepTime {
  double low_s = 0, high_s = 0;
  GpuAccuracy basis;
  std::string runtime;  ///< the runtime the basis is restricted to; "" for all of them
  int tp = 0;           ///< the TP degree the basis is restricted to (any GPU's); 0 for none
};
inline constexpr int kLikelyMinCases = 10;
std::optional<LikelyStepTime> likely_step_time(const std::string& gpu, double predicted_s,
                                               const std::string& runtime = "", int tp = 1);
/// likely_step_time as the text report's line; "" where it is nullopt.
std::string likely_line(const std::string& gpu, double predicted_s, const std::string& runtime = "",
                        int tp = 1);
/// The suite's record for the runs of `runtime` on the GPU named `gpu` ("" for every GPU), or
/// nullopt when none.
std::optional<AccuracySummary> validation_for_runtime(const std::string& gpu,
                                                      const std::string& runtime);
/// The suite's record for its runs of tensor-parallel degree `tp`, on any GPU, or nullopt
/// when none: the model's error differs with the TP width (at tp 2 its runs have been predicted
/// further too fast than at tp 1 or 4).
std::optional<AccuracySummary> validation_for_tp(int tp);
/// Every TP degree's record, ascending.
std::vector<std::pair<int, AccuracySummary>> validation_by_tp();
/// validation_for_tp as the text report's line, for a run with tensor parallelism; "" at tp 1
/// or where the suite has no run of that degree.
std::string tp_validation_line(int tp);
/// The suite's mean signed error at every TP degree it ran, one line ("tp 1 -0.9 % (101 runs) ·
/// tp 2 -11.2 % (12 runs) · …: …"), what `search` prints under its ranking; "" without rows.
std::string tp_record_line();
/// A report's training.runtime as the validation record names it: "compiled", "eager", "fused", or
/// "" without a model.
std::string runtime_name(const StepReport& r);

/// How well the suite's runs measured together (`measured.series`) are ordered: the layout
/// ranking's summary (report/ranking.h), the record a layout search quotes under its ranking.
RankingSummary validation_ranking();
/// validation_ranking as one line ("45 of 45 pairs … ordered as measured; …"); "" when the
/// suite has no series.
std::string ranking_line();

/// What a layout search prints under its ranking, a line each (`validation: …` for the GPU
/// named `gpu`, `by TP degree: …`, `layout order: …`), each ending in a newline; the CLI's table
/// and the GUI's Search tab both show it.
std::string search_record_lines(const std::string& gpu);

}  // namespace trainsim
