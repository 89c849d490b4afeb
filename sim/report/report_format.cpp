#include "report/report_format.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <type_traits>
#include <utility>

#include "core/quantity.h"
#include "report/accuracy.h"
#include "report/memory_report.h"
#include "report/ranking.h"
#include "report/setting_changes.h"
#include "report/step_split.h"
#include "report/validation.h"
#include "scenario/scenario_schema.h"
#include "schedules/registry.h"

namespace trainsim {
namespace {

std::string metric_value(const std::string& metric, double v) {
  if (metric == "step time (s)") return format_time(v);
  if (metric == "MFU") return fmt::format("{:.1f} %", v * 100);
  if (metric == "TFLOP/s/GPU") return fmt::format("{:.1f} TFLOP/s/GPU", v);
  return fmt::format("{} {}", thousands(v), metric);
}

// An accuracy summary's JSON fields (`trainsim check --json`'s summary, by_gpu, by_runtime;
// `run --json`'s validation), to which a caller adds what it is the summary of.
nlohmann::json summary_to_json(const AccuracySummary& s) {
  return {{"cases", s.cases},
          {"mean_abs_error", s.mean_abs_error},
          {"max_abs_error", s.max_abs_error},
          {"mean_error", s.mean_error},
          {"p10_error", s.p10_error},
          {"p90_error", s.p90_error}};
}

// Context parallelism's degree and how it exchanges: "cp 4 (all-to-all)".
std::string cp_part(const StepReport& r) {
  const std::string how = r.cp_comm == "all_to_all"   ? "all-to-all"
                          : r.cp_comm == "all_gather" ? "all-gather"
                                                      : "ring";
  return fmt::format(" · cp {} ({})", r.cp, how);
}

std::string layout_line(const StepReport& r) {
  std::string s = counted(r.gpus, "GPU");
  if (!r.gpu.empty()) s += " × " + r.gpu;
  s += fmt::format(" · dp {} · tp {} · pp {}", r.dp, r.tp, r.pp);
  if (r.vpp > 1) s += fmt::format(" · vpp {}", r.vpp);
  if (r.ep > 1) s += fmt::format(" · ep {}", r.ep);
  if (r.etp != r.tp) s += fmt::format(" · etp {}", r.etp);
  if (r.cp > 1) s += cp_part(r);
  if (r.split.any()) {
    std::vector<std::string> counted;
    if (r.split.embedding) counted.emplace_back("embedding");
    if (r.split.loss) counted.emplace_back("loss");
    if (r.split.mtp) counted.emplace_back("multi-token prediction");
    std::string names = counted.front();
    for (std::size_t i = 1; i < counted.size(); ++i)
      names += (i + 1 == counted.size() ? " and " : ", ") + counted[i];
    const int slots = r.split.extra_slots() + (r.split.mtp && r.model ? r.model->mtp_layers : 0);
    s += fmt::format(" · {} counted as {}", names, slots > 1 ? "layers" : "a layer");
  }
  if (!r.split.layers.empty()) {
    const auto [lo, hi] = std::minmax_element(r.split.layers.begin(), r.split.layers.end());
    s += r.split.layers.size() <= 16
             ? fmt::format(" · layers per stage {}", fmt::join(r.split.layers, "/"))
             : fmt::format(" · {} to {} layers a stage, as given", *lo, *hi);
  }
  if (r.uneven_layers.size() > 1 && r.uneven_layers.size() <= 16)
    s += fmt::format(" · layers per stage {}{}", fmt::join(r.uneven_layers, "/"),
                     r.split.any() ? "" : " (the even split's remainder on stages 1, 2, …)");
  if (r.zero > 0 && r.dp * r.cp > 1) s += fmt::format(" · ZeRO-{}", r.zero);
  if (r.zero == 3 && r.dp * r.cp > 1 && (r.fsdp.gather_bucket || r.fsdp.reduce_bucket)) {
    auto piece = [](const std::optional<double>& b) {
      return b ? "≤ " + format_bytes(*b) : std::string("a unit");
    };
    s += fmt::format(" (collectives of {} gathered, {} reduce-scattered)",
                     piece(r.fsdp.gather_bucket), piece(r.fsdp.reduce_bucket));
  }
  if (r.tp > 1 && r.sequence_parallel) s += " · SP";
  if (r.tp > 1 && r.tp_overlap) s += " · TP overlap";
  if (r.training && r.training->recompute == Recompute::Full)
    s += r.training->recompute_layers > 0
             ? fmt::format(" · full recompute of {} layers a stage", r.training->recompute_layers)
             : std::string(" · full recompute");
  else if (r.training && r.training->recompute == Recompute::Selective)
    s += fmt::format(" · selective recompute ({})",
                     flag_names(recompute_modules(*r.training), kRecomputeModuleNames, ", "));
  if (r.training && r.training->lora_rank > 0)
    s += fmt::format(" · LoRA rank {} on {}", r.training->lora_rank,
                     flag_names(lora_targets(*r.training), kLoraTargetNames, ", "));
  s += " · " + counted(r.microbatches, "micro-batch");
  return s;
}

}  // namespace

std::string format_report(const StepReport& r) {
  std::string o;
  o += fmt::format("scenario   {} ({})\n", r.scenario_name, r.scenario);
  if (r.model) {
    o += fmt::format("model      {}{} · {}\n", r.model->name, edits_note(r.model_edits),
                     parameter_summary(*r.model));
  }
  o += fmt::format("schedule   {}\n", r.schedule);
  o += fmt::format("layout     {}\n", layout_line(r));
  o += "--------- OUTPUT BREAKDOWN ---------\n";
  o += fmt::format("step time            {}\n", format_time(r.step_time_s));
  if (r.overlapped_steps)
    o += fmt::format("  steps overlap      optimizer post-validation (one step alone: {})\n",
                     format_time(r.one_step_s));
  double launch = 0, launch_wait = 0, launch_busy = 0;  // the busiest CPU's stage
  for (const auto& st : r.stages)
    if (st.launch_s > launch)
      launch = st.launch_s, launch_busy = st.compute_busy_s, launch_wait = st.launch_wait_s;
  if (r.before_pipeline_s > 0)
    o += fmt::format(
        "  before pipeline    {}  (the first forward's {})\n", format_time(r.before_pipeline_s),
        launch > 0 ? "parameter gathers or its first kernel's launch" : "parameter gathers");
  o += fmt::format("  pipeline phase     {}\n", format_time(r.pipeline_time_s));
  o += fmt::format("  after pipeline     {}  (gradient reduction, optimizer{})\n",
                   format_time(r.after_pipeline_s),
                   launch > 0 ? ", the last backward's kernel launches" : "");
  if (r.tokens_per_step > 0) {
    o += fmt::format("tokens per step      {}\n", thousands(r.tokens_per_step));
    o += fmt::format("throughput           {} tokens/s ({} per GPU)\n", thousands(r.tokens_per_s),
                     thousands(r.tokens_per_s / r.gpus));
  }
  if (r.model_flops > 0) {
    o += fmt::format("model TFLOP/s / GPU  {:.1f}", r.tflops_per_gpu);
    if (r.mfu) o += fmt::format("   MFU {:.1f} %", *r.mfu * 100);
    // FP8 GEMMs: utilization still against the dense 16-bit peak (the datasheet's FP8 peak is
    // twice it), so an FP8 run can pass what bf16 reaches.
    if (r.mfu && r.training && r.training->precision == Precision::FP8) o += " of the 16-bit peak";
    o += "\n";
  }
  o += fmt::format(
      "pipeline bubble      {:.4f} of a balanced pipeline's time (Zero Bubble convention)\n",
      r.bubble_fraction_of_step);
  o += fmt::format("                     {:.4f} over ideal compute (Megatron convention)\n",
                   r.bubble_over_ideal);
  o += fmt::format(
      "stage idle           {} per stage (mean): pipeline bubble {} · imbalance {} · "
      "communication {}{}\n",
      format_time(r.idle.total_s), format_time(r.idle.pipeline_bubble_s),
      format_time(r.idle.imbalance_s), format_time(r.idle.communication_s),
      launch > 0 ? " · CPU launches " + format_time(r.idle.launch_s) : std::string());
  if (r.cost_per_million_tokens) {
    // Cents' fractions for a cheap token ($0.0823); dollars grouped for a dear one
    // ($5,057,955.87, not $5057955.8712).
    const double c = *r.cost_per_million_tokens;
    const std::string cost = c < 1000 ? fmt::format("${:.4f}", c)
                                      : fmt::format("${}.{:02.0f}", thousands(std::floor(c)),
                                                    std::floor((c - std::floor(c)) * 100));
    o += fmt::format("cost per 1M tokens   {}  (at ${:.2f} per GPU-hour)\n", cost,
                     *r.price_per_gpu_hour);
  }
  if (r.measured) {
    if (auto a = accuracy(r, *r.measured))
      o += fmt::format("measured             {} ({}); predicted {}: step time {:+.1f} %\n",
                       metric_value(a->metric, a->measured), a->source,
                       metric_value(a->metric, a->predicted), a->step_time_error * 100);
  }
  if (const std::string v = validation_line(r.gpu); !v.empty())
    o += fmt::format("validation           {}\n", v);
  if (const std::string v = r.gpu.empty() ? "" : tp_validation_line(r.tp); !v.empty())
    o += fmt::format("  at this TP degree  {}\n", v);
  if (const std::string v = likely_line(r.gpu, r.step_time_s, runtime_name(r), r.tp); !v.empty())
    o += fmt::format("likely measured      {}\n", v);
  if (r.step_time_without_slowdown_s) {
    const double base = *r.step_time_without_slowdown_s;
    // `slowdown` factors under 1 make a GPU faster: the step still waits for its peers.
    o += fmt::format("slowdown factors     step {} vs {} with every GPU alike ({:+.1f}%)\n",
                     format_time(r.step_time_s), format_time(base),
                     base > 0 ? (r.step_time_s / base - 1) * 100 : 0.0);
  }
  {
    double tp = 0, dp = 0, pp = 0, zero = 0, ep = 0, cp = 0, host = -1;
    for (const auto& st : r.stages) {
      tp = std::max(tp, st.exposed_tp_s);
      dp = std::max(dp, st.exposed_dp_s);
      pp = std::max(pp, st.exposed_pp_s);
      zero = std::max(zero, st.exposed_gather_s);
      ep = std::max(ep, st.exposed_ep_s);
      cp = std::max(cp, st.exposed_cp_s);
      if (st.comm_host_s > 0) host = std::max(host, st.exposed_host_s);
    }
    o += fmt::format(
        "exposed comm         TP {} · DP {} · PP {}{}{}{}{}  (worst stage, over the whole step, "
        "outside compute; time two kinds share counted once)\n",
        format_time(tp), format_time(dp), format_time(pp),
        r.ep > 1 ? " · EP all-to-all " + format_time(ep) : std::string(),
        r.cp > 1 ? (r.cp_comm == "all_to_all" ? " · CP all-to-all " : " · CP KV ") + format_time(cp)
                 : std::string(),
        host >= 0 ? " · activation offload " + format_time(host) : std::string(),
        zero > 0 ? " · ZeRO gathers " + format_time(zero) : std::string());
    if (!r.model)  // stage costs only: transfers timed, their bytes not known
      o += "comm traffic / GPU   - (a scenario of stage costs gives no bytes)\n";
    else
      o += fmt::format("comm traffic / GPU   TP {} · DP {} · PP {}{}{}{}  (bytes sent per step)\n",
                       format_bytes(r.volume.tp_bytes), format_bytes(r.volume.dp_bytes),
                       format_bytes(r.volume.pp_bytes),
                       r.ep > 1 ? " · EP " + format_bytes(r.volume.ep_bytes) : std::string(),
                       r.cp > 1 ? " · CP " + format_bytes(r.volume.cp_bytes) : std::string(),
                       r.volume.host_bytes > 0 ? " · host link " + format_bytes(r.volume.host_bytes)
                                               : std::string());
  }
  if (launch > 0)
    o += fmt::format(
        "CPU launches         {} a kernel (efficiency.host_per_kernel){}: {} of issuing on the "
        "busiest stage's CPU against {} of its GPU's compute; that GPU waited {} for it{}{}\n",
        format_time(r.host_per_kernel_s),
        r.tp > 1 || r.cp > 1 || r.ep > 1
            ? fmt::format(", {} a TP/CP/EP collective (efficiency.host_per_collective)",
                          format_time(r.host_per_collective_s))
            : std::string(),
        format_time(launch), format_time(launch_busy), format_time(launch_wait),
        // A fused framework's own CPU time per kernel is not measured: say whose stands in.
        r.training && r.training->runtime == Runtime::Fused &&
                r.host_per_kernel_s == r.eager_host_per_kernel_s
            ? " (eager PyTorch's measured figures, standing in for the framework's own: none "
              "measured; training.runtime: fused)"
            : "",
        // The CPU waits for the GPU there, and the GPU then for the CPU's next issue.
        r.grad_nan_check == "off"    ? ""
        : r.grad_nan_check == "norm" ? "; the CPU issues each gradient bucket's norm "
                                       "(parallelism.grad_nan_check: norm, no read-back) before "
                                       "its reduction"
                                     : "; the CPU reads back each gradient bucket's NaN check "
                                       "(parallelism.grad_nan_check: " +
                                           r.grad_nan_check + ") before its reduction");
  else if (r.cpu_headroom_s > 0) {
    const StageStats& st = r.stages[static_cast<std::size_t>(r.cpu_headroom_stage)];
    o += fmt::format(
        "CPU launches         not simulated: {} kernels a step on {}GPU, {} of its compute "
        "each; a CPU slower than that per kernel paces the step (eager PyTorch's: {}; "
        "training.runtime: eager, or fused for a framework's kernels without CUDA graphs)\n",
        thousands(st.kernels), r.pp > 1 ? fmt::format("stage {}'s ", st.stage) : "each ",
        format_time(r.cpu_headroom_s), format_time(r.eager_host_per_kernel_s));
  }
  if (!r.cost_sources.empty()) o += fmt::format("durations            {}\n", r.cost_sources);
  if (!r.contention.empty()) o += fmt::format("contention           {}\n", r.contention);
  if (r.compute_pace != 1.0)
    o += fmt::format(
        "slowest GPU          modelled compute +{:.1f}%: the step runs at the pace of the "
        "slowest of its {}, whose speeds spread {:.1f}% (cluster.gpu_speed_spread)\n",
        (r.compute_pace - 1) * 100, counted(r.gpus, "GPU"), r.gpu_speed_spread * 100);
  if (r.tp_groups_across_nodes > 0)
    o += fmt::format(
        "placement            {} nodes: {} collectives go over the network (tp {} on {} GPUs a "
        "node)\n",
        r.tp_groups_across_nodes == r.tp_groups
            ? std::string(r.tp_groups == 1 ? "the TP group spans" : "every TP group spans")
            : fmt::format("{} of {} TP groups {}", r.tp_groups_across_nodes, r.tp_groups,
                          r.tp_groups_across_nodes == 1 ? "spans" : "span"),
        r.tp_groups_across_nodes == 1 ? "its" : "their", r.tp, r.gpus_per_node);
  o += fmt::format(
      "critical path        compute {} · TP {} · DP {} · PP {}{}{}{}{} · optimizer {}  ({} "
      "tasks{})\n",
      format_time(r.critical.compute_s), format_time(r.critical.tp_s), format_time(r.critical.dp_s),
      format_time(r.critical.pp_s),
      r.ep > 1 ? " · EP " + format_time(r.critical.ep_s) : std::string(),
      r.cp > 1 ? " · CP " + format_time(r.critical.cp_s) : std::string(),
      r.critical.host_s > 0 ? " · host link " + format_time(r.critical.host_s) : std::string(),
      r.critical.launch_s > 0 ? " · CPU launches " + format_time(r.critical.launch_s)
                              : std::string(),
      format_time(r.critical.optimizer_s), r.critical.tasks,
      r.overlapped_steps ? "; one step alone, as steps overlap" : "");
  o += "------------------------------------\n";
  // Peak in flight: the most micro-batches whose activations the stage holds at once.
  o += "stage   compute busy      idle        first start   last end   micro-batches held  "
       "activations\n";
  for (const auto& s : r.stages)
    o += fmt::format("{:>5}   {:>12}  {:>12}  {:>12}  {:>12}   {:>18.3g}  {:>11}\n", s.stage,
                     format_time(s.compute_busy_s), format_time(s.idle_s),
                     format_time(s.first_compute_start_s), format_time(s.last_compute_end_s),
                     s.peak_in_flight,
                     s.peak_activation_bytes > 0 ? format_bytes(s.peak_activation_bytes) : "-");
  o += fmt::format("simulated {} on {}{}\n", counted(static_cast<double>(r.tasks), "task"),
                   counted(r.simulated_ranks, "rank"),
                   r.folded ? " (identical TP/DP peers folded)" : "");
  return o;
}

namespace {
// A section's keys as the scenario schema reads them (a key without a value is null).
nlohmann::json section(std::string_view section_name, const Scenario& sc) {
  using Kind = ValueRule::Kind;
  nlohmann::json t = nlohmann::json::object();
  for (const auto& [key, v] : values_under(section_name, sc)) {
    const std::string name(key->path.substr(section_name.size() + 1));
    if (!v) {
      t[name] = nullptr;
      continue;
    }
    switch (key->rule.kind) {
      case Kind::Integer:
        t[name] = v->integer;
        break;
      case Kind::Number:
      case Kind::Quantity:
        t[name] = v->number;
        break;
      case Kind::Bool:
        t[name] = v->flag;
        break;
      case Kind::Choice:
        t[name] = std::string(key->rule.choices.at(static_cast<std::size_t>(v->integer)));
        break;
      default:
        t[name] = v->text;
    }
  }
  return t;
}
}  // namespace

nlohmann::json model_to_json(const ModelSpec& m) {
  nlohmann::json j = {
      {"name", m.name}, {"parameters", m.total_params()}, {"active_parameters", m.active_params()}};
  Scenario sc;
  sc.model = m;
  // The shape and kind keys as resolved (the preset or config they came from is an input, not
  // a setting; the moe and mla sections follow as objects of their own).
  const nlohmann::json keys = section("model", sc);
  for (const auto& [key, value] : keys.items())
    if (key != "preset" && key != "hf_config" && key.find('.') == std::string::npos &&
        !j.contains(key))
      j[key] = value;
  if (m.is_moe()) j["moe"] = section("model.moe", sc);
  if (m.mtp_layers > 0) j["mtp_parameters"] = m.mtp_layers * m.mtp_module_params();
  if (m.is_mla()) {
    // Latent attention's heads are the mla section's widths; it has no separate KV heads.
    j.erase("head_dim");
    j.erase("kv_heads");
    j["mla"] = section("model.mla", sc);
  }
  return j;
}

nlohmann::json report_to_json(const StepReport& r) {
  nlohmann::json j;
  j["scenario"] = r.scenario;
  j["scenario_name"] = r.scenario_name;
  j["model"] = r.model ? model_to_json(*r.model) : nlohmann::json(nullptr);
  j["schedule"] = r.schedule;
  j["layout"] = {{"gpus", r.gpus},
                 {"dp", r.dp},
                 {"tp", r.tp},
                 {"pp", r.pp},
                 {"vpp", r.vpp},
                 {"ep", r.ep},
                 {"etp", r.etp},
                 {"cp", r.cp},
                 {"cp_comm", r.cp_comm},
                 {"microbatches", r.microbatches},
                 {"pipeline_split",
                  {{"embedding", r.split.embedding},
                   {"loss", r.split.loss},
                   {"mtp", r.split.mtp},
                   {"layers", r.split.layers.empty() ? nlohmann::json(nullptr)
                                                     : nlohmann::json(r.split.layers)}}},
                 {"uneven_layers", r.uneven_layers.empty() ? nlohmann::json(nullptr)
                                                           : nlohmann::json(r.uneven_layers)},
                 {"zero", r.zero},
                 {"sequence_parallel", r.sequence_parallel},
                 {"tp_overlap", r.tp_overlap},
                 {"tp_async_allreduce", r.tp_async_allreduce},
                 {"grad_nan_check", r.grad_nan_check},
                 {"grad_buckets", r.grad_buckets}};
  if (r.zero == 1) {
    j["layout"]["overlap_grad_reduce"] = r.grad_reduce_with_backward;
    j["layout"]["zero1_reduce"] = r.zero1_all_reduce ? "all-reduce" : "reduce-scatter";
  }
  if (r.zero == 3) {
    auto bytes = [](const std::optional<double>& b) {
      return b ? nlohmann::json(*b) : nlohmann::json(nullptr);
    };
    j["layout"]["fsdp"] = {{"unit_layers", r.fsdp.unit_layers},
                           {"prefetch", r.fsdp.prefetch},
                           {"reshard_after_forward", r.fsdp.reshard_after_forward},
                           {"gather_bucket_bytes", bytes(r.fsdp.gather_bucket)},
                           {"reduce_bucket_bytes", bytes(r.fsdp.reduce_bucket)}};
  }
  j["gpu"] = r.gpu;
  if (r.training) {
    // The report keeps the training settings only for a scenario with a model: so has this one.
    Scenario sc;
    sc.model.emplace();
    sc.training = *r.training;
    j["training"] = section("training", sc);
  } else {
    j["training"] = nullptr;
  }
  if (r.cluster) {
    // Its keys, and its links' under intra_node and inter_node.
    Scenario sc;
    sc.has_cluster = true;
    sc.cluster = *r.cluster;
    j["cluster"] = section("cluster", sc);
    // The spread in effect where the file leaves it to the default (cost/gpu_spread.h).
    j["cluster"]["gpu_speed_spread"] = r.gpu_speed_spread;
    for (const char* link : {"intra_node", "inter_node"})
      j["cluster"][link] = section(fmt::format("cluster.{}", link), sc);
  } else {
    j["cluster"] = nullptr;
  }
  j["step_time_s"] = r.step_time_s;
  j["one_step_s"] = r.one_step_s;
  j["steps_overlap"] = r.overlapped_steps;
  j["pipeline_time_s"] = r.pipeline_time_s;
  j["before_pipeline_s"] = r.before_pipeline_s;
  j["after_pipeline_s"] = r.after_pipeline_s;
  j["tokens_per_step"] = std::llround(r.tokens_per_step);  // sequences × tokens: an integer
  j["tokens_per_s"] = r.tokens_per_s;
  j["model_flops_per_step"] = r.model_flops;
  j["tflops_per_gpu"] = r.tflops_per_gpu;
  j["mfu"] = r.mfu ? nlohmann::json(*r.mfu) : nlohmann::json(nullptr);
  // fraction_of_step: the same figure under its first name (kept for scripts that read it).
  j["bubble"] = {{"fraction_of_balanced_pipeline", r.bubble_fraction_of_step},
                 {"fraction_of_step", r.bubble_fraction_of_step},
                 {"over_ideal", r.bubble_over_ideal}};
  j["idle_s"] = {{"total", r.idle.total_s},
                 {"pipeline_bubble", r.idle.pipeline_bubble_s},
                 {"imbalance", r.idle.imbalance_s},
                 {"communication", r.idle.communication_s},
                 {"launch", r.idle.launch_s}};
  j["cost_per_1m_tokens"] = r.cost_per_million_tokens ? nlohmann::json(*r.cost_per_million_tokens)
                                                      : nlohmann::json(nullptr);
  nlohmann::json stages = nlohmann::json::array();
  for (const auto& s : r.stages)
    stages.push_back({{"stage", s.stage},
                      {"compute_busy_s", s.compute_busy_s},
                      {"first_compute_start_s", s.first_compute_start_s},
                      {"last_compute_end_s", s.last_compute_end_s},
                      {"idle_s", s.idle_s},
                      {"optimizer_s", s.optimizer_s},
                      {"peak_in_flight", s.peak_in_flight},
                      {"peak_activation_bytes", s.peak_activation_bytes},
                      {"exposed_comm_s",
                       {{"tp", s.exposed_tp_s},
                        {"dp", s.exposed_dp_s},
                        {"pp", s.exposed_pp_s},
                        {"ep", s.exposed_ep_s},
                        {"cp", s.exposed_cp_s},
                        {"host", s.exposed_host_s},
                        {"zero_gather", s.exposed_gather_s}}},
                      {"launch_s", s.launch_s},
                      {"launch_wait_s", s.launch_wait_s},
                      {"kernels", std::llround(s.kernels)}});
  j["stages"] = stages;
  j["p2p_bytes"] = r.p2p_bytes;
  j["host_per_kernel_s"] = r.host_per_kernel_s;
  j["host_per_collective_s"] = r.host_per_collective_s;
  if (r.cpu_headroom_s > 0)
    j["cpu_headroom"] = {{"seconds_per_kernel", r.cpu_headroom_s},
                         {"stage", r.cpu_headroom_stage},
                         {"eager_host_per_kernel_s", r.eager_host_per_kernel_s}};
  j["compute_pace"] = r.compute_pace;
  j["tp_groups"] = r.tp_groups;
  j["tp_groups_across_nodes"] = r.tp_groups_across_nodes;
  j["gpu_speed_spread"] = r.gpu_speed_spread;
  j["duration_sources"] = r.cost_sources;
  j["contention"] = r.contention;
  j["critical_path_s"] = {{"compute", r.critical.compute_s},
                          {"tp", r.critical.tp_s},
                          {"dp", r.critical.dp_s},
                          {"pp", r.critical.pp_s},
                          {"ep", r.critical.ep_s},
                          {"cp", r.critical.cp_s},
                          {"host", r.critical.host_s},
                          {"launch", r.critical.launch_s},
                          {"optimizer", r.critical.optimizer_s},
                          {"waiting", r.critical.waiting_s},
                          {"tasks", r.critical.tasks}};
  if (r.measured)
    if (auto a = accuracy(r, *r.measured))
      j["measured"] = {{"metric", a->metric},
                       {"value", a->measured},
                       {"predicted", a->predicted},
                       {"step_time_error", a->step_time_error},
                       {"source", a->source}};
  if (!j.contains("measured")) j["measured"] = nullptr;
  if (const auto v = validation_record(r.gpu)) {
    j["validation"] = summary_to_json(v->summary);
    j["validation"]["gpu"] = v->gpu.empty() ? nlohmann::json(nullptr) : nlohmann::json(v->gpu);
  } else
    j["validation"] = nullptr;
  if (const auto v = r.tp > 1 && !r.gpu.empty() ? validation_for_tp(r.tp) : std::nullopt) {
    j["validation_tp"] = summary_to_json(*v);
    j["validation_tp"]["tp"] = r.tp;
  } else
    j["validation_tp"] = nullptr;
  if (const auto l = likely_step_time(r.gpu, r.step_time_s, runtime_name(r), r.tp))
    j["likely_step_time_s"] = {
        {"low", l->low_s},
        {"high", l->high_s},
        {"gpu", l->basis.gpu.empty() ? nlohmann::json(nullptr) : nlohmann::json(l->basis.gpu)},
        {"runtime", l->runtime.empty() ? nlohmann::json(nullptr) : nlohmann::json(l->runtime)},
        {"tp", l->tp > 0 ? nlohmann::json(l->tp) : nlohmann::json(nullptr)},
        {"cases", l->basis.summary.cases}};
  else
    j["likely_step_time_s"] = nullptr;
  j["step_time_without_slowdown_s"] = r.step_time_without_slowdown_s
                                          ? nlohmann::json(*r.step_time_without_slowdown_s)
                                          : nlohmann::json(nullptr);
  j["comm_volume_per_gpu"] = {{"tp", r.volume.tp_bytes}, {"dp", r.volume.dp_bytes},
                              {"pp", r.volume.pp_bytes}, {"ep", r.volume.ep_bytes},
                              {"cp", r.volume.cp_bytes}, {"host", r.volume.host_bytes}};
  j["simulation"] = {
      {"tasks", r.tasks}, {"simulated_ranks", r.simulated_ranks}, {"folded", r.folded}};
  return j;
}

std::string format_comparison(const std::vector<ComparedSchedule>& rows) {
  if (rows.empty()) return "";
  const StepReport& first = rows.front().step;
  // One scenario: its name and layout. Several (A/B): each row's, in row order.
  const bool several = std::any_of(rows.begin(), rows.end(), [&](const ComparedSchedule& r) {
    return r.step.scenario_name != first.scenario_name || r.step.scenario != first.scenario;
  });
  std::string o;
  if (!several) {
    o = fmt::format("scenario {} · {}\n\n", first.scenario_name, layout_line(first));
  } else {
    o = "scenarios\n";
    for (const auto& row : rows)
      o += fmt::format("  {}: {} ({})\n", row.name(), layout_line(row.step), row.step.scenario);
    o += "\n";
  }
  std::size_t nw = 8;
  for (const auto& row : rows) nw = std::max(nw, row.name().size());
  const std::string line =
      "{:<{}} {:>12} {:>9} {:>9} {:>12} {:>7} {:>12} {:>10} {:>11} {:>10} {:>16}\n";
  // Rows of one scenario are its schedules; of several (A/B, --vary), "scenario · schedule".
  const char* what = several ? "run" : "schedule";
  o += fmt::format(fmt::runtime(line), what, nw, "step time", "bubble", "bubble", "idle: imbal.",
                   "MFU", "tokens/s", "peak mb", "activations", "p2p", "GPU memory");
  o += fmt::format(fmt::runtime(line), "", nw, "", "/balanced", "/ideal", "/ comm", "", "",
                   "in flight", "at peak", "volume", "peak");
  bool any_oom = false;
  for (const auto& row : rows) {
    const StepReport& r = row.step;
    double peak = 0, bytes = 0;
    for (const auto& s : r.stages) {
      peak = std::max(peak, s.peak_in_flight);
      bytes = std::max(bytes, s.peak_activation_bytes);
    }
    const double peak_bytes = row.memory.largest_peak();
    const bool oom = !row.memory.out_of_memory.empty(), tight = !row.memory.tight.empty();
    any_oom = any_oom || oom;
    o += fmt::format(
        fmt::runtime(line), row.name(), nw, format_time(r.step_time_s),
        fmt::format("{:.4f}", r.bubble_fraction_of_step),
        fmt::format("{:.4f}", r.bubble_over_ideal),
        fmt::format("{:.2f} / {:.2f}",
                    r.pipeline_time_s > 0 ? r.idle.imbalance_s / r.pipeline_time_s : 0,
                    r.pipeline_time_s > 0 ? r.idle.communication_s / r.pipeline_time_s : 0),
        r.mfu ? fmt::format("{:.1f}%", *r.mfu * 100) : "-",
        r.tokens_per_step > 0 ? thousands(r.tokens_per_s) : "-", fmt::format("{:.3g}", peak),
        bytes > 0 ? format_bytes(bytes) : "-", r.p2p_bytes > 0 ? format_bytes(r.p2p_bytes) : "-",
        peak_bytes > 0 ? format_bytes(peak_bytes) + (oom     ? " OOM"
                                                     : tight ? " tight"
                                                             : "")
                       : "-");
  }
  o += "bubble: the schedule's own (a balanced pipeline of these costs, free communication), "
       "of that pipeline's time (Zero Bubble convention) and over its ideal compute (Megatron);\n"
       "idle: stage idle from unequal stages / from waiting on communication, of the pipeline "
       "phase;\n";
  // Where the CPU's kernel launches are simulated, what each schedule's stages wait for their own
  // CPU (the rest of the idle time; waits for another stage's CPU count as communication).
  std::vector<std::string> cpu;
  for (const auto& row : rows)
    if (row.step.idle.launch_s > 0 && row.step.pipeline_time_s > 0)
      cpu.push_back(
          fmt::format("{} {:.2f}", row.name(), row.step.idle.launch_s / row.step.pipeline_time_s));
  if (!cpu.empty())
    o += fmt::format(
        "      and waiting for the stage's own CPU's kernel launches (efficiency.host_per_kernel): "
        "{};\n",
        fmt::join(cpu, ", "));
  o += "p2p volume: every GPU's stage-to-stage bytes of the step together (`run` gives one "
       "GPU's);\n";
  o += "peak mb in flight: most micro-batches of activations one stage holds at once (stage 0 for "
       "1F1B: p);\nactivations at peak: the most activation memory one GPU of any stage holds;\n"
       "GPU memory peak: the most one GPU holds (weights, gradients, optimizer, activations, "
       "buffers)";
  // Scenarios compared side by side may run on different GPUs: each row against its own.
  const double device = rows.front().memory.device_memory;
  const bool one_device = std::all_of(rows.begin(), rows.end(), [&](const ComparedSchedule& r) {
    return r.memory.device_memory == device;
  });
  const char* where = any_oom ? " (`trainsim memory SCENARIO --schedule NAME` says where; for a "
                                "row marked (vpp N), add --set parallelism.vpp=N)"
                              : "";
  if (one_device && device > 0) {
    o += fmt::format(";\nOOM: over the device's {}{}", format_bytes(device), where);
  } else if (!one_device) {
    std::vector<std::string> each;
    for (const auto& row : rows)
      each.push_back(fmt::format("{} {}", row.name(),
                                 row.memory.device_memory > 0
                                     ? format_bytes(row.memory.device_memory)
                                     : std::string("(no device)")));
    o += fmt::format(";\nOOM: over the row's own device's memory ({}){}", fmt::join(each, ", "),
                     where);
  }
  // The usable memory of the first row marked tight (rows compared over memory.fragmentation
  // differ); a row out of memory is marked OOM, whatever its other stages.
  for (const auto& row : rows)
    if (row.memory.out_of_memory.empty() && !row.memory.tight.empty()) {
      o += fmt::format(
          ";\ntight: within it, but over {}: PyTorch's caching allocator may run out, or slow down "
          "flushing its cache",
          usable_words(row.memory));
      break;
    }
  o += "\n";
  // Per stage: where the idle time and the activation memory sit.
  o += "\nper stage: idle / peak micro-batches in flight / activation memory at that peak\n";
  // A header for the most stages any row has (scenarios compared may differ in pp).
  std::size_t stages = 0;
  for (const auto& row : rows) stages = std::max(stages, row.step.stages.size());
  o += fmt::format("{:<{}}", what, nw);
  for (std::size_t i = 0; i < stages; ++i) o += fmt::format(" {:>28}", fmt::format("stage {}", i));
  o += "\n";
  for (const auto& row : rows) {
    o += fmt::format("{:<{}}", row.name(), nw);
    for (const auto& s : row.step.stages)
      o += fmt::format(
          " {:>28}",
          fmt::format("{} / {:.3g} / {}", format_time(s.idle_s), s.peak_in_flight,
                      s.peak_activation_bytes > 0 ? format_bytes(s.peak_activation_bytes) : "-"));
    o += "\n";
  }
  // A schedule run with fewer micro-batches than its design needs (the registry's fills_at).
  for (const ComparedSchedule& r : rows)
    for (const ScheduleEntry& e : schedule_entries())
      if (e.name == r.step.schedule && e.fills_at && r.step.microbatches < e.fills_at(r.step.pp))
        o += fmt::format(
            "note {}: {} micro-batches, fewer than the {} it is designed for at pp {}: {}\n",
            r.name(), r.step.microbatches, e.fills_at(r.step.pp), r.step.pp, e.underfilled);
  return o;
}

nlohmann::json comparison_to_json(const std::vector<ComparedSchedule>& rows) {
  nlohmann::json j;
  j["scenario"] = rows.empty() ? "" : rows.front().step.scenario;
  j["schedules"] = nlohmann::json::array();
  for (const auto& row : rows) {
    auto one = report_to_json(row.step);
    one["memory"] = memory_to_json(row.memory);
    one["label"] = row.name();
    one["retried"] = row.retried;
    j["schedules"].push_back(std::move(one));
  }
  return j;
}

}  // namespace trainsim

