#include "report/kernel_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/quantity.h"
#include "cost/constants.h"
#include "schedules/registry.h"

namespace trainsim {

double KernelPass::seconds_of(const std::string& kind) const {
  double t = 0;
  for (const KernelRow& r : rows)
    if (r.kind == kind) t += r.seconds;
  return t;
}

KernelReport make_kernel_report(const Scenario& s, const CostModel& model, int stage) {
  KernelReport r;
  r.scenario = s.source.empty() ? s.name : s.source;
  r.stages = s.layout.pp * s.layout.vpp;
  if (stage < 0 || stage >= r.stages)
    throw InputError(fmt::format("--stage {} is out of range: this layout has stages 0 … {}", stage,
                                 r.stages - 1));
  r.stage = stage;
  r.pp = s.layout.pp;
  r.vpp = s.layout.vpp;
  r.rank = stage % s.layout.pp;
  if (r.vpp > 1) {
    r.rank = -1;
    if (s.schedule.csv.empty()) {
      const std::vector<int> ranks =
          find_schedule(s.schedule.name).stage_ranks(s.layout.pp, s.layout.vpp);
      if (stage < static_cast<int>(ranks.size())) r.rank = ranks[static_cast<std::size_t>(stage)];
    }
  }
  if (s.has_cluster) {
    r.gpu = s.cluster.gpu.name;
    r.peak_flops = s.cluster.gpu.peak_flops;
    r.hbm_bandwidth = s.cluster.gpu.hbm_bandwidth;
  }
  r.compute_pace = model.compute_pace();
  r.gpus = s.layout.world();
  r.fp8 = s.training.precision == Precision::FP8;
  r.cp_ring = s.layout.cp_comm == CpComm::Ring;
  if (r.gpus > 1)
    r.compute_slowdown = s.contention.compute_slowdown.value_or(constants::kOverlapComputeSlowdown);
  for (const auto& [op, name] : {std::pair{Op::F, "forward"}, std::pair{Op::B, "backward"}}) {
    const std::vector<KernelTime> kernels = model.kernel_times(op, stage);
    if (kernels.empty()) continue;
    KernelPass pass;
    pass.op = name;
    const HostLaunch cpu = model.host_launch(op, stage);
    pass.cpu_seconds = to_seconds(cpu.time);
    pass.launches = cpu.kernels;
    for (const auto& [what, runs] : {std::pair{"TP", model.tp_collectives(op, stage)},
                                     std::pair{"EP", model.ep_collectives(op, stage)},
                                     std::pair{"CP", model.cp_collectives(op, stage)}})
      for (const CollectiveRun& c : runs) {
        if (c.group_size <= 1) continue;
        // The same collective of the same size in two runs (one hidden, one not): one entry.
        bool merged = false;
        for (auto& [kind, e] : pass.collectives)
          if (kind == what && e.kind == c.kind && e.bytes == c.bytes &&
              e.group_size == c.group_size) {
            e.count += c.count;
            merged = true;
          }
        if (!merged) pass.collectives.emplace_back(what, c);
      }
    for (const KernelTime& k : kernels) {
      // The same kernel twice in a layer (two norms, two residual adds) is one row.
      KernelRow* row = nullptr;
      for (KernelRow& e : pass.rows)
        if (e.what == k.what && e.recompute == k.recompute && e.source == k.source) row = &e;
      if (!row) {
        pass.rows.push_back({k.what, k.kind, k.source, 0, 0, 0, 0, k.recompute});
        row = &pass.rows.back();
      }
      row->count += k.count;
      row->flops += k.count * k.flops;
      row->bytes += k.count * k.bytes;
      row->seconds += k.count * k.seconds;
      pass.seconds += k.count * k.seconds;
    }
    r.passes.push_back(std::move(pass));
  }
  // After the kernels are priced: a profile's line counts the samples that answered them
  // ("10 GEMM shape(s) from the profile"), 0 before any was asked.
  r.sources = model.sources();
  return r;
}

std::string format_kernel_report(const KernelReport& r) {
  // With several chunks a rank, --stage counts model chunks, not pipeline ranks.
  const std::string where =
      r.vpp <= 1
          ? fmt::format("stage {} of {}", r.stage, r.stages)
          : fmt::format("model chunk {} of {} (pp {} × vpp {}{})", r.stage, r.stages, r.pp, r.vpp,
                        r.rank >= 0 ? fmt::format("; on pipeline rank {}", r.rank) : "");
  std::string out = fmt::format("kernels of one micro-batch · {} · {}\n", where, r.scenario);
  if (!r.gpu.empty())
    out += fmt::format("gpu        {} ({:.0f} TFLOP/s dense 16-bit{}, {:.2f} TB/s HBM)\n", r.gpu,
                       r.peak_flops / 1e12,
                       r.fp8 ? fmt::format(", {:.0f} FP8", 2 * r.peak_flops / 1e12) : "",
                       r.hbm_bandwidth / 1e12);
  out += fmt::format("durations  {}\n", r.sources);
  if (r.passes.empty())
    return out + "(this scenario's durations come from its costs: section, not from kernels)\n";
  if (r.compute_pace != 1.0)
    out += fmt::format(
        "pace       one GPU's times; the step runs them at the pace of the slowest of its {}, "
        "{:.1f}% longer (cluster.gpu_speed_spread)\n",
        counted(r.gpus, "GPU"), (r.compute_pace - 1) * 100);
  for (const KernelPass& p : r.passes) {
    auto pct = [&](double t) { return p.seconds > 0 ? 100 * t / p.seconds : 0.0; };
    out += fmt::format(
        "\n{} {}: GEMMs {} ({:.0f} %) · attention {} ({:.0f} %) · memory-bound {} "
        "({:.0f} %)\n",
        p.op, format_time(p.seconds), format_time(p.seconds_of("gemm")), pct(p.seconds_of("gemm")),
        format_time(p.seconds_of("attention")), pct(p.seconds_of("attention")),
        format_time(p.seconds_of("memory")), pct(p.seconds_of("memory")));
    if (p.cpu_seconds > 0)
      out += fmt::format(
          "  the CPU issues its {} in {}{}\n", counted(p.launches, "kernel"),
          format_time(p.cpu_seconds),
          p.cpu_seconds > p.seconds
              ? fmt::format(": {:.1f} times the GPU's time, the GPU waits for it",
                            p.cpu_seconds / p.seconds)
              : fmt::format(", {:.0f} % of the GPU's time", 100 * p.cpu_seconds / p.seconds));
    out += fmt::format("  {:<28} {:>5} {:>11} {:>7} {:>9} {:>8}  {}\n", "kernel", "runs", "time",
                       "share", "TFLOP/s", "TB/s", "source");
    for (const KernelRow& k : p.rows) {
      const std::string rate =
          k.flops > 0 && k.seconds > 0 ? fmt::format("{:.1f}", k.flops / k.seconds / 1e12) : "-";
      const std::string bw = k.kind == "memory" && k.seconds > 0
                                 ? fmt::format("{:.2f}", k.bytes / k.seconds / 1e12)
                                 : "-";
      out += fmt::format("  {:<28} {:>5} {:>11} {:>6.1f}% {:>9} {:>8}  {}\n",
                         k.recompute ? k.what + " (recompute)" : k.what, k.count,
                         format_time(k.seconds), pct(k.seconds), rate, bw, k.source);
    }
    if (!p.collectives.empty()) {
      std::vector<std::string> what;
      for (const auto& [kind, c] : p.collectives)
        what.push_back(fmt::format("{} {} ×{} of {} over {} GPUs", kind,
                                   kind == "CP" && r.cp_ring
                                       ? std::string("ring exchange (an all-gather's bytes)")
                                       : std::string(collective_name(c.kind)),
                                   c.count, format_bytes(c.bytes), c.group_size));
      out += fmt::format(
          "  not in the table: its collectives, beside or after these kernels on the "
          "communication streams ({}); `trainsim run` times them (exposed comm)\n",
          fmt::join(what, "; "));
    }
  }
  out +=
      "\nruns: a row's runs per micro-batch (a run may launch several kernels; the CPU line "
      "counts launches). TFLOP/s: the model's FLOPs over the time, attention's backward counted "
      "as twice its forward (as MFU counts it; FlashAttention's benchmarks count 2.5 times).\n";
  if (r.compute_slowdown > 0)
    out += fmt::format(
        "In the step, those of these kernels that run while communication shares the GPU run "
        "{:.1f}% slower (contention.compute_slowdown): `trainsim run`'s compute busy time "
        "counts it, this table does not.\n",
        100 * r.compute_slowdown);
  return out;
}

nlohmann::json kernel_report_to_json(const KernelReport& r) {
  nlohmann::json j{{"scenario", r.scenario},
                   {"gpu", r.gpu},
                   {"stage", r.stage},
                   {"stages", r.stages},
                   {"pipeline_rank", r.rank >= 0 ? nlohmann::json(r.rank) : nlohmann::json()},
                   {"peak_flops", r.peak_flops},
                   {"hbm_bandwidth", r.hbm_bandwidth},
                   {"sources", r.sources},
                   {"compute_pace", r.compute_pace},
                   {"compute_slowdown", r.compute_slowdown},
                   {"passes", nlohmann::json::array()}};
  for (const KernelPass& p : r.passes) {
    nlohmann::json rows = nlohmann::json::array();
    for (const KernelRow& k : p.rows)
      rows.push_back({{"kernel", k.what},
                      {"kind", k.kind},
                      {"runs", k.count},
                      {"flops", k.flops},
                      {"bytes", k.bytes},
                      {"seconds", k.seconds},
                      {"recompute", k.recompute},
                      {"source", k.source}});
    nlohmann::json colls = nlohmann::json::array();
    for (const auto& [kind, c] : p.collectives)
      colls.push_back({{"parallelism", kind},
                       {"collective", collective_name(c.kind)},
                       {"count", c.count},
                       {"bytes", c.bytes},
                       {"group_size", c.group_size}});
    j["passes"].push_back({{"op", p.op},
                           {"seconds", p.seconds},
                           {"cpu_seconds", p.cpu_seconds},
                           {"launches", p.launches},
                           {"kernels", rows},
                           {"collectives", colls}});
  }
  return j;
}

}  // namespace trainsim
