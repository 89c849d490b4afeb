#include "report/ranking.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <map>
#include <vector>

namespace trainsim {
namespace {

// `x` to 12 significant digits. The measured cost comes back from the step-time error through
// two divisions, so two runs published at the same figure can differ in their last bits; a
// published figure has far fewer digits than 12, so rounding makes them equal again (a tie)
// without merging figures that differ.
double significant12(double x) {
  if (!(x > 0) || !std::isfinite(x)) return x;
  const double scale = std::pow(10.0, 11 - std::floor(std::log10(x)));
  return std::round(x * scale) / scale;
}

// The median of `v` (not empty): the middle value, or the mean of the two middle ones.
double median(std::vector<double> v) {
  assert(!v.empty());
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

double gpu_seconds_per_token(const CheckedCase& c, bool measured) {
  const double predicted = c.step.gpus / c.step.tokens_per_s;
  // step_time_error = predicted step / measured step − 1, for the same tokens and GPUs.
  return measured ? significant12(predicted / (1 + c.accuracy.step_time_error)) : predicted;
}

std::vector<SeriesRanking> rank_series(const std::vector<CheckedCase>& cases) {
  std::map<std::string, std::vector<RankedRun>> of;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const CheckedCase& c = cases[i];
    if (c.accuracy.series.empty()) continue;
    assert(c.step.tokens_per_s > 0 && c.step.gpus > 0);  // check's cases have a model
    RankedRun r;
    r.index = i;
    r.predicted = gpu_seconds_per_token(c, false);
    r.measured = gpu_seconds_per_token(c, true);
    r.error = c.accuracy.step_time_error;
    of[c.accuracy.series].push_back(r);
  }
  std::vector<SeriesRanking> out;
  for (auto& [name, runs] : of) {
    SeriesRanking s;
    s.series = name;
    std::sort(runs.begin(), runs.end(), [&](const RankedRun& a, const RankedRun& b) {
      if (a.measured != b.measured) return a.measured < b.measured;
      return cases[a.index].step.scenario_name < cases[b.index].step.scenario_name;
    });
    // The pace: the median of measured / predicted step time, 1 / (1 + error), over all the
    // runs and, for each run's paced error, over the others.
    std::vector<double> paces;
    for (const RankedRun& r : runs) paces.push_back(1 / (1 + r.error));
    s.pace = median(paces);
    const auto n = static_cast<double>(runs.size());
    if (runs.size() > 1)
      for (std::size_t i = 0; i < runs.size(); ++i) {
        std::vector<double> others = paces;
        others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
        runs[i].paced_error = median(others) * (1 + runs[i].error) - 1;
      }
    for (const RankedRun& r : runs) {
      s.mean_abs_error += std::abs(r.error) / n;
      s.paced_mean_abs_error += std::abs(r.paced_error) / n;
    }
    s.runs = runs;
    for (std::size_t i = 0; i < runs.size(); ++i)
      for (std::size_t j = i + 1; j < runs.size(); ++j) {
        if (runs[i].measured == runs[j].measured) continue;  // a measured tie: no order to get
        ++s.pairs;
        if (runs[i].predicted < runs[j].predicted)
          ++s.ordered_right;
        else
          s.misordered.emplace_back(i, j);
      }
    // The predicted fastest; of runs predicted equally fast, the measured slowest (a tie picks
    // nothing right).
    const RankedRun* pick = &runs.front();
    for (const RankedRun& r : runs)
      if (r.predicted <= pick->predicted) pick = &r;
    s.fastest_picked = pick->measured == runs.front().measured;
    s.regret = pick->measured / runs.front().measured - 1;
    out.push_back(std::move(s));
  }
  return out;
}

RankingSummary summarize(const std::vector<SeriesRanking>& series) {
  RankingSummary sum;
  std::vector<double> errors, paced;
  for (const SeriesRanking& s : series) {
    if (s.runs.size() < 2) continue;
    ++sum.series;
    sum.pairs += s.pairs;
    sum.ordered_right += s.ordered_right;
    sum.fastest_picked += s.fastest_picked;
    for (const RankedRun& r : s.runs) {
      errors.push_back(std::abs(r.error));
      paced.push_back(std::abs(r.paced_error));
    }
  }
  sum.runs = static_cast<int>(errors.size());
  if (sum.runs > 0) {
    for (std::size_t i = 0; i < errors.size(); ++i) {
      sum.mean_abs_error += errors[i] / sum.runs;
      sum.paced_mean_abs_error += paced[i] / sum.runs;
    }
    sum.median_abs_error = median(errors);
    sum.paced_median_abs_error = median(paced);
  }
  return sum;
}

}  // namespace trainsim
