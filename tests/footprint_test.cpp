#include "memory/footprint.h"

#include <catch2/catch.hpp>

#include "report/step_report.h"
#include "scenario/partition.h"
#include "test_util.h"

using namespace trainsim;

namespace {
const ModelSpec& llama8b() {
  return *find_model_preset("llama-3.1-8b");
}
}  // namespace

TEST_CASE("footprint: Llama-3.1-8B layer activations are Korthikanti's 34·s·b·h bytes",
          "[footprint]") {
  // h = 4096, k·d = 8·128 = 1024, f = 14336: 6h + 2kd + 3f = 69,632 = 17h elements per token
  // in 16-bit, 34·n·h bytes; plus FlashAttention's fp32 statistics, 4 bytes × 32 heads.
  const std::int64_t n = 4096;
  const double h = 4096;
  CHECK(layer_activation_bytes(llama8b(), n, 1, false, Recompute::None) ==
        Approx(34 * n * h + 4.0 * n * 32));
  // TP 2 without SP: the 4h of norm inputs/outputs stay whole, the other 13h halve:
  // 2n·(4h + 13h/2) + 4n·32/2.
  CHECK(layer_activation_bytes(llama8b(), n, 2, false, Recompute::None) ==
        Approx(2.0 * n * (4 * h + 13 * h / 2) + 2.0 * n * 32));
  // TP 2 with SP: everything halves.
  CHECK(layer_activation_bytes(llama8b(), n, 2, true, Recompute::None) ==
        Approx((34 * n * h + 4.0 * n * 32) / 2));
  // Full recompute keeps the layer input only, 2n·h (/ t with SP).
  CHECK(layer_activation_bytes(llama8b(), n, 1, false, Recompute::Full) == Approx(2.0 * n * h));
  CHECK(layer_activation_bytes(llama8b(), n, 4, true, Recompute::Full) == Approx(2.0 * n * h / 4));
}

TEST_CASE("footprint: the FP8 activation store keeps SwiGLU's input at a byte an element",
          "[footprint][fp8]") {
  // Llama-3.1-8B's SwiGLU input is the gate and up projections' output, 2f = 28,672 wide: in
  // FP8 it keeps n·2f bytes less than in 16 bits (Megatron-core's
  // activation_func_fp8_input_store), over TP with or without SP (the MLP tensors are sharded).
  const std::int64_t n = 4096;
  const double f = 14336;
  for (const auto& [tp, sp] : {std::pair{1, false}, std::pair{2, false}, std::pair{4, true}}) {
    const double plain = layer_activation_bytes(llama8b(), n, tp, sp, Recompute::None);
    const double stored = layer_activation_bytes(llama8b(), n, tp, sp, Recompute::None, false,
                                                 false, {.core_attn = false}, {}, false, {}, true);
    CHECK(plain - stored == Approx(n * 2 * f / tp));
  }
  // Selective recompute of the MLP keeps none of its tensors: nothing left to store.
  const RecomputeModules mlp{.core_attn = false, .mlp = true};
  CHECK(layer_activation_bytes(llama8b(), n, 1, false, Recompute::Selective, false, false, mlp, {},
                               false, {}, true) ==
        Approx(layer_activation_bytes(llama8b(), n, 1, false, Recompute::Selective, false, false,
                                      mlp)));
}

TEST_CASE("footprint: recompute_layers keeps the input of N layers and everything of the rest",
          "[footprint]") {
  // Llama-3.1-8B, pp 4: stage 1 holds 8 layers. Full recompute of its first 3: 3 layers keep
  // 2n·h, the other 5 their 34·n·h + statistics (layer_activation_bytes without recompute).
  auto stage1 = [](const char* extra) {
    return stage_activation_bytes(
        test::yaml(std::string("model: llama-3.1-8b\ncluster: {gpu: h100-sxm, gpus_per_node: 8, "
                               "nodes: 1}\nparallelism: {pp: 4, dp: 2}\ntraining: {seq_len: "
                               "4096, global_batch_size: 64") +
                   extra + "}\n"),
        1);
  };
  const std::int64_t n = 4096;
  const double full = layer_activation_bytes(llama8b(), n, 1, false, Recompute::Full);
  const double none = layer_activation_bytes(llama8b(), n, 1, false, Recompute::None);
  CHECK(stage1(", recompute: full, recompute_layers: 3") == Approx(3 * full + 5 * none));
  CHECK(stage1(", recompute: full") == Approx(8 * full));
  CHECK(stage1(", recompute: full, recompute_layers: 20") == Approx(8 * full));
  CHECK(stage1("") == Approx(8 * none));
}

TEST_CASE("footprint: the last stage adds the LM head input and fp32 logits", "[footprint]") {
  const Scenario s = test::yaml(
      "model: llama-3.1-8b\ncluster: {gpu: h100-sxm, gpus_per_node: 8, nodes: 1}\n"
      "parallelism: {pp: 4, dp: 2}\ntraining: {seq_len: 4096, global_batch_size: 64}\n");
  const double layer = layer_activation_bytes(llama8b(), 4096, 1, false, Recompute::None);
  // 32 layers over 4 stages: 8 each. Stage 3 also holds 2·n·h (final norm) + 4·n·V (logits).
  CHECK(stage_activation_bytes(s, 0) == Approx(8 * layer));
  CHECK(stage_activation_bytes(s, 3) ==
        Approx(8 * layer + 2.0 * 4096 * 4096 + 4.0 * 4096 * 128256));
}

TEST_CASE("footprint: eager SwiGLU and RMSNorm keep what PyTorch's autograd saves for them",
          "[footprint]") {
  // Llama-3.1-8B, n = 4096, t = 1: 34·n·h bytes fused (above). An eager SwiGLU keeps silu's
  // output too: one f-wide 16-bit tensor, 2n·f more. An eager RMSNorm keeps its fp32 input (two
  // words) and its normalized 16-bit value (one) where a fused one keeps its 16-bit input: two
  // words more per norm, 2 norms a layer: 2n·4h more. Under LoRA (frozen norms: no normalized
  // value for a weight gradient) one word per norm: 2n·2h.
  const std::int64_t n = 4096;
  const double h = 4096, f = 14336, fused = 34 * n * h + 4.0 * n * 32;
  auto with = [&](EagerOps e, LoraTargets lora = {}) {
    return layer_activation_bytes(llama8b(), n, 1, false, Recompute::None, false, false,
                                  {.core_attn = false}, lora, false, e);
  };
  CHECK(with({}) == Approx(fused));
  CHECK(with({.swiglu = true}) == Approx(fused + 2.0 * n * f));
  CHECK(with({.norm = true}) == Approx(fused + 2.0 * n * 4 * h));
  CHECK(with({.norm = true}, {.qkv = true}) - with({}, {.qkv = true}) == Approx(2.0 * n * 2 * h));
  // TP 2 with SP: the extras halve with the rest.
  CHECK(layer_activation_bytes(llama8b(), n, 2, true, Recompute::None, false, false,
                               {.core_attn = false}, {}, false, {.norm = true, .swiglu = true}) ==
        Approx((fused + 2.0 * n * (f + 4 * h)) / 2));
  // A GELU MLP keeps the same eager or fused (gelu saves its input, the down projection its
  // output); PyTorch's LayerNorm is one kernel either way.
  ModelSpec gelu = llama8b();
  gelu.mlp = MlpKind::GeLU;
  gelu.norm = NormKind::LayerNorm;
  CHECK(layer_activation_bytes(gelu, n, 1, false, Recompute::None, false, false,
                               {.core_attn = false}, {}, false, {.norm = true, .swiglu = true}) ==
        Approx(layer_activation_bytes(gelu, n, 1, false, Recompute::None)));
  // Selective recompute of the MLP drops silu's output with the rest of it.
  CHECK(layer_activation_bytes(llama8b(), n, 1, false, Recompute::Selective, false, false,
                               {.mlp = true}, {}, false, {.swiglu = true}) ==
        Approx(layer_activation_bytes(llama8b(), n, 1, false, Recompute::Selective, false, false,
                                      {.mlp = true})));
  // A scenario's runtime: eager (norm, SwiGLU and rotary embeddings op by op) keeps both.
  const Scenario eager = test::yaml(
      "model: llama-3.1-8b\ncluster: {gpu: h100-sxm, gpus_per_node: 8, nodes: 1}\n"
      "parallelism: {pp: 4, dp: 2}\ntraining: {seq_len: 4096, global_batch_size: 64, "
      "runtime: eager}\n");
  CHECK(stage_activation_bytes(eager, 1) == Approx(8 * (fused + 2.0 * n * (f + 4 * h))));
}

