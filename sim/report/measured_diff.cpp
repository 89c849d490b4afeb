#include "report/measured_diff.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/input_file.h"
#include "core/quantity.h"
#include "cost/explicit_costs.h"
#include "report/chrome_trace.h"

namespace trainsim {
namespace {

// The compute kinds, in the order of the gemm, attention and memory_bound rows: the kernel
// report's kind, the row's name, the measured category.
struct ComputeKind {
  const char* kind;
  const char* row;
  KernelCategory category;
};
constexpr ComputeKind kComputeKinds[] = {{"gemm", "gemm", KernelCategory::Gemm},
                                         {"attention", "attention", KernelCategory::Attention},
                                         {"memory", "memory_bound", KernelCategory::MemoryBound}};
// A note names the measured time the GPU waited for the CPU from this share of the step on.
constexpr double kHostBoundNote = 0.05;

// A row's label in the text table: the communication rows indented under it, exposed parts
// under theirs.
std::string label(const std::string& what) {
  static const std::map<std::string, std::string> labels{
      {"memory_bound", "memory-bound"}, {"communication_exposed", "  exposed"},
      {"communication_tp", "  TP"},     {"communication_tp_exposed", "    exposed"},
      {"communication_dp", "  DP"},     {"communication_dp_exposed", "    exposed"},
      {"communication_pp", "  PP"},     {"communication_pp_exposed", "    exposed"},
      {"communication_ep", "  EP"},     {"communication_ep_exposed", "    exposed"},
      {"idle_host", "  waiting on CPU"}};
  const auto it = labels.find(what);
  return it == labels.end() ? what : it->second;
}

// The parallelism a measured collective serves, by the scenario's layout: "pp" for
// point-to-point kernels; "ep" for an all-to-all over the EP degree; "tp" or "dp" when its group
// size is the TP degree, or the DP degree (or the experts' gradients' group), and not both;
// "" when the trace gives no group size (PyTorch before 2.2) or it matches neither or both.
std::string serves(const CommGroupTime& g, const Layout& l) {
  if (g.collective == "sendrecv") return "pp";
  if (g.group_size <= 1) return "";
  if (g.collective == "alltoall" && l.ep > 1 && g.group_size == l.ep) return "ep";
  // DP's: the whole DP group, or the ranks reducing the experts' gradients (dp · cp / ep, or
  // tp · dp · cp / ep with experts whole on each TP rank).
  const bool experts = l.ep > 1 || l.experts_span_tp();
  const bool tp = g.group_size == l.tp,
             dp = g.group_size == l.dp_ranks() || (experts && g.group_size == l.expert_dp_ranks());
  return tp && !dp ? "tp" : dp && !tp ? "dp" : "";
}

// "+1.802 s" / "-3.965 ms": predicted − measured, signed with ASCII '-' as the error column
// beside it (and every other signed figure of the reports) is.
std::string signed_difference(const DiffRow& r) {
  return (r.predicted_s >= r.measured_s ? "+" : "-") +
         format_time(std::abs(r.predicted_s - r.measured_s));
}

// "name 1.2 ms (3), …": the first `most` families, "…" when there are more.
std::string family_list(const std::vector<FamilyTime>& fs, std::size_t most) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < fs.size() && i < most; ++i)
    parts.push_back(fmt::format("{} {} ({})", fs[i].family.empty() ? "unknown" : fs[i].family,
                                format_time(to_seconds(fs[i].time)), fs[i].count));
  return fmt::format("{}{}", fmt::join(parts, ", "), fs.size() > most ? ", …" : "");
}