namespace trainsim {
namespace {

// A Markdown table cell: `|` would end it.
std::string cell(std::string s) {
  for (std::size_t i = 0; (i = s.find('|', i)) != std::string::npos; i += 2) s.insert(i, "\\");
  return s;
}

std::string short_layout(const StepReport& r) {
  std::string s = fmt::format("dp {} · tp {} · pp {}", r.dp, r.tp, r.pp);
  if (r.vpp > 1) s += fmt::format(" · vpp {}", r.vpp);
  if (r.ep > 1) s += fmt::format(" · ep {}", r.ep);
  if (r.etp != r.tp) s += fmt::format(" · etp {}", r.etp);
  if (r.cp > 1) s += cp_part(r);
  return s;
}

// A gap between two runs as a percentage: "1.2%", or "<0.1%" for a near tie.
std::string gap(double ratio) {
  const double p = (ratio - 1) * 100;
  return p < 0.05 ? "<0.1%" : fmt::format("{:.1f}%", p);
}

// "yes", or "no (+3.1%)": what the predicted fastest run costs over the measured fastest one;
// "-" for a series of one run (nothing to pick from).
std::string picked(const SeriesRanking& s) {
  if (s.runs.size() < 2) return "-";
  return s.fastest_picked ? "yes" : fmt::format("no (+{:.1f}%)", s.regret * 100);
}

// "20 of 21", or "- (one run)" for a series of one run (a name no other case shares).
std::string ordered(const SeriesRanking& s) {
  return s.runs.size() < 2 ? "- (one run)" : fmt::format("{} of {}", s.ordered_right, s.pairs);
}

// "20 of 21 pairs ordered right (95.2%) · fastest picked in 3 of 3 series", `between`, "their 9
// runs' |error|: mean 5.6%, median 3.6%; at the pace of their series' other runs: mean 5.9%,
// median 2.3%".
std::string ranking_totals(const RankingSummary& t, std::string_view between) {
  if (t.runs == 0)
    return "no series of two or more runs: nothing to rank (runs are ranked against the others "
           "of their measured.series)";
  return fmt::format(
      "{} of {} pairs ordered right ({:.1f}%) · fastest picked in {} of {} series{}their {} "
      "runs' |error|: mean {:.1f}%, median {:.1f}%; at the pace of their series' other runs: "
      "mean {:.1f}%, median {:.1f}%",
      t.ordered_right, t.pairs, t.pairs ? 100.0 * t.ordered_right / t.pairs : 0.0, t.fastest_picked,
      t.series, between, t.runs, t.mean_abs_error * 100, t.median_abs_error * 100,
      t.paced_mean_abs_error * 100, t.paced_median_abs_error * 100);
}

// "10.6% → 2.4% (×1.117)": a series' mean |error|, then each run at the pace of the series'
// other runs, and the pace of all of them; "-" for a series of one run (no other run to pace it).
std::string paced(const SeriesRanking& s) {
  if (s.runs.size() < 2) return "-";
  return fmt::format("{:.1f}% → {:.1f}% (×{:.3f})", s.mean_abs_error * 100,
                     s.paced_mean_abs_error * 100, s.pace);
}

// The ranking of the series among `cases` (report/ranking.h); "" when none has one.
std::string format_ranking(const std::vector<CheckedCase>& cases, bool markdown) {
  const std::vector<SeriesRanking> series = rank_series(cases);
  if (series.empty()) return "";
  const RankingSummary total = summarize(series);
  const auto name = [&](const RankedRun& r) { return cases[r.index].step.scenario_name; };
  std::string o;
  if (markdown) {
    o += "\n| series | runs | pairs ordered right | fastest picked | "
         "mean \\|error\\| → at its other runs' pace (pace) |\n|---|---|---|---|---|\n";
    for (const auto& s : series)
      o += fmt::format("| {} | {} | {} | {} | {} |\n", cell(s.series), s.runs.size(), ordered(s),
                       picked(s), paced(s));
    return o + "\nLayout ranking: " + ranking_totals(total, "; ") + ".\n";
  }
  std::size_t sw = 6;
  for (const auto& s : series) sw = std::max(sw, s.series.size());
  const std::string row = "  {:<{}}  {:>4}  {:>19}  {:>14}  {}\n";
  o += "layout ranking: runs measured together (measured.series) by GPU-seconds per token; a "
       "series' pace is its runs' median measured ÷ predicted step time; each run is paced by the "
       "series' other runs\n";
  o += fmt::format(fmt::runtime(row), "series", sw, "runs", "pairs ordered right", "fastest picked",
                   "mean |error| → at its other runs' pace (pace)");
  for (const auto& s : series) {
    o += fmt::format(fmt::runtime(row), s.series, sw, s.runs.size(), ordered(s), picked(s),
                     paced(s));
    for (const auto& [i, j] : s.misordered) {
      const RankedRun &a = s.runs[i], &b = s.runs[j];
      o += fmt::format("    misordered: {} measured {} faster than {}, predicted {}\n", name(a),
                       gap(b.measured / a.measured), name(b),
                       a.predicted == b.predicted ? std::string("the same")
                                                  : gap(a.predicted / b.predicted) + " slower");
    }
  }
  return o + "  " + ranking_totals(total, "\n  ") + "\n";
}

// The setting changes among `cases` (report/setting_changes.h); "" when none.
std::string format_setting_changes(const std::vector<CheckedCase>& cases, bool markdown) {
  const std::vector<SettingChange> changes = setting_changes(cases);
  if (changes.empty()) return "";
  const ChangeSummary sum = summarize(changes);
  const auto pct = [](double ratio) { return fmt::format("{:+.1f}%", (ratio - 1) * 100); };
  const auto settings = [](const SettingChange& c) {
    std::string keys;
    for (const auto& k : c.keys)
      keys += fmt::format("{}{} {} → {}", keys.empty() ? "" : ", ", k.key, k.from, k.to);
    return keys;
  };
  const std::string total = fmt::format(
      "{}, predicted the measured way in {}; the predicted change is off the measured one by a "
      "mean {:.1f} points (largest {:.1f})",
      counted(sum.changes, "change"), sum.direction_right, sum.mean_abs_error * 100,
      sum.max_abs_error * 100);
  std::string o;
  if (markdown) {
    o += "\n| from | to | settings changed | measured | predicted |\n|---|---|---|---|---|\n";
    for (const SettingChange& c : changes)
      o += fmt::format("| {} | {} | {} | {} | {} |\n", cell(cases[c.from].step.scenario_name),
                       cell(cases[c.to].step.scenario_name), cell(settings(c)), pct(c.measured),
                       pct(c.predicted));
    return o +
           "\nSetting changes (two runs of a series one or two settings apart, their cost per "
           "token) — " +
           total + ".\n";
  }
  o += "setting changes: two runs of a series whose scenarios differ in one or two settings; the "
       "change's cost per token (GPU-seconds per token), as measured and as predicted\n";
  for (const SettingChange& c : changes)
    o +=
        fmt::format("  {} → {} ({}): measured {}, predicted {}\n", cases[c.from].step.scenario_name,
                    cases[c.to].step.scenario_name, settings(c), pct(c.measured), pct(c.predicted));
  return o + "  " + total + "\n";
}

// "16, 32, 60, 240": a split's micro-batch counts, each once.
std::string microbatch_counts(const std::vector<CheckedCase>& cases, const StepSplit& s) {
  std::string o;
  int last = -1;
  for (std::size_t i : s.runs)
    if (const int n = cases[i].step.microbatches; n != last) {
      o += fmt::format("{}{}", o.empty() ? "" : ", ", n);
      last = n;
    }
  return o;
}

// A time that a fit may make negative: "1.637 s", "-4.4 ms"; with `sign`, "+" before the
// others too (a difference).
std::string fitted_time(double seconds, bool sign = false) {
  return (seconds < 0 ? "-" : sign ? "+" : "") + format_time(std::abs(seconds));
}

// "a (n 128), b (n 64)": a split's runs and their micro-batch counts.
std::string split_runs(const std::vector<CheckedCase>& cases, const StepSplit& s) {
  std::string o;
  for (std::size_t i : s.runs)
    o += fmt::format("{}{} (n {})", o.empty() ? "" : ", ", cases[i].step.scenario_name,
                     cases[i].step.microbatches);
  return o;
}

// The per-micro-batch and per-step splits among `cases` (report/step_split.h); "" when none.
std::string format_step_splits(const std::vector<CheckedCase>& cases, bool markdown) {
  const std::vector<StepSplit> splits = step_splits(cases);
  if (splits.empty()) return "";
  int short_step = 0;
  double mean = 0, largest = 0;
  for (const StepSplit& s : splits) {
    const double e = s.predicted_per_microbatch / s.measured_per_microbatch - 1;
    mean += std::abs(e) / static_cast<double>(splits.size());
    largest = std::max(largest, std::abs(e));
    short_step += s.predicted_per_step < s.measured_per_step;
  }
  const std::string total = fmt::format(
      "{} of runs differing only in scale; a micro-batch's predicted time off the measured one by "
      "a mean {:.1f}% (largest {:.1f}%); the per-step part predicted shorter than measured in {}",
      counted(static_cast<double>(splits.size()), "group"), mean * 100, largest * 100, short_step);
  const auto per_mb = [](const StepSplit& s) {
    return fmt::format("{} → {} ({:+.1f}%)", format_time(s.measured_per_microbatch),
                       format_time(s.predicted_per_microbatch),
                       (s.predicted_per_microbatch / s.measured_per_microbatch - 1) * 100);
  };
  const auto per_step = [](const StepSplit& s) {
    return fmt::format("{} → {} ({})", fitted_time(s.measured_per_step),
                       fitted_time(s.predicted_per_step),
                       fitted_time(s.predicted_per_step - s.measured_per_step, true));
  };
  std::string o;
  if (markdown) {
    o += "\n| series | runs (n: micro-batches a step) | per micro-batch: measured → predicted | "
         "per step: measured → predicted |\n|---|---|---|---|\n";
    for (const StepSplit& s : splits)
      o += fmt::format("| {} | {} | {} | {} |\n", cell(s.series), cell(split_runs(cases, s)),
                       per_mb(s), per_step(s));
    return o +
           "\nPer micro-batch and per step (step time = per step + micro-batches × per "
           "micro-batch, fitted over a series' runs) — " +
           total + ".\n";
  }
  o += "per micro-batch and per step: runs of a series that differ only in scale (dp, nodes, "
       "global batch) run the same micro-batch on each GPU, n a step; their step times fitted as "
       "per step + n × per micro-batch (least squares), measured → predicted\n";
  std::size_t sw = 6;
  for (const StepSplit& s : splits) sw = std::max(sw, s.series.size());
  const std::string row = "  {:<{}}  {:>4}  {:<20}  {:<36}  {}\n";
  o += fmt::format(fmt::runtime(row), "series", sw, "runs", "micro-batches (n)", "per micro-batch",
                   "per step");
  for (const StepSplit& s : splits) {
    o += fmt::format(fmt::runtime(row), s.series, sw, s.runs.size(), microbatch_counts(cases, s),
                     per_mb(s), per_step(s));
    o += "    " + split_runs(cases, s);
    if (s.runs.size() > 2)
      o += "; the measured steps within " + format_time(s.max_residual) + " of their fit";
    o += "\n";
  }
  return o + "  " + total + "\n";
}

}  // namespace

AccuracySummary summarize(const std::vector<CheckedCase>& cases) {
  std::vector<Accuracy> all;
  for (const auto& c : cases) all.push_back(c.accuracy);
  return summarize(all);
}

AccuracySummary summarize_memory(const std::vector<CheckedCase>& cases) {
  std::vector<double> errors;
  for (const auto& c : cases)
    if (c.memory) errors.push_back(c.memory->error());
  return summarize_errors(std::move(errors));
}

namespace {
// The memory peaks' line under the step-time summary, for the cases that logged one.
std::string memory_summary_line(const std::vector<CheckedCase>& cases) {
  const AccuracySummary m = summarize_memory(cases);
  if (m.cases == 0) return "";
  return fmt::format(
      "memory: {} with a logged peak (measured.peak_memory: the run's max_memory_allocated on its "
      "first GPU) against stage 0's peak less memory.runtime_overhead · mean |error| {:.1f}% · max "
      "|error| {:.1f}% · mean signed {:+.1f}% (negative = predicted too little)\n",
      counted(m.cases, "case"), m.mean_abs_error * 100, m.max_abs_error * 100, m.mean_error * 100);
}
}  // namespace

std::vector<GpuAccuracy> summarize_by_gpu(const std::vector<CheckedCase>& cases) {
  std::map<std::string, std::vector<Accuracy>> of;
  for (const auto& c : cases) of[c.step.gpu].push_back(c.accuracy);
  std::vector<GpuAccuracy> out;
  for (const auto& [gpu, v] : of) out.push_back({gpu, summarize(v)});
  return out;
}

namespace {
// The cases' summaries grouped by `key(case)` (an optional: nullopt leaves a case out), in the
// key's order.
template <class Key>
auto summarize_grouped(const std::vector<CheckedCase>& cases, Key key) {
  using K = typename std::invoke_result_t<Key, const CheckedCase&>::value_type;
  std::map<K, std::vector<Accuracy>> of;
  for (const auto& c : cases)
    if (const auto k = key(c)) of[*k].push_back(c.accuracy);
  std::vector<std::pair<K, AccuracySummary>> out;
  for (const auto& [k, v] : of) out.emplace_back(k, summarize(v));
  return out;
}

// Summaries as a JSON array, each with its name under `key` ("runtime", "tp").
template <class Rows>
nlohmann::json summaries_to_json(const Rows& rows, const char* key) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& [name, summary] : rows) {
    nlohmann::json one = summary_to_json(summary);
    one[key] = name;
    j.push_back(std::move(one));
  }
  return j;
}