TEST_CASE(
    "footprint: the unfused loss holds its 16-bit logits and their upcast beside the kept "
    "fp32 ones",
    "[footprint]") {
  // Llama-3.1-8B, pp 4, 4,096 tokens a micro-batch: on the head's stage (3) the 16-bit logits
  // and their fp32 upcast, (2 + 4)·n·V = 6 · 4096 · 128256 bytes, for the instant the loss runs
  // (the fp32 tensor it keeps is an activation); vocabulary-parallel under TP (/ t); none fused,
  // none on another stage.
  const std::string base =
      "model: llama-3.1-8b\ncluster: {gpu: h100-sxm, gpus_per_node: 8, nodes: 1}\n"
      "parallelism: {pp: 4, dp: 2";
  const Scenario s = test::yaml(base + "}\ntraining: {seq_len: 4096, global_batch_size: 64}\n");
  CHECK(loss_transient_bytes(s, 3) == Approx(6.0 * 4096 * 128256));
  CHECK(loss_transient_bytes(s, 0) == 0);
  CHECK(loss_transient_bytes(s, 2) == 0);
  const Scenario tp2 = test::yaml(
      "model: llama-3.1-8b\ncluster: {gpu: h100-sxm, gpus_per_node: 8, nodes: 1}\n"
      "parallelism: {pp: 4, tp: 2}\ntraining: {seq_len: 4096, global_batch_size: 64, "
      "micro_batch_size: 2}\n");
  CHECK(loss_transient_bytes(tp2, 3) == Approx(6.0 * 8192 * 128256 / 2));
  const Scenario fused =
      test::yaml(base + "}\ntraining: {seq_len: 4096, global_batch_size: 64, fused_loss: true}\n");
  CHECK(loss_transient_bytes(fused, 3) == 0);
  // No upcast (unfused_loss: pytorch-16bit): the 16-bit logits beside the 16-bit
  // log-probabilities the loss keeps, 2 · 4096 · 128256 bytes.
  const Scenario half = test::yaml(
      base + "}\ntraining: {seq_len: 4096, global_batch_size: 64, unfused_loss: pytorch-16bit}\n");
  CHECK(loss_transient_bytes(half, 3) == Approx(2.0 * 4096 * 128256));
  // Megatron's vocab_parallel_cross_entropy (vocab-parallel) works in place on its upcast, the
  // fp32 tensor it keeps: only the 16-bit logits beside it, 2 · 4096 · 128256 bytes; nanotron's
  // subtracts into a new tensor beside the upcast: 6 bytes a logit, as PyTorch's.
  const Scenario megatron = test::yaml(
      base + "}\ntraining: {seq_len: 4096, global_batch_size: 64, unfused_loss: vocab-parallel}\n");
  CHECK(loss_transient_bytes(megatron, 3) == Approx(2.0 * 4096 * 128256));
  const Scenario nanotron = test::yaml(
      base + "}\ntraining: {seq_len: 4096, global_batch_size: 64, unfused_loss: nanotron}\n");
  CHECK(loss_transient_bytes(nanotron, 3) == Approx(6.0 * 4096 * 128256));
  // Both keep the fp32 softmax, as PyTorch's log-probabilities.
  CHECK(stage_activation_bytes(megatron, 3) == Approx(stage_activation_bytes(s, 3)));
  CHECK(stage_activation_bytes(nanotron, 3) == Approx(stage_activation_bytes(s, 3)));
}

TEST_CASE("footprint: fp8 keeps the linear GEMMs' inputs in 1 byte and an FP8 copy of weights",
          "[footprint][fp8]") {
  // Llama-3.1-8B, n = 4096, t = 1: the two norm outputs (2h), the attention output (a·d = h)
  // and the down projection's input (f = 14336) kept at 1 byte instead of 2: n·(3h + f) less.
  const std::int64_t n = 4096;
  const double h = 4096, f = 14336;
  CHECK(layer_activation_bytes(llama8b(), n, 1, false, Recompute::None, false, true) ==
        Approx(34 * n * h + 4.0 * n * 32 - n * (3 * h + f)));
  // TP 2 with SP: all of it halves.
  CHECK(layer_activation_bytes(llama8b(), n, 2, true, Recompute::None, false, true) ==
        Approx((34 * n * h + 4.0 * n * 32 - n * (3 * h + f)) / 2));
  // Weights: 2 bytes (row- and column-wise FP8) per linear parameter, the embedding excluded;
  // stage 0 of pp 2 holds 16 layers and the embedding. Counted in buffers.
  auto stage0 = [](const char* precision) {
    const Scenario s = test::yaml(fmt::format(
        "model: llama-3.1-8b\ncluster: {{gpu: h100-sxm, gpus_per_node: 8, nodes: 1}}\n"
        "parallelism: {{pp: 2, dp: 4}}\ntraining: {{seq_len: 4096, global_batch_size: 64, "
        "precision: {}}}\n",
        precision));
    const int stages[] = {0};
    return static_memory(s, stages);
  };
  const StaticMemory fp8 = stage0("fp8"), bf16 = stage0("bf16");
  const double linear = 16.0 * llama8b().layer_params(0, 1);  // norms (2h each) included
  CHECK(fp8.fp8_weights == Approx(2 * linear));
  CHECK(fp8.buffers - bf16.buffers == Approx(2 * linear));
  CHECK(bf16.fp8_weights == 0);
}

