#include "schedules/registry.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "core/suggest.h"
#include "schedules/generators.h"
#include "schedules/validate.h"
#include "schedules/zb_auto.h"

namespace trainsim {
namespace {

std::vector<int> v_shape(int pp, int /*vpp, always 2*/) {
  return v_placement(pp);
}

std::vector<int> dual_pipelines(int pp, int /*vpp, always 1*/) {
  return dualpipe_placement(pp);
}

const std::vector<ScheduleEntry>& entries() {
  static const std::vector<ScheduleEntry> kEntries{
      {"afab", {"gpipe"}, "all forwards, then all backwards (GPipe)", &generate_afab, {}},
      {"1f1b",
       {"one-f-one-b", "pipedream-flush"},
       "one forward, one backward (PipeDream-Flush); overlap_f_b (pp 1): steady-state F&B pairs",
       &generate_1f1b,
       {"overlap_f_b"}},
      {"interleaved-1f1b",
       {"interleaved", "megatron-interleaved"},
       "Megatron interleaved 1F1B: v chunks per rank, depth-first groups; overlap_f_b: "
       "steady-state F&B pairs",
       &generate_interleaved_1f1b,
       {"group_size", "overlap_f_b"},
       false,
       2,
       kAnyChunks},
      {"zb-h1",
       {"zero-bubble-h1"},
       "Zero Bubble H1: split backward, deferred W, 1F1B memory",
       &generate_zb_h1,
       {}},
      {"zb-h2",
       {"zero-bubble-h2"},
       "Zero Bubble H2: split backward, 2p-1 micro-batches in flight",
       &generate_zb_h2,
       {},
       false,
       1,
       1,
       nullptr,
       1,
       [](int pp) { return 2 * pp - 1; },
       "its warm-up runs short of 2p − 1 forwards, so it may gain nothing over zb-h1 (or "
       "lose to it) while holding more activations"},
      {"zb-v",
       {"zero-bubble-v", "zbv"},
       "Zero Bubble V: two chunks per rank in a V, split backward, 1F1B memory",
       &generate_zb_v,
       {},
       false,
       2,
       2,
       &v_shape},
      {"dualpipe-v",
       {"dualpipev"},
       "DeepSeek DualPipeV: V placement, overlapped forward+backward chunk pairs",
       &generate_dualpipe_v,
       {},
       false,
       2,
       2,
       &v_shape},
      {"dualpipe",
       {"dual-pipe"},
       "DeepSeek DualPipe: two pipelines in opposite directions over a copy of the model each, "
       "overlapped forward+backward pairs",
       &generate_dualpipe,
       {},
       false,
       1,
       1,
       &dual_pipelines,
       2},
      {"zb-auto",
       {"zero-bubble-auto"},
       "Zero Bubble automatic: searched with real costs under memory_limit (default pp); "
       "vpp 2: V-shaped",
       &generate_zb_auto,
       {"memory_limit", "input_frees"},
       true,
       1,
       2,
       &zb_auto_placement},
      {"looped-bfs",
       {"bfs"},
       "breadth-first looping over v chunks per rank",
       &generate_looped_bfs,
       {},
       false,
       2,
       kAnyChunks},
  };
  return kEntries;
}

}  // namespace

std::span<const ScheduleEntry> schedule_entries() {
  return entries();
}

std::vector<std::string> schedule_names() {
  std::vector<std::string> names;
  for (const auto& e : entries()) names.emplace_back(e.name);
  return names;
}

const ScheduleEntry& find_schedule(const std::string& name) {
  for (const auto& e : entries()) {
    if (name == e.name) return e;
    for (const auto& a : e.aliases)
      if (name == a) return e;
  }
  // A slip ("1F1B", "dualpipe_v") is named: the nearest schedule, or the one an alias is of.
  std::vector<std::string> known;
  for (const auto& e : entries()) {
    known.push_back(e.name);
    known.insert(known.end(), e.aliases.begin(), e.aliases.end());
  }
  std::string hint;
  if (const auto near = nearest_name(name, known))
    for (const auto& e : entries())
      if (*near == e.name ||
          std::find(e.aliases.begin(), e.aliases.end(), *near) != e.aliases.end())
        hint = fmt::format(" (did you mean {}?)", e.name);
  throw ScheduleError(fmt::format("unknown schedule \"{}\"{}; registered: {}", name, hint,
                                  fmt::join(schedule_names(), ", ")));
}

Schedule make_schedule(const std::string& name, const ScheduleParams& params) {
  const ScheduleEntry& e = find_schedule(name);
  for (const auto& [key, value] : params.options) {
    bool known = false;
    for (const auto& o : e.options) known = known || o == key;
    if (!known)
      throw ScheduleError(
          fmt::format("schedule {} has no option \"{}\"; its options: {}", e.name, key,
                      e.options.empty() ? "none" : fmt::format("{}", fmt::join(e.options, ", "))),
          key);
  }
  if (params.pp < 1 || params.microbatches < 1 || params.vpp < 1)
    throw ScheduleError(
        fmt::format("{} needs pp >= 1, microbatches >= 1, vpp >= 1; got pp = {}, "
                    "m = {}, vpp = {}",
                    e.name, params.pp, params.microbatches, params.vpp));
  check_schedule_size(e.name, static_cast<long long>(params.pp) * params.vpp * e.chains,
                      params.microbatches);
  Schedule s = e.generate(params);
  s.name = e.name;
  validate_schedule(s);
  return s;
}

}  // namespace trainsim
