#include "run/variants.h"

#include <map>

#include <fmt/format.h>

#include "core/error.h"
#include "scenario/validate_scenario.h"
#include "schedules/registry.h"

namespace trainsim {

std::string VariantResult::label() const {
  const std::string name =
      retried ? fmt::format("{} (vpp {})", schedule, timeline->scenario.layout.vpp) : schedule;
  return scenario.empty() ? name : fmt::format("{} · {}", scenario, name);
}

std::vector<VariantResult> simulate_schedules(const Scenario& base,
                                              const std::vector<std::string>& schedules,
                                              const SimulateOptions& opt) {
  for (const auto& name : schedules) find_schedule(name);  // unknown names fail before any work
  std::vector<VariantResult> out;
  out.reserve(schedules.size());
  for (const auto& name : schedules) {
    VariantResult r;
    r.schedule = name;
    SimulateOptions o = opt;
    o.schedule = name;
    try {
      r.timeline = std::make_shared<const Timeline>(simulate(base, o));
    } catch (const InputError& first) {
      r.error = first.what();
      // The one retry rule: a schedule that does not take the scenario's chunks per rank runs
      // at the nearest count it takes (registry.h), on a copy validated again.
      const ScheduleEntry& entry = find_schedule(name);
      if (!entry.accepts_chunks(base.layout.vpp)) {
        Scenario other = base;
        other.layout.vpp = entry.nearest_chunks(base.layout.vpp);
        const std::string by = fmt::format("{} at vpp {} (it cannot run at vpp {})", name,
                                           other.layout.vpp, base.layout.vpp);
        other.set_origin("parallelism.vpp", by);
        other.canonical_yaml += fmt::format("\n# {}\n", by);
        try {
          validate(other);
          r.timeline = std::make_shared<const Timeline>(simulate(other, o));
          r.retried = true;
          r.error.clear();
        } catch (const InputError& second) {  // both say why it cannot run here
          r.error += fmt::format("; at vpp {}: {}", other.layout.vpp, second.what());
        }
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<VariantResult> simulate_scenarios(const std::vector<Scenario>& scenarios,
                                              const std::vector<std::string>& schedules,
                                              const SimulateOptions& opt) {
  for (const auto& name : schedules) find_schedule(name);  // unknown names fail before any work
  std::vector<VariantResult> out;
  std::map<std::string, int> seen;  // a name given twice (two default.yaml): "default (2)"
  for (const Scenario& sc : scenarios) {
    const int n = ++seen[sc.name];
    const std::string name = n == 1 ? sc.name : fmt::format("{} ({})", sc.name, n);
    std::vector<VariantResult> rows;
    if (schedules.empty()) {  // its own schedule (a CSV one included), as `trainsim run` runs it
      VariantResult r;
      r.schedule = sc.schedule.name;
      SimulateOptions o = opt;
      o.schedule.clear();
      try {
        r.timeline = std::make_shared<const Timeline>(simulate(sc, o));
      } catch (const InputError& e) {
        r.error = e.what();
      }
      rows.push_back(std::move(r));
    } else {
      rows = simulate_schedules(sc, schedules, opt);
    }
    for (VariantResult& r : rows) {
      r.scenario = name;
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace trainsim
