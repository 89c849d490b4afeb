#include "schedules/generators.h"

#include <algorithm>

#include <catch2/catch.hpp>

#include "core/error.h"
#include "schedules/registry.h"
#include "schedules/validate.h"
#include "test_util.h"

using namespace trainsim;

TEST_CASE("generators: AFAB and 1F1B are valid over a grid of p and m", "[generators]") {
  for (int p = 1; p <= 8; ++p)
    for (int m : {1, 2, p, 2 * p - 1, 2 * p, 3 * p + 1}) {
      if (m < 1) continue;
      for (auto gen : {&generate_afab, &generate_1f1b}) {
        const Schedule s = gen({p, m, 1, {}, {}});
        INFO("p = " << p << ", m = " << m << ", " << s.name);
        CHECK_NOTHROW(validate_schedule(s));
        // Unit F = B = 1: (m + p − 1) · 2 steps for both.
        CHECK(run_unit_steps(s).makespan == 2 * (m + p - 1));
      }
    }
}

TEST_CASE("generators: 1F1B keeps at most p − r micro-batches in flight on rank r",
          "[generators]") {
  const int p = 4, m = 8;
  const Schedule s = generate_1f1b({p, m, 1, {}, {}});
  for (int r = 0; r < p; ++r) {
    int in_flight = 0, peak = 0;
    for (const Action& a : s.actions[static_cast<std::size_t>(r)]) {
      in_flight += a.op == Op::F ? 1 : -1;
      peak = std::max(peak, in_flight);
    }
    CHECK(peak == p - r);  // AFAB would hold all m = 8
  }
}

TEST_CASE("generators: AFAB and 1F1B reject chunks (vpp > 1)", "[generators]") {
  CHECK_THROWS_WITH(generate_1f1b({4, 8, 2, {}, {}}),
                    Catch::Contains("vpp = 1") && Catch::Contains("interleaved-1f1b"));
  CHECK_THROWS_AS(generate_afab({4, 8, 2, {}, {}}), ScheduleError);
}

TEST_CASE("1F1B: makespan is (m+p-1)(F+B) with uniform costs", "[generators][closed-form]") {
  // F = 1 ms, B = 2 ms, no p2p time: (m + p − 1) · 3 ms.
  for (int p : {1, 2, 4, 8})
    for (int m : {1, p, 2 * p, 4 * p + 3}) {
      INFO("p = " << p << ", m = " << m);
      const TimeNs expected = static_cast<TimeNs>(m + p - 1) * 3 * kNsPerMs;
      CHECK(test::makespan(test::pipeline(p, m, 1, 2), "1f1b") == expected);
      CHECK(test::makespan(test::pipeline(p, m, 1, 2), "afab") == expected);
    }
}

TEST_CASE("interleaved 1F1B: makespan is (m·v + p − 1)(F+B)/v with uniform costs",
          "[generators][closed-form]") {
  // Stage costs F = 12 ms, B = 24 ms (divisible by every v) split evenly over v chunks;
  // bubble (p−1)(F+B)/v.
  for (int p : {2, 4})
    for (int v : {2, 3, 4})
      for (int m : {p, 2 * p, 3 * p}) {
        INFO("p = " << p << ", v = " << v << ", m = " << m);
        Scenario s = test::pipeline(p, m, 12, 24);
        s.layout.vpp = v;
        const TimeNs expected = static_cast<TimeNs>(m * v + p - 1) * 36 * kNsPerMs / v;
        CHECK(test::makespan(s, "interleaved-1f1b") == expected);
      }
}

TEST_CASE("interleaved 1F1B: group size g between p and m changes the order, not validity",
          "[generators]") {
  for (int g : {4, 8, 16}) {
    ScheduleParams params{4, 16, 2, {{"group_size", std::to_string(g)}}, {}};
    INFO("g = " << g);
    const Schedule s = generate_interleaved_1f1b(params);
    CHECK_NOTHROW(validate_schedule(s));
    // Warm-up on rank 0: 2(p − 1) + (v − 1)·g forwards before the first backward.
    const auto& r0 = s.actions[0];
    const auto first_b =
        std::find_if(r0.begin(), r0.end(), [](const Action& a) { return a.op == Op::B; });
    CHECK(first_b - r0.begin() == std::min(2 * 3 + g, 32) + 1);  // + the steady state's first F
  }
}

