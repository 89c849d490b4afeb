#include "search/layout_search.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/quantity.h"
#include "report/memory_report.h"
#include "report/report_format.h"
#include "run/simulate.h"
#include "scenario/scenario_loader.h"
#include "schedules/registry.h"

namespace trainsim {
namespace {

void require_positive(const std::vector<int>& values, const char* what) {
  for (int v : values)
    if (v < 1) throw InputError(fmt::format("search: {} must be 1 or more, got {}", what, v));
}

std::string layouts(std::size_t n) {
  return fmt::format("{} layout{}", n, n == 1 ? "" : "s");
}

std::string layout_words(const LayoutCandidate& c) {
  std::string s = fmt::format("dp {} · tp {} · pp {}", c.dp, c.tp, c.pp);
  if (c.vpp > 1) s += fmt::format(" · vpp {}", c.vpp);
  s += fmt::format(" · b {}", c.micro_batch_size);
  if (!c.schedule.empty()) s += " · " + c.schedule;
  return s;
}

}  // namespace

std::vector<std::string> LayoutCandidate::overrides() const {
  return {fmt::format("parallelism.dp={}", dp), fmt::format("parallelism.tp={}", tp),
          fmt::format("parallelism.pp={}", pp), fmt::format("parallelism.vpp={}", vpp),
          fmt::format("training.micro_batch_size={}", micro_batch_size)};
}

std::vector<LayoutCandidate> layout_candidates(const Scenario& base, const SearchSpace& space) {
  if (!base.model)
    throw InputError(
        "search needs a model: a costs-only scenario's durations do not change with the layout");
  if (!base.has_cluster)
    throw InputError(
        "search needs a cluster: the GPUs to lay out come from cluster.nodes × "
        "cluster.gpus_per_node");
  require_positive(space.tp, "--tp");
  require_positive(space.pp, "--pp");
  require_positive(space.vpp, "--vpp");
  require_positive(space.micro_batch_sizes, "--micro-batch-sizes");
  for (const auto& name : space.schedules) find_schedule(name);  // unknown names fail here

  const int gpus = base.cluster.gpus();
  std::vector<int> tps = space.tp;
  if (tps.empty())
    for (int t = 1; t <= base.cluster.gpus_per_node; t *= 2)
      if (gpus % t == 0) tps.push_back(t);
  const std::vector<int> vpps = space.vpp.empty() ? std::vector<int>{base.layout.vpp} : space.vpp;
  const std::vector<int> mbs = space.micro_batch_sizes.empty()
                                   ? std::vector<int>{base.training.micro_batch_size}
                                   : space.micro_batch_sizes;
  const std::vector<std::string> schedules =
      space.schedules.empty() ? std::vector<std::string>{""} : space.schedules;

  std::vector<LayoutCandidate> out;
  for (int tp : tps) {
    if (gpus % tp != 0) continue;
    std::vector<int> pps = space.pp;
    if (pps.empty())
      for (int p = 1; p <= gpus / tp; ++p)
        if ((gpus / tp) % p == 0) pps.push_back(p);
    for (int pp : pps) {
      if (gpus % (tp * pp) != 0) continue;
      const int dp = gpus / (tp * pp);
      for (int vpp : vpps)
        for (int b : mbs) {
          // The global batch stays what the scenario says: dp · b must divide it.
          if (base.training.global_batch_size % (dp * b) != 0) continue;
          for (const auto& sched : schedules) out.push_back({dp, tp, pp, vpp, b, sched});
        }
    }
  }
  if (out.empty())
    throw InputError(
        fmt::format("search: no layout to try: tp × pp must divide the cluster's {} GPUs and dp × "
                    "micro-batch size must divide the global batch of {} sequences",
                    gpus, base.training.global_batch_size));
  return out;
}

std::vector<SearchResult> search_layouts(
    const Scenario& base, const SearchSpace& space,
    const std::function<void(std::size_t, std::size_t)>& progress) {
  const std::vector<LayoutCandidate> candidates = layout_candidates(base, space);
  std::vector<SearchResult> results;
  results.reserve(candidates.size());
  for (const LayoutCandidate& c : candidates) {
    SearchResult r;
    r.layout = c;
    try {
      // The base scenario's text plus this layout, validated again by the loader.
      std::vector<std::string> sets = c.overrides();
      sets.push_back(fmt::format("training.global_batch_size={}", base.training.global_batch_size));
      sets.push_back(fmt::format("training.microbatches={}",
                                 base.training.global_batch_size / (c.dp * c.micro_batch_size)));
      const Scenario sc = parse_scenario(base.canonical_yaml, base.source, sets);
      const Timeline tl = simulate(sc, {c.schedule, true});
      r.report = make_report(tl);
      const MemoryReport mem = make_memory_report(tl);
      r.peak_memory = mem.largest_peak();
      r.out_of_memory = !mem.out_of_memory.empty();
    } catch (const InputError& e) {
      r.error = e.what();
    }
    results.push_back(std::move(r));
    if (progress) progress(results.size(), candidates.size());
  }
  // Fitting first, then out of memory, then those that cannot run; fastest first within each.
  const auto group = [](const SearchResult& r) { return !r.ran() ? 2 : r.out_of_memory ? 1 : 0; };
  std::stable_sort(results.begin(), results.end(),
                   [&](const SearchResult& a, const SearchResult& b) {
                     if (group(a) != group(b)) return group(a) < group(b);
                     return a.ran() && a.report.step_time_s < b.report.step_time_s;
                   });
  return results;
}

std::string format_search(const Scenario& base, const std::vector<SearchResult>& results,
                          std::size_t top) {
  std::size_t fit = 0, oom = 0, failed = 0;
  for (const auto& r : results) (!r.ran() ? failed : r.out_of_memory ? oom : fit) += 1;
  std::string o = fmt::format(
      "search {} · {} GPUs × {} · {} sequences of {} tokens per step\n{}: {} fit, {} out of "
      "memory, {} cannot run\n\n",
      base.name, base.cluster.gpus(), base.cluster.gpu.name, base.training.global_batch_size,
      base.training.seq_len, layouts(results.size()), fit, oom, failed);
  if (fit > 0) {
    std::size_t sw = 8;
    for (const auto& r : results)
      if (r.ran()) sw = std::max(sw, r.report.schedule.size());
    const std::string line =
        "{:>3} {:>5} {:>3} {:>3} {:>3} {:>3} {:>5}  {:<{}} {:>10} {:>6} {:>11} {:>7} {:>7} "
        "{:>11}\n";
    o += fmt::format(fmt::runtime(line), "#", "dp", "tp", "pp", "vpp", "b", "m", "schedule", sw,
                     "step time", "MFU", "tokens/s", "bubble", "comm", "GPU memory");
    for (std::size_t i = 0; i < std::min(fit, top); ++i) {
      const SearchResult& r = results[i];
      const LayoutCandidate& c = r.layout;
      o += fmt::format(
          fmt::runtime(line), i + 1, c.dp, c.tp, c.pp, c.vpp, c.micro_batch_size,
          r.report.microbatches, r.report.schedule, sw, format_time(r.report.step_time_s),
          r.report.mfu ? fmt::format("{:.1f}%", *r.report.mfu * 100) : "-",
          thousands(r.report.tokens_per_s), fmt::format("{:.4f}", r.report.bubble_fraction_of_step),
          fmt::format("{:.4f}", r.report.pipeline_time_s > 0
                                    ? r.report.idle.communication_s / r.report.pipeline_time_s
                                    : 0.0),
          format_bytes(r.peak_memory));
    }
    if (fit > top) o += fmt::format("… and {} more that fit (--top N shows more)\n", fit - top);
    o += "bubble: the schedule's own idle / a balanced pipeline's time; comm: stage idle waiting "
         "on communication / pipeline phase; GPU memory: the peak of the fullest GPU\n";
  } else {
    o += "no layout fits in memory\n";
  }
  if (oom > 0) {
    const SearchResult& r = results[fit];
    o += fmt::format("out of memory: {}; the fastest, {}, takes {} but needs {} of the GPU's {}\n",
                     layouts(oom), layout_words(r.layout), format_time(r.report.step_time_s),
                     format_bytes(r.peak_memory), format_bytes(base.cluster.gpu.memory));
  }
  if (failed > 0) {
    // Group the reasons: messages that differ only in their numbers are one reason.
    struct Reason {
      std::string shape;
      const SearchResult* first;
      std::size_t count;
    };
    std::vector<Reason> reasons;
    for (std::size_t i = fit + oom; i < results.size(); ++i) {
      std::string shape;
      for (char ch : results[i].error)
        if (!std::isdigit(static_cast<unsigned char>(ch)))
          shape += ch;
        else if (shape.empty() || shape.back() != '#')
          shape += '#';
      auto it = std::find_if(reasons.begin(), reasons.end(),
                             [&](const Reason& r) { return r.shape == shape; });
      if (it == reasons.end())
        reasons.push_back({shape, &results[i], 1});
      else
        ++it->count;
    }
    std::stable_sort(reasons.begin(), reasons.end(),
                     [](const Reason& a, const Reason& b) { return a.count > b.count; });
    o += fmt::format("cannot run: {} (all in --json), for {} reason{}:\n", layouts(failed),
                     reasons.size(), reasons.size() == 1 ? "" : "s");
    for (std::size_t i = 0; i < std::min<std::size_t>(reasons.size(), 3); ++i)
      o += fmt::format("  {} like {}: {}\n", layouts(reasons[i].count),
                       layout_words(reasons[i].first->layout), reasons[i].first->error);
    if (reasons.size() > 3) o += fmt::format("  … and {} more reasons\n", reasons.size() - 3);
  }
  return o;
}

nlohmann::json search_to_json(const Scenario& base, const std::vector<SearchResult>& results) {
  nlohmann::json j;
  j["scenario"] = base.source.empty() ? base.name : base.source;
  j["gpus"] = base.cluster.gpus();
  j["results"] = nlohmann::json::array();
  for (const auto& r : results) {
    const LayoutCandidate& c = r.layout;
    nlohmann::json one;
    one["layout"] = {{"dp", c.dp},
                     {"tp", c.tp},
                     {"pp", c.pp},
                     {"vpp", c.vpp},
                     {"micro_batch_size", c.micro_batch_size},
                     {"schedule", c.schedule.empty() ? base.schedule.name : c.schedule}};
    one["ran"] = r.ran();
    one["error"] = r.error;
    one["out_of_memory"] = r.out_of_memory;
    one["peak_memory_bytes"] = r.peak_memory;
    one["report"] = r.ran() ? report_to_json(r.report) : nlohmann::json(nullptr);
    j["results"].push_back(std::move(one));
  }
  return j;
}

}  // namespace trainsim
