#include "report/critical_path.h"

#include <catch2/catch.hpp>

#include "cost/explicit_costs.h"
#include "test_util.h"

using namespace trainsim;

TEST_CASE("critical path: 1F1B with free transfers is all compute", "[critical]") {
  // p = 4, m = 8, F = 1, B = 2 ms: makespan (m + p − 1)(F + B) = 33 ms, every bit of it on a
  // chain of compute tasks.
  const Timeline tl = simulate(test::pipeline(4, 8, 1, 2, 0));
  const CriticalPath cp = critical_path(tl);
  CHECK(cp.compute_s == Approx(0.033));
  CHECK(cp.pp_s == 0);
  CHECK(cp.waiting_s == 0);
}

TEST_CASE("critical path: AFAB crosses every boundary twice", "[critical]") {
  // AFAB, p = 4, m = 8, F = 1, B = 2, c = 0.5 ms: (m + p − 1)(F + B) of compute and
  // 2(p − 1)c = 3 ms of transfers (the first forward's way down, the last backward's way up);
  // together the makespan.
  const Timeline tl = simulate(test::pipeline(4, 8, 1, 2, 0.5, "afab"));
  const CriticalPath cp = critical_path(tl);
  CHECK(cp.compute_s == Approx(0.033));
  CHECK(cp.pp_s == Approx(0.003));
  CHECK(cp.compute_s + cp.pp_s == Approx(to_seconds(tl.makespan)));
}

TEST_CASE("critical path: an exposed DP all-reduce and the optimizer end the step", "[critical]") {
  // One stage, dp 2, one micro-batch, one gradient bucket: F (10 ms) + B (21 ms), then the
  // all-reduce of all gradients (c) and the optimizer (o) — nothing overlaps.
  const Scenario s = test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 2}
cluster: {gpu: h100-sxm, gpus_per_node: 2, gpu_speed_spread: 0}
parallelism: {dp: 2}
costs: {forward: 10ms, backward: 21ms}
memory: {bucket_size: 100GB}
)");
  const auto cost = make_cost_model(s);
  const TimeNs c =
      cost->collective(Collective::AllReduce, 2, LinkClass::IntraNode, cost->gradient_bytes(0))
          .duration;
  const TimeNs o = cost->optimizer(cost->stage_params(0)).duration;
  const CriticalPath cp = critical_path(simulate(s));
  CHECK(cp.compute_s == Approx(0.031));
  CHECK(cp.dp_s == Approx(to_seconds(c)));
  CHECK(cp.optimizer_s == Approx(to_seconds(o)));
  CHECK(cp.tasks == 4);  // F, B, all-reduce, optimizer
}
