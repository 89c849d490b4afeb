#include "report/accuracy.h"

#include <catch2/catch.hpp>

#include "run/simulate.h"
#include "test_util.h"

using namespace trainsim;

namespace {

StepReport report(double step_s, double tokens_per_step, int gpus, double tflops, double mfu) {
  StepReport r;
  r.step_time_s = step_s;
  r.tokens_per_step = tokens_per_step;
  r.tokens_per_s = tokens_per_step / step_s;
  r.gpus = gpus;
  r.tflops_per_gpu = tflops;
  r.mfu = mfu;
  return r;
}

Measured measured(Measured::Metric m, double v) {
  return {m, v, "a paper", "", std::nullopt};
}

}  // namespace

TEST_CASE("accuracy: every metric gives the same step-time error for the same prediction",
          "[accuracy]") {
  // Predicted: 2 s for 1,000,000 tokens on 10 GPUs, 300 TFLOP/s/GPU, MFU 0.3. Measured: the
  // step took 2.5 s, so the prediction is 2 / 2.5 − 1 = −20 % (too fast). In throughput
  // terms the run made 400,000 tokens/s = 40,000 per GPU, 240 TFLOP/s/GPU (300 · 2 / 2.5),
  // MFU 0.24: each must give −20 %.
  const StepReport r = report(2.0, 1e6, 10, 300, 0.3);
  using M = Measured::Metric;
  for (auto [metric, value] : {std::pair{M::StepTime, 2.5},
                               {M::TokensPerS, 400000.0},
                               {M::TokensPerSPerGpu, 40000.0},
                               {M::TflopsPerGpu, 240.0},
                               {M::Mfu, 0.24}}) {
    const auto a = accuracy(r, measured(metric, value));
    REQUIRE(a);
    CHECK(a->step_time_error == Approx(-0.2));
    CHECK(a->measured == value);
  }
  const auto t = accuracy(r, measured(M::TokensPerSPerGpu, 40000.0));
  CHECK(t->predicted == Approx(50000.0));  // 1e6 / 2 / 10
}

TEST_CASE("accuracy: no tokens, no per-token comparison", "[accuracy]") {
  StepReport r = report(1.0, 0, 4, 0, 0);
  r.tokens_per_s = 0;
  r.mfu.reset();
  CHECK_FALSE(accuracy(r, measured(Measured::Metric::TokensPerS, 10)));
  CHECK_FALSE(accuracy(r, measured(Measured::Metric::Mfu, 0.5)));
  CHECK(accuracy(r, measured(Measured::Metric::StepTime, 0.5))->step_time_error == Approx(1.0));
}

TEST_CASE("accuracy: the summary's mean and max are over |error|, the mean signed keeps signs",
          "[accuracy]") {
  // Errors −10 %, +20 %, −30 %: mean |e| = 20 %, max 30 %, signed mean (−10 + 20 − 30)/3 = −6.67 %.
  std::vector<Accuracy> v(3);
  v[0].step_time_error = -0.1;
  v[1].step_time_error = 0.2;
  v[2].step_time_error = -0.3;
  const AccuracySummary s = summarize(v);
  CHECK(s.cases == 3);
  CHECK(s.mean_abs_error == Approx(0.2));
  CHECK(s.max_abs_error == Approx(0.3));
  CHECK(s.mean_error == Approx(-0.2 / 3));
  // Percentiles of the sorted −30, −10, +20 %, at rank q · (3 − 1): the 10th at 0.2, a fifth of
  // the way from −30 to −10 = −26 %; the 90th at 1.8, 0.8 of the way from −10 to +20 = +14 %.
  CHECK(s.p10_error == Approx(-0.26));
  CHECK(s.p90_error == Approx(0.14));
  // One case: both percentiles are its error.
  const AccuracySummary one = summarize(std::vector<Accuracy>{v[1]});
  CHECK(one.p10_error == Approx(0.2));
  CHECK(one.p90_error == Approx(0.2));
}

TEST_CASE("accuracy: a scenario's measured: section is read with its unit, and checked",
          "[accuracy][scenario]") {
  const std::string base = R"(model: llama-3.2-1b
training: {seq_len: 1024, global_batch_size: 8}
cluster: {gpu: h100-sxm, gpus_per_node: 8}
parallelism: {dp: 8}
)";
  const Scenario s = test::yaml(base + "measured: {tflops_per_gpu: 400 TFLOPS, source: x}\n");
  REQUIRE(s.measured);
  CHECK(s.measured->metric == Measured::Metric::TflopsPerGpu);
  CHECK(s.measured->value == Approx(400.0));
  CHECK(test::yaml(base + "measured: {step_time: 250ms, source: x}\n").measured->value ==
        Approx(0.25));
  CHECK_THROWS_WITH(test::yaml(base + "measured: {mfu: 0.4, tokens_per_s: 5, source: x}\n"),
                    Catch::Contains("exactly one measured figure"));
  CHECK_THROWS_WITH(test::yaml(base + "measured: {mfu: 0.4}\n"),
                    Catch::Contains("measured.source") && Catch::Contains("required"));
  CHECK_THROWS_WITH(test::yaml(base + "measured: {mfu: 1.4, source: x}\n"),
                    Catch::Contains("measured.mfu"));
  CHECK_THROWS_WITH(test::yaml(base + "measured: {tokens: 4, source: x}\n"),
                    Catch::Contains("unknown key \"tokens\""));
  // A series names the runs measured together; the accuracy carries it for the ranking.
  const Scenario in =
      test::yaml(base + "measured: {tokens_per_s: 5, source: x, series: table 1}\n");
  CHECK(in.measured->series == "table 1");
  CHECK(accuracy(make_report(simulate(in)), *in.measured)->series == "table 1");
  CHECK(s.measured->series.empty());
  CHECK_THROWS_WITH(
      test::yaml(base + "measured: {mfu: 0.4, source: x, series: ''}\n"),
      Catch::Contains("measured.series") && Catch::Contains("give the series a name"));
}
