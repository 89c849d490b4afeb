#include "search/layout_search.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/quantity.h"
#include "report/memory_report.h"
#include "report/validation.h"
#include "run/simulate.h"
#include "schedules/csv.h"
#include "schedules/registry.h"
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

// Only the parallel sizes vary: ZeRO, SP and recompute are fixed at the scenario's (0, off, none).
// A small MoE that fits: 4 layers of 8 experts (top 2) on dp 8 of one node of H100s.
Scenario small_moe() {
  return test::yaml(R"(model: {layers: 4, hidden: 1024, ffn_hidden: 2048, heads: 8,
        vocab: 1000, moe: {experts: 8, top_k: 2}}
training: {seq_len: 1024, global_batch_size: 8}
cluster: {gpu: h100-sxm, gpus_per_node: 8}
parallelism: {dp: 8}
)");
}

SearchSpace sizes_only(std::vector<int> tp = {}, std::vector<int> pp = {},
                       std::vector<int> mbs = {}, std::vector<std::string> schedules = {}) {
  SearchSpace s;
  s.tp = std::move(tp);
  s.pp = std::move(pp);
  s.micro_batch_sizes = std::move(mbs);
  s.schedules = std::move(schedules);
  s.zero = {0};
  s.sequence_parallel = {0};
  s.recompute = {Recompute::None};
  return s;
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
  const auto all = layout_candidates(node8(), sizes_only());
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
  CHECK(layout_candidates(node8("llama-3.1-8b", 4), sizes_only()).size() == 9);
  // Given lists: tp 3 does not divide 8 GPUs; tp 2 × pp {2, 4} × b {1, 2} × 2 schedules = 8.
  const auto some =
      layout_candidates(node8(), sizes_only({2, 3}, {2, 4}, {1, 2}, {"1f1b", "zb-h1"}));
  REQUIRE(some.size() == 8);
  CHECK(some[0].dp == 2);
  CHECK(some[0].schedule == "1f1b");
  CHECK(some[1].schedule == "zb-h1");
  CHECK(some[2].micro_batch_size == 2);
  CHECK(some[7].pp == 4);
  CHECK(some[7].dp == 1);
}

TEST_CASE("search: a file's layout sized for other GPUs is read with the dp that fills them",
          "[search]") {
  // node8's layout is dp 2 · pp 4 on 8 GPUs, 64 sequences a step of micro-batch 1.
  const std::string yaml = node8().canonical_yaml;
  // Without the search's adjustment, two nodes leave 2 × 1 × 4 = 8 of the 16 GPUs idle.
  CHECK_THROWS_AS(parse_scenario(yaml, "t.yaml", {"cluster.nodes=2"}), ScenarioError);
  const Scenario two = parse_scenario(yaml, "t.yaml", {"cluster.nodes=2"}, fill_gpus_with_dp);
  CHECK((std::array{two.layout.dp, two.layout.tp, two.layout.pp} == std::array{4, 1, 4}));
  CHECK(two.where("parallelism.dp") == "trainsim search: filling the 16 GPUs");
  // Three nodes: 24 / 4 = dp 6 does not divide 64 sequences; the largest dp of the 24 GPUs
  // that does is 8 (24 and 12 do not), pp taking the other 3.
  const Scenario three = parse_scenario(yaml, "t.yaml", {"cluster.nodes=3"}, fill_gpus_with_dp);
  CHECK((std::array{three.layout.dp, three.layout.tp, three.layout.pp} == std::array{8, 1, 3}));
  CHECK(three.where("parallelism.pp") == "trainsim search: filling the 24 GPUs");
  // A layout that covers its GPUs is left as the file gives it.
  const Scenario one = parse_scenario(yaml, "t.yaml", {}, fill_gpus_with_dp);
  CHECK((std::array{one.layout.dp, one.layout.pp} == std::array{2, 4}));
  CHECK(one.where("parallelism.dp") != "trainsim search: filling the 8 GPUs");
  // And the search runs on the filled base: every candidate uses the 16 GPUs.
  for (const LayoutCandidate& c : layout_candidates(two, sizes_only()))
    CHECK(c.dp * c.tp * c.pp == 16);
}

TEST_CASE("search: results are ranked, and each is the layout simulated as --set would",
          "[search]") {
  const Scenario base = node8();
  const auto results = search_layouts(base, sizes_only(), {0, 1});
  REQUIRE(results.size() == 10);
  // dp 8 × tp 1 × pp 1 holds all 8.03 B parameters with Adam on every GPU: 16 bytes each is
  // 128 GB, over the H100's 79.18 GiB (85.0 GB), before any activation: it is ruled out without
  // simulating and ranks after every layout that fits.
  const SearchResult& last = results.back();
  CHECK(last.layout.dp == 8);
  CHECK(last.ruled_out);
  CHECK_FALSE(last.ran());
  CHECK(last.static_memory > 16 * 8.0e9);
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
  const auto results = search_layouts(base, sizes_only());
  REQUIRE(results.size() == 10);
  int failed = 0;
  for (const auto& r : results)
    if (!r.ran()) {
      ++failed;
      CHECK(r.layout.pp >= 4);
      CHECK(r.error.find("exceed the model's 2 layers") != std::string::npos);
      // validate() places it at the search's edit, the layout in words.
      CHECK(r.error.find("trainsim search: " + r.layout.words() + ": parallelism.pp") !=
            std::string::npos);
    }
  CHECK(failed == 3);
  for (int i = 0; i < 7; ++i) CHECK(results[static_cast<std::size_t>(i)].ran());
  const std::string text = format_search(base, results, 10);
  CHECK(text.find("cannot run: 3 layouts (all in --json), for 1 reason:") != std::string::npos);
  CHECK(text.find("  3 layouts like dp 2 · tp 1 · pp 4") != std::string::npos);
  // Beside the ranking, how far step times on this GPU (H100 SXM) have been off
  // (report/validation.h), and each candidate's report carries the same record.
  CHECK(text.find("validation: " + validation_line("h100-sxm") + "\n") != std::string::npos);
  // And how well the suite's runs measured together were ordered, the record a ranking needs.
  CHECK(text.find("layout order: " + ranking_line() + "\n") != std::string::npos);
  // And each TP degree's mean signed error: a ranking across degrees inherits their errors.
  CHECK(text.find("by TP degree: " + tp_record_line() + "\n") != std::string::npos);
  const nlohmann::json j = search_to_json(base, results);
  // --json carries the same rows: each degree's record, ascending.
  const auto by_tp = validation_by_tp();
  REQUIRE(j["validation_by_tp"].size() == by_tp.size());
  CHECK(j["validation_by_tp"][1]["tp"] == by_tp[1].first);
  CHECK(j["validation_by_tp"][1]["mean_error"].get<double>() == by_tp[1].second.mean_error);
  REQUIRE(j["results"].size() == 10);
  CHECK(j["results"][9]["ran"] == false);
  // A layout not simulated has no peak: null, not 0 (which a sort by memory would put first).
  CHECK(j["results"][9]["peak_memory_bytes"].is_null());
  CHECK(j["results"][0]["peak_memory_bytes"].get<double>() == results[0].peak_memory);
  // A layout that ran has no error: null, not ""; one that could not run says why.
  CHECK(j["results"][0]["error"].is_null());
  CHECK(j["results"][9]["error"].is_string());
  CHECK(j["results"][0]["report"]["step_time_s"].get<double>() == results[0].report.step_time_s);
  CHECK(j["results"][0]["report"]["validation"]["gpu"] == "h100-sxm");
  CHECK(j["validation_ranking"]["pairs"] == validation_ranking().pairs);
  CHECK(j["validation_ranking"]["ordered_right"] == validation_ranking().ordered_right);
}

