// Benchmarks of whole simulations (generate → lower → engine). Build with the `bench` preset:
//   cmake --preset bench && cmake --build build-bench -j2 && ./build-bench/tests/bench/sim_bench
// Reported counters: tasks simulated and tasks per second.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "measured/step_breakdown.h"
#include "run/simulate.h"
#include "scenario/scenario_loader.h"
#include "schedules/registry.h"
#include "search/layout_search.h"

using namespace trainsim;

namespace {

// A costs-only pipeline; split backward costs serve fused (B = I + W) and split schedules.
Scenario costs_only(int p, int m, const char* schedule, int v = 1) {
  return parse_scenario(
      fmt::format("parallelism: {{pp: {}, vpp: {}}}\ntraining: {{microbatches: {}}}\n"
                  "schedule: {}\ncosts: {{forward: 1ms, backward_input: 1ms, "
                  "backward_weight: 1ms, p2p: 0.1ms}}\n",
                  p, v, m, schedule),
      "bench.yaml");
}

// Llama-3.1-405B on 16,384 H100s (2048 nodes of 8): tp 8, pp 16, dp 128, m = 16, ZeRO-1.
// Interleaved: vpp 2 (126 layers over 32 chunks).
Scenario llama405b(bool interleaved = false) {
  return parse_scenario(fmt::format(R"(model: llama-3.1-405b
training: {{seq_len: 8192, micro_batch_size: 1, global_batch_size: 2048}}
cluster: {{gpu: h100-sxm, gpus_per_node: 8, nodes: 2048}}
parallelism: {{tp: 8, pp: 16, dp: 128, zero: 1, vpp: {}}}
schedule: {}
)",
                                    interleaved ? 2 : 1, interleaved ? "interleaved-1f1b" : "1f1b"),
                        "llama405b.yaml");
}

// A GPT of 0.93 T parameters (128 layers, hidden 24576 = 192 heads of 128, 4h MLP; its own
// shape, ≈ 12·128·24576² parameters), tp 8, pp 64, m 512, 1F1B, full recompute, on 512 A100s:
// the issue's "one search candidate" of the 1T class.
Scenario gpt_1t() {
  return parse_scenario(R"(model: {layers: 128, hidden: 24576, ffn_hidden: 98304, heads: 192,
        vocab: 51200, mlp: gelu, norm: layernorm, position_embedding: learned}
training: {seq_len: 2048, micro_batch_size: 1, global_batch_size: 512, recompute: full}
cluster: {gpu: a100-sxm-80gb, gpus_per_node: 8, nodes: 64}
parallelism: {tp: 8, pp: 64, dp: 1}
schedule: 1f1b
)",
                        "gpt1t.yaml");
}

void run(benchmark::State& state, const Scenario& s, bool fold) {
  std::size_t tasks = 0;
  for (auto _ : state) {
    Timeline t = simulate(s, {"", fold});
    tasks = t.graph->size();
    benchmark::DoNotOptimize(t.makespan);
  }
  state.counters["tasks"] = static_cast<double>(tasks);
  state.counters["tasks_per_s"] = benchmark::Counter(
      static_cast<double>(tasks) * state.iterations(), benchmark::Counter::kIsRate);
}

void BM_pipeline_1f1b_p64_m1024(benchmark::State& st) {
  run(st, costs_only(64, 1024, "1f1b"), true);
}
void BM_pipeline_afab_p64_m1024(benchmark::State& st) {
  run(st, costs_only(64, 1024, "afab"), true);
}
void BM_pipeline_interleaved_p64_m1024_v2(benchmark::State& st) {
  run(st, costs_only(64, 1024, "interleaved-1f1b", 2), true);
}
void BM_pipeline_zb_h1_p64_m1024(benchmark::State& st) {
  run(st, costs_only(64, 1024, "zb-h1"), true);
}
void BM_pipeline_zb_h2_p64_m1024(benchmark::State& st) {
  run(st, costs_only(64, 1024, "zb-h2"), true);
}
void BM_pipeline_zb_v_p64_m1024(benchmark::State& st) {
  run(st, costs_only(64, 1024, "zb-v", 2), true);
}
void BM_pipeline_dualpipe_v_p64_m1024(benchmark::State& st) {
  run(st, costs_only(64, 1024, "dualpipe-v", 2), true);
}
// zb-auto searches 51 candidates; the targets are p = 16, m = 128 and p = 32, m = 256 (the
// Zero Bubble paper's largest setting, memory 2p, steps overlapping) under 10 s.
void BM_pipeline_zb_auto_p16_m128(benchmark::State& st) {
  run(st, costs_only(16, 128, "zb-auto"), true);
}
void BM_pipeline_zb_auto_p32_m256_2p(benchmark::State& st) {
  Scenario s = costs_only(32, 256, "zb-auto");
  s.schedule.options["memory_limit"] = "64";
  s.training.optimizer_post_validation = true;
  run(st, s, true);
}
void BM_pipeline_zb_auto_p64_m1024(benchmark::State& st) {
  run(st, costs_only(64, 1024, "zb-auto"), true);
}
void BM_llama405b_16384_folded(benchmark::State& st) {
  run(st, llama405b(), true);
}
void BM_llama405b_16384_expanded(benchmark::State& st) {
  run(st, llama405b(), false);
}
void BM_llama405b_16384_interleaved_folded(benchmark::State& st) {
  run(st, llama405b(true), true);
}
void BM_llama405b_16384_interleaved_expanded(benchmark::State& st) {
  run(st, llama405b(true), false);
}