// Each compute category's measured families and predicted kernels, the `most` longest of each
// and what the rest add up to.
std::string format_category_kernels(const RankDiff& rd, std::size_t most) {
  std::string out =
      "  kernels by category: measured by family (summed durations), predicted by kernel (one "
      "GPU's, before the step's stretch beside communication and its slowest GPU's pace)\n";
  auto line = [](const std::string& name, double n, double seconds) {
    constexpr std::size_t kWidth = 60;
    const std::string shown = name.size() > kWidth ? name.substr(0, kWidth - 1) + "…" : name;
    return fmt::format("      {:<60} {:>7} {:>12}\n", shown, fmt::format("{:.0f}", n),
                       format_time(seconds));
  };
  // One list: a header, the first `most` entries, what the rest add up to.
  auto list = [&](const char* title, const char* n_title, const auto& xs, auto entry) {
    out += fmt::format("    {:<62} {:>7} {:>12}\n", title, n_title, "time");
    double rest = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const auto [name, n, seconds] = entry(xs[i]);
      if (i < most)
        out += line(name, n, seconds);
      else
        rest += seconds;
    }
    if (xs.size() > most)
      out += fmt::format("      … {} more, {}\n", xs.size() - most, format_time(rest));
  };
  for (const CategoryKernels& ck : rd.kernels) {
    double measured = 0, predicted = 0;
    for (const auto& f : ck.measured) measured += to_seconds(f.time);
    for (const auto& k : ck.predicted) predicted += k.seconds;
    out += fmt::format("  {}: measured {} in {} families, predicted {} in {} kernels\n",
                       label(ck.what), format_time(measured), ck.measured.size(),
                       format_time(predicted), ck.predicted.size());
    list("measured", "count", ck.measured, [](const FamilyTime& f) {
      return std::tuple<std::string, double, double>{f.family.empty() ? "unknown" : f.family,
                                                     f.count, to_seconds(f.time)};
    });
    list("predicted", "runs", ck.predicted, [](const PredictedKernel& k) {
      return std::tuple<std::string, double, double>{k.name, k.runs, k.seconds};
    });
  }
  return out;
}

}  // namespace