TEST_CASE("search: ZeRO-3's buckets apply to ZeRO-3 layouts, the other stages run without",
          "[search][zero3]") {
  // A DeepSpeed-style ZeRO-3 scenario (dp 8, gather and reduce buckets) searched over ZeRO 1
  // and 3: every layout runs; the ZeRO-3 ones keep the buckets, the ZeRO-1 ones drop them
  // (validate() would refuse them there).
  Scenario base = node8("llama-3.2-1b", 64, 1);
  base.layout.zero = 3;
  base.layout.fsdp.gather_bucket = 20e6;
  base.layout.fsdp.reduce_bucket = 20e6;
  SearchSpace space = sizes_only({1}, {1});
  space.zero = {1, 3};
  const auto results = search_layouts(base, space);
  REQUIRE(results.size() == 2);
  for (const auto& r : results) {
    INFO(r.layout.words() << ": " << r.error);
    CHECK(r.ran());
    Scenario s = base;
    r.layout.apply(s);
    CHECK(s.layout.fsdp.gather_bucket.has_value() == (r.layout.zero == 3));
    CHECK(s.layout.fsdp.reduce_bucket.has_value() == (r.layout.zero == 3));
  }
}

TEST_CASE("search: a schedule is not tried at a chunk count it does not take", "[search]") {
  // 1F1B takes vpp 1, ZB-V vpp 2 (registry.h): of the 2 × 2 (schedule, vpp) pairs per layout
  // only those two are candidates (the others had been listed as "cannot run" with the
  // generator's message), and both run.
  SearchSpace space = sizes_only({1}, {2}, {}, {"1f1b", "zb-v"});
  space.vpp = {1, 2};
  const auto results = search_layouts(node8(), space, {0, 1});
  REQUIRE(results.size() == 2);
  for (const auto& r : results) {
    CHECK((r.layout.schedule == "1f1b") == (r.layout.vpp == 1));
    CHECK(r.error.empty());
  }
}

TEST_CASE("search: the table names the dimensions left at the scenario's value that may win",
          "[search]") {
  // tp 2 · pp 2 (dp 2), the scenario's vpp 1 and no TP overlap: both are named as untried, with
  // the flags that try them; with vpp 1 and 2 and overlap off and on, neither.
  SearchSpace held = sizes_only({2}, {2});
  const auto a = search_layouts(node8(), held, {0, 1});
  REQUIRE(a.front().ran());
  CHECK_THAT(format_search(node8(), a, 5),
             Catch::Contains("not tried, and may be faster: interleaved stages (--vpp 1,2,4 "
                             "--schedules 1f1b,interleaved-1f1b); TP comm-GEMM overlap "
                             "(--tp-overlap off,on)"));
  SearchSpace varied = sizes_only({2}, {2}, {}, {"1f1b", "interleaved-1f1b"});
  varied.vpp = {1, 2};
  varied.tp_overlap = {0, 1};
  const auto b = search_layouts(node8(), varied, {0, 1});
  CHECK_THAT(format_search(node8(), b, 5), !Catch::Contains("not tried"));
  // At tp 1 · pp 1 there is nothing to interleave or overlap.
  const auto c = search_layouts(node8(), sizes_only({1}, {1}), {0, 1});
  CHECK_THAT(format_search(node8(), c, 5), !Catch::Contains("not tried"));
}

TEST_CASE("search: refuses what it cannot lay out", "[search]") {
  // A costs-only study: durations are given per stage, so the layout changes nothing.
  CHECK_THROWS_WITH(layout_candidates(test::pipeline(4, 8, 1, 2), {}),
                    Catch::Contains("search needs a model"));
  CHECK_THROWS_WITH(layout_candidates(node8(), sizes_only({0})),
                    Catch::Contains("--tp must be 1 or more, got 0"));
  CHECK_THROWS_AS(layout_candidates(node8(), sizes_only({}, {}, {}, {"nope"})), InputError);
  // tp 16 does not divide one node's 8 GPUs: nothing is left to try, and the error says which
  // filter left nothing, with the values asked.
  CHECK_THROWS_WITH(layout_candidates(node8(), sizes_only({16})),
                    Catch::Contains("no layout to try: no tp × pp × cp divides the cluster's 8 "
                                    "GPUs (tp 16, pp any, cp 1)"));
  // 64 sequences a step: micro-batches of 128 fit no dp.
  CHECK_THROWS_WITH(layout_candidates(node8(), sizes_only({}, {}, {128})),
                    Catch::Contains("no dp these GPUs leave does with micro-batch size 128"));
  // A dense model has no experts to split.
  SearchSpace ep = sizes_only();
  ep.ep = {2};
  CHECK_THROWS_WITH(layout_candidates(node8(), ep),
                    Catch::Contains("no layout to try: --ep 2: ep = 2 needs a mixture of experts"));
  // Chunks per rank at pp 1: no pipeline to interleave.
  SearchSpace chunks = sizes_only({}, {1}, {}, {"interleaved-1f1b"});
  chunks.vpp = {2};
  CHECK_THROWS_WITH(layout_candidates(node8(), chunks),
                    Catch::Contains("no layout to try: chunks per rank (--vpp above 1) need a "
                                    "pipeline: pp 1 has none"));
  // Full recompute of 40 layers per stage: no stage of the 32-layer model holds that many.
  SearchSpace rc = sizes_only();
  rc.recompute.clear();
  rc.recompute_layers = {40};
  CHECK_THROWS_WITH(layout_candidates(node8(), rc),
                    Catch::Contains("no layout to try: --recompute 40: full recompute of N layers "
                                    "needs N below a stage's layers"));
}

TEST_CASE("search: a batch the file's dp does not divide is refitted, not refused", "[search]") {
  // node8: dp 2 · pp 4 on 8 GPUs; 63 sequences a step is odd, so dp 2 cannot split it: the base
  // becomes the largest dp that does (1), pp taking the GPUs (8), and the search runs.
  const std::string yaml = node8().canonical_yaml;
  CHECK_THROWS_AS(parse_scenario(yaml, "t.yaml", {"training.global_batch_size=63"}), ScenarioError);
  const Scenario odd =
      parse_scenario(yaml, "t.yaml", {"training.global_batch_size=63"}, fill_gpus_with_dp);
  CHECK((std::array{odd.layout.dp, odd.layout.tp, odd.layout.pp} == std::array{1, 1, 8}));
  for (const LayoutCandidate& c : layout_candidates(odd, sizes_only())) CHECK(c.dp == 1);
}

