#pragma once
#include <algorithm>  // std::find
// A Scenario is the user's whole question in one value: model, training batch, cluster,
// parallel layout, schedule, optional explicit costs and pricing. It is produced by
// scenario_loader.h (which validates everything) and read by every later layer.
#include <compare>   // operator<=>
#include <cstddef>   // std::size_t
#include <cstdint>   // std::int64_t
#include <map>       // std::map
#include <optional>  // std::optional
#include <string>    // std::string
#include <utility>   // std::pair
#include <vector>    // std::vector

#include "core/time.h"
#include "scenario/cluster.h"
#include "scenario/layout.h"
#include "scenario/model.h"

namespace trainsim {

/// FP8: Transformer Engine style, bf16 everywhere but the layers' linear GEMMs (cost/fp8_gemm.h).
enum class Precision { BF16, FP16, FP8 };
/// The YAML spelling of `p` (training.precision).
inline const char* precision_name(Precision p) {
  switch (p) {
    case Precision::BF16:
      return "bf16";
    case Precision::FP16:
      return "fp16";
    case Precision::FP8:
      return "fp8";
  }
  return "bf16";
}
enum class Recompute { None, Selective, Full };
/// The YAML spelling of `r` (training.recompute).
inline const char* recompute_name(Recompute r) {
  switch (r) {
    case Recompute::None:
      return "none";
    case Recompute::Selective:
      return "selective";
    case Recompute::Full:
      return "full";
  }
  return "none";
}
/// How the attention core runs: a fused kernel (no s² scores stored) — FlashAttention-1, -2 or
/// -3, or the Triton FlashAttention kernel of 2023 (llm-foundry's `attn_impl: triton`) — or the
/// unfused ("standard") kernels of older stacks: QKᵀ and PV as batched GEMMs around a fused
/// scale-mask-softmax and a dropout, which store the s² scores for the backward.
enum class AttentionKernel { Flash1, Flash2, Flash3, Triton, Cudnn, Unfused };

/// How a step's kernels are made and launched. Compiled: fused, one kernel each (torch.compile,
/// or a framework's hand-fused kernels: Megatron, Transformer Engine), their CPU assumed ahead
/// of the GPU (CUDA graphs, or kernels long enough). Eager: one PyTorch op at a time as the
/// reference implementations write them (RMSNorm, SwiGLU and rotary embeddings become several
/// kernels, some over fp32 copies, the gradients summed by autograd), each launched by the CPU
/// (its time simulated). Fused: a framework's fused kernels, as compiled, each launched by the
/// CPU as eager's are, without CUDA graphs (Megatron-core, NeMo, Transformer Engine).
enum class Runtime { Compiled, Eager, Fused };

/// How an unfused cross-entropy runs (training.unfused_loss): PyTorch's `cross_entropy`
/// (log-softmax and NLL) over the fp32 upcast of the logits, Megatron's vocabulary-parallel
/// cross-entropy over that upcast (max, subtract, exp, sum, divide; the gradient scaled in
/// place), which Megatron-core, Megatron-LM/-DeepSpeed and NeMo run, PyTorch's `cross_entropy`
/// straight over the 16-bit logits (no upcast: a training loop's own loss on what Hugging Face's
/// causal-LM models return without labels since transformers 4.46), or nanotron's copy of
/// Megatron's, its subtraction into a new tensor beside the upcast (the same kernels, more
/// memory while it runs).
enum class UnfusedLoss { PyTorch, VocabParallel, PyTorch16, Nanotron };
/// The optimizer (training.optimizer): Adam or AdamW (the same passes; mixed precision over fp32
/// master weights and states), or plain SGD without momentum over the model's own parameters
/// (torch.optim.SGD(params, lr) on a 16-bit model: no master weights, no state).
enum class Optimizer { Adam, AdamW, Sgd };
/// How a mixture-of-experts layer runs its local experts' GEMMs: one cuBLAS GEMM per expert spread
/// over 4 CUDA streams (Transformer Engine's GroupedLinear: Megatron-core's TEGroupedMLP under
/// --moe-grouped-gemm; its legacy GroupedMLP's grouped_gemm package on Hopper), one grouped kernel
/// over every expert's tiles (CUTLASS's grouped GEMM, DeepGEMM's, torch._grouped_mm), or one cuBLAS
/// GEMM per expert in turn (Megatron-core's SequentialMLP, tgale96/grouped_gemm's default mode).
enum class ExpertGemms { MultiStream, Grouped, Sequential };
/// Where a mixture-of-experts layer sorts its routed tokens into expert order and back: kernels
/// of their own on the compute stream (Megatron-core's permute and unpermute, or Transformer
/// Engine's fused ones), or inside the dispatcher's communication kernels (Megatron-core's flex
/// dispatcher with HybridEP under --moe-permute-fusion: fused_a2a.py's fuse_permute_dispatch).
enum class MoePermute { Kernels, InDispatch };
/// How Transformer Engine scales FP8 tensors (Megatron-core's `--fp8-recipe`): from the amax
/// history of earlier steps (delayed), or from each tensor's own amax, found by a pass of its
/// own before the cast (per-tensor current scaling, `tensorwise`), or per block of 32 values
/// with a power-of-two scale each (MXFP8, Blackwell's block-scaled tensor cores, `mxfp8`), or in
/// 4 bits per block of 16 values with an FP8 scale each and one per tensor (NVFP4, `nvfp4`:
/// Transformer Engine's NVFP4BlockScaling, a recipe of the same autocast).
enum class Fp8Recipe { Delayed, Tensorwise, Mxfp8, Nvfp4 };
/// Bytes per element of an NVFP4 tensor (one layout): a 4-bit E2M1 value and an E4M3 scale per
/// 16 values (Transformer Engine's NVFP4 documentation, "Data Format").
inline constexpr double kNvfp4ElementBytes = 0.5 + 1.0 / 16.0;
/// Blackwell's block-scaled recipes (MXFP8, NVFP4).
inline bool block_scaled(Fp8Recipe r) {
  return r == Fp8Recipe::Mxfp8 || r == Fp8Recipe::Nvfp4;
}
/// Which of those ops run op by op when a framework fuses some and not others: Megatron-LM's
/// legacy model fuses its norm (apex's FusedRMSNorm) but runs SwiGLU (chunk, silu, multiply)
/// and rotary embeddings (Megatron-core's apply_rotary_pos_emb) as PyTorch ops, and adds the
/// linear layers' biases (model.linear_bias) and sums their gradients as kernels of their own,
/// where Transformer Engine fuses both into its GEMMs' epilogues. Megatron-DeepSpeed also splits
/// QKV's output into Q, K and V by slicing a view, whose backward autograd runs as a zero-filled
/// full-width gradient per slice, the three summed (`qkv_split`); Megatron-core, Megatron-LM,
/// FlagScale and llm-foundry split it by torch.split, whose backward concatenates the three
/// gradients (`qkv_cat`).
/// FlagScale's --rotary-interleaved-patch re-interleaves Q, K and V's head dimensions after the
/// rotary embedding by einops reshapes that copy them, and their gradients back
/// (`rope_interleave`).
/// nanotron lays Q, K and V out for flash-attn by copies around the kernel (`qkv_layout`).
/// Legacy Megatron-LM's ParallelAttention (FlagScale's among its forks) expands grouped-query K
/// and V to every query head by repeat_interleave before the rotary embedding, which then rotates
/// the expanded K (`kv_repeat`).
/// Where one GEMM computes SwiGLU's gate and up projections together (Megatron's chunk, nanotron's
/// and fms's split), its op-by-op SwiGLU runs on the two strided halves of that output and its
/// backward concatenates their gradients (`gate_up_split`); Hugging Face's LlamaMLP runs two
/// GEMMs whose outputs are contiguous.
struct EagerOps {
  bool norm = false;
  bool swiglu = false;
  bool rope = false;
  bool bias = false;
  bool qkv_split = false;
  bool rope_interleave = false;
  bool qkv_cat = false;
  bool qkv_layout = false;
  bool gate_up_split = false;
  bool kv_repeat = false;
  friend bool operator==(const EagerOps&, const EagerOps&) = default;
};
/// The modules selective recompute runs again before the backward (Megatron-core's
/// `--recompute-granularity selective --recompute-modules`, core_v0.12 to core_v0.15 (
/// `shared_experts` from core_v0.14), TransformerConfig.recompute_modules; its default, and
/// trainsim's selective before this key, is the attention core alone). `core_attn`, `mlp`, `moe`
/// and `shared_experts` are checkpointed (only their input kept, their whole forward replayed);
/// `layernorm`, `mla_up_proj` and `moe_act` discard their output after its consumer ran and
/// recompute it before that consumer's backward (CheckpointWithoutOutput).
struct RecomputeModules {
  bool core_attn = true;   ///< the attention core (scores, dropout masks; CP's key/value exchange)
  bool layernorm = false;  ///< the norms Megatron-core runs apart from a GEMM (not TE-fused)
  bool mla_up_proj = false;     ///< latent attention's Q and KV up-projections and their RoPE
  bool mlp = false;             ///< a dense layer's MLP (with its TP collectives)
  bool moe = false;             ///< a MoE layer's whole MLP: router, dispatch, experts, combine
  bool moe_act = false;         ///< the routed experts' activation function
  bool shared_experts = false;  ///< a MoE layer's shared experts
  friend bool operator==(const RecomputeModules&, const RecomputeModules&) = default;
};
/// Each module's flag and Megatron-core's name for it, in its order (training.recompute_modules).
inline constexpr std::pair<bool RecomputeModules::*, const char*> kRecomputeModuleNames[] = {
    {&RecomputeModules::core_attn, "core_attn"},
    {&RecomputeModules::moe_act, "moe_act"},
    {&RecomputeModules::layernorm, "layernorm"},
    {&RecomputeModules::mla_up_proj, "mla_up_proj"},
    {&RecomputeModules::mlp, "mlp"},
    {&RecomputeModules::moe, "moe"},
    {&RecomputeModules::shared_experts, "shared_experts"}};
/// Each op's flag and name (training.eager_ops).
inline constexpr std::pair<bool EagerOps::*, const char*> kEagerOpNames[] = {
    {&EagerOps::norm, "norm"},
    {&EagerOps::swiglu, "swiglu"},
    {&EagerOps::rope, "rope"},
    {&EagerOps::bias, "bias"},
    {&EagerOps::qkv_split, "qkv_split"},
    {&EagerOps::qkv_cat, "qkv_cat"},
    {&EagerOps::rope_interleave, "rope_interleave"},
    {&EagerOps::qkv_layout, "qkv_layout"},
    {&EagerOps::gate_up_split, "gate_up_split"},
    {&EagerOps::kv_repeat, "kv_repeat"}};
/// The FP8 quantizations that run as casts of their own, where Transformer Engine's fused
/// modules would have the kernel before them write FP8 (training.fp8_standalone_casts): `norm`,
/// the norms before QKV and the MLP (TE's cuDNN norms, NVTE_NORM_FWD_USE_CUDNN=1, take its
/// unfused path); `activation`, the MLP's activation and its backward (Megatron-core's MLP
/// runs them outside TE unless TE's op fuser does, `--use-transformer-engine-op-fuser`).
struct Fp8Casts {
  bool norm = false;
  bool activation = false;
  friend bool operator==(const Fp8Casts&, const Fp8Casts&) = default;
};
inline constexpr std::pair<bool Fp8Casts::*, const char*> kFp8CastNames[] = {
    {&Fp8Casts::norm, "norm"}, {&Fp8Casts::activation, "activation"}};
/// The linear layers that carry LoRA adapters (Hu et al., "LoRA: Low-Rank Adaptation of Large
/// Language Models", arXiv:2106.09685): a layer's QKV, attention output, MLP up (gate + up) and
/// down projections (training.lora_targets; NeMo's `target_modules` linear_qkv, linear_proj,
/// linear_fc1, linear_fc2).
struct LoraTargets {
  bool qkv = false;
  bool attn_out = false;
  bool mlp_up = false;
  bool mlp_down = false;
  friend bool operator==(const LoraTargets&, const LoraTargets&) = default;
};
inline constexpr std::pair<bool LoraTargets::*, const char*> kLoraTargetNames[] = {
    {&LoraTargets::qkv, "qkv"},
    {&LoraTargets::attn_out, "attn_out"},
    {&LoraTargets::mlp_up, "mlp_up"},
    {&LoraTargets::mlp_down, "mlp_down"}};
/// The names of the flags set in `value`, in the table's order, joined by `separator`; "none"
/// for none (training.eager_ops, training.recompute_modules).
template <typename T, std::size_t N>
std::string flag_names(const T& value, const std::pair<bool T::*, const char*> (&names)[N],
                       const char* separator = ",") {
  std::string out;
  for (const auto& [member, name] : names)
    if (value.*member) out += (out.empty() ? "" : separator) + std::string(name);
  return out.empty() ? "none" : out;
}
/// ZeRO-Offload (Ren et al., "ZeRO-Offload", USENIX ATC 2021): the optimizer states and step on
/// the host CPU; the gradient shard goes down and the updated 16-bit weights come back over the
/// GPU's host link.
enum class Offload { None, Optimizer };
/// The YAML spelling of `o` (training.offload).
inline const char* offload_name(Offload o) {
  return o == Offload::Optimizer ? "optimizer" : "none";
}

/// The precision gradients are reduced in across data-parallel ranks: 16-bit (the training
/// precision) or fp32 (PyTorch FSDP's `MixedPrecision(reduce_dtype=torch.float32)`, Composer's
/// `mixed_precision: DEFAULT`, Megatron's `grad_reduce_in_fp32`). Default: fp32 with fp32
/// gradient accumulation, else 16-bit.
enum class GradReduce { Default, Half, FP32 };

/// A cuDNN release, MAJOR.MINOR (training.cudnn_version): which of its fused attention's
/// measurements prices `attention: cudnn`.
struct CudnnVersion {
  int major = 0;
  int minor = 0;
  friend auto operator<=>(const CudnnVersion&, const CudnnVersion&) = default;
};

struct TrainingSpec {
  int seq_len = 0;
  int micro_batch_size = 1;
  int global_batch_size = 0;  ///< sequences per optimizer step
  Precision precision = Precision::BF16;
  Recompute recompute = Recompute::None;
  /// With full recompute: only the first this many layers of each pipeline stage (model chunk)
  /// are recomputed, the others keep their activations (Megatron's `--recompute-method block
  /// --recompute-num-layers N`); 0 = every layer.
  int recompute_layers = 0;
  /// With selective recompute: the modules recomputed; nullopt: the attention core alone.
  std::optional<RecomputeModules> recompute_modules;
  bool fp32_grad_accumulation = false;  ///< Megatron's default: fp32 gradients (4 bytes, not 2)
  /// Cross-entropy evaluations over the logits after each micro-batch's backward, for training
  /// metrics (Composer's train_metrics: LanguageCrossEntropy and LanguagePerplexity, 2).
  int loss_metrics = 0;
  /// Whether each weight-gradient GEMM adds its product into the gradient buffer (beta = 1:
  /// Megatron's and NeMo's gradient_accumulation_fusion, Transformer Engine's
  /// fuse_wgrad_accumulation); nullopt: with fp32 gradients outside eager PyTorch
  /// (grad_accumulation_fusion() below).
  std::optional<bool> grad_accumulation_fusion;
  /// The gradients the GPU holds written to zero once a step, before the first backward adds
  /// into them (Megatron-core's DDP zero_grad_buffer over its contiguous buffer); false: set to
  /// None, as PyTorch's zero_grad does by default, which writes nothing.
  bool zero_grad_buffer = false;
  /// With FP8: the layers' linear weights kept only in FP8 (Transformer Engine's FP8 parameters,
  /// NeMo's `fp8_params`, Megatron's `--fp8-param-gather`): no 16-bit copy, and the data-parallel
  /// parameter all-gathers move 1 byte per such weight instead of 2.
  bool fp8_params = false;
  /// With FP8 parameters on Hopper: each weight's FP8 transpose kept between uses (Transformer
  /// Engine's parameter transpose cache); false (NeMo's `disable_parameter_transpose_cache`):
  /// made again for every micro-batch's backward and not held.
  bool fp8_transpose_cache = true;
  /// With FP8: how the quantized tensors are scaled (what their casts cost).
  Fp8Recipe fp8_recipe = Fp8Recipe::Delayed;
  /// With FP8: the quantizations run apart from the kernel before them; nullopt: none.
  std::optional<Fp8Casts> fp8_standalone_casts;
  AttentionKernel attention = AttentionKernel::Flash2;
  /// With FP8 and cuDNN's attention: its FP8 form (Transformer Engine's FP8 dot-product
  /// attention, NVTE_FP8_DPA, NeMo's `fp8_dot_product_attention`).
  bool fp8_attention = false;
  /// NVFP4 (fp8_recipe nvfp4): Transformer Engine's random Hadamard transform of the
  /// weight-gradient operands (NVFP4BlockScaling's default; NVTE_NVFP4_DISABLE_RHT=1 turns it
  /// off, and with it a norm's or activation's cast no longer reads its input for the amax).
  bool nvfp4_hadamard = true;
  /// NVFP4: stochastic rounding of the gradients' casts (the recipe's default;
  /// NVTE_NVFP4_DISABLE_STOCHASTIC_ROUNDING=1 rounds them to nearest).
  bool nvfp4_stochastic_rounding = true;
  /// With FP8's MXFP8 recipe: the LM head (and multi-token prediction's, which shares it) as a
  /// Transformer Engine MXFP8 linear (Megatron-core's `fp8_output_proj`).
  bool fp8_output_proj = false;
  /// A gated MLP's activation input (the up projections' output, 2f wide) kept for the backward
  /// in FP8 (Megatron-core's `activation_func_fp8_input_store`, NeMo's FP8_ACTIVATION /
  /// FP8_ACT): 1 byte an element instead of 2, at the price of a cast each way.
  bool fp8_activation_store = false;
  /// With `attention: cudnn`: the cuDNN release the run links; nullopt: the newest one measured.
  std::optional<CudnnVersion> cudnn_version;
  /// Dropout probability of the hidden states and attention scores (GPT-3 style 0.1); above 0
  /// the dropout kernels run and their masks are stored.
  double dropout = 0;
  /// Adam or AdamW over fp32 masters and states, or plain SGD on the 16-bit weights
  /// (training.optimizer): the optimizer's passes and its memory.
  Optimizer optimizer = Optimizer::Adam;
  /// The optimizer step as one fused multi-tensor kernel (Megatron, apex, AdamW(fused=True)),
  /// or one pass per operation (torch.optim.AdamW's default foreach path, Composer's).
  bool fused_optimizer = true;
  /// The cross-entropy loss as one fused kernel over the 16-bit logits (apex's xentropy,
  /// flash-attn's, Transformer Engine's), not PyTorch's fp32 log-softmax and NLL over an upcast
  /// copy (nor Megatron-core's "native" fusion, which still upcasts the logits).
  bool fused_loss = false;
  /// Without fused_loss, which implementation runs (over the upcast logits but for PyTorch16).
  UnfusedLoss unfused_loss = UnfusedLoss::PyTorch;
  /// Gradient-norm clipping before the step (Megatron's and most recipes' default, 1.0).
  bool grad_clipping = true;
  /// Zero Bubble's optimizer post-validation (Qi et al. 2024, §4): no all-stage synchronisation
  /// before the optimizer, so consecutive steps overlap and the step time is the longest
  /// stage's span (report/step_report.h), not one step's makespan.
  bool optimizer_post_validation = false;
  Runtime runtime = Runtime::Compiled;
  /// The ops that run op by op; nullopt: norm, SwiGLU and RoPE with an eager runtime, none
  /// compiled.
  std::optional<EagerOps> eager_ops;
  Offload offload = Offload::None;
  /// Activation offload: the saved activations of the first this many layers of each stage
  /// (model chunk) go to host memory over the host link after each forward and come back before
  /// its backward (PyTorch's save_on_cpu, Megatron's --cpu-offloading-num-layers); 0 = off.
  int offload_activation_layers = 0;
  GradReduce grad_reduce = GradReduce::Default;
  ExpertGemms expert_gemms = ExpertGemms::MultiStream;
  MoePermute moe_permute = MoePermute::Kernels;
  /// Transformer Engine's fused grouped MLP (MXFP8, Blackwell): the routed experts' up
  /// projection, their scaled SwiGLU and the MXFP8 cast of its output in one kernel, the down
  /// projection's input gradient with the SwiGLU's backward and the cast of the up projection's
  /// output gradient in another.
  bool fused_expert_mlp = false;
  /// Megatron-core's delay_wgrad_compute (with the combined 1F1B): Transformer Engine's linear
  /// layers put their weight-gradient GEMMs off to run later in the backward, so a
  /// column-parallel layer's input-gradient collective over TP is waited for right after its
  /// input-gradient GEMM instead of hiding under its weight gradient.
  bool delay_wgrad = false;
  /// With FP8 and expert parallelism: the tokens go to their experts in FP8 (DeepSeek-V3's
  /// low-precision dispatch): the forward dispatch and the combine's backward (the gradient
  /// before the experts' down projection, sent towards them) carry 1 byte per value plus a
  /// 4-byte scale per 128; the combine and the dispatch's backward stay 16-bit.
  bool fp8_dispatch = false;
  /// LoRA fine-tuning: the rank of the adapters; 0 = every weight trained (no LoRA). Above 0
  /// the model's own weights are frozen and only the adapters train.
  int lora_rank = 0;
  /// With LoRA: the layers that carry adapters; nullopt: all four (NeMo 2's default).
  std::optional<LoraTargets> lora_targets;
  /// With LoRA: dropout on each adapter's input (NeMo's adapter_dropout, position `pre`).
  double lora_dropout = 0;
  /// With LoRA under TP and sequence parallelism: a row-parallel target's adapter output reaches
  /// the layer's by an all-to-all (NeMo's `a2a_experimental`), not an all-gather.
  bool lora_all_to_all = false;
  /// With LoRA: Transformer Engine's fused LoRA linear (NeMo's TEFusedLoRALinear under TE's op
  /// fuser): the adapter's scale and add ride B's GEMM epilogue, and the layer's input-gradient
  /// GEMM accumulates into the adapter's: no passes of their own.
  bool lora_fused = false;
};

/// Whether LoRA's adapters make Transformer Engine return a norm's output beside its GEMM
/// (NeMo's LoRA mixins set return_layernorm_output): on QKV's LayerNormLinear with an attention
/// target, on the MLP's with an MLP target. TE then neither fuses that GEMM's input all-gather
/// into userbuffers (layernorm_linear.py, ub_overlap_ag_fprop) nor lets the norm write FP8.
struct LoraNormOutputs {
  bool attention = false;
  bool mlp = false;
};

/// With LoRA (training.lora_rank > 0), the layers that carry adapters; none without.
inline LoraTargets lora_targets(const TrainingSpec& t) {
  if (t.lora_rank <= 0) return {};
  return t.lora_targets.value_or(LoraTargets{true, true, true, true});
}

/// Which norms' outputs LoRA's adapters take (LoraNormOutputs); none without LoRA.
inline LoraNormOutputs lora_norm_outputs(const TrainingSpec& t) {
  const LoraTargets on = lora_targets(t);
  return {on.qkv || on.attn_out, on.mlp_up || on.mlp_down};
}

/// How many of a stage's `stage_layers` layers offload their activations.
inline int offloaded_layers(const TrainingSpec& t, int stage_layers) {
  return t.offload_activation_layers < stage_layers ? t.offload_activation_layers : stage_layers;
}

/// How many of a stage's `stage_layers` layers, the last `mtp` of them multi-token prediction
/// modules', run their forward again in the backward (full recompute): all of them, or the first
/// `recompute_layers` of the others (Megatron-core's block method skips the modules:
/// multi_token_prediction.py, _checkpointed_forward).
inline int recomputed_layers(const TrainingSpec& t, int stage_layers, int mtp = 0) {
  if (t.recompute != Recompute::Full) return 0;
  if (t.recompute_layers <= 0) return stage_layers;
  return t.recompute_layers < stage_layers - mtp ? t.recompute_layers : stage_layers - mtp;
}

/// Whether full recompute replays the multi-token prediction modules' whole blocks (norms to
/// final norm), as Megatron-core's uniform method does; its block method skips them.
inline bool recomputes_mtp_blocks(const TrainingSpec& t) {
  return t.recompute == Recompute::Full && t.recompute_layers <= 0;
}

/// The modules recomputed before the backward under selective recompute
/// (training.recompute_modules, by default the attention core); none otherwise.
inline RecomputeModules recompute_modules(const TrainingSpec& t) {
  if (t.recompute != Recompute::Selective) return {.core_attn = false};
  return t.recompute_modules.value_or(RecomputeModules{});
}

/// Megatron's fp32 main gradients, which its code adds each micro-batch's weight gradients into
/// (in the GEMM or by a hook): fp32_grad_accumulation outside eager PyTorch, whose AccumulateGrad
/// adds them instead.
inline bool fp32_main_grad(const TrainingSpec& t) {
  return t.fp32_grad_accumulation && t.runtime != Runtime::Eager;
}

/// Whether the weight-gradient GEMMs accumulate into the gradient buffer
/// (training.grad_accumulation_fusion); by default into Megatron's fp32 main gradients.
inline bool grad_accumulation_fusion(const TrainingSpec& t) {
  return t.grad_accumulation_fusion.value_or(fp32_main_grad(t));
}

/// Bytes per parameter the data-parallel gradient reduction sends: 4 in fp32, else 2.
inline double grad_reduce_bytes(const TrainingSpec& t) {
  const bool fp32 = t.grad_reduce == GradReduce::FP32 ||
                    (t.grad_reduce == GradReduce::Default && t.fp32_grad_accumulation);
  return fp32 ? 4.0 : 2.0;
}

/// The ops that run op by op: training.eager_ops when given, else the norm, SwiGLU and rotary
/// embeddings with an eager runtime (a linear layer's bias only when named: torch.nn.Linear adds
/// it in cuBLASLt's epilogue) and none compiled.
inline EagerOps eager_ops(const TrainingSpec& t) {
  if (t.eager_ops) return *t.eager_ops;
  const bool e = t.runtime == Runtime::Eager;
  return {.norm = e, .swiglu = e, .rope = e};
}

/// One `slowdown:` entry: chosen GPUs compute or communicate slower (or faster) by a factor.
struct Slowdown {
  std::vector<int> ranks;  ///< global ranks
  double compute = 1.0;    ///< compute durations × this
  double link = 1.0;       ///< transfers and collectives they take part in × this
};

/// What a data-parallel gradient bucket is: a view of the gradients (Megatron's contiguous grad
/// buffer, PyTorch DDP's gradient_as_bucket_view) or, PyTorch DDP's default, storage of its own
/// that the gradients are copied into, every bucket kept (torch/nn/parallel/distributed.py,
/// `gradient_as_bucket_view=False`: "gradients are copied into buckets").
enum class DpBuckets { View, Copy };

/// `memory:` — what a GPU holds besides the model state and activations.
struct MemorySpec {
  /// CUDA context, cuBLAS/NCCL workspaces and allocator slack: the Ultra-Scale Playbook measures
  /// 1–2 GB ("CUDA Kernels typically require 1-2 GB of GPU memory"); 1.5 GB, the middle.
  double runtime_overhead = 1.5e9;
  /// DP gradient bucket (PyTorch DDP's default bucket_cap_mb = 25): one bucket in flight.
  double bucket_size = 25e6;
  DpBuckets dp_buckets = DpBuckets::View;
  /// The share of device memory the caching allocator's fragmentation leaves unusable: a GPU
  /// is likely to run out when its live tensors' peak passes (1 − fragmentation) × its memory
  /// (usable_memory). PyTorch's caching allocator, on eight LLMs trained on A100 80GB with
  /// recomputation, ZeRO, offload or LoRA, held 9.2 GB of the 80 more than GMLake's
  /// virtual-memory stitching on average (up to 25 GB; 15 points of fragmentation, up to 33):
  /// Guo et al., "GMLake", ASPLOS 2024, arXiv:2401.08156. 9.2 / 80 = 0.115. PyTorch's
  /// `expandable_segments:True` maps its segments page by page: no source measures what it
  /// leaves, so a run that sets it says `memory.fragmentation: 0`.
  double fragmentation = 0.115;
};

/// What the live tensors of one GPU may peak at before it runs out: its memory less the
/// caching allocator's fragmentation (MemorySpec::fragmentation). 0 without a cluster.
inline double usable_memory(double device_bytes, const MemorySpec& m) {
  return device_bytes * (1.0 - m.fragmentation);
}

/// `contention:` — how work running at once on one GPU slows down.
struct ContentionSpec {
  /// Compute kernels run this much slower while communication kernels share the GPU's SMs
  /// (0.2 = 20% longer). Absent: the cost model's default (cost/constants.h).
  std::optional<double> compute_slowdown;
  /// Communication kernels run this much slower while compute kernels run beside them.
  /// Absent: the cost model's default (cost/constants.h).
  std::optional<double> comm_slowdown;
  /// Transfers and collectives crossing the same link of a GPU (its NVLink, its NIC) share the
  /// link's bandwidth equally.
  bool link_sharing = true;
};

/// `schedule:` — a registered name plus its options as text (each generator reads its own).
struct ScheduleSpec {
  std::string name = "1f1b";
  std::map<std::string, std::string> options;
  std::string origin;  ///< "file:line" (or "--set …") of the `schedule` key, for messages
  std::string csv;     ///< `schedule: {csv: path}`: a PyTorch CSV schedule (path resolved)
};

/// `costs:` — explicit durations of one micro-batch on each pipeline stage (one entry per
/// stage, or one for all). They replace the cost model for those tasks.
struct CostOverrides {
  std::vector<TimeNs> forward;
  std::vector<TimeNs> backward;  ///< fused backward (input + weight gradients)
  std::vector<TimeNs> backward_input;
  std::vector<TimeNs> backward_weight;
  std::optional<TimeNs> p2p;  ///< every stage-to-stage transfer
  /// DualPipe's overlapped forward + backward (per rank, like the others; per chunk pair it is
  /// the value / vpp). Empty: F + B, no overlap benefit.
  std::vector<TimeNs> forward_backward_overlap;
};

/// `efficiency:` — overrides of the analytic model's constants (cost/constants.h has defaults).
struct EfficiencyOverrides {
  std::optional<double> gemm;           ///< fraction of peak FLOP/s a large GEMM reaches
  std::optional<double> memory;         ///< fraction of HBM bandwidth streaming kernels reach
  std::optional<TimeNs> kernel_launch;  ///< fixed cost per kernel
  /// The CPU's time to issue one kernel (cost/constants.h kEagerHostPerKernel); 0: the CPU
  /// keeps ahead of the GPU (CUDA graphs, or unknown).
  std::optional<TimeNs> host_per_kernel;
  /// The CPU's time to issue one TP, CP or EP collective (cost/constants.h
  /// kEagerHostPerCollective under an eager or fused runtime, else host_per_kernel's).
  std::optional<TimeNs> host_per_collective;
};

/// `measured:` — what a real run of this scenario measured (one figure) and where it was
/// published, so the prediction can be checked against it (report/accuracy.h).
struct Measured {
  enum class Metric { StepTime, TokensPerS, TokensPerSPerGpu, TflopsPerGpu, Mfu };
  Metric metric = Metric::StepTime;
  double value = 0;  ///< seconds, tokens/s, TFLOP/s or a fraction, per `metric`
  std::string source;
  /// Runs measured together (one source, software and cluster) carry the same series name;
  /// `trainsim check` ranks each series' runs against each other (report/ranking.h). "": none.
  std::string series;
  /// The run's logged peak of memory its allocator handed out on its first GPU (global rank 0,
  /// pipeline stage 0: `torch.cuda.max_memory_allocated`), bytes; report/memory_report.h sets
  /// stage 0's peak less memory.runtime_overhead against it.
  std::optional<double> peak_memory;
};

struct Scenario {
  std::string source;  ///< file path it came from ("" when built in code)
  std::string name;
  std::optional<ModelSpec> model;  ///< absent: a costs-only pipeline study
  TrainingSpec training;
  ClusterSpec cluster;
  bool has_cluster = false;  ///< false: the GPU count is the layout's product, no hardware
  Layout layout;
  ScheduleSpec schedule;
  std::optional<CostOverrides> costs;
  EfficiencyOverrides efficiency;
  std::optional<double> price_per_gpu_hour;  ///< dollars
  MemorySpec memory;
  ContentionSpec contention;
  std::string calibration;           ///< `calibration:` profile path (resolved), "" for none
  std::vector<Slowdown> slowdowns;   ///< stragglers and heterogeneity (empty: all ranks equal)
  std::optional<Measured> measured;  ///< a published or measured figure to check against
  /// Per global rank: the product of the compute / link factors of the entries naming it.
  double compute_factor(int global_rank) const { return factor(global_rank, &Slowdown::compute); }
  double link_factor(int global_rank) const { return factor(global_rank, &Slowdown::link); }
  double factor(int global_rank, double Slowdown::*which) const {
    double f = 1.0;
    for (const auto& sd : slowdowns)
      for (int r : sd.ranks)
        if (r == global_rank) f *= sd.*which;
    return f;
  }
  std::string canonical_yaml;  ///< the merged, overridden scenario as YAML (for trace metadata)
  /// Where each key's value came from, by dotted path ("parallelism.pp" -> "file.yaml:7", or
  /// "--set parallelism.pp=4"): the loader fills it, code that edits a value may name itself
  /// (set_origin), and validate() uses it to place its errors.
  std::map<std::string, std::string> origins;

