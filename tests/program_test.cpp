// The lowering passes (lower/program.h) on tiny layouts, with expected times derived from the
// cost model's own durations (the arithmetic is in the comments). Their clusters set
// gpu_speed_spread 0: every GPU at one GPU's pace (gpu_spread_test covers the slowest GPU's).
#include "lower/program.h"

#include <cmath>
#include <initializer_list>
#include <map>
#include <set>
#include <tuple>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cost/explicit_costs.h"
#include "lower/task_types.h"
#include "memory/footprint.h"
#include "report/memory_report.h"
#include "report/report_format.h"
#include "report/step_report.h"
#include "test_util.h"

using namespace trainsim;

namespace {

// Llama-3.2-1B on one pipeline stage, dp 2 on one node, one micro-batch per step, explicit
// F = 10 ms and B = 21 ms over the analytic model (which still costs collectives and the
// optimizer). Gradients: 2Ψ bytes; `bucket` sets how many buckets they make. No contention
// unless `slowdown` (compute beside communication) or `comm_slowdown` (communication beside
// compute) is given: these tests check each pass's own arithmetic, the contention tests below
// add it.
Scenario dp_only(int zero, const std::string& bucket, double slowdown = 0,
                 double comm_slowdown = 0) {
  return test::yaml(fmt::format(R"(model: llama-3.2-1b
training: {{seq_len: 1024, micro_batch_size: 1, global_batch_size: 2}}
cluster: {{gpu: h100-sxm, gpus_per_node: 2, gpu_speed_spread: 0}}
parallelism: {{dp: 2, zero: {}}}
costs: {{forward: 10ms, backward: 21ms}}
memory: {{bucket_size: {}}}
contention: {{compute_slowdown: {}, comm_slowdown: {}, link_sharing: false}}
)",
                                zero, bucket, slowdown, comm_slowdown));
}

std::vector<TaskId> of_type(const Timeline& tl, TaskType type) {
  std::vector<TaskId> out;
  const TaskGraph& g = *tl.graph;
  for (TaskId t = 0; t < g.size(); ++t)
    if (static_cast<TaskType>(g.work(t).type) == type &&
        tl.ranks.ranks[g.streams[g.tasks[t].stream].owner].coord.dp == 0)
      out.push_back(t);
  return out;
}

// dp_only's gradients G in K buckets: the tied table's E (V·h of its Ψ parameters, at G/Ψ bytes
// each) completes its gradient last and rides with the last bucket (Program::bucket_bytes), the
// rest in K equal shares. `size` (memory.bucket_size just over a share) makes K of them; `small`
// is each of the first K − 1, `last` the last one, small + E.
struct Buckets {
  std::string size;
  double small, last;
};
Buckets buckets_of(int zero, int k) {
  const Scenario probe = dp_only(zero, "1GB");
  const auto cost = make_cost_model(probe);
  const double g = cost->gradient_bytes(0), psi = cost->stage_params(0);
  const double e = static_cast<double>(probe.model->embedding_params()) * g / psi;
  const double small = (g - e) / k;
  return {fmt::format("{}B", static_cast<long long>(small + 1)), small, small + e};
}

}  // namespace

TEST_CASE("DP pass: ZeRO-0 all-reduces each bucket as the backward completes it", "[passes][dp]") {
  // G = 2Ψ bytes of gradients in K = 3 buckets (buckets_of: the table's E with the last). The
  // backward (21 ms) is cut into three 7 ms parts; bucket j's all-reduce (c_j, the cost model's
  // time for its bytes over 2 GPUs: c for the first two, c_last for the last) starts when part
  // j ends and the previous bucket is done: ends e_j = max(10 + 7j, e_{j−1}) + c_j. Then the
  // optimizer step (o): makespan = e_3 + o.
  const Scenario probe = dp_only(0, "1GB");
  const auto cost = make_cost_model(probe);
  const Buckets b = buckets_of(0, 3);
  const Scenario s = dp_only(0, b.size);
  const TimeNs c =
      cost->collective(Collective::AllReduce, 2, LinkClass::IntraNode, b.small).duration;
  const TimeNs c_last =
      cost->collective(Collective::AllReduce, 2, LinkClass::IntraNode, b.last).duration;
  const TimeNs o = cost->optimizer(cost->stage_params(0)).duration;
  TimeNs e = 0;
  for (int j = 1; j <= 3; ++j)
    e = std::max(10 * kNsPerMs + 7 * j * kNsPerMs, e) + (j == 3 ? c_last : c);
  const Timeline tl = simulate(s);
  CHECK(tl.makespan == e + o);
  // Bucket order: the all-reduces run one after another, each after its part of the backward.
  const auto parts = of_type(tl, TaskType::Backward);  // every part keeps the Backward type
  const auto reduces = of_type(tl, TaskType::DpCollective);
  REQUIRE(parts.size() == 3);
  for (std::size_t j = 0; j < 3; ++j) {
    CHECK(tl.graph->work(parts[j]).part == static_cast<int>(j));
    CHECK(tl.graph->work(parts[j]).parts == 3);
  }
  REQUIRE(reduces.size() == 3);
  for (std::size_t j = 0; j < 3; ++j) {
    INFO("bucket " << j);
    CHECK(tl.start[reduces[j]] >= 10 * kNsPerMs + static_cast<TimeNs>(j + 1) * 7 * kNsPerMs);
    if (j > 0) CHECK(tl.start[reduces[j]] >= tl.end[reduces[j - 1]]);
  }
  // Overlap: only the last bucket's all-reduce is exposed after the backward when c ≤ 7 ms.
  if (c <= 7 * kNsPerMs) CHECK(tl.makespan == 31 * kNsPerMs + c_last + o);
}

TEST_CASE("DP pass: the embedding's table rides with the last bucket, FP8 runs' head too",
          "[passes][dp][fp8]") {
  // Llama-3.2-1B untied on one stage, ZeRO-1 reducing by 1 GB bucket in the backward. A bucket
  // never splits a parameter and the table's gradient completes last, so the last bucket holds
  // the embedding's E = V·h parameters (at G/Ψ bytes each) besides an equal share of the rest:
  // K = ⌈(G − E) / 1 GB⌉ buckets, the first K − 1 of (G − E)/K, the last (G − E)/K + E. Under
  // FP8 parameters Megatron-core's 16-bit buckets (the embedding and the head: E = Ψ − the
  // layers' FP8 weights) join the last FP8 bucket's group. The head's gradient, complete first,
  // otherwise spreads over the buckets as the layers' do.
  for (const bool fp8 : {false, true}) {
    INFO("fp8_params " << fp8);
    Scenario s = dp_only(1, "1GB");
    s.model->tied_embeddings = false;
    s.layout.grad_reduce_with_backward = true;
    if (fp8) {
      s.training.precision = Precision::FP8;
      s.training.fp8_params = true;
    }
    const auto cost = make_cost_model(s);
    const double g = cost->gradient_bytes(0), psi = cost->stage_params(0);
    const ModelSpec& m = *s.model;
    // The table: V·h = 128,256 × 2,048; under FP8 the head's V·h as well.
    const double table = 128256.0 * 2048;
    CHECK(static_cast<double>(m.embedding_params()) == table);
    const double own = fp8 ? 2 * table : table;
    const double e = own * g / psi;
    const int k = static_cast<int>(std::ceil((g - e) / 1e9));
    REQUIRE(k >= 2);
    const Timeline tl = simulate(s);
    const std::vector<TaskId> dp = of_type(tl, TaskType::DpCollective);  // K, then the gather
    REQUIRE(dp.size() == static_cast<std::size_t>(k) + 1);
    const TimeNs small =
        cost->collective(Collective::ReduceScatter, 2, LinkClass::IntraNode, (g - e) / k).duration;
    const TimeNs last =
        cost->collective(Collective::ReduceScatter, 2, LinkClass::IntraNode, (g - e) / k + e)
            .duration;
    for (int j = 0; j < k; ++j) {
      INFO("bucket " << j);
      const TaskId t = dp[static_cast<std::size_t>(j)];
      CHECK(tl.end[t] - tl.start[t] == (j + 1 < k ? small : last));
    }
    // Gathering with the next forward, the reduction's buckets come back in reverse (Megatron-
    // core gathers the bucket groups it reduces): K units, the first with those parameters' 16-bit
    // bytes (2·own) besides an equal share of the rest, 2Ψ − 2·own in K (the FP8 layers' weights
    // at 1 byte: 2Ψ − L − 2·own, L = Ψ − own).
    s.layout.param_gather_with_forward = true;
    const double gathered = 2 * psi - (fp8 ? psi - own : 0.0) - 2 * own;
    const int u = k;
    const Timeline moved = simulate(s);
    const std::vector<TaskId> gathers = of_type(moved, TaskType::ParamGather);
    REQUIRE(gathers.size() == static_cast<std::size_t>(u));
    for (int j = 0; j < u; ++j) {
      INFO("unit " << j);
      const TaskId t = gathers[static_cast<std::size_t>(j)];
      CHECK(moved.end[t] - moved.start[t] ==
            cost->collective(Collective::AllGather, 2, LinkClass::IntraNode,
                             gathered / u + (j == 0 ? 2 * own : 0.0))
                .duration);
    }
  }
}

TEST_CASE("DP pass: a tied head on the embedding's rank adds nothing to its last bucket",
          "[passes][dp][fp8]") {
  // Llama-3.2-1B (tied) over pp 2 · dp 2 under zb-v: chunks 0 and 3 both on rank 0, the head
  // (chunk 3) using the embedding's own table, whose gradient chunk 0's last bucket reduces.
  // So chunk 3's gradients (its layers' alone, the table counted once, on chunk 0) make as many
  // equal buckets with FP8 parameters as without: its 16-bit buffer holds nothing of its own.
  auto buckets_of_head = [](bool fp8) {
    const Timeline tl = simulate(test::yaml(fmt::format(R"(model: llama-3.2-1b
training: {{seq_len: 1024, micro_batch_size: 1, global_batch_size: 8, precision: {}, fp8_params: {}}}
cluster: {{gpu: h100-sxm, gpus_per_node: 4, gpu_speed_spread: 0}}
parallelism: {{pp: 2, dp: 2, vpp: 2, zero: 1, overlap_grad_reduce: true}}
memory: {{bucket_size: 100MB}}
schedule: zb-v
)",
                                                        fp8 ? "fp8" : "bf16", fp8)));
    std::vector<double> bytes;
    const TaskGraph& g = *tl.graph;
    for (TaskId t = 0; t < g.size(); ++t)
      if (static_cast<TaskType>(g.work(t).type) == TaskType::DpCollective &&
          g.work(t).detail == static_cast<std::uint8_t>(DpDetail::ReduceScatter) &&
          g.work(t).stage == 3 && tl.ranks.ranks[g.streams[g.tasks[t].stream].owner].coord.dp == 0)
        bytes.push_back(g.work(t).bytes);
    return bytes;
  };
  const std::vector<double> plain = buckets_of_head(false), fp8 = buckets_of_head(true);
  REQUIRE(plain.size() >= 2);
  CHECK(fp8.size() == plain.size());
  for (std::size_t j = 0; j < plain.size(); ++j) CHECK(fp8[j] == Approx(plain[j]));
}

TEST_CASE("DP pass: one bucket when the gradients fit, ZeRO-1 reduce-scatters after the backward",
          "[passes][dp]") {
  const Scenario one = dp_only(0, "100GB");
  const auto cost = make_cost_model(one);
  const double g = cost->gradient_bytes(0), psi = cost->stage_params(0);
  const TimeNs o = cost->optimizer(psi).duration;
  // ZeRO-0, one bucket: F + B + all-reduce(G) + optimizer, nothing overlapped.
  CHECK(test::makespan(one) ==
        31 * kNsPerMs +
            cost->collective(Collective::AllReduce, 2, LinkClass::IntraNode, g).duration + o);
  // ZeRO-1: reduce-scatter(G) after the backward, the optimizer on Ψ/2, then all-gather of
  // the updated 16-bit parameters (2Ψ bytes).
  const Scenario z1 = dp_only(1, "1GB");
  const auto c1 = make_cost_model(z1);
  CHECK(test::makespan(z1) ==
        31 * kNsPerMs +
            c1->collective(Collective::ReduceScatter, 2, LinkClass::IntraNode, g).duration +
            c1->optimizer(psi / 2).duration +
            c1->collective(Collective::AllGather, 2, LinkClass::IntraNode, 2 * psi).duration);
}

TEST_CASE("DP pass: ZeRO-1 with overlap_grad_reduce reduce-scatters each bucket in the backward",
          "[passes][dp]") {
  // As ZeRO-0's test above, with reduce-scatters: G in K = 3 buckets (the table's with the
  // last), the 21 ms backward cut into three 7 ms parts, bucket j's reduce-scatter (r_j: r, r,
  // r_last) after part j and bucket j − 1: ends e_j = max(10 + 7j, e_{j−1}) + r_j. Then the
  // optimizer on Ψ/2 and the all-gather of the updated 16-bit parameters (2Ψ bytes), as ZeRO-1
  // without it.
  const Scenario probe = dp_only(1, "1GB");
  const auto cost = make_cost_model(probe);
  const double psi = cost->stage_params(0);
  const Buckets b = buckets_of(1, 3);
  Scenario s = dp_only(1, b.size);
  s.layout.grad_reduce_with_backward = true;
  const TimeNs r =
      cost->collective(Collective::ReduceScatter, 2, LinkClass::IntraNode, b.small).duration;
  const TimeNs r_last =
      cost->collective(Collective::ReduceScatter, 2, LinkClass::IntraNode, b.last).duration;
  TimeNs e = 0;
  for (int j = 1; j <= 3; ++j)
    e = std::max(10 * kNsPerMs + 7 * j * kNsPerMs, e) + (j == 3 ? r_last : r);
  const Timeline tl = simulate(s);
  CHECK(tl.makespan ==
        e + cost->optimizer(psi / 2).duration +
            cost->collective(Collective::AllGather, 2, LinkClass::IntraNode, 2 * psi).duration);
  // Three reduce-scatters, each after its part, then the parameters' all-gather (a DP
  // collective too).
  const auto parts = of_type(tl, TaskType::Backward);
  const auto dp = of_type(tl, TaskType::DpCollective);
  REQUIRE(parts.size() == 3);
  REQUIRE(dp.size() == 4);
  for (std::size_t j = 0; j < 3; ++j)
    CHECK(tl.start[dp[j]] >= 10 * kNsPerMs + static_cast<TimeNs>(j + 1) * 7 * kNsPerMs);
  // Without it the same buckets make one reduce-scatter of G after the whole backward (and the
  // all-gather).
  s.layout.grad_reduce_with_backward = false;
  const Timeline once = simulate(s);
  CHECK(of_type(once, TaskType::DpCollective).size() == 2);
  CHECK(of_type(once, TaskType::Backward).size() == 1);
  CHECK(once.makespan > tl.makespan);
}

