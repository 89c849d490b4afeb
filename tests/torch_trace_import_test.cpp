#include "torch_trace_import.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "scenario/scenario_loader.h"

using namespace trainsim;

TEST_CASE("a real trace's collectives and copies become profile samples") {
  const Scenario s = load_scenario(std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/default.yaml");
  const auto t =
      read_torch_trace(std::string(TRAINSIM_TESTS_DIR) + "/data/kineto/nccl_data.json.gz");
  const TorchTraceImport imp = import_torch_traces({t}, s);
  // Counted with Python over the JSON, steps #5 and #6 (#4, the first of three, is warm-up):
  // 10 all-reduces with metadata over 5 sizes (2 calls each), 4 broadcasts (not a collective
  // trainsim uses), 640 device-to-device copies.
  CHECK(imp.steps == 2);
  CHECK(imp.collective_calls == 10);
  CHECK(imp.collective_skipped == 4);
  REQUIRE(imp.profile.collectives.size() == 5);
  const CollectiveSample* c = nullptr;
  for (const auto& x : imp.profile.collectives)
    if (x.bytes == 26'550'272) c = &x;
  REQUIRE(c);
  CHECK(c->op == "all_reduce");
  CHECK(c->group_size == 2);
  CHECK(c->link == "intra_node");  // 2 ranks ≤ the scenario's 8 GPUs per node
  // The two calls' median: 2,526.9265 µs; busbw = algbw × 2(n−1)/n = algbw at n = 2.
  CHECK(c->time_s == Approx(2526.9265e-6));
  CHECK(c->busbw == Approx(c->bytes / c->time_s));
  CHECK(c->method == "torch-trace");
  CHECK(imp.copies == 640);
  REQUIRE_FALSE(imp.profile.memory.empty());
  CHECK(imp.profile.memory.front().bytes == 2 * 8);  // the smallest copy: 8 B read + 8 B written
  // A CNN in fp32/TF32 through cuDNN: no bf16/fp16 GEMM carries over.
  CHECK(imp.profile.gemms.empty());
  CHECK(imp.profile.provenance.device == "NVIDIA A100-PG509-200");
}

TEST_CASE("one step of a trace, by name or by a window of times") {
  const Scenario s = load_scenario(std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/default.yaml");
  const auto t =
      read_torch_trace(std::string(TRAINSIM_TESTS_DIR) + "/data/kineto/nccl_data.json.gz");
  // Step #6 alone: half of the two steps' samples above (each step runs the same 5 all-reduces,
  // 2 broadcasts and 320 copies).
  const TorchTraceImport six = import_torch_traces({t}, s, "6");
  CHECK(six.steps == 1);
  CHECK(six.collective_calls == 5);
  CHECK(six.collective_skipped == 2);
  CHECK(six.copies == 320);
  // A window from the first kernel to past the last: every kernel of the trace, warm-up
  // step #4 included (which the default leaves out): three steps' worth, 15 all-reduces,
  // 6 broadcasts, 960 copies.
  const TorchTraceImport all = import_torch_traces({t}, s, "0s..1000s");
  CHECK(all.steps == 1);
  CHECK(all.collective_calls == 15);
  CHECK(all.collective_skipped == 6);
  CHECK(all.copies == 960);
  CHECK_THROWS_WITH(import_torch_traces({t}, s, "9"), Catch::Contains("no such step"));
}

TEST_CASE("a bf16 GEMM's kernels (GEMM + split-K reduction) are one call, the median per shape") {
  // Two steps, each one aten::mm [[4096, 8192], [8192, 1024]] in bf16 launching a GEMM and its
  // split-K reduction (linked by External id 7 / 8): 100 + 10 µs, then 120 + 10 µs. Calls: 110
  // and 130 µs: median 120 µs, spread 20 µs.
  const std::string trace = R"({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 1000, "dur": 1000},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 20,
     "args": {"External id": 7, "Input Dims": [[4096, 8192], [8192, 1024]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 12, "dur": 2, "args": {"correlation": 101, "External id": 7}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 15, "dur": 2, "args": {"correlation": 102, "External id": 7}},
    {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", "pid": 0, "tid": 7, "ts": 20, "dur": 100, "args": {"correlation": 101, "External id": 7, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "void splitKreduce_kernel<32, 16>", "pid": 0, "tid": 7, "ts": 120, "dur": 10, "args": {"correlation": 102, "External id": 7, "stream": 7}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1010, "dur": 20,
     "args": {"External id": 8, "Input Dims": [[4096, 8192], [8192, 1024]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1012, "dur": 2, "args": {"correlation": 201, "External id": 8}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1015, "dur": 2, "args": {"correlation": 202, "External id": 8}},
    {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", "pid": 0, "tid": 7, "ts": 1020, "dur": 120, "args": {"correlation": 201, "External id": 8, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "void splitKreduce_kernel<32, 16>", "pid": 0, "tid": 7, "ts": 1140, "dur": 10, "args": {"correlation": 202, "External id": 8, "stream": 7}}
  ]})";
  const std::string path =
      (std::filesystem::temp_directory_path() / "torch_trace_import_test.json").string();
  std::ofstream(path) << trace;
  const Scenario s = load_scenario(std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/default.yaml");
  const TorchTraceImport imp = import_torch_traces({read_torch_trace(path)}, s);
  std::remove(path.c_str());
  CHECK(imp.gemm_calls == 2);
  REQUIRE(imp.profile.gemms.size() == 1);
  const GemmSample& g = imp.profile.gemms[0];
  CHECK(g.m == 4096);
  CHECK(g.n == 1024);
  CHECK(g.k == 8192);
  CHECK(g.dtype == "bf16");
  CHECK(g.time_s == Approx(120e-6));
  CHECK(g.spread_s == Approx(20e-6));

  // Without the ProfilerStep annotations the whole trace is one step: the same two calls.
  std::string bare = trace;
  for (
      const char* step :
      {R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},)",
       R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 1000, "dur": 1000},)"})
    bare.erase(bare.find(step), std::string(step).size());
  std::ofstream(path) << bare;
  const TorchTraceImport whole = import_torch_traces({read_torch_trace(path)}, s);
  std::remove(path.c_str());
  CHECK(whole.steps == 1);
  REQUIRE(whole.profile.gemms.size() == 1);
  CHECK(whole.profile.gemms[0].time_s == Approx(120e-6));
}

TEST_CASE("an H100 LLM step's trace gives the GEMM samples of every shape the scenario runs") {
  // calibrate/reference/llama_step.py on an H100 SXM (tests/data/kineto/README.md): four
  // Llama-3.1-8B layers, 4 micro-batches of 4096 tokens, ProfilerStep#2…#4 (#2 is warm-up).
  const Scenario s =
      load_scenario(std::string(TRAINSIM_SOURCE_DIR) + "/calibrate/reference/llama-4l-1gpu.yaml");
  const auto t = read_torch_trace(std::string(TRAINSIM_TESTS_DIR) +
                                  "/data/kineto/h100-llama8b-4layers.json.gz");
  const TorchTraceImport imp = import_torch_traces({t}, s);
  // Per micro-batch 4 layers × (4 forward + 8 backward GEMMs) + the LM head's 3 = 51 aten::mm /
  // aten::linear calls; × 4 micro-batches × 2 steps = 408, over 12 (m, n, k) (listed with Python
  // from the JSON): 9 of the 10 that `trainsim-calibrate gemm --dry-run` lists for this scenario
  // and 3 weight gradients PyTorch multiplies the other way round (6144, 28672 and 128256 rows).
  CHECK(imp.steps == 2);
  CHECK(imp.gemm_calls == 408);
  CHECK(imp.profile.gemms.size() == 12);
  CHECK(imp.profile.provenance.device == "NVIDIA H100 80GB HBM3");
  const GemmSample* up = nullptr;
  for (const auto& g : imp.profile.gemms)
    if (g.m == 4096 && g.n == 28672 && g.k == 4096) up = &g;
  REQUIRE(up);
  // mlp_up's forward, 2·4096·28672·4096 = 962.1 GFLOP: the median of its 32 calls (16 per step)
  // is 1,222.0 µs, ≈ 787 TFLOP/s.
  CHECK(up->time_s == Approx(1222.0e-6).epsilon(0.001));
  CHECK(up->method == "torch-trace");
  // Provenance: the file, rank and step of its first call, and how many calls.
  CHECK_THAT(up->source,
             Catch::EndsWith("h100-llama8b-4layers.json.gz rank 0 ProfilerStep#3 (32 calls)"));
  // Attention: per micro-batch 4 layers × a forward and a backward SDPA call; × 4 micro-batches
  // × 2 steps = 64 calls, 2 shapes: 32 query heads of 128 at 4096 tokens, causal (the trace's
  // Concrete Inputs). A call's time is its operator's kernels summed (the backward:
  // FlashAttention's dot(dO, O), main and dQ-conversion kernels); medians by Python over the same
  // calls: 561.646 µs forward, 1,545.8455 µs backward.
  CHECK(imp.attention_calls == 64);
  CHECK(imp.attention_kernels == 0);
  REQUIRE(imp.profile.attention.size() == 2);
  for (const AttentionSample& a : imp.profile.attention) {
    CHECK(a.seq == 4096);
    CHECK(a.head_dim == 128);
    CHECK(a.heads == 32);
    CHECK(a.causal);
    CHECK(a.time_s == Approx(a.pass == "forward" ? 561.646e-6 : 1545.8455e-6).epsilon(1e-6));
    CHECK_THAT(a.source, Catch::Contains("(32 calls)"));
  }
}
