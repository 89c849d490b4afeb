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
//
// And how much of a series' step-time error its runs share. A layout search compares layouts
// on one machine and one software stack, where a speed the runs share (a site's clocks,
// cooling, network, or software the model does not know) cancels; a user who has measured one
// layout can scale the others by it. So each run is also priced at its series' pace as the
// series' other runs give it: the median of their measured over predicted step times (of two
// middle ones, their mean), its own measurement left out, so that the figure is a prediction,
// not a fit. The pace of the whole series (all its runs) is reported beside it. Both are a
// diagnosis of the predictions, never a constant of the model.
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
  double error = 0;       ///< the case's step-time error (report/accuracy.h)
  /// The same with the prediction × the pace of the series' other runs (0 in a series of one).
  double paced_error = 0;
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
  /// The median of the runs' measured / predicted step times (of two middle ones, their mean).
  double pace = 1;
  double mean_abs_error = 0;        ///< mean |step-time error| of the runs
  double paced_mean_abs_error = 0;  ///< mean |paced_error| of the runs
};

/// A case's GPU-seconds per token (GPUs / tokens per second), as predicted or, from its step-time
/// error, as measured (rounded to 12 significant digits: two runs published at the same figure
/// come back equal, a tie).
double gpu_seconds_per_token(const CheckedCase& c, bool measured);

/// The series among `cases` (those with a `measured.series`), in name order. Every case needs
/// a throughput (a model), as `trainsim check` already requires.
std::vector<SeriesRanking> rank_series(const std::vector<CheckedCase>& cases);

/// Over the series of two runs or more; the errors over their runs, as predicted and at the
/// pace of each run's series' other runs (RankedRun::paced_error).
struct RankingSummary {
  int series = 0, pairs = 0, ordered_right = 0, fastest_picked = 0;
  int runs = 0;
  double mean_abs_error = 0, median_abs_error = 0;
  double paced_mean_abs_error = 0, paced_median_abs_error = 0;
};
RankingSummary summarize(const std::vector<SeriesRanking>& series);

}  // namespace trainsim