MeasuredDiff make_measured_diff(const Timeline& tl, const StepReport& r,
                                const std::vector<KernelReport>& kernels,
                                const std::vector<TorchTrace>& traces,
                                const std::vector<StepBreakdown>& steps) {
  TRAINSIM_CHECK(traces.size() == steps.size(), "one step breakdown per trace");
  const Scenario& s = tl.scenario;
  MeasuredDiff d;
  d.scenario = s.source.empty() ? s.name : s.source;
  d.gpu = r.gpu;
  d.schedule = r.schedule;
  d.cost_sources = r.cost_sources;
  const int world = s.layout.world();
  // Each micro-batch of the step goes through one of the schedule's chains (DualPipe: two).
  const Schedule& sch = tl.schedule;
  const double m = static_cast<double>(s.microbatches()) / std::max(1, sch.chains);
  const auto held = sch.model_stages_by_rank();
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const TorchTrace& t = traces[i];
    const StepBreakdown& b = steps[i];
    if (t.world_size != world)
      d.notes.push_back(
          fmt::format("{}: the trace's world size is {}, the scenario's {}: "
                      "rank {} is compared with pipeline rank {} of the scenario",
                      t.file, t.world_size, counted(world, "GPU"), t.rank,
                      s.layout.coord_of(t.rank % world).pp));
    // The preset's family ("h100" of h100-sxm) should appear in the traced device's name.
    if (!t.device.empty() && !r.gpu.empty()) {
      std::string family = r.gpu.substr(0, r.gpu.find('-')), dev = t.device;
      for (auto* x : {&family, &dev})
        std::transform(x->begin(), x->end(), x->begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (dev.find(family) == std::string::npos)
        d.notes.push_back(fmt::format("{}: the trace ran on {}, the scenario simulates {}", t.file,
                                      t.device, r.gpu));
    }
    RankDiff rd;
    rd.file = t.file;
    rd.step = b.step;
    rd.device = t.device;
    rd.rank = t.rank;
    rd.stage = s.layout.coord_of(t.rank % world).pp;
    const auto& st = r.stages[static_cast<std::size_t>(rd.stage)];
    // Predicted compute by kind: every stage (chunk) this pipeline rank holds.
    std::vector<double> kind_s(3, 0);
    double unstretched = 0;
    double launches = 0;  // the kernels the simulated CPU issues in the step (KernelPass)
    // And kernel by kernel, each kind's rows merged by pass and name over the held stages.
    std::array<std::map<std::string, PredictedKernel>, 3> by_kernel;
    for (const int c : held.at(static_cast<std::size_t>(rd.stage))) {
      if (static_cast<std::size_t>(c) >= kernels.size()) continue;
      for (const KernelPass& p : kernels[static_cast<std::size_t>(c)].passes) {
        launches += p.launches * m;
        for (std::size_t k = 0; k < 3; ++k) {
          const double v = p.seconds_of(kComputeKinds[k].kind) * m;
          kind_s[k] += v;
          unstretched += v;
        }
        for (const KernelRow& row : p.rows)
          for (std::size_t k = 0; k < 3; ++k) {
            if (row.kind != kComputeKinds[k].kind) continue;
            const std::string name =
                fmt::format("{} {}{}", p.op, row.what, row.recompute ? " (recompute)" : "");
            PredictedKernel& pk = by_kernel[k][name];
            pk.name = name;
            pk.runs += row.count * m;
            pk.seconds += row.seconds * m;
          }
      }
    }
    for (std::size_t k = 0; k < 3; ++k) {
      CategoryKernels ck{kComputeKinds[k].row,
                         b.families[static_cast<std::size_t>(kComputeKinds[k].category)],
                         {}};
      for (const auto& [name, pk] : by_kernel[k]) ck.predicted.push_back(pk);
      std::stable_sort(
          ck.predicted.begin(), ck.predicted.end(),
          [](const PredictedKernel& a, const PredictedKernel& b) { return a.seconds > b.seconds; });
      rd.kernels.push_back(std::move(ck));
    }
    // The simulated GPU computes at the job's slowest GPU's pace; the traced one at its own, its
    // wait for the slowest inside its collectives or idle: its kernels are compared with one
    // GPU's (the pace taken out of the stretch).
    const double stretch = unstretched > 0 ? st.compute_busy_s / unstretched / r.compute_pace : 1;
    const double exposed =
        st.exposed_tp_s + st.exposed_dp_s + st.exposed_pp_s + st.exposed_gather_s + st.exposed_ep_s;
    const double comm =
        st.comm_tp_s + st.comm_dp_s + st.comm_pp_s + st.comm_gather_s + st.comm_ep_s;
    auto busy = [&](KernelCategory c) { return to_seconds(b.busy_of(c)); };
    rd.rows.push_back({"step", to_seconds(b.span), r.step_time_s});
    // Off by more than half or twice over: the model, batch or layout likely differ from the
    // traced run's (trainsim's published runs are within −35…+21 %).
    if (const double measured = to_seconds(b.span); measured > 0) {
      const double ratio = r.step_time_s / measured;
      if (ratio > 2 || ratio < 0.5)
        d.notes.push_back(fmt::format(
            "{}: the simulated step is {:.2f} times the measured one: check that the scenario "
            "describes the traced run (model and its layers, micro-batch size and count, "
            "sequence length, layout)",
            t.file, ratio));
    }
    for (std::size_t k = 0; k < 3; ++k)
      rd.rows.push_back({kComputeKinds[k].row, busy(kComputeKinds[k].category), kind_s[k] * stretch,
                         unstretched > 0});
    rd.rows.push_back(
        {"optimizer", busy(KernelCategory::Optimizer), st.optimizer_s / r.compute_pace});
    rd.rows.push_back({"communication", busy(KernelCategory::Communication), comm});
    rd.rows.push_back({"communication_exposed", to_seconds(b.comm_exposed), exposed});
    // Communication by what it serves. Measured: each collective attributed by its group size
    // (serves(); an exposed part is what no compute kernel covers, so parts overlapping each
    // other both count it). Predicted: the report's TP, DP (with ZeRO's parameter gathers) and
    // pipeline transfers. A group shows when the layout has it or the trace does.
    struct Part {
      double busy = 0, exposed = 0;
      int kernels = 0;
    };
    std::map<std::string, Part> by;
    for (const CommGroupTime& g : b.comm_groups) {
      Part& p = by[serves(g, s.layout)];
      p.busy += to_seconds(g.busy);
      p.exposed += to_seconds(g.exposed);
      p.kernels += g.count;
    }
    const struct {
      const char* key;
      int degree;
      double busy, exposed;
    } groups[] = {
        {"tp", s.layout.tp, st.comm_tp_s, st.exposed_tp_s},
        {"dp", s.layout.dp, st.comm_dp_s + st.comm_gather_s, st.exposed_dp_s + st.exposed_gather_s},
        {"pp", s.layout.pp, st.comm_pp_s, st.exposed_pp_s},
        {"ep", s.layout.ep, st.comm_ep_s, st.exposed_ep_s}};
    for (const auto& g : groups) {
      const Part& p = by[g.key];
      if (g.degree <= 1 && p.kernels == 0) continue;
      rd.rows.push_back({fmt::format("communication_{}", g.key), p.busy, g.busy});
      rd.rows.push_back({fmt::format("communication_{}_exposed", g.key), p.exposed, g.exposed});
    }
    if (const Part& p = by[""]; p.kernels > 0)
      d.notes.push_back(fmt::format(
          "{}: {} of communication ({} kernels) not split into TP, DP or PP: the trace gives no "
          "group size (PyTorch before 2.2 records none) or the size is not the layout's tp or "
          "dp alone",
          t.file, format_time(p.busy), p.kernels));
    // The GPU's own compute, the rest of the slowest GPU's pace waited for as idle time.
    rd.rows.push_back(
        {"idle", to_seconds(b.idle),
         std::max(0.0, r.step_time_s - (st.compute_busy_s + st.optimizer_s) / r.compute_pace -
                           exposed)});
    // The part of the idle time the GPU waited for the CPU to launch its next kernel
    // (step_breakdown.h); simulated where the scenario's CPU issues kernels
    // (efficiency.host_per_kernel > 0), else not.
    const bool simulated_cpu = st.launch_s > 0;
    if (b.launches_known) {
      rd.rows.push_back({"idle_host", to_seconds(b.idle_host), st.launch_wait_s, simulated_cpu});
      if (const double measured = to_seconds(b.span);
          measured > 0 && to_seconds(b.idle_host) >= kHostBoundNote * measured) {
        // The GPU waited for the CPU: the CPU set the pace, and its time between launches is
        // its time per launch call. Over the simulated step's own kernels (fewer: compute only),
        // the time per kernel that makes the simulated CPU take the trace's CPU time.
        const double per_s = b.launches > 1 ? to_seconds(b.launch_span) / (b.launches - 1) : 0.0;
        const std::string per = per_s > 0 ? format_time(per_s) : "?";
        const double fit_s = launches > 0 ? to_seconds(b.launch_span) / launches : per_s;
        const std::string whose =
            launches > 0 ? fmt::format("its {} a step take the trace's {}",
                                       counted(launches, "simulated kernel"),
                                       format_time(to_seconds(b.launch_span)))
                         : std::string("each kernel takes the trace's time per launch call");
        d.notes.push_back(fmt::format(
            "{}: the GPU waited {} ({:.0f} % of the step, {}) for the CPU to launch its next "
            "kernel: the traced run is host-bound there. Its CPU made {} in {}, {} apart (kernels, "
            "copies and collectives alike; the simulated CPU issues the model's compute kernels "
            "only); {}",
            t.file, format_time(to_seconds(b.idle_host)), 100 * to_seconds(b.idle_host) / measured,
            counted(b.host_gaps, "gap"), counted(b.launches, "launch call"),
            format_time(to_seconds(b.launch_span)), per,
            simulated_cpu
                ? fmt::format("the scenario issues its own kernels at {} each "
                              "(efficiency.host_per_kernel) and waits {} for them",
                              format_time(r.host_per_kernel_s), format_time(st.launch_wait_s))
                : fmt::format("the scenario does not simulate its CPU (efficiency.host_per_kernel "
                              "0): --set efficiency.host_per_kernel={:.1f}us does ({}). CUDA "
                              "graphs, or fewer and longer kernels (fused operators, larger "
                              "micro-batches, less tensor parallelism), close such gaps",
                              fit_s * 1e6, whose)));
      }
    }
    rd.rows.push_back({"other", busy(KernelCategory::Other), 0, false});
    rd.other = b.other;
    rd.collectives = b.collectives;
    d.ranks.push_back(std::move(rd));
  }
  if (r.compute_pace != 1.0)
    d.notes.push_back(fmt::format(
        "the predicted kernel rows are one GPU's; the simulated step runs them at the pace of the "
        "slowest of its {}, {:.1f}% longer (cluster.gpu_speed_spread), which a traced GPU shows "
        "as waiting in its collectives or idle",
        counted(world, "GPU"), (r.compute_pace - 1) * 100));
  return d;
}

