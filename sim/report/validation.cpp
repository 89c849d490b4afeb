#include "report/validation.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace trainsim {
namespace {

struct Row {
  const char* gpu;  // "" for the whole suite
  int cases;
  double mean_abs_error, max_abs_error, mean_error, p10_error, p90_error;
};

struct RuntimeRow {
  const char* gpu;  // "" for every GPU
  const char* runtime;
  Row row;
};

struct TpRow {
  int tp;  // tensor-parallel degree, on any GPU model
  Row row;
};

// The data file is a list of ACCURACY(…), ACCURACY_RUNTIME(…) and ACCURACY_TP(…) rows and one
// RANKING(…) line, read four times.
#define ACCURACY(gpu, cases, mean_abs, max_abs, mean, p10, p90) \
  {gpu, cases, mean_abs, max_abs, mean, p10, p90},
#define ACCURACY_RUNTIME(gpu, runtime, cases, mean_abs, max_abs, mean, p10, p90)
#define ACCURACY_TP(tp, cases, mean_abs, max_abs, mean, p10, p90)
#define RANKING(series, pairs, ordered_right, fastest_picked, runs, mean_abs, median_abs, \
                paced_mean_abs, paced_median_abs)
constexpr Row kRows[] = {
#include "report/data/validation.inc"
};
#undef ACCURACY
#undef ACCURACY_RUNTIME
#undef ACCURACY_TP
#undef RANKING
#define ACCURACY(gpu, cases, mean_abs, max_abs, mean, p10, p90)
#define ACCURACY_RUNTIME(gpu, runtime, cases, mean_abs, max_abs, mean, p10, p90) \
  {gpu, runtime, {gpu, cases, mean_abs, max_abs, mean, p10, p90}},
#define ACCURACY_TP(tp, cases, mean_abs, max_abs, mean, p10, p90)
#define RANKING(series, pairs, ordered_right, fastest_picked, runs, mean_abs, median_abs, \
                paced_mean_abs, paced_median_abs)
constexpr RuntimeRow kRuntimeRows[] = {
#include "report/data/validation.inc"
};
#undef ACCURACY
#undef ACCURACY_RUNTIME
#undef ACCURACY_TP
#undef RANKING
#define ACCURACY(gpu, cases, mean_abs, max_abs, mean, p10, p90)
#define ACCURACY_RUNTIME(gpu, runtime, cases, mean_abs, max_abs, mean, p10, p90)
#define ACCURACY_TP(tp, cases, mean_abs, max_abs, mean, p10, p90)
#define RANKING(series, pairs, ordered_right, fastest_picked, runs, mean_abs, median_abs,     \
                paced_mean_abs, paced_median_abs)                                             \
  {                                                                                           \
    series, pairs, ordered_right, fastest_picked, runs, mean_abs, median_abs, paced_mean_abs, \
        paced_median_abs                                                                      \
  }
constexpr RankingSummary kRanking =
#include "report/data/validation.inc"
    ;
#undef ACCURACY
#undef ACCURACY_RUNTIME
#undef ACCURACY_TP
#undef RANKING
#define ACCURACY(gpu, cases, mean_abs, max_abs, mean, p10, p90)
#define ACCURACY_RUNTIME(gpu, runtime, cases, mean_abs, max_abs, mean, p10, p90)
#define ACCURACY_TP(tp, cases, mean_abs, max_abs, mean, p10, p90) \
  {tp, {"", cases, mean_abs, max_abs, mean, p10, p90}},
#define RANKING(series, pairs, ordered_right, fastest_picked, runs, mean_abs, median_abs, \
                paced_mean_abs, paced_median_abs)
constexpr TpRow kTpRows[] = {
#include "report/data/validation.inc"
};
#undef ACCURACY
#undef ACCURACY_RUNTIME
#undef ACCURACY_TP
#undef RANKING

// "mean |error| 6.2 % (largest 64.6 %), step time predicted 3.5 % too fast on average".
std::string record_words(const AccuracySummary& s) {
  return fmt::format(
      "mean |error| {:.1f} % (largest {:.1f} %), step time predicted {:.1f} % too {} on average",
      s.mean_abs_error * 100, s.max_abs_error * 100, std::abs(s.mean_error) * 100,
      s.mean_error < 0 ? "fast" : "slow");
}