// The TP-degree summaries named as the tables print them ("tp 2").
std::vector<std::pair<std::string, AccuracySummary>> tp_rows(
    const std::vector<CheckedCase>& cases) {
  std::vector<std::pair<std::string, AccuracySummary>> rows;
  for (const auto& [tp, s] : summarize_by_tp(cases)) rows.emplace_back(fmt::format("tp {}", tp), s);
  return rows;
}
}  // namespace

std::vector<std::pair<std::string, AccuracySummary>> summarize_by_runtime(
    const std::vector<CheckedCase>& cases) {
  return summarize_grouped(cases, [](const CheckedCase& c) {
    const std::string rt = runtime_name(c.step);
    return rt.empty() ? std::nullopt : std::optional<std::string>(rt);
  });
}

std::vector<std::pair<int, AccuracySummary>> summarize_by_tp(
    const std::vector<CheckedCase>& cases) {
  return summarize_grouped(cases,
                           [](const CheckedCase& c) { return std::optional<int>(c.step.tp); });
}

std::vector<std::pair<std::string, AccuracySummary>> summarize_by_job_size(
    const std::vector<CheckedCase>& cases) {
  // Bucketed by the largest GPU count of each (an int, so the buckets sort by size).
  static constexpr std::array<std::pair<int, const char*>, 4> kBuckets{
      {{8, "1–8 GPUs"}, {64, "9–64"}, {512, "65–512"}, {std::numeric_limits<int>::max(), "513+"}}};
  const auto grouped = summarize_grouped(cases, [](const CheckedCase& c) {
    for (const auto& [most, name] : kBuckets)
      if (c.step.gpus <= most) return std::optional<int>(most);
    return std::optional<int>();
  });
  std::vector<std::pair<std::string, AccuracySummary>> rows;
  for (const auto& [most, s] : grouped)
    for (const auto& [m, name] : kBuckets)
      if (m == most) rows.emplace_back(name, s);
  return rows;
}

