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

TEST_CASE("ranking: a series' pace, and each run at the pace of the series' other runs",
          "[report][accuracy]") {
  // Series s: measured / predicted step time (the pace of one run) A 0.012 / 0.010 = 1.2, B
  // 0.010 / 0.008 = 1.25, C 0.011 / 0.016 = 0.6875: the series' pace, the median, 1.2. Each run
  // at the median of the others' (of two, their mean), its step-time error paced × (1 + error)
  // − 1: B (errors −0.2) at (1.2 + 0.6875) / 2 = 0.94375 → 0.94375 · 0.8 − 1 = −0.245; C (+5/11)
  // at (1.2 + 1.25) / 2 = 1.225 → 1.225 · 16/11 − 1 = +0.781818; A (−1/6) at (1.25 + 0.6875) / 2
  // = 0.96875 → 0.96875 · 5/6 − 1 = −0.192708. Mean |error| (1/6 + 0.2 + 5/11) / 3 = 0.273737;
  // paced (0.192708 + 0.245 + 0.781818) / 3 = 0.406509: pacing by two runs that disagree
  // makes the third worse, as it should be able to.
  const auto r = rank_series(cases());
  const SeriesRanking& s = r[0];
  REQUIRE(s.runs.size() == 3);  // B, C, A: measured order
  CHECK(s.pace == Approx(1.2));
  CHECK(s.runs[0].error == Approx(-0.2));
  CHECK(s.runs[0].paced_error == Approx(-0.245));
  CHECK(s.runs[1].paced_error == Approx(0.781818).epsilon(1e-5));
  CHECK(s.runs[2].paced_error == Approx(-0.192708).epsilon(1e-5));
  CHECK(s.mean_abs_error == Approx(0.273737).epsilon(1e-5));
  CHECK(s.paced_mean_abs_error == Approx(0.406509).epsilon(1e-5));
  // Series t: D 0.020 / 0.010 = 2 (error −0.5), E 0.015 / 0.012 = 1.25 (−0.2): pace (2 + 1.25) /
  // 2 = 1.625; D at E's 1.25 → −0.375, E at D's 2 → +0.6: a shared speed removed.
  const SeriesRanking& t = r[1];
  CHECK(t.pace == Approx(1.625));
  CHECK(t.runs[0].paced_error == Approx(0.6));     // E, measured faster
  CHECK(t.runs[1].paced_error == Approx(-0.375));  // D
  // A series of one run has no other run to pace it: its paced error stays 0.
  CHECK(r[2].runs[0].paced_error == 0);
}

TEST_CASE("ranking: the summary's errors over the runs of series of two runs or more",
          "[report][accuracy]") {
  // s (3 runs), t, v, w (2 each; u's one run left out). |error|: s 1/6, 0.2, 5/11; t 0.5, 0.2;
  // v V1 0.008 / 0.010 − 1 → 0.2, V2 0; w W1 0.2, W2 0.008 / 0.012 − 1 → 1/3: mean 2.254545 / 9
  // = 0.250505, median (the 5th of 9) 0.2. Paced: s 0.192708, 0.245, 0.781818; t 0.375, 0.6; v
  // V1 at V2's 1.0 → 0.2, V2 at V1's 1.25 → 0.25; w W1 at W2's 1.5 → 0.2, W2 at W1's 1.25 →
  // 1.25 · 2/3 − 1 = −1/6: mean 3.011193 / 9 = 0.334577, median 0.245.
  const RankingSummary sum = summarize(rank_series(cases()));
  CHECK(sum.runs == 9);
  CHECK(sum.mean_abs_error == Approx(0.250505).epsilon(1e-5));
  CHECK(sum.median_abs_error == Approx(0.2));
  CHECK(sum.paced_mean_abs_error == Approx(0.334577).epsilon(1e-5));
  CHECK(sum.paced_median_abs_error == Approx(0.245));
}