TEST_CASE(
    "search: ZeRO, sequence parallelism and recompute are dimensions, collapsed where "
    "they change nothing",
    "[search]") {
  // 8 GPUs, the 10 (tp, pp) of the first test. ZeRO 0–3 only where dp > 1 (dp 1: one value),
  // SP off/on only where tp > 1, recompute none/selective/full everywhere:
  //   tp 1: dp 8, 4, 2 → 4 · 3 = 12 each; dp 1 → 3              = 39
  //   tp 2: dp 4, 2 → 4 · 2 · 3 = 24 each; dp 1 → 2 · 3          = 54
  //   tp 4: dp 2 → 24; dp 1 → 6                                  = 30
  //   tp 8: dp 1 → 6                                             =  6
  const auto all = layout_candidates(node8(), {});
  CHECK(all.size() == 129);
  for (const auto& c : all) {
    if (c.dp == 1) CHECK(c.zero == 0);
    if (c.tp == 1) CHECK_FALSE(c.sequence_parallel);
    CHECK_FALSE(c.tp_overlap);  // the scenario's
  }
  // A listed dimension: --zero 1,3 --recompute full on tp 2 · pp 1 (dp 4): 2 · 2 (SP) = 4.
  SearchSpace some;
  some.tp = {2};
  some.pp = {1};
  some.zero = {1, 3};
  some.recompute = {Recompute::Full};
  const auto four = layout_candidates(node8(), some);
  REQUIRE(four.size() == 4);
  CHECK(four[0].zero == 1);
  CHECK_FALSE(four[0].sequence_parallel);
  CHECK(four[1].sequence_parallel);
  CHECK(four[3].zero == 3);
  for (const auto& c : four) CHECK(c.recompute == Recompute::Full);
  // Each candidate is what its overrides load: ZeRO-3 with SP and full recompute.
  const Scenario sc = parse_scenario(node8().canonical_yaml, "t.yaml", four[3].overrides());
  CHECK(sc.layout.zero == 3);
  CHECK(sc.layout.sequence_parallel);
  CHECK(sc.training.recompute == Recompute::Full);
  SearchSpace bad;
  bad.zero = {4};
  CHECK_THROWS_WITH(layout_candidates(node8(), bad), Catch::Contains("--zero takes 0 to 3, got 4"));
}

TEST_CASE("search: a candidate's overrides drop what it drops from the scenario", "[search]") {
  // A scenario with selective recompute of the MLP and DeepSpeed-style ZeRO-3 buckets: where the
  // search tries full recompute or ZeRO 1, the overrides alone (as trainsim-gui opens a result)
  // load, without the modules or the buckets; where it tries selective, the modules hold.
  const Scenario base =
      parse_scenario(node8().canonical_yaml, "t.yaml",
                     {"training.recompute=selective", "training.recompute_modules=mlp",
                      "parallelism.zero=3", "parallelism.fsdp.gather_bucket=64MB"});
  SearchSpace space = sizes_only({1}, {1});
  space.zero = {1, 3};
  space.recompute = {Recompute::Selective, Recompute::Full};
  const auto cs = layout_candidates(base, space);
  REQUIRE(cs.size() == 4);
  for (const auto& c : cs) {
    INFO(c.words());
    const Scenario sc = parse_scenario(base.canonical_yaml, "t.yaml", c.overrides());
    CHECK(sc.layout.zero == c.zero);
    CHECK(sc.training.recompute == c.recompute);
    CHECK(recompute_modules(sc.training).mlp == (c.recompute == Recompute::Selective));
    CHECK(sc.layout.fsdp.gather_bucket.has_value() == (c.zero == 3));
  }
}

TEST_CASE("search: recompute of N layers per stage is a choice where N is below the stage's",
          "[search]") {
  // Llama-3.1-8B (32 layers) with --recompute none,4,16 at tp 1, ZeRO 0, SP off: pp 1 and 2
  // (32 and 16 layers per stage) and pp 4 (8) try none and 4; pp 1 also 16; 16 at pp 2 and 4 at
  // pp 8 (4 layers) are full recompute of every layer, and left out.
  SearchSpace space = sizes_only({1}, {1, 2, 4, 8});
  space.recompute = {Recompute::None};
  space.recompute_layers = {4, 16};
  const auto cs = layout_candidates(node8(), space);
  std::vector<std::pair<int, int>> pp_layers;
  for (const auto& c : cs) {
    CHECK(c.recompute == (c.recompute_layers > 0 ? Recompute::Full : Recompute::None));
    pp_layers.emplace_back(c.pp, c.recompute_layers);
  }
  CHECK(pp_layers == std::vector<std::pair<int, int>>{
                         {1, 0}, {1, 4}, {1, 16}, {2, 0}, {2, 4}, {4, 0}, {4, 4}, {8, 0}});
  // The candidate is what its overrides load, and it reads as words.
  const LayoutCandidate& four = cs[1];
  const Scenario sc = parse_scenario(node8().canonical_yaml, "t.yaml", four.overrides());
  CHECK(sc.training.recompute == Recompute::Full);
  CHECK(sc.training.recompute_layers == 4);
  CHECK(four.recompute_text() == "4 layers");
  CHECK(four.words().find("recompute 4 layers/stage") != std::string::npos);
}

TEST_CASE("search: FP8 layouts with a pipeline are not ruled out by every stage's FP8 weights",
          "[search]") {
  // Under FP8 each GPU keeps its own stages' linear weights in FP8 (and the transpose on an
  // H100): 2 bytes a parameter, on its stages only. The static bound had added every stage's to
  // one GPU, ruling out pipelines that fit (Mixtral 8x7B at tp 2 · pp 4: 88.8 GB "needed", 68.5
  // GB peak). Llama-3.1-8B at pp 2, 4, 8 under FP8 with ZeRO-1 (without it pp 2 needs 87.5 GB
  // of the 85.0, ruled out by its activations in flight, rightly): each ran, above its own bound.
  SearchSpace space = sizes_only({1}, {2, 4, 8});
  space.precision = {Precision::FP8};
  space.zero = {1};
  const auto results = search_layouts(node8(), space, {0, 1});
  int ran = 0;
  for (const auto& r : results) {
    INFO(r.layout.words());
    CHECK_FALSE(r.ruled_out);
    if (!r.ran()) continue;
    ++ran;
    CHECK(r.peak_memory >= r.static_memory);
  }
  CHECK(ran == 3);
}

TEST_CASE("search: the bundled 8B question finds dp 8 with sharded optimizer states", "[search]") {
  // dp 8 without ZeRO does not fit (130 GB of static memory); with ZeRO the optimizer states
  // (12 B per parameter) are split 8 ways and it runs without a pipeline bubble.
  const auto results = search_layouts(node8(), {}, {0, 1});
  const SearchResult& best = results.front();
  REQUIRE(best.ran());
  CHECK_FALSE(best.out_of_memory);
  CHECK(best.layout.dp == 8);
  CHECK(best.layout.zero >= 1);
  // No ZeRO-0 dp 8 layout ran: each was ruled out on its static memory.
  for (const auto& r : results)
    if (r.layout.dp == 8 && r.layout.zero == 0) CHECK(r.ruled_out);
  // Every layout that ran stays above its own static lower bound.
  for (const auto& r : results)
    if (r.ran()) CHECK(r.peak_memory >= r.static_memory);
  // The table's note names the smallest ruled-out layout with its ZeRO stage, even 0: beside the
  // winner's dp 8 with sharded states, "dp 8 · tp 1 · pp 1 · b 1" alone would read as the same.
  CHECK_THAT(format_search(node8(), results, 5, {}),
             Catch::Contains("(the smallest, dp 8 · tp 1 · pp 1 · b 1 · no ZeRO, needs"));
  // So is a tp > 1 layout without sequence parallelism, beside rows that differ by it alone.
  LayoutCandidate no_sp = best.layout;
  no_sp.tp = 2;
  no_sp.sequence_parallel = false;
  CHECK_THAT(no_sp.words(true), Catch::Contains(" · no SP"));
  CHECK_THAT(no_sp.words(), !Catch::Contains("SP"));
  // The gradients' width, which moves what fits (Megatron's fp32 buffer: 2 bytes a parameter
  // more), is said under the table; with the fp32 buffer set, nothing to say.
  CHECK_THAT(format_search(node8(), results, 5, {}),
             Catch::Contains("gradients: 16-bit (training.fp32_grad_accumulation: false)"));
  Scenario fp32 = node8();
  fp32.training.fp32_grad_accumulation = true;
  CHECK_THAT(format_search(fp32, results, 5, {}), !Catch::Contains("gradients: 16-bit"));
}