TEST_CASE("interleaved 1F1B: impossible sizes say what is required", "[generators]") {
  CHECK_THROWS_WITH(generate_interleaved_1f1b({4, 8, 1, {}, {}}), Catch::Contains("vpp >= 2"));
  CHECK_THROWS_WITH(generate_interleaved_1f1b({4, 7, 2, {}, {}}),
                    Catch::Contains("multiple of group_size") && Catch::Contains("m = 4 or 8"));
  CHECK_THROWS_WITH(generate_interleaved_1f1b({4, 8, 2, {{"group_size", "2"}}, {}}),
                    Catch::Contains("pp <= group_size <= microbatches"));
  CHECK_THROWS_WITH(generate_interleaved_1f1b({4, 8, 2, {{"group_size", "four"}}, {}}),
                    Catch::Contains("must be an integer"));
}

TEST_CASE("interleaved 1F1B with overlap_f_b: one more warm-up forward, then F&B pairs",
          "[generators]") {
  // Megatron-core's combined 1F1B: rank r warms up with 2(p − r − 1) + (v − 1)·g + 1 forwards,
  // then each steady-state forward runs with the backward after it, of another micro-batch.
  for (int p : {2, 4})
    for (int v : {2, 3})
      for (int m : {p, 2 * p, 3 * p}) {
        INFO("p = " << p << ", v = " << v << ", m = " << m);
        const Schedule s = generate_interleaved_1f1b({p, m, v, {{"overlap_f_b", "true"}}, {}});
        CHECK_NOTHROW(validate_schedule(s));
        for (int r = 0; r < p; ++r) {
          const auto& list = s.actions[static_cast<std::size_t>(r)];
          const int total = m * v;
          const int warmup = m == p ? total : std::min(total, 2 * (p - r - 1) + (v - 1) * p + 1);
          int pairs = 0;
          for (std::size_t i = 0; i + 1 < list.size(); ++i) {
            if (!list[i].overlapped_with_next) continue;
            ++pairs;
            CHECK(list[i + 1].op == Op::B);
            CHECK((list[i].microbatch != list[i + 1].microbatch ||
                   list[i].stage != list[i + 1].stage));
          }
          CHECK(pairs == total - warmup);  // every steady-state step, none at m = p
        }
      }
  CHECK_THROWS_WITH(generate_interleaved_1f1b({4, 8, 2, {{"overlap_f_b", "yes"}}, {}}),
                    Catch::Contains("overlap_f_b must be true or false"));
}

TEST_CASE("interleaved 1F1B with overlap_f_b: the plain makespan when a pair costs F + B",
          "[generators][closed-form]") {
  // F = 12, B = 24 ms per stage over v chunks, no p2p time, F&B = F + B (the pair no cheaper):
  // the extra warm-up forward hides in the fill, (m·v + p − 1)(F+B)/v as without pairs.
  // A cheaper pair (F&B = 30 of 36 ms per stage) shortens the step.
  for (int p : {2, 4})
    for (int v : {2, 4})
      for (int m : {2 * p, 3 * p}) {
        INFO("p = " << p << ", v = " << v << ", m = " << m);
        const std::string sched = "{name: interleaved-1f1b, overlap_f_b: true}";
        Scenario s = test::pipeline(p, m, 12, 24, 0, sched);
        s.layout.vpp = v;
        CHECK(test::makespan(s) == static_cast<TimeNs>(m * v + p - 1) * 36 * kNsPerMs / v);
        Scenario cheaper = test::yaml(fmt::format(
            "parallelism: {{pp: {}, vpp: {}}}\ntraining: {{microbatches: {}}}\nschedule: {}\n"
            "costs: {{forward: 12ms, backward: 24ms, forward_backward_overlap: 30ms}}\n",
            p, v, m, sched));
        CHECK(test::makespan(cheaper) < test::makespan(s));
      }
}

