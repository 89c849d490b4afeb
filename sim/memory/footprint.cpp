#include "memory/footprint.h"

#include <algorithm>

#include "core/error.h"
#include "scenario/cluster.h"
#include "scenario/partition.h"

namespace trainsim {
namespace {
constexpr double kHalf = 2;   // bytes per bf16/fp16 element
constexpr double kFloat = 4;  // bytes per fp32 element
constexpr double kAdamBytesPerParam =
    12;  // fp32 master, m, v (ZeRO, arXiv 1910.02054 §3.1: K = 12)
}  // namespace

double layer_activation_bytes(const ModelSpec& m, std::int64_t tokens, int tp, bool sp,
                              Recompute recompute, bool moe_layer, double fp8,
                              const RecomputeModules& modules, const LoraTargets& lora,
                              bool lora_masks, const EagerOps& eager, bool fp8_activation_store,
                              bool experts_whole) {
  const double n = static_cast<double>(tokens), h = static_cast<double>(m.hidden);
  const double t = tp;
  if (recompute == Recompute::Full) return kHalf * n * h / (sp ? t : 1.0);
  const double a = m.heads, dq = static_cast<double>(m.qk_head_dim());
  const double dv = static_cast<double>(m.v_head_dim());
  // Q, K and V, and the attention output (a·dv, the output projection's input). Latent
  // attention keeps K and V per head (a heads) and its latents, which every TP rank computes
  // whole: q_rank + kv_rank + rope_dim.
  const double q = a * dq, out = a * dv;
  // Past the key-value heads each TP rank keeps one of them (ModelSpec::kv_heads_per_rank).
  const double kv = m.is_mla() ? a * (dq + dv) : m.kv_heads_per_rank(tp) * t * (dq + dv);
  // SwiGLU run op by op (F.silu(gate) * up): the product's backward keeps silu's output beside
  // the gate and up projections' (which silu's and the product's keep): one more f-wide tensor
  // than the fused kernel, which recomputes it from the gate.
  const bool eager_swiglu = eager.swiglu && m.mlp == MlpKind::SwiGLU;
  const double mats = static_cast<double>(m.mlp_matrices()) + (eager_swiglu ? 1.0 : 0.0);
  double replicated = 4 * h;  // norm inputs and outputs
  // RMSNorm run op by op (x.float(), pow, mean, rsqrt, multiply, cast, times the weight, as
  // Hugging Face's LlamaRMSNorm): pow's and the multiply's backward keep the fp32 input, two
  // 16-bit words an element, where a fused kernel keeps the 16-bit input, one; and the weight's
  // product keeps the normalized 16-bit value for the weight's gradient, one more (not under
  // LoRA, whose norms are frozen). Per norm 2h words more, h under LoRA. PyTorch's LayerNorm is
  // one kernel either way.
  const bool eager_rmsnorm = eager.norm && m.norm == NormKind::RMSNorm;
  const bool lora_on = lora != LoraTargets{};
  if (eager_rmsnorm) replicated += 2 * (lora_on ? 1.0 : 2.0) * h;  // two norms a layer
  if (m.is_mla()) replicated += static_cast<double>(m.mla.q_rank + m.mla.kv_rank + m.mla.rope_dim);
  double mlp = mats * static_cast<double>(m.ffn_hidden);
  double down_input = static_cast<double>(m.ffn_hidden);  // the down projection's input
  // The routed tokens in expert order and the experts' outputs (k·h each, the combine's
  // backward needs them), the router's fp32 probabilities (2E 16-bit words), and each routed
  // and shared expert's own MLP tensors. A capacity factor c > 1 pads the routed copies and
  // the experts' tensors by c.
  const double k = m.moe.top_k * m.moe.capacity_factor;
  // Under SP at tp > 1 Megatron-core's all-to-all dispatcher all-gathers over the TP group the
  // tokens dispatched to this rank's experts, which the expert GEMMs keep as their input
  // (token_dispatcher.py, dispatch_postprocess; the cost model's all-gather of n·k·c tokens):
  // that routed copy is whole on each rank, not a 1/t share of it. Experts whole on each rank
  // (expert TP 1) are sent this rank's n / t tokens alone: a 1/t share.
  const double routed_gathered = moe_layer && sp && tp > 1 && !experts_whole ? k * h : 0.0;
  double gathered = routed_gathered;  // 16-bit words per token whole under SP
  if (moe_layer) {
    replicated += 2 * k * h - routed_gathered + 2.0 * m.moe.experts;
    down_input =
        k * static_cast<double>(m.expert_ffn()) + static_cast<double>(m.moe.shared_ffn_hidden);
    mlp = mats * down_input;
  }
  double sharded = q + out + kv + mlp;            // Q, K, V, attention output, MLP tensors
  const double stats = kFloat * n * m.heads / t;  // FlashAttention log-sum-exp, fp32
  // Selective recompute's modules: what each leaves out, replicated (norm outputs, routed
  // copies) and sharded (MLP tensors), and of the GEMM inputs kept in FP8, the norms' outputs
  // (`norms_fp8`) and the down projections' inputs (`down_fp8`).
  double norms_fp8 = 2 * h, down_fp8 = down_input;
  if (recompute == Recompute::Selective) {
    if (modules.layernorm) {
      const double apart = (m.is_mla() ? 1.0 : 0.0) + (moe_layer ? 1.0 : 0.0);
      replicated -= apart * h;
      norms_fp8 -= apart * h;
    }
    if (modules.mla_up_proj && m.is_mla()) sharded -= q + kv;
    if (modules.mlp && !moe_layer) {
      replicated -= h;  // the pre-MLP norm's output, inside the fused MLP
      norms_fp8 -= h;
      sharded -= mlp;
      down_fp8 = 0;
    }
    if (moe_layer) {
      const double routed = k * static_cast<double>(m.expert_ffn());
      const double shared = static_cast<double>(m.moe.shared_ffn_hidden);
      if (modules.moe) {
        replicated -= 2 * k * h - routed_gathered + 2.0 * m.moe.experts;
        gathered -= routed_gathered;
        sharded -= mlp;
        down_fp8 = 0;
        // The checkpoint keeps its input, the pre-MLP norm's output, in 16 bits (unless
        // `layernorm` discards it, above): no FP8 copy of it.
        if (!modules.layernorm) norms_fp8 -= h;
      } else {
        if (modules.moe_act) {
          sharded -= routed;
          down_fp8 -= routed;
        }
        if (modules.shared_experts) {
          sharded -= mats * shared;
          down_fp8 -= shared;
        }
      }
    }
  }
  // LoRA: a frozen projection keeps no input of its own (Transformer Engine's
  // backward_needs_input). The norms' outputs (QKV's and the MLP's inputs) and the down
  // projection's input stay only as an adapter's input, in 16 bits: a column-parallel adapter's
  // whole, under SP the gathered sequence (NeMo's linear_in runs without SP). The attention
  // output stays as the attention kernel's own (its backward reads it), in 16 bits. An
  // adapter's dropout keeps a 1-byte mask of its input (under SP of the rank's share, taken
  // before the gather) and, beside the attention output, its own 16-bit output. What selective
  // recompute's `mlp` already let go stays gone. Megatron-core's activation_func_fp8_input_store:
  // the gated activation's input, two f-wide halves of each kept MLP tensor (the down projections'
  // input widths selective recompute left), saved in FP8
  // (megatron/core/fusions/fused_bias_swiglu.py: `input.to(torch.float8_e4m3fn)`), LoRA or not: 1
  // byte less an element, over TP.
  const double act_fp8 = fp8_activation_store && m.mlp == MlpKind::SwiGLU ? 2 * down_fp8 : 0.0;
  double fp8_out = out, masks = 0;
  if (lora_on) {
    const bool mlp_gone = recompute == Recompute::Selective && modules.mlp && !moe_layer;
    replicated -= h;  // the first norm's output
    if (lora.qkv) gathered += h;
    if (!mlp_gone) {
      replicated -= h;  // the second norm's output
      if (lora.mlp_up) gathered += h;
      if (!lora.mlp_down) sharded -= down_input;
    }
    norms_fp8 = down_fp8 = fp8_out = 0;
    if (lora_masks) {
      const double on_norms = (lora.qkv ? h : 0) + (lora.mlp_up && !mlp_gone ? h : 0);
      const double on_shards =
          (lora.attn_out ? out : 0) + (lora.mlp_down && !mlp_gone ? down_input : 0);
      // NeMo's ParallelLinearAdapter drops out its input before gathering it over TP
      // (dropout_position 'pre', its default: nemo/collections/llm/peft/utils.py): under SP a
      // column-parallel adapter's mask is of the rank's share of the sequence.
      masks = n * (on_norms / (sp ? t : 1.0) + on_shards / t);
      if (lora.attn_out) sharded += out;  // the dropout's copy of the attention output
    }
  }
  const double per_token = sp ? (replicated + sharded) / t : replicated + sharded / t;
  // FP8: the GEMM inputs kept at 1 byte instead of 2, `fp8` bytes less each (the norm outputs
  // replicated like the norms, the rest sharded).
  const double fp8_kept =
      fp8 > 0 ? (sp ? (norms_fp8 + fp8_out + down_fp8) / t : norms_fp8 + (fp8_out + down_fp8) / t)
              : 0.0;
  return kHalf * n * (per_token + gathered) - n * fp8_kept * fp8 - n * act_fp8 / t + stats + masks;
}

double attention_extra_bytes(const ModelSpec& m, const TrainingSpec& tr, int tp, bool sp,
                             Recompute recompute, int cp) {
  if (recompute == Recompute::Full) return 0;
  // Selective recompute of the attention core keeps none of its scores; the bias-dropout-adds
  // after the attention and the MLP lie outside it (Megatron's checkpointed core attention, and
  // Korthikanti et al.'s 34·s·b·h, which counts their masks): their masks stay.
  const bool core = recompute == Recompute::Selective && recompute_modules(tr).core_attn;
  const double seq = tr.seq_len / static_cast<double>(cp), b = tr.micro_batch_size;
  const double scores = b * m.heads / static_cast<double>(tp) * seq * seq;
  double bytes = 0;
  if (tr.attention == AttentionKernel::Unfused && !core)
    bytes += (tr.dropout > 0 ? 5.0 : 2.0) * scores;
  if (tr.dropout > 0) bytes += 2.0 * b * seq * static_cast<double>(m.hidden) / (sp ? tp : 1);
  return bytes;
}

namespace {

// What the layers of one stage keep per micro-batch, by kind: the first `redone` fully
// recomputed (their input only), then the dense layers (a model's first), then the MoE ones.
struct StageLayers {
  StageContent st;
  std::int64_t tokens = 0;  // a micro-batch's tokens on this GPU (÷ cp)
  int redone = 0, dense = 0;
  double full = 0, dense_kept = 0, moe_kept = 0;
  // What a dense and a MoE layer keep without recompute (= *_kept when nothing is recomputed
  // selectively): what a recomputing backward's replayed layer holds.
  double dense_whole = 0, moe_whole = 0;