TEST_CASE(
    "DP pass: dense and expert gradients fill buckets of their own, as Megatron-core's "
    "two buffers do",
    "[passes][dp][ep]") {
  // 2 MoE layers of 8 experts, dp 4 · ep 2 on one node of 4, ZeRO-1 reducing by bucket in the
  // backward (F = 10 ms, B = 20 ms explicit), 3 MB buckets. Of the gradients G (2 bytes a
  // parameter: 46.07 MB), the routed experts' R = 25.17 MB are reduce-scattered over their
  // expert-data-parallel pair and the dense D = G − R over all 4 ranks, each share in buckets of
  // its own (Megatron-core's `buffers` and `expert_parallel_buffers`): ⌈R / 3 MB⌉ = 9 equal
  // ones, and ⌈(D − E) / 3 MB⌉ = 7 of the dense rest, the embedding's table E = 1000 · 1024 · 2
  // bytes riding with the last. One mixed bucket series would have made ⌈(G − E) / 3 MB⌉ = 15
  // reductions over each group, twice the dense collectives.
  const Scenario s = test::yaml(R"(model: {layers: 2, hidden: 1024, ffn_hidden: 2048, heads: 8,
        vocab: 1000, moe: {experts: 8, top_k: 2, ffn_hidden: 512}}
training: {seq_len: 512, micro_batch_size: 2, global_batch_size: 8}
cluster: {gpu: h100-sxm, gpus_per_node: 4, nodes: 1, gpu_speed_spread: 0}
parallelism: {dp: 4, ep: 2, zero: 1, overlap_grad_reduce: true}
costs: {forward: 10ms, backward: 20ms}
memory: {bucket_size: 3MB}
contention: {compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}
)");
  const auto cost = make_cost_model(s);
  const double g = cost->gradient_bytes(0);
  const double routed = g * cost->expert_params(0) / cost->stage_params(0), dense = g - routed;
  const double table = 1000.0 * 1024 * 2;
  REQUIRE(std::ceil(routed / 3e6) == 9);
  REQUIRE(std::ceil((dense - table) / 3e6) == 7);
  REQUIRE(std::ceil((g - table) / 3e6) == 15);
  const Timeline tl = simulate(s);
  const TaskGraph& graph = *tl.graph;
  std::vector<TaskId> dense_rs, expert_rs;
  for (const TaskId t : of_type(tl, TaskType::DpCollective)) {
    if (graph.work(t).detail == static_cast<std::uint8_t>(DpDetail::ReduceScatter))
      dense_rs.push_back(t);
    if (graph.work(t).detail == static_cast<std::uint8_t>(DpDetail::ExpertReduceScatter))
      expert_rs.push_back(t);
  }
  REQUIRE(dense_rs.size() == 7);
  REQUIRE(expert_rs.size() == 9);
  const double small = (dense - table) / 7;
  for (std::size_t j = 0; j < 7; ++j)
    CHECK(graph.work(dense_rs[j]).bytes ==
          Approx(cost->collective(Collective::ReduceScatter, 4, LinkClass::IntraNode,
                                  j + 1 == 7 ? small + table : small)
                     .bytes));
  for (const TaskId t : expert_rs)
    CHECK(graph.work(t).bytes ==
          Approx(cost->collective(Collective::ReduceScatter, 2, LinkClass::IntraNode, routed / 9)
                     .bytes));
  // The backward runs in the 15 parts where the stage's buckets complete (20/15 ms each):
  // dense bucket j of 7 leaves once part ⌈(j + 1) · 15 / 7⌉ is done, expert bucket j of 9 once
  // part ⌈(j + 1) · 15 / 9⌉ is, the last of each after the whole backward.
  const auto part_end = [](std::size_t j, int n) {
    const double parts = std::ceil(static_cast<double>(j + 1) * 15 / n);
    return 10 * kNsPerMs + static_cast<TimeNs>(parts * 20e6 / 15) - 1;
  };
  for (std::size_t j = 0; j < 7; ++j) CHECK(tl.start[dense_rs[j]] >= part_end(j, 7));
  for (std::size_t j = 0; j < 9; ++j) CHECK(tl.start[expert_rs[j]] >= part_end(j, 9));
  CHECK(tl.start[dense_rs.front()] < 30 * kNsPerMs);  // not all after the backward
  CHECK(tl.start[expert_rs.front()] < 30 * kNsPerMs);
}

TEST_CASE("DP pass: ZeRO-2/3 reduce every micro-batch's gradients, ZeRO-0/1 the last one's",
          "[passes][dp]") {
  // dp 2, two micro-batches per step (F0 B0 F1 B1 on one stage), one bucket. ZeRO-1 keeps
  // whole gradients and reduces once, after B1; ZeRO-2 keeps only its shard, so B0's gradients
  // are reduce-scattered too, beside F1 and B1: two reduce-scatters of G, the same makespan
  // while the first hides under F1 (r ≤ 10 ms).
  auto two = [](int zero) {
    return test::yaml(fmt::format(R"(model: llama-3.2-1b
training: {{seq_len: 1024, micro_batch_size: 1, global_batch_size: 4}}
cluster: {{gpu: h100-sxm, gpus_per_node: 2, gpu_speed_spread: 0}}
parallelism: {{dp: 2, zero: {}}}
costs: {{forward: 10ms, backward: 21ms}}
memory: {{bucket_size: 100GB}}
contention: {{compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}}
)",
                                  zero));
  };
  auto reduce_scatters = [](const Timeline& tl) {
    int n = 0;
    for (TaskId t : of_type(tl, TaskType::DpCollective))
      n += tl.graph->work(t).bytes > 0 &&
           tl.end[t] <= tl.start[of_type(tl, TaskType::Optimizer).front()];
    return n;
  };
  const Timeline z1 = simulate(two(1)), z2 = simulate(two(2));
  CHECK(reduce_scatters(z1) == 1);
  CHECK(reduce_scatters(z2) == 2);
  const auto cost = make_cost_model(two(2));
  const TimeNs r =
      cost->collective(Collective::ReduceScatter, 2, LinkClass::IntraNode, cost->gradient_bytes(0))
          .duration;
  REQUIRE(r <= 10 * kNsPerMs);
  CHECK(z2.makespan == z1.makespan);
  CHECK(make_report(z2).volume.dp_bytes ==
        Approx(make_report(z1).volume.dp_bytes + cost->gradient_bytes(0) / 2));
}

TEST_CASE("DP pass: ZeRO-1 all-reduces the gradients whole with zero1_reduce: all-reduce",
          "[passes][dp]") {
  // dp 2, one micro-batch, one bucket: ZeRO-1 reduces once, after the backward (nothing left to
  // hide it behind). nanotron's all-reduce moves 2·(n − 1)/n · G bytes a GPU where the
  // reduce-scatter moves (n − 1)/n · G: G/2 more at n = 2, and the step grows by the
  // all-reduce's time less the reduce-scatter's. ZeRO-2 keeps its reduce-scatters.
  auto with = [](int zero, const char* op) {
    return test::yaml(fmt::format(R"(model: llama-3.2-1b
training: {{seq_len: 1024, micro_batch_size: 1, global_batch_size: 2}}
cluster: {{gpu: h100-sxm, gpus_per_node: 2, gpu_speed_spread: 0}}
parallelism: {{dp: 2, zero: {}, zero1_reduce: {}}}
costs: {{forward: 10ms, backward: 21ms}}
memory: {{bucket_size: 100GB}}
contention: {{compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}}
)",
                                  zero, op));
  };
  const auto cost = make_cost_model(with(1, "all-reduce"));
  const double g = cost->gradient_bytes(0);
  auto time = [&](Collective c) {
    return cost->collective(c, 2, LinkClass::IntraNode, g).duration;
  };
  const Timeline rs = simulate(with(1, "reduce-scatter")), ar = simulate(with(1, "all-reduce"));
  CHECK(make_report(ar).volume.dp_bytes == Approx(make_report(rs).volume.dp_bytes + g / 2));
  CHECK(ar.makespan - rs.makespan == time(Collective::AllReduce) - time(Collective::ReduceScatter));
  CHECK(simulate(with(2, "all-reduce")).makespan == simulate(with(2, "reduce-scatter")).makespan);
}

TEST_CASE("DP pass: tied embeddings over a pipeline sum their gradients before the step",
          "[passes][dp]") {
  // Llama-3.2-1B (tied: the head is the embedding) over pp 2, one micro-batch, explicit
  // F = 10 ms and B = 21 ms per stage, no transfer time: F0 0–10, F1 10–20, B1 20–41,
  // B0 41–62 ms. Then the two ends all-reduce the V·h embedding gradient (bf16: 2 bytes each;
  // e, the cost model's time over 2 GPUs of one node), and each stage steps its optimizer (o0,
  // o1): makespan = 62 ms + e + max(o0, o1). Untied, the stages step as soon as their own
  // backward ends: 62 ms + o0 (stage 1's step ends at 41 ms + o1, earlier).
  auto pipeline = [](bool tied) {
    return test::yaml(fmt::format(R"(model: {{preset: llama-3.2-1b, tied_embeddings: {}}}
training: {{seq_len: 1024, micro_batch_size: 1, global_batch_size: 1}}
cluster: {{gpu: h100-sxm, gpus_per_node: 2, gpu_speed_spread: 0}}
parallelism: {{pp: 2}}
costs: {{forward: 10ms, backward: 21ms, p2p: 0ms}}
contention: {{compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}}
)",
                                  tied));
  };
  const Scenario tied = pipeline(true), untied = pipeline(false);
  const auto cost = make_cost_model(tied);
  const double bytes = 128256.0 * 2048 * 2;
  const TimeNs e =
      cost->collective(Collective::AllReduce, 2, LinkClass::IntraNode, bytes, 2).duration;
  const TimeNs o0 = cost->optimizer(cost->stage_params(0)).duration,
               o1 = cost->optimizer(cost->stage_params(1)).duration;
  const Timeline tl = simulate(tied);
  CHECK(tl.makespan == 62 * kNsPerMs + e + std::max(o0, o1));
  CHECK(of_type(tl, TaskType::DpCollective).size() == 2);  // one on each end
  const auto cu = make_cost_model(untied);
  const Timeline tu = simulate(untied);
  CHECK(of_type(tu, TaskType::DpCollective).empty());
  CHECK(tu.makespan == 62 * kNsPerMs + cu->optimizer(cu->stage_params(0)).duration);
}

TEST_CASE("DP pass: the tied embedding's all-reduce joins its two ends' ranks, none on a V",
          "[passes][dp]") {
  // Llama-3.2-1B (tied) over tp 2 · pp 2 · dp 2. Interleaved, vpp 2: chunks 0–3 on ranks
  // 0, 1, 0, 1, so the embedding (chunk 0) is on rank 0 and the head (chunk 3) on rank 1: each
  // end all-reduces the V/t × h table's gradient, V·h/2 · 2 bytes (bf16) under ZeRO-1, this
  // GPU's 1/dp shard of it under ZeRO-2. zb-v places chunks 0 and 3 both on rank 0: nothing to
  // sum.
  auto run = [](const std::string& schedule, int zero) {
    return simulate(test::yaml(fmt::format(R"(model: llama-3.2-1b
training: {{seq_len: 1024, micro_batch_size: 1, global_batch_size: 8}}
cluster: {{gpu: h100-sxm, gpus_per_node: 8, gpu_speed_spread: 0}}
parallelism: {{tp: 2, pp: 2, dp: 2, vpp: 2, zero: {}}}
schedule: {}
)",
                                           zero, schedule)));
  };
  const double table = 128256.0 * 2048 / 2 * 2;
  auto ends = [&](const Timeline& tl, double bytes) {
    std::set<int> pp;
    const TaskGraph& g = *tl.graph;
    for (TaskId t = 0; t < g.size(); ++t)
      if (static_cast<TaskType>(g.work(t).type) == TaskType::DpCollective &&
          g.work(t).bytes == Approx(bytes))
        pp.insert(tl.ranks.ranks[g.streams[g.tasks[t].stream].owner].coord.pp);
    return pp;
  };
  CHECK(ends(run("interleaved-1f1b", 1), table) == std::set<int>{0, 1});
  CHECK(ends(run("interleaved-1f1b", 2), table / 2) == std::set<int>{0, 1});
  CHECK(ends(run("zb-v", 1), table).empty());
}

TEST_CASE("DP pass: ZeRO-Offload moves the shard's step to the host, over the host link",
          "[passes][dp][offload]") {
  // As the ZeRO-1 case above, with training.offload: optimizer. After the reduce-scatter: the
  // gradient shard (G/2 bytes) down the host link (55 GB/s, the H100 preset's measured pinned
  // copy), Adam on Ψ/2 parameters at the host's 4.2e9 per second, the updated 16-bit shard (2 ·
  // Ψ/2 bytes) back, then the all-gather. The GPU's compute stream runs no optimizer.
  const Scenario off = test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 2, offload: optimizer}
cluster: {gpu: h100-sxm, gpus_per_node: 2, gpu_speed_spread: 0}
parallelism: {dp: 2, zero: 1}
costs: {forward: 10ms, backward: 21ms}
memory: {bucket_size: 1GB}
contention: {compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}
)");
  const auto c = make_cost_model(off);
  const double g = c->gradient_bytes(0), psi = c->stage_params(0);
  CHECK(c->host_transfer(55e9).duration == kNsPerS);                      // 55 GB in 1 s
  CHECK(c->host_optimizer(4.2e9).duration == Approx(kNsPerS).margin(1));  // 4.2e9 params in 1 s
  const TimeNs down = c->host_transfer(g / 2).duration, up = c->host_transfer(psi).duration;
  const TimeNs cpu = c->host_optimizer(psi / 2).duration;
  CHECK(test::makespan(off) ==
        31 * kNsPerMs +
            c->collective(Collective::ReduceScatter, 2, LinkClass::IntraNode, g).duration + down +
            cpu + up +
            c->collective(Collective::AllGather, 2, LinkClass::IntraNode, 2 * psi).duration);
  const Timeline tl = simulate(off);
  CHECK(of_type(tl, TaskType::Optimizer).empty());
  CHECK(of_type(tl, TaskType::HostTransfer).size() == 2);
  CHECK(of_type(tl, TaskType::HostOptimizer).size() == 1);
  // The report counts the host chain as the step's optimizer time.
  CHECK(make_report(tl).critical.optimizer_s == Approx(to_seconds(down + cpu + up)));
}