TEST_CASE("1F1B with overlap_f_b: F + (m − 1)·F&B + B at pp 1, and a pipeline needs chunks",
          "[generators][closed-form]") {
  // Megatron-core's combined 1F1B without pipelining: F0, then (F1, B0) … (F(m−1), B(m−2))
  // as pairs, then B(m−1). F = 10, B = 20, F&B = 24 ms, m = 6: 10 + 5·24 + 20 = 150 ms.
  const Scenario s = test::yaml(
      "training: {microbatches: 6}\nschedule: {name: 1f1b, overlap_f_b: true}\n"
      "costs: {forward: 10ms, backward: 20ms, forward_backward_overlap: 24ms}\n");
  CHECK(test::makespan(s) == 150 * kNsPerMs);
  CHECK(test::makespan(test::pipeline(1, 6, 10, 20)) == 180 * kNsPerMs);  // m(F + B) unpaired
  CHECK_THROWS_WITH(generate_1f1b({2, 4, 1, {{"overlap_f_b", "true"}}, {}}),
                    Catch::Contains("needs pp = 1") && Catch::Contains("interleaved-1f1b"));
}

TEST_CASE("looped BFS: makespan is (m·v + p − 1)(F+B)/v when m >= p", "[generators][closed-form]") {
  // Like AFAB over the m·v chunk passes: fill and drain once, (p−1) chunk-steps each way.
  for (int p : {2, 4})
    for (int v : {2, 3})
      for (int m : {p, 2 * p + 1}) {
        INFO("p = " << p << ", v = " << v << ", m = " << m);
        Scenario s = test::pipeline(p, m, 12, 24);
        s.layout.vpp = v;
        const TimeNs expected = static_cast<TimeNs>(m * v + p - 1) * 36 * kNsPerMs / v;
        CHECK(test::makespan(s, "looped-bfs") == expected);
      }
  // At v = 1 it would be AFAB under another name: refused, pointing there.
  CHECK_THROWS_WITH(test::makespan(test::pipeline(4, 8, 1, 2), "looped-bfs"),
                    Catch::Contains("with one chunk it is afab"));
}

TEST_CASE("every registered schedule runs without deadlock over a grid of p, m and v",
          "[generators]") {
  for (const auto& e : schedule_entries())
    for (int p : {1, 2, 3, 4, 8})
      for (int v : {1, 2, 3})
        for (int m : {1, p, 2 * p - 1, 2 * p, 2 * p + 1, 4 * p}) {
          if (m < 1) continue;
          INFO(e.name << ": p = " << p << ", m = " << m << ", v = " << v);
          Schedule s;
          try {
            s = e.generate({p, m, v, {}, {}});
          } catch (const ScheduleError& err) {
            // A refusal must say what is required.
            CHECK_THAT(err.what(), Catch::Contains("needs") || Catch::Contains("runs one chunk"));
            continue;
          }
          CHECK_NOTHROW(validate_schedule(s));
          // Split costs serve both kinds of schedule (a fused B costs I + W); the first and
          // last ranks are heavier (embedding, LM head) and transfers take time.
          std::string fw = "[", bi = "[";
          for (int r = 0; r < p; ++r) {
            const bool edge = r == 0 || r == p - 1;
            fw += fmt::format("{}{}ms", r ? ", " : "", edge ? 1.5 : 1.0);
            bi += fmt::format("{}{}ms", r ? ", " : "", r == p - 1 ? 2.5 : 1.0);
          }
          Scenario sc = test::yaml(fmt::format(
              "parallelism: {{pp: {}, vpp: {}}}\ntraining: {{microbatches: {}}}\n"
              "costs: {{forward: {}], backward_input: {}], backward_weight: 1ms, p2p: 0.1ms}}\n",
              p, v, m, fw, bi));
          CHECK(test::makespan(sc, e.name) > 0);  // no deadlock in the task graph either
        }
}