std::string format_check(const std::vector<CheckedCase>& cases, bool markdown) {
  const AccuracySummary sum = summarize(cases);
  const std::vector<GpuAccuracy> by_gpu = summarize_by_gpu(cases);
  std::string o;
  if (markdown) {
    o += "| case | GPUs | layout | measured | predicted | step time error | source |\n";
    o += "|---|---|---|---|---|---|---|\n";
    for (const auto& c : cases)
      o += fmt::format("| {} | {} × {} | {} | {} | {} | {:+.1f} % | {} |\n",
                       cell(c.step.scenario_name), c.step.gpus, c.step.gpu, short_layout(c.step),
                       metric_value(c.accuracy.metric, c.accuracy.measured),
                       metric_value(c.accuracy.metric, c.accuracy.predicted),
                       c.accuracy.step_time_error * 100, cell(c.accuracy.source));
    o += fmt::format(
        "\n{}: mean |error| {:.1f} %, max |error| {:.1f} %, mean signed error "
        "{:+.1f} %.\n",
        counted(sum.cases, "case"), sum.mean_abs_error * 100, sum.max_abs_error * 100,
        sum.mean_error * 100);
    if (const std::string mem = memory_summary_line(cases); !mem.empty()) o += "\n" + mem;
    // A table of summaries, one row each, headed by what the rows are of.
    const auto summaries = [&o](const char* of, const auto& rows) {
      o += fmt::format("\n| {} | cases | mean \\|error\\| | max \\|error\\| | mean signed |\n", of);
      o += "|---|---|---|---|---|\n";
      for (const auto& [name, s] : rows)
        o += fmt::format("| {} | {} | {:.1f} % | {:.1f} % | {:+.1f} % |\n", name, s.cases,
                         s.mean_abs_error * 100, s.max_abs_error * 100, s.mean_error * 100);
    };
    if (by_gpu.size() > 1) summaries("GPU", by_gpu);
    if (const auto by_runtime = summarize_by_runtime(cases); by_runtime.size() > 1)
      summaries("runtime", by_runtime);
    if (const auto by_tp = tp_rows(cases); by_tp.size() > 1) summaries("TP degree", by_tp);
    if (const auto by_size = summarize_by_job_size(cases); by_size.size() > 1)
      summaries("job size", by_size);
    return o + format_ranking(cases, true) + format_setting_changes(cases, true) +
           format_step_splits(cases, true);
  }
  std::size_t nw = 4;
  for (const auto& c : cases) nw = std::max(nw, c.step.scenario_name.size());
  const std::string line = "{:<{}}  {:>18}  {:>22}  {:>26}  {:>26}  {:>8}\n";
  o += fmt::format(fmt::runtime(line), "case", nw, "GPUs", "layout", "measured", "predicted",
                   "error");
  for (const auto& c : cases)
    o += fmt::format(fmt::runtime(line), c.step.scenario_name, nw,
                     fmt::format("{} × {}", c.step.gpus, c.step.gpu), short_layout(c.step),
                     metric_value(c.accuracy.metric, c.accuracy.measured),
                     metric_value(c.accuracy.metric, c.accuracy.predicted),
                     fmt::format("{:+.1f}%", c.accuracy.step_time_error * 100));
  o += fmt::format(
      "{} · mean |error| {:.1f}% · max |error| {:.1f}% · mean signed {:+.1f}%  (error: "
      "predicted step time vs measured; negative = predicted too fast)\n",
      counted(sum.cases, "case"), sum.mean_abs_error * 100, sum.max_abs_error * 100,
      sum.mean_error * 100);
  o += memory_summary_line(cases);
  // A table of summaries, one row each, headed "by …", its first column `w` wide.
  const auto summaries = [&o](const std::string& by, std::size_t w, const auto& rows) {
    const std::string row = "  {:<{}}  {:>5}  {:>12}  {:>11}  {:>11}\n";
    o += fmt::format(fmt::runtime(row), by, w, "cases", "mean |error|", "max |error|",
                     "mean signed");
    for (const auto& [name, s] : rows)
      o += fmt::format(fmt::runtime(row), name, w, s.cases,
                       fmt::format("{:.1f}%", s.mean_abs_error * 100),
                       fmt::format("{:.1f}%", s.max_abs_error * 100),
                       fmt::format("{:+.1f}%", s.mean_error * 100));
  };
  if (by_gpu.size() > 1) {
    std::size_t gw = 6;
    for (const auto& g : by_gpu) gw = std::max(gw, g.gpu.size());
    summaries("by GPU", gw, by_gpu);
  }
  // By training.runtime, where the cases mix them (the likely-step-time band splits by it).
  if (const auto by_runtime = summarize_by_runtime(cases); by_runtime.size() > 1)
    summaries("by runtime", 13, by_runtime);
  // By tensor-parallel degree, where the cases mix them (a run's report quotes its own).
  if (const auto by_tp = tp_rows(cases); by_tp.size() > 1) summaries("by TP degree", 13, by_tp);
  // By job size, where the cases span sizes (the error moves with it).
  if (const auto by_size = summarize_by_job_size(cases); by_size.size() > 1)
    summaries("by job size", 13, by_size);
  o += format_ranking(cases, false);
  return o + format_setting_changes(cases, false) + format_step_splits(cases, false);
}

