#include "cost/kernel_data.h"

#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

namespace trainsim {

TEST_CASE(
    "kernel data: attention throughput follows the published charts by length and head "
    "dimension",
    "[kernel_data][attention]") {
  const AttentionData* fa2 = find_attention_data("a100-sxm-80gb", AttentionKernel::Flash2);
  REQUIRE(fa2 != nullptr);
  // A100, FlashAttention-2, causal, d = 128, forward + backward: 155 at 2k, 173 at 4k. With no
  // forward chart the forward runs at both · (1 + 2.5·73/63) / 3.5 and the backward at
  // 2.5 / (3.5/both − 1/forward).
  auto split = [](double both) {
    const double f = both * (1 + 2.5 * 73.0 / 63.0) / 3.5;
    return std::pair{f, 2.5 / (3.5 / both - 1 / f)};
  };
  const auto at2k = fa2->at(2048, 128);
  CHECK(at2k.forward_tflops == Approx(split(155).first));
  CHECK(at2k.backward_tflops == Approx(split(155).second));
  // The backward is then exactly 63/73 of the forward.
  CHECK(at2k.backward_tflops / at2k.forward_tflops == Approx(63.0 / 73.0));
  // Halfway in log₂ between 2k and 4k (2896 tokens): the mean of 155 and 173.
  CHECK(fa2->at(std::sqrt(2048.0 * 4096.0), 128).forward_tflops == Approx(split(164).first));
  // Head dimension 96: halfway between the d = 64 (140) and d = 128 (155) bars at 2k.
  CHECK(fa2->at(2048, 96).forward_tflops == Approx(split(147.5).first));
  // Held at the ends: below 512 and d = 64, above 16k and d = 128.
  CHECK(fa2->at(128, 32).forward_tflops == Approx(split(88).first));
  CHECK(fa2->at(65536, 256).forward_tflops == Approx(split(189).first));
}

TEST_CASE(
    "kernel data: FlashAttention-1's H100 bars are scaled as FlashAttention-2's measured ones",
    "[kernel_data][attention]") {
  // The FlashAttention-2 paper's H100 figure: FlashAttention (-1) 136 at 2k tokens, head dim 64,
  // and 126 at 4k, head dim 128; the same figure's FlashAttention-2 bars 232 and 294 where an
  // H100 measured 189 and 247 (kernel_data.cpp). So FlashAttention-1, and the Triton kernel it
  // stands for, runs 136 · 189 / 232 = 110.79 and 126 · 247 / 294 = 105.86 forward + backward.
  auto both = [](const AttentionData* d, double seq, double head_dim) {
    const double f = d->at(seq, head_dim).forward_tflops;
    return f * 3.5 / (1 + 2.5 * 73.0 / 63.0);  // the forward + backward bar it was split from
  };
  for (AttentionKernel k : {AttentionKernel::Flash1, AttentionKernel::Triton}) {
    const AttentionData* d = find_attention_data("h100-sxm", k);
    REQUIRE(d != nullptr);
    CHECK(both(d, 2048, 64) == Approx(136.0 * 189 / 232));
    CHECK(both(d, 4096, 128) == Approx(126.0 * 247 / 294));
  }
  // A100's bars stay as published (no measurement says they overstate an A100): 76 at 4k, d 128.
  CHECK(both(find_attention_data("a100-sxm-80gb", AttentionKernel::Flash1), 4096, 128) ==
        Approx(76));
}

TEST_CASE("kernel data: FlashAttention-1 and the Triton kernel pad a head to their kernel's size",
          "[kernel_data][attention]") {
  // FlashAttention-1 runs heads of 65-128 on its hdim-128 kernel (fmha_api.cpp), the Triton
  // kernel on the next power of two: a head of 96 takes a head of 128's time, so 96/128 of its
  // throughput in useful FLOPs; 48 runs as 64. FlashAttention-2 has a kernel of 96: the charts
  // interpolated, as the test above.
  for (AttentionKernel k : {AttentionKernel::Flash1, AttentionKernel::Triton}) {
    const AttentionData* d = find_attention_data("a100-sxm-80gb", k);
    REQUIRE(d != nullptr);
    CHECK(d->kernel_head_dim(96) == 128);
    CHECK(d->kernel_head_dim(48) == 64);
    CHECK(d->kernel_head_dim(128) == 128);
    CHECK(d->kernel_head_dim(64) == 64);
    CHECK(d->kernel_head_dim(20) == 32);
    CHECK(d->at(2048, 96).forward_tflops == Approx(0.75 * d->at(2048, 128).forward_tflops));
    CHECK(d->at(2048, 96).backward_tflops == Approx(0.75 * d->at(2048, 128).backward_tflops));
    CHECK(d->at(4096, 48).forward_tflops == Approx(0.75 * d->at(4096, 64).forward_tflops));
  }
  const AttentionData* fa2 = find_attention_data("a100-sxm-80gb", AttentionKernel::Flash2);
  CHECK(fa2->kernel_head_dim(96) == 96);
  CHECK(fa2->at(2048, 96).forward_tflops >
        0.5 * (fa2->at(2048, 64).forward_tflops + fa2->at(2048, 128).forward_tflops) - 1e-9);
}

TEST_CASE("kernel data: a forward chart and a forward + backward chart give the backward",
          "[kernel_data][attention]") {
  // H100, FlashAttention-2, causal, d = 64, 8k, measured: forward 290, forward + backward 260:
  // backward = 2.5 / (3.5/260 − 1/290) = 249.7 TFLOP/s.
  const AttentionData* fa2 = find_attention_data("h100-sxm", AttentionKernel::Flash2);
  REQUIRE(fa2 != nullptr);
  const auto t = fa2->at(8192, 64);
  CHECK(t.forward_tflops == Approx(290));
  CHECK(t.backward_tflops == Approx(2.5 / (3.5 / 260 - 1.0 / 290)));
  // FlashAttention-3: its forward chart (460), and 1.5× the backward of the FlashAttention-2 its
  // paper compares with (that paper's charts: forward 295, forward + backward 273).
  const AttentionData* fa3 = find_attention_data("h100-sxm", AttentionKernel::Flash3);
  REQUIRE(fa3 != nullptr);
  CHECK(fa3->at(8192, 64).forward_tflops == Approx(460));
  CHECK(fa3->at(8192, 64).backward_tflops == Approx(1.5 * 2.5 / (3.5 / 273 - 1.0 / 295)));
  // cuDNN's fused attention, measured on an H100 (head dim 128, 4k tokens: forward 562,
  // forward + backward 435 TFLOP/s), so its backward 2.5 / (3.5/435 − 1/562) = 398.9; at 2k–4k
  // 3k tokens, 0.585 of the way from 2k to 4k in log₂: forward 478 + (562 − 478) · 0.585 = 527.1.
  const AttentionData* cudnn = find_attention_data("h100-sxm", AttentionKernel::Cudnn);
  REQUIRE(cudnn != nullptr);
  CHECK(cudnn->at(4096, 128).forward_tflops == Approx(562));
  CHECK(cudnn->at(4096, 128).backward_tflops == Approx(398.9).epsilon(1e-3));
  CHECK(cudnn->at(3072, 128).forward_tflops ==
        Approx(478 + 84 * (std::log2(3072.0) - 11)).epsilon(1e-9));
  // Faster than FlashAttention-2 on the same GPU at every length, both passes.
  for (double s : {512.0, 2048.0, 16384.0}) {
    CHECK(cudnn->at(s, 128).forward_tflops > fa2->at(s, 128).forward_tflops);
    CHECK(cudnn->at(s, 128).backward_tflops > fa2->at(s, 128).backward_tflops);
  }
}

TEST_CASE("kernel data: a launch of few heads runs its attention below the charted rate",
          "[kernel_data][attention]") {
  const AttentionData* fa2 = find_attention_data("h200", AttentionKernel::Flash2);
  const AttentionData* cudnn = find_attention_data("h100-sxm", AttentionKernel::Cudnn);
  REQUIRE(fa2 != nullptr);
  REQUIRE(cudnn != nullptr);
  // The charts' benchmark on an H100 (132 SMs): 16k tokens × 2048 hidden in heads of 128 is
  // 2,048 query tiles of 128 rows, 15.515 per SM. The same launch runs at the charted rate.
  CHECK(fa2->parallelism(false, 2048, 132, 128) == Approx(1.0));
  CHECK(fa2->parallelism(true, 2048, 132, 128) == Approx(1.0));
  // Head dimension 64: 32 heads, 4,096 tiles.
  CHECK(fa2->parallelism(false, 4096, 132, 64) == Approx(1.0));
  // Llama-3-8B at tp 8, one 8,192-token sequence: 4 heads × 64 tiles = 256, x = 1.939 per SM.
  // FlashAttention-2 forward, c = 2.30: (1.939 / 4.239) / (15.515 / 17.815) = 0.4575 / 0.8709.
  const double x = 256.0 / 132, b = 2048.0 / 132;
  CHECK(fa2->parallelism(false, 256, 132, 128) == Approx((x / (x + 2.30)) / (b / (b + 2.30))));
  CHECK(fa2->parallelism(false, 256, 132, 128) == Approx(0.525).margin(0.001));
  // Its backward, c = 0.25: 0.8858 / 0.9841 = 0.900.
  CHECK(fa2->parallelism(true, 256, 132, 128) == Approx(0.900).margin(0.001));
  // cuDNN's forward, c = 1.7: (1.939 / 3.639) / (15.515 / 17.215) = 0.591; its backward lost
  // nothing measurable.
  CHECK(cudnn->parallelism(false, 256, 132, 128) == Approx(0.591).margin(0.001));
  CHECK(cudnn->parallelism(true, 256, 132, 128) == 1.0);
  // More tiles than the benchmark's run a little faster (8,192: x = 62.06, 0.964 / 0.871).
  CHECK(fa2->parallelism(false, 8192, 132, 128) == Approx(1.107).margin(0.001));
  // Fewer SMs fill with fewer tiles: the same 256 tiles on an H100 PCIe's 114 SMs, x = 2.246.
  CHECK(fa2->parallelism(false, 256, 114, 128) > fa2->parallelism(false, 256, 132, 128));
  // A GPU of unknown SM count: as charted.
  CHECK(fa2->parallelism(false, 256, 0, 128) == 1.0);
}

TEST_CASE("kernel data: a causal launch takes at least its longest tile's time",
          "[kernel_data][attention]") {
  // Tile i of a k-tile causal sequence works on i blocks: mean (k + 1) / 2, longest k.
  CHECK(causal_mean_over_longest(128) == Approx(129.0 / 256));
  CHECK(causal_mean_over_longest(1) == 1.0);
  // One 16,384-token head in 128-row tiles: k = 128; on 132 SMs x = 128 / 132 = 0.970, so at most
  // 0.970 · 129 / 256 = 0.4886 of the GPU's rate.
  const double half = causal_mean_over_longest(128);
  CHECK(attention_tile_bound(128, 132, half) == Approx(128.0 / 132 * 129 / 256));
  // Two heads, x = 1.939: 0.977. Four: capped at 1.
  CHECK(attention_tile_bound(256, 132, half) == Approx(256.0 / 132 * 129 / 256));
  CHECK(attention_tile_bound(512, 132, half) == 1.0);
  // Equal (unmasked) tiles: at most x.
  CHECK(attention_tile_bound(66, 132, 1.0) == Approx(0.5));
  CHECK(attention_tile_bound(264, 132, 1.0) == 1.0);
  CHECK(attention_tile_bound(1, 0, half) == 1.0);  // SMs unknown
  // As a share of the charted rate the bound is over the rate x / (x + c) tends to: cuDNN's
  // backward (c = 0) at one tile per SM, 0.4886; FlashAttention-2's (c = 0.25, the benchmark's
  // b = 15.515 per SM) 0.4886 · 15.765 / 15.515 = 0.4965 where its x / (x + c) would give 0.808.
  const AttentionData* fa2 = find_attention_data("h200", AttentionKernel::Flash2);
  const AttentionData* cudnn = find_attention_data("h100-sxm", AttentionKernel::Cudnn);
  REQUIRE(fa2 != nullptr);
  REQUIRE(cudnn != nullptr);
  CHECK(cudnn->parallelism(true, 128, 132, 128, half) == Approx(0.4886).margin(0.0005));
  CHECK(fa2->parallelism(true, 128, 132, 128, half) == Approx(0.4965).margin(0.0005));
  CHECK(fa2->parallelism(true, 128, 132, 128) == Approx(0.808).margin(0.001));
  // The forward keeps its measured factor: FlashAttention-2 splits a long tile's keys over CTAs
  // (its 1-head 8K launch, x = 0.48, ran at 0.30-0.39 of the full launch's rate, over the bound's
  // 0.24). One head of 2,048 tokens (16 tiles, x = 0.121): cuDNN's forward factor
  // (0.121 / 1.821) / (15.515 / 17.215) = 0.0738 stands, where the bound scaled as the forward's
  // would hold it to 0.121 · 17 / 32 · 17.215 / 15.515 = 0.0715; the backward (c = 0) is held to
  // 0.121 · 17 / 32 = 0.0644.
  const double sixteen = causal_mean_over_longest(16);
  CHECK(cudnn->parallelism(false, 16, 132, 128, sixteen) == Approx(0.0738).margin(0.0005));
  CHECK(cudnn->parallelism(true, 16, 132, 128, sixteen) == Approx(0.0644).margin(0.0005));
  // Past the bound's reach the measured factor stands, above the charted rate too (1.012).
  CHECK(fa2->parallelism(true, 8192, 132, 128, causal_mean_over_longest(256)) ==
        fa2->parallelism(true, 8192, 132, 128));
  CHECK(fa2->parallelism(true, 8192, 132, 128) == Approx(1.012).margin(0.001));
}

TEST_CASE("kernel data: Blackwell's head-dim-64 forward falls further behind head dim 128",
          "[kernel_data][attention][cudnn]") {
  // No Blackwell cuDNN benchmark times heads of 64: the curve carries the H100's ratio to 128,
  // and the forward then takes each GPU's own fall from the H100's ratio in TensorRT-LLM's
  // prefill attention (aiconfigurator, 1.3.0rc10): at 16k tokens B200 0.666 / 0.823 = 0.809,
  // GB200 0.616 / 0.823 = 0.748, GB300 0.643 / 0.823 = 0.781; at 512, 1.030 (no fall).
  for (const auto& [gpu, at_16k] : {std::pair{"b200", 0.809}, {"gb200", 0.748}, {"gb300", 0.781}}) {
    const AttentionData* data = find_attention_data(gpu, AttentionKernel::Cudnn);
    REQUIRE(data != nullptr);
    AttentionData carried = *data;
    carried.head_dim_64_forward_scale = {1, 1, 1, 1, 1, 1};
    CHECK(data->at(16384, 64).forward_tflops / carried.at(16384, 64).forward_tflops ==
          Approx(at_16k));
    // Heads of 96: halfway in the head dimension, halfway in the fall.
    CHECK(data->at(16384, 96).forward_tflops / carried.at(16384, 96).forward_tflops ==
          Approx(1 - (1 - at_16k) / 2));
    // The backward keeps the carried ratio; heads of 128 were measured.
    CHECK(data->at(16384, 64).backward_tflops == Approx(carried.at(16384, 64).backward_tflops));
    CHECK(data->at(16384, 128).forward_tflops == Approx(carried.at(16384, 128).forward_tflops));
  }
  const AttentionData* b200 = find_attention_data("b200", AttentionKernel::Cudnn);
  AttentionData carried = *b200;
  carried.head_dim_64_forward_scale = {1, 1, 1, 1, 1, 1};
  CHECK(b200->at(512, 64).forward_tflops / carried.at(512, 64).forward_tflops == Approx(1.030));
  // Hopper's head dim 64 was measured: nothing to scale.
  for (const double f :
       find_attention_data("h100-sxm", AttentionKernel::Cudnn)->head_dim_64_forward_scale)
    CHECK(f == 1.0);
}

namespace {
// The lent GPUs' runs of kernel_probe.py `attention_parallelism` (calibrate/reference/): two on
// an H200, one on an H100 SXM; each run's preset and rows.
std::vector<std::pair<std::string, nlohmann::json>> attention_parallelism_runs() {
  std::vector<std::pair<std::string, nlohmann::json>> runs;
  for (const std::string file :
       {"h200-attention-parallelism.json", "h200-attention-parallelism-repeat.json",
        "h100-sxm-attention-parallelism.json"}) {
    std::ifstream in(std::string(TRAINSIM_SOURCE_DIR) + "/calibrate/reference/" + file);
    REQUIRE(in);
    runs.emplace_back(file.rfind("h100", 0) == 0 ? "h100-sxm" : "h200",
                      nlohmann::json::parse(in).at("attention_parallelism"));
  }
  return runs;
}
}  // namespace

TEST_CASE("kernel data: the longest tile predicts the measured backward of one head per SM",
          "[kernel_data][attention]") {
  // calibrate/reference/*-attention-parallelism*.json: SDPA's FlashAttention-2 and cuDNN
  // backends, causal, batch 1, 16,384 tokens, 1, 2 and 4 heads of 64 and 128 (x = 0.97, 1.94,
  // 3.88 tiles per SM), two runs on an H200 and one on an H100 SXM. Against the same kernel's
  // 4-head launch, the 1-head backward ran at 0.43-0.52 of its rate (its call took as long as
  // the 2-head one's), the 2-head one at 0.92-1.00; modelled 0.49-0.52 and 0.94-0.98 (without
  // the longest-tile bound FlashAttention-2's 1-head one would be 0.85 and cuDNN's 1.00).
  int rows = 0;
  for (const auto& [gpu, runs] : attention_parallelism_runs()) {
    std::map<std::tuple<std::string, int, int>, double> tflops;  // (kernel, head dim, heads)
    for (const auto& r : runs)
      if (r.at("causal").get<bool>() && r.at("seq").get<int>() == 16384 && r.at("heads") <= 4)
        tflops[{r.at("kernel").get<std::string>(), r.at("head_dim").get<int>(),
                r.at("heads").get<int>()}] = r.at("backward_tflops").get<double>();
    for (const auto& [key, measured] : tflops) {
      const auto& [kernel, d, heads] = key;
      if (heads == 4) continue;
      const AttentionData* data = find_attention_data(
          gpu, kernel == "cudnn" ? AttentionKernel::Cudnn : AttentionKernel::Flash2);
      REQUIRE(data != nullptr);
      auto modelled = [&](int h) {
        return data->parallelism(true, h * 128.0, 132, d, causal_mean_over_longest(128));
      };
      const double ratio = measured / tflops.at({kernel, d, 4});
      CHECK(modelled(heads) / modelled(4) == Approx(ratio).margin(0.08));
      ++rows;
    }
  }
  CHECK(rows == 24);
}

TEST_CASE("kernel data: an unmasked backward of fewer tiles than SMs runs at most at their share",
          "[kernel_data][attention]") {
  // The same runs' unmasked rows (equal tiles): at 8,192-16,384 tokens and 1-2 heads (x = 0.48
  // and 0.97 tiles per SM) every backward ran at or below x of the same kernel's rate at the most
  // heads measured, within that rate's spread (0.30-0.49 at x = 0.48, 0.56-1.00 at 0.97), as
  // attention_tile_bound's unmasked branch says. The forward is not held to it: FlashAttention-2
  // split the keys and ran at 0.56-0.71 at x = 0.48.
  int rows = 0;
  for (const auto& run : attention_parallelism_runs()) {
    std::map<std::tuple<std::string, int, int>, std::map<int, double>> tflops;
    for (const auto& r : run.second)
      if (!r.at("causal").get<bool>() && r.at("seq").get<int>() >= 8192)
        tflops[{r.at("kernel").get<std::string>(), r.at("head_dim").get<int>(),
                r.at("seq").get<int>()}][r.at("heads").get<int>()] =
            r.at("backward_tflops").get<double>();
    for (const auto& [key, by_heads] : tflops) {
      const int seq = std::get<2>(key);
      const double full = by_heads.rbegin()->second;  // the most heads measured
      for (const auto& [heads, measured] : by_heads) {
        const double tiles = heads * seq / 128.0;
        if (tiles >= 132) continue;
        CHECK(measured / full <= attention_tile_bound(tiles, 132, 1.0) + 0.05);
        ++rows;
      }
    }
  }
  CHECK(rows == 36);
}

TEST_CASE("kernel data: the launch's parallelism predicts an H100's long-sequence attention",
          "[kernel_data][attention]") {
  // Measured on a lent H100 SXM before the factor was fitted (on an H200):
  // calibrate/reference/h100-sxm-long-attention.json, FlashAttention-2 (SDPA), causal, 32 query
  // heads of 128, one sequence of 8K-128K tokens: 32 · s / 128 tiles, 15.5-248 per SM. The
  // charts stop at 16K (314 TFLOP/s forward, held beyond); the factor carries the rest.
  std::ifstream in(std::string(TRAINSIM_SOURCE_DIR) +
                   "/calibrate/reference/h100-sxm-long-attention.json");
  REQUIRE(in);
  const auto doc = nlohmann::json::parse(in);
  const AttentionData* fa2 = find_attention_data("h100-sxm", AttentionKernel::Flash2);
  REQUIRE(fa2 != nullptr);
  int rows = 0;
  for (const auto& r : doc.at("long_attention")) {
    if (r.at("mask") != "causal") continue;
    const double s = r.at("seq_q").get<double>(), heads = r.at("heads").get<double>();
    const double modelled =
        fa2->at(s, 128).forward_tflops * fa2->parallelism(false, heads * s / 128, 132, 128);
    const double measured = r.at("forward_tflops").get<double>();
    // 8K-64K within 6 % (309-363 measured against 314-353); 128K, where the measured rate
    // falls again (318 against 356: +12.0 %), within 13 %.
    CHECK(std::abs(modelled / measured - 1) < (s <= 65536 ? 0.06 : 0.13));
    ++rows;
  }
  CHECK(rows == 7);
}

TEST_CASE("kernel data: which GPU and kernel have figures", "[kernel_data][attention]") {
  // Hopper GPUs share H100 SXM's charts (the caller scales by peak).
  CHECK(find_attention_data("h200", AttentionKernel::Flash3) ==
        find_attention_data("h100-sxm", AttentionKernel::Flash3));
  CHECK(find_attention_data("h100-pcie", AttentionKernel::Triton) != nullptr);
  // llm-foundry's Triton kernel: no chart; its two sources place it "slightly" either side of
  // FlashAttention(-1), whose bars stand in on both GPUs (A100, 16k, d 128: 83 TFLOP/s forward +
  // backward, forward 83 · (1 + 2.5·73/63) / 3.5 = 92.4).
  for (const char* gpu : {"a100-sxm-80gb", "h100-sxm"})
    for (double s : {1024.0, 16384.0})
      CHECK(find_attention_data(gpu, AttentionKernel::Triton)->at(s, 128).forward_tflops ==
            find_attention_data(gpu, AttentionKernel::Flash1)->at(s, 128).forward_tflops);
  CHECK(find_attention_data("a100-sxm-80gb", AttentionKernel::Triton)
            ->at(16384, 128)
            .forward_tflops == Approx(83 * (1 + 2.5 * 73.0 / 63) / 3.5));
  // Not measured: FlashAttention-3 on A100; custom GPUs; unfused attention (timed as GEMMs).
  CHECK(find_attention_data("a100-sxm-80gb", AttentionKernel::Flash3) == nullptr);
  CHECK(find_attention_data("a100-sxm-80gb", AttentionKernel::Cudnn) == nullptr);
  CHECK(find_attention_data("h200", AttentionKernel::Cudnn) ==
        find_attention_data("h100-sxm", AttentionKernel::Cudnn));
  CHECK(find_attention_data("my-gpu", AttentionKernel::Flash2) == nullptr);
  // B200: cuDNN (its own curve, not Hopper's) and FlashAttention-2, both from NVIDIA's
  // cudnn-frontend benchmark: FlashAttention-2 at 16k tokens, head dim 128, forward 397.0
  // TFLOP/s at 128 heads ÷ 1.106 for the launch's parallelism = 359, forward + backward
  // 3.5 / (1 / 359 + 2.5 / 331.0) = 339; head dim 64 at the H100's FlashAttention-2 ratios
  // (forward 293 / 314 of it: 335). Not on a GB200.
  REQUIRE(find_attention_data("b200", AttentionKernel::Cudnn) != nullptr);
  CHECK(find_attention_data("b200", AttentionKernel::Cudnn) !=
        find_attention_data("h100-sxm", AttentionKernel::Cudnn));
  const AttentionData* fa2_b200 = find_attention_data("b200", AttentionKernel::Flash2);
  REQUIRE(fa2_b200 != nullptr);
  CHECK(fa2_b200->gpu == std::string("b200"));
  CHECK(fa2_b200->at(16384, 128).forward_tflops == Approx(359).epsilon(0.01));
  CHECK(fa2_b200->at(16384, 64).forward_tflops == Approx(335).epsilon(0.01));
  CHECK(find_attention_data("gb200", AttentionKernel::Flash2) == nullptr);
  CHECK(find_attention_data("h100-sxm", AttentionKernel::Unfused) == nullptr);
  // Every chart is slower on A100 than on H100, and FlashAttention-2 beats the 2023 kernels.
  for (double s : {512.0, 2048.0, 16384.0}) {
    const double a100_fa2 =
        find_attention_data("a100-sxm-80gb", AttentionKernel::Flash2)->at(s, 128).forward_tflops;
    CHECK(find_attention_data("a100-sxm-80gb", AttentionKernel::Triton)->at(s, 128).forward_tflops <
          a100_fa2);
    CHECK(find_attention_data("a100-sxm-80gb", AttentionKernel::Flash1)->at(s, 128).forward_tflops <
          a100_fa2);
    CHECK(find_attention_data("h100-sxm", AttentionKernel::Flash2)->at(s, 128).forward_tflops >
          a100_fa2);
  }
}

TEST_CASE("kernel data: cuDNN on B200, newest from NVIDIA's GB200 benchmark",
          "[kernel_data][attention][b200]") {
  const AttentionData* b200 = find_attention_data("b200", AttentionKernel::Cudnn);
  REQUIRE(b200 != nullptr);
  // Measured on a GB200 (2.5 PFLOP/s dense a GPU, 148 SMs): the caller scales by the preset's
  // peak.
  CHECK(b200->peak_flops == 2.5e15);
  CHECK(b200->sms == 148);
  // 8k tokens, head dim 128 (kernel_data.cpp): forward 1412, forward + backward 1276, so the
  // backward takes 3.5 / 1276 − 1 / 1412 per forward FLOP: 2.5 / (0.0027429 − 0.0007082) = 1228.7.
  CHECK(b200->at(8192, 128).forward_tflops == Approx(1412));
  CHECK(b200->at(8192, 128).backward_tflops == Approx(1228.7).epsilon(1e-3));
  // At every charted length it runs 2.0–2.9 times H100's cuDNN curve (peaks 2.5 / 0.989 = 2.53).
  const AttentionData* h100 = find_attention_data("h100-sxm", AttentionKernel::Cudnn);
  for (double s : {512.0, 2048.0, 8192.0, 16384.0}) {
    const double r = b200->at(s, 128).forward_tflops / h100->at(s, 128).forward_tflops;
    CHECK(r > 1.8);
    CHECK(r < 2.9);
  }
  // Timed at a free clock, it runs slower at the power limit; Hopper's curves, timed back to
  // back as a step runs its kernels, do not (analytic_test derives the durations).
  CHECK(b200->sustained < 1.0);
  CHECK(find_attention_data("h100-sxm", AttentionKernel::Cudnn)->sustained == 1.0);
}

TEST_CASE("kernel data: GB200 reads B200's cuDNN curves, at its own power-limit share",
          "[kernel_data][attention][gb200]") {
  // The same figures as B200's (its own benchmark from 9.17, B200's 9.13 before; the caller
  // scales each by the preset's peak over the one it was measured at), but at GB200's share at
  // its power limit, 0.829 (its GEMMs', constants.h), not B200's 0.853.
  for (std::optional<CudnnVersion> v :
       {std::optional<CudnnVersion>{}, std::optional<CudnnVersion>{CudnnVersion{9, 13}},
        std::optional<CudnnVersion>{CudnnVersion{9, 22}}}) {
    const AttentionData* g = find_attention_data("gb200", AttentionKernel::Cudnn, v);
    const AttentionData* b = find_attention_data("b200", AttentionKernel::Cudnn, v);
    REQUIRE(g != nullptr);
    CHECK(g != b);
    CHECK(g->peak_flops == b->peak_flops);
    CHECK(g->from == b->from);
    CHECK(g->at(8192, 128).forward_tflops == b->at(8192, 128).forward_tflops);
    CHECK(g->sustained == Approx(0.829));
    CHECK(b->sustained == Approx(0.853));
  }
  CHECK(find_attention_data("gb200", AttentionKernel::Flash2) == nullptr);
}

TEST_CASE("kernel data: GB300 has its own cuDNN curves, 9.13 and 9.22",
          "[kernel_data][attention][gb300]") {
  const AttentionData* newest = find_attention_data("gb300", AttentionKernel::Cudnn);
  const AttentionData* gb300 =
      find_attention_data("gb300", AttentionKernel::Cudnn, CudnnVersion{9, 13});
  REQUIRE(gb300 != nullptr);
  REQUIRE(newest != nullptr);
  CHECK(gb300 != find_attention_data("b200", AttentionKernel::Cudnn));
  // 9.13's prices releases before 9.17, 9.22's (its own benchmark) 9.17 on and a run that names
  // none: the same release as GB200's then.
  CHECK(find_attention_data("gb300", AttentionKernel::Cudnn, CudnnVersion{9, 0}) == gb300);
  CHECK(find_attention_data("gb300", AttentionKernel::Cudnn, CudnnVersion{9, 16}) == gb300);
  CHECK(find_attention_data("gb300", AttentionKernel::Cudnn, CudnnVersion{9, 17}) == newest);
  CHECK(find_attention_data("gb300", AttentionKernel::Cudnn, CudnnVersion{9, 22}) == newest);
  CHECK(newest->from == find_attention_data("gb200", AttentionKernel::Cudnn)->from);
  CHECK(gb300->peak_flops == 2.5e15);
  CHECK(gb300->sms == 160);
  CHECK(newest->sms == 160);
  // 8k (kernel_data.cpp): forward 1,495.7 measured at 128 heads (x = 8192 / 160 = 51.2 tiles per
  // SM) over the charts' 2,048 tiles (12.8 per SM): (51.2 / 52.9) / (12.8 / 14.5) = 1.0964, so
  // 1,495.7 / 1.0964 = 1,364; backward 1,130.1, so forward + backward 3.5 / (1 / 1,364 + 2.5 /
  // 1,130.1) = 1,188.
  CHECK(gb300->at(8192, 128).forward_tflops == Approx(1364));
  CHECK(gb300->at(8192, 128).backward_tflops == Approx(1130.1).epsilon(2e-3));
  // 9.22 at 8k: forward 1,856 measured at batch 2 × 64 heads (51.2 tiles per SM as well), ÷
  // 1.0964 = 1,692.8, × the Hopper route's 0.98 = 1,659; forward + backward 3.5 / (1 / 1,692.8 +
  // 2.5 / 1,435) = 1,500.3, × 0.94 = 1,410; so backward 2.5 / (3.5 / 1,410 − 1 / 1,659) = 1,330.
  CHECK(newest->at(8192, 128).forward_tflops == Approx(1659));
  CHECK(newest->at(8192, 128).backward_tflops == Approx(1330.1).epsilon(1e-3));
  // GB300's 9.22 runs faster than GB200's 9.22 (Blackwell Ultra's exponential throughput, 160
  // SMs): forward 1,659 against 1,412 at 8k.
  CHECK(newest->at(8192, 128).forward_tflops >
        1.15 * find_attention_data("gb200", AttentionKernel::Cudnn)->at(8192, 128).forward_tflops);
  // Blackwell Ultra's attention runs faster than Blackwell's at the same release: 9.13 on a B200
  // forward 1,075 at 8k.
  const AttentionData* b200 =
      find_attention_data("b200", AttentionKernel::Cudnn, CudnnVersion{9, 13});
  CHECK(gb300->at(8192, 128).forward_tflops > 1.2 * b200->at(8192, 128).forward_tflops);
  // At its power limit: its GEMMs' long-over-short share (constants.h), not B200's.
  CHECK(gb300->sustained == Approx(0.910));
  // FP8 attention before cuDNN 9.17: GB300's own 9.13 fp8-over-bf16 times (8k: forward 0.827,
  // backward 0.760), B200's elsewhere (0.921, 0.793).
  const CudnnVersion v913{9, 13};
  CHECK(cudnn_fp8_attention_time_ratio(false, 8192, "gb300", v913) == Approx(0.827));
  CHECK(cudnn_fp8_attention_time_ratio(true, 8192, "gb300", v913) == Approx(0.760));
  CHECK(cudnn_fp8_attention_time_ratio(false, 8192, "gb200", v913) == Approx(0.921));
}

TEST_CASE("kernel data: B300 runs GB300's cuDNN curves at its own power limit",
          "[kernel_data][attention][b300]") {
  for (const CudnnVersion v : {CudnnVersion{9, 13}, CudnnVersion{9, 22}}) {
    const AttentionData* b300 = find_attention_data("b300", AttentionKernel::Cudnn, v);
    const AttentionData* gb300 = find_attention_data("gb300", AttentionKernel::Cudnn, v);
    REQUIRE(b300 != nullptr);
    REQUIRE(gb300 != nullptr);
    CHECK(std::string(b300->gpu) == "b300");
    // The same chip's figures, the same release boundaries (9.13's before 9.17, 9.22's on).
    CHECK(b300->at(8192, 128).forward_tflops == gb300->at(8192, 128).forward_tflops);
    CHECK(b300->from == gb300->from);
    CHECK(b300->peak_flops == 2.5e15);  // GB300's: the model scales by B300's 2.25 apart
    // B300's long GEMMs' rate over the clock GB300's curves ran at: 1,437.8 / 1,916.7 = 0.750,
    // of which the peaks' 0.9 is applied apart: 0.834 (constants.h).
    CHECK(b300->sustained == Approx(0.750 / 0.9).epsilon(1e-3));
    CHECK(b300->sustained * 2.25e15 / b300->peak_flops <
          gb300->sustained);  // slower than GB300 at its 1,400 W
    CHECK_FALSE(b300->sustained_measured);
    CHECK(std::string(b300->source).find("standing in on B300") != std::string::npos);
  }
  CHECK(find_attention_data("b300", AttentionKernel::Flash2) == nullptr);
  // FP8 attention: GB300's own FP8-over-bf16 times, at every release.
  CHECK(std::string(cudnn_fp8_attention_measured_on("b300")) == "GB300");
  CHECK(std::string(cudnn_fp8_attention_measured_on("b300", CudnnVersion{9, 13})) == "GB300");
  CHECK(cudnn_fp8_attention_time_ratio(true, 8192, "b300", CudnnVersion{9, 13}) == Approx(0.760));
  CHECK(cudnn_fp8_attention_time_ratio(true, 8192, "b300") ==
        cudnn_fp8_attention_time_ratio(true, 8192, "gb300"));
}

TEST_CASE("kernel data: cuDNN by release (training.cudnn_version)",
          "[kernel_data][attention][b200][cudnn]") {
  const AttentionData* newest = find_attention_data("b200", AttentionKernel::Cudnn);
  const AttentionData* v913 =
      find_attention_data("b200", AttentionKernel::Cudnn, CudnnVersion{9, 13});
  REQUIRE(newest != nullptr);
  REQUIRE(v913 != nullptr);
  // Without a release: the newest measured (the GB200 benchmark, from 9.17 on).
  CHECK(newest->from == CudnnVersion{9, 17});
  CHECK(v913 != newest);
  // 9.13.1 on a B200 itself (peak 2.25 PFLOP/s, no scaling): at 8k, forward 1,171.3 measured at
  // 128 heads, ÷ 1.0894 for that launch's parallelism = 1,075; backward 942.5, so forward +
  // backward 3.5 / (1 / 1,075 + 2.5 / 942.5) = 977 (kernel_data.cpp).
  CHECK(v913->peak_flops == 2.25e15);
  CHECK(v913->at(8192, 128).forward_tflops == Approx(1075));
  CHECK(v913->at(8192, 128).backward_tflops == Approx(942.5).epsilon(2e-3));
  // The newest at or before the release: 9.16 still 9.13's, 9.17 and later the newest; an older
  // release than any measured (9.9, the MLPerf v5.0 containers') takes the oldest.
  CHECK(find_attention_data("b200", AttentionKernel::Cudnn, CudnnVersion{9, 16}) == v913);
  CHECK(find_attention_data("b200", AttentionKernel::Cudnn, CudnnVersion{9, 9}) == v913);
  CHECK(find_attention_data("b200", AttentionKernel::Cudnn, CudnnVersion{9, 17}) == newest);
  CHECK(find_attention_data("b200", AttentionKernel::Cudnn, CudnnVersion{10, 0}) == newest);
  // 9.13 runs slower than the newest at 8k (the B200 curve against the GB200 one scaled by the
  // peaks, 2.25 / 2.5): forward 1,075 against 0.9 × 1,412 = 1,271.
  CHECK(v913->at(8192, 128).forward_tflops < newest->at(8192, 128).forward_tflops * 2.25 / 2.5);
}

TEST_CASE("kernel data: cuDNN 9.1 and 9.4 on Hopper, as NVIDIA's H200 benchmark sets them",
          "[kernel_data][attention][cudnn]") {
  auto at = [](int major, int minor) {
    return find_attention_data("h200", AttentionKernel::Cudnn, CudnnVersion{major, minor});
  };
  const AttentionData* v919 = find_attention_data("h100-sxm", AttentionKernel::Cudnn);
  REQUIRE(v919 != nullptr);
  CHECK(v919->from == CudnnVersion{9, 19});
  // Releases from 9.4 to 9.18 take 9.4's; older ones (9.0, NGC 24.02's) 9.1's; 9.19 on the
  // measured curve.
  CHECK(at(9, 19) == v919);
  CHECK(at(9, 7) == at(9, 4));
  CHECK(at(9, 18) == at(9, 4));
  CHECK(at(9, 0) == at(9, 3));
  CHECK(at(9, 0) != at(9, 4));
  CHECK(at(9, 4) != v919);
  // 8k tokens, head dim 128: the backward at 0.857 (9.1) and 0.854 (9.4) of 9.19's, the forward
  // at 0.936 and 1.055 (kernel_data.cpp). 9.19's backward there: 3.5 / 496 − 1 / 555 per forward
  // FLOP, 2.5 / (0.0070565 − 0.0018018) = 475.8.
  const double b919 = v919->at(8192, 128).backward_tflops;
  CHECK(b919 == Approx(475.8).epsilon(2e-3));
  CHECK(at(9, 1)->at(8192, 128).backward_tflops == Approx(0.857 * b919).epsilon(5e-3));
  CHECK(at(9, 4)->at(8192, 128).backward_tflops == Approx(0.854 * b919).epsilon(5e-3));
  CHECK(at(9, 1)->at(8192, 128).forward_tflops == Approx(0.936 * 555).epsilon(5e-3));
  CHECK(at(9, 4)->at(8192, 128).forward_tflops == Approx(1.055 * 555).epsilon(5e-3));
}

}  // namespace trainsim

