#include "report/step_split.h"

#include <catch2/catch.hpp>

using namespace trainsim;

namespace {

// A run of series `series`: `microbatches` micro-batches a step on each DP rank at `dp`,
// predicted `predicted` seconds a step and measured `measured`, so its step-time error is
// predicted / measured − 1. Its settings list the same keys for every run, as setting_values
// does; its name, model label and measured figure differ from run to run and are never compared.
CheckedCase run(const std::string& name, const std::string& series, int dp, int microbatches,
                double predicted, double measured, const std::string& tp = "1") {
  CheckedCase c;
  c.step.scenario_name = name;
  c.step.microbatches = microbatches;
  c.step.step_time_s = predicted;
  c.accuracy.series = series;
  c.accuracy.step_time_error = predicted / measured - 1;
  c.settings = {{"name", name},
                {"model.name", name},
                {"training.global_batch_size", std::to_string(dp * microbatches)},
                {"cluster.nodes", std::to_string(dp)},
                {"parallelism.dp", std::to_string(dp)},
                {"parallelism.tp", tp},
                {"measured.step_time", name}};
  return c;
}

}  // namespace

TEST_CASE("step splits: a series' step time fitted as a part per step plus one per micro-batch",
          "[report][accuracy]") {
  // Series "s", runs at 4, 2 and 1 micro-batches (dp 1, 2 and 4; the scale keys differ):
  //   measured 0.5 + 0.25 n: 1.5, 1.0, 0.75 s; predicted 0.1 + 0.2 n: 0.9, 0.5, 0.3 s.
  // A fourth run at tp 2 matches no other: in no split. Series "t": two runs at one micro-batch
  // count, no slope to fit. Series "u": n 2 and 6, measured 2.0 and 3.0 s (0.25 a micro-batch,
  // 1.5 a step), predicted 1.8 and 3.0 (0.3, 1.2), and a run without settings (never grouped).
  CheckedCase unknown = run("U3", "u", 2, 4, 2.4, 2.5);
  unknown.settings.clear();
  const std::vector<CheckedCase> all = {run("S4", "s", 1, 4, 0.9, 1.5),
                                        run("S2", "s", 2, 2, 0.5, 1.0),
                                        run("S1", "s", 4, 1, 0.3, 0.75),
                                        run("S-tp2", "s", 2, 2, 0.4, 0.8, "2"),
                                        run("T1", "t", 1, 2, 1.0, 1.1),
                                        run("T2", "t", 2, 2, 1.0, 1.2),
                                        run("U2", "u", 3, 2, 1.8, 2.0),
                                        run("U6", "u", 1, 6, 3.0, 3.0),
                                        unknown};
  const std::vector<StepSplit> splits = step_splits(all);
  REQUIRE(splits.size() == 2);

  const StepSplit& s = splits[0];
  CHECK(s.series == "s");
  // By micro-batch count: S1 (n 1), S2 (n 2), S4 (n 4).
  REQUIRE(s.runs.size() == 3);
  CHECK(all[s.runs[0]].step.scenario_name == "S1");
  CHECK(all[s.runs[1]].step.scenario_name == "S2");
  CHECK(all[s.runs[2]].step.scenario_name == "S4");
  CHECK(measured_step_time(all[s.runs[0]]) == Approx(0.75));
  CHECK(s.measured_per_microbatch == Approx(0.25));
  CHECK(s.measured_per_step == Approx(0.5));
  CHECK(s.predicted_per_microbatch == Approx(0.2));
  CHECK(s.predicted_per_step == Approx(0.1));
  CHECK(s.max_residual == Approx(0).margin(1e-12));  // three points on one line

  const StepSplit& u = splits[1];
  CHECK(u.series == "u");
  REQUIRE(u.runs.size() == 2);
  CHECK(u.measured_per_microbatch == Approx(0.25));
  CHECK(u.measured_per_step == Approx(1.5));
  CHECK(u.predicted_per_microbatch == Approx(0.3));
  CHECK(u.predicted_per_step == Approx(1.2));

  // Off a line, least squares: measured (and predicted) 1.0, 1.3 and 1.5 s at n 1, 2 and 3.
  const std::vector<CheckedCase> bent = {run("B1", "b", 3, 1, 1.0, 1.0),
                                         run("B2", "b", 2, 2, 1.3, 1.3),
                                         run("B3", "b", 1, 3, 1.5, 1.5)};
  const std::vector<StepSplit> b = step_splits(bent);
  REQUIRE(b.size() == 1);
  // Sxy = (−1)(1.0 − 1.2667) + 0 + (1)(1.5 − 1.2667) = 0.5, Sxx = 2: slope 0.25, intercept
  // 1.2667 − 0.5 = 0.7667; residuals 1.0 − 1.0167 = −0.0167, 1.3 − 1.2667 = +0.0333,
  // 1.5 − 1.5167 = −0.0167: the largest 0.0333.
  CHECK(b[0].measured_per_microbatch == Approx(0.25));
  CHECK(b[0].measured_per_step == Approx(0.766667).epsilon(1e-5));
  CHECK(b[0].predicted_per_step == Approx(b[0].measured_per_step));
  CHECK(b[0].max_residual == Approx(0.033333).epsilon(1e-4));

  CHECK(step_splits({}).empty());
}
