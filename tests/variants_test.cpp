// simulate_schedules: one row per schedule, the one retry rule (the nearest chunk count the
// schedule takes), errors as rows.
#include <catch2/catch.hpp>

#include "run/variants.h"
#include "test_util.h"

using namespace trainsim;
using Catch::Contains;

TEST_CASE("variants: one-chunk and chunked schedules each run at a chunk count they take") {
  // p = 4, m = 8, F = 1 ms, B = 2 ms per rank, no p2p.
  const Scenario one = test::pipeline(4, 8, 1, 2);
  const auto rows = simulate_schedules(one, {"1f1b", "interleaved-1f1b", "zb-v"});
  REQUIRE(rows.size() == 3);
  // 1F1B as the scenario says: (m + p − 1)(F + B) = 11 · 3 = 33 ms.
  CHECK(rows[0].ran());
  CHECK_FALSE(rows[0].retried);
  CHECK(rows[0].label() == "1f1b");
  CHECK(rows[0].timeline->makespan == 33'000'000);
  // Interleaved at vpp 2 (per chunk F = 0.5, B = 1): m(F + B) + (p − 1)(F + B)/v = 28.5 ms.
  CHECK(rows[1].retried);
  CHECK(rows[1].label() == "interleaved-1f1b (vpp 2)");
  CHECK(rows[1].timeline->scenario.layout.vpp == 2);
  CHECK(rows[1].timeline->makespan == 28'500'000);
  CHECK(rows[1].timeline->scenario.where("parallelism.vpp") ==
        "interleaved-1f1b at vpp 2 (it cannot run at vpp 1)");
  // ZB-V splits the backward; a fused `backward:` cost cannot: both attempts are in the error.
  CHECK_FALSE(rows[2].ran());
  CHECK_THAT(rows[2].error, Contains("needs vpp = 2, got vpp = 1") &&
                                Contains("; at vpp 2: ScenarioError") &&
                                Contains("costs.backward_input"));

  // A chunked scenario: one-chunk schedules fall back to vpp 1, looped-bfs keeps vpp 2.
  const Scenario two = parse_scenario(
      "parallelism: {pp: 4, vpp: 2}\ntraining: {microbatches: 8}\n"
      "costs: {forward: 1ms, backward: 2ms}\n",
      "two.yaml");
  const auto back = simulate_schedules(two, {"1f1b", "looped-bfs"});
  CHECK(back[0].label() == "1f1b (vpp 1)");
  CHECK(back[0].timeline->makespan == 33'000'000);
  CHECK_FALSE(back[1].retried);
  CHECK(back[1].timeline->scenario.layout.vpp == 2);
}

TEST_CASE("variants: a retry is validated again like any edit") {
  // 2 layers on 2 stages: interleaved at vpp 2 would need 4 stages, more than the layers.
  const Scenario s = parse_scenario(
      "model: {layers: 2, hidden: 256, ffn_hidden: 1024, heads: 4, vocab: 1000}\n"
      "training: {seq_len: 128, micro_batch_size: 1, global_batch_size: 4}\n"
      "cluster: {gpu: h100-sxm, gpus_per_node: 2, nodes: 1}\n"
      "parallelism: {pp: 2}\n",
      "tiny.yaml");
  const auto rows = simulate_schedules(s, {"1f1b", "interleaved-1f1b"});
  CHECK(rows[0].ran());
  CHECK_FALSE(rows[1].ran());
  CHECK_THAT(rows[1].error, Contains("at vpp 2: ScenarioError: interleaved-1f1b at vpp 2 (it "
                                     "cannot run at vpp 1): parallelism.vpp: pp × vpp = 2 × 2 = 4 "
                                     "stages exceed the model's 2 layers"));
}

TEST_CASE("variants: unknown names fail before any work - a cancel propagates") {
  const Scenario s = test::pipeline(2, 4, 1, 2);
  CHECK_THROWS_AS(simulate_schedules(s, {"1f1b", "nope"}), ScheduleError);
  std::atomic<bool> cancel{true};
  CHECK_THROWS_AS(simulate_schedules(s, {"1f1b"}, {"", true, &cancel}), Cancelled);
}

