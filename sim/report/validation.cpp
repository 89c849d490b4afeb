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

constexpr Row kRows[] = {
#include "report/data/validation.inc"
};

AccuracySummary summary(const Row& r) {
  AccuracySummary s;
  s.cases = r.cases;
  s.mean_abs_error = r.mean_abs_error;
  s.max_abs_error = r.max_abs_error;
  s.mean_error = r.mean_error;
  return s;
}

std::string direction(double mean_error) {
  return fmt::format("{:.1f} % too {} on average", std::abs(mean_error) * 100,
                     mean_error < 0 ? "fast" : "slow");
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

std::string validation_line(const std::string& gpu) {
  if (gpu.empty()) return "";
  if (auto s = validation_for_gpu(gpu))
    return fmt::format(
        "{} published {} run{}: mean |error| {:.1f} % (largest {:.1f} %), step time predicted "
        "{} (tests/published/)",
        s->cases, gpu, s->cases == 1 ? "" : "s", s->mean_abs_error * 100, s->max_abs_error * 100,
        direction(s->mean_error));
  const AccuracySummary all = validation_overall();
  return fmt::format(
      "no published {} run in the suite; all {}: mean |error| {:.1f} % (largest {:.1f} %), step "
      "time predicted {} (tests/published/)",
      gpu, all.cases, all.mean_abs_error * 100, all.max_abs_error * 100, direction(all.mean_error));
}

}  // namespace trainsim
