#include "report/ranking.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>

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

}  // namespace

std::vector<SeriesRanking> rank_series(const std::vector<CheckedCase>& cases) {
  std::map<std::string, std::vector<RankedRun>> of;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const CheckedCase& c = cases[i];
    if (c.accuracy.series.empty()) continue;
    assert(c.step.tokens_per_s > 0 && c.step.gpus > 0);  // check's cases have a model
    RankedRun r;
    r.index = i;
    r.predicted = c.step.gpus / c.step.tokens_per_s;
    // step_time_error = predicted step / measured step − 1, for the same tokens and GPUs.
    r.measured = significant12(r.predicted / (1 + c.accuracy.step_time_error));
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
  for (const SeriesRanking& s : series) {
    if (s.runs.size() < 2) continue;
    ++sum.series;
    sum.pairs += s.pairs;
    sum.ordered_right += s.ordered_right;
    sum.fastest_picked += s.fastest_picked;
  }
  return sum;
}

}  // namespace trainsim
