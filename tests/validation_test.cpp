#include "report/validation.h"

#include <cmath>

#include <fmt/format.h>
#include <catch2/catch.hpp>

using namespace trainsim;

TEST_CASE("validation: the record is one summary per GPU preset and one over all",
          "[report][accuracy]") {
  const std::vector<GpuAccuracy> by = validation_by_gpu();
  const AccuracySummary all = validation_overall();
  REQUIRE(!by.empty());
  // Every case ran on one GPU preset: the per-preset counts add up to the suite's, and so do
  // the per-preset error sums (mean × cases), to the data's four decimals.
  int cases = 0;
  double abs_sum = 0, signed_sum = 0, largest = 0;
  for (const auto& g : by) {
    INFO(g.gpu);
    CHECK(!g.gpu.empty());  // the device's name, as reports print it (the suite's own or a preset)
    CHECK(g.summary.cases > 0);
    CHECK(g.summary.mean_abs_error <= g.summary.max_abs_error);
    CHECK(std::abs(g.summary.mean_error) <= g.summary.mean_abs_error + 1e-12);
    // The 10th percentile below the 90th, both within the largest |error|.
    CHECK(g.summary.p10_error <= g.summary.p90_error);
    CHECK(-g.summary.max_abs_error <= g.summary.p10_error);
    CHECK(g.summary.p90_error <= g.summary.max_abs_error);
    cases += g.summary.cases;
    abs_sum += g.summary.mean_abs_error * g.summary.cases;
    signed_sum += g.summary.mean_error * g.summary.cases;
    largest = std::max(largest, g.summary.max_abs_error);
    const auto own = validation_for_gpu(g.gpu);
    REQUIRE(own);
    CHECK(own->cases == g.summary.cases);
  }
  CHECK(cases == all.cases);
  CHECK(abs_sum / cases == Approx(all.mean_abs_error).margin(1e-4));
  CHECK(signed_sum / cases == Approx(all.mean_error).margin(1e-4));
  CHECK(largest == all.max_abs_error);
  // Names sorted, as check's per-GPU table is.
  for (std::size_t i = 1; i < by.size(); ++i) CHECK(by[i - 1].gpu < by[i].gpu);
}

TEST_CASE("validation: the report line quotes the GPU's record, or the suite's",
          "[report][accuracy]") {
  const auto h100 = validation_for_gpu("h100-sxm");
  REQUIRE(h100);
  const std::string line = validation_line("h100-sxm");
  CHECK_THAT(line, Catch::StartsWith(std::to_string(h100->cases) + " published h100-sxm runs"));
  CHECK_THAT(line,
             Catch::Contains(fmt::format("mean |error| {:.1f} %", h100->mean_abs_error * 100)));
  CHECK_THAT(line, Catch::Contains(h100->mean_error < 0 ? "too fast" : "too slow"));
  // A GPU no published run used: the whole suite's record, said as such.
  CHECK(!validation_for_gpu("my-gpu"));
  const std::string other = validation_line("my-gpu");
  CHECK_THAT(other, Catch::StartsWith("no published my-gpu run in the suite; all " +
                                      std::to_string(validation_overall().cases)));
  CHECK(validation_line("").empty());
  // The record behind the line: the GPU's own, else the suite's (gpu ""), none without a GPU.
  CHECK(validation_record("h100-sxm")->gpu == "h100-sxm");
  CHECK(validation_record("my-gpu")->gpu.empty());
  CHECK(validation_record("my-gpu")->summary.cases == validation_overall().cases);
  CHECK(!validation_record(""));
}