TEST_CASE("DP pass: parallelism.grad_buckets splits only the first chunk's gradients, as Megatron",
          "[passes][dp]") {
  // Llama-3.2-1B (16 layers) over pp 2 × vpp 2 (model stages of 4 layers: 0 and 2 on pipeline
  // rank 0, 1 and 3 on rank 1), dp 2, ZeRO-1 reducing by 100 MB bucket in the backward
  // (overlap_grad_reduce). A model stage of 4 layers holds 4 × 60.8 M = 243 M parameters, 486 MB
  // of bf16 gradients (the embedding's stage more): 5 or more buckets each. `all`: every stage's
  // gradients reduce-scattered bucket by bucket; `first_chunk` (Megatron-core's DDP: bucket_size
  // None where the pipeline rank is above 0 or the chunk is not the first): model stage 0 alone;
  // `none`: one reduce-scatter per stage everywhere. The step's gradients are the same bytes.
  auto run = [](const char* buckets) {
    return simulate(test::yaml(fmt::format(R"(model: llama-3.2-1b
training: {{seq_len: 1024, micro_batch_size: 1, global_batch_size: 8}}
cluster: {{gpu: h100-sxm, gpus_per_node: 4, gpu_speed_spread: 0}}
parallelism: {{dp: 2, pp: 2, vpp: 2, zero: 1, overlap_grad_reduce: true, grad_buckets: {}}}
schedule: interleaved-1f1b
memory: {{bucket_size: 100MB}}
)",
                                           buckets)));
  };
  // Reduce-scatters of the first DP rank's pipeline ranks, by model stage: count and bytes.
  auto per_stage = [](const Timeline& tl) {
    std::map<int, std::pair<int, double>> out;
    const TaskGraph& g = *tl.graph;
    for (TaskId t = 0; t < g.size(); ++t) {
      const Work& w = g.work(t);
      if (static_cast<TaskType>(w.type) != TaskType::DpCollective ||
          static_cast<DpDetail>(w.detail) != DpDetail::ReduceScatter ||
          tl.ranks.ranks[g.streams[g.tasks[t].stream].owner].coord.dp != 0)
        continue;
      out[w.stage].first += 1;
      out[w.stage].second += w.bytes;
    }
    return out;
  };
  const auto all = per_stage(run("all")), first = per_stage(run("first_chunk")),
             none = per_stage(run("none"));
  CHECK(report_to_json(make_report(run("first_chunk")))["layout"]["grad_buckets"] == "first_chunk");
  // The layout's other DDP-side key, parallelism.tp_async_allreduce, is echoed beside it.
  CHECK(report_to_json(make_report(run("all")))["layout"]["tp_async_allreduce"] == true);
  CHECK(report_to_json(make_report(simulate(test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 2}
cluster: {gpu: h100-sxm, gpus_per_node: 4}
parallelism: {tp: 2, dp: 2, tp_async_allreduce: false}
)"))))["layout"]["tp_async_allreduce"] == false);
  REQUIRE(all.size() == 4);
  REQUIRE(first.size() == 4);
  REQUIRE(none.size() == 4);
  for (int st = 0; st < 4; ++st) {
    INFO("stage " << st);
    CHECK(all.at(st).first >= 5);
    CHECK(first.at(st).first == (st == 0 ? all.at(st).first : 1));
    CHECK(none.at(st).first == 1);
    CHECK(first.at(st).second == Approx(all.at(st).second));
    CHECK(none.at(st).second == Approx(all.at(st).second));
  }
}

TEST_CASE("DP pass: training.zero_grad_buffer writes the GPU's gradients to zero once a step",
          "[passes][dp]") {
  // dp_only's ZeRO-1 step (Llama-3.2-1B, F = 10 ms, B = 21 ms, dp 2) with Megatron-core's
  // zero_grad_buffer: every gradient byte this GPU holds (bf16, one per parameter: G = 2Ψ, as
  // `trainsim memory` counts them, not the optimizer's Ψ/2 shard) written once at the HBM rate
  // (H100 SXM 3.35 TB/s × efficiency.memory 0.80) plus one kernel launch (2 µs), in the
  // optimizer's task: the step's end moves by exactly that (the updated parameters' all-gather
  // waits for the optimizer's task), and the report's optimizer time with it.
  auto run = [](bool zero, const char* offload) {
    return test::yaml(fmt::format(R"(model: llama-3.2-1b
training: {{seq_len: 1024, micro_batch_size: 1, global_batch_size: 2, zero_grad_buffer: {},
           offload: {}}}
cluster: {{gpu: h100-sxm, gpus_per_node: 2, gpu_speed_spread: 0}}
parallelism: {{dp: 2, zero: 1}}
costs: {{forward: 10ms, backward: 21ms}}
memory: {{bucket_size: 1GB}}
contention: {{compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}}
)",
                                  zero, offload));
  };
  const Scenario on = run(true, "none"), off = run(false, "none");
  const auto cost = make_cost_model(on);
  const double psi = cost->stage_params(0);
  const double g = static_memory(on, std::vector<int>{0}, 1).gradients;
  CHECK(g == Approx(2 * psi));
  const TimeNs z = cost->zero_grad(g).duration;
  CHECK(z == seconds_to_ns(g / (3.35e12 * 0.80) + 2e-6));
  CHECK(z > 900 * kNsPerUs);  // 2.47 GB at 2.68 TB/s: 922 µs, + 2 µs
  CHECK(make_cost_model(off)->zero_grad(g).duration == 0);
  const Timeline a = simulate(on), b = simulate(off);
  CHECK(a.makespan - b.makespan == z);
  const auto opt_on = of_type(a, TaskType::Optimizer), opt_off = of_type(b, TaskType::Optimizer);
  REQUIRE(opt_on.size() == 1);
  REQUIRE(opt_off.size() == 1);
  CHECK(a.graph->work(opt_on[0]).duration - b.graph->work(opt_off[0]).duration == z);
  CHECK(make_report(a).critical.optimizer_s - make_report(b).critical.optimizer_s ==
        Approx(to_seconds(z)).margin(1e-9));
  // Under ZeRO-Offload the optimizer runs on the host: the zeroing is the compute stream's own
  // task after the backward, beside the host chain (longer than it), so the step does not grow.
  const Timeline c = simulate(run(true, "optimizer")), d = simulate(run(false, "optimizer"));
  const auto zeroing = of_type(c, TaskType::Optimizer);
  REQUIRE(zeroing.size() == 1);
  CHECK(c.graph->work(zeroing[0]).duration == z);
  CHECK(of_type(d, TaskType::Optimizer).empty());
  CHECK(c.makespan == d.makespan);
}

namespace {

// Llama-3.2-1B (16 layers) on one stage, dp 2 on one node, ZeRO-3 in 2 FSDP units of 8
// layers, 1F1B with m = 2, explicit F and B in nanoseconds, no contention.
Scenario zero3(int prefetch, TimeNs f, TimeNs b, bool reshard = true) {
  return test::yaml(fmt::format(R"(model: llama-3.2-1b
training: {{seq_len: 1024, micro_batch_size: 1, global_batch_size: 4}}
cluster: {{gpu: h100-sxm, gpus_per_node: 2, gpu_speed_spread: 0}}
parallelism: {{dp: 2, zero: 3, fsdp: {{unit_layers: 8, prefetch: {}, reshard_after_forward: {}}}}}
costs: {{forward: {}ns, backward: {}ns}}
contention: {{compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}}
)",
                                prefetch, reshard, f, b));
}

// The cost model's numbers for zero3(): Ψ (parameters per GPU), G (one unit's all-gather of
// S = 2Ψ/2 bytes), r (one unit's reduce-scatter of half the gradients), o (optimizer on Ψ/2).
struct Zero3Costs {
  double psi;
  TimeNs gather, reduce, optimizer;
};
Zero3Costs zero3_costs() {
  const auto cost = make_cost_model(zero3(1, 2, 2));
  const double psi = cost->stage_params(0);
  const LinkClass nv = LinkClass::IntraNode;
  return {psi, cost->collective(Collective::AllGather, 2, nv, psi).duration,
          cost->collective(Collective::ReduceScatter, 2, nv, cost->gradient_bytes(0) / 2).duration,
          cost->optimizer(psi / 2).duration};
}

}  // namespace

TEST_CASE("ZeRO-3: prefetch depth 0/1/2 hides more of the parameter gathers", "[passes][zero3]") {
  // Units: 2 per stage; each all-gathers S = 2Ψ/2 bytes in G ns (the cost model's α–β time).
  // Choose a forward part f = ⌊G/2⌋ and a backward part b = 2G (F = 2f, B = 2b). 1F1B at p = 1
  // runs F0 B0 F1 B1 = parts P0..P7 (f f b b f f b b), each after its unit's gather g_i; with
  // depth d, g_i is issued when part i − d − 1 has ended (gathers one at a time):
  //   d = 0: every gather waits for the previous part:           8G + 4f + 4b
  //   d = 1: g_{i+1} runs beside P_i; the long b parts hide the
  //          gathers from P3 on, the short f parts do not:         5G + 4b
  //   d = 2: one more gather is ahead before each short part:     4G + 4b
  // Then the last unit's reduce-scatter (r, after P7; P6's is hidden since r ≤ b) and the
  // optimizer step on Ψ/2 (o).
  const auto [psi, G, r, o] = zero3_costs();
  const TimeNs f = G / 2, b = 2 * G;
  REQUIRE(r <= b);
  const TimeNs expected[] = {8 * G + 4 * f + 4 * b, 5 * G + 4 * b, 4 * G + 4 * b};
  for (int d = 0; d <= 2; ++d) {
    INFO("prefetch " << d);
    const Timeline tl = simulate(zero3(d, 2 * f, 2 * b));
    CHECK(tl.makespan == expected[d] + r + o);
    // Exposed gather time: everything not under compute, 8G, 5G − 4f, 4G − 4f.
    const StepReport rep = make_report(tl);
    CHECK(rep.stages[0].exposed_gather_s ==
          Approx(to_seconds(expected[d] - 4 * f - 4 * b)).margin(1e-9));
    // Every part of every F, B waited for its own unit's gather: 8 gathers, 8 parts.
    CHECK(of_type(tl, TaskType::ParamGather).size() == 8);
    // Gathered buffers: unit i + d is gathered before unit i's buffer is freed, so d + 1 units
    // (S = Ψ 16-bit parameters each, 2Ψ/2) are held at the peak.
    const MemoryReport mem = make_memory_report(tl);
    CHECK(mem.stages[0].gathered == Approx((d + 1) * 2.0 * psi / 2));
  }
}

TEST_CASE("ZeRO-3: parameters kept across micro-batches are gathered once", "[passes][zero3]") {
  // reshard_after_forward: false gathers each unit only before the first forward (prefetch 1):
  // g0 [0, G], P0 [G, G+f], g1 [G, 2G], P1 [2G, 2G+f], then B0, F1, B1 with no gathers:
  // 2G + f + 2b + 2f + 2b = 2G + 3f + 4b, then r and o as above. Both units stay gathered.
  const auto [psi, G, r, o] = zero3_costs();
  const TimeNs f = G / 2, b = 2 * G;
  const Timeline tl = simulate(zero3(1, 2 * f, 2 * b, false));
  CHECK(tl.makespan == 2 * G + 3 * f + 4 * b + r + o);
  CHECK(of_type(tl, TaskType::ParamGather).size() == 2);
  CHECK(make_memory_report(tl).stages[0].gathered == Approx(2.0 * psi));
  // Static state under ZeRO-3: weights 2Ψ/dp (ZeRO, arXiv 1910.02054 §5), the gathered copy on top.
  CHECK(make_memory_report(tl).stages[0].weights == Approx(2.0 * psi / 2));
}

TEST_CASE("ZeRO-3: gather and reduce buckets issue each unit as equal smaller collectives",
          "[passes][zero3]") {
  // zero3() units hold Ψ/2 of the 16-bit parameters: S = Ψ bytes gathered, Ψ/2 · 2 bytes of
  // gradients reduce-scattered. A gather bucket of S/3 (just over) makes each gather 3
  // all-gathers of S/3 back to back; a reduce bucket of a fifth of the unit's gradients makes
  // 5 reduce-scatters of R/5. Each task's time: k × the cost model's time for a piece, its
  // traffic k × a piece's (the same bus bytes as one whole collective).
  const auto cost = make_cost_model(zero3(1, 2, 2));
  const double psi = cost->stage_params(0), unit = psi, grads = cost->gradient_bytes(0) / 2;
  const LinkClass nv = LinkClass::IntraNode;
  Scenario s = zero3(1, 1000000, 2000000);
  s.layout.fsdp.gather_bucket = unit / 3 + 1;
  s.layout.fsdp.reduce_bucket = grads / 5 + 1;
  const Timeline tl = simulate(s);
  const TimeNs g3 = 3 * cost->collective(Collective::AllGather, 2, nv, unit / 3).duration;
  const TimeNs r5 = 5 * cost->collective(Collective::ReduceScatter, 2, nv, grads / 5).duration;
  const auto gathers = of_type(tl, TaskType::ParamGather);
  const auto reduces = of_type(tl, TaskType::DpCollective);
  REQUIRE(!gathers.empty());
  REQUIRE(!reduces.empty());
  for (const TaskId t : gathers) CHECK(tl.graph->work(t).duration == g3);
  // The reduce-scatters (the all-gathers after the optimizer are ZeRO-1/2's, not here).
  for (const TaskId t : reduces) CHECK(tl.graph->work(t).duration == r5);
  // Smaller messages reach less of the link: the pieces together take longer than one whole.
  CHECK(g3 > cost->collective(Collective::AllGather, 2, nv, unit).duration);
  CHECK(r5 > cost->collective(Collective::ReduceScatter, 2, nv, grads).duration);
  // Without buckets, one collective per unit as before.
  const Timeline whole = simulate(zero3(1, 1000000, 2000000));
  for (const TaskId t : of_type(whole, TaskType::ParamGather))
    CHECK(whole.graph->work(t).duration ==
          cost->collective(Collective::AllGather, 2, nv, unit).duration);
}

TEST_CASE("ZeRO-1/2: the parameter all-gather can move to the next forward", "[passes][zero]") {
  // param_gather: with-next-forward takes ZeRO-1's all-gather of the updated parameters off the
  // step's tail and issues it, bucket by bucket, before the forward that needs it. Here the
  // 2Ψ bytes but the tied table's 2·V·h make K = 2 buckets (bucket_size just over half of
  // them), and the table rides with the first (the reduction's last: Program::gather_unit_bytes):
  // on one stage the first forward waits for it, so the tail loses AG(2Ψ) and the front gains
  // AG(first), the second hidden by prefetch 1 behind the first half of F (F/2 = 5 ms).
  const Scenario base = dp_only(1, "1GB");
  const auto cost = make_cost_model(base);
  const double psi = cost->stage_params(0);
  const double table = 2.0 * static_cast<double>(base.model->embedding_params());
  const double half = (2 * psi - table) / 2;
  const TimeNs ag_first =
      cost->collective(Collective::AllGather, 2, LinkClass::IntraNode, half + table).duration;
  const TimeNs ag_second =
      cost->collective(Collective::AllGather, 2, LinkClass::IntraNode, half).duration;
  const TimeNs ag_all =
      cost->collective(Collective::AllGather, 2, LinkClass::IntraNode, 2 * psi).duration;
  REQUIRE(ag_second <= 5 * kNsPerMs);
  Scenario moved = dp_only(1, fmt::format("{}B", static_cast<long long>(half + 1)));
  moved.layout.param_gather_with_forward = true;
  // g0 [0, a], F part 0 [a, a + 5], g1 [a, a + a2] hidden: the step is longer by a at the front
  // and shorter by AG(2Ψ) at the end.
  CHECK(test::makespan(moved) == test::makespan(base) + ag_first - ag_all);
}

TEST_CASE("ZeRO-1: FP8 parameters gather one byte per layer weight", "[passes][zero][fp8]") {
  // ZeRO-1 all-gathers the updated parameters after the step: 2Ψ bytes over dp 2, each GPU
  // sending half. With training.fp8_params the layers' weights (L of Ψ; the tied embedding of
  // Llama-3.2-1B stays 16-bit) travel in 1 byte, 2Ψ − L in all: each GPU sends L/2 less. Both
  // the gather after the step and the one moved to the next forward (param_gather) shrink so.
  for (const bool with_forward : {false, true}) {
    Scenario base = dp_only(1, "100GB");
    base.training.precision = Precision::FP8;
    base.layout.param_gather_with_forward = with_forward;
    Scenario fp8 = base;
    fp8.training.fp8_params = true;
    const ModelSpec& m = *base.model;
    const double layers = static_cast<double>(m.layer_params(0, m.layers));
    CHECK(make_report(simulate(base)).volume.dp_bytes -
              make_report(simulate(fp8)).volume.dp_bytes ==
          Approx(layers / 2));
  }
}

TEST_CASE("ZeRO-1: MXFP8 parameters gather in the gradient buffer's 16 bits",
          "[passes][zero][fp8]") {
  // Megatron-core gathers MXFP8 parameters through its gradient buffer (bf16 here) and quantizes
  // them after: the layers' weights (L) travel in 2 bytes, where per-tensor FP8 parameters
  // travel in 1; over dp 2 each GPU sends half, L/2 more. The gradients' reduction is the same.
  auto scenario = [](const char* recipe) {
    return test::yaml(fmt::format(R"(model: llama-3.2-1b
training: {{seq_len: 1024, micro_batch_size: 1, global_batch_size: 8, precision: fp8,
  fp8_recipe: {}, fp8_params: true, grad_reduce_dtype: bf16}}
cluster: {{gpu: b200, gpus_per_node: 2, gpu_speed_spread: 0}}
parallelism: {{dp: 2, zero: 1}}
memory: {{bucket_size: 100GB}}
)",
                                  recipe));
  };
  const Scenario mx = scenario("mxfp8"), per_tensor = scenario("delayed");
  const ModelSpec& m = *mx.model;
  const double layers = static_cast<double>(m.layer_params(0, m.layers));
  CHECK(make_report(simulate(mx)).volume.dp_bytes -
            make_report(simulate(per_tensor)).volume.dp_bytes ==
        Approx(layers / 2));
}