MeasuredDiff make_measured_diff(const Timeline& tl, const StepReport& r,
                                const std::vector<TorchTrace>& traces,
                                const std::vector<int>& steps) {
  TRAINSIM_CHECK(traces.size() == steps.size(), "one step index per trace");
  const Scenario& s = tl.scenario;
  std::vector<KernelReport> kernels;
  if (s.model) {
    const std::unique_ptr<CostModel> model = make_cost_model(s);
    for (int c = 0; c < s.layout.pp * s.layout.vpp; ++c)
      kernels.push_back(make_kernel_report(s, *model, c));
  }
  std::vector<StepBreakdown> b;
  for (std::size_t i = 0; i < traces.size(); ++i) b.push_back(break_down_step(traces[i], steps[i]));
  return make_measured_diff(tl, r, kernels, traces, b);
}

namespace {
// The three largest differences among a rank's parts (not the step, not the sub-rows of
// communication), largest first: the text's line and the JSON's `largest_differences`.
std::vector<const DiffRow*> largest_differences(const RankDiff& rd) {
  std::vector<const DiffRow*> parts;
  for (const DiffRow& row : rd.rows)
    if (row.predicted_known && row.what != "step" && row.what != "idle_host" &&
        row.what.rfind("communication_", 0) == std::string::npos)
      parts.push_back(&row);
  std::stable_sort(parts.begin(), parts.end(), [](const DiffRow* a, const DiffRow* b) {
    return std::abs(a->predicted_s - a->measured_s) > std::abs(b->predicted_s - b->measured_s);
  });
  if (parts.size() > 3) parts.resize(3);
  return parts;
}
}  // namespace

