#include "report/validation.h"

#include <cmath>

#include <fmt/format.h>

namespace trainsim {
namespace {

struct Row {
  const char* gpu;  // "" for the whole suite
  int cases;
  double mean_abs_error, max_abs_error, mean_error;
};

// The data file is a list of ACCURACY(…) rows and one RANKING(…) line, read twice.
#define ACCURACY(gpu, cases, mean_abs, max_abs, mean) {gpu, cases, mean_abs, max_abs, mean},
#define RANKING(series, pairs, ordered_right, fastest_picked)
constexpr Row kRows[] = {
#include "report/data/validation.inc"
};
#undef ACCURACY
#undef RANKING
#define ACCURACY(gpu, cases, mean_abs, max_abs, mean)
#define RANKING(series, pairs, ordered_right, fastest_picked) \
  { series, pairs, ordered_right, fastest_picked }
constexpr RankingSummary kRanking =
#include "report/data/validation.inc"
    ;
#undef ACCURACY
#undef RANKING

AccuracySummary summary(const Row& r) {
  AccuracySummary s;
  s.cases = r.cases;
  s.mean_abs_error = r.mean_abs_error;
  s.max_abs_error = r.max_abs_error;
  s.mean_error = r.mean_error;
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

RankingSummary validation_ranking() {
  return kRanking;
}

std::string ranking_line() {
  const RankingSummary& t = kRanking;
  if (t.pairs == 0) return "";
  return fmt::format(
      "{} of {} pairs of published runs measured together ordered as measured; the measured "
      "fastest picked in {} of {} series (tests/published/)",
      t.ordered_right, t.pairs, t.fastest_picked, t.series);
}

std::string search_record_lines(const std::string& gpu) {
  std::string o;
  // How far step times on this GPU have been off, beside the ranking built on them.
  if (const std::string v = validation_line(gpu); !v.empty()) o += "validation: " + v + "\n";
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
  return fmt::format(
      "{}: mean |error| {:.1f} % (largest {:.1f} %), step time predicted {:.1f} % too {} on "
      "average (tests/published/)",
      whose, s.mean_abs_error * 100, s.max_abs_error * 100, std::abs(s.mean_error) * 100,
      s.mean_error < 0 ? "fast" : "slow");
}

}  // namespace trainsim