AccuracySummary summary(const Row& r) {
  AccuracySummary s;
  s.cases = r.cases;
  s.mean_abs_error = r.mean_abs_error;
  s.max_abs_error = r.max_abs_error;
  s.mean_error = r.mean_error;
  s.p10_error = r.p10_error;
  s.p90_error = r.p90_error;
  return s;
}

}  // namespace

std::optional<AccuracySummary> validation_for_gpu(const std::string& gpu) {
  if (gpu.empty()) return std::nullopt;
  for (const Row& r : kRows)
    if (gpu == r.gpu) return summary(r);
  return std::nullopt;
}

AccuracySummary validation_overall() {
  for (const Row& r : kRows)
    if (r.gpu[0] == '\0') return summary(r);
  return {};
}

std::vector<GpuAccuracy> validation_by_gpu() {
  std::vector<GpuAccuracy> out;
  for (const Row& r : kRows)
    if (r.gpu[0] != '\0') out.push_back({r.gpu, summary(r)});
  return out;
}

std::optional<GpuAccuracy> validation_record(const std::string& gpu) {
  if (gpu.empty()) return std::nullopt;
  if (auto own = validation_for_gpu(gpu)) return GpuAccuracy{gpu, *own};
  return GpuAccuracy{"", validation_overall()};
}

std::optional<AccuracySummary> validation_for_runtime(const std::string& gpu,
                                                      const std::string& runtime) {
  for (const RuntimeRow& r : kRuntimeRows)
    if (gpu == r.gpu && runtime == r.runtime) return summary(r.row);
  return std::nullopt;
}

std::optional<AccuracySummary> validation_for_tp(int tp) {
  for (const TpRow& r : kTpRows)
    if (r.tp == tp) return summary(r.row);
  return std::nullopt;
}

std::vector<std::pair<int, AccuracySummary>> validation_by_tp() {
  std::vector<std::pair<int, AccuracySummary>> out;
  for (const TpRow& r : kTpRows) out.emplace_back(r.tp, summary(r.row));
  return out;
}

std::string tp_validation_line(int tp) {
  if (tp <= 1) return "";
  const auto s = validation_for_tp(tp);
  if (!s) return "";
  return fmt::format("{} published run{} at tp {}, on any GPU: {}", s->cases,
                     s->cases == 1 ? "" : "s", tp, record_words(*s));
}

std::string runtime_name(const StepReport& r) {
  if (!r.training) return "";
  switch (r.training->runtime) {
    case Runtime::Compiled:
      return "compiled";
    case Runtime::Eager:
      return "eager";
    case Runtime::Fused:
      return "fused";
  }
  return "";
}

std::optional<LikelyStepTime> likely_step_time(const std::string& gpu, double predicted_s,
                                               const std::string& runtime, int tp) {
  if (gpu.empty() || !(predicted_s > 0) || !std::isfinite(predicted_s)) return std::nullopt;
  LikelyStepTime l;
  const auto like = runtime.empty() ? std::nullopt : validation_for_runtime(gpu, runtime);
  const auto own = validation_for_gpu(gpu);
  if (like && like->cases >= kLikelyMinCases) {
    l.basis = GpuAccuracy{gpu, *like};
    l.runtime = runtime;
  } else {
    l.basis = own && own->cases >= kLikelyMinCases ? GpuAccuracy{gpu, *own}
                                                   : GpuAccuracy{"", validation_overall()};
  }
  // The runs of the same TP degree on any GPU instead, where they are enough and have been
  // predicted further off on average than the GPU's (tp 2 and 8 have; tp 4 has not).
  if (const auto wide = tp > 1 ? validation_for_tp(tp) : std::nullopt;
      wide && wide->cases >= kLikelyMinCases &&
      std::abs(wide->mean_error) > std::abs(l.basis.summary.mean_error)) {
    l.basis = GpuAccuracy{"", *wide};
    l.runtime.clear();
    l.tp = tp;
  }
  if (l.basis.summary.cases == 0) return std::nullopt;
  // error = predicted / measured − 1, so measured = predicted / (1 + error): the 90th
  // percentile's error (the prediction most over) gives the shortest step, the 10th the longest.
  l.low_s = predicted_s / (1 + l.basis.summary.p90_error);
  l.high_s = predicted_s / (1 + l.basis.summary.p10_error);
  return l;
}

