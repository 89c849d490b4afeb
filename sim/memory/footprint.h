#pragma once
// How many bytes one GPU holds: the static part (weights, gradients, optimizer states, sharded by
// ZeRO as Rajbhandari et al. 2020, arXiv 1910.02054 §5, gives it) and the activations one
// micro-batch leaves on a stage between its forward and its backward. Pure functions of the
// scenario ("what"): no durations here.
#include <cstdint>  // std::int64_t
#include <span>     // std::span

#include "scenario/model.h"
#include "scenario/scenario.h"

namespace trainsim {

/// Activation bytes one micro-batch keeps for one transformer layer on one GPU, derived from
/// the tensors a Llama-style layer (RMSNorm, GQA with FlashAttention, SwiGLU) stores for its
/// backward, in 16-bit unless noted; n = micro-batch tokens, t = TP degree:
///   replicated under TP without SP: both norms' inputs and outputs   4·h
///   sharded by TP: Q, K, V (a·d + 2·k·d), attention output h, gate and up 2f, down input f
///   FlashAttention's softmax statistics: 4 bytes · heads (fp32, per token)
/// so 2n·(4h + (2h + 2kd + 3f)/t) + 4n·a/t without SP and everything / t with SP. For
/// Llama-3.1-8B (6h + 2kd + 3f = 17h) that is 34·n·h bytes at t = 1: Korthikanti et al.'s
/// 34·s·b·h, whose GPT layer differs but lands on the same constant. FlashAttention keeps no
/// s² scores, so selective recompute (which recomputes the attention core) saves nothing beyond
/// that; full recompute keeps only the layer input, 2n·h (/ t with SP). A GELU MLP stores its
/// input and the activation's input and output: 2f for the 3f of SwiGLU. A MoE layer
/// (`moe_layer`) keeps, in place of the dense MLP's, each routed token's copy in expert order
/// and its expert's output (2·top_k·h, replicated like the norms), the router's fp32
/// probabilities (4 bytes · E) and the MLP tensors of top_k experts and the shared experts
/// (sharded). With SP every term is divided by t but the routed copy (top_k·h), which the
/// dispatcher gathers over TP for the experts' GEMMs: whole on each rank. `fp8`
/// (training.precision: fp8): the four linear GEMMs' inputs that Transformer Engine keeps for the
/// weight gradient are its FP8 casts, 1 byte each: both norms' outputs (2h), the attention output
/// (a·dv) and the down projection's input (f; top_k experts' and the shared experts' in a MoE
/// layer). Selective recompute's `modules` (training.recompute_modules) keep less: `layernorm`
/// drops the outputs of the norms Megatron-core runs apart from a GEMM (latent attention's input
/// norm, a MoE layer's pre-MLP norm; Transformer Engine fuses the others into their GEMMs),
/// `mla_up_proj` latent attention's per-head Q, K and V, `mlp` a dense layer's MLP tensors and
/// the pre-MLP norm's output inside it (only the layer's residual kept), `moe` everything of a
/// MoE layer's MLP past its input (routed copies, router probabilities, experts' and shared
/// experts' tensors), `moe_act` the routed experts' activation outputs, `shared_experts` the
/// shared experts' tensors; an FP8 copy goes with its tensor.
/// Under LoRA (`lora`: the adapters' targets, none without LoRA) the frozen projections keep
/// no input for a weight gradient (Transformer Engine's backward_needs_input): the norms'
/// outputs and the down projection's input go, but where an adapter needs them for its own
/// weight gradient (16-bit, its dropout's 1-byte mask beside it with `lora_masks`).
/// Ops run op by op (`eager`, training.eager_ops) keep what PyTorch's autograd saves for them:
/// an eager SwiGLU one more f-wide tensor (silu's output), an eager RMSNorm its fp32 input and
/// normalized value (2h words more per norm; h under LoRA).
/// `fp8`: the bytes each GEMM input kept in FP8 saves against 16 bits (0 without FP8, 1 in FP8,
/// 1.4375 in NVFP4).
/// `fp8_activation_store` (training.fp8_activation_store): a gated MLP's activation input, the
/// 2·f-wide output of its up projections (of what selective recompute keeps), at 1 byte an
/// element instead of 2.
/// `experts_whole` (Layout::experts_span_tp): the routed experts held whole on each TP rank,
/// their tokens this rank's n / t alone rather than the TP group's gathered.
double layer_activation_bytes(const ModelSpec& m, std::int64_t tokens, int tp, bool sp,
                              Recompute recompute, bool moe_layer = false, double fp8 = 0,
                              const RecomputeModules& modules = {.core_attn = false},
                              const LoraTargets& lora = {}, bool lora_masks = false,
                              const EagerOps& eager = {}, bool fp8_activation_store = false,
                              bool experts_whole = false);

/// What one layer keeps beyond layer_activation_bytes, per micro-batch and GPU, for the
/// attention kernel and dropout `tr` chooses, for a layer recomputed as `recompute` says (0
/// under full recompute; selective recompute of the attention core recomputes its scores but
/// keeps the hidden-dropout masks, which lie outside it).
/// Unfused attention stores the softmax output, 2 bytes per score, and with dropout its 1-byte mask
/// and 2-byte output: 2·E or 5·E bytes for E = b·(a/t)·s² scores (Korthikanti et al. 2022: the
/// 5·a·s/h term of 34 + 5·a·s/h). Hidden dropout (after the attention output and after the MLP)
/// stores two 1-byte masks of the n·h hidden state
/// (/ t with sequence parallelism). Under context parallelism (`cp`) a GPU holds s / cp of
/// each sequence.
double attention_extra_bytes(const ModelSpec& m, const TrainingSpec& tr, int tp, bool sp,
                             Recompute recompute, int cp = 1);

/// Activation bytes one micro-batch keeps on one GPU of global stage `stage` (one chunk of
/// pp·vpp): its layers (with `training.recompute_layers`, the first N fully recomputed, the
/// others keeping everything), plus on the last stage the LM head's input and the logits for the
/// loss (vocabulary-parallel, / t): fp32, or 16-bit with `training.fused_loss` or
/// `unfused_loss: pytorch-16bit`; full recompute does
/// not drop them. 0 without a model.
double stage_activation_bytes(const Scenario& s, int stage);
/// What the loss holds for an instant beyond stage_activation_bytes on the head's stage, per
/// micro-batch: unfused (training.fused_loss false), the LM head's 16-bit logits, which its
/// caller still holds, and their fp32 upcast (`logits.float()`), which the call holds while the
/// loss computes into the fp32 tensor it keeps (PyTorch's log-softmax output; nanotron's
/// max-subtracted copy, exponentiated and normalized in place): 6 bytes a logit
/// (vocabulary-parallel, / t); Megatron's vocab_parallel_cross_entropy (`unfused_loss:
/// vocab-parallel`) works in place on the upcast, the tensor it keeps: the 16-bit logits beside
/// it, 2 bytes; without the upcast (`unfused_loss: pytorch-16bit`) the 16-bit logits beside the
/// 16-bit output it keeps, 2 bytes.
/// PyTorch's backward holds two gradients (fp32, or 16-bit without the upcast) beside the kept
/// output for a moment (not counted). 0
/// fused, off the head's stage, or without a model. Multi-token prediction's heads run one
/// after another: one head's bytes.
double loss_transient_bytes(const Scenario& s, int stage);
/// What a backward holds for a while beyond stage_activation_bytes when its layers are
/// recomputed, per micro-batch: the one layer whose forward runs again just before its
/// backward (Megatron's checkpointing replays a layer at a time, its rebuilt tensors freed by
/// that layer's backward) holds what it would keep without recompute, less what its checkpoint
/// already keeps. Full recompute: a layer's whole activations less its stored input (the 34·s·b·h
/// + 5·a·s²·b of Korthikanti et al. 2022 less 2·s·b·h for an unfused GPT layer); selective
/// recompute of the attention core: the scores, softmax and dropout it rebuilds (5·a·s²·b there;
/// nothing under FlashAttention, which keeps no scores). The larger of a dense and a MoE layer
/// where the recomputed layers hold both. 0 without recompute or a model.
double recompute_transient_bytes(const Scenario& s, int stage);
/// Of stage_activation_bytes, what the first `training.offload_activations` layers keep (each
/// as that count does: recomputed or not, dense or MoE, with its attention extras): the bytes
/// activation offload moves to host memory and back per micro-batch. 0 without offload.
double offloaded_activation_bytes(const Scenario& s, int stage);

/// The static memory of one GPU holding global stages `stages_here` (a pipeline rank's chunks;
/// the schedule's placement says which), in bytes.
struct StaticMemory {
  /// Count on this GPU: Ψ, a MoE layer's routed experts / ep. ZeRO shards the dense part over
  /// the dp ranks and the experts over the dp / ep ranks holding the same ones: either way
  /// (stage parameters with every expert) / dp per GPU.
  double parameters = 0;
  double weights = 0;  ///< 16-bit parameters (2Ψ), / dp under ZeRO-3; with training.fp8_params
                       ///< not the layers' weights, held in fp8_weights only; under LoRA
                       ///< the adapters' too
  /// 16-bit gradients (2Ψ), + 4Ψ fp32 accumulation; / dp under ZeRO-2/3. Under LoRA
  /// (training.lora_rank) Ψ here and in `optimizer` is the adapters' count, not the model's.
  double gradients = 0;
  double optimizer = 0;  ///< fp32 master + Adam m, v (12Ψ), / dp under ZeRO-1/2/3; 0 under
                         ///< training.optimizer sgd
  /// Runtime overhead (memory.runtime_overhead), with dp > 1 one gradient bucket in flight (with
  /// memory.dp_buckets `copy` under ZeRO 0 or 1, PyTorch DDP's: every bucket, a 16-bit copy of
  /// each trained gradient, 2 bytes a trained parameter), and
  /// under training.precision fp8 the layers' linear weights in FP8, row- and column-wise
  /// (Hopper's FP8 GEMM takes both operands K-major): 2 bytes per such parameter (fp8_weights).
  double buffers = 0;
  double fp8_weights = 0;  ///< the FP8 weight copies, counted in buffers
  /// Of `buffers`, what a GPU holds whatever its stages (the runtime overhead, one gradient
  /// bucket); the rest (FP8 weights, DDP's copied buckets) grows with the stages' parameters.
  double fixed_buffers = 0;
  double total() const { return weights + gradients + optimizer + buffers; }
};
/// What one GPU holding the model stages `stages_here` keeps throughout the step. With one
/// pipeline (`chains` 1) a tied head on the embedding's own GPU shares its table; DualPipe's two
/// pipelines hold two copies of the model, each head another copy's.
StaticMemory static_memory(const Scenario& s, std::span<const int> stages_here, int chains = 1);

}  // namespace trainsim