TEST_CASE("variants: several scenarios side by side, each under its own schedule") {
  // m = 8, F = 1 ms, B = 2 ms: 1F1B on 4 stages takes (m + p − 1)(F + B) = 11 · 3 = 33 ms;
  // GPipe on 2 stages the same formula, (8 + 1) · 3 = 27 ms.
  const Scenario a = test::pipeline(4, 8, 1, 2, 0, "1f1b");
  Scenario b = test::pipeline(2, 8, 1, 2, 0, "gpipe");
  b.name = "two-stage";
  const Scenario broken = test::pipeline(4, 8, 1, 2, 0, "zb-v");  // needs split backward costs
  const auto rows = simulate_scenarios({a, b, broken, a}, {});
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].label() == "test · 1f1b");
  CHECK(rows[0].timeline->makespan == 33'000'000);
  CHECK(rows[1].label() == "two-stage · gpipe");
  CHECK(rows[1].timeline->makespan == 27'000'000);
  // A scenario that cannot run is a row with its error, not an abort of the others.
  CHECK_FALSE(rows[2].ran());
  CHECK(rows[2].label() == "test (2) · zb-v");
  CHECK_THAT(rows[2].error, Contains("zb-v"));
  CHECK(rows[3].label() == "test (3) · 1f1b");  // the same name again: numbered

  // Named schedules: each scenario under each, with simulate_schedules' retry rule.
  const auto cross = simulate_scenarios({a, b}, {"1f1b", "interleaved-1f1b"});
  REQUIRE(cross.size() == 4);
  CHECK(cross[1].label() == "test · interleaved-1f1b (vpp 2)");
  CHECK(cross[2].label() == "two-stage · 1f1b");
  CHECK_THROWS_AS(simulate_scenarios({a}, {"nope"}), ScheduleError);
}

TEST_CASE("variants: --vary specs make every combination, the first varying slowest") {
  const auto v = vary({"parallelism.zero=0,1", "training.recompute=none,full,selective"});
  REQUIRE(v.size() == 6);  // 2 × 3
  CHECK(v[0].label == "parallelism.zero=0, training.recompute=none");
  CHECK(v[2].edits ==
        std::vector<std::string>{"parallelism.zero=0", "training.recompute=selective"});
  CHECK(v[3].label == "parallelism.zero=1, training.recompute=none");
  // A YAML list keeps the commas inside each value.
  const auto order = vary({R"(parallelism.rank_order=["tp,dp,pp", "dp,tp,pp"])"});
  REQUIRE(order.size() == 2);
  CHECK(order[1].edits[0] == "parallelism.rank_order=dp,tp,pp");
  CHECK(vary({}).empty());
  CHECK_THROWS_WITH(vary({"parallelism.zero"}), Contains("expected key.path=v1,v2"));
  CHECK_THROWS_WITH(vary({"parallelism.zero="}), Contains("expected key.path=v1,v2"));
  CHECK_THROWS_WITH(vary({"parallelism.zero=0,,1"}), Contains("an empty value"));
  CHECK_THROWS_WITH(vary({"parallelism.zero=[]"}), Contains("a non-empty list"));
  CHECK_THROWS_WITH(vary({"parallelism.zero=[[1]]"}), Contains("must be a scalar"));
  // An unknown key fails once, before any variant, naming the keys its section has.
  CHECK_THROWS_AS(vary({"parallelism.zoro=0,1"}), ScenarioError);
  CHECK_THROWS_WITH(vary({"parallelism.zoro=0,1"}),
                    Contains("--vary parallelism.zoro=0,1: parallelism.zoro: unknown key \"zoro\" "
                             "(did you mean parallelism.zero?); allowed keys under parallelism: "
                             "dp, tp, pp,"));
  CHECK_THROWS_WITH(vary({"zoro=1"}), Contains("allowed keys at the top: name, description, "
                                               "model, training,"));
  // Keys that exist but no edit sets, and paths into a value or a list, fail once too.
  CHECK_THROWS_WITH(vary({"parallelism=1,2"}), Contains("cannot be edited on a loaded scenario"));
  // Those that rebuild the scenario say how to compare them instead.
  CHECK_THROWS_WITH(vary({"cluster.gpu=h200,b200"}),
                    Contains("cannot be edited on a loaded scenario") &&
                        Contains("compare one file for each (trainsim compare A.yaml B.yaml)"));
  CHECK_THROWS_WITH(vary({"model=llama-3.1-70b"}), Contains("compare one file for each"));
  CHECK_THROWS_WITH(vary({"schedule=1f1b,afab"}), Contains("use --schedules A,B"));
  CHECK_THROWS_WITH(vary({"parallelism=1,2"}), !Contains("compare one file"));
  CHECK_THROWS_WITH(vary({"slowdown[0].rank=1,2"}), Contains("slowdown is a list: give it whole"));
  CHECK_THROWS_WITH(vary({"model.moe.top_k.x=1"}),
                    Contains("model.moe.top_k is a value, not a section"));
  CHECK_THROWS_WITH(vary({"schedule.group_size=2,4"}), Contains("a schedule option is read with "
                                                                "the file"));
  CHECK_THROWS_WITH(vary({"parallelism.=1"}), Contains("empty key in path"));
  // A key given twice would keep only its last value in every variant: refused, naming both.
  CHECK_THROWS_WITH(vary({"parallelism.zero=1", "parallelism.zero=2"}),
                    Contains("--vary parallelism.zero=2: parallelism.zero is already varied by "
                             "--vary parallelism.zero=1; give its values once"));
}

