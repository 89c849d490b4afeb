#include "report/kernel_report.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "cost/explicit_costs.h"
#include "test_util.h"

namespace trainsim {

namespace {
Scenario llama(int pp) {
  return test::yaml(fmt::format(R"(model: llama-3.1-8b
training: {{seq_len: 4096, global_batch_size: 16}}
cluster: {{gpu: h100-sxm, gpus_per_node: 8}}
parallelism: {{dp: {}, pp: {}}}
)",
                                8 / pp, pp));
}
}  // namespace

TEST_CASE("kernel report: the rows sum to the cost model's compute time", "[kernel_report]") {
  const Scenario s = llama(1);
  const auto model = make_cost_model(s);
  const KernelReport r = make_kernel_report(s, *model, 0);
  REQUIRE(r.passes.size() == 2);
  // compute() rounds the same sum to whole nanoseconds.
  CHECK(r.passes[0].seconds * 1e9 ==
        Approx(static_cast<double>(model->compute(Op::F, 0, 0).duration)).margin(1));
  CHECK(r.passes[1].seconds * 1e9 ==
        Approx(static_cast<double>(model->compute(Op::B, 0, 0).duration)).margin(1));
  // The two norms of each of the 32 layers merge into one row of 64 runs.
  const auto& fwd = r.passes[0].rows;
  const auto norm = std::find_if(fwd.begin(), fwd.end(), [](auto& k) { return k.what == "norm"; });
  REQUIRE(norm != fwd.end());
  CHECK(norm->count == 64);
  // Kinds add up to the pass.
  const KernelPass& f = r.passes[0];
  CHECK(f.seconds_of("gemm") + f.seconds_of("attention") + f.seconds_of("memory") ==
        Approx(f.seconds));
  // Model FLOPs of the forward GEMMs: 2·n·(params of the layer's GEMMs) per layer, n = 4096
  // tokens; the row's TFLOP/s is FLOPs over time.
  const auto qkv = std::find_if(fwd.begin(), fwd.end(), [](auto& k) { return k.what == "qkv"; });
  REQUIRE(qkv != fwd.end());
  // Llama-3.1-8B QKV: 4096 × (4096 + 2·1024) weights, 32 layers.
  CHECK(qkv->flops == Approx(32 * 2.0 * 4096 * 4096 * 6144));
  CHECK(format_kernel_report(r).find("qkv") != std::string::npos);
  CHECK(kernel_report_to_json(r)["passes"][1]["op"] == "backward");
  // One GPU's times; the step's 8 GPUs run them at the slowest one's pace, 1 + 0.010 · 1.42360
  // (E[max of 8 standard normals]) with the default spread.
  CHECK(r.compute_pace == Approx(1.0142360));
  CHECK(kernel_report_to_json(r)["compute_pace"].get<double>() == Approx(1.0142360));
  CHECK_THAT(format_kernel_report(r),
             Catch::Contains("the step runs them at the pace of the slowest of its 8 GPUs, 1.4% "
                             "longer"));
}

TEST_CASE("kernel report: the stage is checked, and explicit costs have no kernels",
          "[kernel_report]") {
  const Scenario s = llama(2);
  const auto model = make_cost_model(s);
  // Stage 0 holds the embedding, stage 1 the head.
  auto has = [&](int stage, const char* what) {
    const KernelReport r = make_kernel_report(s, *model, stage);
    for (const KernelRow& k : r.passes[0].rows)
      if (k.what == what) return true;
    return false;
  };
  CHECK(has(0, "embedding"));
  CHECK_FALSE(has(0, "lm_head"));
  CHECK(has(1, "lm_head"));
  CHECK_THROWS_AS(make_kernel_report(s, *model, 2), InputError);
  CHECK_THROWS_AS(make_kernel_report(s, *model, -1), InputError);
  const Scenario costs = test::pipeline(2, 4, 1, 2);
  const auto explicit_model = make_cost_model(costs);
  const KernelReport r = make_kernel_report(costs, *explicit_model, 0);
  CHECK(r.passes.empty());
  CHECK(format_kernel_report(r).find("costs: section") != std::string::npos);
}

