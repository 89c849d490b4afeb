#include "report/setting_changes.h"

#include <catch2/catch.hpp>

using namespace trainsim;

namespace {

const std::string kSeries = "p";

// A run of series "p": `gpus` GPUs at `tokens_per_s` predicted (GPU-seconds per token gpus /
// tokens_per_s), measured at `measured_cost` GPU-seconds per token, so its step-time error is
// predicted / measured cost − 1. Its settings list the same keys for every run, as
// setting_values does ("—": none there); its name, model label and measured figure differ from
// run to run and are never compared.
CheckedCase run(const std::string& name, int gpus, double tokens_per_s, double measured_cost,
                const std::string& tp, const std::string& attention, const std::string& cudnn,
                const std::string& nodes, const std::string& bucket) {
  CheckedCase c;
  c.step.scenario_name = name;
  c.step.gpus = gpus;
  c.step.tokens_per_s = tokens_per_s;
  c.accuracy.series = kSeries;
  c.accuracy.step_time_error = gpus / tokens_per_s / measured_cost - 1;
  c.settings = {{"name", name},
                {"model.name", name},  // a label, differing too
                {"training.attention", attention},
                {"training.cudnn_version", cudnn},
                {"cluster.nodes", nodes},
                {"parallelism.tp", tp},
                {"memory.bucket_size", bucket},
                {"pricing.gpu_hour", name == "P5" ? "2$" : "—"},
                {"measured.step_time", name}};
  return c;
}

}  // namespace

TEST_CASE(
    "setting changes: pairs of a series' runs one or two settings apart, measured cheaper "
    "first",
    "[report][accuracy]") {
  // Predicted and measured GPU-seconds per token:
  //   P1 8/1000 = 0.008, 0.010 (tp 1, cudnn 9.9, one node)
  //   P2 8/800  = 0.010, 0.012 (tp 2)
  //   P3 8/500  = 0.016, 0.011 (tp 1, flash2, no cuDNN release)
  //   P4 8/1000 = 0.008, 0.010 (P1 on two nodes: measured as P1, a tie)
  //   P5 8/1000 = 0.008, 0.009 (tp 2 and a bucket size; a price, not compared)
  // Pairs one or two settings apart: P1–P2 (tp), P1–P3 (attention, cuDNN release), P1–P5 (tp,
  // bucket), P2–P4 (tp, nodes), P2–P5 (bucket); P1–P4 is a tie; the rest three or more apart.
  // Each from its measured cheaper run, ordered by from's name, then to's.
  CheckedCase q = run("Q", 8, 1000, 0.010, "1", "cudnn", "9.9", "1", "—");
  q.settings.clear();  // settings not known: never paired
  const std::vector<CheckedCase> all = {run("P1", 8, 1000, 0.010, "1", "cudnn", "9.9", "1", "—"),
                                        run("P2", 8, 800, 0.012, "2", "cudnn", "9.9", "1", "—"),
                                        run("P3", 8, 500, 0.011, "1", "flash2", "—", "1", "—"),
                                        run("P4", 8, 1000, 0.010, "1", "cudnn", "9.9", "2", "—"),
                                        run("P5", 8, 1000, 0.009, "2", "cudnn", "9.9", "1", "40MB"),
                                        q};
  const std::vector<SettingChange> c = setting_changes(all);
  REQUIRE(c.size() == 5);
  const auto name = [&](std::size_t i) { return all[i].step.scenario_name; };

  // P1 → P2: measured 0.012 / 0.010 = 1.2, predicted 0.010 / 0.008 = 1.25.
  CHECK(c[0].series == "p");
  CHECK(name(c[0].from) == "P1");
  CHECK(name(c[0].to) == "P2");
  REQUIRE(c[0].keys.size() == 1);
  CHECK(c[0].keys[0].key == "parallelism.tp");
  CHECK(c[0].keys[0].from == "1");
  CHECK(c[0].keys[0].to == "2");
  CHECK(c[0].measured == Approx(1.2));
  CHECK(c[0].predicted == Approx(1.25));

  // P1 → P3: two settings in the key table's order; measured 0.011 / 0.010, predicted 2.
  CHECK(name(c[1].to) == "P3");
  REQUIRE(c[1].keys.size() == 2);
  CHECK(c[1].keys[0].key == "training.attention");
  CHECK(c[1].keys[1].key == "training.cudnn_version");
  CHECK(c[1].keys[1].from == "9.9");
  CHECK(c[1].keys[1].to == "—");
  CHECK(c[1].measured == Approx(1.1));
  CHECK(c[1].predicted == Approx(2.0));

  // P4 → P2: P4 is measured cheaper (0.010 against 0.012), so its values come first.
  CHECK(name(c[2].from) == "P4");
  CHECK(name(c[2].to) == "P2");
  REQUIRE(c[2].keys.size() == 2);
  CHECK(c[2].keys[0].key == "cluster.nodes");
  CHECK(c[2].keys[0].from == "2");
  CHECK(c[2].keys[0].to == "1");
  CHECK(c[2].keys[1].key == "parallelism.tp");
  CHECK(c[2].keys[1].from == "1");
  CHECK(c[2].keys[1].to == "2");

  // P5 → P1: measured 0.010 / 0.009, predicted flat (0.008 both); its price not a setting.
  CHECK(name(c[3].from) == "P5");
  CHECK(name(c[3].to) == "P1");
  REQUIRE(c[3].keys.size() == 2);
  CHECK(c[3].keys[0].key == "parallelism.tp");
  CHECK(c[3].keys[1].key == "memory.bucket_size");
  CHECK(c[3].keys[1].from == "40MB");
  CHECK(c[3].keys[1].to == "—");
  CHECK(c[3].measured == Approx(0.010 / 0.009));
  CHECK(c[3].predicted == Approx(1.0));

  // P5 → P2: one setting; measured 0.012 / 0.009 = 1.333, predicted 1.25.
  CHECK(name(c[4].from) == "P5");
  CHECK(name(c[4].to) == "P2");
  CHECK(c[4].keys.size() == 1);

  // One setting apart only: P1 → P2 and P5 → P2.
  const std::vector<SettingChange> one = setting_changes(all, 1);
  REQUIRE(one.size() == 2);
  CHECK(name(one[1].from) == "P5");

  // Four predicted costlier, as measured (P5 → P1 predicted flat). |predicted − measured|:
  // 0.05, 0.9, 0.05, 0.1111, 0.0833: mean 1.19444 / 5 = 0.238889, largest 0.9 (90 points).
  const ChangeSummary s = summarize(c);
  CHECK(s.changes == 5);
  CHECK(s.direction_right == 4);
  CHECK(s.mean_abs_error == Approx(0.238889).epsilon(1e-5));
  CHECK(s.max_abs_error == Approx(0.9));
  CHECK(summarize(std::vector<SettingChange>{}).changes == 0);
}