TEST_CASE("ZeRO-1: over model chunks the next forward's gathers go a chunk ahead",
          "[passes][zero]") {
  // Llama-3.2-1B, pp 2 × vpp 4 (8 stages of 2 layers), dp 2, one bucket per chunk. Megatron's
  // interleaved schedule gathers chunks 0 and 1 at the step's start and chunk c + 1 as the
  // forward of virtual micro-batch c·pp − r begins on pipeline rank r: on rank 0 chunk c's
  // first forward, on rank 1 the forward before it (chunk c − 1's second micro-batch). A gather
  // starts as the compute task before that forward ends (the gather stream is idle by then).
  const Timeline tl = simulate(test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 8}
cluster: {gpu: h100-sxm, gpus_per_node: 4, gpu_speed_spread: 0}
parallelism: {dp: 2, pp: 2, vpp: 4, zero: 1, param_gather: with-next-forward}
schedule: interleaved-1f1b
memory: {bucket_size: 100GB}
)"));
  const TaskGraph& g = *tl.graph;
  struct Rank {
    std::map<int, TaskId> gather;                   // by stage
    std::map<std::pair<int, int>, TaskId> forward;  // by (stage, micro-batch)
    std::vector<TaskId> compute;                    // in start order
  };
  std::map<int, Rank> ranks;  // by pipeline rank, DP and TP rank 0
  for (TaskId t = 0; t < g.size(); ++t) {
    const Coord& c = tl.ranks.ranks[g.streams[g.tasks[t].stream].owner].coord;
    if (c.dp != 0 || c.tp != 0) continue;
    Rank& r = ranks[c.pp];
    const auto type = static_cast<TaskType>(g.work(t).type);
    if (type == TaskType::ParamGather) r.gather[g.work(t).stage] = t;
    if (type == TaskType::Forward) r.forward[{g.work(t).stage, g.tasks[t].microbatch}] = t;
    if (is_compute(type)) r.compute.push_back(t);
  }
  for (auto& [pp, r] : ranks)
    std::sort(r.compute.begin(), r.compute.end(),
              [&](TaskId a, TaskId b) { return tl.start[a] < tl.start[b]; });
  // The end of the compute task before `t` on its rank.
  auto before = [&](const Rank& r, TaskId t) {
    const auto it = std::find(r.compute.begin(), r.compute.end(), t);
    REQUIRE(it != r.compute.begin());
    return tl.end[*(it - 1)];
  };
  const Rank& r0 = ranks.at(0);
  const Rank& r1 = ranks.at(1);
  REQUIRE(r0.gather.size() == 4);  // stages 0, 2, 4, 6
  REQUIRE(r1.gather.size() == 4);  // stages 1, 3, 5, 7
  CHECK(tl.start[r0.gather.at(0)] == 0);
  CHECK(tl.start[r0.gather.at(2)] == tl.end[r0.gather.at(0)]);
  // Rank 0: chunk 2 as chunk 1's first forward begins, chunk 3 as chunk 2's.
  CHECK(tl.start[r0.gather.at(4)] == before(r0, r0.forward.at({2, 0})));
  CHECK(tl.start[r0.gather.at(6)] == before(r0, r0.forward.at({4, 0})));
  // Rank 1: one forward earlier, as chunk 0's and chunk 1's second micro-batches begin.
  CHECK(tl.start[r1.gather.at(5)] == before(r1, r1.forward.at({1, 1})));
  CHECK(tl.start[r1.gather.at(7)] == before(r1, r1.forward.at({3, 1})));
  CHECK(tl.start[r1.gather.at(5)] < tl.start[r1.forward.at({3, 0})]);
}

TEST_CASE("DP pass: smaller buckets hide more of the reduction behind the backward",
          "[passes][dp]") {
  // One bucket exposes the whole all-reduce; many small ones expose about one bucket's worth
  // (plus their extra latencies). Step time must not grow when buckets shrink from 1 to 4.
  CHECK(test::makespan(dp_only(0, "100GB")) > test::makespan(dp_only(0, "700MB")));
}

TEST_CASE("TP pass: SP adds the backward's re-gathers and the hidden collectives are not exposed",
          "[passes][tp]") {
  // Llama-3.2-1B (16 layers, h 2048), tp 2, one GPU pair, 1,024 tokens: each layer's 2
  // all-reduces (2(t−1)/t · S each) become 2 all-gather + reduce-scatter pairs ((t−1)/t · S
  // each), the same bytes per GPU, and the backward re-gathers the inputs of the 2
  // column-parallel layers and the head for their weight gradients: 33 · (1/2) · S more, S =
  // 1024 · 2048 · 2 bytes. The backward's asynchronous collectives run beside it (the test
  // below): less is exposed than the TP collectives take, with SP or without.
  auto run = [](bool sp) {
    return make_report(simulate(test::yaml(fmt::format(R"(model: llama-3.2-1b
training: {{seq_len: 1024, micro_batch_size: 1, global_batch_size: 1}}
cluster: {{gpu: h100-sxm, gpus_per_node: 2, gpu_speed_spread: 0}}
parallelism: {{tp: 2, sequence_parallel: {}}}
)",
                                                       sp))));
  };
  const StepReport no_sp = run(false), sp = run(true);
  CHECK(no_sp.volume.tp_bytes > 0);
  CHECK(sp.volume.tp_bytes == Approx(no_sp.volume.tp_bytes + 33 * 0.5 * 1024 * 2048 * 2));
  auto tp_time = [](bool sp) {
    double seconds = 0;
    const Timeline tl = simulate(test::yaml(fmt::format(R"(model: llama-3.2-1b
training: {{seq_len: 1024, micro_batch_size: 1, global_batch_size: 1}}
cluster: {{gpu: h100-sxm, gpus_per_node: 2, gpu_speed_spread: 0}}
parallelism: {{tp: 2, sequence_parallel: {}}}
)",
                                                        sp)));
    for (TaskId t = 0; t < tl.graph->size(); ++t)
      if (static_cast<TaskType>(tl.graph->work(t).type) == TaskType::TpCollective &&
          tl.ranks.ranks[tl.graph->streams[tl.graph->tasks[t].stream].owner].coord.tp == 0)
        seconds += to_seconds(tl.end[t] - tl.start[t]);
    return seconds;
  };
  CHECK(sp.stages[0].exposed_tp_s < 0.9 * tp_time(true));
  CHECK(no_sp.stages[0].exposed_tp_s < 0.9 * tp_time(false));
}

TEST_CASE("TP pass: a stage's output leaves for the next stage after its blocking TP collectives",
          "[passes][tp][p2p]") {
  // Llama-3.2-1B, tp 2 · pp 2 on one node, one micro-batch, explicit F = 10 ms and B = 21 ms.
  // Under SP a stage's forward ends with its last layer's reduce-scatter and its backward with
  // the blocking gradient all-gathers: the activation (gradient) a send carries exists only
  // once they are done. So every send waits for its producer's TP collective on the critical
  // path, and the next stage's compute starts no earlier than that collective's end.
  const Timeline tl = simulate(test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 1}
cluster: {gpu: h100-sxm, gpus_per_node: 4, gpu_speed_spread: 0}
parallelism: {tp: 2, pp: 2, sequence_parallel: true}
costs: {forward: 10ms, backward: 21ms}
contention: {compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}
)"));
  const TaskGraph& g = *tl.graph;
  auto type = [&](TaskId t) { return static_cast<TaskType>(g.work(t).type); };
  std::set<TaskId> sends, waiting;  // every send; those after a TP collective
  for (TaskId t = 0; t < g.size(); ++t) {
    if (type(t) == TaskType::SendActivation || type(t) == TaskType::SendGradient) sends.insert(t);
    if (type(t) != TaskType::TpCollective) continue;
    for (auto v : g.successors(t)) {
      const TaskType tv = type(static_cast<TaskId>(v));
      if (tv != TaskType::SendActivation && tv != TaskType::SendGradient) continue;
      waiting.insert(static_cast<TaskId>(v));
      CHECK(tl.start[v] >= tl.end[t]);
    }
  }
  // One activation sent forward and one gradient back (per simulated TP rank), each after
  // its producer's TP collectives (the backward's: the hidden ones and the blocking ones).
  CHECK(sends.size() >= 2);
  CHECK(waiting == sends);
  // Stage 1's forward starts after stage 0's forward (10 ms), its TP collective and the
  // transfer: later than 10 ms plus the transfer alone.
  TimeNs f1 = -1, tp0 = -1;
  for (TaskId t = 0; t < g.size(); ++t) {
    const auto owner = tl.ranks.ranks[g.streams[g.tasks[t].stream].owner].coord;
    if (type(t) == TaskType::Forward && owner.pp == 1 && owner.tp == 0) f1 = tl.start[t];
    if (type(t) == TaskType::TpCollective && owner.pp == 0 && owner.tp == 0 && tp0 < 0)
      tp0 = tl.end[t];
  }
  REQUIRE(tp0 > 10 * kNsPerMs);
  CHECK(f1 >= tp0);
}

TEST_CASE("program: a TP group wider than a node spans whole nodes, each node's NICs a ring",
          "[program][tp]") {
  // tp 4 over 2 nodes of 2 GPUs: its ranks are consecutive, 2 in each node, so NCCL's rings
  // leave each node through both of its NICs; they had been priced as 4 nodes of one GPU each.
  const Scenario s = test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 1}
cluster: {gpu: h100-sxm, gpus_per_node: 2, nodes: 2, gpu_speed_spread: 0}
parallelism: {tp: 4, sequence_parallel: true}
contention: {compute_slowdown: 0, comm_slowdown: 0}
)");
  // One micro-batch: its forward's and backward's TP collectives are all exposed.
  const StepReport r = make_report(simulate(s));
  const auto cost = make_cost_model(s);
  auto tp = [&](int per_node) {
    return to_seconds(cost->tp_communication(Op::F, 0, LinkClass::InterNode, per_node).duration +
                      cost->tp_communication(Op::B, 0, LinkClass::InterNode, per_node).duration);
  };
  CHECK(r.stages[0].exposed_tp_s == Approx(tp(2)).epsilon(1e-6));
  CHECK(tp(2) < tp(1));  // two NICs a node carry the rings, not one
}

namespace {
// Llama-3.2-1B at tp 2 (no SP) on one GPU pair, one stage, one micro-batch, F = 10 ms and
// B = 20 ms explicit, no contention; `overlap`: parallelism.tp_overlap; `sp`: sequence parallelism.
Scenario tp2_explicit(bool overlap, bool sp = false) {
  return test::yaml(fmt::format(R"(model: llama-3.2-1b
training: {{seq_len: 1024, micro_batch_size: 1, global_batch_size: 1}}
cluster: {{gpu: h100-sxm, gpus_per_node: 2, gpu_speed_spread: 0}}
parallelism: {{tp: 2, tp_overlap: {}, sequence_parallel: {}}}
costs: {{forward: 10ms, backward: 20ms}}
contention: {{compute_slowdown: 0, comm_slowdown: 0}}
)",
                                overlap, sp));
}

// Without overlap: the forward's and the backward's TP collectives on the critical path (cF, cB)
// and the optimizer step (o), each inside the explicit F = 10 ms and B = 20 ms.
struct Tp2Times {
  TimeNs cf, cb, o;
};
Tp2Times tp2_times(const CostModel& plain) {
  const Tp2Times t{plain.tp_communication(Op::F, 0, LinkClass::IntraNode).duration,
                   plain.tp_communication(Op::B, 0, LinkClass::IntraNode).duration,
                   plain.optimizer(plain.stage_params(0)).duration};
  REQUIRE(t.cf > 0);
  REQUIRE(t.cf <= 10 * kNsPerMs);
  REQUIRE(t.cb <= 20 * kNsPerMs);
  return t;
}
}  // namespace

TEST_CASE("TP pass: without SP, tp_overlap runs each collective beside the whole pass",
          "[passes][tp]") {
  // (Transformer Engine's userbuffers need SP: without it the knob is a generic overlap.)
  // tp2_explicit. The forward's TP collectives take cF, the backward's cB on the critical path
  // (the cost model's; its hidden part runs beside B, the test below). Exposed: F + cF + B + cB +
  // o. Overlapped, each collective starts with its compute and the next compute waits for both:
  // max(F, cF) + max(B + o, cB + hidden) — all hidden while cF ≤ F and cB + hidden ≤ B.
  const auto scenario = [](bool overlap) { return tp2_explicit(overlap); };
  const auto [cf, cb, o] = tp2_times(*make_cost_model(scenario(false)));
  CHECK(test::makespan(scenario(false)) == 30 * kNsPerMs + cf + cb + o);
  const Timeline tl = simulate(scenario(true));
  CHECK(tl.makespan == 30 * kNsPerMs + o);
  CHECK(make_report(tl).stages[0].exposed_tp_s == 0);
  CHECK(make_report(tl).volume.tp_bytes ==
        Approx(make_report(simulate(scenario(false))).volume.tp_bytes));
}

TEST_CASE("TP pass: tp_overlap hides each layer's collectives under the GEMM they are fused with",
          "[passes][tp]") {
  // tp2_explicit with SP. Without overlap the forward's all-gathers and reduce-scatters (two
  // each a layer) block: cF on the critical path; the backward's column-parallel ones hide under
  // their GEMMs, cB of them and the row-parallel gradients' all-gathers on the critical path.
  // With comm-GEMM overlap (Transformer Engine's, with SP) each forward collective hides under
  // the GEMM it is fused with (QKV's, the up projection's, attn_out's, mlp_down's, as the
  // analytic model times them): of cF only what outlasts those GEMMs, cF', stays on the
  // critical path, the rest h = cF − cF' runs beside F (h ≤ F); likewise the backward's
  // all-gathers under the row-parallel input gradients: cB' ≤ cB. Makespan F + cF + B + cB + o
  // without, F + cF' + B + cB' + o with.
  const auto plain = make_cost_model(tp2_explicit(false, true));
  const auto over = make_cost_model(tp2_explicit(true, true));
  const auto [cf, cb, o] = tp2_times(*plain);
  const TimeNs cf2 = over->tp_communication(Op::F, 0, LinkClass::IntraNode).duration;
  const TimeNs cb2 = over->tp_communication(Op::B, 0, LinkClass::IntraNode).duration;
  const TimeNs h = over->tp_hidden_communication(Op::F, 0, LinkClass::IntraNode).duration;
  CHECK(plain->tp_hidden_communication(Op::F, 0, LinkClass::IntraNode).duration == 0);
  REQUIRE(h > 0);
  CHECK(cf2 + h == cf);
  CHECK(cb2 <= cb);
  CHECK(test::makespan(tp2_explicit(false, true)) == 30 * kNsPerMs + cf + cb + o);
  const Timeline tl = simulate(tp2_explicit(true, true));
  CHECK(tl.makespan == 30 * kNsPerMs + cf2 + cb2 + o);
  CHECK(make_report(tl).volume.tp_bytes ==
        Approx(make_report(simulate(tp2_explicit(false, true))).volume.tp_bytes));
}

namespace {
// dp_only's bucket size for 2 buckets (buckets_of), the first bucket's all-reduce time c, the
// last's (the table's with it) c_last and the optimizer's o.
std::tuple<std::string, TimeNs, TimeNs, TimeNs> two_buckets() {
  const auto cost = make_cost_model(dp_only(0, "1GB"));
  const Buckets b = buckets_of(0, 2);
  return {b.size,
          cost->collective(Collective::AllReduce, 2, LinkClass::IntraNode, b.small).duration,
          cost->collective(Collective::AllReduce, 2, LinkClass::IntraNode, b.last).duration,
          cost->optimizer(cost->stage_params(0)).duration};
}
}  // namespace

TEST_CASE("contention: a bucket's all-reduce slows the backward part beside it",
          "[passes][contention]") {
  // dp_only with K = 2 buckets and compute_slowdown 0.25: the backward's two 10.5 ms parts;
  // AR0 (c) starts with part 2 at 20.5 ms. Part 2 runs at 1/1.25 = 0.8 while AR0 runs (c ≤
  // 10.5 ms), then at full rate: it ends at 20.5 + c + (10.5 − 0.8c) ms. AR1 (c_last) follows,
  // then the optimizer (o) with nothing beside it: 31 ms + 0.2c + c_last + o, i.e. 0.2c =
  // c·f/(1+f) more than without contention.
  const auto [bucket, c, c_last, o] = two_buckets();
  REQUIRE(c <= 10500 * kNsPerUs);
  const TimeNs plain = test::makespan(dp_only(0, bucket));
  CHECK(plain == 31 * kNsPerMs + c_last + o);  // AR0 hidden behind part 2, AR1 exposed
  const TimeNs slowed = test::makespan(dp_only(0, bucket, 0.25));
  CHECK(static_cast<double>(slowed) ==
        Approx(static_cast<double>(31 * kNsPerMs + c_last + o) + 0.2 * static_cast<double>(c))
            .margin(2));
}

