#include "report/step_split.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace trainsim {
namespace {

// The settings a split's runs must share: not the run's name, its labels, its price, its figure
// or its scale.
bool compared(const std::string& key) {
  const auto& scale = scale_keys();
  return compared_setting(key) && std::find(scale.begin(), scale.end(), key) == scale.end();
}

bool same_but_scale(const CheckedCase& a, const CheckedCase& b) {
  // setting_values lists the same keys, in the same order, for every scenario.
  assert(a.settings.size() == b.settings.size());
  for (std::size_t k = 0; k < a.settings.size(); ++k) {
    assert(a.settings[k].first == b.settings[k].first);
    if (a.settings[k].second != b.settings[k].second && compared(a.settings[k].first)) return false;
  }
  return true;
}

// Least squares of y = a + b · x over the points; {a, b}. Needs two distinct x.
std::pair<double, double> fit(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
  }
  const double mx = sx / n, my = sy / n;
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  assert(sxx > 0);
  const double b = sxy / sxx;
  return {my - b * mx, b};
}

}  // namespace

const std::vector<std::string>& scale_keys() {
  static const std::vector<std::string> keys = {
      "parallelism.dp", "cluster.nodes", "training.global_batch_size", "training.microbatches"};
  return keys;
}

double measured_step_time(const CheckedCase& c) {
  return c.step.step_time_s / (1 + c.accuracy.step_time_error);
}

std::vector<StepSplit> step_splits(const std::vector<CheckedCase>& cases) {
  const std::map<std::string, std::vector<std::size_t>> of = series_with_settings(cases);
  const auto name = [&](std::size_t i) -> const std::string& {
    return cases[i].step.scenario_name;
  };
  std::vector<StepSplit> out;
  for (const auto& [series, runs] : of) {
    // Each run joins the first group whose first run it matches but for scale.
    std::vector<std::vector<std::size_t>> groups;
    for (std::size_t i : runs) {
      auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& group) {
        return same_but_scale(cases[group.front()], cases[i]);
      });
      if (g == groups.end())
        groups.push_back({i});
      else
        g->push_back(i);
    }
    const std::size_t first = out.size();
    for (auto& group : groups) {
      std::set<int> counts;
      for (std::size_t i : group) counts.insert(cases[i].step.microbatches);
      if (counts.size() < 2) continue;
      std::sort(group.begin(), group.end(), [&](std::size_t a, std::size_t b) {
        return cases[a].step.microbatches != cases[b].step.microbatches
                   ? cases[a].step.microbatches < cases[b].step.microbatches
                   : name(a) < name(b);
      });
      std::vector<double> n, measured, predicted;
      for (std::size_t i : group) {
        n.push_back(cases[i].step.microbatches);
        measured.push_back(measured_step_time(cases[i]));
        predicted.push_back(cases[i].step.step_time_s);
      }
      StepSplit s;
      s.series = series;
      s.runs = group;
      std::tie(s.measured_per_step, s.measured_per_microbatch) = fit(n, measured);
      std::tie(s.predicted_per_step, s.predicted_per_microbatch) = fit(n, predicted);
      for (std::size_t k = 0; k < n.size(); ++k)
        s.max_residual = std::max(s.max_residual, std::abs(measured[k] - s.measured_per_step -
                                                           n[k] * s.measured_per_microbatch));
      out.push_back(std::move(s));
    }
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
              [&](const StepSplit& p, const StepSplit& q) {
                return name(p.runs.front()) < name(q.runs.front());
              });
  }
  return out;
}

}  // namespace trainsim
