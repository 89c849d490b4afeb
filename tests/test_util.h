#pragma once
// Helpers shared by the tests: scenarios from inline YAML, and a costs-only pipeline study.
#include <string>

#include <fmt/format.h>

#include "run/simulate.h"
#include "scenario/scenario_loader.h"

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

/// Makespan of a scenario under `schedule`, in nanoseconds.
inline TimeNs makespan(const Scenario& s, const std::string& schedule = "") {
  return simulate(s, {schedule, true}).makespan;
}

}  // namespace trainsim::test
