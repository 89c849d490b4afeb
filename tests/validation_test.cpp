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
}

TEST_CASE("validation: what a search prints under its ranking", "[report][accuracy]") {
  // The GPU's record, then the layout order, a line each; without a GPU only the order.
  CHECK(search_record_lines("h100-sxm") ==
        "validation: " + validation_line("h100-sxm") + "\nlayout order: " + ranking_line() + "\n");
  CHECK(search_record_lines("") == "layout order: " + ranking_line() + "\n");
}
