#pragma once
// Helpers shared by the tests: scenarios from inline YAML, and a costs-only pipeline study.
#include <string>

#include <fmt/format.h>

#include "core/error.h"
#include "run/simulate.h"
#include "scenario/scenario_loader.h"
#include "schedules/registry.h"

namespace trainsim::test {

inline Scenario yaml(const std::string& text) {
  return parse_scenario(text, "test.yaml");
}

/// A costs-only pipeline: p stages, m micro-batches, F and B in ms, p2p in ms (no model).
inline Scenario pipeline(int p, int m, double f_ms, double b_ms, double p2p_ms = 0,
                         const std::string& schedule = "1f1b") {
  return yaml(
      fmt::format("parallelism: {{pp: {}}}\ntraining: {{microbatches: {}}}\nschedule: {}\n"
                  "costs: {{forward: {}ms, backward: {}ms, p2p: {}ms}}\n",
                  p, m, schedule, f_ms, b_ms, p2p_ms));
}

/// Llama-3.1-8B at tp 4 · dp 3 on two nodes of 6 GPUs: the TP group of global ranks 4–7 (dp 1)
/// straddles the nodes, its collectives over the network, so the ranks are simulated apart and
/// that group finishes the pipeline last.
inline Scenario straddling_tp() {
  return yaml(R"(model: llama-3.1-8b
training: {seq_len: 2048, global_batch_size: 12, micro_batch_size: 1}
cluster: {gpu: h100-sxm, gpus_per_node: 6, nodes: 2}
parallelism: {dp: 3, tp: 4}
)");
}

/// Makespan of a scenario under `schedule`, in nanoseconds.
inline TimeNs makespan(const Scenario& s, const std::string& schedule = "") {
  return simulate(s, {schedule, true}).makespan;
}

/// Calls f(name, p, v, schedule) for every built-in schedule at p ∈ {2, 4}, v ∈ {1, 2} and
/// m = 2p, skipping the (name, v) a generator does not define, and with `skip_chains` the
/// schedules of several pipelines (DualPipe).
template <class F>
void for_each_builtin_schedule(F&& f, bool skip_chains = false) {
  for (const auto& e : schedule_entries())
    for (int v : {1, 2})
      for (int p : {2, 4}) {
        Schedule s;
        try {
          s = make_schedule(e.name, {p, 2 * p, v, {}, {}});
        } catch (const ScheduleError&) {
          continue;  // not defined for this v
        }
        if (s.chains > 1 && skip_chains) continue;
        f(std::string(e.name), p, v, s);
      }
}

}  // namespace trainsim::test
