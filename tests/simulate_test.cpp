#include "run/simulate.h"

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "core/error.h"
#include "lower/task_types.h"
#include "report/chrome_trace.h"
#include "test_util.h"

using namespace trainsim;

TEST_CASE("p2p: AFAB makespan grows by 2(p-1)c with transfer time c", "[simulate][p2p]") {
  // With c <= min(F, B): forwards reach the last stage after (p−1)(F+c), gradients come back
  // in (p−1)(B+c): (m+p−1)(F+B) + 2(p−1)c. p = 4, m = 8, F = 1, B = 2, c = 0.5 ms:
  // 11 · 3 + 2 · 3 · 0.5 = 36 ms.
  CHECK(test::makespan(test::pipeline(4, 8, 1, 2, 0.5, "afab")) == 36 * kNsPerMs);
  // p = 2, m = 2 by hand: F0 0–1, F1 1–2 on stage 0; transfers 1–1.5 and 2–2.5; stage 1 runs
  // F0 1.5–2.5, F1 2.5–3.5, B0 3.5–5.5, B1 5.5–7.5; gradients 5.5–6, 7.5–8; stage 0 runs
  // B0 6–8, B1 8–10: 10 ms = 3 · 3 + 2 · 1 · 0.5.
  CHECK(test::makespan(test::pipeline(2, 2, 1, 2, 0.5, "afab")) == 10 * kNsPerMs);
}

TEST_CASE("p2p: one micro-batch crosses every boundary twice", "[simulate][p2p]") {
  // m = 1, p = 3: F F F B B B in sequence with 2 + 2 transfers of 0.25 ms:
  // 3·1 + 3·2 + 4·0.25 = 10 ms, for both schedules.
  for (const char* s : {"afab", "1f1b"})
    CHECK(test::makespan(test::pipeline(3, 1, 1, 2, 0.25, s)) == 10 * kNsPerMs);
}

TEST_CASE("p2p: 1F1B with transfer time is slower than without but keeps its bubble order",
          "[simulate][p2p]") {
  const TimeNs none = test::makespan(test::pipeline(4, 8, 1, 2, 0));
  const TimeNs some = test::makespan(test::pipeline(4, 8, 1, 2, 0.1));
  // At least the 2(p−1)c = 0.6 ms of the fill and drain.
  CHECK(some >= none + 600 * kNsPerUs);
}

namespace {

const char* kSmall =
    R"(model: {layers: 4, hidden: 512, ffn_hidden: 1536, heads: 8, kv_heads: 4, vocab: 4096}
training: {seq_len: 512, micro_batch_size: 2, global_batch_size: 16}
cluster: {gpu: a100-sxm-80gb, gpus_per_node: 4, nodes: 2}
parallelism: {dp: 2, tp: 2, pp: 2, zero: 1}
schedule: 1f1b
)";

struct Row {
  int type, mb, stage;
  TimeNs start, end;
  bool operator==(const Row&) const = default;
};

// Each simulated rank's compute-stream rows, keyed by global rank.
std::map<int, std::vector<Row>> compute_rows(const Timeline& tl) {
  std::map<int, std::vector<Row>> out;
  const TaskGraph& g = *tl.graph;
  for (StreamId s = 0; s < g.streams.size(); ++s) {
    if (static_cast<StreamType>(g.streams[s].type) != StreamType::Compute) continue;
    auto& rows = out[tl.ranks.ranks[g.streams[s].owner].global];
    for (TaskId t : g.stream(s))
      rows.push_back(
          {g.work(t).type, g.tasks[t].microbatch, g.work(t).stage, tl.start[t], tl.end[t]});
  }
  return out;
}

}  // namespace

