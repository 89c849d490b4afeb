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
  CHECK_THROWS_WITH(make_schedule("zb-auto", {4, 8, 3, {}, {}}),
                    Catch::Contains("needs vpp = 1 or 2"));
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

namespace {

// One setting of the Zero Bubble paper (Qi et al., ICLR 2024): its profiled per-pass times in
// ms (arXiv 2401.10241 Table 9 = ICLR Table 6, recorded in its ZB-2p runs) and the bubble rates
// its Table 5 computes from them. Memory: M_B = 34h + 5as and M_W = 32h per token and layer
// (its Table 1), so I frees 1 − M_W/M_B of a micro-batch's activations.
struct PaperSetting {
  const char* model;
  int p, m;
  double f, b, w, comm;                   // ms
  double h, a;                            // hidden size, heads (s = 1024)
  double r_1f1b, r_h1, r_h2, r_1p, r_2p;  // Table 5
  // The authors' heuristic at memory 1.5p (not in the paper): their public code
  // (sail-sg/zero-bubble-pipeline-parallelism, branch arxiv, f68d3879, auto_schedule.py
  // do_heuristic_search, which reproduces Table 5's ZB-1p and ZB-2p exactly) run on these inputs.
  double r_15p;
};

constexpr PaperSetting kPaper[] = {
    {"1.5B", 8, 24, 18.522, 18.086, 9.337, 0.601, 2304, 24, 0.2431, 0.1585, 0.1083, 0.1585, 0.0433,
     0.0719},
    {"1.5B", 8, 32, 18.513, 18.086, 9.331, 0.626, 2304, 24, 0.1985, 0.1242, 0.0837, 0.1242, 0.0039,
     0.0456},
    {"1.5B", 8, 64, 18.546, 18.097, 9.321, 0.762, 2304, 24, 0.1240, 0.0674, 0.0444, 0.0674, 0.0026,
     0.0270},
    {"6.2B", 8, 24, 29.718, 29.444, 19.927, 0.527, 4096, 32, 0.2347, 0.1323, 0.0698, 0.1323, 0.0029,
     0.0475},
    {"6.2B", 8, 32, 29.802, 29.428, 19.530, 0.577, 4096, 32, 0.1898, 0.1045, 0.0559, 0.1045, 0.0022,
     0.0363},
    {"6.2B", 8, 64, 29.935, 29.621, 19.388, 0.535, 4096, 32, 0.1091, 0.0554, 0.0294, 0.0554, 0.0010,
     0.0185},
    {"14.6B", 16, 48, 11.347, 11.248, 8.132, 0.377, 5120, 40, 0.2552, 0.1397, 0.0672, 0.1397,
     0.0066, 0.0571},
    {"14.6B", 16, 64, 11.307, 11.254, 8.101, 0.379, 5120, 40, 0.2082, 0.1088, 0.0516, 0.1088,
     0.0054, 0.0437},
    {"14.6B", 16, 128, 11.325, 11.308, 8.109, 0.378, 5120, 40, 0.1251, 0.0576, 0.0266, 0.0576,
     0.0028, 0.0224},
    {"28.3B", 32, 96, 10.419, 10.207, 7.715, 0.408, 6144, 48, 0.2646, 0.1421, 0.0641, 0.1421,
     0.0038, 0.0604},
    {"28.3B", 32, 128, 10.408, 10.204, 7.703, 0.408, 6144, 48, 0.2168, 0.1106, 0.0490, 0.1106,
     0.0029, 0.0461},
    {"28.3B", 32, 256, 10.402, 10.248, 7.698, 0.460, 6144, 48, 0.1352, 0.0594, 0.0257, 0.0594,
     0.0018, 0.0242},
};

TimeNs ns(double ms) {
  return static_cast<TimeNs>(std::llround(ms * 1e6));
}

// The paper's bubble rate (§5.3): (cost − m(T_F + T_B + T_W)) / cost, cost the longest stage span.
double paper_bubble(const Schedule& s, const StageCosts& c) {
  const double period = static_cast<double>(estimate_period(s, c));
  const double work =
      static_cast<double>(s.microbatches) *
      static_cast<double>(c.forward[0] + c.backward_input[0] + c.backward_weight[0]);
  return (period - work) / period;
}

}  // namespace