TEST_CASE("search: a measured run of the scenario's own layout sets a pace for the others",
          "[search]") {
  // The scenario as given (pp 4 · dp 2) simulated, then "measured" at 1.25 times that: the
  // pace is 1.25, and the fastest layout's step read at it is 1.25 times its prediction.
  Scenario base = node8();
  const double predicted = make_report(simulate(base)).step_time_s;
  base.measured = Measured{Measured::Metric::StepTime, 1.25 * predicted, "a test run", "", {}};
  const std::optional<MeasuredPace> pace = measured_pace(base);
  REQUIRE(pace.has_value());
  CHECK(pace->predicted_s == predicted);
  CHECK(pace->pace() == Approx(1.25));
  const auto results = search_layouts(base, sizes_only(), {0, 1});
  REQUIRE(results.front().ran());
  const double fastest = results.front().report.step_time_s;
  CHECK(fastest < predicted);  // pp 4 has a bubble; dp 8 has none
  const std::string line = measured_pace_line(pace, results);
  CHECK_THAT(line, Catch::StartsWith("measured: the scenario's own layout took " +
                                     format_time(1.25 * predicted) + " a step against " +
                                     format_time(predicted) + " predicted (×1.250, a test run)"));
  CHECK_THAT(line, Catch::Contains("the fastest here, #1, takes " + format_time(1.25 * fastest) +
                                   " (" + format_time(fastest) + " predicted"));
  CHECK_THAT(format_search(base, results, 5), Catch::Contains(line + "\n"));
  const nlohmann::json j = search_to_json(base, results);
  CHECK(j["measured_pace"]["pace"].get<double>() == Approx(1.25));
  CHECK(j["measured_pace"]["predicted_step_s"].get<double>() == predicted);
  CHECK(j["measured_pace"]["source"] == "a test run");
  // A throughput converts: tokens/s at 1 / 1.25 of the predicted rate is the same pace.
  base.measured =
      Measured{Measured::Metric::TokensPerS, 64 * 4096 / predicted / 1.25, "a throughput", "", {}};
  CHECK(measured_pace(base)->pace() == Approx(1.25));
  // Without a measured figure: no pace, no line, null in the JSON.
  base.measured.reset();
  CHECK_FALSE(measured_pace(base).has_value());
  CHECK(measured_pace_line(std::nullopt, results).empty());
  CHECK(format_search(base, results, 5).find("measured:") == std::string::npos);
  CHECK(search_to_json(base, results)["measured_pace"].is_null());
}

TEST_CASE("search: any number of threads gives the same ranking", "[search]") {
  SearchSpace space;
  space.recompute = {Recompute::None, Recompute::Full};
  const auto one = search_layouts(node8(), space, {0, 1});
  const auto three = search_layouts(node8(), space, {0, 3});
  REQUIRE(one.size() == three.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    INFO("rank " << i + 1);
    CHECK(one[i].layout.overrides() == three[i].layout.overrides());
    CHECK(one[i].report.step_time_s == three[i].report.step_time_s);
    CHECK(one[i].peak_memory == three[i].peak_memory);
    CHECK(one[i].pareto == three[i].pareto);
  }
}