TEST_CASE("folding: folded and fully expanded runs give the same timeline", "[simulate][fold]") {
  // ZeRO-1 and ZeRO-3 (per-unit gathers), with the default contention (SMs and links).
  const std::string zero = GENERATE(std::string("zero: 1"), std::string("zero: 3"));
  std::string text = kSmall;
  text.replace(text.find("zero: 1"), 7, zero);
  const Scenario s = test::yaml(text);
  const Timeline folded = simulate(s, {"", true});
  const Timeline expanded = simulate(s, {"", false});
  REQUIRE(folded.ranks.folded);
  REQUIRE_FALSE(expanded.ranks.folded);
  CHECK(folded.ranks.ranks.size() == 2);  // one per stage
  CHECK(expanded.ranks.ranks.size() == 8);
  CHECK(folded.makespan == expanded.makespan);
  const auto f = compute_rows(folded), e = compute_rows(expanded);
  // Every expanded rank runs exactly its stage representative's timeline.
  for (const auto& [global, rows] : e) {
    const Coord c = s.layout.coord_of(global);
    const int rep = s.layout.rank_of({0, 0, c.pp});
    INFO("rank " << global);
    CHECK(rows == f.at(rep));
  }
}

TEST_CASE("folding: layouts whose groups use different links are not folded", "[simulate][fold]") {
  // 6 GPUs per node: stage 1's ranks 4–7 straddle nodes 0 and 1, so rank 6's transfer to
  // rank 2 crosses nodes while the representative's (4 -> 0) does not: folding would be inexact.
  Scenario s = test::yaml(kSmall);
  s.cluster.gpus_per_node = 6;
  const Timeline t = simulate(s, {"", true});
  CHECK_FALSE(t.ranks.folded);
}

TEST_CASE("determinism: two runs give identical bytes", "[simulate][determinism]") {
  const Scenario s = test::yaml(kSmall);
  std::ostringstream a, b;
  write_chrome_trace(simulate(s), a);
  write_chrome_trace(simulate(s), b);
  CHECK(a.str() == b.str());
  CHECK(a.str().size() > 1000);
}

TEST_CASE("layout: DP reduction and optimizer come after the pipeline", "[simulate]") {
  const Timeline t = simulate(test::yaml(kSmall));
  const TaskGraph& g = *t.graph;
  TimeNs last_backward = 0, opt_start = -1;
  bool saw_dp = false;
  for (TaskId i = 0; i < g.size(); ++i) {
    const auto type = static_cast<TaskType>(g.work(i).type);
    if (type == TaskType::Backward) last_backward = std::max(last_backward, t.end[i]);
    if (type == TaskType::Optimizer) opt_start = std::max(opt_start, t.start[i]);
    saw_dp = saw_dp || type == TaskType::DpCollective;
  }
  CHECK(saw_dp);
  CHECK(opt_start >= last_backward);
  CHECK(t.makespan > opt_start);
}

TEST_CASE("cancel: a raised cancel flag makes simulate throw Cancelled", "[simulate]") {
  const Scenario sc = test::pipeline(4, 8, 1, 2, 0.5, "1f1b");
  std::atomic<bool> cancel{true};
  SimulateOptions opt;
  opt.cancel = &cancel;
  CHECK_THROWS_AS(simulate(sc, opt), Cancelled);
  cancel = false;  // lowered: the same call runs to the usual makespan
  CHECK(simulate(sc, opt).makespan == test::makespan(sc));
}

TEST_CASE("progress: simulate() names its phases and the share of tasks done",
          "[simulate][progress]") {
  // A 4-stage 1F1B of 8 micro-batches: 64 compute tasks and their transfers; the callback hears
  // "building the task graph" at 0, "simulating" at 0, then every 1/200 of the tasks (every
  // task here, fewer than 200), rising to exactly 1, and nothing changes the timeline.
  const Scenario s = test::pipeline(4, 8, 1, 2, 0.5);
  std::vector<std::pair<std::string, double>> calls;
  SimulateOptions opt;
  opt.progress = [&](const char* phase, double done) { calls.emplace_back(phase, done); };
  const Timeline with = simulate(s, opt);
  REQUIRE(calls.size() >= 3);
  CHECK(calls[0] == std::make_pair(std::string("building the task graph"), 0.0));
  CHECK(calls[1] == std::make_pair(std::string("simulating"), 0.0));
  for (std::size_t i = 2; i < calls.size(); ++i) {
    CHECK(calls[i].first == "simulating");
    CHECK(calls[i].second > calls[i - 1].second);
  }
  CHECK(calls.back().second == 1.0);
  CHECK(calls.size() == 2 + with.graph->size());
  CHECK(with.makespan == simulate(s).makespan);
}