TEST_CASE("validation: the likely measured step, from the record's spread", "[report][accuracy]") {
  // error = predicted / measured − 1, so a 2 s prediction on H100s (their runs over
  // kLikelyMinCases) would measure 2 / (1 + p90) to 2 / (1 + p10).
  const auto h100 = validation_for_gpu("h100-sxm");
  REQUIRE(h100);
  REQUIRE(h100->cases >= kLikelyMinCases);
  const auto l = likely_step_time("h100-sxm", 2.0);
  REQUIRE(l);
  CHECK(l->basis.gpu == "h100-sxm");
  CHECK(l->low_s == Approx(2.0 / (1 + h100->p90_error)));
  CHECK(l->high_s == Approx(2.0 / (1 + h100->p10_error)));
  CHECK(l->low_s <= l->high_s);
  // The line says how far over the prediction the 10th percentile's runs measured:
  // 1 / (1 + p10) − 1 (the suite predicts too fast on average, so "over").
  const std::string line = likely_line("h100-sxm", 2.0);
  CHECK_THAT(
      line, Catch::Contains(fmt::format("8 in 10 of the {} published h100-sxm runs", h100->cases)));
  const double over = 1 / (1 + h100->p10_error) - 1;
  CHECK_THAT(line, Catch::Contains(fmt::format("{:.1f} % {} their prediction", std::abs(over) * 100,
                                               over < 0 ? "under" : "over")));
  CHECK_THAT(line, Catch::StartsWith(fmt::format("{:.2f}–{:.2f} s", l->low_s, l->high_s)));
  // A GPU with fewer runs than that, or none: the whole suite's spread, said as such.
  for (const auto& g : validation_by_gpu())
    if (g.summary.cases < kLikelyMinCases) {
      INFO(g.gpu);
      const auto few = likely_step_time(g.gpu, 2.0);
      REQUIRE(few);
      CHECK(few->basis.gpu.empty());
      CHECK(few->basis.summary.cases == validation_overall().cases);
      CHECK_THAT(likely_line(g.gpu, 2.0), Catch::Contains(fmt::format("(too few on {})", g.gpu)));
    }
  CHECK(likely_step_time("my-gpu", 2.0)->basis.gpu.empty());
  // Short steps in the upper end's unit: 20 ms over 1 + p90 … 1 + p10, three digits.
  const auto ms = likely_step_time("h100-sxm", 0.02);
  CHECK_THAT(likely_line("h100-sxm", 0.02),
             Catch::StartsWith(fmt::format("{:.1f}–{:.1f} ms", ms->low_s * 1e3, ms->high_s * 1e3)));
  // No GPU, no step: no range.
  CHECK(!likely_step_time("", 2.0));
  CHECK(!likely_step_time("h100-sxm", 0.0));
  CHECK(likely_line("", 2.0).empty());
}

TEST_CASE("validation: the likely measured step of an eager run, from the eager runs' spread",
          "[report][accuracy]") {
  // The suite's H100 runs under runtime: eager (the Playbook's, FlagPerf's DeepSpeed ones,
  // fms's: 17 in report/data/validation.inc) came out further too fast than its H100 runs as a
  // whole: their record's 90th percentile lies below the GPU's, so the range an eager run
  // would likely measure starts higher.
  const auto eager = validation_for_runtime("h100-sxm", "eager");
  const auto all = validation_for_gpu("h100-sxm");
  REQUIRE(eager);
  REQUIRE(all);
  REQUIRE(eager->cases >= kLikelyMinCases);
  CHECK(eager->cases < all->cases);
  CHECK(eager->p90_error < all->p90_error);
  const auto l = likely_step_time("h100-sxm", 2.0, "eager");
  REQUIRE(l);
  CHECK(l->runtime == "eager");
  CHECK(l->basis.gpu == "h100-sxm");
  CHECK(l->basis.summary.cases == eager->cases);
  CHECK(l->low_s == Approx(2.0 / (1 + eager->p90_error)));
  CHECK(l->high_s == Approx(2.0 / (1 + eager->p10_error)));
  CHECK(l->low_s > likely_step_time("h100-sxm", 2.0)->low_s);
  CHECK_THAT(likely_line("h100-sxm", 2.0, "eager"),
             Catch::Contains(fmt::format("8 in 10 of the {} published h100-sxm runs under "
                                         "runtime: eager",
                                         eager->cases)));
  // Too few runs of that runtime on the GPU: the GPU's whole record, as without a runtime.
  for (const auto& g : validation_by_gpu()) {
    const auto like = validation_for_runtime(g.gpu, "eager");
    if (like && like->cases >= kLikelyMinCases) continue;
    INFO(g.gpu);
    const auto few = likely_step_time(g.gpu, 2.0, "eager");
    REQUIRE(few);
    CHECK(few->runtime.empty());
    CHECK(few->basis.summary.cases == likely_step_time(g.gpu, 2.0)->basis.summary.cases);
  }
  // Every runtime's rows add up to the GPU's (each run has one runtime).
  for (const auto& g : validation_by_gpu()) {
    int cases = 0;
    for (const char* runtime : {"compiled", "eager", "fused"})
      if (const auto r = validation_for_runtime(g.gpu, runtime)) cases += r->cases;
    CHECK(cases == g.summary.cases);
  }
}