namespace {
// A costs-only pipeline with a split backward: F, I, W in ms per stage.
Scenario split_pipeline(int p, int m, int f, int i, int w) {
  return test::yaml(
      fmt::format("parallelism: {{pp: {}}}\ntraining: {{microbatches: {}}}\n"
                  "costs: {{forward: {}ms, backward_input: {}ms, backward_weight: {}ms}}\n",
                  p, m, f, i, w));
}
}  // namespace

TEST_CASE("ZB-H1: makespan m(F+I+W) + (p-1)(F+I-W) when W <= min(F, I)",
          "[generators][closed-form]") {
  // Zero Bubble paper, §3.1: 1F1B's bubble (p−1)(F+I+W) shrinks to (p−1)(F+I−W).
  for (int p : {2, 4, 6})
    for (int m : {p, 2 * p, 3 * p + 1})
      for (auto [f, i, w] : {std::tuple{1, 1, 1}, {2, 3, 1}, {3, 2, 1}, {2, 2, 2}}) {
        INFO("p = " << p << ", m = " << m << ", F/I/W = " << f << "/" << i << "/" << w);
        const TimeNs expected =
            static_cast<TimeNs>(m * (f + i + w) + (p - 1) * (f + i - w)) * kNsPerMs;
        CHECK(test::makespan(split_pipeline(p, m, f, i, w), "zb-h1") == expected);
      }
}

TEST_CASE("ZB-H2: makespan m(F+I+W) + (p-1)(F+I-2W) when W <= F and 2W <= I",
          "[generators][closed-form]") {
  for (int p : {2, 4, 6})
    for (int m : {2 * p - 1, 3 * p})
      for (auto [f, i, w] : {std::tuple{1, 2, 1}, {2, 2, 1}, {3, 4, 1}, {2, 4, 2}}) {
        INFO("p = " << p << ", m = " << m << ", F/I/W = " << f << "/" << i << "/" << w);
        const TimeNs expected =
            static_cast<TimeNs>(m * (f + i + w) + (p - 1) * (f + i - 2 * w)) * kNsPerMs;
        CHECK(test::makespan(split_pipeline(p, m, f, i, w), "zb-h2") == expected);
      }
}

TEST_CASE("ZB-H1 beats 1F1B by 2(p-1)W and ZB-H2 by a further (p-1)W", "[generators]") {
  // p = 4, m = 12, F = I = 2, W = 1: 1F1B (m+p−1)(F+I+W) = 75, H1 75 − 2·3·1 = 69, H2 66.
  const Scenario s = split_pipeline(4, 12, 2, 2, 1);
  CHECK(test::makespan(s, "1f1b") == 75 * kNsPerMs);
  CHECK(test::makespan(s, "zb-h1") == 69 * kNsPerMs);
  CHECK(test::makespan(s, "zb-h2") == 66 * kNsPerMs);
}

namespace {
// A costs-only V pipeline (vpp = 2) with split per-chunk costs f, i, w (ms): the scenario's
// per-rank costs are twice the per-chunk ones. `overlap_ms` < 0: DualPipe's F&B left at F + B.
Scenario v_pipeline(int p, int m, int f, int i, int w, int overlap_ms = -1) {
  std::string costs = fmt::format("forward: {}ms, backward_input: {}ms, backward_weight: {}ms",
                                  2 * f, 2 * i, 2 * w);
  if (overlap_ms >= 0) costs += fmt::format(", forward_backward_overlap: {}ms", 2 * overlap_ms);
  return test::yaml(fmt::format(
      "parallelism: {{pp: {}, vpp: 2}}\ntraining: {{microbatches: {}}}\ncosts: {{{}}}\n", p, m,
      costs));
}
}  // namespace