TEST_CASE("kernel report: a profile's durations line counts the samples its rows used",
          "[kernel_report]") {
  // The H100 profile times default.yaml's GEMMs (llama-3.1-8b, 4,096 tokens, tp 1): stage 0's
  // qkv, attn_out, mlp_up and mlp_down forward and their dgrad/wgrad shapes are in it, so its
  // line counts them, as the rows say "calibration profile" (it said 0 before they were asked).
  Scenario s = llama(4);
  s.calibration = std::string(TRAINSIM_SOURCE_DIR) + "/calibrate/profiles/h100-sxm.json";
  const auto model = make_cost_model(s);
  const KernelReport r = make_kernel_report(s, *model, 0);
  REQUIRE(!r.passes.empty());
  CHECK(r.passes[0].rows[1].what == "qkv");
  CHECK(r.passes[0].rows[1].source == "calibration profile");
  CHECK_THAT(r.sources, !Catch::Contains("; 0 GEMM shape(s) from the profile") &&
                            Catch::Contains("GEMM shape(s) from the profile") &&
                            !Catch::Contains("; 0 memory-bound kernel size(s)"));
}

TEST_CASE("kernel report: with several chunks a rank, the stage is a model chunk on its rank",
          "[kernel_report]") {
  // pp 2 · vpp 2 = 4 chunks. Interleaved 1F1B loops them (chunk c on rank c mod 2); ZB-V runs
  // them down and back up, so chunk 3 sits on rank 0 beside chunk 0.
  Scenario s = llama(2);
  s.layout.vpp = 2;
  s.schedule.name = "interleaved-1f1b";
  const auto model = make_cost_model(s);
  CHECK_THAT(format_kernel_report(make_kernel_report(s, *model, 3)),
             Catch::StartsWith("kernels of one micro-batch · model chunk 3 of 4 (pp 2 × vpp 2; on "
                               "pipeline rank 1)"));
  s.schedule.name = "zb-v";
  const KernelReport v = make_kernel_report(s, *make_cost_model(s), 3);
  CHECK(v.rank == 0);
  CHECK(kernel_report_to_json(v)["pipeline_rank"] == 0);
  // One chunk a rank: the stage is the rank, said as before.
  const Scenario one = llama(2);
  CHECK_THAT(format_kernel_report(make_kernel_report(one, *make_cost_model(one), 1)),
             Catch::StartsWith("kernels of one micro-batch · stage 1 of 2 · "));
}

TEST_CASE("kernel report: the CPU's time to issue each pass, when it is simulated",
          "[kernel_report][launch]") {
  // Compiled without efficiency.host_per_kernel: the CPU keeps ahead, no figure.
  Scenario s = llama(1);
  const KernelReport ahead = make_kernel_report(s, *make_cost_model(s), 0);
  CHECK(ahead.passes[0].cpu_seconds == 0);
  CHECK(format_kernel_report(ahead).find("the CPU issues") == std::string::npos);
  // 1 ms a kernel: each pass's launches take longer than its kernels (Llama-3.1-8B's 32 layers
  // issue well over 300 kernels a forward, under 300 ms of GPU time at 4,096 tokens).
  s.efficiency.host_per_kernel = kNsPerMs;
  const auto model = make_cost_model(s);
  const KernelReport r = make_kernel_report(s, *model, 0);
  for (const KernelPass& p : r.passes) {
    const HostLaunch h = model->host_launch(p.op == "forward" ? Op::F : Op::B, 0);
    CHECK(p.cpu_seconds == Approx(to_seconds(h.time)));
    CHECK(p.launches == h.kernels);
    CHECK(p.cpu_seconds == Approx(p.launches * 1e-3));
    CHECK(p.cpu_seconds > p.seconds);
  }
  CHECK_THAT(format_kernel_report(r),
             Catch::Contains(
                 fmt::format("  the CPU issues its {:.0f} kernels in", r.passes[0].launches)) &&
                 Catch::Contains("times the GPU's time, the GPU waits for it"));
  CHECK(kernel_report_to_json(r)["passes"][0]["launches"].get<double>() == r.passes[0].launches);
}