TEST_CASE("validation: the suite's record per tensor-parallel degree", "[report][accuracy]") {
  // Every run has one TP degree: the degrees' rows add up to the whole suite. Degree 1 has no
  // line (a run without TP), nor a degree the suite never ran (tp 3).
  int cases = 0;
  for (int tp = 1; tp <= 64; ++tp)
    if (const auto r = validation_for_tp(tp)) cases += r->cases;
  CHECK(cases == validation_overall().cases);
  CHECK(tp_validation_line(1).empty());
  CHECK_FALSE(validation_for_tp(3));
  CHECK(tp_validation_line(3).empty());
  const auto tp2 = validation_for_tp(2);
  REQUIRE(tp2);
  CHECK_THAT(
      tp_validation_line(2),
      Catch::StartsWith(fmt::format("{} published runs at tp 2, on any GPU: mean |error| "
                                    "{:.1f} %",
                                    tp2->cases, tp2->mean_abs_error * 100)) &&
          Catch::EndsWith(tp2->mean_error < 0 ? "too fast on average" : "too slow on average"));
  // The likely range of a tp-2 run comes from those runs when they are enough and further off
  // on average than the GPU's (tp 2's −11 % against B200's compiled runs' few-percent); of a
  // degree with too few (or none), or one no further off, from the GPU's as before.
  REQUIRE(tp2->cases >= kLikelyMinCases);
  const auto l = likely_step_time("b200", 2.0, "compiled", 2);
  REQUIRE(l);
  CHECK(l->tp == 2);
  CHECK(l->basis.gpu.empty());
  CHECK(l->basis.summary.cases == tp2->cases);
  CHECK(l->high_s == Approx(2.0 / (1 + tp2->p10_error)));
  CHECK_THAT(likely_line("b200", 2.0, "compiled", 2),
             Catch::Contains(
                 fmt::format("8 in 10 of the {} published runs at tp 2 on any GPU", tp2->cases)));
  // A search quotes every degree's mean signed error in one line, in ascending order.
  const std::string line = tp_record_line();
  CHECK_THAT(line, Catch::StartsWith(fmt::format(
                       "tp 1 {:+.1f} % ({} runs) · tp 2 {:+.1f} % ({} runs)",
                       validation_for_tp(1)->mean_error * 100, validation_for_tp(1)->cases,
                       tp2->mean_error * 100, tp2->cases)));
  CHECK_THAT(line, Catch::EndsWith("(negative = predicted too fast)"));
  const auto none = likely_step_time("b200", 2.0, "compiled", 3);
  REQUIRE(none);
  CHECK(none->tp == 0);
  CHECK(none->basis.summary.cases ==
        likely_step_time("b200", 2.0, "compiled")->basis.summary.cases);
  // Whichever record is further off on average wins, for every GPU and degree in the record.
  for (int tp : {2, 4, 8}) {
    const auto wide = validation_for_tp(tp);
    REQUIRE(wide);
    for (const auto& g : validation_by_gpu()) {
      INFO(g.gpu << " at tp " << tp);
      const auto plain = likely_step_time(g.gpu, 2.0, "", 1);
      const auto at = likely_step_time(g.gpu, 2.0, "", tp);
      REQUIRE(plain);
      REQUIRE(at);
      const bool wider = wide->cases >= kLikelyMinCases &&
                         std::abs(wide->mean_error) > std::abs(plain->basis.summary.mean_error);
      CHECK(at->tp == (wider ? tp : 0));
      CHECK(at->basis.summary.cases == (wider ? wide->cases : plain->basis.summary.cases));
    }
  }
  // tp 4's runs have not been further off than GB300's (−1.8 % against −5.4 % in the record):
  // a tp-4 GB300 run keeps its GPU's range.
  const auto tp4 = validation_for_tp(4);
  const auto gb300 = validation_for_gpu("gb300");
  REQUIRE(tp4);
  REQUIRE(gb300);
  if (std::abs(tp4->mean_error) < std::abs(gb300->mean_error))
    CHECK(likely_step_time("gb300", 2.0, "", 4)->tp == 0);
}

TEST_CASE("validation: the layout ranking's record and its line", "[report][accuracy]") {
  // The suite's series (report/ranking.h): at least one of two runs or more, so pairs; right
  // pairs and picked series within their totals; the line quotes them.
  const RankingSummary t = validation_ranking();
  CHECK(t.series > 0);
  CHECK(t.pairs >= t.series);  // a series of two runs or more has a pair, unless tied
  CHECK(t.ordered_right <= t.pairs);
  CHECK(t.fastest_picked <= t.series);
  CHECK_THAT(ranking_line(),
             Catch::StartsWith(fmt::format("{} of {} pairs of published runs measured together "
                                           "ordered as measured; the measured fastest picked in "
                                           "{} of {} series",
                                           t.ordered_right, t.pairs, t.fastest_picked, t.series)));
  // And the runs' median |error| as predicted and at the pace of their series' other runs.
  CHECK(t.runs >= 2 * t.series);
  CHECK(t.median_abs_error > 0);
  CHECK(t.paced_median_abs_error > 0);
  CHECK_THAT(ranking_line(), Catch::Contains(fmt::format(
                                 "a run's step time {:.1f} % off at the median, {:.1f} % "
                                 "at the pace its series' other runs measured",
                                 t.median_abs_error * 100, t.paced_median_abs_error * 100)));
}

TEST_CASE("validation: what a search prints under its ranking", "[report][accuracy]") {
  // The GPU's record, every TP degree's, then the layout order, a line each; without a GPU the
  // last two.
  CHECK(search_record_lines("h100-sxm") == "validation: " + validation_line("h100-sxm") +
                                               "\nby TP degree: " + tp_record_line() +
                                               "\nlayout order: " + ranking_line() + "\n");
  CHECK(search_record_lines("") ==
        "by TP degree: " + tp_record_line() + "\nlayout order: " + ranking_line() + "\n");
}