TEST_CASE("ZB-V: makespan reaches its lower bound 2m(F+I+W) + (p-1)F when F = I and W <= F",
          "[generators][closed-form]") {
  // Per-chunk costs. Rank p−1 holds stages p−1 and p: it cannot start before micro-batch 0's
  // forward has crossed stages 0..p−2, (p−1)F, and then has 2m(F+I+W) of its own work. ZB-V
  // idles nowhere else: with F = I = W the Zero Bubble paper's "zero bubble" (only the
  // start-up no schedule avoids). p = 4, m = 8, F = I = W = 1: 48 + 3 = 51.
  for (int p : {2, 3, 4, 6})
    for (int m : {2 * p - 1, 2 * p, 3 * p + 1})
      for (auto [f, i, w] : {std::tuple{1, 1, 1}, {2, 2, 1}, {3, 3, 2}}) {
        INFO("p = " << p << ", m = " << m << ", F/I/W = " << f << "/" << i << "/" << w);
        const TimeNs expected = static_cast<TimeNs>(2 * m * (f + i + w) + (p - 1) * f) * kNsPerMs;
        CHECK(test::makespan(v_pipeline(p, m, f, i, w), "zb-v") == expected);
      }
  // The unit-step grid (every action one step) is the F = I = W case: 6m + p − 1.
  CHECK(run_unit_steps(generate_zb_v({4, 8, 2, {}, {}})).makespan == 51);
}

TEST_CASE("ZB-V keeps 1F1B's memory: at most 2p chunk activations (p micro-batches) on a rank",
          "[generators]") {
  // Rank 0 warms up with 2p − 1 chunk-0 forwards, then holds one chunk-1 micro-batch at a time
  // until its first chunk-0 backward: 2p chunks, i.e. p whole micro-batches of a rank, 1F1B's
  // peak. Ranks further down hold no more.
  for (int p : {2, 4, 8}) {
    const Schedule s = generate_zb_v({p, 3 * p, 2, {}, {}});
    for (int r = 0; r < p; ++r) {
      int held = 0, peak = 0;
      for (const Action& a : s.actions[static_cast<std::size_t>(r)]) {
        held += a.op == Op::F ? 1 : a.op == Op::W ? -1 : 0;  // W frees (split backward)
        peak = std::max(peak, held);
      }
      INFO("p = " << p << ", rank " << r);
      CHECK(peak <= 2 * p);
      if (r == 0) CHECK(peak == 2 * p);
    }
  }
}

TEST_CASE("DualPipeV: makespan 2m(F+B) + (p-1)(F&B + B - 3W) with F = I and F&B = F + B",
          "[generators][closed-form]") {
  // DeepSeek's bubble for DualPipe(V), (PP/2 − 1)(F&B + B − 3W) with PP = 2p stages and B the
  // full backward I + W, per chunk. With no overlap benefit (F&B = F + B) every rank's work is
  // 2m(F + B). p = 4, m = 8, F = I = 2, W = 1: 2·8·5 + 3·(5 + 3 − 3) = 95.
  for (int p : {2, 3, 4, 6})
    for (int m : {2 * p, 2 * p + 1, 3 * p + 2})
      for (auto [f, i, w] : {std::tuple{1, 1, 1}, {2, 2, 1}, {3, 3, 2}}) {
        INFO("p = " << p << ", m = " << m << ", F/I/W = " << f << "/" << i << "/" << w);
        const int b = i + w, fb = f + b;
        const TimeNs expected =
            static_cast<TimeNs>(2 * m * fb + (p - 1) * (fb + b - 3 * w)) * kNsPerMs;
        CHECK(test::makespan(v_pipeline(p, m, f, i, w), "dualpipe-v") == expected);
      }
}

TEST_CASE("DualPipeV: each extra micro-batch costs two overlapped F&B tasks", "[generators]") {
  // Only step 4 (m − 2p + r + 1 iterations of F0&B1, F1&B0 on rank r) grows with m, and it
  // idles nowhere: makespan(m + 1) − makespan(m) = 2·F&B, whatever F&B is (≤ F + B).
  // F = I = 2, W = 1 per chunk, so F + B = 5; F&B = 3 models a real overlap.
  for (int p : {2, 4})
    for (int fb : {3, 4, 5}) {
      INFO("p = " << p << ", F&B = " << fb);
      const TimeNs a = test::makespan(v_pipeline(p, 2 * p + 1, 2, 2, 1, fb), "dualpipe-v");
      const TimeNs b = test::makespan(v_pipeline(p, 2 * p + 2, 2, 2, 1, fb), "dualpipe-v");
      CHECK(b - a == 2 * fb * kNsPerMs);
    }
  // And a cheaper overlap never makes the step slower.
  CHECK(test::makespan(v_pipeline(4, 12, 2, 2, 1, 3), "dualpipe-v") <
        test::makespan(v_pipeline(4, 12, 2, 2, 1), "dualpipe-v"));
}

