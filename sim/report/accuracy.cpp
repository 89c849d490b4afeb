#include "report/accuracy.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace trainsim {

std::optional<Accuracy> accuracy(const StepReport& r, const Measured& m) {
  Accuracy a;
  a.source = m.source;
  a.series = m.series;
  a.measured = m.value;
  // ratio = measured step time / predicted step time, from the metric.
  double ratio = 0;
  switch (m.metric) {
    case Measured::Metric::StepTime:
      a.metric = "step time (s)";
      a.predicted = r.step_time_s;
      ratio = m.value / r.step_time_s;
      break;
    case Measured::Metric::TokensPerS:
      if (r.tokens_per_s <= 0) return std::nullopt;
      a.metric = "tokens/s";
      a.predicted = r.tokens_per_s;
      ratio = r.tokens_per_s / m.value;  // time ∝ 1 / throughput
      break;
    case Measured::Metric::TokensPerSPerGpu:
      if (r.tokens_per_s <= 0 || r.gpus <= 0) return std::nullopt;
      a.metric = "tokens/s/GPU";
      a.predicted = r.tokens_per_s / r.gpus;
      ratio = a.predicted / m.value;
      break;
    case Measured::Metric::TflopsPerGpu:
      if (r.tflops_per_gpu <= 0) return std::nullopt;
      a.metric = "TFLOP/s/GPU";
      a.predicted = r.tflops_per_gpu;
      ratio = a.predicted / m.value;
      break;
    case Measured::Metric::Mfu:
      if (!r.mfu || *r.mfu <= 0) return std::nullopt;
      a.metric = "MFU";
      a.predicted = *r.mfu;
      ratio = a.predicted / m.value;
      break;
  }
  if (!(ratio > 0) || !std::isfinite(ratio)) return std::nullopt;
  a.step_time_error = 1.0 / ratio - 1.0;
  return a;
}

AccuracySummary summarize(const std::vector<Accuracy>& cases) {
  std::vector<double> errors;
  errors.reserve(cases.size());
  for (const Accuracy& a : cases) errors.push_back(a.step_time_error);
  return summarize_errors(std::move(errors));
}

bool compared_setting(const std::string& key) {
  return key != "name" && key != "model.name" && key != "cluster.gpu.name" &&
         key.rfind("pricing.", 0) != 0 && key.rfind("measured.", 0) != 0;
}

std::map<std::string, std::vector<std::size_t>> series_with_settings(
    const std::vector<CheckedCase>& cases) {
  std::map<std::string, std::vector<std::size_t>> of;
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (!cases[i].accuracy.series.empty() && !cases[i].settings.empty())
      of[cases[i].accuracy.series].push_back(i);
  return of;
}

AccuracySummary summarize_errors(std::vector<double> errors) {
  AccuracySummary s;
  s.cases = static_cast<int>(errors.size());
  if (errors.empty()) return s;
  for (const double e : errors) {
    s.mean_abs_error += std::abs(e);
    s.mean_error += e;
    s.max_abs_error = std::max(s.max_abs_error, std::abs(e));
  }
  s.mean_abs_error /= s.cases;
  s.mean_error /= s.cases;
  std::vector<double>& sorted = errors;
  std::sort(sorted.begin(), sorted.end());
  // The q-quantile at rank q·(n − 1), between the two errors around it.
  const auto percentile = [&sorted](double q) {
    const double rank = q * static_cast<double>(sorted.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(rank));
    const std::size_t above = std::min(below + 1, sorted.size() - 1);
    return sorted[below] + (rank - static_cast<double>(below)) * (sorted[above] - sorted[below]);
  };
  s.p10_error = percentile(0.1);
  s.p90_error = percentile(0.9);
  return s;
}

}  // namespace trainsim