TEST_CASE("contention: a bucket's all-reduce beside the backward runs slower itself",
          "[passes][contention]") {
  // dp_only with K = 2 buckets and comm_slowdown 0.25 (compute unslowed): AR0 starts with the
  // backward's part 2 at 20.5 ms and runs at 1/1.25 of its pace while part 2 computes (1.25c ≤
  // 10.5 ms): it takes 1.25c. AR1 starts when part 2 ends (31 ms), with no compute beside it:
  // c_last. The step is 31 ms + c_last + o as without contention; AR0 alone is longer.
  const auto [bucket, c, c_last, o] = two_buckets();
  REQUIRE(5 * c <= 4 * 10500 * kNsPerUs);
  const Timeline tl = simulate(dp_only(0, bucket, 0, 0.25));
  CHECK(tl.makespan == 31 * kNsPerMs + c_last + o);
  const std::vector<TaskId> ar = of_type(tl, TaskType::DpCollective);
  REQUIRE(ar.size() == 2);
  CHECK(static_cast<double>(tl.end[ar[0]] - tl.start[ar[0]]) ==
        Approx(1.25 * static_cast<double>(c)).margin(2));
  CHECK(tl.end[ar[1]] - tl.start[ar[1]] == c_last);
}

TEST_CASE("contention: each GPU's compute, SMs and links are wired as resources",
          "[passes][contention]") {
  // One GPU per node (everything crosses the network), pp 2, dp 2: rank 0's DP collectives
  // and its sends to stage 1 share rank 0's NIC's outgoing side, the collectives and its
  // receives from stage 1 its incoming side (a link carries its rate each way at once); its
  // compute is slowed by both.
  const Scenario s = test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 8}
cluster: {gpu: h100-sxm, gpus_per_node: 1, nodes: 4, gpu_speed_spread: 0}
parallelism: {dp: 2, pp: 2}
)");
  const Timeline tl = simulate(s);
  const TaskGraph& g = *tl.graph;
  REQUIRE(!g.resources.empty());
  const std::uint32_t owner = static_cast<std::uint32_t>(tl.ranks.index_of_global[0]);
  // Two SM resources: the compute is the victim of one (communication kernels slow it) and
  // the aggressor of the other (it slows them); every communication stream the reverse.
  ResourceId sm = kNone, sm_comm = kNone;
  std::set<ResourceId> nic_dp, nic_send, nic_recv;
  for (StreamId st = 0; st < g.streams.size(); ++st) {
    if (g.streams[st].owner != owner) continue;
    const auto type = static_cast<StreamType>(g.streams[st].type);
    for (const ResourceUse& u : g.uses_of(st)) {
      if (type == StreamType::Compute) {
        (u.role == ResourceRole::Victim ? sm : sm_comm) = u.resource;
      } else if (u.role == ResourceRole::Share) {
        if (type == StreamType::Send) nic_send.insert(u.resource);
        if (type == StreamType::Recv) nic_recv.insert(u.resource);
        if (type == StreamType::DataParallel) nic_dp.insert(u.resource);
      } else {  // created with the compute stream, first
        CHECK(u.resource == (u.role == ResourceRole::Aggressor ? sm : sm_comm));
      }
    }
  }
  REQUIRE(sm != kNone);
  REQUIRE(sm_comm != kNone);
  CHECK(sm != sm_comm);
  CHECK(g.resources[sm].factor == Approx(0.189));
  CHECK(g.resources[sm_comm].factor == Approx(0.129));
  // The DP collectives use both sides; a send one, a receive the other.
  REQUIRE(nic_dp.size() == 2);
  REQUIRE(nic_send.size() == 1);
  REQUIRE(nic_recv.size() == 1);
  CHECK(nic_send != nic_recv);
  CHECK(nic_dp.count(*nic_send.begin()) == 1);
  CHECK(nic_dp.count(*nic_recv.begin()) == 1);
  for (const ResourceId r : nic_dp) CHECK(g.resources[r].policy == ResourcePolicy::FairShare);
  // Contention only slows: the same step without it is not longer.
  Scenario off = s;
  off.contention = {0.0, 0.0, false};
  CHECK(test::makespan(off) <= tl.makespan);
}

TEST_CASE("contention: a send and a receive cross a link in opposite directions, unshared",
          "[passes][contention][p2p]") {
  // Llama-3.2-1B, pp 4 on four nodes of one GPU, 8 micro-batches, explicit F = 1 ms, B = 2 ms
  // and every transfer 1.2 ms, no SM slowdown, links fair-shared. In 1F1B's steady state a
  // rank sends and receives at once, out of the GPU and into it: a link carries its rate each
  // way, so a transfer that overlaps no other transfer of its own direction on its rank takes
  // its 1.2 ms whatever runs the other way (before the directions were told apart, a send
  // beside a receive ran at half rate). Two of one direction at once (a rank receiving an
  // activation and a gradient) do share.
  const Timeline tl = simulate(test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 8}
cluster: {gpu: h100-sxm, gpus_per_node: 1, nodes: 4, gpu_speed_spread: 0}
parallelism: {pp: 4}
costs: {forward: 1ms, backward: 2ms, p2p: 1.2ms}
contention: {compute_slowdown: 0, comm_slowdown: 0, link_sharing: true}
)"));
  const TaskGraph& g = *tl.graph;
  auto type = [&](TaskId t) { return static_cast<StreamType>(g.streams[g.tasks[t].stream].type); };
  auto owner = [&](TaskId t) { return g.streams[g.tasks[t].stream].owner; };
  std::vector<TaskId> p2p;
  for (TaskId t = 0; t < g.size(); ++t)
    if (type(t) == StreamType::Send || type(t) == StreamType::Recv) p2p.push_back(t);
  // A transfer is its send and its receive together (a rendezvous): both ends' links count.
  std::map<TaskId, TaskId> partner;
  for (RendezvousId rv = 0; rv < g.rendezvous_count(); ++rv) {
    const auto m = g.rendezvous(rv);
    if (m.size() == 2) partner[m[0]] = m[1], partner[m[1]] = m[0];
  }
  // Whether `t` overlaps another transfer on its rank of its own direction, or of the other.
  auto overlaps = [&](TaskId t, bool own_way) {
    for (const TaskId u : p2p)
      if (u != t && owner(u) == owner(t) && (type(u) == type(t)) == own_way &&
          tl.start[u] < tl.end[t] && tl.start[t] < tl.end[u])
        return true;
    return false;
  };
  int alone = 0, beside_other_way = 0;
  for (const TaskId t : p2p) {
    REQUIRE(partner.count(t) == 1);
    const TaskId u = partner[t];
    if (overlaps(t, true) || overlaps(u, true)) continue;
    const bool other = overlaps(t, false) || overlaps(u, false);
    ++alone;
    if (other) ++beside_other_way;
    CHECK(tl.end[t] - tl.start[t] == 1200 * kNsPerUs);
  }
  CHECK(alone > 0);
  CHECK(beside_other_way > 0);  // the case the test is about occurs
}

TEST_CASE("report: DP reduction hidden behind the backward is not exposed", "[passes][dp]") {
  // dp_only with 3 buckets: buckets 1 and 2 run while the backward's later parts compute (if
  // c ≤ 7 ms); only the last bucket's all-reduce, c_last (the table's with it), is exposed.
  // With one bucket all of it is.
  const Scenario probe = dp_only(0, "1GB");
  const auto cost = make_cost_model(probe);
  const double g = cost->gradient_bytes(0);
  const Buckets b = buckets_of(0, 3);
  const TimeNs c3 =
      cost->collective(Collective::AllReduce, 2, LinkClass::IntraNode, b.small).duration;
  const TimeNs c_last =
      cost->collective(Collective::AllReduce, 2, LinkClass::IntraNode, b.last).duration;
  const TimeNs c1 = cost->collective(Collective::AllReduce, 2, LinkClass::IntraNode, g).duration;
  REQUIRE(c3 <= 7 * kNsPerMs);
  const StepReport three = make_report(simulate(dp_only(0, b.size)));
  const StepReport one = make_report(simulate(dp_only(0, "100GB")));
  CHECK(three.stages[0].exposed_dp_s == Approx(to_seconds(c_last)));
  CHECK(one.stages[0].exposed_dp_s == Approx(to_seconds(c1)));
  // Traffic per GPU is the same either way: 2(n−1)/n · G = G for n = 2.
  CHECK(three.volume.dp_bytes == Approx(g));
  CHECK(one.volume.dp_bytes == Approx(g));
}

TEST_CASE("stragglers: a slower GPU's compute and links set the pace", "[passes][slowdown]") {
  // 1F1B, p = 2, m = 4, F = 1 ms, B = 2 ms: (m + p − 1)(F + B) = 15 ms evenly.
  const std::string base =
      "parallelism: {pp: 2}\ntraining: {microbatches: 4}\nschedule: 1f1b\n"
      "costs: {forward: 1ms, backward: 2ms, p2p: 0ms}\n";
  CHECK(test::makespan(test::yaml(base)) == 15 * kNsPerMs);
  // Rank 1 computes twice as slowly (F' = 2, B' = 4). It is the last stage, so after the first
  // forward arrives (1 ms) it runs its 4 F'B' pairs back to back (24 ms); then rank 0 runs the
  // last backward (2 ms): 27 ms.
  CHECK(test::makespan(test::yaml(base + "slowdown: [{rank: 1, compute: 2}]")) == 27 * kNsPerMs);
  // AFAB with transfers of c ≤ F: (m + p − 1)(F + B) + 2(p − 1)c. A link factor 3 on rank 1
  // triples every transfer it takes part in: c = 0.25 → 0.75 ms, 15.5 → 16.5 ms. (With c > F
  // the FIFO channel, not the stages, would set the pace.)
  const std::string afab =
      "parallelism: {pp: 2}\ntraining: {microbatches: 4}\nschedule: afab\n"
      "costs: {forward: 1ms, backward: 2ms, p2p: 0.25ms}\n";
  CHECK(test::makespan(test::yaml(afab)) == 15500 * kNsPerUs);
  CHECK(test::makespan(test::yaml(afab + "slowdown: [{ranks: [1], link: 3}]")) == 16500 * kNsPerUs);
}

TEST_CASE("stragglers: a slow DP peer slows its whole group's all-reduce and unfolds the ranks",
          "[passes][slowdown]") {
  const std::string s = R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 4}
cluster: {gpu: h100-sxm, gpus_per_node: 4, gpu_speed_spread: 0}
parallelism: {dp: 4, zero: 0}
memory: {bucket_size: 100GB}
)";
  const Timeline even = simulate(test::yaml(s));
  const Timeline slow = simulate(test::yaml(s + "slowdown: [{rank: 3, link: 2}]"));
  CHECK(even.ranks.folded);
  CHECK_FALSE(slow.ranks.folded);  // the straggler must be simulated on its own
  // The one gradient all-reduce (one bucket) is the only communication: it takes twice as long
  // on every member, so the step grows by exactly one all-reduce time.
  const auto cost = make_cost_model(test::yaml(s));
  const TimeNs ar =
      cost->collective(Collective::AllReduce, 4, LinkClass::IntraNode, cost->gradient_bytes(0))
          .duration;
  CHECK(slow.makespan - even.makespan == ar);
}

TEST_CASE("stragglers: bad entries name the field and what is allowed", "[slowdown]") {
  const std::string base =
      "parallelism: {pp: 2}\ntraining: {microbatches: 4}\ncosts: {forward: 1ms, backward: 2ms}\n";
  CHECK_THROWS_WITH(test::yaml(base + "slowdown: [{rank: 2, compute: 2}]"),
                    Catch::Contains("slowdown[0].rank") &&
                        Catch::Contains("rank 2 does not exist: the layout has ranks 0..1"));
  CHECK_THROWS_WITH(test::yaml(base + "slowdown: [{rank: 0, ranks: [1]}]"),
                    Catch::Contains("give rank: N or ranks: [N, …] (one of them)"));
  CHECK_THROWS_WITH(test::yaml(base + "slowdown: [{rank: 0, compute: 0}]"),
                    Catch::Contains("slowdown[0].compute"));
  CHECK_THROWS_WITH(test::yaml(base + "slowdown: {rank: 0}"), Catch::Contains("expected a list"));
}

TEST_CASE("EP pass: each part's all-to-alls follow it on the critical path - folded = expanded",
          "[passes][ep]") {
  // 2 MoE layers of 8 experts, one stage, F = 10 ms and B = 20 ms explicit, one micro-batch per
  // step, dp 2 = ep 2 on one node: the two GPUs hold 4 experts each and exchange tokens. No
  // contention; one gradient bucket. The expert gradients have no other holder (dp / ep = 1):
  // only the dense part is all-reduced (AR), after B, beside B's all-to-alls (eB). Makespan:
  // F + eF + B + max(eB, AR) + optimizer.
  auto scenario = [](int dp, int ep, int per_node) {
    return test::yaml(fmt::format(R"(model: {{layers: 2, hidden: 1024, ffn_hidden: 2048, heads: 8,
        vocab: 1000, moe: {{experts: 8, top_k: 2, ffn_hidden: 512}}}}
training: {{seq_len: 512, micro_batch_size: 2, global_batch_size: {}}}
cluster: {{gpu: h100-sxm, gpus_per_node: {}, nodes: {}, gpu_speed_spread: 0}}
parallelism: {{dp: {}, ep: {}}}
costs: {{forward: 10ms, backward: 20ms}}
memory: {{bucket_size: 10GB}}
contention: {{compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}}
)",
                                  2 * dp, per_node, dp / per_node, dp, ep));
  };
  const Scenario s = scenario(2, 2, 2);
  const auto cost = make_cost_model(s);
  const TimeNs ef = cost->ep_communication(Op::F, 0, LinkClass::IntraNode).duration;
  const TimeNs eb = cost->ep_communication(Op::B, 0, LinkClass::IntraNode).duration;
  REQUIRE(ef > 0);
  CHECK(eb == ef);  // the same four all-to-alls backward
  const double dense =
      cost->gradient_bytes(0) * (1 - cost->expert_params(0) / cost->stage_params(0));
  const TimeNs ar =
      cost->collective(Collective::AllReduce, 2, LinkClass::IntraNode, dense).duration;
  const TimeNs o = cost->optimizer(cost->stage_params(0)).duration;  // ZeRO-0: all it holds
  const Timeline tl = simulate(s);
  CHECK(tl.makespan == 30 * kNsPerMs + ef + std::max(eb, ar) + o);
  const StepReport r = make_report(tl);
  CHECK(r.stages[0].comm_ep_s == Approx(to_seconds(ef + eb)));
  CHECK(r.stages[0].exposed_ep_s == Approx(to_seconds(ef + eb)));
  CHECK(r.volume.ep_bytes == Approx(2 * 4 * 0.5 * 4194304.0));  // F and B: 4 runs of S/2 each
  CHECK(of_type(tl, TaskType::EpCollective).size() == 2);
  // dp 4 · ep 2 on two nodes of 2: EP groups inside a node, the expert gradients' holders
  // {0, 2} and {1, 3} across nodes. Folding one representative gives the expanded makespan.
  const Scenario wide = scenario(4, 2, 2);
  CHECK(simulate(wide, {"", true}).makespan == simulate(wide, {"", false}).makespan);
  CHECK(simulate(wide, {"", true}).ranks.folded);
}

TEST_CASE("EP pass: experts whole on each TP rank (etp 1) span TP, reduced over tp · dp / ep",
          "[passes][ep]") {
  // 2 MoE layers of 8 experts, tp 2 + SP · dp 2 on two nodes of 2 GPUs (rank = tp + 2·dp), ep 2,
  // no contention. Whole experts (etp 1): the EP groups are the TP pairs {0, 1} and {2, 3},
  // inside a node, and each expert's holders {0, 2} and {1, 3}, across the nodes: its gradients
  // all-reduced over 2 ranks. Split over TP (etp 2): ep 2 takes the DP pair of one TP
  // coordinate, {0, 2} across the nodes, and no other rank holds an expert's shard.
  auto scenario = [](int etp) {
    return test::yaml(fmt::format(R"(model: {{layers: 2, hidden: 1024, ffn_hidden: 2048, heads: 8,
        vocab: 1000, moe: {{experts: 8, top_k: 2, ffn_hidden: 512}}}}
training: {{seq_len: 512, micro_batch_size: 2, global_batch_size: 4}}
cluster: {{gpu: h100-sxm, gpus_per_node: 2, nodes: 2, gpu_speed_spread: 0}}
parallelism: {{tp: 2, dp: 2, ep: 2, etp: {}, sequence_parallel: true}}
memory: {{bucket_size: 10GB}}
contention: {{compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}}
)",
                                  etp));
  };
  auto expert_reductions = [](const Timeline& tl) {
    int k = 0;
    for (TaskId t : of_type(tl, TaskType::DpCollective))
      k += tl.graph->work(t).detail == static_cast<std::uint8_t>(DpDetail::ExpertAllReduce);
    return k;
  };
  auto all_to_all = [](const Timeline& tl) {
    const auto ep = of_type(tl, TaskType::EpCollective);
    REQUIRE_FALSE(ep.empty());
    return tl.end[ep.front()] - tl.start[ep.front()];
  };
  const Scenario whole = scenario(1), split = scenario(2);
  const Timeline tw = simulate(whole, {"", false}), ts = simulate(split, {"", false});
  // Rank 0 and rank 1 (dp 0) each reduce their experts' gradients once; split, none.
  CHECK(expert_reductions(tw) == 2);
  CHECK(expert_reductions(ts) == 0);
  // The forward's all-to-alls: over NVLink whole, over the network split.
  const auto cw = make_cost_model(whole), cs = make_cost_model(split);
  CHECK(all_to_all(tw) == cw->ep_communication(Op::F, 0, LinkClass::IntraNode, 2).duration);
  CHECK(all_to_all(ts) == cs->ep_communication(Op::F, 0, LinkClass::InterNode, 1).duration);
  // Folding one representative gives the expanded makespan.
  CHECK(simulate(whole, {"", true}).ranks.folded);
  CHECK(simulate(whole, {"", true}).makespan == tw.makespan);
}