TEST_CASE("footprint: MXFP8 keeps both FP8 layouts of each weight, on Blackwell too",
          "[footprint][fp8][mxfp8]") {
  // Llama-3.1-8B, stage 0 of pp 2 (16 layers and the embedding) on B200. Per-tensor FP8 on
  // Blackwell keeps one FP8 copy of each linear weight (its GEMMs take either layout): 1 byte;
  // MXFP8's blocks run along the reduction, which the forward and the input gradient take on
  // different axes, so both layouts stay: 2 bytes (the E8M0 scales, 1/32 byte each, left out).
  auto stage0 = [](const char* recipe, bool fp8_params) {
    const Scenario s = test::yaml(fmt::format(
        "model: llama-3.1-8b\ncluster: {{gpu: b200, gpus_per_node: 8, nodes: 1}}\n"
        "parallelism: {{pp: 2, dp: 4}}\ntraining: {{seq_len: 4096, global_batch_size: 64, "
        "precision: fp8, fp8_recipe: {}, fp8_params: {}}}\n",
        recipe, fp8_params));
    const int stages[] = {0};
    return static_memory(s, stages);
  };
  const double linear = 16.0 * llama8b().layer_params(0, 1);
  CHECK(stage0("delayed", false).fp8_weights == Approx(linear));
  CHECK(stage0("mxfp8", false).fp8_weights == Approx(2 * linear));
  // FP8 parameters hold both too (the transpose cache is Hopper's Float8Tensor knob).
  CHECK(stage0("mxfp8", true).fp8_weights == Approx(2 * linear));
  // NVFP4: both layouts at half a byte and an E4M3 scale per 16 values, 0.5625 bytes each.
  CHECK(stage0("nvfp4", false).fp8_weights == Approx(2 * 0.5625 * linear));
}

TEST_CASE("footprint: NVFP4 keeps the GEMM inputs at 0.5625 bytes an element",
          "[footprint][fp8][nvfp4]") {
  // Llama-3.1-8B, n = 4096, t = 1: FP8 keeps the norms' outputs (2h), the attention output (h)
  // and the down projection's input (f) at 1 byte, saving n·(3h + f); NVFP4 at 0.5 + 1/16,
  // saving 1.4375 times that.
  const std::int64_t n = 4096;
  const double h = 4096, f = 14336;
  const double bf16 = layer_activation_bytes(llama8b(), n, 1, false, Recompute::None);
  CHECK(layer_activation_bytes(llama8b(), n, 1, false, Recompute::None, false, 1.0) ==
        Approx(bf16 - n * (3 * h + f)));
  CHECK(layer_activation_bytes(llama8b(), n, 1, false, Recompute::None, false, 1.4375) ==
        Approx(bf16 - 1.4375 * n * (3 * h + f)));
}

TEST_CASE("footprint: FP8 parameters drop the layers' 16-bit weights, not the embedding's",
          "[footprint][fp8]") {
  // Llama-3.1-8B, stage 0 of pp 2: 16 layers and the embedding (128,256 × 4096). With
  // training.fp8_params the layers' weights live only in their FP8 copy (2 bytes: row- and
  // column-wise), so the 16-bit weights keep only the embedding: 2 bytes × 16 layer params less.
  auto stage0 = [](const char* fp8_params, int zero) {
    const Scenario s = test::yaml(fmt::format(
        "model: llama-3.1-8b\ncluster: {{gpu: h100-sxm, gpus_per_node: 8, nodes: 1}}\n"
        "parallelism: {{pp: 2, dp: 4, zero: {}}}\ntraining: {{seq_len: 4096, global_batch_size: "
        "64, precision: fp8, fp8_params: {}}}\n",
        zero, fp8_params));
    const int stages[] = {0};
    return static_memory(s, stages);
  };
  const double layers = 16.0 * llama8b().layer_params(0, 1);
  const double table = 128256.0 * 4096;
  const StaticMemory kept = stage0("false", 1), fp8 = stage0("true", 1);
  CHECK(kept.weights == Approx(2 * (layers + table)));
  CHECK(fp8.weights == Approx(2 * table));
  CHECK(fp8.fp8_weights == Approx(kept.fp8_weights));
  CHECK(kept.total() - fp8.total() == Approx(2 * layers));
  // ZeRO-3 shards both over the 4 DP ranks: a quarter of the saving.
  const StaticMemory kept3 = stage0("false", 3), fp83 = stage0("true", 3);
  CHECK(kept3.weights - fp83.weights == Approx(2 * layers / 4));
}

namespace {
// Stage 0's static memory of Llama-3.1-8B over pp 2 · dp 4 at ZeRO stage `zero` (8 H100s, 64
// sequences of 4,096 tokens), with `training` added to the training section.
StaticMemory pp2_dp4_stage0(int zero, const char* training) {
  const Scenario s = test::yaml(
      fmt::format("model: llama-3.1-8b\ncluster: {{gpu: h100-sxm, gpus_per_node: 8, nodes: 1}}\n"
                  "parallelism: {{pp: 2, dp: 4, zero: {}}}\ntraining: {{seq_len: 4096, "
                  "global_batch_size: 64{}}}\n",
                  zero, training));
  const int stages[] = {0};
  return static_memory(s, stages);
}
}  // namespace

TEST_CASE("footprint: ZeRO-Offload keeps the optimizer states in host memory",
          "[footprint][offload]") {
  // Stage 0 of pp 2, dp 4, ZeRO-2: weights 2Ψ, gradients 2Ψ/4 stay; the 12Ψ/4 of Adam go.
  const StaticMemory on = pp2_dp4_stage0(2, ", offload: optimizer"),
                     off = pp2_dp4_stage0(2, ", offload: none");
  CHECK(on.optimizer == 0);
  CHECK(off.optimizer == Approx(12 * off.parameters / 4));
  CHECK(on.weights == off.weights);
  CHECK(on.gradients == off.gradients);
}

TEST_CASE("footprint: plain SGD keeps no optimizer state", "[footprint][optimizer]") {
  // training.optimizer: sgd updates the 16-bit weights in place: no fp32 master weights, no
  // momentum or variance, so nothing where Adam keeps 12 bytes a parameter (ZeRO-1: a quarter
  // of them on each of the 4 DP ranks); weights and gradients as Adam's.
  const StaticMemory sgd = pp2_dp4_stage0(1, ", optimizer: sgd"), adam = pp2_dp4_stage0(1, "");
  CHECK(sgd.optimizer == 0);
  CHECK(adam.optimizer == Approx(12 * adam.parameters / 4));
  CHECK(sgd.weights == adam.weights);
  CHECK(sgd.gradients == adam.gradients);
}

TEST_CASE("footprint: PyTorch DDP's copied buckets hold every trained gradient again",
          "[footprint]") {
  // Stage 0 of pp 2, dp 4: Ψ parameters. Buffers are the 1.5 GB runtime and one 25 MB bucket;
  // with memory.dp_buckets copy under ZeRO 0 or 1, the runtime and a 16-bit copy of every
  // gradient, 2Ψ; ZeRO-2 and 3 shard their gradients outside DDP (one bucket again); dp 1 runs
  // no DDP (no bucket at all).
  auto stage0 = [](int zero, int dp, const char* buckets) {
    const Scenario s = test::yaml(
        fmt::format("model: llama-3.1-8b\ncluster: {{gpu: h100-sxm, gpus_per_node: {}, nodes: 1}}\n"
                    "parallelism: {{pp: 2, dp: {}, zero: {}}}\ntraining: {{seq_len: 4096, "
                    "global_batch_size: 64}}\nmemory: {{dp_buckets: {}}}\n",
                    2 * dp, dp, zero, buckets));
    const int stages[] = {0};
    return static_memory(s, stages);
  };
  for (int zero : {0, 1}) {
    const StaticMemory copy = stage0(zero, 4, "copy");
    CHECK(copy.buffers == Approx(1.5e9 + 2 * copy.parameters));
    CHECK(stage0(zero, 4, "view").buffers == Approx(1.5e9 + 25e6));
  }
  for (int zero : {2, 3}) CHECK(stage0(zero, 4, "copy").buffers == Approx(1.5e9 + 25e6));
  CHECK(stage0(0, 1, "copy").buffers == Approx(1.5e9));
}

