#include "report/setting_changes.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "report/ranking.h"

namespace trainsim {

std::vector<SettingChange> setting_changes(const std::vector<CheckedCase>& cases,
                                           std::size_t max_keys) {
  const std::map<std::string, std::vector<std::size_t>> of = series_with_settings(cases);
  const auto name = [&](std::size_t i) -> const std::string& {
    return cases[i].step.scenario_name;
  };
  std::vector<SettingChange> out;
  for (const auto& [series, runs] : of) {
    const std::size_t first = out.size();
    for (std::size_t x = 0; x < runs.size(); ++x)
      for (std::size_t y = x + 1; y < runs.size(); ++y) {
        const CheckedCase &a = cases[runs[x]], &b = cases[runs[y]];
        assert(a.step.tokens_per_s > 0 && b.step.tokens_per_s > 0);  // check's cases have a model
        // setting_values lists the same keys, in the same order, for every scenario.
        assert(a.settings.size() == b.settings.size());
        std::vector<SettingChange::Key> keys;
        for (std::size_t k = 0; k < a.settings.size() && keys.size() <= max_keys; ++k) {
          assert(a.settings[k].first == b.settings[k].first);
          if (a.settings[k].second != b.settings[k].second && compared_setting(a.settings[k].first))
            keys.push_back({a.settings[k].first, a.settings[k].second, b.settings[k].second});
        }
        if (keys.empty() || keys.size() > max_keys) continue;
        // From the run measured cheaper: swap the pair (and each setting's two values) if need be.
        std::size_t from = runs[x], to = runs[y];
        const double ma = gpu_seconds_per_token(a, true), mb = gpu_seconds_per_token(b, true);
        if (ma == mb) continue;  // a measured tie: no direction to get
        if (mb < ma) {
          std::swap(from, to);
          for (auto& k : keys) std::swap(k.from, k.to);
        }
        SettingChange c;
        c.series = series;
        c.from = from;
        c.to = to;
        c.keys = std::move(keys);
        c.measured =
            gpu_seconds_per_token(cases[to], true) / gpu_seconds_per_token(cases[from], true);
        c.predicted =
            gpu_seconds_per_token(cases[to], false) / gpu_seconds_per_token(cases[from], false);
        out.push_back(std::move(c));
      }
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
              [&](const SettingChange& p, const SettingChange& q) {
                return name(p.from) != name(q.from) ? name(p.from) < name(q.from)
                                                    : name(p.to) < name(q.to);
              });
  }
  return out;
}

ChangeSummary summarize(const std::vector<SettingChange>& changes) {
  ChangeSummary sum;
  for (const SettingChange& c : changes) {
    ++sum.changes;
    sum.direction_right += c.predicted > 1;
    const double e = std::abs(c.predicted - c.measured);
    sum.mean_abs_error += e;
    sum.max_abs_error = std::max(sum.max_abs_error, e);
  }
  if (sum.changes > 0) sum.mean_abs_error /= sum.changes;
  return sum;
}

}  // namespace trainsim