TEST_CASE("DualPipeV pairs one chunk's forward with the other chunk's backward", "[generators]") {
  const int p = 4, m = 10;
  const Schedule s = generate_dualpipe_v({p, m, 2, {}, {}});
  for (int r = 0; r < p; ++r) {
    const auto& list = s.actions[static_cast<std::size_t>(r)];
    int pairs = 0;
    for (std::size_t i = 0; i + 1 < list.size(); ++i) {
      if (!list[i].overlapped_with_next) continue;
      ++pairs;
      CHECK(list[i].op == Op::F);
      CHECK(list[i + 1].op == Op::B);
      CHECK(s.chunk_of(list[i].stage) != s.chunk_of(list[i + 1].stage));
    }
    // Step 4: 2(m − 2p + r + 1) pairs, one fewer on the last rank (its first F0, B1 run apart);
    // step 5: p − r − 1 more.
    INFO("rank " << r);
    CHECK(pairs == 2 * (m - 2 * p + r + 1) - (r == p - 1 ? 1 : 0) + (p - r - 1));
  }
}

namespace {
// A costs-only pipeline of p ranks, one stage each (vpp = 1), with split costs f, i, w (ms).
Scenario dual_pipeline(int p, int m, int f, int i, int w) {
  return test::yaml(
      fmt::format("parallelism: {{pp: {}}}\ntraining: {{microbatches: {}}}\n"
                  "costs: {{forward: {}ms, backward_input: {}ms, backward_weight: {}ms}}\n",
                  p, m, f, i, w));
}
}  // namespace

TEST_CASE("DualPipe: two pipelines in opposite directions, each micro-batch through one",
          "[generators]") {
  for (int p : {2, 4, 6, 8})
    for (int m : {2 * p, 2 * p + 2, 4 * p}) {
      INFO("p = " << p << ", m = " << m);
      const Schedule s = make_schedule("dualpipe", {p, m, 1, {}, {}});  // validated
      CHECK(s.chains == 2);
      CHECK(s.stages == 2 * p);
      CHECK(s.vpp() == 1);
      for (int r = 0; r < p; ++r) {
        // Rank r holds model stage r of the first pipeline and model stage p − 1 − r of the
        // second (stage p + (p − 1 − r)).
        CHECK(s.stages_by_rank()[static_cast<std::size_t>(r)] ==
              std::vector<int>{r, p + (p - 1 - r)});
        CHECK(s.model_stages_by_rank()[static_cast<std::size_t>(r)] ==
              std::vector<int>{r, p - 1 - r});
        // m/2 micro-batches through each of its two stages: m forwards in all, and as many
        // backwards (B, or I with its W).
        int f = 0, bi = 0;
        for (const Action& a : s.actions[static_cast<std::size_t>(r)]) {
          CHECK(s.runs(a.stage, a.microbatch));
          f += a.op == Op::F;
          bi += a.op == Op::B || a.op == Op::I;
        }
        CHECK(f == m);
        CHECK(bi == m);
      }
    }
}

