#pragma once
// A StepReport as text (the seeds' "OUTPUT BREAKDOWN") and as JSON (keys documented in
// sim/report/README.md), and several schedules side by side for `trainsim compare`.
#include <string>   // std::string
#include <utility>  // std::pair
#include <vector>   // std::vector

#include <nlohmann/json_fwd.hpp>

#include "report/accuracy.h"
#include "report/memory_report.h"
#include "report/ranking.h"
#include "report/step_report.h"

namespace trainsim {

std::string format_report(const StepReport& r);
nlohmann::json report_to_json(const StepReport& r);
/// The `model` object of `run --json` and `memory --json`: `name`, `parameters`,
/// `active_parameters`, the scenario's `model` keys as resolved (`layers`, `hidden`, …,
/// `linear_bias`, `mlp`, `position_embedding`, `norm`, `mtp_layers`), `moe` for a mixture of
/// experts, `mla` for latent attention and `mtp_parameters` with multi-token prediction.
nlohmann::json model_to_json(const ModelSpec& m);
/// One schedule of `trainsim compare`: its step and its memory, from the same Timeline.
struct ComparedSchedule {
  StepReport step;
  MemoryReport memory;
  /// The row's name in the table (run/variants.h VariantResult::label: "zb-v (vpp 2)",
  /// "SCENARIO · 1f1b", "parallelism.zero=1 · 1f1b"); empty: the step's schedule.
  std::string label;
  bool retried = false;  ///< ran at another vpp than the scenario's (the retry rule)
  const std::string& name() const { return label.empty() ? step.schedule : label; }
};

/// The table: time, bubbles, MFU, throughput, activations, p2p volume and each schedule's
/// GPU memory peak marked OOM when over the device; then the per-stage block.
std::string format_comparison(const std::vector<ComparedSchedule>& rows);
/// `{"scenario", "schedules": [report_to_json + "memory": memory_to_json + "label" (the
/// table's row name) + "retried" (ran at the nearest vpp its schedule takes), ...]}`: each
/// row's "schedule" is the schedule's registered name, as in `run --json`.
nlohmann::json comparison_to_json(const std::vector<ComparedSchedule>& rows);

/// Mean and largest |error| over the cases (accuracy.h's summarize of their accuracies).
AccuracySummary summarize(const std::vector<CheckedCase>& cases);
/// The memory peaks' errors (CheckedCase::memory) over the cases that logged one.
AccuracySummary summarize_memory(const std::vector<CheckedCase>& cases);
/// The same per GPU preset, in name order: how far the model is off on each kind of GPU.
std::vector<GpuAccuracy> summarize_by_gpu(const std::vector<CheckedCase>& cases);
/// The cases summarized by training.runtime (validation.h runtime_name: "compiled", "eager",
/// "fused"), in name order; cases without a model are left out.
std::vector<std::pair<std::string, AccuracySummary>> summarize_by_runtime(
    const std::vector<CheckedCase>& cases);
/// The cases summarized by tensor-parallel degree (1, 2, 4, …), in ascending order: how far the
/// model is off at each TP width, whatever the GPU.
std::vector<std::pair<int, AccuracySummary>> summarize_by_tp(const std::vector<CheckedCase>& cases);
/// The cases summarized by job size, in ascending order: "1–8 GPUs" (a node), "9–64",
/// "65–512", "513+": how the error moves as jobs grow (stragglers, networks, hosts).
std::vector<std::pair<std::string, AccuracySummary>> summarize_by_job_size(
    const std::vector<CheckedCase>& cases);
/// The cases as a table (text, or Markdown for README.md) with mean and max |error|, then, when
/// they span several GPU presets, the same per preset.
std::string format_check(const std::vector<CheckedCase>& cases, bool markdown);
/// `{"cases": [{scenario, gpus, gpu, layout, metric, measured, predicted, step_time_error,
/// source}], "summary": {cases, mean_abs_error, max_abs_error, mean_error}, "by_gpu": [{gpu,
/// cases, mean_abs_error, max_abs_error, mean_error}]}`.
nlohmann::json check_to_json(const std::vector<CheckedCase>& cases);
/// `{series, pairs, ordered_right, fastest_picked, runs, mean_abs_error, median_abs_error,
/// paced_mean_abs_error, paced_median_abs_error}` (check's `ranking.summary`, search's
/// `validation_ranking`).
nlohmann::json ranking_summary_to_json(const RankingSummary& t);
/// The validation record's TP-degree rows (validation.h validation_by_tp) as `[{tp, cases,
/// mean_abs_error, max_abs_error, mean_error, p10_error, p90_error}]`: `search --json`'s
/// `validation_by_tp`, the text's `by TP degree:` line.
nlohmann::json validation_by_tp_to_json();
/// The suite's record as report/data/validation.inc rows (report/validation.h): one row per GPU
/// preset in name order, then the whole suite's (gpu ""), each {gpu, cases, mean |error|, max
/// |error|, mean signed error}, errors as fractions to four places.
std::string validation_inc(const std::vector<CheckedCase>& cases);

}  // namespace trainsim