  // The bytes of the stage's first n layers.
  double first(int n) const {
    const int r = std::min(n, redone);
    const int d = std::max(0, std::min(n, dense) - redone);
    return r * full + d * dense_kept + (n - r - d) * moe_kept;
  }
};

// A micro-batch's tokens on one GPU: context parallelism splits each sequence cp ways.
std::int64_t gpu_microbatch_tokens(const Scenario& s) {
  return static_cast<std::int64_t>(s.training.seq_len) * s.training.micro_batch_size / s.layout.cp;
}

// What global stage `stage` of the scenario's split holds.
StageContent stage_content(const Scenario& s, int stage) {
  const int stages = s.layout.pp * s.layout.vpp;
  TRAINSIM_CHECK(stage >= 0 && stage < stages, "stage out of range");
  return partition_model(*s.model, stages, s.layout.split)[static_cast<std::size_t>(stage)];
}

StageLayers stage_layers(const Scenario& s, int stage) {
  const ModelSpec& m = *s.model;
  StageLayers out;
  out.st = stage_content(s, stage);
  out.tokens = gpu_microbatch_tokens(s);
  const int t = s.layout.tp;
  const bool sp = s.layout.sequence_parallel;
  // Full recompute of the first N layers only: the rest keep everything, as without it.
  const Recompute mode = s.training.recompute;
  const Recompute rest = mode == Recompute::Full ? Recompute::None : mode;
  // Bytes an FP8 GEMM input kept for the backward saves against 16 bits: 1, or under NVFP4
  // 2 − (0.5 + 1/16) (kNvfp4ElementBytes).
  const double fp8 = s.training.precision != Precision::FP8      ? 0.0
                     : s.training.fp8_recipe == Fp8Recipe::Nvfp4 ? kHalf - kNvfp4ElementBytes
                                                                 : 1.0;
  out.redone = recomputed_layers(s.training, out.st.layers, out.st.mtp);
  out.dense = out.st.layers - m.moe_layers_in(out.st.first_layer, out.st.layers);
  out.full = layer_activation_bytes(m, out.tokens, t, sp, Recompute::Full);
  const RecomputeModules modules = recompute_modules(s.training);
  const LoraTargets lora = lora_targets(s.training);
  const bool masks = s.training.lora_dropout > 0;
  const EagerOps eager = eager_ops(s.training);
  // A layer's bytes kept under `r`, with its attention extras.
  const auto kept = [&](Recompute r, bool moe_layer) {
    return layer_activation_bytes(m, out.tokens, t, sp, r, moe_layer, fp8, modules, lora, masks,
                                  eager, s.training.fp8_activation_store,
                                  s.layout.experts_span_tp()) +
           attention_extra_bytes(m, s.training, t, sp, r, s.layout.cp);
  };
  out.dense_kept = kept(rest, false);
  out.moe_kept = kept(rest, true);
  out.dense_whole = rest == Recompute::None ? out.dense_kept : kept(Recompute::None, false);
  out.moe_whole = rest == Recompute::None ? out.moe_kept : kept(Recompute::None, true);
  return out;
}

}  // namespace

double stage_activation_bytes(const Scenario& s, int stage) {
  if (!s.model) return 0;
  const ModelSpec& m = *s.model;
  const StageLayers l = stage_layers(s, stage);
  double bytes = l.first(l.st.layers);
  const int t = s.layout.tp;
  const double n = static_cast<double>(l.tokens), h = static_cast<double>(m.hidden);
  const double sp = s.layout.sequence_parallel ? t : 1;
  if (l.st.head) {
    // The final norm's input, and the loss's fp32 log-probabilities for the backward, or 16-bit
    // ones (unfused_loss: pytorch-16bit), or fused (training.fused_loss) the 16-bit logits with
    // one log-sum-exp per token: for the model's head and each multi-token prediction module's.
    const bool half = s.training.fused_loss || s.training.unfused_loss == UnfusedLoss::PyTorch16;
    const double logits = (half ? kHalf : kFloat) * n * static_cast<double>(m.vocab) / t;
    bytes += (1 + l.st.mtp) * (kHalf * n * h / sp + logits);
  }
  // A multi-token prediction module (its layer counted above) keeps the embedding's output
  // (enorm's input), the hidden state hnorm normalizes (the decoder's or the module before's
  // normalized output) and the concatenation [n, 2h] (eh_proj's input; under FP8 also its FP8
  // copy). Under full recompute (Megatron-core's uniform method) the checkpointed block keeps
  // only its inputs: the embedding's output beside the hidden state its layer counts.
  if (l.st.mtp > 0) {
    const bool checkpointed = recomputes_mtp_blocks(s.training);
    const double fp8 =
        s.training.precision == Precision::FP8 && !checkpointed ? 2 * n * h / sp : 0.0;
    bytes += l.st.mtp * (kHalf * (checkpointed ? 1 : 4) * n * h / sp + fp8);
  }
  return bytes;
}

double loss_transient_bytes(const Scenario& s, int stage) {
  if (!s.model || s.training.fused_loss || !stage_content(s, stage).head) return 0;
  // The 16-bit logits and their fp32 upcast, beside the fp32 tensor the loss keeps; with no
  // upcast (pytorch-16bit) the 16-bit logits beside the 16-bit log-probabilities it keeps.
  // Megatron's vocab_parallel_cross_entropy works in place on the upcast, which becomes the
  // softmax kept: only the 16-bit logits beside it (megatron/core/tensor_parallel/
  // cross_entropy.py: `.float()`, then `-=`, `torch.exp(out=)`, `div_`). nanotron's subtracts
  // into a new tensor while the upcast stays (nanotron/parallel/tensor_parallel/functional.py,
  // sharded_cross_entropy's `.to(dtype)`, then `sharded_logits - logits_max`): as PyTorch's.
  const UnfusedLoss loss = s.training.unfused_loss;
  const double per_logit =
      loss == UnfusedLoss::PyTorch16 || loss == UnfusedLoss::VocabParallel ? kHalf : kHalf + kFloat;
  return per_logit * static_cast<double>(gpu_microbatch_tokens(s)) *
         static_cast<double>(s.model->vocab) / s.layout.tp;
}

double recompute_transient_bytes(const Scenario& s, int stage) {
  if (!s.model || s.training.recompute == Recompute::None) return 0;
  const StageLayers l = stage_layers(s, stage);
  // Full recompute replays one of its first `redone` layers, which keep their input (`full`);
  // selective recompute any layer, which keeps what the modules leave (`*_kept`).
  const bool full = s.training.recompute == Recompute::Full;
  const int replayed = full ? l.redone : l.st.layers;
  if (replayed <= 0) return 0;
  const int moe = s.model->moe_layers_in(l.st.first_layer, replayed);
  const double dense = replayed > moe ? l.dense_whole - (full ? l.full : l.dense_kept) : 0.0;
  const double sparse = moe > 0 ? l.moe_whole - (full ? l.full : l.moe_kept) : 0.0;
  return std::max(dense, sparse);
}

double offloaded_activation_bytes(const Scenario& s, int stage) {
  if (!s.model || s.training.offload_activation_layers <= 0) return 0;
  const StageLayers l = stage_layers(s, stage);
  return l.first(offloaded_layers(s.training, l.st.layers));
}

StaticMemory static_memory(const Scenario& s, std::span<const int> stages_here, int chains) {
  StaticMemory out;
  if (!s.model) return out;
  const int stages = s.layout.pp * s.layout.vpp;
  const auto parts = partition_model(*s.model, stages, s.layout.split);
  double every_expert = 0;  // the stages' parameters with all of their experts
  for (int st : stages_here) {
    TRAINSIM_CHECK(st >= 0 && st < stages, "stage out of range");
    const StageContent& part = parts[static_cast<std::size_t>(st)];
    const std::int64_t positions = learned_position_params(s);
    out.parameters += static_cast<double>(
        stage_params(*s.model, part, s.layout.tp, stages, s.layout.ep, s.layout.etp, positions));
    every_expert +=
        static_cast<double>(stage_params(*s.model, part, s.layout.tp, stages, 1, 0, positions));
  }
  // A tied head on the embedding's own GPU uses its table, not a copy; so does multi-token
  // prediction's lookup, also on a DualPipe rank (DeepSeek-V3 §3.2.3: the module shares the
  // embedding of the model copy beside it).
  const double twice =
      chains == 1 || s.model->mtp_layers > 0
          ? static_cast<double>(tied_table_counted_twice(*s.model, parts, stages_here, s.layout.tp))
          : 0.0;
  out.parameters -= twice;
  every_expert -= twice;
  // Unsharded: what this GPU holds; sharded by ZeRO: dense / dp + experts / ep / (dp / ep),
  // over the dp · cp ranks of the DP group.
  const double psi = out.parameters, shard = every_expert / s.layout.dp_ranks();
  const int zero = s.layout.zero;
  out.weights = kHalf * (zero >= 3 ? shard : psi);
  // LoRA: the model's weights are frozen; what trains, and so has gradients and optimizer
  // states, is the adapters (16-bit weights of their own beside the frozen ones).
  double lora = 0;
  if (s.training.lora_rank > 0)
    for (int st : stages_here)
      lora += static_cast<double>(stage_lora_params(*s.model, parts[static_cast<std::size_t>(st)],
                                                    s.layout.tp, s.training));
  const double trained = s.training.lora_rank > 0 ? lora : psi;
  const double trained_shard = s.training.lora_rank > 0 ? lora / s.layout.dp_ranks() : shard;
  out.weights += kHalf * (zero >= 3 ? lora / s.layout.dp_ranks() : lora);
  // Megatron's fp32 main gradients take the 16-bit gradients' place (its gradient buffer is
  // fp32; the weight-gradient GEMMs accumulate into it): 4 bytes per parameter, not 2 + 4
  // (Megatron-LM README, distributed optimizer: bf16 parameters with fp32 gradients take 18
  // bytes per parameter undistributed, 6 + 12/d distributed).
  const double grad_bytes = s.training.fp32_grad_accumulation ? kFloat : kHalf;
  out.gradients = grad_bytes * (zero >= 2 ? trained_shard : trained);
  // ZeRO-Offload keeps the master weights and Adam states in host memory; plain SGD has neither.
  out.optimizer = s.training.offload == Offload::Optimizer || s.training.optimizer == Optimizer::Sgd
                      ? 0.0
                      : kAdamBytesPerParam * (zero >= 1 ? trained_shard : trained);
  // With dp > 1, one gradient bucket in flight, or under PyTorch DDP's copied buckets (ZeRO 0
  // or 1) every trained gradient's 16-bit copy.
  const bool copies = s.memory.dp_buckets == DpBuckets::Copy && zero <= 1;
  out.fixed_buffers =
      s.memory.runtime_overhead + (s.layout.dp_ranks() > 1 && !copies ? s.memory.bucket_size : 0);
  out.buffers = out.fixed_buffers + (s.layout.dp_ranks() > 1 && copies ? kHalf * trained : 0);
  if (s.training.precision == Precision::FP8) {
    // The layers' linear weights: all but the embedding and head (vocabulary-parallel) and the
    // norms (2h per layer, negligible and not subtracted).
    const ModelSpec& m = *s.model;
    const double table = static_cast<double>(m.vocab) * static_cast<double>(m.hidden) / s.layout.tp;
    double linear = psi;
    for (int st : stages_here) {
      const StageContent& part = parts[static_cast<std::size_t>(st)];
      if (part.embedding) linear -= table;
      if (part.head && !(m.tied_embeddings && (part.embedding || twice > 0))) linear -= table;
      // Multi-token prediction's copy of an untied embedding (stage_params).
      if (part.mtp > 0 && !part.embedding && !m.tied_embeddings && twice == 0) linear -= table;
    }
    const double held = std::max(0.0, linear) / (zero >= 3 ? s.layout.dp_ranks() : 1);
    // The FP8 copy and, where the GPU's FP8 GEMMs need it (Hopper, not Blackwell), its
    // transpose (cluster.h, GpuPreset::fp8_any_layout).
    const GpuPreset* gpu = find_gpu_preset(s.cluster.gpu.preset);
    // Without the transpose cache (training.fp8_transpose_cache) FP8 parameters hold none.
    // MXFP8 keeps both of a weight's block-scaled layouts on any GPU (its blocks run along
    // the reduction, which the forward and the input gradient take on different axes).
    const bool transposed = block_scaled(s.training.fp8_recipe) ||
                            (!(gpu && gpu->fp8_any_layout) &&
                             !(s.training.fp8_params && !s.training.fp8_transpose_cache));
    // NVFP4's copies: half a byte and a scale per 16 values each.
    const double element = s.training.fp8_recipe == Fp8Recipe::Nvfp4 ? kNvfp4ElementBytes : 1.0;
    out.fp8_weights = (transposed ? 2 : 1) * held * element;
    out.buffers += out.fp8_weights;
    // FP8 parameters: the FP8 copy is the weight; its 16-bit one is gone.
    if (s.training.fp8_params) out.weights -= kHalf * held;
  }
  return out;
}

}  // namespace trainsim