TEST_CASE("DualPipe: makespan m(F+B) + (p/2-1)(F&B + B - 3W) with F = I and F&B = F + B",
          "[generators][closed-form]") {
  // deepseek-ai/DualPipe's README, "based on the same number of PP stages": DualPipe's bubble
  // is (PP/2 − 1)(F&B + B − 3W), PP = p stages of a pipeline, B = I + W, per stage. Each rank
  // runs m/2 micro-batches through each of its two stages, m(F + B) of work. p = 4, m = 8,
  // F = I = 2, W = 1: 8·5 + 1·(5 + 3 − 3) = 45. (DualPipeV's form with p/2 ranks and m/2
  // micro-batches: DualPipe is its two halves.)
  for (int p : {2, 4, 6, 8})
    for (int m : {2 * p, 2 * p + 2, 3 * p})
      for (auto [f, i, w] : {std::tuple{1, 1, 1}, {2, 2, 1}, {3, 3, 2}}) {
        INFO("p = " << p << ", m = " << m << ", F/I/W = " << f << "/" << i << "/" << w);
        const int b = i + w, fb = f + b;
        const TimeNs expected =
            static_cast<TimeNs>(m * fb + (p / 2 - 1) * (fb + b - 3 * w)) * kNsPerMs;
        CHECK(test::makespan(dual_pipeline(p, m, f, i, w), "dualpipe") == expected);
      }
  // DualPipeV over the same p ranks splits the model in 2p chunks: the same work, with its
  // (p − 1) bubble terms of half-size chunks. p = 4, m = 8, per-rank F = I = 4, W = 2:
  // DualPipe 8·10 + 1·(10 + 6 − 6) = 90; DualPipeV 2·8·5 + 3·(5 + 3 − 3) = 95.
  CHECK(test::makespan(dual_pipeline(4, 8, 4, 4, 2), "dualpipe") == 90 * kNsPerMs);
  CHECK(test::makespan(v_pipeline(4, 8, 2, 2, 1), "dualpipe-v") == 95 * kNsPerMs);
}

TEST_CASE("V schedules: impossible sizes say what is required", "[generators]") {
  // Each refusal names the requirement and the value it got.
  CHECK_THROWS_WITH(generate_zb_v({4, 8, 1, {}, {}}),
                    Catch::Contains("needs vpp = 2, got vpp = 1"));
  CHECK_THROWS_WITH(
      generate_zb_v({4, 6, 2, {}, {}}),
      Catch::Contains("needs microbatches >= 2·pp − 1 = 7") && Catch::Contains("got m = 6"));
  CHECK_THROWS_WITH(generate_dualpipe_v({4, 8, 3, {}, {}}),
                    Catch::Contains("needs vpp = 2, got vpp = 3"));
  CHECK_THROWS_WITH(
      generate_dualpipe_v({4, 7, 2, {}, {}}),
      Catch::Contains("needs microbatches >= 2·pp = 8") && Catch::Contains("got m = 7"));
  CHECK_THROWS_WITH(generate_1f1b({4, 8, 2, {}, {}}), Catch::Contains("vpp = 1"));
  CHECK_THROWS_WITH(generate_dualpipe({3, 8, 1, {}, {}}),
                    Catch::Contains("needs an even pp >= 2, got pp = 3"));
  CHECK_THROWS_WITH(
      generate_dualpipe({4, 9, 1, {}, {}}),
      Catch::Contains("even microbatches >= 2·pp = 8") && Catch::Contains("got m = 9"));
  CHECK_THROWS_WITH(generate_dualpipe({4, 6, 1, {}, {}}), Catch::Contains("got m = 6"));
  CHECK_THROWS_WITH(
      generate_dualpipe({4, 8, 2, {}, {}}),
      Catch::Contains("needs vpp = 1, got vpp = 2") && Catch::Contains("use dualpipe-v"));
}

TEST_CASE("schedule: stages_by_rank lists each rank's chunks in order, as chunk_of numbers them",
          "[generators]") {
  // Looped placement, p = 3, v = 2: stage s on rank s mod 3 → rank 0 holds 0, 3.
  Schedule looped;
  looped.ranks = 3;
  looped.stage_rank = looped_placement(3, 2);
  CHECK(looped.stages_by_rank() == std::vector<std::vector<int>>{{0, 3}, {1, 4}, {2, 5}});
  // V placement, p = 3: stage s ≥ p on rank 2p − 1 − s → rank 0 holds 0 and 5.
  Schedule v;
  v.ranks = 3;
  v.stage_rank = v_placement(3);
  const auto held = v.stages_by_rank();
  CHECK(held == std::vector<std::vector<int>>{{0, 5}, {1, 4}, {2, 3}});
  for (const auto& stages : held)
    for (std::size_t c = 0; c < stages.size(); ++c)
      CHECK(v.chunk_of(stages[c]) == static_cast<int>(c));
}