TEST_CASE("kernel data: cuDNN's FP8 attention on B200 by sequence length", "[kernel_data][fp8]") {
  using trainsim::CudnnVersion;
  const CudnnVersion v913{9, 13};
  // NVIDIA's benchmark of both precisions in one run of cuDNN 9.13.1 (kernel_data.cpp): at 8,192
  // tokens the FP8 forward took 1.464 ms against 1.589, the backward 4.382 against 5.526.
  CHECK(trainsim::cudnn_fp8_attention_time_ratio(false, 8192, "b200", v913) ==
        Approx(1.464 / 1.589).epsilon(1e-3));
  CHECK(trainsim::cudnn_fp8_attention_time_ratio(true, 8192, "b200", v913) ==
        Approx(4.382 / 5.526).epsilon(1e-3));
  // Linear in log₂ of the length between the measured ones: 16,384 and 32,768 tokens' backward
  // 0.784 and 0.746, so 0.765 halfway (23,170 tokens).
  CHECK(
      trainsim::cudnn_fp8_attention_time_ratio(true, std::sqrt(16384.0 * 32768.0), "b200", v913) ==
      Approx((0.784 + 0.746) / 2).epsilon(1e-3));
  // Held at the ends: short sequences slower in FP8 (512 tokens: 1.257 forward).
  CHECK(trainsim::cudnn_fp8_attention_time_ratio(false, 128, "b200", v913) == Approx(1.257));
  CHECK(trainsim::cudnn_fp8_attention_time_ratio(false, 1 << 20, "b200", v913) == Approx(0.777));
  // Any release before 9.17 reads 9.13's figures.
  CHECK(trainsim::cudnn_fp8_attention_time_ratio(false, 8192, "b200", CudnnVersion{9, 9}) ==
        trainsim::cudnn_fp8_attention_time_ratio(false, 8192, "b200", v913));
}