  /// The origin of `key`, else of its nearest parent ("slowdown[2].rank" -> "slowdown"), else
  /// the source file (or "scenario" for one built in code).
  std::string where(const std::string& key) const {
    for (std::string k = key; !k.empty();) {
      if (auto it = origins.find(k); it != origins.end()) return it->second;
      const auto cut = k.find_last_of(".[");
      if (cut == std::string::npos) break;
      k.resize(cut);
    }
    return source.empty() ? "scenario" : source;
  }
  /// The command-line edits (`--set …`, `--vary …`) of keys under `section` ("model."), each
  /// once, in key order: what a report names beside an edited preset (a whole preset or config
  /// swapped in, `section.preset` or `section.hf_config`, names itself).
  std::vector<std::string> command_line_edits(const std::string& section) const {
    std::vector<std::string> out;
    for (const auto& [key, by] : origins)
      if (key.rfind(section, 0) == 0 && key != section + "preset" && key != section + "hf_config" &&
          (by.rfind("--set ", 0) == 0 || by.rfind("--vary ", 0) == 0) &&
          std::find(out.begin(), out.end(), by) == out.end())
        out.push_back(by);
    return out;
  }
  /// Records that code (not the file) set `key`, e.g. "trainsim compare: retried at vpp 2".
  void set_origin(const std::string& key, const std::string& by) { origins[key] = by; }