// The same step with each rank's CPU issuing its kernels (runtime eager's 48.3 µs a kernel):
// the launch pass's tasks and edges on the largest layout.
void BM_llama405b_16384_cpu_launches_folded(benchmark::State& st) {
  Scenario s = llama405b();
  s.efficiency.host_per_kernel = 48'300;
  run(st, s, true);
}

void BM_gpt_1t_tp8_pp64_m512_folded(benchmark::State& st) {
  run(st, gpt_1t(), true);
}

// Llama-3.1-8B on 131,072 H100s (16,384 nodes of 8): pp 4 · dp 32,768, two sequences a DP rank.
// Folded to one rank a stage; what grows with the GPU count is deciding that the fold is exact
// (every TP, DP, context and expert group's link), once quadratic in the DP degree.
void BM_llama8b_131072_folded(benchmark::State& st) {
  const Scenario s = parse_scenario(R"(model: llama-3.1-8b
training: {seq_len: 4096, micro_batch_size: 1, global_batch_size: 65536}
cluster: {gpu: h100-sxm, gpus_per_node: 8, nodes: 16384}
parallelism: {pp: 4, dp: 32768}
schedule: 1f1b
)",
                                    "llama8b-131072.yaml");
  run(st, s, true);
}

// The planner's question: Llama-3.1-70B on 64 H100s (8 nodes), 8192-token sequences, 128 per
// step, over the default dimensions (tp, pp, dp, ZeRO, SP, recompute) and then every dimension
// (also vpp 1–2, micro-batch 1–2, every schedule, TP overlap); threads: range(0).
void search_70b(benchmark::State& st, bool everything) {
  const Scenario base = parse_scenario(R"(model: llama-3.1-70b
training: {seq_len: 8192, micro_batch_size: 1, global_batch_size: 128}
cluster: {gpu: h100-sxm, gpus_per_node: 8, nodes: 8}
parallelism: {tp: 8, dp: 8}
schedule: 1f1b
)",
                                       "llama70b.yaml");
  SearchSpace space;
  if (everything) {
    space.vpp = {1, 2};
    space.micro_batch_sizes = {1, 2};
    space.schedules = schedule_names();
    space.tp_overlap = {0, 1};
  }
  std::size_t candidates = 0;
  for (auto _ : st) {
    const auto results = search_layouts(base, space, {0, static_cast<int>(st.range(0))});
    candidates = results.size();
    benchmark::DoNotOptimize(results.front().report.step_time_s);
  }
  st.counters["candidates"] = static_cast<double>(candidates);
  st.counters["candidates_per_s"] = benchmark::Counter(
      static_cast<double>(candidates) * st.iterations(), benchmark::Counter::kIsRate);
}
void BM_search_llama70b_64_default(benchmark::State& st) {
  search_70b(st, false);
}
void BM_search_llama70b_64_every_dimension(benchmark::State& st) {
  search_70b(st, true);
}

}  // namespace

BENCHMARK(BM_llama405b_16384_cpu_launches_folded)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_gpt_1t_tp8_pp64_m512_folded)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_llama8b_131072_folded)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_search_llama70b_64_default)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_search_llama70b_64_every_dimension)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK(BM_pipeline_1f1b_p64_m1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pipeline_afab_p64_m1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pipeline_interleaved_p64_m1024_v2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pipeline_zb_h1_p64_m1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pipeline_zb_h2_p64_m1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pipeline_zb_v_p64_m1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pipeline_dualpipe_v_p64_m1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pipeline_zb_auto_p16_m128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pipeline_zb_auto_p32_m256_2p)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pipeline_zb_auto_p64_m1024)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_llama405b_16384_folded)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_llama405b_16384_expanded)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_llama405b_16384_interleaved_folded)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_llama405b_16384_interleaved_expanded)->Unit(benchmark::kMillisecond)->Iterations(1);
// Reading a real PyTorch profiler trace (tests/data/kineto/nccl_data.json.gz: 40,573 events,
// 3,774 kernels, 9.8 MB of JSON gzipped to 750 kB) and breaking its steps down. Counters: events
// and decompressed JSON bytes per second.
void BM_read_torch_trace_nccl_data(benchmark::State& state) {
  const std::string path =
      std::string(TRAINSIM_SOURCE_DIR) + "/tests/data/kineto/nccl_data.json.gz";
  std::int64_t events = 0;
  for (auto _ : state) {
    TorchTrace t = read_torch_trace(path);
    const auto b = break_down_step(t, pick_step(t));
    benchmark::DoNotOptimize(b.span);
    events += t.events;
  }
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["JSON B/s"] = benchmark::Counter(
      9'778'890.0 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

BENCHMARK(BM_read_torch_trace_nccl_data)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