TEST_CASE("zb-auto: at or below the Zero Bubble paper's schedules on its own settings",
          "[zb-auto][paper]") {
  // The handcrafted schedules land on the paper's Table 5 figures to its 4 digits (the same
  // costs, T_comm a latency on every stage boundary, cost = the longest stage span), which shows
  // the replay counts as the paper does; zb-auto at memory p, 1.5p and 2p is then compared with the
  // paper's heuristic (ZB-1p, ZB-2p, and the authors' code at 1.5p): never above it.
  for (const PaperSetting& k : kPaper) {
    INFO(k.model << " p = " << k.p << " m = " << k.m);
    StageCosts c;
    c.forward.assign(static_cast<std::size_t>(k.p), ns(k.f));
    c.backward_input.assign(c.forward.size(), ns(k.b));
    c.backward_weight.assign(c.forward.size(), ns(k.w));
    c.p2p.assign(c.forward.size() - 1, ns(k.comm));
    const double frees = 1 - 32 * k.h / (34 * k.h + 5 * k.a * 1024);
    ScheduleParams params{k.p, k.m, 1, {}, c};
    params.overlapped_steps = true;
    Schedule fused = make_schedule("1f1b", params);
    CHECK(paper_bubble(fused, c) == Approx(k.r_1f1b).margin(6e-5));
    CHECK(paper_bubble(make_schedule("zb-h1", params), c) == Approx(k.r_h1).margin(6e-5));
    CHECK(paper_bubble(make_schedule("zb-h2", params), c) == Approx(k.r_h2).margin(6e-5));
    for (const auto& [limit, paper] :
         {std::pair{k.p, k.r_1p}, std::pair{3 * k.p / 2, k.r_15p}, std::pair{2 * k.p, k.r_2p}}) {
      params.options = {{"memory_limit", std::to_string(limit)},
                        {"input_frees", fmt::format("{}", frees)}};
      const Schedule s = make_schedule("zb-auto", params);
      const auto peaks = peak_memory_units(s);
      CHECK(*std::max_element(peaks.begin(), peaks.end()) <= limit + 1e-9);
      const double ours = paper_bubble(s, c);
      INFO("memory_limit " << limit << ": zb-auto " << ours << ", paper " << paper);
      CHECK(ours <= paper + 5e-5);
    }
  }
}

TEST_CASE("interleaved 1F1B: the step is mT + (p-1)T/v + 2(pv-1)c on the paper's settings",
          "[zb-auto][paper]") {
  // Megatron's interleaved order with one layer per chunk (the paper's 1F1B-I: v = layers per
  // middle stage, 3 for 1.5B, 2 for 28.3B) and T = T_F + T_B + T_W split evenly over the chunks.
  // Without communication the step is the closed form mT + (p-1)T/v; each of the 2(pv - 1)
  // stage boundaries the first micro-batch's forward and the last one's backward cross adds c.
  // The paper's Table 5 charges p fewer hops (e.g. 1.5B, m = 24: 0.1055 where this gives
  // 0.1090); its text does not say how it timed 1F1B-I.
  for (const PaperSetting& k : {kPaper[0], kPaper[2], kPaper[9], kPaper[11]}) {
    INFO(k.model << " m = " << k.m);
    const int v = k.p == 8 ? 3 : 2;
    const int stages = k.p * v;
    StageCosts c;
    c.forward.assign(static_cast<std::size_t>(stages), ns(k.f / v));
    c.backward_input.assign(c.forward.size(), ns((k.b + k.w) / v));
    c.backward_weight.assign(c.forward.size(), 0);
    c.p2p.assign(c.forward.size() - 1, ns(k.comm));
    const Schedule s = make_schedule("interleaved-1f1b", {k.p, k.m, v, {}, c});
    const double t = k.f + k.b + k.w;
    const double expected = k.m * t + (k.p - 1) * t / v + 2.0 * (stages - 1) * k.comm;  // ms
    CHECK(static_cast<double>(estimate_period(s, c)) / 1e6 == Approx(expected).epsilon(1e-6));
    CHECK(estimate_period(s, c) == estimate_makespan(s, c));  // rank 0 starts first, ends last
  }
}