TEST_CASE("EP pass: DualPipeV's overlapped F&B pairs hide their all-to-alls", "[passes][ep]") {
  // pp 2 · vpp 2 in a V (dualpipe-v), 2 MoE layers per chunk, dp = ep = 2, 8 micro-batches:
  // the steady state runs F&B pairs, and each pair's all-to-alls start with it (one chunk's
  // hidden under the other's compute, DeepSeek-V3 §3.2.1); the other parts' follow them.
  const Scenario s = test::yaml(R"(model: {layers: 8, hidden: 1024, ffn_hidden: 2048, heads: 8,
        vocab: 1000, moe: {experts: 8, top_k: 2, ffn_hidden: 512}}
training: {seq_len: 512, micro_batch_size: 1, global_batch_size: 16}
cluster: {gpu: h100-sxm, gpus_per_node: 4, gpu_speed_spread: 0}
parallelism: {dp: 2, pp: 2, vpp: 2, ep: 2}
schedule: dualpipe-v
contention: {compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}
)");
  const Timeline tl = simulate(s);
  const TaskGraph& g = *tl.graph;
  std::set<std::tuple<std::uint32_t, int, TimeNs>> pairs;  // (rank, micro-batch, start)
  for (TaskId t = 0; t < g.size(); ++t)
    if (static_cast<TaskType>(g.work(t).type) == TaskType::ForwardBackward)
      pairs.insert({g.streams[g.tasks[t].stream].owner, g.tasks[t].microbatch, tl.start[t]});
  REQUIRE_FALSE(pairs.empty());
  int beside = 0, after = 0;
  for (TaskId t = 0; t < g.size(); ++t) {
    if (static_cast<TaskType>(g.work(t).type) != TaskType::EpCollective) continue;
    const bool of_pair = g.work(t).stage2 >= 0;  // made for an F&B pair
    if (of_pair) {
      CHECK(pairs.count({g.streams[g.tasks[t].stream].owner, g.tasks[t].microbatch, tl.start[t]}));
      ++beside;
    } else {
      ++after;
    }
  }
  CHECK(beside == static_cast<int>(pairs.size()));
  CHECK(after > 0);  // warm-up and cool-down parts still wait for theirs
  // Hidden: the pairs' all-to-alls add less exposed time than they take.
  const StepReport r = make_report(tl);
  CHECK(r.stages[0].exposed_ep_s < r.stages[0].comm_ep_s);
}

namespace {
// Every task of `type` starts together with a collective of each of `with` (same start group,
// same start time), and there is at least one.
void starts_together(const Timeline& tl, TaskType type, std::initializer_list<TaskType> with) {
  const TaskGraph& g = *tl.graph;
  int n = 0;
  for (TaskId t = 0; t < g.size(); ++t) {
    if (static_cast<TaskType>(g.work(t).type) != type) continue;
    ++n;
    REQUIRE(g.tasks[t].rendezvous != kNone);
    CHECK(g.pace[t] == kNone);  // keeps its own pace
    for (TaskType w : with) {
      bool found = false;
      for (TaskId u : g.rendezvous(g.tasks[t].rendezvous))
        found |= static_cast<TaskType>(g.work(u).type) == w && tl.start[u] == tl.start[t] &&
                 g.tasks[u].microbatch == g.tasks[t].microbatch;
      CHECK(found);
    }
  }
  CHECK(n > 0);
}
}  // namespace

TEST_CASE("EP pass: with TP the optimizer waits for both, and F&B pairs start with both",
          "[passes][ep]") {
  // tp 2 · dp 2 = ep 2 on 4 GPUs, 2 MoE layers, 1F1B, TP overlapped with its GEMMs: the last
  // backward's TP collective runs beside it and its all-to-alls after it; the optimizer step
  // starts after both have ended.
  auto scenario = [](const std::string& extra) {
    return test::yaml(R"(model: {layers: 4, hidden: 1024, ffn_hidden: 2048, heads: 8,
        vocab: 1000, moe: {experts: 8, top_k: 2, ffn_hidden: 512}}
training: {seq_len: 512, micro_batch_size: 1, global_batch_size: 4}
cluster: {gpu: h100-sxm, gpus_per_node: 4, gpu_speed_spread: 0}
parallelism: {tp: 2, dp: 2, ep: 2, tp_overlap: true)" +
                      extra + "}\n");
  };
  const Timeline tl = simulate(scenario(""));
  const TaskGraph& g = *tl.graph;
  TimeNs last_comm = 0, optimizer = -1;
  for (TaskId t = 0; t < g.size(); ++t) {
    const auto type = static_cast<TaskType>(g.work(t).type);
    if (type == TaskType::TpCollective || type == TaskType::EpCollective)
      last_comm = std::max(last_comm, tl.end[t]);
    if (type == TaskType::Optimizer) optimizer = tl.start[t];
  }
  REQUIRE(optimizer >= 0);
  CHECK(optimizer >= last_comm);
  // DualPipeV's pairs start with their TP collectives and their all-to-alls at once (one start
  // group), each keeping its own pace.
  starts_together(simulate(scenario(", vpp: 2"), {"dualpipe-v", true}), TaskType::ForwardBackward,
                  {TaskType::TpCollective, TaskType::EpCollective});
  // Groups of unequal shape are not folded: dp 12 = 2 × ep 6 on nodes of 4 GPUs puts 4 + 2 of
  // the first EP group's members in its first node and 2 + 4 of the second's.
  const Scenario uneven = test::yaml(R"(model: {layers: 2, hidden: 1024, ffn_hidden: 2048,
        heads: 8, vocab: 1000, moe: {experts: 6, top_k: 2, ffn_hidden: 512}}
training: {seq_len: 512, micro_batch_size: 1, global_batch_size: 12}
cluster: {gpu: h100-sxm, gpus_per_node: 4, nodes: 3, gpu_speed_spread: 0}
parallelism: {dp: 12, ep: 6}
)");
  const Timeline unfolded = simulate(uneven, {"", true});
  CHECK_FALSE(unfolded.ranks.folded);
  CHECK(unfolded.makespan == simulate(uneven, {"", false}).makespan);
}

TEST_CASE("CP pass: ring KV blocks travel beside the compute, all-gathered ones before it",
          "[passes][cp]") {
  // 2 layers (8 heads of 128, 8 KV heads), 1024-token sequences, one stage, F = 10 ms and B =
  // 20 ms explicit, one micro-batch; cp 2 on one node of 2 (dp 1): each GPU holds 512 tokens.
  // Gradients are all-reduced over the dp · cp = 2 ranks (AR) after B. No contention, one
  // bucket. Per layer S = 1024 tokens × 8 × 256 × 2 B = 4 MiB of keys and values; forward an
  // all-gather (cF), backward all-gather + reduce-scatter (cB).
  //   ring:       max(F, cF) + max(B, cB) + AR + optimizer = 30 ms + AR + o (cF ≤ F, cB ≤ B)
  //   all_gather: F + cF + B + max(cB, AR) + o (AR and cB both wait for B)
  auto scenario = [](const char* comm, int dp, int per_node) {
    return test::yaml(fmt::format(R"(model: {{layers: 2, hidden: 1024, ffn_hidden: 2048, heads: 8,
        vocab: 1000}}
training: {{seq_len: 1024, micro_batch_size: 1, global_batch_size: {}}}
cluster: {{gpu: h100-sxm, gpus_per_node: {}, nodes: {}, gpu_speed_spread: 0}}
parallelism: {{dp: {}, cp: 2, cp_comm: {}}}
costs: {{forward: 10ms, backward: 20ms}}
memory: {{bucket_size: 10GB}}
contention: {{compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}}
)",
                                  dp, per_node, 2 * dp / per_node, dp, comm));
  };
  const Scenario ring = scenario("ring", 1, 2), gathered = scenario("all_gather", 1, 2);
  const auto cost = make_cost_model(ring);
  const TimeNs cf = cost->cp_communication(Op::F, 0, LinkClass::IntraNode, 2).duration;
  const TimeNs cb = cost->cp_communication(Op::B, 0, LinkClass::IntraNode, 2).duration;
  const TimeNs ar =
      cost->collective(Collective::AllReduce, 2, LinkClass::IntraNode, cost->gradient_bytes(0))
          .duration;
  const TimeNs o = cost->optimizer(cost->stage_params(0) / 1).duration;
  REQUIRE(cf > 0);
  REQUIRE(cf <= 10 * kNsPerMs);
  REQUIRE(cb <= 20 * kNsPerMs);
  const Timeline tr = simulate(ring);
  CHECK(tr.makespan == 30 * kNsPerMs + ar + o);
  const StepReport rr = make_report(tr);
  CHECK(rr.stages[0].exposed_cp_s == 0);
  CHECK(rr.stages[0].comm_cp_s == Approx(to_seconds(cf + cb)));
  // Bytes each GPU sends: (cp − 1)/cp · S per run, 2 layers × (1 forward + 2 backward) runs.
  CHECK(rr.volume.cp_bytes == Approx(0.5 * 4194304.0 * 2 * 3));
  CHECK(of_type(tr, TaskType::CpCollective).size() == 2);
  CHECK(simulate(gathered).makespan == 30 * kNsPerMs + cf + std::max(cb, ar) + o);
  CHECK(make_report(simulate(gathered)).stages[0].exposed_cp_s ==
        Approx(to_seconds(cf + cb)).epsilon(1e-6));
  // all_to_all: as all_gather, but each exchange's share that hides under the layout copies TE
  // pipelines it with (hF, hB: the cost model's cp_hidden_communication) runs beside the
  // compute, only the rest (cF', cB') after it: F + cF' + B + max(cB', AR) + o, and its exposed
  // time cF' + cB' of the cF' + hF + cB' + hB it runs.
  const Scenario swapped = scenario("all_to_all", 1, 2);
  const auto a2a_cost = make_cost_model(swapped);
  const TimeNs af = a2a_cost->cp_communication(Op::F, 0, LinkClass::IntraNode, 2).duration;
  const TimeNs ab = a2a_cost->cp_communication(Op::B, 0, LinkClass::IntraNode, 2).duration;
  const TimeNs hf = a2a_cost->cp_hidden_communication(Op::F, 0, LinkClass::IntraNode, 2).duration;
  const TimeNs hb = a2a_cost->cp_hidden_communication(Op::B, 0, LinkClass::IntraNode, 2).duration;
  REQUIRE(hf > 0);
  REQUIRE(hb > 0);
  REQUIRE(hf <= 10 * kNsPerMs);
  const Timeline ta = simulate(swapped);
  CHECK(ta.makespan == 30 * kNsPerMs + af + std::max(ab, ar) + o);
  const StepReport ra = make_report(ta);
  CHECK(ra.stages[0].exposed_cp_s == Approx(to_seconds(af + ab)).epsilon(1e-6));
  CHECK(ra.stages[0].comm_cp_s == Approx(to_seconds(af + hf + ab + hb)).epsilon(1e-6));
  // dp 2 · cp 2 on two nodes of 2: CP groups inside a node, DP groups across. Folding one
  // representative gives the expanded makespan.
  const Scenario wide = scenario("ring", 2, 2);
  CHECK(simulate(wide, {"", true}).ranks.folded);
  CHECK(simulate(wide, {"", true}).makespan == simulate(wide, {"", false}).makespan);
}

TEST_CASE("CP pass: with tp_overlap the compute starts with its TP collective and its KV blocks",
          "[passes][cp][tp]") {
  // The ring case above with tp 2 on one node of 4 (tp 2 · cp 2), TP overlapped with its GEMMs:
  // each part's compute, its TP collective and its KV exchange start together (one start group
  // over the 4 ranks) and the next part waits for all three. All hidden (cF ≤ F, cB ≤ B for
  // both kinds): max(F, cF_tp, cF_cp) + max(B, cB_tp, cB_cp) + AR + o = 30 ms + AR + o, AR the
  // gradient all-reduce over dp · cp = 2 ranks of a TP shard.
  const Scenario s = test::yaml(R"(model: {layers: 2, hidden: 1024, ffn_hidden: 2048, heads: 8,
        vocab: 1000}
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 1}
cluster: {gpu: h100-sxm, gpus_per_node: 4, gpu_speed_spread: 0}
parallelism: {tp: 2, cp: 2, tp_overlap: true}
costs: {forward: 10ms, backward: 20ms}
memory: {bucket_size: 10GB}
contention: {compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}
)");
  const auto cost = make_cost_model(s);
  for (Op op : {Op::F, Op::B}) {
    const TimeNs limit = (op == Op::F ? 10 : 20) * kNsPerMs;
    REQUIRE(cost->tp_communication(op, 0, LinkClass::IntraNode).duration <= limit);
    REQUIRE(cost->cp_communication(op, 0, LinkClass::IntraNode, 2).duration <= limit);
  }
  const TimeNs ar =
      cost->collective(Collective::AllReduce, 2, LinkClass::IntraNode, cost->gradient_bytes(0))
          .duration;
  const TimeNs o = cost->optimizer(cost->stage_params(0)).duration;
  const Timeline tl = simulate(s);
  CHECK(tl.makespan == 30 * kNsPerMs + ar + o);
  for (TaskType type : {TaskType::Forward, TaskType::Backward})
    starts_together(tl, type, {TaskType::TpCollective, TaskType::CpCollective});
  const StepReport r = make_report(tl);
  CHECK(r.stages[0].exposed_tp_s == 0);
  CHECK(r.stages[0].exposed_cp_s == 0);
  CHECK(r.volume.tp_bytes > 0);
  CHECK(r.volume.cp_bytes > 0);
  // Folded (one representative of the TP and CP peers) and expanded agree.
  CHECK(simulate(s, {"", true}).makespan == simulate(s, {"", false}).makespan);
}