TEST_CASE("footprint: static memory follows the ZeRO paper for ZeRO 0 to 3", "[footprint]") {
  // Ψ on stage 0 of pp 2 (16 layers + embedding), dp 4. Weights 2Ψ, grads 2Ψ, Adam 12Ψ;
  // ZeRO-1 shards the 12Ψ, ZeRO-2 also the grads, ZeRO-3 also the weights, each / N_d.
  for (int zero : {0, 1, 2, 3}) {
    const Scenario s = test::yaml(
        fmt::format("model: llama-3.1-8b\ncluster: {{gpu: h100-sxm, gpus_per_node: 8, nodes: 1}}\n"
                    "parallelism: {{pp: 2, dp: 4, zero: {}}}\ntraining: {{seq_len: 4096, "
                    "global_batch_size: 64}}\n",
                    zero));
    const double psi =
        static_cast<double>(stage_params(llama8b(), partition_layers(32, 2)[0], 1, 2));
    CHECK(psi == static_cast<double>(16 * llama8b().layer_params(0, 1) + 128256LL * 4096));
    const int stages[] = {0};
    const StaticMemory m = static_memory(s, stages);
    INFO("ZeRO-" << zero);
    CHECK(m.parameters == psi);
    CHECK(m.weights == Approx(2 * psi / (zero >= 3 ? 4 : 1)));
    CHECK(m.gradients == Approx(2 * psi / (zero >= 2 ? 4 : 1)));
    CHECK(m.optimizer == Approx(12 * psi / (zero >= 1 ? 4 : 1)));
  }
}

TEST_CASE("footprint: a tied head on the embedding's own GPU shares its table", "[footprint]") {
  // Llama-3.1-8B made tied, pp 2 · vpp 2 (4 chunks of 8 layers), tp 1. A GPU holding chunks 0
  // and 3 (a V-shaped schedule's rank 0) holds the embedding once: the head's table is the
  // same tensor, so stage_params' copy for chunk 3 (V·h) comes off. Holding chunks 0 and 1 (an
  // interleaved rank 0), nothing is counted twice. DualPipe's two pipelines are two copies of
  // the model: its rank 0's head is the other copy's, kept.
  const Scenario s = test::yaml(R"(model: {preset: llama-3.1-8b, tied_embeddings: true}
cluster: {gpu: h100-sxm, gpus_per_node: 8, nodes: 1}
parallelism: {pp: 2, vpp: 2, dp: 4}
training: {seq_len: 4096, global_batch_size: 8}
)");
  ModelSpec m = llama8b();
  m.tied_embeddings = true;
  const auto parts = partition_layers(32, 4);
  const double table = 128256.0 * 4096;
  const double p0 = static_cast<double>(stage_params(m, parts[0], 1, 4)),
               p1 = static_cast<double>(stage_params(m, parts[1], 1, 4)),
               p3 = static_cast<double>(stage_params(m, parts[3], 1, 4));
  CHECK(p3 == Approx(p1 + table));  // the copy stage_params keeps for the head
  const int v[] = {0, 3}, looped[] = {0, 1};
  CHECK(tied_table_counted_twice(m, parts, v, 1) == 128256LL * 4096);
  CHECK(tied_table_counted_twice(m, parts, looped, 1) == 0);
  CHECK(static_memory(s, v).parameters == Approx(p0 + p3 - table));
  CHECK(static_memory(s, looped).parameters == Approx(p0 + p1));
  CHECK(static_memory(s, v, 2).parameters == Approx(p0 + p3));
  m.tied_embeddings = false;
  CHECK(tied_table_counted_twice(m, parts, v, 1) == 0);
}

TEST_CASE("report: 1F1B's stage 0 peaks at p micro-batches of its activation bytes",
          "[footprint][report]") {
  const Scenario s = test::yaml(
      "model: llama-3.1-8b\ncluster: {gpu: h100-sxm, gpus_per_node: 8, nodes: 1}\n"
      "parallelism: {pp: 4, dp: 2}\ntraining: {seq_len: 4096, global_batch_size: 64}\n");
  const StepReport r = make_report(simulate(s, {"1f1b", true}));
  // Stage r holds p − r micro-batches; the last stage one (with the logits), and at its
  // forward's end the loss's instant (loss_transient_bytes, 0 on the other stages).
  CHECK(loss_transient_bytes(s, 0) == 0);
  for (int st = 0; st < 4; ++st)
    CHECK(r.stages[static_cast<std::size_t>(st)].peak_activation_bytes ==
          Approx((4 - st) * stage_activation_bytes(s, st) + loss_transient_bytes(s, st)));
}

TEST_CASE("footprint: unfused attention with dropout stores 5·a·s²·b bytes per layer",
          "[footprint][attention]") {
  // Korthikanti et al.'s 5·a·s/h term times s·b·h: 5·a·s²·b bytes (softmax output 2, dropout
  // mask 1, dropout output 2 per score), plus two 1-byte hidden-dropout masks, 2·s·b·h.
  ModelSpec m = llama8b();
  TrainingSpec tr;
  tr.seq_len = 2048;
  tr.micro_batch_size = 2;
  tr.attention = AttentionKernel::Unfused;
  tr.dropout = 0.1;
  const double a = m.heads, s = 2048, b = 2, h = m.hidden;
  CHECK(attention_extra_bytes(m, tr, 1, false, tr.recompute) ==
        Approx(5 * a * s * s * b + 2 * s * b * h));
  // TP splits the heads: the scores / t; without SP the hidden masks stay whole.
  CHECK(attention_extra_bytes(m, tr, 4, false, tr.recompute) ==
        Approx(5 * a * s * s * b / 4 + 2 * s * b * h));
  // Selective recompute recomputes the core: of the extras only the hidden-dropout masks, which
  // lie outside it, are stored.
  tr.recompute = Recompute::Selective;
  CHECK(attention_extra_bytes(m, tr, 1, false, tr.recompute) == Approx(2 * s * b * h));
  // Full recompute stores none of them.
  CHECK(attention_extra_bytes(m, tr, 1, false, Recompute::Full) == 0);
  // Unless its modules leave the attention core out.
  tr.recompute_modules = RecomputeModules{.core_attn = false, .mlp = true};
  CHECK(attention_extra_bytes(m, tr, 1, false, tr.recompute) ==
        Approx(5 * a * s * s * b + 2 * s * b * h));
  tr.recompute_modules.reset();
  // FlashAttention without dropout stores no scores.
  tr.recompute = Recompute::None;
  tr.attention = AttentionKernel::Flash2;
  tr.dropout = 0;
  CHECK(attention_extra_bytes(m, tr, 1, false, tr.recompute) == 0);
}

namespace {
// 4 layers of h 1024 and 8 heads (d 128), the first dense (f 4096), the others 8 experts of
// f_e 2048, top 2, a shared expert of 1024, at `capacity_factor`.
ModelSpec moe_model(double capacity_factor) {
  ModelSpec m;
  m.layers = 4;
  m.hidden = 1024;
  m.ffn_hidden = 4096;
  m.heads = 8;
  m.kv_heads = 8;
  m.vocab = 32000;
  m.moe = MoeSpec{8, 2, 2048, 1024, 1, capacity_factor};
  return m;
}
}  // namespace