TEST_CASE("kernel data: heads over 128 at DeepSeek-V3's measured rate where the run timed them",
          "[kernel_data][attention]") {
  using trainsim::AttentionKernel;
  using trainsim::CudnnVersion;
  using trainsim::find_attention_data;
  // cuDNN 9.22's benchmark on a GB200 (the b200, gb200 curves from 9.17): DeepSeek-V3's heads
  // (192 / 128) ran the backward at 1,057 TFLOP/s against Llama's 1,148 at 4,096 tokens, 1,134
  // against 1,328 at 16,384.
  for (const char* gpu : {"b200", "gb200"}) {
    const trainsim::AttentionData* d = find_attention_data(gpu, AttentionKernel::Cudnn);
    REQUIRE(d != nullptr);
    CHECK(d->at(4096, 192).backward_tflops ==
          Approx(d->at(4096, 128).backward_tflops * 1057 / 1148).epsilon(2e-3));
    CHECK(d->at(16384, 192).backward_tflops ==
          Approx(d->at(16384, 128).backward_tflops * 1134 / 1328).epsilon(2e-3));
    // Its forward, carried to the charts' launch (128 heads against 64: x / (x + 1.7) at
    // x = 2 · heads · 32 / 148 tiles per SM, 27.68 and 55.35), 1,406 / 1,408 · (27.68 / 29.38) /
    // (55.35 / 57.05).
    const double fl = 27.68 / 29.38, fd = 55.35 / 57.05;
    CHECK(d->at(4096, 192).forward_tflops ==
          Approx(d->at(4096, 128).forward_tflops * 1406 / 1408 * fl / fd).epsilon(3e-3));
    CHECK_THAT(d->head_dim_note(192), Catch::Contains("DeepSeek-V3"));
  }
  // GB300's own: 1,143 against 1,248 at 4,096 tokens.
  const trainsim::AttentionData* gb300 = find_attention_data("gb300", AttentionKernel::Cudnn);
  CHECK(gb300->at(4096, 192).backward_tflops ==
        Approx(gb300->at(4096, 128).backward_tflops * 1143 / 1248).epsilon(2e-3));
  // Held past 32K (1,076 / 1,226 on a GB200); no such timing with 9.13's run: head dim 128's rate.
  const trainsim::AttentionData* b200 = find_attention_data("b200", AttentionKernel::Cudnn);
  CHECK(b200->at(1 << 17, 192).backward_tflops ==
        Approx(b200->at(1 << 17, 128).backward_tflops * 1076 / 1226).epsilon(2e-3));
  const trainsim::AttentionData* v913 =
      find_attention_data("b200", AttentionKernel::Cudnn, CudnnVersion{9, 13});
  CHECK(v913->at(4096, 192).backward_tflops == v913->at(4096, 128).backward_tflops);
  CHECK(v913->head_dim_note(192).empty());
}