TEST_CASE("offload pass: activations go to host memory after F and come back before B",
          "[passes][offload]") {
  // Llama-3.2-1B (16 layers) on one GPU, explicit F = 10 ms and B = 20 ms, the activations of
  // its first N layers to host memory and back (A = offloaded_activation_bytes, x = A over the
  // 55 GB/s host link).
  auto scenario = [](int layers, int pp, int m, const char* schedule = "1f1b") {
    return test::yaml(fmt::format(R"(model: llama-3.2-1b
training: {{seq_len: 1024, micro_batch_size: 1, microbatches: {}, offload_activations: {}}}
cluster: {{gpu: h100-sxm, gpus_per_node: {}, gpu_speed_spread: 0}}
parallelism: {{pp: {}}}
schedule: {}
costs: {{forward: 10ms, backward: 20ms}}
contention: {{compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}}
)",
                                  m, layers, pp, pp, schedule));
  };
  // One micro-batch: its B follows its F at once, so it keeps its activations.
  CHECK(of_type(simulate(scenario(4, 1, 1)), TaskType::ActivationOffload).empty());
  // Two, all forwards first (F0 F1 B0 B1): F0's copy out starts at 10 ms, its reload right
  // after (issued when F1 starts, but it needs the copy); B0 starts at max(20, 10 + 2x) ms;
  // F1's copy out and reload (after F1, 20 + 2x) finish before B0 ends. Makespan:
  // max(20 ms, 10 ms + 2x) + 2 · 20 ms + optimizer.
  const Scenario two = scenario(4, 1, 2, "afab");
  const auto cost = make_cost_model(two);
  const double a = offloaded_activation_bytes(two, 0);
  REQUIRE(a > 0);  // its closed form: tests/footprint_test.cpp
  const TimeNs x = cost->host_transfer(a).duration;
  const TimeNs o = cost->optimizer(cost->stage_params(0)).duration;
  REQUIRE(x > 5 * kNsPerMs);  // 4 layers' 311 MB: the first reload is late
  REQUIRE(x < 10 * kNsPerMs);
  const Timeline tl = simulate(two);
  CHECK(tl.makespan == std::max(20 * kNsPerMs, 10 * kNsPerMs + 2 * x) + 40 * kNsPerMs + o);
  CHECK(of_type(tl, TaskType::ActivationOffload).size() == 2);
  CHECK(of_type(tl, TaskType::ActivationReload).size() == 2);
  const StepReport r = make_report(tl);
  CHECK(r.volume.host_bytes == Approx(4 * a));  // 2 micro-batches, out and back
  CHECK(r.critical.host_s > 0);                 // B0 waited for its reload
  // Memory: at most one micro-batch whole and the other's offloaded part on the host (the
  // peak: F1 running while F0's copy out is under way, or B0's reload back before F1's leaves).
  // One stage: the head's, whose forward ends with the loss's 16-bit logits and their upcast beside
  // them.
  const double whole = stage_activation_bytes(two, 0);
  CHECK(make_memory_report(tl).stages[0].activations ==
        Approx(2 * whole + loss_transient_bytes(two, 0)));
  // Eight micro-batches through pp 4 (1F1B, 4 layers a stage, 2 of them offloaded): each reload
  // is issued when the compute before its B starts, and the copies (under 3 ms) are short next
  // to the 10 ms F: the step is the one without offload. The last stage runs each B right
  // after its F and keeps its activations. The first stage holds 4 micro-batches at its
  // fullest, from F3's start: F2's copy out is under way, and B0's reload (issued when F3
  // starts, after F2's copy out) has not begun, so F0's and F1's offloaded layers are on the
  // host, then F1's and F2's: the peak is 4 · whole − 2A.
  const Scenario piped = scenario(2, 4, 8), plain = scenario(0, 4, 8);
  REQUIRE(cost->host_transfer(offloaded_activation_bytes(piped, 0)).duration < 3 * kNsPerMs);
  const Timeline tp = simulate(piped);
  CHECK(tp.makespan == simulate(plain).makespan);
  const StepReport rp = make_report(tp);
  CHECK(rp.critical.host_s == 0);        // never waited for
  CHECK(rp.stages[3].comm_host_s == 0);  // the last stage offloads nothing
  const double off = offloaded_activation_bytes(piped, 0);
  const double piped_whole = stage_activation_bytes(piped, 0);
  const MemoryReport mp = make_memory_report(tp), mq = make_memory_report(simulate(plain));
  CHECK(mq.stages[0].activations == Approx(4 * piped_whole));
  CHECK(mp.stages[0].activations == Approx(4 * piped_whole - 2 * off));
}

TEST_CASE("offload pass: DualPipeV's overlapped F&B pairs are refused", "[passes][offload]") {
  CHECK_THROWS_WITH(simulate(test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, microbatches: 8, offload_activations: 2}
cluster: {gpu: h100-sxm, gpus_per_node: 2, gpu_speed_spread: 0}
parallelism: {pp: 2, vpp: 2}
schedule: dualpipe-v
)")),
                    Catch::Contains("training.offload_activations: activation offload with "
                                    "dualpipe-v's overlapped F&B pairs is not modelled"));
}

TEST_CASE("DP pass: DualPipe sums each model stage's gradients with its copy on the mirror rank",
          "[passes][dualpipe]") {
  // pp 4 in one node, dualpipe: rank r holds model stages r and 3 − r (two copies of the model
  // over the four ranks). Each model stage's gradients are all-reduced between its two
  // holders (deepseek-ai/DualPipe's example sums them the same way) before the optimizer.
  auto scenario = [](int dp, int zero = 0) {
    return test::yaml(fmt::format(R"(model: {{layers: 4, hidden: 1024, ffn_hidden: 2048, heads: 8,
        vocab: 1000}}
training: {{seq_len: 512, micro_batch_size: 1, global_batch_size: {}}}
cluster: {{gpu: h100-sxm, gpus_per_node: {}, gpu_speed_spread: 0}}
parallelism: {{pp: 4, dp: {}, zero: {}}}
schedule: dualpipe
contention: {{compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}}
)",
                                  8 * dp, 4 * dp, dp, zero));
  };
  const Scenario s = scenario(1);
  const Timeline tl = simulate(s);
  const TaskGraph& g = *tl.graph;
  // One all-reduce per model stage on each of its two ranks, the two meeting (same start).
  std::map<int, std::vector<std::pair<std::uint32_t, TimeNs>>> by_model_stage;
  std::map<std::uint32_t, TimeNs> last_sum, optimizer;
  for (TaskId t = 0; t < g.size(); ++t) {
    const auto type = static_cast<TaskType>(g.work(t).type);
    const std::uint32_t owner = g.streams[g.tasks[t].stream].owner;
    if (type == TaskType::DpCollective) {
      by_model_stage[tl.schedule.model_stage(g.work(t).stage)].push_back({owner, tl.start[t]});
      last_sum[owner] = std::max(last_sum[owner], tl.end[t]);
    }
    if (type == TaskType::Optimizer) optimizer[owner] = tl.start[t];
  }
  REQUIRE(by_model_stage.size() == 4);
  for (const auto& [ms, members] : by_model_stage) {
    INFO("model stage " << ms);
    REQUIRE(members.size() == 2);
    // Held by ranks ms (first pipeline) and 3 − ms (second).
    CHECK(std::set<std::uint32_t>{members[0].first, members[1].first} ==
          std::set<std::uint32_t>{static_cast<std::uint32_t>(ms),
                                  static_cast<std::uint32_t>(3 - ms)});
    CHECK(members[0].second == members[1].second);
  }
  for (const auto& [rank, start] : optimizer) CHECK(start >= last_sum.at(rank));
  // Traffic: an all-reduce over 2 sends 2(2 − 1)/2 = 1 × its bytes; rank 0 holds model stages
  // 0 (embedding) and 3 (head), the largest, so the report's largest is its two stages' bf16
  // gradients, once each.
  const auto cost = make_cost_model(s);
  const StepReport r = make_report(tl);
  CHECK(r.volume.dp_bytes == Approx(cost->gradient_bytes(0) + cost->gradient_bytes(3)));
  // Memory: rank r holds the weights of model stages r and 3 − r: 1F1B's two ranks' together.
  Scenario one = s;
  one.schedule.name = "1f1b";
  const MemoryReport dual = make_memory_report(tl), single = make_memory_report(simulate(one));
  for (std::size_t rank = 0; rank < 4; ++rank) {
    INFO("rank " << rank);
    CHECK(dual.stages[rank].parameters ==
          single.stages[rank].parameters + single.stages[3 - rank].parameters);
    CHECK(dual.stages[rank].optimizer ==
          Approx(single.stages[rank].optimizer + single.stages[3 - rank].optimizer));
  }
  // With dp 2 the folded simulation (one representative per rank) is the expanded one.
  const Scenario wide = scenario(2);
  CHECK(simulate(wide, {"", true}).ranks.folded);
  CHECK(simulate(wide, {"", true}).makespan == simulate(wide, {"", false}).makespan);
  // ZeRO-1 over dp 2: each stage's gradients reduce-scattered once (½ · g sent), the pair
  // all-reduce on this GPU's shard g / 2 (bus factor 1), the updated bf16 parameters
  // all-gathered (½ · 2P): rank 0 sends (g0 + g3) + (P0 + P3).
  const Scenario sharded = scenario(2, 1);
  const auto sc = make_cost_model(sharded);
  CHECK(make_report(simulate(sharded)).volume.dp_bytes ==
        Approx(sc->gradient_bytes(0) + sc->gradient_bytes(3) + sc->stage_params(0) +
               sc->stage_params(3)));
}

TEST_CASE("EP with CP: the experts' all-to-alls carry a rank's s / cp tokens, across CP ranks",
          "[passes][ep][cp]") {
  // dp 2 · cp 2 · ep 2 on 4 GPUs, 2 MoE layers of 4 experts (top 2), 1,024-token sequences:
  // the DP axis holds dp · cp = 4 positions, CP innermost, and the EP groups are ep = 2
  // consecutive positions of it — here each CP pair (Megatron-Core's expert mesh carves EP from
  // the CP and DP ranks alike). Each GPU routes its 1024 / 2 = 512 tokens: an all-to-all of
  // S = 512 × 2 (top_k) × 1024 (hidden) × 2 B = 2 MiB, dispatch and combine in each layer's
  // forward and their gradients in its backward: 8 per step (one micro-batch), each sending
  // (ep − 1)/ep · S: 8 × ½ × 2 MiB = 8 MiB. The experts' gradients go over the dp · cp / ep = 2
  // positions holding the same experts.
  auto scenario = [](int dp, int nodes) {
    return test::yaml(fmt::format(R"(model: {{layers: 2, hidden: 1024, ffn_hidden: 2048, heads: 8,
        vocab: 1000, moe: {{experts: 4, top_k: 2, ffn_hidden: 512, capacity_factor: 1}}}}
training: {{seq_len: 1024, micro_batch_size: 1, global_batch_size: {}}}
cluster: {{gpu: h100-sxm, gpus_per_node: 4, nodes: {}, gpu_speed_spread: 0}}
parallelism: {{dp: {}, cp: 2, ep: 2}}
contention: {{compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}}
)",
                                  dp, nodes, dp));
  };
  const Scenario s = scenario(2, 1);
  const Layout& l = s.layout;
  const Coord first{0, 0, 0};
  CHECK(expert_group_members(l, first) == context_group_members(l, first));
  CHECK(expert_group_members(l, first) == std::vector<int>{0, 1});
  CHECK(expert_dp_members(l, first) == std::vector<int>{0, 2});
  const auto cost = make_cost_model(s);
  const auto runs = cost->ep_collectives(Op::F, 0);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].bytes == 512.0 * 2 * 1024 * 2);
  const StepReport r = make_report(simulate(s));
  CHECK(r.volume.ep_bytes == Approx(8 * 0.5 * 2 * 1048576.0));
  CHECK(r.volume.cp_bytes > 0);  // and the keys and values still travel over the CP pairs
  // Two nodes (dp 4): folded (one representative) and expanded agree.
  const Scenario wide = scenario(4, 2);
  CHECK(simulate(wide, {"", true}).ranks.folded);
  CHECK(simulate(wide, {"", true}).makespan == simulate(wide, {"", false}).makespan);
  // Under overlapped F&B pairs both the all-to-alls and the ring's KV blocks travel beside the
  // pair: it starts with both.
  Scenario paired = test::yaml(R"(model: {layers: 4, hidden: 1024, ffn_hidden: 2048, heads: 8,
        vocab: 1000, moe: {experts: 4, top_k: 2, ffn_hidden: 512}}
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 8}
cluster: {gpu: h100-sxm, gpus_per_node: 8, gpu_speed_spread: 0}
parallelism: {pp: 2, dp: 2, cp: 2, ep: 2}
schedule: dualpipe
)");
  starts_together(simulate(paired), TaskType::ForwardBackward,
                  {TaskType::CpCollective, TaskType::EpCollective});
  paired.layout.cp_comm = CpComm::AllGather;
  CHECK_NOTHROW(simulate(paired));
}

TEST_CASE(
    "DP pass: with two chunks per rank each reduction carries its own bytes, in gradient order",
    "[passes][dp]") {
  // dualpipe-v, pp 2 · vpp 2, dp 2, ZeRO-2 with 1 MB buckets, 8 micro-batches: rank 0 holds
  // stages 0 (embedding) and 3 (head). Every backward's gradients are reduce-scattered, bucket
  // by bucket — or, inside an overlapped F&B task, as one — and the updated bf16 parameters
  // all-gathered after the optimizer: per GPU (n = 2 sends (n − 1)/n = ½ of each)
  // ½ · (8 · (g0 + g3) + 2 · (P0 + P3)) bytes, g a stage's gradient bytes, P its parameters.
  auto scenario = [](int zero) {
    return test::yaml(fmt::format(R"(model: {{layers: 4, hidden: 1024, ffn_hidden: 2048, heads: 8,
        vocab: 1000}}
training: {{seq_len: 512, micro_batch_size: 1, global_batch_size: 16}}
cluster: {{gpu: h100-sxm, gpus_per_node: 4, gpu_speed_spread: 0}}
parallelism: {{pp: 2, vpp: 2, dp: 2, zero: {}}}
memory: {{bucket_size: 1MB}}
schedule: dualpipe-v
)",
                                  zero));
  };
  const Scenario s = scenario(2);
  const auto cost = make_cost_model(s);
  const Timeline tl = simulate(s);
  const StepReport r = make_report(tl);
  const double expected = 0.5 * (8 * (cost->gradient_bytes(0) + cost->gradient_bytes(3)) +
                                 2 * (cost->stage_params(0) + cost->stage_params(3)));
  CHECK(r.volume.dp_bytes == Approx(expected));
  // Reductions leave in the order their gradients complete: rank 0's first backward is chunk
  // 1's (stage 3, the V's turn on the way back), so the DP stream starts with a stage-3
  // reduction, and then follows the backwards of both chunks as they alternate — not every
  // stage-0 reduction first, each chunk's early ones queued behind the other's last.
  const TaskGraph& g = *tl.graph;
  std::vector<std::pair<TimeNs, int>> dp;  // (start, stage) on rank 0's DP stream
  for (TaskId t = 0; t < g.size(); ++t)
    if (static_cast<TaskType>(g.work(t).type) == TaskType::DpCollective &&
        g.streams[g.tasks[t].stream].owner == 0)
      dp.push_back({tl.start[t], g.work(t).stage});
  std::sort(dp.begin(), dp.end());
  REQUIRE(!dp.empty());
  CHECK(dp.front().second == 3);
  int switches = 0;
  for (std::size_t i = 1; i < dp.size(); ++i) switches += dp[i].second != dp[i - 1].second;
  CHECK(switches >= 8);  // at least once per micro-batch pair, not two blocks
}

TEST_CASE("TP pass: without SP the backward's all-reduces run beside it", "[passes][tp]") {
  // tp2_explicit without tp_overlap. The backward's all-reduces are asynchronous (the cost
  // model's hidden part hB): they start with the backward and end within it; only the forward's
  // (cF) and whatever of the backward's outlasts the weight-gradient GEMMs (cB: this small
  // model's GEMMs are shorter than its all-reduces) are exposed: F + cF + B + cB + o.
  const Scenario s = tp2_explicit(false);
  const auto cost = make_cost_model(s);
  const TimeNs cf = cost->tp_communication(Op::F, 0, LinkClass::IntraNode).duration;
  const TimeNs cb = cost->tp_communication(Op::B, 0, LinkClass::IntraNode).duration;
  const TimeNs hb = cost->tp_hidden_communication(Op::B, 0, LinkClass::IntraNode).duration;
  const TimeNs o = cost->optimizer(cost->stage_params(0)).duration;
  REQUIRE(cf > 0);
  REQUIRE(hb > 0);
  REQUIRE(hb < 20 * kNsPerMs);
  const Timeline tl = simulate(s);
  CHECK(tl.makespan == 30 * kNsPerMs + cf + cb + o);
  starts_together(tl, TaskType::Backward, {TaskType::TpCollective});
  CHECK(make_report(tl).stages[0].exposed_tp_s == Approx(to_seconds(cf + cb)));
  // With the default contention the backward beside them runs at 1 / 1.189 of its pace while
  // they do: it ends hB · 0.189 / 1.189 later.
  Scenario slowed = s;
  slowed.contention.compute_slowdown.reset();
  const TimeNs expected =
      30 * kNsPerMs + cf + cb + o + std::llround(0.189 / 1.189 * static_cast<double>(hb));
  CHECK(std::llabs(simulate(slowed).makespan - expected) <= 1);  // to the nanosecond's rounding
}