TEST_CASE("footprint: past the key-value heads each TP rank keeps one head's K and V",
          "[footprint]") {
  // Llama-3.1-8B at tp 16 with SP: K and V are k·d = 1,024 elements a token over 8 heads; each
  // rank keeps one head's, 2 · 128 = 256 a token, not 2 · 1,024 / 16 = 128: 128 more 16-bit
  // elements a token than an even split (so 2 · 128 bytes a token more).
  const std::int64_t n = 4096;
  const double even = (34.0 * n * 4096 + 4.0 * n * 32) / 16;
  CHECK(layer_activation_bytes(llama8b(), n, 16, true, Recompute::None) ==
        Approx(even + 2.0 * n * 128));
  // At tp 8 one head a rank either way.
  CHECK(layer_activation_bytes(llama8b(), n, 8, true, Recompute::None) ==
        Approx((34.0 * n * 4096 + 4.0 * n * 32) / 8));
}

TEST_CASE(
    "footprint: a MoE layer keeps its routed copies and top_k experts' tensors, under SP the "
    "gathered tokens whole",
    "[footprint][moe]") {
  const ModelSpec m = moe_model(1);
  const std::int64_t n = 2048;
  const double h = 1024;
  // Per token, 16-bit words: norms 4h; routed copies and expert outputs 2·k·h = 4h; router
  // probabilities 2E = 16; Q, K, V, attention output 4h (d = 128, k = a); MLP tensors of 2
  // experts and the shared one 3·(2·2048 + 1024) = 15,360. Plus 4 bytes · a of statistics.
  const double words = 4 * h + 4 * h + 16 + 4 * h + 15360;
  CHECK(layer_activation_bytes(m, n, 1, false, Recompute::None, true) ==
        Approx(2.0 * n * words + 4.0 * n * 8));
  // The dense layer of the same model keeps the dense MLP's 3f = 12,288 instead.
  CHECK(layer_activation_bytes(m, n, 1, false, Recompute::None, false) ==
        Approx(2.0 * n * (4 * h + 4 * h + 12288) + 4.0 * n * 8));
  // Full recompute keeps only the layer input, MoE or not.
  CHECK(layer_activation_bytes(m, n, 1, false, Recompute::Full, true) == Approx(2.0 * n * h));
  // Stage parameters: 2 stages of 2 layers; stage 0 holds the dense layer 0, the MoE layer 1
  // and the embedding; together the two hold every parameter once.
  const auto parts = partition_layers(4, 2);
  const std::int64_t first = stage_params(m, parts[0], 1, 2),
                     second = stage_params(m, parts[1], 1, 2);
  CHECK(first ==
        2 * m.attention_params() + m.mlp_params(false) + m.mlp_params(true) + 32000LL * 1024);
  CHECK(first + second == m.total_params());
  // Under SP the experts keep the tokens gathered over TP whole: of the words above the routed
  // copy in expert order k·h = 2h is the experts' GEMM input, which at tp 2 with SP the
  // dispatcher all-gathers over the TP group: each rank keeps it whole (2h a token) and a half
  // of the rest; statistics over 2 ranks, 4 bytes · 8 heads / 2.
  CHECK(layer_activation_bytes(m, n, 2, true, Recompute::None, true) ==
        Approx(2.0 * n * ((words - 2 * h) / 2 + 2 * h) + 4.0 * n * 8 / 2));
  // Experts whole on each rank (etp 1) are sent this rank's n / 2 tokens alone: nothing is
  // kept whole, every word / 2.
  CHECK(layer_activation_bytes(m, n, 2, true, Recompute::None, true, 0, {.core_attn = false}, {},
                               false, {}, false,
                               true) == Approx(2.0 * n * words / 2 + 4.0 * n * 8 / 2));
  // Stage parameters at tp 2: the MoE layer's 8 experts (each 3 · 1024 · 2048 = 6.29 M) are
  // split over TP, or held whole with etp 1: 8 · 6.29 M / 2 = 25.2 M more per GPU.
  const std::int64_t routed = 8LL * 3 * 1024 * 2048;
  CHECK(stage_params(m, parts[0], 2, 2, 1, 1) - stage_params(m, parts[0], 2, 2) == routed / 2);
  CHECK(stage_expert_params(m, parts[0], 2, 1, 1) == routed);
  CHECK(stage_expert_params(m, parts[0], 2, 1) == routed / 2);
  CHECK(stage_layer_params(m, parts[0], 2, 1, 1) - stage_layer_params(m, parts[0], 2) ==
        routed / 2);
  // A dense layer, and the MoE layer at tp 1 with the flag on, have nothing gathered: / t.
  CHECK(layer_activation_bytes(m, n, 2, true, Recompute::None, false) ==
        Approx(2.0 * n * (4 * h + 4 * h + 12288) / 2 + 4.0 * n * 8 / 2));
  CHECK(layer_activation_bytes(m, n, 1, true, Recompute::None, true) ==
        Approx(2.0 * n * words + 4.0 * n * 8));
  // Selective recompute of `moe` lets the gathered copy go with the rest of the MLP: the
  // norms' and attention's 8h a token over 2 ranks.
  CHECK(layer_activation_bytes(m, n, 2, true, Recompute::Selective, true, false, {.moe = true}) ==
        Approx(2.0 * n * 8 * h / 2 + 4.0 * n * 8 / 2));
}