TEST_CASE("search: the Pareto front, headroom, CSV", "[search]") {
  const Scenario base = node8();
  const auto results = search_layouts(base, {}, {0, 2});
  // Every fitting layout off the front is beaten on both step time and memory by one on it.
  std::vector<const SearchResult*> front;
  for (const auto& r : results)
    if (r.pareto) front.push_back(&r);
  REQUIRE(front.size() >= 2);
  CHECK(front.front() == &results.front());  // the fastest is on it
  for (const auto& r : results) {
    if (!r.ran() || r.out_of_memory || r.pareto) continue;
    CHECK(std::any_of(front.begin(), front.end(), [&](const SearchResult* f) {
      return f->report.step_time_s <= r.report.step_time_s && f->peak_memory <= r.peak_memory;
    }));
  }
  // A 50 % headroom leaves 42.95 GB: nothing that ran needs more, and more are left out.
  const auto tight = search_layouts(base, {}, {0.5, 2});
  std::size_t fit_tight = 0, fit = 0;
  for (const auto& r : tight) {
    if (r.ran() && !r.out_of_memory) {
      ++fit_tight;
      CHECK(r.peak_memory <= 0.5 * base.cluster.gpu.memory);
    }
  }
  for (const auto& r : results) fit += r.ran() && !r.out_of_memory ? 1 : 0;
  CHECK(fit_tight < fit);
  CHECK(format_search(base, tight, 5, {0.5, 2}).find("50 % of the GPU's 85.02 GB kept free") !=
        std::string::npos);
  CHECK_THROWS_WITH(search_layouts(base, {}, {0.95, 1}), Catch::Contains("--headroom"));
  CHECK_THROWS_WITH(search_layouts(base, {}, {0, -1}), Catch::Contains("--jobs"));
  // CSV: a header and a row per candidate, in rank order.
  const std::string csv = search_to_csv(base, results);
  CHECK(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')) == results.size() + 1);
  CHECK(csv.rfind("rank,dp,tp,pp,vpp,micro_batch_size,", 0) == 0);
  CHECK(csv.find("\n1,8,1,1,1,1,8,1f1b,") != std::string::npos);
}

TEST_CASE("search: a layout past the GPU's usable memory is tight, and the fastest with room named",
          "[search]") {
  // The default question's fastest layout (dp 8 · ZeRO-1) peaks at P; on a GPU of 1.05 P it
  // fits the device but not the 0.885 × 1.05 P = 0.93 P its caching allocator leaves usable.
  Scenario base = node8();
  const auto plenty = search_layouts(base, {}, {0, 2});
  const double p = plenty.front().peak_memory;
  base.cluster.gpu.memory = 1.05 * p;
  const auto results = search_layouts(base, {}, {0, 2});
  std::size_t fit = 0;
  for (const auto& r : results) {
    if (!r.ran() || r.out_of_memory) continue;
    ++fit;
    INFO(r.layout.words());
    CHECK(r.tight == (r.peak_memory > 0.885 * 1.05 * p));
  }
  REQUIRE(fit > 1);
  const SearchResult& first = results.front();
  REQUIRE(first.ran());
  CHECK(first.peak_memory == p);
  CHECK(first.tight);
  const auto roomy = std::find_if(results.begin(), results.end(), [](const SearchResult& r) {
    return r.ran() && !r.out_of_memory && !r.tight;
  });
  REQUIRE(roomy != results.end());
  const std::string text = format_search(base, results, 5, {});
  CHECK_THAT(text, Catch::Contains("~: tight, over") &&
                       Catch::Contains(fmt::format("the fastest with room: #{}, {}",
                                                   roomy - results.begin() + 1,
                                                   roomy->layout.words(true))));
  CHECK(search_to_json(base, results)["results"][0]["tight"] == true);
  CHECK(search_to_csv(base, results).find("ran,fits,tight,") != std::string::npos);
  CHECK_THAT(text, Catch::Contains(" fit (") && Catch::Contains(" tight), "));
  // A headroom keeps its own limit: 10 % of 1.05 P leaves 0.945 P, under which the tight band
  // starts at the usable 0.929 P as before (not at 0.9 × 0.929 P).
  for (const auto& r : search_layouts(base, {}, {0.1, 2}))
    if (r.ran() && !r.out_of_memory) CHECK(r.tight == (r.peak_memory > 0.885 * 1.05 * p));
  // A headroom past the fragmentation leaves no tight band.
  for (const auto& r : search_layouts(base, {}, {0.2, 2})) CHECK_FALSE(r.tight);
  // With memory.fragmentation 0 (expandable_segments) nothing that fits is tight.
  base.memory.fragmentation = 0;
  for (const auto& r : search_layouts(base, {}, {0, 2})) CHECK_FALSE(r.tight);
}

TEST_CASE("search: a layout ruled out by its schedule's activations would run out of memory",
          "[search]") {
  // ZeRO 0 and 3, no recompute, 1F1B (pp − r in flight) and AFAB (all 16 in flight): at 4096
  // tokens the 8B model's activations (34·s·h ≈ 0.57 GB per layer and micro-batch) push the
  // deep-in-flight layouts over 80 GB while their static memory alone fits.
  SearchSpace space = sizes_only({1, 2}, {2, 4}, {}, {"1f1b", "afab"});
  space.zero = {0, 3};
  const Scenario base = node8("llama-3.1-8b", 32);
  const auto results = search_layouts(base, space, {0, 1});
  std::size_t by_activations = 0;
  for (const auto& r : results) {
    if (!r.ruled_out || r.memory_bound == 0) continue;
    ++by_activations;
    INFO(r.layout.words());
    CHECK(r.static_memory <= base.cluster.gpu.memory);  // static alone would have passed
    CHECK(r.memory_bound > base.cluster.gpu.memory);
    CHECK(r.known_memory() == r.memory_bound);
    // Simulated anyway, its peak is at least the bound, so it would not have fitted.
    Scenario sc = base;
    r.layout.apply(sc);
    const Timeline tl = simulate(sc, {r.layout.schedule});
    CHECK(make_memory_report(tl).largest_peak() >= r.memory_bound * (1 - 1e-12));
  }
  CHECK(by_activations > 0);
  const std::string text = format_search(base, results, 5);
  CHECK(text.find("with the activations their schedule keeps in flight") != std::string::npos);
}

TEST_CASE("search: expert parallelism is a dimension where ep divides dp and the experts",
          "[search][ep]") {
  // Mixtral-8x7B (8 experts) on 8 H100s, tp 1: pp 1, 2, 4, 8 leave dp 8, 4, 2, 1. Asked for ep
  // 1, 2, 4, 8, a layout takes each ep dividing its dp (and the 8 experts): 4 + 3 + 2 + 1 = 10.
  SearchSpace space = sizes_only({1});
  space.ep = {1, 2, 4, 8};
  const auto cs = layout_candidates(node8("mixtral-8x7b", 64, 4), space);
  REQUIRE(cs.size() == 10);
  for (const auto& c : cs) {
    CHECK(c.dp % c.ep == 0);
    CHECK(c.words().find(c.ep > 1 ? fmt::format("ep {}", c.ep) : "ep") ==
          (c.ep > 1 ? c.words().find("ep") : std::string::npos));
  }
  // ZeRO-3 with experts split is not modelled: only ep 1 goes with it.
  space.zero = {3};
  for (const auto& c : layout_candidates(node8("mixtral-8x7b", 64, 4), space))
    CHECK((c.ep == 1 || c.zero != 3));
  // A dense model has no experts to split: ep 1 only.
  space.zero = {0};
  for (const auto& c : layout_candidates(node8(), space)) CHECK(c.ep == 1);
  // The candidate sets the key: what runs is the layout with experts split (a small MoE that
  // fits: 4 layers of 8 experts on dp 8), and the CSV says so.
  const Scenario small = small_moe();
  space.ep = {2};
  space.pp = {1};
  const auto results = search_layouts(small, space);
  REQUIRE(results.size() == 1);
  REQUIRE(results[0].ran());
  CHECK(results[0].layout.ep == 2);
  CHECK(results[0].report.ep == 2);
  CHECK(results[0].report.volume.ep_bytes > 0);
  CHECK(search_to_csv(small, results).find(",tp_overlap,ep,") != std::string::npos);
  // Searched at one expert-parallel degree, the table names it as untried with the flag that
  // tries it; searched over several, not.
  SearchSpace one_ep = space;
  one_ep.ep = {};
  CHECK_THAT(format_search(small, search_layouts(small, one_ep), 5),
             Catch::Contains("expert parallelism (--ep 1,2,4,8; held at 1)"));
  space.ep = {1, 2};
  CHECK_THAT(format_search(small, search_layouts(small, space), 5),
             !Catch::Contains("expert parallelism (--ep"));
  // A dense model has none to name.
  CHECK_THAT(format_search(node8(), search_layouts(node8(), sizes_only({1}, {1}), {0, 1}), 5),
             !Catch::Contains("expert parallelism"));
  // Whole experts (parallelism.etp 1) stay whole at every tp: ep 8 over dp 4 · tp 2 (8 ranks)
  // runs, where experts split over TP need ep to divide dp 4 (no layout left: the reason is
  // named); the header says so. Without SP at tp 2 whole experts are refused (each TP rank
  // routes its own shard): of sp off and on only on runs.
  Scenario whole = small;
  whole.layout.etp = 1;
  SearchSpace tp2 = space;
  tp2.tp = {2};
  tp2.ep = {8};
  tp2.sequence_parallel = {0, 1};
  const auto with_tp = search_layouts(whole, tp2);
  REQUIRE(with_tp.size() == 1);
  REQUIRE(with_tp[0].ran());
  CHECK(with_tp[0].layout.sequence_parallel);
  CHECK(with_tp[0].report.etp == 1);
  CHECK(with_tp[0].report.ep == 8);
  CHECK_THAT(format_search(whole, with_tp, 5),
             Catch::Contains("experts whole on each TP rank (etp 1)"));
  CHECK_THROWS_WITH(search_layouts(small, tp2), Catch::Contains("ep = 8 must divide dp = 4"));
}

TEST_CASE("search: expert tensor parallelism is a dimension under TP - experts split or whole",
          "[search][moe][ep]") {
  // A small MoE (4 layers of 8 experts, top-2) on 8 H100s at tp 2 · pp 1 with SP: dp 4, ep 2.
  // --etp tp,1 tries each expert split over the two TP ranks (etp 2) and whole on each (etp 1:
  // each TP rank routes its own 512 of the 1,024 tokens through whole experts, and the experts'
  // gradients are reduced over tp · dp / ep = 4 ranks, not dp / ep = 2). Both run, differ, and
  // each is the layout its overrides give the loader.
  const Scenario small = small_moe();
  SearchSpace space = sizes_only({2}, {1});
  space.ep = {2};
  space.sequence_parallel = {1};
  space.zero = {1};
  space.etp = {0, 1};
  const auto results = search_layouts(small, space);
  REQUIRE(results.size() == 2);
  int whole = 0;
  for (const SearchResult& r : results) {
    REQUIRE(r.ran());
    const bool one = r.layout.etp == 1;
    whole += one;
    CHECK(r.report.etp == (one ? 1 : 2));
    CHECK((r.layout.words().find("etp 1") != std::string::npos) == one);
    const std::vector<std::string> sets = r.layout.overrides();
    CHECK(std::count(sets.begin(), sets.end(),
                     one ? "parallelism.etp=1" : "parallelism.etp=null") == 1);
    const Scenario direct = parse_scenario(small.canonical_yaml, "t.yaml", sets);
    CHECK(direct.layout.etp == (one ? 1 : 0));
    CHECK(to_seconds(test::makespan(direct)) == r.report.step_time_s);
  }
  CHECK(whole == 1);
  CHECK(results[0].report.step_time_s != results[1].report.step_time_s);
  // The table gets an etp column (1 or tp), the header names no single width, nothing untried.
  const std::string both = format_search(small, results, 5);
  CHECK_THAT(both, Catch::Contains(" etp ") && !Catch::Contains("experts whole on each TP rank") &&
                       !Catch::Contains("--etp tp,1"));
  // JSON and CSV give the width itself: 1 or the tp degree.
  const nlohmann::json j = search_to_json(small, results);
  CHECK(j["results"][0]["layout"]["etp"] == (results[0].layout.etp == 1 ? 1 : 2));
  const std::string csv = search_to_csv(small, results);
  CHECK(csv.find(",ep,etp,cp,") != std::string::npos);
  CHECK(csv.find(",2,1,1,") != std::string::npos);  // ep 2 · etp 1 · cp 1
  CHECK(csv.find(",2,2,1,") != std::string::npos);  // ep 2 · etp 2 · cp 1
  // At one width the header says it, and the untried line names the flag.
  space.etp = {1};
  const auto kept = search_layouts(small, space);
  REQUIRE(kept.size() == 1);
  CHECK_THAT(format_search(small, kept, 5),
             Catch::Contains("experts whole on each TP rank (etp 1)") &&
                 Catch::Contains("whole experts under TP (--etp tp,1; held at 1)"));
  space.etp = {};
  CHECK_THAT(format_search(small, search_layouts(small, space), 5),
             Catch::Contains("whole experts under TP (--etp tp,1; held at tp)"));
  // Whole experts without SP are refused (each TP rank would route the same tokens): of etp
  // tp and 1 without SP only tp is left.
  space.etp = {0, 1};
  space.sequence_parallel = {0};
  const auto no_sp = layout_candidates(small, space);
  REQUIRE(no_sp.size() == 1);
  CHECK(no_sp[0].etp == 0);
  // At tp 1, and for a dense model, every width is the same layout: one candidate, etp 0.
  space.sequence_parallel = {};
  space.tp = {1};
  const auto tp1 = layout_candidates(small, space);
  REQUIRE(tp1.size() == 1);
  CHECK(tp1[0].etp == 0);
  SearchSpace dense = sizes_only({2}, {4});
  dense.etp = {1, 0};
  for (const auto& c : layout_candidates(node8(), dense)) CHECK(c.etp == 0);
  // Other widths are not modelled.
  space.etp = {2};
  CHECK_THROWS_WITH(layout_candidates(small, space), Catch::Contains("--etp takes tp"));
}

TEST_CASE("search: context parallelism is a dimension - dp is what the other axes leave",
          "[search][cp]") {
  // Llama-3.1-8B at 4096 tokens on 8 H100s, tp 1, pp 1: cp 1, 2, 4, 8 leave dp 8, 4, 2, 1;
  // 2·cp divides 4096 for each. The global batch of 64 holds each dp · b.
  SearchSpace space = sizes_only({1}, {1});
  space.cp = {1, 2, 4, 8};
  const auto cs = layout_candidates(node8(), space);
  REQUIRE(cs.size() == 4);
  for (const auto& c : cs) {
    CHECK(c.dp * c.cp == 8);
    CHECK((c.cp == 1) == (c.words().find("cp") == std::string::npos));
  }
  // 2·cp must divide the sequence: 4096 has no factor 3, so cp 3 (with tp 1, pp 1, 8 GPUs:
  // not a divisor of 8 either) and cp 16 over 8 GPUs are left out.
  space.cp = {3, 16};
  CHECK_THROWS(layout_candidates(node8(), space));
  // What runs has its sequences split: a quarter of the tokens per GPU, keys and values
  // exchanged, and the table and CSV say cp.
  space.cp = {4};
  space.zero = {1};
  const auto results = search_layouts(node8("llama-3.2-1b"), space);
  REQUIRE(results.size() == 1);
  REQUIRE(results[0].ran());
  CHECK(results[0].report.cp == 4);
  CHECK(results[0].report.dp == 2);
  CHECK(results[0].report.volume.cp_bytes > 0);
  CHECK(search_to_csv(node8("llama-3.2-1b"), results).find(",ep,etp,cp,") != std::string::npos);
  CHECK(format_search(node8("llama-3.2-1b"), results, 10).find(" cp ") != std::string::npos);
}

TEST_CASE("search: activation offload is a dimension of layer counts", "[search][offload]") {
  // Llama-3.1-8B on 8 H100s, tp 1, pp 4 (8 layers a stage), dp 2. Asked for 0, 4, 100 and 200
  // layers: 100 and 200 both mean every layer of a stage, so 200 is left out: 3 candidates.
  SearchSpace space = sizes_only({1}, {4});
  space.offload_activations = {0, 4, 100, 200};
  const auto cs = layout_candidates(node8(), space);
  REQUIRE(cs.size() == 3);
  CHECK(cs[1].offload_activations == 4);
  CHECK(cs[1].words().find("activation offload 4 layers/stage") != std::string::npos);
  CHECK(cs[2].offload_activations == 100);
  space.offload_activations = {-1};
  CHECK_THROWS_WITH(layout_candidates(node8(), space),
                    Catch::Contains("--offload-activations takes layer counts ≥ 0, got -1"));
  // What runs moves them: the report counts the host link's bytes, the table shows "a4".
  space.offload_activations = {4};
  const auto results = search_layouts(node8("llama-3.2-1b"), space);
  REQUIRE(results.size() == 1);
  REQUIRE(results[0].ran());
  CHECK(results[0].report.volume.host_bytes > 0);
  CHECK(format_search(node8("llama-3.2-1b"), results, 10).find(" a4 ") != std::string::npos);
}

TEST_CASE("search: precision is a dimension - fp8 is ruled out, with the reason, off Hopper",
          "[search][fp8]") {
  // A small dense model on 8 GPUs, dp 8 only (tp 1, pp 1, ZeRO-1, no recompute): two layouts,
  // bf16 and fp8, the same but for the precision.
  auto space_of = [] {
    SearchSpace s;
    s.tp = {1};
    s.pp = {1};
    s.zero = {1};
    s.recompute = {Recompute::None};
    s.precision = {Precision::BF16, Precision::FP8};
    return s;
  };
  auto small = [](const char* gpu) {
    return test::yaml(fmt::format(R"(model: {{layers: 4, hidden: 2048, ffn_hidden: 8192, heads: 16,
  vocab: 32000}}
training: {{seq_len: 2048, global_batch_size: 16}}
cluster: {{gpu: {}, gpus_per_node: 8}}
parallelism: {{dp: 8}}
)",
                                  gpu));
  };
  const auto h100 = search_layouts(small("h100-sxm"), space_of());
  REQUIRE(h100.size() == 2);
  REQUIRE(h100[0].ran());
  REQUIRE(h100[1].ran());
  // FP8 GEMMs are faster: the fp8 layout ranks first.
  CHECK(h100[0].layout.precision == Precision::FP8);
  CHECK(h100[0].report.step_time_s < h100[1].report.step_time_s);
  CHECK_THAT(h100[0].layout.words(), Catch::Contains("fp8"));
  const std::string text = format_search(small("h100-sxm"), h100, 10);
  CHECK_THAT(text, Catch::Contains(" prec ") && Catch::Contains("prec: training precision"));
  CHECK(search_to_csv(small("h100-sxm"), h100).find(",ep,etp,cp,precision,") != std::string::npos);
  // On A100 the fp8 layout cannot run: validate()'s message says why.
  const auto a100 = search_layouts(small("a100-sxm-80gb"), space_of());
  REQUIRE(a100.size() == 2);
  CHECK(a100[0].ran());
  CHECK_FALSE(a100[1].ran());
  CHECK(a100[1].layout.precision == Precision::FP8);
  CHECK_THAT(a100[1].error, Catch::Contains("no FP8 tensor cores"));
}