  /// Micro-batches per step per pipeline: global_batch / (dp · micro_batch_size).
  int microbatches() const {
    return training.global_batch_size / (layout.dp * training.micro_batch_size);
  }
  /// Tokens consumed by one optimizer step across all replicas.
  double tokens_per_step() const {
    return static_cast<double>(training.global_batch_size) * training.seq_len;
  }
};

/// A learned absolute position table's parameters (model.position_embedding: learned, as GPT-2
/// and GPT-3, or MPT without ALiBi): a row of `hidden` per position up to the sequence length
/// (Megatron's max_position_embeddings and llm-foundry's max_seq_len, taken as training.seq_len);
/// 0 for rotary or ALiBi positions or without a model. The papers' parameter counts (and
/// ModelSpec::total_params) leave it out; what a GPU holds, gathers and updates does not.
inline std::int64_t learned_position_params(const Scenario& s) {
  if (!s.model || s.model->position != PositionEmbedding::Learned) return 0;
  return static_cast<std::int64_t>(s.training.seq_len) * s.model->hidden;
}

/// MXFP8 parameters under the distributed optimizer (training.fp8_params with fp8_recipe mxfp8,
/// ZeRO-1/2): Megatron-core cannot map their quantized storage into its contiguous parameter
/// buffer, so it all-gathers them through the gradient buffer, in that buffer's dtype, and
/// quantizes them after (--reuse-grad-buf-for-mxfp8-param-ag, which MLPerf's MXFP8 configs set
/// and Megatron-core's optimizer_config.py recommends; param_and_grad_buffer.py,
/// _post_param_sync). ZeRO-3 (its FSDP) turns that reuse off.
inline bool mxfp8_params_gathered_16bit(const Scenario& s) {
  return s.training.precision == Precision::FP8 && s.training.fp8_params &&
         s.training.fp8_recipe == Fp8Recipe::Mxfp8 && (s.layout.zero == 1 || s.layout.zero == 2);
}

}  // namespace trainsim
