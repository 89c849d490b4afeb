#pragma once
// Does trainsim order layouts as the hardware did? Runs measured together (one source, the same
// software and cluster; scenario key `measured.series`) are ranked by their cost per token,
// GPU-seconds per token (GPUs / throughput: the step time when the job and the GPU count are
// the same, the efficiency when they are not), once as measured and once as predicted. A planner
// picking the fastest layout needs the order right more than the absolute step time: a bias
// shared by a series' runs cancels in it.
//
// Per series: its pairs of runs with different measured costs, how many of them the prediction
// orders the same way (a predicted tie orders none), whether the predicted fastest run is a
// measured fastest one, and what picking it costs ("regret": its measured cost over the
// measured fastest one's, minus 1). Kendall's tau over the pairs is (2 · right − pairs) / pairs.
#include <cstddef>  // std::size_t
#include <string>   // std::string
#include <utility>  // std::pair
#include <vector>   // std::vector

#include "report/accuracy.h"

namespace trainsim {

struct RankedRun {
  std::size_t index = 0;  ///< into the cases given to rank_series
  double measured = 0;    ///< GPU-seconds per token, as measured (12 significant digits)
  double predicted = 0;   ///< the same, as trainsim predicts it
};

struct SeriesRanking {
  std::string series;
  std::vector<RankedRun> runs;  ///< measured fastest first (ties by scenario name)
  int pairs = 0;                ///< pairs of runs whose measured costs differ
  int ordered_right = 0;        ///< of them, pairs the prediction orders the same way
  /// The pairs ordered wrong, as positions in `runs` (the measured faster run first).
  std::vector<std::pair<std::size_t, std::size_t>> misordered;
  /// The predicted fastest run (of runs predicted equally fast, the measured slowest) is a
  /// measured fastest one.
  bool fastest_picked = false;
  double regret = 0;  ///< measured cost of the predicted fastest / the fastest's − 1
};

/// The series among `cases` (those with a `measured.series`), in name order. Every case needs
/// a throughput (a model), as `trainsim check` already requires.
std::vector<SeriesRanking> rank_series(const std::vector<CheckedCase>& cases);

/// Over the series of two runs or more.
struct RankingSummary {
  int series = 0, pairs = 0, ordered_right = 0, fastest_picked = 0;
};
RankingSummary summarize(const std::vector<SeriesRanking>& series);

}  // namespace trainsim