TEST_CASE("search: a candidate drops the keys its layout cannot take (FP8 ones, ZeRO-1/2 ones)",
          "[search][fp8]") {
  // The scenario trains in FP8 with FP8 parameters, current scaling, standalone activation
  // casts and FP8 dispatch (idle without experts); searching bf16 too must run the bf16 layout
  // (those keys mean nothing there, and validate refuses them without FP8) and reproduce it from
  // its overrides.
  SearchSpace space;
  space.tp = {1};
  space.pp = {1};
  space.zero = {1};
  space.recompute = {Recompute::None};
  space.precision = {Precision::BF16, Precision::FP8};
  const Scenario fp8 = test::yaml(R"(model: {layers: 4, hidden: 2048, ffn_hidden: 8192, heads: 16,
  vocab: 32000}
training: {seq_len: 2048, global_batch_size: 16, precision: fp8, fp8_params: true,
           fp8_recipe: tensorwise, fp8_standalone_casts: activation, fp8_dispatch: true}
cluster: {gpu: h100-sxm, gpus_per_node: 8}
parallelism: {dp: 8, zero: 1, param_gather: with-next-forward}
)");
  const auto results = search_layouts(fp8, space);
  REQUIRE(results.size() == 2);
  for (const auto& r : results) CHECK(r.ran());
  const auto bf16 = results[0].layout.precision == Precision::BF16 ? results[0] : results[1];
  CHECK(bf16.layout.precision == Precision::BF16);
  const std::vector<std::string> o = bf16.layout.overrides();
  for (const char* set : {"training.fp8_params=false", "training.fp8_recipe=delayed",
                          "training.fp8_standalone_casts=none", "training.fp8_attention=false",
                          "training.fp8_dispatch=false", "training.fused_expert_mlp=false"})
    CHECK(std::find(o.begin(), o.end(), set) != o.end());
  // A MoE in MXFP8 with Transformer Engine's fused grouped MLP (MXFP8 only): its bf16 layout runs
  // the experts unfused.
  SearchSpace moe_space = space;
  const Scenario mxfp8 = test::yaml(R"(model: {layers: 4, hidden: 1024, ffn_hidden: 2048, heads: 8,
  vocab: 1000, moe: {experts: 8, top_k: 2}}
