#pragma once
// What one setting buys, as measured and as predicted. Two runs measured together (one source,
// software and cluster: scenario key `measured.series`) whose scenarios differ in one or two
// settings are a measured change: tp 4 · pp 8 → tp 8 · pp 4, bf16 → FP8, one attention kernel
// → another, twice the nodes. A layout search asks the model exactly this (which of two layouts
// is faster, and by how much), and what the two runs share (a site's clocks and network, the
// software the model does not know) cancels in it.
//
// A change's cost is the ratio of the two runs' GPU-seconds per token (report/ranking.h prices
// runs the same way), `to` over `from`, `from` the run measured cheaper; the prediction's error
// on it is predicted − measured ratio, in points of the `from` run's cost: measured +23.3 %
// (1.233) against predicted +19.3 % (1.193) is off by 4.0 points.
//
// Settings are the scenario's values at every key with a getter (scenario/scenario_schema.h,
// setting_values), the run's name, its labels (`model.name`, `cluster.gpu.name`), its price
// (`pricing.*`) and its measured figure (`measured.*`) aside. Keys without a getter (`costs.*`,
// `slowdown[]`) are not compared.
#include <cstddef>  // std::size_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "report/accuracy.h"

namespace trainsim {

struct SettingChange {
  std::string series;
  std::size_t from = 0, to = 0;  ///< indices into the cases: `from` the measured cheaper run
  struct Key {
    std::string key, from, to;  ///< the setting and its two values ("—": none there)
  };
  std::vector<Key> keys;  ///< in the scenario key table's order
  double measured = 0;    ///< to's cost per token over from's, as measured (> 1)
  double predicted = 0;   ///< the same, as predicted
};

/// Of each series' runs whose settings are known (CheckedCase::settings), the pairs that differ
/// in 1 to `max_keys` settings and whose measured costs differ (12 significant digits, as
/// report/ranking.h rounds them), by series, then by `from`'s and `to`'s names.
std::vector<SettingChange> setting_changes(const std::vector<CheckedCase>& cases,
                                           std::size_t max_keys = 2);

/// Over setting changes: how many, in how many the prediction moves the cost the measured way
/// (predicted > 1), and the mean and largest |predicted − measured| ratio (0.04: 4 points).
struct ChangeSummary {
  int changes = 0, direction_right = 0;
  double mean_abs_error = 0, max_abs_error = 0;
};
ChangeSummary summarize(const std::vector<SettingChange>& changes);

}  // namespace trainsim