std::string format_measured_diff(const MeasuredDiff& d, bool kernels, std::size_t most) {
  std::string out = fmt::format("measured vs simulated · {} · {} · {}\n", d.scenario,
                                d.gpu.empty() ? "no gpu" : d.gpu, d.schedule);
  out += fmt::format("durations  {}\n", d.cost_sources);
  for (const auto& n : d.notes) out += "note       " + n + "\n";
  for (const RankDiff& rd : d.ranks) {
    out += fmt::format("\nrank {} (pipeline rank {}) · {} · {}{}\n", rd.rank, rd.stage, rd.file,
                       rd.step, rd.device.empty() ? "" : " · " + rd.device);
    out += fmt::format("  {:<16} {:>12} {:>12} {:>9} {:>12}\n", "", "measured", "predicted",
                       "error", "difference");
    for (const DiffRow& row : rd.rows) {
      const bool known = row.predicted_known;
      out += fmt::format(
          "  {:<16} {:>12} {:>12} {:>9} {:>12}\n", label(row.what), format_time(row.measured_s),
          known ? format_time(row.predicted_s) : "-",
          known && row.measured_s > 0 ? fmt::format("{:+.1f}%", 100 * row.error()) : "-",
          known ? signed_difference(row) : "-");
    }
    std::vector<std::string> top;
    for (const DiffRow* row : largest_differences(rd))
      top.push_back(label(row->what) + " " + signed_difference(*row));
    out += fmt::format("  largest differences (predicted − measured): {}\n", fmt::join(top, ", "));
    if (!rd.collectives.empty())
      out += "  measured collectives: " + family_list(rd.collectives, rd.collectives.size()) + "\n";
    if (!rd.other.empty()) {
      TimeNs total = 0;
      for (const auto& f : rd.other) total += f.time;
      out += fmt::format("  not in the model: {} kernel families, {}: {}\n", rd.other.size(),
                         format_time(to_seconds(total)), family_list(rd.other, 5));
    }
    if (kernels) out += format_category_kernels(rd, most);
  }
  return out;
}