training: {seq_len: 1024, global_batch_size: 8, precision: fp8, fp8_recipe: mxfp8,
           expert_gemms: grouped, fused_expert_mlp: true}
cluster: {gpu: b200, gpus_per_node: 8}
parallelism: {dp: 8}
)");
  const auto moe = search_layouts(mxfp8, moe_space);
  REQUIRE(moe.size() == 2);
  for (const auto& r : moe) CHECK(r.ran());
  // The same for ZeRO-0 and ZeRO-3 candidates of a scenario that gathers ZeRO-1's parameters
  // with the next forward: they run, without it.
  space.zero = {0, 1, 3};
  space.precision = {Precision::FP8};
  const auto zeros = search_layouts(fp8, space);
  REQUIRE(zeros.size() == 3);
  for (const auto& r : zeros) {
    CHECK(r.ran());
    const std::vector<std::string> z = r.layout.overrides();
    const bool dropped =
        std::find(z.begin(), z.end(), "parallelism.param_gather=after-optimizer") != z.end();
    CHECK(dropped == (r.layout.zero != 1));
  }
}

TEST_CASE("search: optimizer offload is a dimension, not tried at ZeRO-0", "[search][offload]") {
  // dp 8 only, ZeRO 0 or 1, offload none or optimizer: 3 layouts (no offload at ZeRO-0).
  SearchSpace space;
  space.tp = {1};
  space.pp = {1};
  space.zero = {0, 1};
  space.recompute = {Recompute::None};
  space.offload = {Offload::None, Offload::Optimizer};
  const Scenario small = test::yaml(R"(model: {layers: 4, hidden: 2048, ffn_hidden: 8192, heads: 16,
  vocab: 32000}
training: {seq_len: 2048, global_batch_size: 16}
cluster: {gpu: h100-sxm, gpus_per_node: 8}
parallelism: {dp: 8}
)");
  const auto results = search_layouts(small, space);
  REQUIRE(results.size() == 3);
  const SearchResult* off = nullptr;
  const SearchResult* z1 = nullptr;
  for (const auto& r : results) {
    CHECK((r.layout.offload == Offload::None || r.layout.zero >= 1));
    if (r.layout.offload == Offload::Optimizer) off = &r;
    if (r.layout.offload == Offload::None && r.layout.zero == 1) z1 = &r;
  }
  REQUIRE(off);
  REQUIRE(z1);
  REQUIRE(off->ran());
  // The same layout with its Adam states on the host: less GPU memory (12Ψ/8 less), a slower
  // step (the shard's round trip over the host link and the CPU's Adam).
  CHECK(off->static_memory < z1->static_memory);
  CHECK(off->report.step_time_s > z1->report.step_time_s);
  // Plain SGD has no Adam states to offload: only the 2 layouts without offload.
  Scenario sgd = small;
  sgd.training.optimizer = Optimizer::Sgd;
  const auto plain = search_layouts(sgd, space);
  REQUIRE(plain.size() == 2);
  for (const auto& r : plain) CHECK(r.layout.offload == Offload::None);
  CHECK_THAT(off->layout.words(), Catch::Contains("optimizer offload"));
  CHECK(search_to_csv(small, results).find(",precision,offload,") != std::string::npos);
}

TEST_CASE("search: a split that counts the modules refuses the stage counts it cannot split",
          "[search][mtp]") {
  // Llama-3.2-1B's 16 layers with 6 modules, embedding, loss and modules counted: 24 slots. pp 1:
  // all on one stage; pp 2: 12 each, 11 beside the loss for the 6 modules; pp 4: 6 each, 5 left,
  // too few; pp 8: 3 each, too few. A refused count is a row with validate()'s reason (the
  // search had stopped on the partition's internal check).
  Scenario base = node8("{preset: llama-3.2-1b, mtp_layers: 6}", 64, 1);
  base.layout.split = PipelineSplit{true, true, true, {}};
  const auto results = search_layouts(base, sizes_only({1}));
  REQUIRE(results.size() == 4);
  for (const auto& r : results) {
    CHECK(r.ran() == (r.layout.pp <= 2));
    if (!r.ran())
      CHECK(r.error.find("too few for the 6 multi-token prediction") != std::string::npos);
  }
}

TEST_CASE("search: layers given per stage hold for layouts of as many stages, others split evenly",
          "[search][partition]") {
  // Llama-3.2-1B's 16 layers given as 6/4/4/2 for pp 4: pp 4 keeps them, pp 1, 2 and 8 split
  // evenly (every layout runs; a search had refused all but pp 4), and their overrides say so,
  // so the result opens alone (as trainsim-gui opens it).
  const std::string given = "parallelism.pipeline_split.layers=[6, 4, 4, 2]";
  const Scenario base =
      parse_scenario(node8("llama-3.2-1b", 64, 4).canonical_yaml, "t.yaml", {given});
  const auto results = search_layouts(base, sizes_only({1}));
  REQUIRE(results.size() == 4);
  for (const auto& r : results) {
    INFO(r.layout.words());
    REQUIRE(r.ran());
    CHECK(r.layout.drop_split_layers == (r.layout.pp != 4));
    CHECK(r.report.split.layers ==
          (r.layout.pp == 4 ? std::vector<int>{6, 4, 4, 2} : std::vector<int>{}));
    std::vector<std::string> sets = {given};
    for (const auto& o : r.layout.overrides()) sets.push_back(o);
    const Scenario sc = parse_scenario(node8("llama-3.2-1b", 64, 4).canonical_yaml, "t.yaml", sets);
    CHECK(sc.layout.split.layers == r.report.split.layers);
  }
  // pp 2 · vpp 2 has four stages too, but placed otherwise (interleaved: rank 0 holds stages 0
  // and 2): another pipeline, split evenly; only pp 4 · vpp 1 keeps the given split.
  SearchSpace chunks = sizes_only({1}, {2, 4});
  chunks.vpp = {1, 2};
  chunks.schedules = {"1f1b", "interleaved-1f1b"};
  const auto cs = layout_candidates(base, chunks);
  REQUIRE(!cs.empty());
  for (const auto& c : cs) {
    INFO(c.words());
    CHECK(c.drop_split_layers == !(c.pp == 4 && c.vpp == 1));
  }
}