TEST_CASE("kernel report: what the table leaves out is named (collectives, contention)",
          "[kernel_report]") {
  // Llama-3.1-8B at tp 2 on 2 GPUs: each layer's forward all-reduces its attention and MLP
  // outputs over the 2 GPUs, 4,096 tokens × 4,096 × 2 bytes = 33.55 MB each, 32 layers × 2 = 64
  // (plus the vocabulary-parallel embedding's own): on the communication stream, not in the rows.
  const Scenario s = test::yaml(R"(model: llama-3.1-8b
training: {seq_len: 4096, global_batch_size: 16}
cluster: {gpu: h100-sxm, gpus_per_node: 2}
parallelism: {tp: 2}
)");
  const auto model = make_cost_model(s);
  const KernelReport r = make_kernel_report(s, *model, 0);
  REQUIRE(r.passes.size() == 2);
  int all_reduces = 0;
  for (const auto& [kind, c] : r.passes[0].collectives) {
    CHECK(kind == "TP");
    CHECK(c.group_size == 2);
    if (c.kind == Collective::AllReduce && c.bytes == 4096.0 * 4096 * 2) all_reduces += c.count;
  }
  CHECK(all_reduces >= 64);
  const std::string text = format_kernel_report(r);
  CHECK_THAT(text, Catch::Contains("not in the table: its collectives") &&
                       Catch::Contains("TP all-reduce ×") &&
                       Catch::Contains("of 33.55 MB over 2 GPUs"));
  // Compute beside communication runs slower in the step (the default 18.9 %), not here.
  CHECK(r.compute_slowdown == Approx(0.189));
  CHECK_THAT(text, Catch::Contains("run 18.9% slower (contention.compute_slowdown)"));
  CHECK(kernel_report_to_json(r)["passes"][0]["collectives"][0]["parallelism"] == "TP");
  // One GPU: nothing beside the kernels, no collectives, no slowdown line.
  const Scenario one = test::yaml(R"(model: llama-3.1-8b
training: {seq_len: 4096, global_batch_size: 16}
cluster: {gpu: h100-sxm, gpus_per_node: 1}
)");
  const KernelReport alone = make_kernel_report(one, *make_cost_model(one), 0);
  CHECK(alone.compute_slowdown == 0);
  CHECK(alone.passes[0].collectives.empty());
  CHECK(format_kernel_report(alone).find("contention.compute_slowdown") == std::string::npos);
  // Context parallelism's ring is named a ring (the model sizes it as the all-gather moving the
  // same bytes); its all-gather exchange keeps its name.
  for (const char* comm : {"ring", "all_gather"}) {
    const Scenario cp = test::yaml(fmt::format(R"(model: llama-3.1-8b
training: {{seq_len: 4096, global_batch_size: 16}}
cluster: {{gpu: h100-sxm, gpus_per_node: 2}}
parallelism: {{cp: 2, cp_comm: {}}}
)",
                                               comm));
    const std::string t = format_kernel_report(make_kernel_report(cp, *make_cost_model(cp), 0));
    CHECK((t.find("CP ring exchange (an all-gather's bytes) ×") != std::string::npos) ==
          (std::string(comm) == "ring"));
    CHECK((t.find("CP all-gather ×") != std::string::npos) == (std::string(comm) != "ring"));
  }
  // FP8: the header names its peak beside the 16-bit one (2 × 989 on an H100).
  Scenario fp8 = one;
  fp8.training.precision = Precision::FP8;
  CHECK_THAT(format_kernel_report(make_kernel_report(fp8, *make_cost_model(fp8), 0)),
             Catch::Contains("(989 TFLOP/s dense 16-bit, 1978 FP8,"));
}

}  // namespace trainsim
