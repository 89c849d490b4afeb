#include "search/layout_search.h"

#include <array>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_util.h"

using namespace trainsim;

namespace {
// One node of 8 H100s; `model` and `batch` vary.
Scenario node8(const std::string& model = "llama-3.1-8b", int global_batch = 64, int pp = 4) {
  return test::yaml(fmt::format(
      "model: {}\ncluster: {{gpu: h100-sxm, gpus_per_node: 8, nodes: 1}}\n"
      "parallelism: {{pp: {}, dp: {}}}\ntraining: {{seq_len: 4096, global_batch_size: {}}}\n",
      model, pp, 8 / pp, global_batch));
}

std::vector<std::array<int, 3>> dp_tp_pp(const std::vector<LayoutCandidate>& cs) {
  std::vector<std::array<int, 3>> out;
  for (const auto& c : cs) out.push_back({c.dp, c.tp, c.pp});
  return out;
}
}  // namespace

TEST_CASE("search: candidates are every tp (powers of two in a node) × pp dividing the GPUs",
          "[search]") {
  // 8 GPUs: tp 1 → pp 1, 2, 4, 8; tp 2 → 1, 2, 4; tp 4 → 1, 2; tp 8 → 1: 10 layouts, dp the rest.
  const auto all = layout_candidates(node8(), {});
  CHECK(dp_tp_pp(all) == std::vector<std::array<int, 3>>{{8, 1, 1},
                                                         {4, 1, 2},
                                                         {2, 1, 4},
                                                         {1, 1, 8},
                                                         {4, 2, 1},
                                                         {2, 2, 2},
                                                         {1, 2, 4},
                                                         {2, 4, 1},
                                                         {1, 4, 2},
                                                         {1, 8, 1}});
  for (const auto& c : all) {
    CHECK(c.vpp == 1);               // the scenario's
    CHECK(c.micro_batch_size == 1);  // the scenario's
    CHECK(c.schedule.empty());       // the scenario's
  }
  // A global batch of 4 sequences cannot be split over dp 8: that one layout is left out.
  CHECK(layout_candidates(node8("llama-3.1-8b", 4), {}).size() == 9);
  // Given lists: tp 3 does not divide 8 GPUs; tp 2 × pp {2, 4} × b {1, 2} × 2 schedules = 8.
  const auto some = layout_candidates(node8(), {{2, 3}, {2, 4}, {}, {1, 2}, {"1f1b", "zb-h1"}});
  REQUIRE(some.size() == 8);
  CHECK(some[0].dp == 2);
  CHECK(some[0].schedule == "1f1b");
  CHECK(some[1].schedule == "zb-h1");
  CHECK(some[2].micro_batch_size == 2);
  CHECK(some[7].pp == 4);
  CHECK(some[7].dp == 1);
}

TEST_CASE("search: results are ranked, and each is the layout simulated as --set would",
          "[search]") {
  const Scenario base = node8();
  const auto results = search_layouts(base, {});
  REQUIRE(results.size() == 10);
  // dp 8 × tp 1 × pp 1 holds all 8.03 B parameters with Adam on every GPU: 16 bytes each is
  // 128 GB, over the H100's 80 GiB (85.9 GB); it ranks after every layout that fits.
  const SearchResult& last = results.back();
  CHECK(last.layout.dp == 8);
  CHECK(last.out_of_memory);
  CHECK(last.peak_memory > 16 * 8.0e9);
  double previous = 0;
  for (std::size_t i = 0; i + 1 < results.size(); ++i) {
    const SearchResult& r = results[i];
    INFO("rank " << i + 1 << ": dp " << r.layout.dp << " tp " << r.layout.tp << " pp "
                 << r.layout.pp);
    REQUIRE(r.ran());
    CHECK_FALSE(r.out_of_memory);
    CHECK(r.report.step_time_s >= previous);
    previous = r.report.step_time_s;
    // The same layout through the loader's overrides gives the same step.
    std::vector<std::string> sets = r.layout.overrides();
    const Scenario direct = parse_scenario(base.canonical_yaml, "test.yaml", sets);
    CHECK(to_seconds(test::makespan(direct)) == r.report.step_time_s);
    CHECK(r.report.microbatches == 64 / r.layout.dp);  // the global batch is kept
  }
}

TEST_CASE("search: what the loader rejects is kept with its message, grouped in the text",
          "[search]") {
  // Two layers: pp 4 and pp 8 exceed them (tp 1 pp 4, tp 1 pp 8, tp 2 pp 4: three layouts).
  const Scenario base = node8("{preset: llama-3.2-1b, layers: 2}", 64, 2);
  const auto results = search_layouts(base, {});
  REQUIRE(results.size() == 10);
  int failed = 0;
  for (const auto& r : results)
    if (!r.ran()) {
      ++failed;
      CHECK(r.layout.pp >= 4);
      CHECK(r.error.find("exceed the model's 2 layers") != std::string::npos);
    }
  CHECK(failed == 3);
  for (int i = 0; i < 7; ++i) CHECK(results[static_cast<std::size_t>(i)].ran());
  const std::string text = format_search(base, results, 10);
  CHECK(text.find("cannot run: 3 layouts (all in --json), for 1 reason:") != std::string::npos);
  CHECK(text.find("  3 layouts like dp 2 · tp 1 · pp 4") != std::string::npos);
  const nlohmann::json j = search_to_json(base, results);
  REQUIRE(j["results"].size() == 10);
  CHECK(j["results"][9]["ran"] == false);
  CHECK(j["results"][0]["report"]["step_time_s"].get<double>() == results[0].report.step_time_s);
}

TEST_CASE("search: refuses what it cannot lay out", "[search]") {
  // A costs-only study: durations are given per stage, so the layout changes nothing.
  CHECK_THROWS_WITH(layout_candidates(test::pipeline(4, 8, 1, 2), {}),
                    Catch::Contains("search needs a model"));
  CHECK_THROWS_WITH(layout_candidates(node8(), {{0}, {}, {}, {}, {}}),
                    Catch::Contains("--tp must be 1 or more, got 0"));
  CHECK_THROWS_AS(layout_candidates(node8(), {{}, {}, {}, {}, {"nope"}}), InputError);
  // tp 16 does not divide one node's 8 GPUs: nothing is left to try.
  CHECK_THROWS_WITH(layout_candidates(node8(), {{16}, {}, {}, {}, {}}),
                    Catch::Contains("no layout to try"));
}