TEST_CASE("variants: with the scenario, a value its key's rule refuses fails before any run") {
  const Scenario s = test::pipeline(4, 8, 1, 2);
  // A misspelt enum and an integer out of range are bad input (the CLI exits 2)...
  CHECK_THROWS_AS(vary({"training.recompute=none,ful"}, &s), ScenarioError);
  CHECK_THROWS_WITH(vary({"training.recompute=none,ful"}, &s),
                    Contains("--vary training.recompute=ful: training.recompute: expected one "
                             "of none, selective, full, got \"ful\""));
  CHECK_THROWS_WITH(vary({"parallelism.zero=0,5"}, &s),
                    Contains("parallelism.zero: expected an integer in [0, 3], got 5"));
  // ...while a value that reads but makes a layout that cannot run stays a variant (a row with
  // its error: simulate_variants above), and good values make every combination as without it.
  const auto v = vary({"parallelism.pp=3,4", "training.recompute=none,full"}, &s);
  REQUIRE(v.size() == 4);
  CHECK(v[1].label == "parallelism.pp=3, training.recompute=full");
}

TEST_CASE("variants: a variant of the other degrees keeps the GPUs busy through dp") {
  // The default scenario: 8 GPUs at dp 2 · tp 1 · pp 4. Varying pp alone: dp = 8 / pp where it
  // divides (pp 1 → dp 8, pp 2 → dp 4, pp 8 → dp 1), the row labelled with it; pp 4 is the
  // file's own layout, unchanged; pp 3 does not divide 8 and stays as given (its row's error).
  const Scenario s = load_scenario(std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/default.yaml");
  REQUIRE(s.layout.dp == 2);
  const auto v = vary({"parallelism.pp=1,2,3,4,8"}, &s);
  REQUIRE(v.size() == 5);
  CHECK(v[0].label == "parallelism.pp=1 (dp 8)");
  CHECK(v[0].edits.back() == "parallelism.dp=8");
  CHECK(v[1].label == "parallelism.pp=2 (dp 4)");
  CHECK(v[2].label == "parallelism.pp=3");
  CHECK(v[3].label == "parallelism.pp=4");
  CHECK(v[3].edits.size() == 1);
  CHECK(v[4].label == "parallelism.pp=8 (dp 1)");
  const auto rows = simulate_variants(s, v);
  REQUIRE(rows.size() == 5);
  CHECK(rows[0].ran());
  CHECK(rows[0].timeline->scenario.layout.dp == 8);
  CHECK(rows[4].timeline->scenario.layout.world() == 8);
  CHECK_FALSE(rows[2].ran());
  // dp varied too: every combination as given, none derived.
  const auto both = vary({"parallelism.pp=1,2", "parallelism.dp=8,4"}, &s);
  REQUIRE(both.size() == 4);
  for (const Variant& w : both) CHECK(w.label.find("(dp") == std::string::npos);
  // Without the scenario (or a cluster), nothing to derive from.
  CHECK(vary({"parallelism.pp=2"})[0].label == "parallelism.pp=2");
}

TEST_CASE("variants: edits of one scenario side by side - one that cannot be is a row") {
  // p = 4, m = 8, F = 1 ms, B = 2 ms: 1F1B takes (m + p − 1)(F + B) = 11 · 3 = 33 ms; with
  // 16 micro-batches, (16 + 3) · 3 = 57 ms.
  const Scenario s = test::pipeline(4, 8, 1, 2);
  const auto rows = simulate_variants(s, vary({"training.microbatches=8,16"}));
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].label() == "training.microbatches=8 · 1f1b");
  CHECK(rows[0].timeline->makespan == 33'000'000);
  CHECK(rows[1].timeline->makespan == 57'000'000);
  CHECK(rows[1].timeline->scenario.where("training.global_batch_size") ==
        "--vary training.microbatches=16");

  // A value its key's rule refuses, and an edit validate() refuses, are rows with the reason.
  const auto bad = simulate_variants(s, {{"zero 5", {"parallelism.zero=5"}, {}},
                                         {"pp 3", {"parallelism.pp=3"}, {}},
                                         {"ok", {"training.microbatches=4"}, {}},
                                         {"nope", {"nope.key=1"}, {}}});
  REQUIRE(bad.size() == 4);
  CHECK_FALSE(bad[0].ran());
  CHECK_THAT(bad[0].error, Contains("--vary parallelism.zero=5: parallelism.zero: expected an "
                                    "integer in [0, 3], got 5"));
  // The file's costs give 4 stages' times: validate() holds the edited pp to them (and names
  // the costs' line).
  CHECK_THAT(bad[1].error, Contains("test.yaml:4: costs.forward: expected one "
                                    "duration per pipeline stage (3 stages, pp = 3), got 4"));
  CHECK(bad[2].ran());  // (4 + 3) · 3 = 21 ms
  CHECK(bad[2].timeline->makespan == 21'000'000);
  CHECK_THAT(bad[3].error, Contains("nope.key: unknown key"));
  // Under named schedules: each variant under each, with the retry rule.
  const auto cross =
      simulate_variants(s, vary({"training.microbatches=8"}), {"1f1b", "interleaved-1f1b"});
  REQUIRE(cross.size() == 2);
  CHECK(cross[1].label() == "training.microbatches=8 · interleaved-1f1b (vpp 2)");
  CHECK(cross[1].timeline->makespan == 28'500'000);
  CHECK_THROWS_AS(simulate_variants(s, vary({"parallelism.zero=0"}), {"nope"}), ScheduleError);
  // On two threads: the same rows in the same order. A code edit (search's kind) is applied
  // after the text edits and validated like them: 6 micro-batches of F 1 + B 2 on 4 stages,
  // (6 + 3) · 3 = 27 ms.
  std::vector<Variant> mixed = vary({"training.microbatches=8,16,4"});
  mixed.push_back({"by code", {}, [](Scenario& v) { v.training.global_batch_size = 6; }});
  mixed.push_back({"refused by code", {}, [](Scenario& v) { v.layout.pp = 0; }});
  const auto one = simulate_variants(s, mixed, {}, {}, 1);
  const auto two = simulate_variants(s, mixed, {}, {}, 2);
  REQUIRE(one.size() == 5);
  REQUIRE(two.size() == 5);
  for (std::size_t i = 0; i < 5; ++i) {
    CHECK(one[i].label() == two[i].label());
    CHECK(one[i].ran() == two[i].ran());
    if (one[i].ran()) CHECK(one[i].timeline->makespan == two[i].timeline->makespan);
  }
  CHECK(one[3].timeline->makespan == 27'000'000);
  CHECK_THAT(one[4].error, Contains("parallelism.pp"));
}
