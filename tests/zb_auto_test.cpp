#include "schedules/zb_auto.h"

#include <random>

#include <catch2/catch.hpp>

#include "core/error.h"
#include "report/step_report.h"
#include "schedules/generators.h"
#include "schedules/registry.h"
#include "test_util.h"

using namespace trainsim;

namespace {

std::string ms_list(const std::vector<int>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]) + "ms";
  return s + "]";
}

// A costs-only pipeline with per-stage split costs (ms) and one p2p time for every boundary.
Scenario split_scenario(int p, int m, const std::vector<int>& f, const std::vector<int>& i,
                        const std::vector<int>& w, int p2p_ms, const std::string& options = "") {
  return test::yaml(
      fmt::format("parallelism: {{pp: {}}}\ntraining: {{microbatches: {}}}\n"
                  "schedule: {{name: zb-auto{}}}\n"
                  "costs: {{forward: {}, backward_input: {}, backward_weight: {}, p2p: {}ms}}\n",
                  p, m, options, ms_list(f), ms_list(i), ms_list(w), p2p_ms));
}

StageCosts costs_of(const std::vector<int>& f, const std::vector<int>& i, const std::vector<int>& w,
                    int p2p_ms) {
  StageCosts c;
  for (std::size_t s = 0; s < f.size(); ++s) {
    c.forward.push_back(f[s] * kNsPerMs);
    c.backward_input.push_back(i[s] * kNsPerMs);
    c.backward_weight.push_back(w[s] * kNsPerMs);
    if (s + 1 < f.size()) c.p2p.push_back(p2p_ms * kNsPerMs);
  }
  return c;
}

}  // namespace

TEST_CASE("zb-auto: never worse than 1F1B, ZB-H1 and ZB-H2 at the same memory limit",
          "[zb-auto][property]") {
  // Randomised unequal per-stage costs and p2p times (fixed seed). The handcrafted schedules
  // whose peak fits the limit (1F1B and ZB-H1: p, ZB-H2: 2p − 1) are the bar; the engine times
  // all of them. Also checks that zb-auto's own timing model agrees with the engine exactly,
  // which is what makes the guarantee hold.
  std::mt19937 rng(20241121);
  std::uniform_int_distribution<int> cost(1, 6), link(0, 2);
  int cases = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const int p = 2 + trial % 5;
    const int m =
        std::vector<int>{p, 2 * p - 1, 2 * p + 3, 3 * p}[static_cast<std::size_t>(trial % 4)];
    std::vector<int> f, i, w;
    for (int s = 0; s < p; ++s) {
      f.push_back(cost(rng));
      i.push_back(cost(rng));
      w.push_back(cost(rng));
    }
    const int p2p = link(rng);
    for (int limit : {p, 2 * p - 1}) {
      INFO("trial " << trial << ": p = " << p << ", m = " << m << ", limit = " << limit
                    << ", p2p = " << p2p);
      const Scenario sc =
          split_scenario(p, m, f, i, w, p2p, fmt::format(", memory_limit: {}", limit));
      const Timeline autotl = simulate(sc);
      std::vector<std::string> bar{"1f1b", "zb-h1"};
      if (limit >= 2 * p - 1) bar.push_back("zb-h2");
      for (const auto& name : bar) {
        INFO("versus " << name);
        CHECK(autotl.makespan <= test::makespan(sc, name));
      }
      // zb-auto's estimate is the engine's makespan.
      CHECK(estimate_makespan(autotl.schedule, costs_of(f, i, w, p2p)) == autotl.makespan);
      // And it keeps to its limit, counted as the report counts it.
      const StepReport r = make_report(autotl);
      for (const auto& st : r.stages) CHECK(st.peak_in_flight <= limit + 1e-9);
      ++cases;
    }
  }
  CHECK(cases == 48);
}

TEST_CASE("zb-auto: estimate_makespan equals the engine for handcrafted schedules", "[zb-auto]") {
  // The timing model zb-auto ranks candidates with, checked against the engine on unequal
  // costs with p2p: p = 4, m = 9.
  const std::vector<int> f{3, 2, 2, 4}, i{3, 3, 2, 5}, w{1, 2, 2, 2};
  const Scenario sc = split_scenario(4, 9, f, i, w, 1);
  for (const char* name : {"zb-h1", "zb-h2"}) {
    INFO(name);
    const Timeline tl = simulate(sc, {name, true});
    CHECK(estimate_makespan(tl.schedule, costs_of(f, i, w, 1)) == tl.makespan);
  }
}

TEST_CASE("zb-auto: reaches the lower bound m(F+I+W) + (p-1)F with memory 2p - 1",
          "[zb-auto][closed-form]") {
  // Uniform F = I = W = 1 ms, no p2p: the last rank cannot start before micro-batch 0 has
  // crossed p − 1 stages, (p − 1)F, and then has m(F + I + W) of work. With ZB-H2's memory
  // zb-auto finds a schedule with exactly that makespan, even for m = p (where ZB-H2 itself
  // cannot fill its warm-up). p = 4, m = 8: 24 + 3 = 27 ms.
  for (int p : {2, 4, 6, 8})
    for (int m : {p, 2 * p, 3 * p + 1}) {
      INFO("p = " << p << ", m = " << m);
      const std::vector<int> one(static_cast<std::size_t>(p), 1);
      const Scenario sc =
          split_scenario(p, m, one, one, one, 0, fmt::format(", memory_limit: {}", 2 * p - 1));
      CHECK(test::makespan(sc) == static_cast<TimeNs>(3 * m + p - 1) * kNsPerMs);
    }
}

TEST_CASE("zb-auto: more memory never makes the step slower", "[zb-auto]") {
  // p = 4, m = 12, F = I = 2, W = 1 ms: limit 4 matches ZB-H1 (69 ms, see generators_test), and
  // from 5 on zb-auto reaches the bound m(F+I+W) + (p−1)F = 60 + 6 = 66 ms.
  const std::vector<int> two(4, 2), one(4, 1);
  TimeNs previous = std::numeric_limits<TimeNs>::max();
  for (int limit = 4; limit <= 9; ++limit) {
    const TimeNs t = test::makespan(
        split_scenario(4, 12, two, two, one, 0, fmt::format(", memory_limit: {}", limit)));
    INFO("limit " << limit);
    CHECK(t <= previous);
    CHECK(t == (limit == 4 ? 69 : 66) * kNsPerMs);
    previous = t;
  }
}

TEST_CASE("zb-auto: impossible requests say what is required", "[zb-auto]") {
  CHECK_THROWS_WITH(make_schedule("zb-auto", {4, 8, 2, {}, {}}), Catch::Contains("needs vpp = 1"));
  CHECK_THROWS_WITH(make_schedule("zb-auto", {4, 8, 1, {{"memory_limit", "0.5"}}, {}}),
                    Catch::Contains("needs memory_limit >= 1"));
  CHECK_THROWS_WITH(make_schedule("zb-auto", {4, 8, 1, {{"memory_limit", "lots"}}, {}}),
                    Catch::Contains("must be a number"));
  CHECK_THROWS_WITH(make_schedule("zb-auto", {4, 8, 1, {{"input_frees", "1.5"}}, {}}),
                    Catch::Contains("0 <= input_frees <= 1"));
  // A fused backward cost cannot be split by guessing.
  const Scenario fused = test::pipeline(4, 8, 1, 2, 0, "zb-auto");
  CHECK_THROWS_WITH(simulate(fused), Catch::Contains("give costs.backward_input and "
                                                     "costs.backward_weight"));
}