TEST_CASE("footprint: selective recompute's modules keep what Megatron-core keeps",
          "[footprint][moe][recompute]") {
  const ModelSpec m = moe_model(1);
  const std::int64_t n = 2048;
  const double h = 1024, stats = 4.0 * n * 8;
  auto bytes = [&](bool moe_layer, RecomputeModules r, bool fp8 = false) {
    return layer_activation_bytes(m, n, 1, false, Recompute::Selective, moe_layer, fp8, r);
  };
  // The MoE layer's 16-bit words per token without recompute (test above): norms 4h, routed
  // copies 4h, router 16, attention 4h, experts' and shared expert's MLP tensors 15,360; the
  // dense layer's 4h + 4h + 3f = 20,480. The attention core alone (the default) changes neither.
  const double moe_words = 4 * h + 4 * h + 16 + 4 * h + 15360, dense_words = 20480;
  CHECK(bytes(true, {}) == Approx(2.0 * n * moe_words + stats));
  CHECK(bytes(false, {}) == Approx(2.0 * n * dense_words + stats));
  // layernorm: the MoE layer's pre-MLP norm runs apart (its output h not kept); the dense
  // layer's two are fused into their GEMMs: nothing saved.
  CHECK(bytes(true, {.layernorm = true}) == Approx(2.0 * n * (moe_words - h) + stats));
  CHECK(bytes(false, {.layernorm = true}) == Approx(2.0 * n * dense_words + stats));
  // mlp: the dense MLP keeps only its input: 3f and the fused pre-MLP norm's output go,
  // 20,480 − 12,288 − 1,024 = 7h. A MoE layer has no dense MLP.
  CHECK(bytes(false, {.mlp = true}) == Approx(2.0 * n * 7 * h + stats));
  CHECK(bytes(true, {.mlp = true}) == Approx(2.0 * n * moe_words + stats));
  // moe: the routed copies, router probabilities and every expert's tensors go: the norms and
  // the attention's 8h stay.
  CHECK(bytes(true, {.moe = true}) == Approx(2.0 * n * 8 * h + stats));
  // moe_act: the routed experts' activation outputs, k·f_e = 2 · 2048; shared_experts: the
  // shared expert's 3 · 1024.
  CHECK(bytes(true, {.moe_act = true}) == Approx(2.0 * n * (moe_words - 4096) + stats));
  CHECK(bytes(true, {.shared_experts = true}) == Approx(2.0 * n * (moe_words - 3072) + stats));
  CHECK(bytes(true, {.moe_act = true, .shared_experts = true}) ==
        Approx(2.0 * n * (moe_words - 7168) + stats));
  // FP8 keeps the GEMM inputs at 1 byte: both norms' outputs 2h, the attention output h and
  // the down projections' inputs 4,096 + 1,024, 8,192 words. Without the routed activation
  // outputs (moe_act) their FP8 copies go too: 4,096 words at 1 byte.
  CHECK(bytes(true, {}, true) == Approx(2.0 * n * moe_words - 8192.0 * n + stats));
  CHECK(bytes(true, {.moe_act = true}, true) ==
        Approx(2.0 * n * (moe_words - 4096) - 4096.0 * n + stats));
  // moe under FP8: its input, the pre-MLP norm's output, is kept in 16 bits as the checkpoint's
  // input, so of the 8,192 FP8 words only the other norm's h and the attention output's h stay.
  CHECK(bytes(true, {.moe = true}, true) == Approx(2.0 * n * 8 * h - 2048.0 * n + stats));
  // Without selective recompute the modules are not consulted.
  CHECK(layer_activation_bytes(m, n, 1, false, Recompute::None, true, false, {.moe = true}) ==
        Approx(2.0 * n * moe_words + stats));
}

TEST_CASE("footprint: latent attention's recompute modules drop its Q, K, V and input norm",
          "[footprint][recompute]") {
  // A latent-attention layer (dense MLP): h 1024, 8 heads, q_rank 256, kv_rank 128, rope 32,
  // nope 64, v 64: per head Q of d = 96, K and V of 96 + 64.
  ModelSpec m;
  m.layers = 2;
  m.hidden = 1024;
  m.ffn_hidden = 4096;
  m.heads = 8;
  m.kv_heads = 8;
  m.vocab = 32000;
  m.mla = LatentAttention{256, 128, 32, 64, 64};
  const std::int64_t n = 1024;
  const double h = 1024, stats = 4.0 * n * 8;
  // Words per token: norms 4h, latents 256 + 128 + 32 = 416, Q 8·96 = 768, attention output
  // 8·64 = 512, K and V 8·160 = 1,280, MLP 3f = 12,288.
  const double words = 4 * h + 416 + 768 + 512 + 1280 + 12288;
  auto bytes = [&](RecomputeModules r) {
    return layer_activation_bytes(m, n, 1, false, Recompute::Selective, false, false, r);
  };
  CHECK(bytes({}) == Approx(2.0 * n * words + stats));
  // mla_up_proj: Q, K and V go (768 + 1,280); the latents, their inputs, stay.
  CHECK(bytes({.mla_up_proj = true}) == Approx(2.0 * n * (words - 2048) + stats));
  // layernorm: latent attention's input norm runs apart: its output h goes.
  CHECK(bytes({.layernorm = true}) == Approx(2.0 * n * (words - h) + stats));
}

TEST_CASE("footprint: expert parallelism splits the routed experts, ZeRO shards them over dp",
          "[footprint][moe]") {
  // 2 MoE layers of 8 SwiGLU experts of f_e = 512 (h = 1024, 8 heads), vocabulary 1000, one
  // stage, dp 8. Routed experts per layer: 3 · 1024 · 8 · 512 = 12,582,912; the rest of the
  // stage: attention 4 · 1024² = 4,194,304 and router 1024 · 8 = 8,192 per layer, embedding and
  // head 2 · 1000 · 1024 = 2,048,000.
  const auto s = [](int ep, int zero) {
    return test::yaml(fmt::format(R"(model: {{layers: 2, hidden: 1024, ffn_hidden: 2048, heads: 8,
        vocab: 1000, moe: {{experts: 8, top_k: 2, ffn_hidden: 512}}}}
training: {{seq_len: 512, micro_batch_size: 1, global_batch_size: 8}}
cluster: {{gpu: h100-sxm, gpus_per_node: 8}}
parallelism: {{dp: 8, ep: {}, zero: {}}}
)",
                                  ep, zero));
  };
  const double routed = 2 * 12582912.0, rest = 2 * (4194304.0 + 8192) + 2048000;
  const int stage[] = {0};
  for (int ep : {1, 2, 4, 8}) {
    INFO("ep " << ep);
    // Unsharded (ZeRO-0): this GPU holds the dense part and routed / ep.
    const StaticMemory z0 = static_memory(s(ep, 0), stage);
    CHECK(z0.parameters == Approx(rest + routed / ep));
    CHECK(z0.weights == Approx(2 * (rest + routed / ep)));
    CHECK(z0.optimizer == Approx(12 * (rest + routed / ep)));
    // ZeRO-2: gradients and optimizer states of the dense part / 8 and of this GPU's experts
    // over the 8 / ep ranks that hold them: (rest + routed) / 8 either way.
    const StaticMemory z2 = static_memory(s(ep, 2), stage);
    CHECK(z2.weights == Approx(2 * (rest + routed / ep)));
    CHECK(z2.gradients == Approx(2 * (rest + routed) / 8));
    CHECK(z2.optimizer == Approx(12 * (rest + routed) / 8));
  }
}

TEST_CASE("footprint: a capacity factor pads a MoE layer's routed tensors", "[footprint][moe]") {
  // The MoE layer above (E = 8, top 2, f_e = 2048, shared 1024, h = 1024, d = 128) with capacity
  // factor 1.5: the routed copies and expert outputs 2·k·h become 2·3·h = 6h, the routed
  // experts' tensors 3·(3·2048 + 1024) = 21,504 words per token.
  const ModelSpec m = moe_model(1.5);
  const std::int64_t n = 2048;
  const double h = 1024;
  const double words = 4 * h + 6 * h + 16 + 4 * h + 21504;
  CHECK(layer_activation_bytes(m, n, 1, false, Recompute::None, true) ==
        Approx(2.0 * n * words + 4.0 * n * 8));
}

TEST_CASE("footprint: context parallelism divides activations by cp, ZeRO shards over dp · cp",
          "[footprint][cp]") {
  // Llama-3.1-8B, 32,768-token sequences, pp 2, 8 GPUs as dp 4 (cp 1) or dp 1 · cp 4, ZeRO-1:
  // each GPU holds 32,768 / 4 tokens of a sequence; the DP group is dp · cp = 4 either way.
  auto scenario = [](int dp, int cp) {
    return test::yaml(
        fmt::format("model: llama-3.1-8b\ncluster: {{gpu: h100-sxm, gpus_per_node: 8, nodes: 1}}\n"
                    "parallelism: {{pp: 2, dp: {}, cp: {}, zero: 1}}\ntraining: {{seq_len: 32768, "
                    "global_batch_size: {}}}\n",
                    dp, cp, 8 * dp));
  };
  const Scenario plain = scenario(4, 1), split = scenario(1, 4);
  for (int stage : {0, 1})
    CHECK(stage_activation_bytes(split, stage) == Approx(stage_activation_bytes(plain, stage) / 4));
  const int stages[] = {0};
  CHECK(static_memory(split, stages).optimizer == Approx(static_memory(plain, stages).optimizer));
  const double psi = static_memory(split, stages).parameters;
  CHECK(static_memory(split, stages).optimizer == Approx(12 * psi / 4));
}