TEST_CASE("zb-auto at vpp = 2 (V-shaped): never worse than ZB-V at the same memory",
          "[zb-auto][property]") {
  // Randomised unequal per-rank costs (even ms, so each of a rank's two chunks takes half) and
  // p2p times; ZB-V peaks at p micro-batches, so at limits p and 1.5p zb-auto must match or
  // beat it, as the engine times both, steps overlapping or not, and keep to its limit.
  std::mt19937 rng(20261123);
  std::uniform_int_distribution<int> cost(1, 4), link(0, 2);
  int cases = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const int p = 2 + trial % 4;
    const int m =
        std::vector<int>{2 * p - 1, 2 * p + 2, 3 * p}[static_cast<std::size_t>(trial % 3)];
    std::vector<int> f, i, w;
    for (int s = 0; s < p; ++s) {
      f.push_back(2 * cost(rng));
      i.push_back(2 * cost(rng));
      w.push_back(2 * cost(rng));
    }
    const int p2p = link(rng);
    for (bool overlap : {false, true})
      for (int limit : {p, 3 * p / 2}) {
        INFO("trial " << trial << ": p = " << p << ", m = " << m << ", limit = " << limit
                      << ", p2p = " << p2p << ", steps overlap " << overlap);
        const Scenario sc = test::yaml(fmt::format(
            "parallelism: {{pp: {}, vpp: 2}}\ntraining: {{microbatches: {}, "
            "optimizer_post_validation: {}}}\nschedule: {{name: zb-auto, memory_limit: {}}}\n"
            "costs: {{forward: {}, backward_input: {}, backward_weight: {}, p2p: {}ms}}\n",
            p, m, overlap, limit, ms_list(f), ms_list(i), ms_list(w), p2p));
        const StepReport a = make_report(simulate(sc));
        const StepReport v = make_report(simulate(sc, {"zb-v", true}));
        CHECK(a.step_time_s <= v.step_time_s + 1e-12);
        for (const auto& st : a.stages) CHECK(st.peak_in_flight <= limit + 1e-9);
        ++cases;
      }
  }
  CHECK(cases == 48);
}

TEST_CASE("zb-auto at vpp = 2 reaches no bubble at 1F1B's memory where one chunk cannot",
          "[zb-auto]") {
  // F = I = W = 1 ms per rank (0.5 ms per chunk), p = 8, m = 32, memory p, steps overlapping:
  // the V reaches the Zero Bubble paper's ZB-V claim, a period of m(F+I+W) = 96 ms; one chunk
  // per rank is held to ZB-1p's m(F+I+W) + (p−1)(F+I−W) = 96 + 7 = 103 ms.
  const auto scenario = [](int vpp) {
    return test::yaml(fmt::format(
        "parallelism: {{pp: 8, vpp: {}}}\ntraining: {{microbatches: 32, "
        "optimizer_post_validation: true}}\nschedule: {{name: zb-auto, memory_limit: 8}}\n"
        "costs: {{forward: 1ms, backward_input: 1ms, backward_weight: 1ms}}\n",
        vpp));
  };
  CHECK(make_report(simulate(scenario(2))).step_time_s == Approx(96e-3));
  CHECK(make_report(simulate(scenario(1))).step_time_s == Approx(103e-3));
}