std::string validation_inc(const std::vector<CheckedCase>& cases) {
  std::string o =
      "// trainsim's validation record: `trainsim check` over tests/published/*.yaml,\n"
      "// scenarios/llama3-405b-16k.yaml and scenarios/deepseek-v3-2048.yaml. ACCURACY: per GPU\n"
      "// preset and over all (gpu \"\"), {gpu, cases, mean |step-time error|, max |error|, mean\n"
      "// signed error, its 10th and 90th percentiles}; ACCURACY_RUNTIME: the same for the runs\n"
      "// of one training.runtime, {gpu, runtime, …}; ACCURACY_TP: the same on any GPU for the\n"
      "// runs of one tensor-parallel degree, {tp, …}; RANKING: the runs measured together\n"
      "// (report/ranking.h), {series, pairs, pairs ordered right, series whose fastest run is\n"
      "// picked, their runs, the runs' mean and median |error|, the same at the pace of their\n"
      "// series' other runs}.\n"
      "// Written by `trainsim check … --validation-inc`, never by hand; CTest's\n"
      "// validation_record fails when it differs from a fresh run. Read by\n"
      "// report/validation.cpp.\n";
  // ACCURACY("gpu", …) or, for the runs of one runtime, ACCURACY_RUNTIME("gpu", "runtime", …).
  const auto row = [](const std::string& gpu, const std::string& runtime,
                      const AccuracySummary& s) {
    return fmt::format("{}(\"{}\", {}{}, {:.5f}, {:.5f}, {:.5f}, {:.5f}, {:.5f})\n",
                       runtime.empty() ? "ACCURACY" : "ACCURACY_RUNTIME", gpu,
                       runtime.empty() ? "" : fmt::format("\"{}\", ", runtime), s.cases,
                       s.mean_abs_error, s.max_abs_error, s.mean_error, s.p10_error, s.p90_error);
  };
  for (const auto& g : summarize_by_gpu(cases)) o += row(g.gpu, "", g.summary);
  o += row("", "", summarize(cases));
  // The same per runtime (training.runtime), for the likely-step-time band of a run like it.
  for (const auto& [runtime, summary] : summarize_by_runtime(cases)) {
    std::vector<CheckedCase> like;
    for (const auto& c : cases)
      if (runtime_name(c.step) == runtime) like.push_back(c);
    for (const auto& g : summarize_by_gpu(like)) o += row(g.gpu, runtime, g.summary);
    o += row("", runtime, summary);
  }
  // Over every GPU per tensor-parallel degree, for the report's line on runs of its width.
  for (const auto& [tp, summary] : summarize_by_tp(cases))
    o += fmt::format("ACCURACY_TP({}, {}, {:.5f}, {:.5f}, {:.5f}, {:.5f}, {:.5f})\n", tp,
                     summary.cases, summary.mean_abs_error, summary.max_abs_error,
                     summary.mean_error, summary.p10_error, summary.p90_error);
  const RankingSummary t = summarize(rank_series(cases));
  o += fmt::format("RANKING({}, {}, {}, {}, {}, {:.5f}, {:.5f}, {:.5f}, {:.5f})\n", t.series,
                   t.pairs, t.ordered_right, t.fastest_picked, t.runs, t.mean_abs_error,
                   t.median_abs_error, t.paced_mean_abs_error, t.paced_median_abs_error);
  return o;
}