TEST_CASE("search: each schedule at the chunk counts it takes", "[search]") {
  // A vpp-1 scenario of 8 layers on 4 GPUs, pp 4 · tp 1 only: without --vpp, zb-v (which takes
  // 2 chunks only) runs at 2 and 1f1b at the scenario's 1, so both run; with --vpp 1,2 each
  // schedule keeps only the counts it takes: 1f1b at 1, interleaved-1f1b at 2, 2 of the 2 × 2
  // pairs (dp 1: ZeRO 0 only, so one candidate each).
  const Scenario s = test::yaml(R"(model: {layers: 8, hidden: 1024, ffn_hidden: 4096, heads: 8,
  vocab: 32000}
training: {seq_len: 1024, global_batch_size: 16}
cluster: {gpu: h100-sxm, gpus_per_node: 4}
parallelism: {pp: 4}
)");
  SearchSpace space;
  space.tp = {1};
  space.pp = {4};
  space.recompute = {Recompute::None};
  space.schedules = {"zb-v", "1f1b"};
  const auto nearest = layout_candidates(s, space);
  REQUIRE(nearest.size() == 2);  // dp 1: ZeRO 0 only
  for (const auto& c : nearest) CHECK(c.vpp == (c.schedule == "zb-v" ? 2 : 1));
  for (const auto& r : search_layouts(s, space)) CHECK(r.ran());
  space.schedules = {"1f1b", "interleaved-1f1b"};
  space.vpp = {1, 2};
  const auto pairs = layout_candidates(s, space);
  REQUIRE(pairs.size() == 2);
  for (const auto& c : pairs) CHECK(c.vpp == (c.schedule == "1f1b" ? 1 : 2));
  // At pp 1 there is no pipeline to interleave: of pp 1 and 4 with both schedules at vpp 1
  // and 2, interleaved-1f1b is a candidate at pp 4 only (dp 4 at pp 1: ZeRO 0–3, one each).
  space.pp = {1, 4};
  const auto flat = layout_candidates(s, space);
  CHECK(flat.size() == 4 + 1 + 1);  // pp 1: 1f1b at ZeRO 0–3; pp 4: 1f1b, interleaved-1f1b
  for (const auto& c : flat) CHECK((c.pp == 1 && c.vpp > 1) == false);
  space.pp = {4};
  // Only pairs no schedule takes: an error that says which counts each takes.
  space.vpp = {3};
  space.schedules = {"1f1b"};
  CHECK_THROWS_WITH(layout_candidates(s, space),
                    Catch::Contains("each schedule needs a --vpp it takes") &&
                        Catch::Contains("1f1b 1") && Catch::Contains("interleaved-1f1b 2 or more"));
}

TEST_CASE("search: a scenario's CSV schedule keeps the scenario's chunk count", "[search]") {
  // The scenario runs a CSV of 1F1B (pp 4, 8 micro-batches), written here: no registry entry
  // says which vpp it takes, so the candidates keep the scenario's (1), and run.
  const std::string csv =
      (std::filesystem::temp_directory_path() / "trainsim_search_test_1f1b_p4_m8.csv").string();
  { std::ofstream(csv) << schedule_to_csv(make_schedule("1f1b", {4, 8, 1, {}, {}})); }
  const Scenario s = test::yaml(fmt::format(R"(model: {{layers: 8, hidden: 1024, ffn_hidden: 4096,
  heads: 8, vocab: 32000}}
training: {{seq_len: 1024, global_batch_size: 8}}
cluster: {{gpu: h100-sxm, gpus_per_node: 4}}
parallelism: {{pp: 4}}
schedule: {{csv: {}}}
)",
                                            csv));
  SearchSpace space;
  space.tp = {1};
  space.pp = {4};
  space.recompute = {Recompute::None};
  const auto results = search_layouts(s, space);
  REQUIRE_FALSE(results.empty());
  for (const auto& r : results) {
    INFO(r.error);
    CHECK(r.layout.vpp == 1);
    CHECK(r.layout.schedule.empty());
    CHECK(r.ran());
  }
  std::remove(csv.c_str());
}

TEST_CASE(
    "search: a layout whose GPU has less compute per kernel than an eager CPU takes is marked",
    "[search][launch]") {
  // Llama-3.2-1B at 1,024 tokens a micro-batch on 8 H100s, compiled (the CPU assumed ahead):
  // at tp 8 each kernel is a few µs of GPU work (the report's cpu_headroom_s), far under the
  // 48.3 µs eager PyTorch's CPU takes to issue one; at tp 1 · dp 8 it is about that (≈ 48 µs).
  // A layout is marked "!" exactly when its headroom is under the figure; the legend says so.
  const Scenario base = test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 16}
cluster: {gpu: h100-sxm, gpus_per_node: 8}
parallelism: {dp: 8}
)");
  const auto results = search_layouts(base, sizes_only({1, 2, 8}, {1}, {1}));
  REQUIRE(results.size() == 3);
  const std::string text = format_search(base, results, 3);
  int marked = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const StepReport& r = results[i].report;
    INFO(results[i].layout.words());
    REQUIRE(r.cpu_headroom_s > 0);
    CHECK(r.eager_host_per_kernel_s == Approx(48.3e-6));
    const bool paced = r.cpu_headroom_s < r.eager_host_per_kernel_s;
    marked += paced ? 1 : 0;
    // The rank cell: "*"-prefixed on the Pareto front, "!" after the rank when marked.
    const std::string cell =
        fmt::format("{}{}{} ", results[i].pareto ? "*" : "", i + 1, paced ? "!" : "");
    CHECK(text.find(cell) != std::string::npos);
  }
  // tp 8 splits each GEMM's weights 8 ways, the kernel count stays: about 10 µs a kernel.
  const auto tp8 = std::find_if(results.begin(), results.end(),
                                [](const SearchResult& r) { return r.layout.tp == 8; });
  REQUIRE(tp8 != results.end());
  CHECK(tp8->report.cpu_headroom_s < 20e-6);
  REQUIRE(marked > 0);
  CHECK(text.find("!: its GPU has less compute per kernel than eager PyTorch's CPU takes to issue "
                  "one (48.300 us)") != std::string::npos);
  // The default scenario's layouts (Llama-3.1-8B at 4,096 tokens) keep hundreds of µs a kernel:
  // no mark, no legend.
  const Scenario big = node8();
  const auto plenty = search_layouts(big, sizes_only({1}, {4}, {1}));
  REQUIRE(!plenty.empty());
  CHECK(plenty.front().report.cpu_headroom_s > 200e-6);
  CHECK(format_search(big, plenty, 5).find("!: its GPU") == std::string::npos);
}