TEST_CASE("footprint: activation offload moves the first N layers' activations",
          "[footprint][offload]") {
  // Llama-3.2-1B (16 layers, h 2048) on one stage, 1024 tokens: N layers move N × the layer's
  // bytes (flash attention, no dropout: nothing beyond layer_activation_bytes); N past the
  // stage's 16 layers moves all of them but not the head's input and logits.
  auto scenario = [](int n, const char* recompute = "none") {
    return test::yaml(fmt::format(
        "model: llama-3.2-1b\ncluster: {{gpu: h100-sxm, gpus_per_node: 1}}\n"
        "training: {{seq_len: 1024, global_batch_size: 1, offload_activations: {}, recompute: "
        "{}, recompute_layers: {}}}\n",
        n, recompute, std::string(recompute) == "full" ? 2 : 0));
  };
  const Scenario off = scenario(0);
  const ModelSpec& m = *off.model;
  const double layer = layer_activation_bytes(m, 1024, 1, false, Recompute::None);
  CHECK(offloaded_activation_bytes(off, 0) == 0);
  CHECK(offloaded_activation_bytes(scenario(4), 0) == Approx(4 * layer));
  const double head = 2.0 * 1024 * 2048 + 4.0 * 1024 * 128256;  // norm input, fp32 logits
  CHECK(offloaded_activation_bytes(scenario(100), 0) ==
        Approx(stage_activation_bytes(scenario(100), 0) - head));
  // With the first 2 layers fully recomputed, those 2 move only their inputs.
  const double input = layer_activation_bytes(m, 1024, 1, false, Recompute::Full);
  CHECK(offloaded_activation_bytes(scenario(4, "full"), 0) == Approx(2 * input + 2 * layer));
}

TEST_CASE("footprint: a multi-token prediction module keeps its layer, inputs and logits",
          "[footprint][mtp]") {
  // As the LM-head case above, with one module on stage 3: its layer (a ninth), the second
  // head's final-norm input and fp32 logits (2·n·h + 4·n·V), and the embedding's output, the
  // normalized hidden state hnorm reads and the [n, 2h] concatenation (4·n·h bf16 values).
  const Scenario s = test::yaml(
      "model: {preset: llama-3.1-8b, mtp_layers: 1}\n"
      "cluster: {gpu: h100-sxm, gpus_per_node: 8, nodes: 1}\n"
      "parallelism: {pp: 4, dp: 2}\ntraining: {seq_len: 4096, global_batch_size: 64}\n");
  const double layer = layer_activation_bytes(llama8b(), 4096, 1, false, Recompute::None);
  const double n = 4096, h = 4096;
  CHECK(stage_activation_bytes(s, 0) == Approx(8 * layer));
  CHECK(stage_activation_bytes(s, 3) ==
        Approx(9 * layer + 2 * (2.0 * n * h + 4.0 * n * 128256) + 2.0 * 4 * n * h));
  // Full recompute checkpoints the module's block: its layer keeps its input (n·h), the block
  // the embedding's output (n·h); the heads keep as before. Recomputing only the first 4 layers
  // (the block method) leaves the module, which it skips, whole.
  const double full = layer_activation_bytes(llama8b(), 4096, 1, false, Recompute::Full);
  Scenario recomputed = s;
  recomputed.training.recompute = Recompute::Full;
  CHECK(stage_activation_bytes(recomputed, 3) ==
        Approx(9 * full + 2 * (2.0 * n * h + 4.0 * n * 128256) + 2.0 * n * h));
  recomputed.training.recompute_layers = 4;
  CHECK(stage_activation_bytes(recomputed, 3) ==
        Approx(4 * full + 5 * layer + 2 * (2.0 * n * h + 4.0 * n * 128256) + 2.0 * 4 * n * h));
  // Its parameters: the layer, the 2h × h projection and the table's copy for the lookup.
  const int last[] = {3};
  Scenario without = s;
  without.model->mtp_layers = 0;
  CHECK(static_memory(s, last).parameters - static_memory(without, last).parameters ==
        Approx(218103808.0 + 2 * h * h + 128256 * h));
}

TEST_CASE("footprint: on a DualPipe rank the module shares the embedding beside it",
          "[footprint][mtp]") {
  // Llama-3.1-8B untied with one module over pp 4 under DualPipe: rank 0 holds model stages 0
  // (the embedding) and 3 (the module's copy of the table). DeepSeek-V3 §3.2.3 places them so
  // that the module shares the embedding: V·h counted once. Without the module the two copies
  // of the model keep their own tables (a tied head's included).
  const Scenario s = test::yaml(R"(model: {preset: llama-3.1-8b, mtp_layers: 1}
cluster: {gpu: h100-sxm, gpus_per_node: 8, nodes: 1}
parallelism: {pp: 4, dp: 2}
training: {seq_len: 4096, global_batch_size: 64}
)");
  const auto parts = partition_model(*s.model, 4);
  const double p0 = static_cast<double>(stage_params(*s.model, parts[0], 1, 4)),
               p3 = static_cast<double>(stage_params(*s.model, parts[3], 1, 4));
  const int dualpipe_rank0[] = {0, 3};
  CHECK(static_memory(s, dualpipe_rank0, 2).parameters == Approx(p0 + p3 - 128256.0 * 4096));
  Scenario tied = s;
  tied.model->mtp_layers = 0;
  tied.model->tied_embeddings = true;
  const auto tparts = partition_model(*tied.model, 4);
  CHECK(static_memory(tied, dualpipe_rank0, 2).parameters ==
        Approx(static_cast<double>(stage_params(*tied.model, tparts[0], 1, 4) +
                                   stage_params(*tied.model, tparts[3], 1, 4))));
}