nlohmann::json check_to_json(const std::vector<CheckedCase>& cases) {
  nlohmann::json j;
  j["cases"] = nlohmann::json::array();
  for (const auto& c : cases)
    j["cases"].push_back({{"scenario", c.step.scenario},
                          {"name", c.step.scenario_name},
                          {"gpus", c.step.gpus},
                          {"gpu", c.step.gpu},
                          {"layout", short_layout(c.step)},
                          {"metric", c.accuracy.metric},
                          {"measured", c.accuracy.measured},
                          {"predicted", c.accuracy.predicted},
                          {"step_time_error", c.accuracy.step_time_error},
                          {"source", c.accuracy.source},
                          {"series", c.accuracy.series.empty() ? nlohmann::json(nullptr)
                                                               : nlohmann::json(c.accuracy.series)},
                          {"memory", memory_check_to_json(c.memory)}});
  j["summary"] = summary_to_json(summarize(cases));
  j["memory_summary"] = summary_to_json(summarize_memory(cases));
  j["by_gpu"] = nlohmann::json::array();
  for (const auto& g : summarize_by_gpu(cases)) {
    nlohmann::json one = summary_to_json(g.summary);
    one["gpu"] = g.gpu;
    j["by_gpu"].push_back(std::move(one));
  }
  // And by training.runtime (the cases of each; report/validation.h's ACCURACY_RUNTIME).
  j["by_runtime"] = summaries_to_json(summarize_by_runtime(cases), "runtime");
  // And by tensor-parallel degree (report/validation.h's ACCURACY_TP).
  j["by_tp"] = summaries_to_json(summarize_by_tp(cases), "tp");
  // And by job size ("1–8 GPUs", "9–64", "65–512", "513+").
  j["by_job_size"] = summaries_to_json(summarize_by_job_size(cases), "gpus");
  const std::vector<SeriesRanking> series = rank_series(cases);
  j["ranking"]["series"] = nlohmann::json::array();
  for (const auto& s : series) {
    nlohmann::json runs = nlohmann::json::array(), wrong = nlohmann::json::array();
    for (const auto& r : s.runs)
      runs.push_back(
          {{"name", cases[r.index].step.scenario_name},
           {"measured_gpu_seconds_per_token", r.measured},
           {"predicted_gpu_seconds_per_token", r.predicted},
           {"paced_step_time_error",
            s.runs.size() < 2 ? nlohmann::json(nullptr) : nlohmann::json(r.paced_error)}});
    for (const auto& [a, b] : s.misordered)
      wrong.push_back(
          {cases[s.runs[a].index].step.scenario_name, cases[s.runs[b].index].step.scenario_name});
    j["ranking"]["series"].push_back(
        {{"series", s.series},
         {"runs", std::move(runs)},
         {"pairs", s.pairs},
         {"ordered_right", s.ordered_right},
         {"misordered", std::move(wrong)},
         // A series of one run has nothing to pick from.
         {"fastest_picked",
          s.runs.size() < 2 ? nlohmann::json(nullptr) : nlohmann::json(s.fastest_picked)},
         {"regret", s.runs.size() < 2 ? nlohmann::json(nullptr) : nlohmann::json(s.regret)},
         // And at the pace of each run's other runs (report/ranking.h): none in a series of one.
         {"pace", s.runs.size() < 2 ? nlohmann::json(nullptr) : nlohmann::json(s.pace)},
         {"mean_abs_error", s.mean_abs_error},
         {"paced_mean_abs_error",
          s.runs.size() < 2 ? nlohmann::json(nullptr) : nlohmann::json(s.paced_mean_abs_error)}});
  }
  j["ranking"]["summary"] = ranking_summary_to_json(summarize(series));
  // Pairs of a series' runs that differ in a setting or two (report/setting_changes.h).
  const std::vector<SettingChange> changes = setting_changes(cases);
  j["setting_changes"]["changes"] = nlohmann::json::array();
  for (const SettingChange& c : changes) {
    nlohmann::json keys = nlohmann::json::array();
    for (const auto& k : c.keys) keys.push_back({{"key", k.key}, {"from", k.from}, {"to", k.to}});
    j["setting_changes"]["changes"].push_back({{"series", c.series},
                                               {"from", cases[c.from].step.scenario_name},
                                               {"to", cases[c.to].step.scenario_name},
                                               {"settings", std::move(keys)},
                                               {"measured_cost_ratio", c.measured},
                                               {"predicted_cost_ratio", c.predicted}});
  }
  const ChangeSummary cs = summarize(changes);
  // No change: no error to average (null, as ranking.summary's).
  const auto or_null = [&](double x) {
    return cs.changes ? nlohmann::json(x) : nlohmann::json(nullptr);
  };
  j["setting_changes"]["summary"] = {{"changes", cs.changes},
                                     {"direction_right", cs.direction_right},
                                     {"mean_abs_error", or_null(cs.mean_abs_error)},
                                     {"max_abs_error", or_null(cs.max_abs_error)}};
  // A series' step times split into a part per micro-batch and one per step
  // (report/step_split.h).
  j["step_splits"] = nlohmann::json::array();
  for (const StepSplit& s : step_splits(cases)) {
    nlohmann::json runs = nlohmann::json::array();
    for (std::size_t i : s.runs)
      runs.push_back({{"name", cases[i].step.scenario_name},
                      {"microbatches", cases[i].step.microbatches},
                      {"measured_step_time_s", measured_step_time(cases[i])},
                      {"predicted_step_time_s", cases[i].step.step_time_s}});
    j["step_splits"].push_back({{"series", s.series},
                                {"runs", std::move(runs)},
                                {"measured_per_microbatch_s", s.measured_per_microbatch},
                                {"predicted_per_microbatch_s", s.predicted_per_microbatch},
                                {"measured_per_step_s", s.measured_per_step},
                                {"predicted_per_step_s", s.predicted_per_step},
                                {"max_residual_s", s.max_residual}});
  }
  return j;
}

nlohmann::json validation_by_tp_to_json() {
  return summaries_to_json(validation_by_tp(), "tp");
}

nlohmann::json ranking_summary_to_json(const RankingSummary& t) {
  // Statistics of no runs are null, not 0.
  const auto of_runs = [&](double v) {
    return t.runs > 0 ? nlohmann::json(v) : nlohmann::json(nullptr);
  };
  return {{"series", t.series},
          {"pairs", t.pairs},
          {"ordered_right", t.ordered_right},
          {"fastest_picked", t.fastest_picked},
          {"runs", t.runs},
          {"mean_abs_error", of_runs(t.mean_abs_error)},
          {"median_abs_error", of_runs(t.median_abs_error)},
          {"paced_mean_abs_error", of_runs(t.paced_mean_abs_error)},
          {"paced_median_abs_error", of_runs(t.paced_median_abs_error)}};
}

}  // namespace trainsim
