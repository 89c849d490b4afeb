#include "run/variants.h"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <yaml-cpp/yaml.h>

#include "core/error.h"
#include "scenario/scenario_loader.h"
#include "scenario/scenario_schema.h"
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

std::vector<Variant> vary(const std::vector<std::string>& specs, const Scenario* base) {
  std::vector<Variant> out{{}};
  std::map<std::string, std::string> given;  // key → the spec that varies it
  for (const std::string& spec : specs) {
    const auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      throw InputError(
          fmt::format("--vary {}: expected key.path=v1,v2,… (e.g. parallelism.zero=0,1,3)", spec));
    const std::string key = spec.substr(0, eq), list = spec.substr(eq + 1);
    // Each key once: a second spec would overwrite the first's value in every variant.
    if (const auto [at, fresh] = given.emplace(key, spec); !fresh)
      throw InputError(fmt::format(
          "--vary {}: {} is already varied by --vary {}; give its values once ({}=a,b,…)", spec,
          key, at->second, key));
    // A key no edit can set fails here, once, not in every variant.
    // The keys that rebuild the scenario (a model, a GPU preset, the schedule) have other ways
    // to be compared side by side: say which.
    if (const auto why = edit_refusal(key)) {
      const bool rebuilds = key == "model" || key == "model.preset" || key == "cluster.gpu" ||
                            key == "cluster.gpu.preset" || key == "schedule";
      throw ScenarioError(
          "--vary " + spec, key,
          rebuilds ? *why + "; to compare " +
                         (key == "schedule" ? std::string("schedules, use --schedules A,B")
                                            : std::string("models or GPUs, compare one file "
                                                          "for each (trainsim compare A.yaml "
                                                          "B.yaml)"))
                   : *why);
    }
    std::vector<std::string> values;
    if (list.front() == '[') {  // YAML flow: commas may sit inside quoted values
      YAML::Node n;
      try {
        n = YAML::Load(list);
      } catch (const YAML::Exception& e) {
        throw InputError(fmt::format("--vary {}: not a valid YAML list: {}", spec, e.msg));
      }
      if (!n.IsSequence() || n.size() == 0)
        throw InputError(fmt::format("--vary {}: expected a non-empty list of values", spec));
      for (const auto& v : n) {
        if (!v.IsScalar())
          throw InputError(fmt::format("--vary {}: each value must be a scalar", spec));
        values.push_back(v.Scalar());
      }
    } else {
      for (std::size_t a = 0, b; a <= list.size(); a = b + 1) {
        b = std::min(list.find(',', a), list.size());
        values.push_back(list.substr(a, b - a));
        if (values.back().empty())
          throw InputError(fmt::format("--vary {}: an empty value in the list", spec));
      }
    }
    // Each value read by its key's rule on the scenario it will edit: one the rule refuses
    // (a misspelt enum, a number out of range) is bad input, not a variant that cannot run.
    if (base)
      for (const std::string& value : values) {
        Scenario probe = *base;
        set_value(probe, key + "=" + value, "--vary " + key + "=" + value);
      }
    std::vector<Variant> next;
    for (const Variant& v : out)
      for (const std::string& value : values) {
        Variant w = v;
        w.edits.push_back(key + "=" + value);
        w.label += (w.label.empty() ? "" : ", ") + key + "=" + value;
        next.push_back(std::move(w));
      }
    out = std::move(next);
  }
  if (specs.empty()) return {};
  // A variant that changes the layout's other degrees (or the GPU count) but not dp keeps the
  // GPUs busy: dp becomes the GPUs over tp · pp · cp where that divides, as a row says
  // ("parallelism.pp=2 (dp 4)"); where it does not, the variant stays as given and its row says
  // why it cannot run.
  if (base && base->has_cluster && !given.count("parallelism.dp"))
    for (Variant& v : out) {
      Scenario probe = *base;
      try {
        for (const std::string& edit : v.edits) set_value(probe, edit, "--vary " + edit);
      } catch (const InputError&) {
        continue;  // edits that cannot go together: the variant's row says why
      }
      const std::optional<int> dp = dp_filling_gpus(probe);
      if (!dp) continue;
      v.edits.push_back(fmt::format("parallelism.dp={}", *dp));
      v.label += fmt::format(" (dp {})", *dp);
    }
  return out;
}

Scenario variant_scenario(const Scenario& base, const Variant& v) {
  Scenario sc = base;
  if (!v.label.empty()) sc.name = v.label;
  for (const std::string& edit : v.edits) {
    set_value(sc, edit, "--vary " + edit);
    sc.canonical_yaml += fmt::format("\n# --vary {}\n", edit);
  }
  if (v.edit) v.edit(sc);
  validate(sc);
  return sc;
}

std::vector<VariantResult> simulate_variants(const Scenario& base,
                                             const std::vector<Variant>& variants,
                                             const std::vector<std::string>& schedules,
                                             const SimulateOptions& opt, int jobs) {
  for (const auto& name : schedules) find_schedule(name);  // unknown names fail before any work
  const auto rows = map_variants<std::vector<VariantResult>>(
      base, variants, jobs,
      [&](std::size_t, const Scenario& sc) { return simulate_scenarios({sc}, schedules, opt); },
      [&](std::size_t i, const InputError& e) {  // this variant cannot be: a row, the others run
        VariantResult r;
        r.scenario = variants[i].label;
        r.schedule =
            schedules.empty() ? base.schedule.name : fmt::format("{}", fmt::join(schedules, ", "));
        r.error = e.what();
        return std::vector<VariantResult>{std::move(r)};
      });
  std::vector<VariantResult> out;
  for (const auto& group : rows)
    for (const VariantResult& r : group) out.push_back(r);
  return out;
}

}  // namespace trainsim