namespace {

// "517–583 ms": both ends in the upper one's unit, to three significant digits of it (a
// range read off the suite's spread has no more).
std::string format_range(double low_s, double high_s) {
  const auto [scale, unit] = high_s >= 1      ? std::pair{1.0, "s"}
                             : high_s >= 1e-3 ? std::pair{1e3, "ms"}
                                              : std::pair{1e6, "us"};
  const double hi = high_s * scale;
  const int decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(hi))));
  return fmt::format("{:.{}f}–{:.{}f} {}", low_s * scale, decimals, hi, decimals, unit);
}

}  // namespace

std::string likely_line(const std::string& gpu, double predicted_s, const std::string& runtime,
                        int tp) {
  const auto l = likely_step_time(gpu, predicted_s, runtime, tp);
  if (!l) return "";
  const AccuracySummary& s = l->basis.summary;
  const std::string whose =
      l->tp > 0 ? fmt::format("the {} published runs at tp {} on any GPU", s.cases, l->tp)
      : l->basis.gpu.empty() ? fmt::format("all {} published runs (too few on {})", s.cases, gpu)
      : l->runtime.empty()
          ? fmt::format("the {} published {} runs", s.cases, gpu)
          : fmt::format("the {} published {} runs under runtime: {}", s.cases, gpu, l->runtime);
  // Measured over predicted, as a signed percentage: 1 / (1 + error) − 1.
  const auto over = [](double error) {
    const double pct = (1 / (1 + error) - 1) * 100;
    return fmt::format("{:.1f} % {}", std::abs(pct), pct < 0 ? "under" : "over");
  };
  return fmt::format("{}  (8 in 10 of {} measured from {} to {} their prediction)",
                     format_range(l->low_s, l->high_s), whose, over(s.p90_error),
                     over(s.p10_error));
}

RankingSummary validation_ranking() {
  return kRanking;
}

std::string ranking_line() {
  const RankingSummary& t = kRanking;
  if (t.pairs == 0) return "";
  return fmt::format(
      "{} of {} pairs of published runs measured together ordered as measured; the measured "
      "fastest picked in {} of {} series; a run's step time {:.1f} % off at the median, {:.1f} % "
      "at the pace its series' other runs measured (tests/published/)",
      t.ordered_right, t.pairs, t.fastest_picked, t.series, t.median_abs_error * 100,
      t.paced_median_abs_error * 100);
}

std::string tp_record_line() {
  std::string o;
  for (const TpRow& r : kTpRows)
    o += fmt::format("{}tp {} {:+.1f} % ({} run{})", o.empty() ? "" : " · ", r.tp,
                     r.row.mean_error * 100, r.row.cases, r.row.cases == 1 ? "" : "s");
  if (o.empty()) return "";
  return o +
         ": the published runs' mean signed step-time error on any GPU (negative = predicted "
         "too fast)";
}

std::string search_record_lines(const std::string& gpu) {
  std::string o;
  // How far step times on this GPU have been off, beside the ranking built on them.
  if (const std::string v = validation_line(gpu); !v.empty()) o += "validation: " + v + "\n";
  // And at each TP degree: a ranking across degrees inherits their different errors.
  if (const std::string v = tp_record_line(); !v.empty()) o += "by TP degree: " + v + "\n";
  // And how well the suite's runs measured together were ordered: what a ranking rests on.
  if (const std::string v = ranking_line(); !v.empty()) o += "layout order: " + v + "\n";
  return o;
}

std::string validation_line(const std::string& gpu) {
  const auto rec = validation_record(gpu);
  if (!rec) return "";
  const AccuracySummary& s = rec->summary;
  const std::string whose =
      rec->gpu.empty()
          ? fmt::format("no published {} run in the suite; all {}", gpu, s.cases)
          : fmt::format("{} published {} run{}", s.cases, gpu, s.cases == 1 ? "" : "s");
  return fmt::format("{}: {} (tests/published/)", whose, record_words(s));
}

}  // namespace trainsim