TEST_CASE("DP pass: multi-token prediction's copy of an untied table is summed with the first's",
          "[passes][dp][mtp]") {
  // Llama-3.2-1B untied over pp 2: without multi-token prediction no stage shares a table.
  // With a module on stage 1 its lookup's copy of the V × h embedding is all-reduced with stage
  // 0's before the step (Megatron-core's embedding group also where mtp_num_layers): 2 bytes per
  // element (bf16 gradients), one collective on each end.
  auto run = [](int mtp) {
    return simulate(test::yaml(
        fmt::format(R"(model: {{preset: llama-3.2-1b, tied_embeddings: false, mtp_layers: {}}}
training: {{seq_len: 1024, micro_batch_size: 1, global_batch_size: 1}}
cluster: {{gpu: h100-sxm, gpus_per_node: 2, gpu_speed_spread: 0}}
parallelism: {{pp: 2}}
)",
                    mtp)));
  };
  const Timeline without = run(0), with = run(1);
  CHECK(of_type(without, TaskType::DpCollective).empty());
  const auto sums = of_type(with, TaskType::DpCollective);
  REQUIRE(sums.size() == 2);
  for (TaskId t : sums) CHECK(with.graph->work(t).bytes == Approx(128256.0 * 2048 * 2));
}

TEST_CASE("launch pass: the CPU issues each task's kernels ahead of the GPU, or holds it back",
          "[passes][launch]") {
  // Llama-3.2-1B on one GPU, two micro-batches of 256 tokens (F0 B0 F1 B1), the CPU issuing
  // each kernel in `per_kernel`; no contention.
  auto scenario = [](const char* per_kernel) {
    return test::yaml(fmt::format(R"(model: llama-3.2-1b
training: {{seq_len: 256, micro_batch_size: 1, global_batch_size: 2}}
cluster: {{gpu: h100-sxm, gpus_per_node: 1, gpu_speed_spread: 0}}
efficiency: {{host_per_kernel: {}}}
contention: {{compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}}
)",
                                  per_kernel));
  };
  const Scenario slow = scenario("1ms");
  const auto cost = make_cost_model(slow);
  const TimeNs f = cost->compute(Op::F, 0, 0).duration, b = cost->compute(Op::B, 0, 0).duration;
  const TimeNs o = cost->optimizer(cost->stage_params(0)).duration;
  const HostLaunch hf = cost->host_launch(Op::F, 0), hb = cost->host_launch(Op::B, 0);
  // One kernel's issue: 1 ms. The CPU is the slower by far: issuing a pass takes longer than
  // its first kernel's issue and the whole pass on the GPU together.
  REQUIRE(hf.time == seconds_to_ns(hf.kernels * 1e-3));
  REQUIRE(hf.time > kNsPerMs + f);
  REQUIRE(hb.time > kNsPerMs + b);
  // The CPU issues F0, B0, F1, B1 back to back from 0, each task starting after its first
  // kernel's issue and the next after its last; the optimizer (its own launches not counted)
  // after B1's last: 2 · (hF + hB) + o.
  const Timeline tl = simulate(slow);
  CHECK(tl.makespan == 2 * (hf.time + hb.time) + o);
  // Four tasks, each issued in two (its first kernel, the rest).
  CHECK(of_type(tl, TaskType::Launch).size() == 8);
  const StepReport r = make_report(tl);
  CHECK(r.stages[0].launch_s == Approx(to_seconds(2 * (hf.time + hb.time))));
  // From F0's start (after its first kernel's 1 ms issue, the "before pipeline" part) the GPU
  // waited for all but its own compute until the optimizer could start.
  CHECK(r.before_pipeline_s == Approx(1e-3));
  CHECK(r.stages[0].launch_wait_s ==
        Approx(to_seconds(2 * (hf.time + hb.time) - 2 * (f + b) - kNsPerMs)));
  CHECK(r.critical.launch_s > 0);
  CHECK(r.host_per_kernel_s == Approx(1e-3));
  CHECK_THAT(format_report(r), Catch::Contains("CPU launches         1.000 ms a kernel"));
  const auto j = report_to_json(r);
  CHECK(j["stages"][0]["launch_s"].get<double>() == Approx(r.stages[0].launch_s));
  CHECK(j["stages"][0]["launch_wait_s"].get<double>() == Approx(r.stages[0].launch_wait_s));
  CHECK(j["critical_path_s"]["launch"].get<double>() == Approx(r.critical.launch_s));
  // The pipeline phase's idle by cause: all of it waiting for the CPU (one stage, no bubble).
  CHECK(j["idle_s"]["launch"].get<double>() == Approx(r.idle.total_s));

  // A CPU far ahead of the GPU (1 µs a kernel): only the first kernel's issue delays the step.
  const Timeline fast = simulate(scenario("1us"));
  const Timeline none = simulate(scenario("0us"));
  CHECK(of_type(none, TaskType::Launch).empty());
  CHECK(fast.makespan == none.makespan + kNsPerUs);
  CHECK(make_report(fast).before_pipeline_s == Approx(1e-6));
  CHECK(make_report(fast).stages[0].launch_wait_s == 0);
}

TEST_CASE("launch pass: a TP rank's CPU issues its collectives at host_per_collective",
          "[passes][launch]") {
  // Llama-3.2-1B at tp 2 with SP on one node, one micro-batch, the CPU's kernels at 1 µs and
  // its collectives at 1 ms: the CPU's issuing time over the step is each pass's kernels at
  // 1 µs plus its TP collectives (2 all-gathers and 2 reduce-scatters a layer forward, 16
  // layers) at 1 ms, and the report states both figures.
  const Scenario s = test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 256, micro_batch_size: 1, global_batch_size: 1}
cluster: {gpu: h100-sxm, gpus_per_node: 2, gpu_speed_spread: 0}
parallelism: {tp: 2, sequence_parallel: true}
efficiency: {host_per_kernel: 1us, host_per_collective: 1ms}
contention: {compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}
)");
  const auto cost = make_cost_model(s);
  double issue_s = 0;
  for (const Op op : {Op::F, Op::B}) {
    const HostLaunch h = cost->host_launch(op, 0);
    issue_s += to_seconds(h.time);
  }
  const StepReport r = make_report(simulate(s));
  CHECK(r.stages[0].launch_s == Approx(issue_s));
  CHECK(r.stages[0].launch_s > 64 * 1e-3);  // at least the forward's 64 collectives
  CHECK(r.host_per_kernel_s == Approx(1e-6));
  CHECK(r.host_per_collective_s == Approx(1e-3));
  CHECK_THAT(format_report(r),
             Catch::Contains("1.000 us a kernel (efficiency.host_per_kernel), 1.000 ms a TP/CP/EP "
                             "collective (efficiency.host_per_collective)"));
  CHECK(report_to_json(r)["host_per_collective_s"].get<double>() == Approx(1e-3));
}

TEST_CASE("launch pass: what waits for a task's output waits for its last kernel's issue",
          "[passes][launch]") {
  // Two stages of Llama-3.2-1B's layers (pp 2), 1 ms a kernel: the CPU is far slower than the
  // GPU. Stage 1's first forward needs stage 0's F0 activation, which exists only once every
  // kernel of F0 has been issued and run: it starts after stage 0's CPU issued F0's last kernel
  // (the transfer after it), not when F0's GPU time alone would end.
  const Timeline tl = simulate(test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 256, micro_batch_size: 1, global_batch_size: 4}
cluster: {gpu: h100-sxm, gpus_per_node: 2, gpu_speed_spread: 0}
parallelism: {pp: 2}
efficiency: {host_per_kernel: 1ms}
contention: {compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}
)"));
  const TaskGraph& g = *tl.graph;
  auto find = [&](int pp, TaskType type, int mb) {
    for (TaskId t = 0; t < g.size(); ++t)
      if (static_cast<TaskType>(g.work(t).type) == type && g.tasks[t].microbatch == mb &&
          tl.ranks.ranks[g.streams[g.tasks[t].stream].owner].coord.pp == pp)
        return t;
    return kNone;
  };
  // When stage 0's CPU has issued all of F0's kernels: the end of the second task on its launch
  // stream (F0 is the first action; its first kernel's issue, then the rest).
  TimeNs issued = -1;
  for (StreamId s = 0; s < g.streams.size(); ++s)
    if (static_cast<StreamType>(g.streams[s].type) == StreamType::Launch &&
        tl.ranks.ranks[g.streams[s].owner].coord.pp == 0)
      issued = tl.end[g.stream(s)[1]];
  const TaskId f0 = find(0, TaskType::Forward, 0), f1 = find(1, TaskType::Forward, 0);
  REQUIRE(f0 != kNone);
  REQUIRE(f1 != kNone);
  REQUIRE(issued > tl.end[f0]);  // the CPU still issuing F0 long after its GPU time
  CHECK(tl.start[f1] >= issued);
  // The send of F0's activation waits for the issue too.
  const TaskId send = find(0, TaskType::SendActivation, 0);
  REQUIRE(send != kNone);
  CHECK(tl.start[send] >= issued);
}

namespace {

// The NaN-check tests' scenario: Llama-3.2-1B at 8,192 tokens on dp 2, ZeRO-1 reducing by
// bucket in the backward (5 buckets of 400 MB), kernels issued by an eager CPU (runtime fused),
// no contention; parallelism.grad_nan_check set to `check`.
Scenario nan_check_scenario(const char* check) {
  return test::yaml(fmt::format(R"(model: llama-3.2-1b
training: {{seq_len: 8192, micro_batch_size: 1, global_batch_size: 2, runtime: fused}}
cluster: {{gpu: h100-sxm, gpus_per_node: 2, gpu_speed_spread: 0}}
parallelism: {{dp: 2, zero: 1, overlap_grad_reduce: true, grad_nan_check: {}}}
memory: {{bucket_size: 400MB}}
contention: {{compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}}
)",
                                check));
}

}  // namespace

TEST_CASE("launch pass: the DP buckets' NaN check makes the CPU wait for the GPU",
          "[passes][dp][launch]") {
  // Llama-3.2-1B at 8,192 tokens on dp 2, ZeRO-1 reducing by bucket in the backward, a
  // framework's kernels issued by an eager CPU (runtime fused: 48.3 µs a kernel, the CPU well
  // ahead of kernels of a millisecond). With Megatron-core 0.12's check (nan-inf), each bucket's
  // backward part also runs the bucket's norm and tests (CostModel::grad_check: its bytes at the
  // HBM rate plus 3 kernels), and the CPU, having read both tests back, issues the Inf test and
  // the reduction (CostModel::grad_check_host().after) before the next part's first kernel: the
  // GPU waits at least that long between bucket parts, where without the check it does not wait.
  const Scenario on = nan_check_scenario("nan-inf"), off = nan_check_scenario("off");
  const auto cost = make_cost_model(on);
  const GradCheckHost host = cost->grad_check_host();
  // (2 · 2 − 1) read-backs and operations at 48.3 µs, the reduction at 227 µs.
  CHECK(host.after == 3 * 48'300 + 227'000);
  CHECK(host.before == 2 * 48'300);
  CHECK(make_cost_model(off)->grad_check_host().after == 0);
  const Timeline a = simulate(on), b = simulate(off);
  const auto parts_on = of_type(a, TaskType::Backward), parts_off = of_type(b, TaskType::Backward);
  REQUIRE(parts_on.size() == parts_off.size());
  const std::size_t k = parts_on.size();
  REQUIRE(k >= 3);  // 2.5 GB of bf16 gradients in 400 MB buckets, the table's the last
  // The parts grew by the buckets' checks: in all, the norm over every gradient byte once (the
  // HBM rate is linear in bytes) and 3 kernel launches per bucket, L = 2·c(x) − c(2x) each.
  const double grads = cost->gradient_bytes(0);
  const TimeNs launches = 2 * cost->grad_check(1e9).duration - cost->grad_check(2e9).duration;
  TimeNs grown = 0;
  for (std::size_t j = 0; j < k; ++j)
    grown += a.graph->work(parts_on[j]).duration - b.graph->work(parts_off[j]).duration;
  CHECK(std::llabs(grown -
                   (cost->grad_check(grads).duration + static_cast<TimeNs>(k - 1) * launches)) <=
        static_cast<TimeNs>(2 * k));  // each term rounded to the nanosecond
  for (std::size_t j = 0; j + 1 < k; ++j) {
    CHECK(b.start[parts_off[j + 1]] == b.end[parts_off[j]]);  // the CPU ahead: no wait
    const TimeNs wait = a.start[parts_on[j + 1]] - a.end[parts_on[j]];
    CHECK(wait >= host.after);
    CHECK(wait <= host.after + 48'300);  // and at most the next part's first kernel's issue
  }
  // Each bucket's reduce-scatter leaves after its check's read-backs.
  const auto dp = of_type(a, TaskType::DpCollective);
  REQUIRE(dp.size() >= k);
  for (std::size_t j = 0; j < k; ++j) CHECK(a.start[dp[j]] >= a.end[parts_on[j]] + host.after);
  CHECK(a.makespan - b.makespan >= static_cast<TimeNs>(k - 1) * host.after);
  // The report says why the GPU waited, and --json names the setting.
  const StepReport ra = make_report(a);
  CHECK_THAT(format_report(ra), Catch::Contains("gradient bucket's NaN check (parallelism."
                                                "grad_nan_check: nan-inf)"));
  CHECK(report_to_json(ra)["layout"]["grad_nan_check"] == "nan-inf");
  CHECK(report_to_json(make_report(b))["layout"]["grad_nan_check"] == "off");
}

TEST_CASE("launch pass: the bucket norm alone (grad_nan_check norm) does not make the CPU wait",
          "[passes][dp][launch]") {
  // nan_check_scenario, as the test above, with Megatron-core 0.10-0.11's check under its default,
  // reruns disabled: the norm of each bucket runs on the GPU (its bytes at the HBM rate and one
  // kernel), the CPU issues it (one 48.3 µs operation) and reads nothing back, so the GPU
  // never waits between bucket parts: the step grows by the norms, not by host time.
  const Scenario norm = nan_check_scenario("norm"), nan = nan_check_scenario("nan"),
                 off = nan_check_scenario("off");
  const auto cost = make_cost_model(norm);
  const GradCheckHost host = cost->grad_check_host();
  CHECK(host.before == 48'300);  // the norm's issue
  CHECK(host.after == 0);        // no read-back, no wait
  // One kernel launch less than `nan` (norm + isnan) for the same bytes; more than nothing.
  const auto with_nan = make_cost_model(nan);
  const TimeNs launch = with_nan->grad_check(1e9).duration - cost->grad_check(1e9).duration;
  CHECK(launch > 0);
  CHECK(launch == 2 * with_nan->grad_check(1e9).duration - with_nan->grad_check(2e9).duration -
                      (2 * cost->grad_check(1e9).duration - cost->grad_check(2e9).duration));
  CHECK(make_cost_model(off)->grad_check(1e9).duration == 0);
  const Timeline a = simulate(norm), b = simulate(off);
  const auto parts_on = of_type(a, TaskType::Backward), parts_off = of_type(b, TaskType::Backward);
  REQUIRE(parts_on.size() == parts_off.size());
  const std::size_t k = parts_on.size();
  REQUIRE(k >= 3);
  for (std::size_t j = 0; j + 1 < k; ++j)
    CHECK(a.start[parts_on[j + 1]] == a.end[parts_on[j]]);  // the CPU stays ahead
  // The step grew by the norms alone: every gradient byte read once, a launch per bucket.
  const double grads = cost->gradient_bytes(0);
  const TimeNs one = 2 * cost->grad_check(1e9).duration - cost->grad_check(2e9).duration;
  const TimeNs norms = cost->grad_check(grads).duration + static_cast<TimeNs>(k - 1) * one;
  CHECK(a.makespan - b.makespan <= norms + static_cast<TimeNs>(2 * k));
  CHECK(a.makespan - b.makespan > 0);
  const StepReport ra = make_report(a);
  CHECK_THAT(format_report(ra), Catch::Contains("gradient bucket's norm (parallelism."
                                                "grad_nan_check: norm, no read-back)"));
  CHECK(report_to_json(ra)["layout"]["grad_nan_check"] == "norm");
}