TEST_CASE("kernel data: cuDNN 9.22's FP8 and MXFP8 attention by GPU, length and heads",
          "[kernel_data][fp8]") {
  using trainsim::CudnnVersion;
  using trainsim::Fp8AttentionScaling;
  using trainsim::Fp8Recipe;
  const CudnnVersion v921{9, 21};
  const auto ratio = [&](bool backward, double seq, const char* gpu, Fp8AttentionScaling s,
                         double head_dim, std::optional<CudnnVersion> v) {
    return trainsim::cudnn_fp8_attention_time_ratio(backward, seq, gpu, v, s, head_dim);
  };
  const auto per_tensor = Fp8AttentionScaling::PerTensor, mxfp8 = Fp8AttentionScaling::Mxfp8;
  // NVIDIA's benchmark of cuDNN 9.22 (commit 3929da2), each precision in the same run, causal,
  // batch 2. Llama 3.1's heads on a GB300 at 8,192 tokens: FP8 forward 0.759 ms, MXFP8 0.856,
  // bf16 1.185; backward 3.087, 3.917 and 3.832.
  CHECK(ratio(false, 8192, "gb300", per_tensor, 128, v921) == Approx(0.759 / 1.185).epsilon(2e-3));
  CHECK(ratio(true, 8192, "gb300", per_tensor, 128, v921) == Approx(3.087 / 3.832).epsilon(2e-3));
  CHECK(ratio(false, 8192, "gb300", mxfp8, 128, v921) == Approx(0.856 / 1.185).epsilon(2e-3));
  // MXFP8's backward at 8K no faster than bf16's there.
  CHECK(ratio(true, 8192, "gb300", mxfp8, 128, v921) == Approx(3.917 / 3.832).epsilon(2e-3));
  // A B200 reads the GB200's run (the same chip; its bf16 curve is GB200's from 9.17 too):
  // forward 1.074 ms against 1.397, and so does no release at all (the newest).
  CHECK(ratio(false, 8192, "b200", per_tensor, 128, v921) == Approx(1.074 / 1.397).epsilon(2e-3));
  CHECK(ratio(false, 8192, "b200", per_tensor, 128, std::nullopt) ==
        ratio(false, 8192, "gb200", per_tensor, 128, CudnnVersion{9, 17}));
  CHECK(std::string(trainsim::cudnn_fp8_attention_measured_on("b200")) == "GB200");
  CHECK(std::string(trainsim::cudnn_fp8_attention_measured_on("b200", CudnnVersion{9, 13})) ==
        "B200");
  // DeepSeek-V3's heads (query-key 192, value 128) on a GB200 at 4,096 tokens: MXFP8 forward
  // 0.714 ms against 0.977, backward 2.620 against 3.383: a larger gain than Llama's heads get.
  CHECK(ratio(false, 4096, "gb200", mxfp8, 192, v921) == Approx(0.714 / 0.977).epsilon(2e-3));
  CHECK(ratio(true, 4096, "gb200", mxfp8, 192, v921) == Approx(2.620 / 3.383).epsilon(2e-3));
  CHECK(ratio(true, 4096, "gb200", mxfp8, 192, v921) <
        ratio(true, 4096, "gb200", mxfp8, 128, v921));
  // Linear in log₂ of the length, held past 2,048 and 32,768 tokens: GB300's FP8 forward
  // 0.641 at 8K and 0.627 at 16K, so 0.634 at 11,585 tokens; 0.700 at 1,024 as at 2,048.
  CHECK(ratio(false, std::sqrt(8192.0 * 16384.0), "gb300", per_tensor, 128, v921) ==
        Approx((0.641 + 0.627) / 2).epsilon(1e-3));
  CHECK(ratio(false, 1024, "gb300", per_tensor, 128, v921) == Approx(0.700));
  CHECK(ratio(true, 1 << 17, "gb300", per_tensor, 128, v921) == Approx(0.700));
  // MXFP8 attention only under the MXFP8 recipe and from cuDNN 9.21 on (Transformer Engine 2.15).
  CHECK(trainsim::fp8_attention_scaling(Fp8Recipe::Mxfp8, v921) == mxfp8);
  CHECK(trainsim::fp8_attention_scaling(Fp8Recipe::Mxfp8, std::nullopt) == mxfp8);
  CHECK(trainsim::fp8_attention_scaling(Fp8Recipe::Mxfp8, CudnnVersion{9, 20}) == per_tensor);
  CHECK(trainsim::fp8_attention_scaling(Fp8Recipe::Nvfp4, v921) == per_tensor);
  CHECK(trainsim::fp8_attention_scaling(Fp8Recipe::Delayed, v921) == per_tensor);
  // The durations line names what it read.
  CHECK(trainsim::cudnn_fp8_attention_source("gb200", v921, mxfp8, 192) ==
        "cuDNN 9.22 on a GB200, MXFP8, DeepSeek-V3's heads");
  CHECK(trainsim::cudnn_fp8_attention_source("b200", CudnnVersion{9, 13}, per_tensor, 128) ==
        "cuDNN 9.13 on a B200");
}