nlohmann::json measured_diff_to_json(const MeasuredDiff& d) {
  nlohmann::json j;
  j["scenario"] = d.scenario;
  j["gpu"] = d.gpu;
  j["schedule"] = d.schedule;
  j["durations"] = d.cost_sources;
  j["notes"] = d.notes;
  j["ranks"] = nlohmann::json::array();
  for (const RankDiff& rd : d.ranks) {
    nlohmann::json r;
    r["rank"] = rd.rank;
    r["pipeline_rank"] = rd.stage;
    r["trace"] = rd.file;
    r["step"] = rd.step;
    r["device"] = rd.device;
    for (const DiffRow& row : rd.rows) {
      nlohmann::json v{{"measured_s", row.measured_s}};
      if (row.predicted_known) {
        v["predicted_s"] = row.predicted_s;
        // No relative error of nothing measured (the text's "-"), not a 0 % one.
        v["error"] = row.measured_s > 0 ? nlohmann::json(row.error()) : nlohmann::json(nullptr);
      } else {
        v["predicted_s"] = nullptr;
      }
      r[row.what] = v;
    }
    auto families = [](const std::vector<FamilyTime>& fs) {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& f : fs)
        a.push_back({{"name", f.family}, {"count", f.count}, {"time_s", to_seconds(f.time)}});
      return a;
    };
    r["collectives"] = families(rd.collectives);
    r["not_in_model"] = families(rd.other);
    r["largest_differences"] = nlohmann::json::array();
    for (const DiffRow* row : largest_differences(rd))
      r["largest_differences"].push_back(
          {{"part", row->what}, {"difference_s", row->predicted_s - row->measured_s}});
    nlohmann::json ks = nlohmann::json::object();
    for (const CategoryKernels& ck : rd.kernels) {
      nlohmann::json predicted = nlohmann::json::array();
      for (const auto& k : ck.predicted)
        predicted.push_back({{"name", k.name}, {"runs", k.runs}, {"time_s", k.seconds}});
      ks[ck.what] = {{"measured", families(ck.measured)}, {"predicted", predicted}};
    }
    r["kernels"] = ks;
    j["ranks"].push_back(r);
  }
  return j;
}

void write_measured_trace_file(const Timeline& tl, const std::vector<TorchTrace>& traces,
                               const std::vector<int>& steps, const std::string& path) {
  TRAINSIM_CHECK(traces.size() == steps.size(), "one step index per trace");
  std::ostringstream sim;
  write_chrome_trace(tl, sim);
  nlohmann::json j = nlohmann::json::parse(sim.str());
  auto& ev = j["traceEvents"];
  // Measured processes sort after the simulated ranks: pids past any simulated rank.
  const int base = tl.scenario.layout.world() + 1000;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const TorchTrace& t = traces[i];
    const auto& st = t.steps[static_cast<std::size_t>(steps[i])];
    const int pid = base + static_cast<int>(i);
    ev.push_back(
        {{"ph", "M"},
         {"name", "process_name"},
         {"pid", pid},
         {"tid", 0},
         {"args", {{"name", fmt::format("measured rank {} · {} · {}", t.rank, st.name, t.file)}}}});
    ev.push_back({{"ph", "M"},
                  {"name", "process_sort_index"},
                  {"pid", pid},
                  {"tid", 0},
                  {"args", {{"sort_index", base + static_cast<int>(i)}}}});
    std::set<int> streams;
    for (const TraceKernel& k : t.kernels) {
      if (k.step != steps[i]) continue;
      if (streams.insert(k.stream).second)
        ev.push_back({{"ph", "M"},
                      {"name", "thread_name"},
                      {"pid", pid},
                      {"tid", k.stream},
                      {"args", {{"name", fmt::format("stream {}", k.stream)}}}});
      const double ts = static_cast<double>(k.start - st.gpu_begin + kTraceOriginNs) / 1e3;
      nlohmann::json args{{"category", kernel_category_name(k.kind.category)}};
      if (!k.kind.collective.empty()) args["collective"] = k.kind.collective;
      if (k.collective >= 0)
        args["bytes"] = t.collectives[static_cast<std::size_t>(k.collective)].bytes;
      if (k.shape >= 0) {
        const auto& g = t.gemm_shapes[static_cast<std::size_t>(k.shape)];
        args["mnk"] = fmt::format("{}x{}x{}", g.m, g.n, g.k);
      }
      ev.push_back({{"ph", "X"},
                    {"name", t.names[k.name]},
                    {"cat", kernel_category_name(k.kind.category)},
                    {"pid", pid},
                    {"tid", k.stream},
                    {"ts", ts},
                    {"dur", static_cast<double>(k.dur) / 1e3},
                    {"args", args}});
    }
  }
  write_output(path, "trace file", [&](std::ostream& out) { out << j.dump() << "\n"; });
}

}  // namespace trainsim
