#include "report/ranking.h"

#include <catch2/catch.hpp>

using namespace trainsim;

namespace {

// A checked run: `gpus` GPUs at `tokens_per_s` predicted (GPU-seconds per token gpus /
// tokens_per_s), measured at `measured_cost` GPU-seconds per token: the step-time error is
// predicted / measured cost − 1 (the same tokens on the same GPUs).
CheckedCase run(const std::string& name, const std::string& series, int gpus, double tokens_per_s,
                double measured_cost) {
  CheckedCase c;
  c.step.scenario_name = name;
  c.step.gpus = gpus;
  c.step.tokens_per_s = tokens_per_s;
  c.accuracy.series = series;
  c.accuracy.step_time_error = gpus / tokens_per_s / measured_cost - 1;
  return c;
}

// Series s: A predicted 8/800 = 0.010, measured 0.012; B 8/1000 = 0.008, measured 0.010; C
// 16/1000 = 0.016, measured 0.011. Measured order B < C < A; predicted B < A < C: (B, C) and
// (B, A) right, (C, A) wrong; B is both fastest. Series t: D 8/800 = 0.010, measured 0.020; E
// 12/1000 = 0.012, measured 0.015: measured E first, predicted D first: picking D costs
// 0.020 / 0.015 − 1 = 1/3. Series v: a measured tie (no pair). Series w: a predicted tie
// (W1 measured 0.010, W2 0.012, both predicted 0.008): the pair is not ordered, and the pick is
// the measured slower, W2, 20 % over W1. Series u: one run. X: no series.
std::vector<CheckedCase> cases() {
  return {run("A", "s", 8, 800, 0.012),   run("X", "", 8, 1000, 0.01),
          run("D", "t", 8, 800, 0.020),   run("B", "s", 8, 1000, 0.010),
          run("E", "t", 12, 1000, 0.015), run("C", "s", 16, 1000, 0.011),
          run("U", "u", 8, 1000, 0.010),  run("V1", "v", 8, 1000, 0.010),
          run("V2", "v", 8, 800, 0.010),  run("W1", "w", 8, 1000, 0.010),
          run("W2", "w", 8, 1000, 0.012)};
}

}  // namespace

TEST_CASE("ranking: each series' runs in measured order, pairs ordered right or wrong",
          "[report][accuracy]") {
  const auto all = cases();
  const std::vector<SeriesRanking> r = rank_series(all);
  REQUIRE(r.size() == 5);  // s, t, u, v, w in name order; X has no series
  const SeriesRanking& s = r[0];
  CHECK(s.series == "s");
  REQUIRE(s.runs.size() == 3);
  CHECK(all[s.runs[0].index].step.scenario_name == "B");
  CHECK(all[s.runs[1].index].step.scenario_name == "C");
  CHECK(all[s.runs[2].index].step.scenario_name == "A");
  CHECK(s.runs[0].measured == Approx(0.010));
  CHECK(s.runs[0].predicted == Approx(0.008));
  CHECK(s.runs[1].measured == Approx(0.011));
  CHECK(s.runs[1].predicted == Approx(0.016));
  CHECK(s.pairs == 3);
  CHECK(s.ordered_right == 2);
  REQUIRE(s.misordered.size() == 1);
  CHECK(s.misordered[0] == std::pair<std::size_t, std::size_t>{1, 2});  // C before A
  CHECK(s.fastest_picked);
  CHECK(s.regret == Approx(0.0));

  const SeriesRanking& t = r[1];
  CHECK(t.pairs == 1);
  CHECK(t.ordered_right == 0);
  CHECK_FALSE(t.fastest_picked);
  CHECK(t.regret == Approx(1.0 / 3));

  CHECK(r[2].series == "u");
  CHECK(r[2].pairs == 0);
  const SeriesRanking& v = r[3];
  CHECK(v.pairs == 0);  // measured tie: nothing to order
  CHECK(v.fastest_picked);
  const SeriesRanking& w = r[4];
  CHECK(w.pairs == 1);
  CHECK(w.ordered_right == 0);
  CHECK_FALSE(w.fastest_picked);
  CHECK(w.regret == Approx(0.2));
}

TEST_CASE("ranking: runs published at the same figure are a tie", "[report][accuracy]") {
  // Two runs measured at 3,000 tokens/s/GPU, predicted at 3,100 and 3,700 on 8 GPUs: their
  // step-time errors come from accuracy() (predicted step / measured step − 1), and the measured
  // costs derived back from them (8 / (3100 · 8) / (1 + e)) must compare equal: no pair, and
  // either run is a measured fastest one.
  std::vector<CheckedCase> cs;
  const std::vector<std::pair<std::string, double>> runs{{"a", 3100.0}, {"b", 3700.0}};
  for (const auto& [name, predicted] : runs) {
    CheckedCase c;
    c.step.scenario_name = name;
    c.step.gpus = 8;
    c.step.tokens_per_s = predicted * 8;
    c.step.step_time_s = 1;
    Measured m{Measured::Metric::TokensPerSPerGpu, 3000, "a table", "same", std::nullopt};
    c.accuracy = *accuracy(c.step, m);
    cs.push_back(c);
  }
  const auto r = rank_series(cs);
  REQUIRE(r.size() == 1);
  CHECK(r[0].runs[0].measured == r[0].runs[1].measured);
  CHECK(r[0].runs[0].measured == Approx(1 / 3000.0));
  CHECK(r[0].pairs == 0);
  CHECK(r[0].fastest_picked);
}

TEST_CASE("ranking: the summary counts series of two runs or more", "[report][accuracy]") {
  // s, t, v, w (u has one run): pairs 3 + 1 + 0 + 1, right 2 + 0 + 0 + 0, fastest picked in s
  // and v.
  const RankingSummary sum = summarize(rank_series(cases()));
  CHECK(sum.series == 4);
  CHECK(sum.pairs == 5);
  CHECK(sum.ordered_right == 2);
  CHECK(sum.fastest_picked == 2);
  CHECK(rank_series({run("X", "", 8, 1000, 0.01)}).empty());
}