TEST_CASE("footprint: LoRA keeps the adapters' inputs and masks, and trains only the adapters",
          "[footprint][lora]") {
  // Llama-3.1-8B, 4,096 tokens, tp 1. Full training keeps 17h 16-bit words a token (above):
  // norm inputs and outputs 4h, Q, K, V, attention output and MLP tensors 13h. Under LoRA on QKV
  // and the attention output the frozen MLP keeps neither its input (the second norm's output,
  // h) nor the down projection's (f = 3.5h): 12.5h, 25·n·h bytes; the two adapters' dropout
  // masks, a byte per input element, QKV's h and the attention output's h: 2·n·h; and the
  // attention output's dropout copy, kept beside the output the attention keeps: 2·n·h.
  const std::int64_t n = 4096;
  const double h = 4096;
  const LoraTargets attention{.qkv = true, .attn_out = true};
  CHECK(layer_activation_bytes(llama8b(), n, 1, false, Recompute::None, false, false, {}, attention,
                               true) == Approx(29 * n * h + 4.0 * n * 32));
  // tp 2 with SP: the QKV adapter's input is the gathered sequence and stays whole (2·n·h);
  // its mask, taken before the gather (NeMo's dropout_position 'pre'), halves (n·h / 2); the
  // other 16-bit tensors, 25·n·h − 2·n·h, halve, and so do the attention output's mask and
  // dropout copy ((n·h + 2·n·h) / 2).
  CHECK(layer_activation_bytes(llama8b(), n, 2, true, Recompute::None, false, false, {}, attention,
                               true) == Approx((25 - 2) * n * h / 2 + 2 * n * h + n * h / 2 +
                                               (n * h + 2 * n * h) / 2 + 4.0 * n * 32 / 2));
  // Without SP each rank holds the whole sequence's norm outputs: the QKV mask whole (n·h).
  CHECK(layer_activation_bytes(llama8b(), n, 2, false, Recompute::None, false, false, {}, attention,
                               true) -
            layer_activation_bytes(llama8b(), n, 2, false, Recompute::None, false, false, {},
                                   attention, false) ==
        Approx(n * h + (n * h + 2 * n * h) / 2));
  // With selective recompute of the MLP, which already lets the MLP's tensors go, LoRA takes
  // away only the first norm's output (h), QKV's adapter keeping it: never below what the
  // recompute alone keeps minus that.
  const RecomputeModules mlp{.core_attn = false, .mlp = true};
  const double recomputed =
      layer_activation_bytes(llama8b(), n, 1, false, Recompute::Selective, false, false, mlp);
  CHECK(layer_activation_bytes(llama8b(), n, 1, false, Recompute::Selective, false, false, mlp,
                               attention, false) == Approx(recomputed));
  // Without the masks, and with every target (all inputs kept for the adapters): 34·n·h again.
  CHECK(layer_activation_bytes(llama8b(), n, 1, false, Recompute::None, false, false, {}, attention,
                               false) == Approx(25 * n * h + 4.0 * n * 32));
  CHECK(layer_activation_bytes(llama8b(), n, 1, false, Recompute::None, false, false, {},
                               LoraTargets{true, true, true, true},
                               false) == Approx(34 * n * h + 4.0 * n * 32));
  // The static memory of dp 8, ZeRO-1: rank-16 adapters on QKV (4,096 → 6,144) and the
  // attention output (4,096 → 4,096), r·(in + out) = 16 · 18,432 = 294,912 a layer, 9,437,184 in
  // all: their 16-bit weights beside the model's, their 16-bit gradients, their Adam states / 8.
  const Scenario s = test::yaml(R"(model: llama-3.1-8b
training: {seq_len: 4096, global_batch_size: 8, lora_rank: 16, lora_targets: "qkv,attn_out"}
cluster: {gpu: h100-sxm, gpus_per_node: 8}
parallelism: {dp: 8, zero: 1}
)");
  const std::vector<int> here{0};
  const StaticMemory lora = static_memory(s, here);
  const double adapters = 9'437'184;
  CHECK(stage_lora_params(llama8b(), partition_model(llama8b(), 1)[0], 1, s.training) == adapters);
  CHECK(lora.weights == Approx(2 * (lora.parameters + adapters)));
  CHECK(lora.gradients == Approx(2 * adapters));
  CHECK(lora.optimizer == Approx(12 * adapters / 8));
}

TEST_CASE("footprint: a recomputing backward replays one layer beside the stored ones",
          "[footprint]") {
  const auto scenario = [](const std::string& training) {
    return test::yaml(
        "model: llama-3.1-8b\ncluster: {gpu: h100-sxm, gpus_per_node: 8, nodes: 1}\n"
        "parallelism: {pp: 4, dp: 2}\ntraining: {seq_len: 4096, global_batch_size: 64" +
        training + "}\n");
  };
  const double n = 4096, h = 4096, a = 32;
  // Full: a layer's 34nh + 4na less its kept input 2nh.
  CHECK(recompute_transient_bytes(scenario(", recompute: full"), 1) ==
        Approx(32 * n * h + 4 * n * a));
  // Full recompute of 2 layers per stage: the replayed layer is one of those two, the same bytes.
  CHECK(recompute_transient_bytes(scenario(", recompute: full, recompute_layers: 2"), 1) ==
        Approx(32 * n * h + 4 * n * a));
  // Selective recompute of the attention core under FlashAttention rebuilds no scores: nothing
  // held; without recompute nothing is replayed.
  CHECK(recompute_transient_bytes(scenario(", recompute: selective"), 1) == 0);
  CHECK(recompute_transient_bytes(scenario(""), 1) == 0);
  // Unfused attention with dropout: selective recompute rebuilds one layer's scores, softmax
  // output and dropout mask and output, 5·a·s² bytes (Korthikanti et al. 2022's 5as/h term,
  // times sbh): 5 × 32 × 4,096² = 2,684,354,560 at b = 1.
  CHECK(recompute_transient_bytes(
            scenario(", recompute: selective, attention: unfused, dropout: 0.1"), 1) ==
        Approx(5 * a * n * n));
  // A costs-only scenario has no layers.
  CHECK(recompute_transient_bytes(test::pipeline(2, 4, 1, 2), 0) == 0);
}

TEST_CASE("footprint: a learned position table is held whole with a row per position", "[memory]") {
  // MPT-7B as llm-foundry benchmarked it at 65,536 tokens (learned positions up to the
  // sequence length, tied embeddings): 32 layers of 12 · 4096² = 6,442,450,944, the table
  // 50,368 × 4,096 = 206,307,328, positions 65,536 × 4,096 = 268,435,456: 6,917,193,728 on the
  // one GPU of dp 8 (FSDP's shards aside). The benchmark table lists 6,918,905,856, the
  // 1,712,128 more being MPT's biases and norms (32 · 13 · 4,096 + 2 · 4,096), which trainsim
  // leaves out.
  auto mpt = [](int tp, int seq) {
    return test::yaml(
        fmt::format(R"(model: {{layers: 32, hidden: 4096, ffn_hidden: 16384, heads: 32,
  vocab: 50368, mlp: gelu, norm: layernorm, position_embedding: learned, tied_embeddings: true}}
training: {{seq_len: {}, micro_batch_size: 1, global_batch_size: 8}}
cluster: {{gpu: a100-sxm-80gb, gpus_per_node: 8}}
parallelism: {{dp: {}, tp: {}}}
)",
                    seq, 8 / tp, tp));
  };
  const Scenario s = mpt(1, 65536);
  CHECK(learned_position_params(s) == 268435456);
  const std::vector<int> here{0};
  CHECK(static_memory(s, here, 1).parameters == Approx(6917193728.0));
  // Under TP the vocabulary-parallel table and the layers split; the position table does not
  // (Megatron's position_embeddings is a plain embedding on every TP rank).
  const Scenario tp2 = mpt(2, 65536);
  CHECK(static_memory(tp2, here, 1).parameters ==
        Approx((6442450944.0 + 206307328.0) / 2 + 268435456.0));
  // Rotary positions hold none.
  Scenario rope = s;
  rope.model->position = PositionEmbedding::Rotary;
  CHECK(learned_position_params(rope) == 0);
  CHECK(static_memory(rope, here, 1).parameters == Approx(6917193728.0 - 268435456.0));
}
