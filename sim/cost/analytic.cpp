#include "cost/analytic.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>

#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "cost/constants.h"
#include "cost/fp8_gemm.h"
#include "cost/gpu_spread.h"
#include "cost/interpolate.h"
#include "scenario/scenario_schema.h"

namespace trainsim {
namespace {
// A preset name as a GPU model is written (b200 -> B200).
std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

double main_grad_visible_share(double tokens) {
  const auto [i, f] = locate_log2(constants::kMainGradVisibleTokens, tokens);
  const auto& share = constants::kMainGradVisibleShare;
  return (1 - f) * share[i] + f * share[i + 1];
}

AnalyticConstants resolve_constants(const EfficiencyOverrides& o, const DeviceSpec& gpu,
                                    const LinkSpec& intra_node, AttentionKernel attention,
                                    bool dropout, std::optional<CudnnVersion> cudnn,
                                    double head_dim) {
  AnalyticConstants k;
  k.preset = find_gpu_preset(gpu.preset);
  k.gemm_efficiency = constants::kGemmEfficiency;
  k.memory_efficiency = o.memory.value_or(constants::kMemoryEfficiency);
  k.kernel_launch = o.kernel_launch ? to_seconds(*o.kernel_launch) : constants::kKernelLaunch;
  std::vector<std::string> from;
  if (!o.gemm)
    if (const GemmEfficiency* g = GemmEfficiency::for_preset(gpu.preset)) {
      k.gemm_sweep = g;
      if (const GpuPreset* p = find_gpu_preset(g->measured_on()))
        k.gemm_sweep_scale = gpu.peak_flops / p->device.peak_flops;
      from.push_back(fmt::format("GEMMs by shape ({}; at most {:.0f} TFLOP/s, sustained)",
                                 g->source(), g->sustained_tflops() * k.gemm_sweep_scale));
    }
  // FlashAttention-3 has no dropout: a run with attention dropout runs FlashAttention-2.
  const bool fa2_for_fa3 = attention == AttentionKernel::Flash3 && dropout;
  if (const AttentionData* a = find_attention_data(
          gpu.preset, fa2_for_fa3 ? AttentionKernel::Flash2 : attention, cudnn)) {
    k.attention = a;
    // Which release a cuDNN curve prices: the run's (training.cudnn_version), or the newest.
    std::string release;
    if (attention == AttentionKernel::Cudnn)
      release = cudnn ? fmt::format(", for the run's cuDNN {}.{}", cudnn->major, cudnn->minor)
                      : ", the newest release measured";
    // A head dimension below the only one measured on this GPU comes from another's ratio.
    const std::string note = a->head_dim_note(head_dim);
    const std::string head = note.empty() ? "" : "; " + note;
    from.push_back(fmt::format("attention by sequence length ({}{}{}{}){}", a->source, release,
                               fa2_for_fa3 ? "; FlashAttention-3 has no dropout" : "", head,
                               gpu.sms > 0 ? " and heads per launch (measured on an H200)" : ""));
  }
  // The measured collective sweep holds for the preset's own NVSwitch. A scenario that changes
  // the link's bandwidth keeps its latency floor and ramp, the rest stretched by the ratio; one
  // that changes its latency shifts every size by the difference on each ring hop, as α–β
  // counts them: either way the step moves smoothly with the value.
  if (const GpuPreset* p = find_gpu_preset(gpu.preset))
    if (const CollectiveCurve* c = CollectiveCurve::for_preset(gpu.preset);
        c && intra_node.bandwidth > 0) {
      k.collectives = c;
      k.collective_bandwidth_scale = p->intra_node.bandwidth / intra_node.bandwidth;
      k.collective_hop_shift = intra_node.latency - p->intra_node.latency;
      std::string changed;
      if (k.collective_bandwidth_scale != 1.0)
        changed += fmt::format("; its bandwidth-bound part × {:.2f} for {:.0f} GB/s",
                               k.collective_bandwidth_scale, intra_node.bandwidth / 1e9);
      if (k.collective_hop_shift != 0)
        changed += fmt::format("; {:+.2f} us a ring hop for {:.2f} us",
                               k.collective_hop_shift * 1e6, intra_node.latency * 1e6);
      from.push_back(fmt::format("collectives in a node by size ({}{})", c->source(), changed));
    }
  if (o.gemm) k.gemm_efficiency = *o.gemm;
  k.sources = fmt::format("{}", fmt::join(from, "; "));
  return k;
}

namespace {

// The measured network between nodes (cluster.network; cost/internode_sweep.h), or nullptr: the
// tuning model alone. It scales NCCL's tuning model by what the measured machine showed over
// what the model says of that machine (measured_over_model), the model then priced on the
// scenario's links, any GPU's: a scenario that sets either link's bandwidth or latency (an
// H800's NVLink, a slower network) keeps the correction, so a network 0.2 % faster is a step no
// more than that faster, not the uncorrected model's (up to 2.5 times quicker rings).
const InterNodeSweep* inter_node_network(const Scenario& s) {
  const std::string& preset = s.cluster.gpu.preset;
  switch (s.cluster.network) {
    case Network::Preset:
      return find_gpu_preset(preset) ? InterNodeSweep::for_preset(preset) : nullptr;
    case Network::Model:
      return nullptr;
    case Network::InfinibandNdr:
    case Network::EfaP5:
    case Network::EfaPlaybook:
      break;
  }
  // The key's own name for the value (the schema's choice list) is the sweep's name.
  const SchemaKey* key = find_key("cluster.network");
  TRAINSIM_CHECK(key != nullptr, "cluster.network is a schema key");
  const std::optional<std::string> name = show_value(*key, s);
  const InterNodeSweep* named = name ? InterNodeSweep::named(*name) : nullptr;
  TRAINSIM_CHECK(named != nullptr, "every cluster.network name has its data");
  return named;
}

// FP8 attention's time over bf16's for one attention pass of `k` (training.fp8_attention: the
// run's cuDNN release, its recipe's scaling, the kernel's head size), and where that figure
// comes from.
double fp8_attention_ratio(const Scenario& s, const Kernel& k, bool backward) {
  const std::optional<CudnnVersion> release = s.training.cudnn_version;
  return cudnn_fp8_attention_time_ratio(backward, k.gemm.m, s.cluster.gpu.preset, release,
                                        fp8_attention_scaling(s.training.fp8_recipe, release),
                                        k.gemm.k);
}
std::string fp8_attention_ratio_source(const Scenario& s, const Kernel& k) {
  const std::optional<CudnnVersion> release = s.training.cudnn_version;
  return cudnn_fp8_attention_source(s.cluster.gpu.preset, release,
                                    fp8_attention_scaling(s.training.fp8_recipe, release),
                                    k.gemm.k);
}

}  // namespace

AnalyticCostModel::AnalyticCostModel(const Scenario& s, const GemmTable* gemms,
                                     const BandwidthTable* memory, const AttentionTable* attention)
    : s_(s),
      k_(resolve_constants(s.efficiency, s.cluster.gpu, s.cluster.intra_node, s.training.attention,
                           s.training.dropout > 0, s.training.cudnn_version,
                           s.model ? static_cast<double>(s.model->qk_head_dim()) : 0.0)),
      stages_(partition_model(s.model.value(), s.layout.pp * s.layout.vpp, s.layout.split)),
      // A micro-batch's tokens on this GPU: context parallelism splits each sequence cp ways.
      tokens_(static_cast<double>(s.training.seq_len) * s.training.micro_batch_size / s.layout.cp),
      gemms_(gemms),
      memory_(memory),
      attention_(attention),
      pace_(slowest_gpu_factor(gpu_speed_spread(s), s.layout.world())) {
  TRAINSIM_CHECK(s.has_cluster, "the analytic model needs a cluster");
  k_.internode = inter_node_network(s);
}

double AnalyticCostModel::memory_seconds(double bytes) const {
  if (memory_)
    if (auto t = memory_->seconds(bytes)) return *t;
  return bytes / (s_.cluster.gpu.hbm_bandwidth * k_.memory_efficiency);
}

double AnalyticCostModel::gemm_seconds(const GemmShape& g, double batch) const {
  if (gemms_ && batch == 1)
    if (auto t = gemms_->seconds(g.m, g.n, g.k)) return *t;
  // A batch of GEMMs runs as one kernel over all their tiles: timed as one GEMM of batch·m rows.
  if (k_.gemm_sweep) return k_.gemm_sweep->seconds(g.m * batch, g.n, g.k) / k_.gemm_sweep_scale;
  const DeviceSpec& d = s_.cluster.gpu;
  double wave = 1.0;
  if (d.sms > 0) {
    // Wave quantization: the last wave of output tiles (of every GEMM of the batch) may leave
    // SMs idle.
    const double tiles =
        std::ceil(g.m / constants::kGemmTile) * std::ceil(g.n / constants::kGemmTile) * batch;
    const double waves = std::ceil(tiles / d.sms);
    wave = tiles / (waves * d.sms);
  }
  const double compute = batch * g.flops() / (d.peak_flops * k_.gemm_efficiency * wave);
  return std::max(compute, batch * g.bytes() / d.hbm_bandwidth);
}

std::vector<LayerGemm> AnalyticCostModel::attention_gemms() const {
  const ModelSpec& m = *s_.model;
  const double t = s_.layout.tp, n = tokens_, h = static_cast<double>(m.hidden);
  const double a = m.heads, dq = static_cast<double>(m.qk_head_dim());
  const double dv = static_cast<double>(m.v_head_dim());
  if (m.is_mla()) {
    // Latent attention (Megatron-Core's MLA): the down projections to the latents are not
    // split over TP ranks (each computes them whole); the up projections and the output are.
    // Under sequence parallelism the down projections (Transformer Engine Linears in parallel
    // mode "duplicated", Megatron-core's TE layer spec without mla_down_proj_fusion, its default)
    // take the layer's input as it is, this rank's n / t tokens, and the up projections
    // (column-parallel) gather the latents: multi_latent_attention.py,
    // _qkv_down_projection ("q_compressed: [s / TP, b, q_lora_rank]") and
    // get_query_key_value_tensors; the collectives in tp_collectives.
    const LatentAttention& l = m.mla;
    const double q_rank = static_cast<double>(l.q_rank), kv_rank = static_cast<double>(l.kv_rank);
    const double down = latent_sp() ? n / t : n;
    std::vector<LayerGemm> out;
    if (l.q_rank > 0) {
      out.push_back({{"q_down", "q_down.dgrad", "q_down.wgrad"}, {down, q_rank, h}});
      out.push_back({{"q_up", "q_up.dgrad", "q_up.wgrad"}, {n, a * dq / t, q_rank}});
    } else {
      out.push_back({{"q", "q.dgrad", "q.wgrad"}, {n, a * dq / t, h}});
    }
    out.push_back({{"kv_down", "kv_down.dgrad", "kv_down.wgrad"},
                   {down, kv_rank + static_cast<double>(l.rope_dim), h}});
    out.push_back({{"kv_up", "kv_up.dgrad", "kv_up.wgrad"},
                   {n, a * static_cast<double>(l.nope_dim + l.v_dim) / t, kv_rank}});
    out.push_back({{"attn_out", "attn_out.dgrad", "attn_out.wgrad"}, {n, h, a * dv / t}});
    return out;
  }
  // Past the key-value heads each rank projects one (ModelSpec::kv_heads_per_rank), work the
  // model's FLOPs count once.
  const double q = a * dq, kvd = m.kv_heads_per_rank(s_.layout.tp) * t * dq;
  const double useful = (q + 2 * static_cast<double>(m.kv_heads) * dq) / (q + 2 * kvd);
  return {
      {{"qkv", "qkv.dgrad", "qkv.wgrad"}, {n, (q + 2 * kvd) / t, h}, useful},  // column-parallel
      {{"attn_out", "attn_out.dgrad", "attn_out.wgrad"}, {n, h, q / t}},       // row-parallel
  };
}

std::vector<GemmShape> AnalyticCostModel::layer_gemms() const {
  const ModelSpec& m = *s_.model;
  const double t = s_.layout.tp, n = tokens_, h = static_cast<double>(m.hidden);
  const double f = static_cast<double>(m.ffn_hidden);
  const double up = m.mlp == MlpKind::SwiGLU ? 2.0 * f : f;
  std::vector<GemmShape> out;
  for (const LayerGemm& g : attention_gemms()) out.push_back(g.shape);
  out.push_back({n, up / t, h});  // MLP gate+up or up (column-parallel)
  out.push_back({n, h, f / t});   // MLP down (row-parallel)
  return out;
}

void AnalyticCostModel::stage_layer_kernels(Op op, const StageContent& st,
                                            std::vector<Kernel>& out) const {
  // The model's dense layers come first, so a stage's dense layers precede its MoE layers.
  const int sparse = s_.model->moe_layers_in(st.first_layer, st.layers);
  const int dense = st.layers - sparse;
  // Recomputation runs (part of) the forward again before the input gradient; it costs time
  // but is not model FLOPs.
  if (op == Op::I || op == Op::B) {
    // Full: the forward of every layer again, or of the first training.recompute_layers.
    if (const int redo = recomputed_layers(s_.training, st.layers, st.mtp); redo > 0) {
      layer_kernels(Op::F, std::min(redo, dense), false, true, out);
      layer_kernels(Op::F, redo - std::min(redo, dense), true, true, out);
    }
    if (s_.training.recompute == Recompute::Selective && st.layers > 0) {
      if (recompute_modules(s_.training).core_attn) attention_kernels(Op::F, st.layers, true, out);
      module_recompute_kernels(dense, false, out);
      module_recompute_kernels(sparse, true, out);
    }
  }
  layer_kernels(op, dense, false, false, out);
  layer_kernels(op, sparse, true, false, out);
}

void AnalyticCostModel::module_recompute_kernels(int layers, bool moe,
                                                 std::vector<Kernel>& out) const {
  const RecomputeModules r = recompute_modules(s_.training);
  const ModelSpec& m = *s_.model;
  // Of a MoE layer's activation kernel (routed and shared experts' elements together), the
  // routed experts' share.
  const double routed = m.moe.top_k * m.moe.capacity_factor * static_cast<double>(m.expert_ffn());
  const double shared = static_cast<double>(m.moe.shared_ffn_hidden);
  // (None under the fused grouped MLP: its GEMM runs the routed experts' activation.)
  const double routed_share = moe && !fused_expert_mlp() ? routed / (routed + shared) : 0.0;
  // The norms replayed: those Megatron-core runs apart from a GEMM under `layernorm` (latent
  // attention's input norm, a MoE layer's pre-MLP norm) and, under `mlp`, the pre-MLP norm
  // Transformer Engine fuses into a dense MLP's first GEMM. A layer's two norms cost alike.
  int norms = r.layernorm ? (m.is_mla() ? 1 : 0) + (moe ? 1 : 0) : 0;
  if (r.mlp && !moe) norms = std::min(2, norms + 1);
  RecomputeModules others = r;  // the attention core replays apart (attention_kernels)
  others.core_attn = false;
  if (layers == 0 || others == RecomputeModules{.core_attn = false}) return;
  std::vector<Kernel> forward;
  layer_kernels(Op::F, layers, moe, true, forward);
  // The routed experts' inputs cast to FP8 again where `moe` replays their GEMMs (Transformer
  // Engine's grouped linear layers cast them; the others' casts are fused into a norm or the
  // activation, or fall outside the modules).
  double cast_elements = 0;
  for (Kernel& k : forward) {
    const std::string_view w = k.what;
    const bool activation = w == "swiglu" || w == "gelu";
    const bool shared_gemm = w == "shared.up" || w == "shared.down";
    double share = 0;  // of the kernel's work replayed
    if (w == "norm" && norms > 0) {
      --norms;
      share = 1;
    } else if (r.mla_up_proj && m.is_mla() &&
               (w == "q" || w == "q_up" || w == "kv_up" || w == "rope" || w == "rope.kv")) {
      share = 1;
    } else if (!moe) {
      if (r.mlp && (w == "mlp_up" || w == "mlp_down" || activation)) share = 1;
    } else if (r.moe) {
      // Nested checkpoints: replaying the MoE layer runs a checkpointed shared expert or
      // discarded activation once more before their own backward.
      if (activation)
        share = 1 + (r.moe_act ? routed_share : 0.0) + (r.shared_experts ? 1 - routed_share : 0.0);
      else if (shared_gemm)
        share = r.shared_experts ? 2 : 1;
      else if (w == "router" || w == "router.topk" || w == "moe.permute" || w == "moe.unpermute" ||
               w == "experts.up" || w == "experts.down")
        share = 1;
      if (k.fp8 && (w == "experts.up" || (w == "experts.down" && !fused_expert_mlp())))
        cast_elements += k.splits * k.batch * k.gemm.m * k.gemm.k;
    } else {
      if (activation)
        share = (r.moe_act ? routed_share : 0.0) + (r.shared_experts ? 1 - routed_share : 0.0);
      else if (r.shared_experts && shared_gemm)
        share = 1;
    }
    if (share <= 0) continue;
    k.bytes *= share;
    k.flops *= share;
    out.push_back(k);
  }
  if (cast_elements > 0) {
    // A standalone cast of each routed token (fp8_cast_bytes).
    Kernel k{
        Kernel::Kind::Memory, "fp8.cast", {0, 0, 0}, 1, 0, fp8_cast_bytes(false) * cast_elements};
    k.count = layers;
    k.recompute = true;
    out.push_back(k);
  }
}

void AnalyticCostModel::layer_kernels(Op op, int layers, bool moe, bool recompute,
                                      std::vector<Kernel>& out) const {
  if (layers == 0) return;
  const ModelSpec& m = *s_.model;
  const double t = s_.layout.tp, n = tokens_, h = static_cast<double>(m.hidden);
  const double f = static_cast<double>(m.ffn_hidden);
  auto push = [&](Kernel k) {
    k.count = layers;
    k.recompute = recompute;
    out.push_back(k);
  };
  // GEMMs. Input gradient: dA = dC·Bᵀ (m×k from m×n, n×k); weight gradient dB = Aᵀ·dC (k×n).
  // `batch` GEMMs of one shape run as one grouped kernel (the experts').
  // `useful`: the share of the GEMMs' FLOPs that are model FLOPs (less than 1 where padding
  // to an expert capacity runs too).
  // FP8 (Transformer Engine): every linear GEMM but the router's runs in FP8. Its operands are
  // quantized (fp8_cast_bytes: by the recipe and the GPU) where no kernel before it does that
  // already: TE's LayerNormLinear/LayerNormMLP write the norms' and the activation's outputs
  // in FP8 and fuse the activation's backward with the cast (unless the framework runs them
  // apart: training.fp8_standalone_casts), so the forward casts only the attention output
  // (attn_out's input) and the backward the output gradients of the other projections; the weights
  // once per step (cached over the micro-batches; a recomputed forward reuses them). Megatron's
  // grouped experts (TEGroupedMLP) run their activation apart: the routed tokens, the activation's
  // output and the up projection's gradient are cast by kernels of their own.
  const bool fp8 = s_.training.precision == Precision::FP8;
  const bool lora = s_.training.lora_rank > 0;
  // A norm whose output LoRA takes leaves its GEMM's gather unfused: that GEMM runs whole.
  const LoraNormOutputs apart = lora_norm_outputs(s_.training);
  double fp8_cast = 0, main_grad_elements = 0, main_grad_shown = 0;  // cast bytes
  int main_grad_weights = 0;
  auto gemms = [&](const std::array<const char*, 3>& names, GemmShape g, double batch = 1,
                   double useful = 1, bool experts = false) {
    const std::string_view name = names[0];
    const bool in_fp8 = fp8 && name != "router";
    auto gemm = [&](const char* what, GemmShape shape) {
      // Comm-GEMM overlap (parallelism.tp_overlap) runs a GEMM beside its collective in chunks
      // of the tokens: Transformer Engine's defaults (transformer_engine/pytorch/module/base.py,
      // initialize_ub) overlap the all-gather before the column-parallel projections' forward and
      // the row-parallel projections' input gradient by ring exchange, one chunk per TP rank
      // (num_splits = tp), and the reduce-scatter after the row-parallel forward by a pipeline of
      // 4 chunks; the other backward GEMMs run whole beside a bulk collective.
      const std::string_view w = what;
      const bool unfused = (w == "qkv" && apart.attention) || (w == "mlp_up" && apart.mlp);
      const int splits =
          !te_overlap() || unfused ? 1
          : w == "qkv" || w == "mlp_up" || w == "attn_out.dgrad" || w == "mlp_down.dgrad"
              ? static_cast<int>(t)
          : w == "attn_out" || w == "mlp_down" ? constants::kUserbuffersPipelineSplits
                                               : 1;
      const GemmShape chunk{shape.m / splits, shape.n, shape.k};
      Kernel k{Kernel::Kind::Gemm,
               what,
               chunk,
               batch,
               useful * batch * shape.flops(),
               splits * batch * chunk.bytes()};
      k.fp8 = in_fp8;
      k.splits = splits;
      k.launches = splits;
      if (experts) {
        // The local experts' GEMMs: one grouped kernel, or one cuBLAS GEMM each, up to
        // kGroupedLinearStreams of them at once or one after another (training.expert_gemms).
        const ExpertGemms how = s_.training.expert_gemms;
        k.together = how == ExpertGemms::Grouped ? batch
                     : how == ExpertGemms::MultiStream
                         ? std::min<double>(batch, constants::kGroupedLinearStreams)
                         : 1.0;
        if (how != ExpertGemms::Grouped) k.launches = splits * static_cast<int>(batch);
      }
      push(k);
    };
    if (in_fp8) {
      // Transformer Engine's fused grouped MLP (training.fused_expert_mlp) writes the experts'
      // down projection's MXFP8 input from the up projection's GEMM and casts the up
      // projection's output gradient in the down projection's input-gradient kernel.
      const bool expert_mlp =
          fused_expert_mlp() && (name == "experts.up" || name == "experts.down");
      const bool fused_grad = name == "mlp_up" || name == "shared.up";
      const bool cast_input = name == "attn_out" || name == "experts.up" || name == "experts.down";
      // Under sequence parallelism TE quantizes the layer's input (a norm's output) and the
      // row-parallel outputs' gradients on this rank's n / t tokens, then all-gathers them in
      // FP8 (layernorm_linear.py's quantized all-gather; base.py, _grad_output_preprocess).
      const bool shard = s_.layout.sequence_parallel && t > 1;
      const double in_share = shard && (name == "qkv" || name == "mlp_up" || name == "shared.up" ||
                                        name == "q" || name == "q_up" || name == "kv_up")
                                  ? 1 / t
                                  : 1.0;
      const double grad_share =
          shard && (name == "attn_out" || name == "mlp_down" || name == "shared.down") ? 1 / t
                                                                                       : 1.0;
      // The kernel before a GEMM that is not a standalone cast's: a norm (QKV, the MLP's up
      // projection) or the activation (its down projection; its backward before the up
      // projection's input gradient), fused unless training.fp8_standalone_casts says not.
      const Fp8Casts apart = s_.training.fp8_standalone_casts.value_or(Fp8Casts{});
      const bool after_activation = name == "mlp_down" || name == "shared.down";
      // Under MXFP8 Transformer Engine's PyTorch norms compute in 16 bits and quantize after
      // (transformer_engine/pytorch/csrc/extensions/normalization.cpp, Impl::UNFUSED: the fused
      // cuDNN kernel only with NVTE_NORM_FWD_USE_CUDNN=1, not modelled); its activations fuse it
      // (activation.cpp, Impl::FULLY_FUSED).
      const bool norm_apart = apart.norm || s_.training.fp8_recipe == Fp8Recipe::Mxfp8;
      const bool input_fused = (expert_mlp && name == "experts.down") ||
                               (!cast_input && !(after_activation ? apart.activation : norm_apart));
      const bool grad_fused =
          (expert_mlp && name == "experts.up") || (fused_grad && !apart.activation);
      // The weights' casts (or FP8 parameters' transposes) once a step, their cost spread over
      // the micro-batches; without the transpose cache each micro-batch's backward transposes.
      const bool transpose_each = fp8_transposes_each_microbatch();
      // FP8 dispatch (training.fp8_dispatch) quantizes each token once before it is sent
      // (DeepSeek-V3 §3.3.2), not each of its top_k · capacity routed rows after.
      const double routed_share =
          name == "experts.up" && s_.training.fp8_dispatch && s_.layout.ep > 1
              ? 1 / (m.moe.top_k * m.moe.capacity_factor)
              : 1.0;
      // Per-tensor FP8 on Hopper (whose FP8 GEMMs take one layout) under SP: Transformer Engine
      // quantizes the rank's n / t tokens row-wise only, all-gathers the FP8 rows, and for the
      // weight gradient's GEMM transposes the gathered tensor (read 1 byte, write 1 an element of
      // the whole sequence): QKV's and the MLP's inputs and the row-parallel layers' output
      // gradients (Transformer Engine 1.14 layernorm_linear.py, base.py _grad_output_preprocess
      // and linear.py; 2.x distributed.py _all_gather_fp8, the transpose made after the gather).
      // So the shard's cast writes one layout, a byte less, and the weight gradient's pass pays
      // the transpose. Frozen (LoRA) layers compute no weight gradient.
      const bool gathered_transpose = shard && !lora && !(k_.preset && k_.preset->fp8_any_layout) &&
                                      (s_.training.fp8_recipe == Fp8Recipe::Delayed ||
                                       s_.training.fp8_recipe == Fp8Recipe::Tensorwise);
      const bool input_gathered = gathered_transpose && in_share < 1;
      const bool grad_gathered = gathered_transpose && grad_share < 1;
      const double one_layout_in = input_gathered && !input_fused ? 1.0 : 0.0;
      const double one_layout_grad = grad_gathered && !grad_fused ? 1.0 : 0.0;
      if (op == Op::F)
        fp8_cast += g.m * g.k * batch * in_share * routed_share *
                        (fp8_cast_bytes(input_fused) - one_layout_in) +
                    (recompute || transpose_each
                         ? 0.0
                         : g.k * g.n * batch / s_.microbatches() * fp8_weight_bytes());
      if ((op == Op::I || op == Op::B) && transpose_each)
        fp8_cast += g.k * g.n * batch * fp8_weight_bytes();
      if (op == Op::I || op == Op::B)
        fp8_cast +=
            g.m * g.n * batch * grad_share * (fp8_cast_bytes(grad_fused, true) - one_layout_grad);
      if (op == Op::W || op == Op::B) {
        if (input_gathered) fp8_cast += 2.0 * g.m * g.k * batch;
        if (grad_gathered) fp8_cast += 2.0 * g.m * g.n * batch;
      }
    }
    if (op == Op::F) gemm(names[0], g);
    if (op == Op::I || op == Op::B) gemm(names[1], {g.m, g.k, g.n});
    // Under LoRA the model's own weights are frozen: no weight gradient (Transformer Engine's
    // requires_wgrad), the adapters' instead (lora_kernels).
    if ((op == Op::W || op == Op::B) && !lora) {
      gemm(names[2], {g.k, g.n, g.m});
      main_grad_elements += g.k * g.n * batch;
      main_grad_shown += g.k * g.n * batch * main_grad_visible_share(g.m);
      main_grad_weights += experts ? static_cast<int>(batch) : 1;
    }
    if (lora) lora_kernels(op, name, g, push);
  };
  for (const LayerGemm& g : attention_gemms()) gemms(g.names, g.shape, 1, g.useful);
  const double mats_up = m.mlp == MlpKind::SwiGLU ? 2.0 : 1.0;
  if (!moe) {
    gemms({"mlp_up", "mlp_up.dgrad", "mlp_up.wgrad"}, {n, mats_up * f / t, h});
    gemms({"mlp_down", "mlp_down.dgrad", "mlp_down.wgrad"}, {n, h, f / t});
  }
  // A MoE layer's MLP (Megatron-Core's MoE layer: each GPU holds E / ep experts, each split
  // over the TP ranks like a dense MLP unless parallelism.etp keeps them whole): the router's
  // h × E GEMM on every token this rank routes (not split; under SP its n / t, moe_layer.py
  // routing the sequence-parallel shard), then top_k experts per token as one grouped GEMM over
  // the local experts (tokens spread evenly: n·k·ep/E rows each), and the shared experts as a
  // dense MLP.
  const double k = m.moe.top_k, experts = m.moe.experts;
  const double fe = static_cast<double>(m.expert_ffn());
  const double fs = static_cast<double>(m.moe.shared_ffn_hidden);
  if (moe) {
    // Expert parallelism: this GPU runs experts / ep of them on the tokens every rank of its
    // EP group sends them, as many rows in all (n·k) over fewer, larger GEMMs. A capacity
    // factor c runs c times the rows (the busiest expert's, or every expert padded to it); the
    // model FLOPs stay the routed tokens'.
    // Experts whole on each TP rank (etp 1) take that rank's n / t tokens at their full width
    // fe: the same FLOPs in GEMMs t times shorter and wider; split over TP (etp = tp) the TP
    // group's n tokens, gathered, at fe / t.
    const double c = m.moe.capacity_factor;
    const double et = s_.layout.experts_span_tp() ? 1.0 : t;
    const double ep = s_.layout.ep, local = experts / ep, rows = n * k * c / local * et / t;
    gemms({"router", "router.dgrad", "router.wgrad"}, {routed_tokens(), experts, h});
    gemms({"experts.up", "experts.up.dgrad", "experts.up.wgrad"}, {rows, mats_up * fe / et, h},
          local, 1 / c, true);
    gemms({"experts.down", "experts.down.dgrad", "experts.down.wgrad"}, {rows, h, fe / et}, local,
          1 / c, true);
    if (fs > 0) {
      gemms({"shared.up", "shared.up.dgrad", "shared.up.wgrad"}, {n, mats_up * fs / t, h});
      gemms({"shared.down", "shared.down.dgrad", "shared.down.wgrad"}, {n, h, fs / t});
    }
  }
  if (fp8_cast > 0) {
    Kernel k{Kernel::Kind::Memory, "fp8.cast", {0, 0, 0}, 1, 0, fp8_cast};
    k.launches = op == Op::F ? 1 : 3;
    push(k);
  }
  main_grad_accumulate(main_grad_elements, main_grad_shown, main_grad_weights, layers, recompute,
                       out);
  const EagerOps eager = eager_ops(s_.training);
  // Elements of QKV's output on this GPU (what its bias, split and interleave copies touch).
  auto qkv_elements = [&] {
    const GemmShape g = attention_gemms().front().shape;
    return g.m * g.n;
  };
  // A copy of QKV's output (or its gradient) that a framework runs apart: `bytes` in `launches`.
  auto qkv_copy = [&](const char* what, double bytes, int launches) {
    Kernel k{Kernel::Kind::Memory, what, {0, 0, 0}, 1, 0, bytes};
    k.launches = launches;
    push(k);
  };
  // One that reads or writes a strided view: PyTorch's non-vectorized kernel, bound by the SMs,
  // at the measured fraction `efficiency` of an H100's HBM bandwidth (constants.h).
  auto qkv_strided_copy = [&](const char* what, double bytes, int launches, double efficiency) {
    Kernel k{Kernel::Kind::Memory, what, {0, 0, 0}, 1, 0, bytes};
    k.launches = launches;
    k.bandwidth_share = efficiency / constants::kMemoryEfficiency;
    k.sm_bound = true;
    push(k);
  };
  if (m.linear_bias && eager.bias && !m.is_mla()) {
    // Biases as kernels of their own (legacy Megatron-LM, Megatron-DeepSpeed; Transformer
    // Engine fuses both into its GEMMs' epilogues). Forward: ColumnParallelLinear adds its bias
    // after the GEMM (`output + bias`: read and write the output, 4 bytes per element), the
    // QKV projection's and, with SwiGLU, the MLP's up projection's (ParallelMLP adds it before
    // the activation); GELU's joins the fused bias-GELU and the row-parallel layers' the
    // bias-dropout-add. Backward: autograd sums each bias's gradient over the tokens
    // (`grad_output.sum(0)`, reading the output gradient: 2 bytes per element); a row-parallel
    // layer's over the whole hidden state on every TP rank, or its sequence-parallel shard.
    // Part of the weight gradient when the backward is split.
    const double qkv = qkv_elements();
    const double up = moe ? 0.0 : n * mats_up * f / t;
    const double rows = s_.layout.sequence_parallel ? n * h / t : n * h;  // a row-parallel output
    if (op == Op::F) {
      const bool up_add = up > 0 && m.mlp == MlpKind::SwiGLU;
      Kernel add{Kernel::Kind::Memory, "bias.add", {0, 0, 0}, 1, 0, 4 * (qkv + (up_add ? up : 0))};
      add.launches = up_add ? 2 : 1;
      push(add);
    }
    if (op == Op::W || op == Op::B) {
      Kernel grad{Kernel::Kind::Memory,
                  "bias.grad",
                  {0, 0, 0},
                  1,
                  0,
                  2 * (qkv + up + rows * (moe ? 1 : 2))};
      grad.launches = moe ? 2 : 4;
      push(grad);
    }
  }
  if (op == Op::W) return;
  if (eager.qkv_split && !m.is_mla()) {
    // QKV's output split by slicing a view (constants.h): forward, V copied contiguous; backward,
    // the output's gradient assembled from three zero-filled full-width ones.
    const double values =
        n * m.kv_heads_per_rank(s_.layout.tp) * static_cast<double>(m.v_head_dim());
    // The strided copies (V's gather forward, the slices' scatter into the zeroed gradients
    // backward) at their measured rates; the fills and sums at the usual one.
    namespace c = constants;
    if (op == Op::F) {
      qkv_strided_copy("qkv.split", c::kEagerQkvSplitValueCopyBytes * values, 1,
                       c::kEagerQkvSplitValueCopyMemoryEfficiency);
    } else {
      qkv_strided_copy("qkv.split_grad", c::kEagerQkvSplitStridedBytes * qkv_elements(),
                       c::kEagerQkvSplitStridedKernels, c::kEagerQkvSplitStridedMemoryEfficiency);
      qkv_copy("qkv.split_sum",
               (c::kEagerQkvSplitBackwardBytes - c::kEagerQkvSplitStridedBytes) * qkv_elements(),
               c::kEagerQkvSplitBackwardKernels - c::kEagerQkvSplitStridedKernels);
    }
  }
  if (eager.qkv_cat && !m.is_mla() && op != Op::F) {
    // QKV's output split by torch.split: its backward concatenates the three gradients into the
    // output's (constants.h).
    qkv_copy("qkv.cat_grad", constants::kEagerQkvCatBytes * qkv_elements(), 1);
  }
  if (eager.rope_interleave && !m.is_mla()) {
    // Q, K and V copied after the rotary embedding to re-interleave their head dimensions, their
    // gradients copied back (constants.h).
    qkv_copy("qkv.interleave", constants::kEagerRopeInterleaveBytes * qkv_elements(), 3);
  }
  // Grouped-query K and V expanded to every query head (training.eager_ops kv_repeat).
  const bool kv_expanded = eager.kv_repeat && !m.is_mla() && m.kv_heads < m.heads;
  if (kv_expanded) {
    // K and V expanded to every query head before the rotary embedding, their gradients summed
    // back over the repeats (constants.h).
    const double d = static_cast<double>(m.qk_head_dim());
    const double expanded = n * 2 * static_cast<double>(m.heads) / t * d;
    const double grouped = n * 2 * m.kv_heads_per_rank(s_.layout.tp) * d;
    qkv_copy(op == Op::F ? "kv.repeat" : "kv.repeat_grad",
             constants::kEagerKvRepeatBytes * (expanded + grouped), 2);
  }
  if (eager.qkv_layout && !m.is_mla()) {
    // nanotron's copies that lay Q, K and V out for flash-attn and the output back (constants.h):
    // QKV's output, K and V, the attention output; the forward's and their gradients'.
    const double kv =
        n * 2 * m.kv_heads_per_rank(s_.layout.tp) * static_cast<double>(m.qk_head_dim());
    // The output's copies only where a micro-batch holds more than one sequence.
    const bool several = s_.training.micro_batch_size > 1;
    const double o =
        several ? n * static_cast<double>(m.heads) / t * static_cast<double>(m.v_head_dim()) : 0.0;
    namespace c = constants;
    const bool fwd = op == Op::F;
    // The permuted (strided) copies at their measured rates.
    qkv_strided_copy(
        "qkv.layout",
        (fwd ? c::kEagerQkvLayoutQkvBytes : c::kEagerQkvLayoutQkvBackwardBytes) * qkv_elements() +
            c::kEagerQkvLayoutKvBytes * kv + c::kEagerQkvLayoutOutputBytes * o,
        (fwd ? 2 : 4) + (several ? 1 : 0),
        fwd ? c::kEagerQkvLayoutForwardMemoryEfficiency
            : c::kEagerQkvLayoutBackwardMemoryEfficiency);
    // K and V stacked for the rotary kernel: two device-to-device copies.
    if (fwd) qkv_copy("qkv.layout_stack", c::kEagerQkvLayoutKvStackBytes * kv, 2);
  }
  attention_kernels(op, layers, recompute, out);
  // Memory-bound ops, bf16; backward reads gradients and inputs: twice the traffic. Norms and
  // residual adds see the full hidden state unless sequence parallelism splits it over TP ranks.
  const double dir = op == Op::F ? 1.0 : 2.0;
  const double hs = s_.layout.sequence_parallel ? n * h / t : n * h;
  auto memory = [&](const char* what, double bytes) {
    push({Kernel::Kind::Memory, what, {0, 0, 0}, 1, 0, dir * bytes});
  };
  // An eager runtime runs RMSNorm, SwiGLU and rotary embeddings op by op and LayerNorm as
  // PyTorch's own kernels (constants.h); training.eager_ops picks which (`eager`, above).
  const bool forward = op == Op::F;
  auto ops = [&](const char* what, double elements, double fwd_bytes, double bwd_bytes,
                 int fwd_kernels, int bwd_kernels, double share = 1, bool sm_bound = false) {
    Kernel k{
        Kernel::Kind::Memory, what, {0, 0, 0}, 1, 0, elements * (forward ? fwd_bytes : bwd_bytes)};
    k.launches = forward ? fwd_kernels : bwd_kernels;
    k.bandwidth_share = share;
    k.sm_bound = sm_bound;
    push(k);
  };
  for (int i = 0; i < 2; ++i) push(norm_kernel(op, "norm", hs));  // before attention, MLP
  if (s_.training.dropout > 0) {
    // Megatron's fused bias-dropout-add: read the branch and the residual, write the sum and
    // a 1-byte mask (backward: read the gradient and the mask, write two gradients).
    memory("dropout_add", 3.5 * hs * 2);
    memory("dropout_add", 3.5 * hs * 2);
  } else {
    // Forward: read 2, write 1. Backward: the gradient passes through the add unchanged, and
    // autograd sums the two gradients reaching the layer's input (the residual path's and the
    // branch's): read 2, write 1 again, not twice the forward's traffic.
    Kernel k{Kernel::Kind::Memory, "residual", {0, 0, 0}, 1, 0, 3 * hs * 2};
    push(k);
    push(k);
  }
  // Elements of the MLP's activation on this GPU: the dense MLP's, or those of top_k routed
  // experts and the shared experts.
  // The fused grouped MLP (training.fused_expert_mlp) runs the routed experts' inside their GEMMs.
  const double kc = k * m.moe.capacity_factor;  // routed rows per token, padding included
  const double routed_ff = fused_expert_mlp() ? 0.0 : kc * fe;
  const double ff = moe ? n * (routed_ff + fs) / t : n * f / t;
  if (m.mlp == MlpKind::SwiGLU && eager.swiglu && eager.gate_up_split) {
    // On the strided halves of the gate-up GEMM's output: the generic elementwise kernel, bound
    // by the SMs; the backward's contiguous product and the halves' gradients concatenated at
    // the usual rate (constants.h).
    namespace c = constants;
    if (forward)
      ops("swiglu", ff, c::kEagerSwigluForwardBytes, 0, 2, 0,
          c::kEagerSwigluSplitForwardMemoryEfficiency / c::kMemoryEfficiency, true);
    else {
      ops("swiglu", ff, 0, c::kEagerSwigluSplitBackwardStridedBytes, 0, 2,
          c::kEagerSwigluSplitBackwardMemoryEfficiency / c::kMemoryEfficiency, true);
      ops("swiglu.cat_grad", ff, 0, c::kEagerSwigluSplitBackwardContiguousBytes, 0, 2);
    }
  } else if (m.mlp == MlpKind::SwiGLU && eager.swiglu)
    ops("swiglu", ff, constants::kEagerSwigluForwardBytes, constants::kEagerSwigluBackwardBytes, 2,
        3);
  else
    memory(m.mlp == MlpKind::SwiGLU ? "swiglu" : "gelu",
           (m.mlp == MlpKind::SwiGLU ? 3.0 : 2.0) * ff * 2);
  if (s_.training.fp8_activation_store && m.mlp == MlpKind::SwiGLU && !eager.swiglu) {
    // Megatron-core's activation_func_fp8_input_store: the fused SwiGLU's 2f-wide input cast to
    // FP8 for the backward (read 2 bytes, write 1), and back before its backward (read 1, write
    // 2): 3 bytes an element each pass, a kernel of its own.
    Kernel cast{Kernel::Kind::Memory, "mlp.act_fp8_store", {0, 0, 0}, 1, 0, 3 * 2 * ff};
    push(cast);
  }
  if (moe) {
    // The router's fp32 softmax and top-k over the scores of the tokens it routes (read and
    // write 4 bytes each); the tokens copied into expert order and back, weighted and summed
    // (Megatron's permute and unpermute: n·k rows of h read and written, then n·k read and n
    // written). Experts split over TP permute the n / t routed tokens and sort the n·k rows
    // gathered for them; whole experts (etp 1) permute this rank's n / t alone. A dispatcher
    // that permutes inside its communication kernels (training.moe_permute: in_dispatch) runs
    // neither copy on the compute stream.
    const double permuted = s_.layout.experts_span_tp() ? routed_tokens() : n;
    memory("router.topk", 8 * routed_tokens() * experts);
    if (s_.training.moe_permute == MoePermute::Kernels) {
      memory("moe.permute", 2 * permuted * kc * h * 2);
      memory("moe.unpermute", (permuted * kc + permuted) * h * 2);
    }
  }
  if (m.position == PositionEmbedding::Rotary) {  // rotary embeddings of q and k
    // Latent attention rotates only the rope_dim part of each head's q and one shared key.
    const double d = static_cast<double>(m.qk_head_dim());
    const double q_heads = static_cast<double>(m.heads) / t;
    // K is rotated once expanded to every query head (kv_repeat).
    const double k_heads = kv_expanded ? q_heads : m.kv_heads_per_rank(s_.layout.tp);
    const double qk = m.is_mla() ? n * q_heads * static_cast<double>(m.mla.rope_dim)
                                 : n * (q_heads + k_heads) * d;
    if (eager.rope)  // on head-major views of the projection: the generic, slower kernel
      ops("rope", qk, constants::kEagerRopeBytes, constants::kEagerRopeBackwardBytes,
          2 * constants::kEagerRopeKernels, 2 * constants::kEagerRopeKernels + 2,
          constants::kEagerStridedMemoryEfficiency / constants::kMemoryEfficiency, true);
    else
      memory("rope", 2.0 * qk * 2);  // read + write
    if (m.is_mla()) {
      // Latent attention's keys and values, laid out for the attention kernel: the kv up
      // projection's output (each head's nope_dim key part and v_dim value) and the shared
      // rotary key (rope_dim) read, each head's whole key (nope_dim + rope_dim, the rotated
      // shared part copied in) and its value written; backward the reverse. One kernel each way
      // in Megatron-core with apply_rope_fusion (fused_mla_yarn_rope_apply.py,
      // fused_apply_mla_rope_for_kv, whose query counterpart rotates q's rope_dim part in place:
      // above); its unfused path copies at least as much (torch.cat of the key).
      const double nope = static_cast<double>(m.mla.nope_dim);
      const double rope = static_cast<double>(m.mla.rope_dim);
      const double v = static_cast<double>(m.mla.v_dim);
      // The same bytes each way (the backward reads the two gradients, writes the one).
      push({Kernel::Kind::Memory,
            "rope.kv",
            {0, 0, 0},
            1,
            0,
            2.0 * n * (q_heads * (nope + v) + rope + q_heads * (nope + rope + v))});
    }
  }
}

void AnalyticCostModel::lora_kernels(Op op, std::string_view target, const GemmShape& g,
                                     const std::function<void(Kernel)>& push) const {
  // A LoRA adapter beside a frozen linear layer of this GPU's shape g = {n, out, in} (NeMo's
  // LoraKQVAdapter and kin, nemo/collections/nlp/modules/common/megatron/adapters): its input
  // through dropout (`pre`), x·A (r wide) then ·B, scaled by alpha / r and added into the
  // layer's output, in 16-bit. Backward: the output gradient scaled, both products' input
  // gradients (I) and weight gradients (W), the dropout's mask applied and the adapter's input
  // gradient added into the layer's.
  const LoraTargets on = lora_targets(s_.training);
  const bool carries = (target == "qkv" && on.qkv) || (target == "attn_out" && on.attn_out) ||
                       (target == "mlp_up" && on.mlp_up) || (target == "mlp_down" && on.mlp_down);
  if (!carries) return;
  // Under TP (NeMo's ParallelLinearAdapter) a column-parallel target's (QKV, up projection)
  // adapter takes the whole input, A split over r and its r-wide output gathered, B over the
  // output like the layer; a row-parallel target's (attention output, down projection) takes
  // the layer's input shard, A split over it and its output all-reduced, B over the output
  // (h / tp), whose result reaches the layer's output by an exchange (tp_collectives): under
  // sequence parallelism on n / tp tokens of the whole width, else gathered whole.
  const double t = s_.layout.tp;
  const bool column = target == "qkv" || target == "mlp_up";
  const double r = s_.training.lora_rank, n = g.m, in = g.k;
  const double a_cols = column ? r / t : r;   // A's output width on this GPU
  const double out = column ? g.n : g.n / t;  // B's output width on this GPU
  const double added = column ? n * g.n       // output elements the adapter adds into
                       : s_.layout.sequence_parallel ? n * g.n / t
                                                     : n * g.n;
  const bool dropout = s_.training.lora_dropout > 0;
  // Transformer Engine's fused LoRA linear (TE ops fusions ForwardLinearScaleAdd,
  // BackwardLinearScale, BackwardLinearAdd): the scale rides B's GEMMs and the adds become
  // GEMMs accumulating into their outputs (beta 1), which read those outputs: 2 bytes per
  // element, in no launch of their own. NeMo builds it at tp 1 only and falls back to the
  // unfused adapter above (nemo/collections/llm/peft/lora.py).
  const bool fused = s_.training.lora_fused && s_.layout.tp == 1;
  auto gemm = [&](const char* what, GemmShape shape) {
    push({Kernel::Kind::Gemm, what, shape, 1, shape.flops(), shape.bytes()});
  };
  auto memory = [&](const char* what, double bytes, int launches = 1) {
    Kernel k{Kernel::Kind::Memory, what, {0, 0, 0}, 1, 0, bytes};
    k.launches = launches;
    push(k);
  };
  if (op == Op::F) {
    if (dropout) memory("lora.dropout", 5 * n * in);  // read, write, 1-byte mask
    gemm("lora.down", {n, a_cols, in});
    gemm("lora.up", {n, out, r});
    // Scale (read, write), add (read two, write); fused (training.lora_fused), B's GEMM reads
    // the layer's output it adds into.
    if (!fused)
      memory("lora.add", 10 * added, 2);
    else
      memory("lora.add", 2 * added, 0);
  }
  if (op == Op::I || op == Op::B) {
    if (!fused) memory("lora.add.backward", 4 * added);  // the output gradient scaled
    gemm("lora.up.dgrad", {n, r, out});
    gemm("lora.down.dgrad", {n, in, a_cols});
    if (dropout) memory("lora.dropout.backward", 5 * n * in);
    // Fused, the layer's input-gradient GEMM accumulates into the adapter's (beta 1), reading it.
    if (!fused)
      memory("lora.input_grad_add", 6 * n * in);
    else
      memory("lora.input_grad_add", 2 * n * in, 0);
  }
  if (op == Op::W || op == Op::B) {
    gemm("lora.up.wgrad", {r, out, n});
    gemm("lora.down.wgrad", {in, a_cols, n});
  }
}

double AnalyticCostModel::trainable_params(int stage) const {
  if (s_.training.lora_rank <= 0) return stage_params(stage);
  return static_cast<double>(trainsim::stage_lora_params(
      *s_.model, stages_.at(static_cast<std::size_t>(stage)), s_.layout.tp, s_.training));
}

Kernel AnalyticCostModel::ring_merge(Op op) const {
  // Ring attention computes each step's block apart and merges it into the running result
  // (Transformer Engine's AttnFuncWithCPAndKVP2P, the attention of Megatron-core's p2p context
  // parallelism): forward, the first (diagonal) step's output is rescaled into place (4 B per
  // element: read, write, 16-bit), then one fused kernel per further step rescales that block's
  // output by its log-sum-exp against the running one and adds it in
  // (flash_attn_fwd_out_correction: reads both outputs, writes the running one: 6 B), beside a
  // log-sum-exp correction per step (1/d of the elements, left out of the bytes); backward,
  // the first step's dQ, dK, dV are copied (4 B), each further step's dQ added to the running dQ
  // and the dK, dV arriving from the previous rank to the block's (6 B per element of each).
  // Zig-zag: the diagonal step covers all of the rank's queries and keys. Of the cp − 1 others,
  // rank r's first r pair all its queries with half the keys, the rest half its queries with
  // all the keys. Each layer's ring waits for every rank, so the busiest rank sets the pace:
  // forward the last (cp − 1 steps over all of its output); backward whichever end rank moves
  // more (Q over cp − 1 steps and K, V over half of them, or the other way round).
  const ModelSpec& m = *s_.model;
  const double cp = s_.layout.cp, t = s_.layout.tp;
  const double tokens = s_.training.micro_batch_size * s_.training.seq_len / cp;
  const double kv_heads = m.kv_heads_per_rank(s_.layout.tp);
  const double q = tokens * static_cast<double>(m.heads) / t * static_cast<double>(m.v_head_dim());
  const double kv = tokens * kv_heads * static_cast<double>(m.qk_head_dim() + m.v_head_dim());
  const double later = cp - 1;  // steps after the diagonal one
  const double bytes =
      op == Op::F ? q * (4 + 6 * later)
                  : 4 * (q + kv) + 6 * later * std::max(q, kv) + 3 * later * std::min(q, kv);
  Kernel k{Kernel::Kind::Memory,
           op == Op::F ? "attention.merge" : "attention.merge.backward",
           {0, 0, 0},
           1,
           0,
           bytes};
  // Forward cp output and cp − 1 log-sum-exp corrections; backward two adds per step.
  k.launches = static_cast<int>(op == Op::F ? 2 * cp - 1 : 2 * cp);
  return k;
}

Kernel AnalyticCostModel::a2a_layout_copies(Op op) const {
  // Transformer Engine's all-to-all context parallelism (context_parallel.py,
  // flash_attn_a2a_communicate, the same in TE 2.3 and 2.8) lays each exchanged tensor out
  // twice around its all-to-all: going in (Q, K and V forward, the output's gradient backward)
  // a movedim(...).contiguous() copy of [s, b, cp, h/cp, d] into [cp, s, b, h/cp, d] before it
  // and the zig-zag chunks reordered by torch.index_select after it; coming out (the output
  // forward, dQ, dK and dV backward) the index_select before and the movedim copy after (the
  // copies of the batch dimension's movedim are views at sbhd). Each copy reads and writes its
  // tensor once, this rank's s / cp tokens of all its heads, in the exchanged type: FP8 under
  // FP8 attention (TE quantizes Q, K, V and dO before the exchange and exchanges the FP8 output
  // and gradients), else 16 bits. Both copies are PyTorch's non-vectorized kernels (a permuted
  // view; index_select's over 2·cp chunk indices, one element a thread), priced at the permuted
  // copies' measured rate (constants.h).
  const ModelSpec& m = *s_.model;
  const double t = s_.layout.tp;
  const double n =
      static_cast<double>(s_.training.micro_batch_size) * s_.training.seq_len / s_.layout.cp;
  const double heads = static_cast<double>(m.heads) / t;
  const double kv_heads = m.kv_heads_per_rank(s_.layout.tp);
  const double elements = n * (heads * (m.qk_head_dim() + m.v_head_dim()) +
                               kv_heads * (m.qk_head_dim() + m.v_head_dim()));
  const double element_bytes = s_.training.fp8_attention ? 1.0 : 2.0;
  Kernel k{Kernel::Kind::Memory,
           op == Op::F ? "cp.a2a_layout" : "cp.a2a_layout.backward",
           {0, 0, 0},
           1,
           0,
           2 * 2 * element_bytes * elements};  // two copies, each a read and a write
  k.launches = 8;                              // four tensors, two copies each
  k.bandwidth_share = constants::kPermutedCopyMemoryEfficiency / constants::kMemoryEfficiency;
  k.sm_bound = true;
  k.share_from = "PyTorch's permuted copies' rate, measured on an H200 (per SM, at most)";
  return k;
}

void AnalyticCostModel::attention_kernels(Op op, int layers, bool recompute,
                                          std::vector<Kernel>& out) const {
  const ModelSpec& m = *s_.model;
  const double t = s_.layout.tp;
  // Under context parallelism (cp ranks, zig-zag) a rank's queries are s / cp tokens. Its
  // attention is cp blocks of the same work: the causal block of its own chunks, and cp − 1
  // non-causal half blocks (all its queries against one half of another rank's keys, or half
  // its queries against all of them), each half of an (s/cp)² square: cp causal (s/cp)-token
  // attentions, 1/cp of the whole sequence's. Timed at a causal s/cp attention's rate: on an
  // H100 (calibrate/reference/h100-sxm-long-attention.json) the non-causal half blocks of a
  // 131,072-token sequence ran 0–8 % faster than the causal block beside them.
  // Under the all-to-all (cp_comm all_to_all) a rank attends over the whole sequence with
  // heads / cp: one causal attention of s tokens, the same work.
  const double cp = s_.layout.cp;
  const bool a2a = s_.layout.cp_comm == CpComm::AllToAll && cp > 1;
  const double sq = s_.training.seq_len / cp, b = s_.training.micro_batch_size;
  // Heads of d for the scores (q·k) and of dv for the values: equal but in latent attention.
  const double d = static_cast<double>(m.qk_head_dim());
  const double dv = static_cast<double>(m.v_head_dim());
  const double h = static_cast<double>(m.heads) * (d + dv) / 2;    // the attention's width, a·d
  const double heads = b * static_cast<double>(m.heads) / t * cp;  // (block, head) pairs
  auto push = [&](Kernel k) {
    k.count = layers;
    k.recompute = recompute;
    k.attention_core = true;
    out.push_back(k);
  };
  // Model FLOPs of the core: QKᵀ and PV, 2·b·a·s²·(d + dv) = 4·b·s²·(a·d) forward, the causal half
  // counted (the convention of MFU here); the backward's four products twice that.
  const double attn_fwd = 4.0 * b * sq * sq * h / t * constants::kCausalFraction * cp;
  if (s_.training.attention != AttentionKernel::Unfused) {
    const double s = a2a ? sq * cp : sq;  // its length, and (sequence, head) pairs
    push({Kernel::Kind::Attention,
          op == Op::F ? "attention" : "attention.backward",
          {s, s, d},
          a2a ? heads / cp / cp : heads,
          op == Op::F ? attn_fwd : 2.0 * attn_fwd,
          0});
    if (cp > 1 && s_.layout.cp_ring()) push(ring_merge(op));
    if (a2a) push(a2a_layout_copies(op));
    if (s_.training.fp8_attention) {
      const double q = b * sq * static_cast<double>(m.heads) / t * d;
      const double kv = b * sq * m.kv_heads_per_rank(s_.layout.tp) * (d + dv);
      const double o = b * sq * static_cast<double>(m.heads) / t * dv;
      // Per-tensor scaling: Transformer Engine casts Q, K and V to FP8 and the output back to 16
      // bits (read 2, write 1 or the other way: 3 bytes an element), the backward the output's
      // gradient in and Q, K and V's gradients out.
      Kernel k{Kernel::Kind::Memory, "attention.fp8_cast", {0, 0, 0}, 1, 0, 3 * (2 * q + kv)};
      k.launches = 4;
      if (fp8_attention_scaling(s_.training.fp8_recipe, s_.training.cudnn_version) ==
          Fp8AttentionScaling::Mxfp8) {
        // MXFP8 attention (Transformer Engine 2.15, dot_product_attention/backends.py
        // FusedAttnFunc, utils.py get_attention_quantizers and combine_and_quantize): the forward
        // casts Q, K and V to MXFP8 in both layouts (mxfp8_quantize_fast_path) and takes the
        // output in 16 bits as the kernel writes it; the backward casts the output's gradient
        // both ways and takes Q, K and V's gradients in 16 bits. Each cast at MXFP8's measured
        // rate (fp8_cast_bytes).
        k.bytes = fp8_cast_bytes(false) * (op == Op::F ? q + kv : o);
        k.launches = op == Op::F ? 3 : 1;
      }
      push(k);
    }
    return;
  }
  // Unfused ("standard") attention: per (sequence, head) the s×s scores are formed in full
  // (nothing skipped under the causal mask), in 16-bit. E = scores of this GPU.
  const double e = heads * sq * sq;
  const bool dropout = s_.training.dropout > 0;
  auto gemm = [&](const char* what, GemmShape g, double flops) {
    push({Kernel::Kind::Gemm, what, g, heads, flops, heads * g.bytes()});
  };
  auto memory = [&](const char* what, double bytes) {
    push({Kernel::Kind::Memory, what, {0, 0, 0}, 1, 0, bytes});
  };
  // Each product's model FLOPs: half of 2·s²·d per head (causal), as above.
  const double product = attn_fwd / 2;
  if (op == Op::F) {
    gemm("attention.scores", {sq, sq, d}, product);    // QKᵀ
    memory("softmax", 2 * e * 2);                      // fused scale-mask-softmax: read, write
    if (dropout) memory("attention.dropout", 5 * e);   // read 2, write 2 + 1-byte mask
    gemm("attention.context", {sq, dv, sq}, product);  // P·V
    return;
  }
  gemm("attention.context.dgrad", {sq, sq, dv}, product);  // dP = dO·Vᵀ
  gemm("attention.context.wgrad", {sq, dv, sq}, product);  // dV = Pᵀ·dO
  if (dropout) memory("attention.dropout.backward", 5 * e);
  memory("softmax.backward", 3 * e * 2);                 // read y and dy, write dx
  gemm("attention.scores.dgrad", {sq, d, sq}, product);  // dQ = dS·K
  gemm("attention.scores.wgrad", {sq, d, sq}, product);  // dK = dSᵀ·Q
}

double eager_layernorm_width_factor(double hidden, bool forward) {
  const auto& sweep = constants::kEagerLayerNormWidthSweep;
  auto rate = [&](double h) {
    auto at = [&](const constants::LayerNormWidthRate& r) {
      return forward ? r.forward_gbps : r.backward_gbps;
    };
    if (h <= sweep[0].hidden) return at(sweep[0]);
    for (std::size_t i = 1; i < std::size(sweep); ++i)
      if (h <= sweep[i].hidden) {
        const double f =
            std::log(h / sweep[i - 1].hidden) / std::log(sweep[i].hidden / sweep[i - 1].hidden);
        return at(sweep[i - 1]) + f * (at(sweep[i]) - at(sweep[i - 1]));
      }
    return at(sweep[std::size(sweep) - 1]);
  };
  return rate(hidden) / rate(constants::kEagerLayerNormReferenceHidden);
}

Kernel AnalyticCostModel::norm_kernel(Op op, const char* what, double elements) const {
  const bool forward = op == Op::F;
  Kernel k{Kernel::Kind::Memory, what, {0, 0, 0}, 1, 0, (forward ? 1 : 2) * elements * 2 * 2};
  if (!eager_ops(s_.training).norm) return k;  // one fused kernel: read + write, bf16
  // PyTorch's kernels (constants.h): bytes, launches and measured HBM share by direction.
  auto eager = [&](double fwd_bytes, double bwd_bytes, int fwd_kernels, int bwd_kernels,
                   double fwd_efficiency, double bwd_efficiency) {
    k.bytes = elements * (forward ? fwd_bytes : bwd_bytes);
    k.launches = forward ? fwd_kernels : bwd_kernels;
    k.bandwidth_share = (forward ? fwd_efficiency : bwd_efficiency) / constants::kMemoryEfficiency;
  };
  namespace c = constants;
  if (s_.model->norm == NormKind::RMSNorm)  // op by op
    eager(c::kEagerRmsNormForwardBytes, c::kEagerRmsNormBackwardBytes,
          c::kEagerRmsNormForwardKernels, c::kEagerRmsNormBackwardKernels,
          c::kEagerRmsNormForwardMemoryEfficiency, c::kEagerRmsNormBackwardMemoryEfficiency);
  else {  // PyTorch's own LayerNorm kernels, at the rate of the model's row width
    const double h = static_cast<double>(s_.model->hidden);
    eager(c::kEagerLayerNormForwardBytes, c::kEagerLayerNormBackwardBytes, 1,
          c::kEagerLayerNormBackwardKernels,
          c::kEagerLayerNormForwardMemoryEfficiency * eager_layernorm_width_factor(h, true),
          c::kEagerLayerNormBackwardMemoryEfficiency * eager_layernorm_width_factor(h, false));
  }
  return k;
}

void AnalyticCostModel::embedding_kernels(Op op, std::vector<Kernel>& out, int mtp) const {
  // Embedding lookup reads and writes n·h bf16 values. Its gradient is dense (PyTorch's
  // embedding_dense_backward, also under Megatron's vocabulary-parallel embedding): the V/t × h
  // table's gradient written as zeros, then the n rows' gradients read and scattered into it
  // (H100 trace of constants.h: 0.67 ms per micro-batch for 128,256 × 4,096).
  // Nothing upstream needs its input gradient.
  // Multi-token prediction's lookups (of the tokens k further ahead) each make a gradient of the
  // whole table too: autograd's for the lookup, summed into the table's like the tied head's.
  if (op == Op::I) return;
  if (op != Op::F && s_.training.lora_rank > 0) return;  // a frozen table: no gradient
  const double h = static_cast<double>(s_.model->hidden);
  const double table = static_cast<double>(s_.model->vocab) / s_.layout.tp * h;
  const bool main = mtp == 0;
  Kernel lookup{Kernel::Kind::Memory,
                op == Op::F ? (main ? "embedding" : "mtp.embedding")
                            : (main ? "embedding.wgrad" : "mtp.embedding.wgrad"),
                {0, 0, 0},
                1,
                0,
                2.0 * tokens_ * h * 2.0 + (op == Op::F ? 0.0 : table * 2.0)};
  lookup.count = main ? 1 : mtp;
  out.push_back(lookup);
  // With fp32 main gradients (Megatron) the embedding's gradient is no GEMM's: Megatron's
  // gradient hook adds autograd's 16-bit gradient into the fp32 main gradient every micro-batch
  // (DistributedDataParallel's param hook, main_grad.add_(grad)): read 2 and 4, write 4 bytes
  // per element of the table and of learned positions (not split over TP).
  if (op != Op::F && (fused_main_grad() || fp32_main_grad(s_.training))) {
    const double positions = s_.model->position == PositionEmbedding::Learned
                                 ? static_cast<double>(s_.training.seq_len) * h
                                 : 0.0;
    Kernel add{Kernel::Kind::Memory,
               main ? "embedding.main_grad" : "mtp.embedding.main_grad",
               {0, 0, 0},
               1,
               0,
               main_grad_add_bytes() * (table + positions)};
    add.count = lookup.count;
    out.push_back(add);
  }
}

void AnalyticCostModel::mtp_kernels(Op op, int modules, std::vector<Kernel>& out,
                                    bool recompute) const {
  // Megatron-core's MultiTokenPredictionLayer (core_v0.14, multi_token_prediction.py): the
  // embedding of the tokens rolled one further (embedding_kernels), enorm and hnorm, their
  // concatenation [n, 2h] (torch.cat: both read, the result written; its backward passes views)
  // and eh_proj, a column-parallel 2h → h/t GEMM (in FP8 under FP8, its input cast: 4 bytes per
  // element, as layer_kernels' casts). Then its Transformer layer (the stage's last layers) and
  // the final norm, head and loss (head_kernels). Full recompute checkpoints the block from the
  // norms to the final norm (_checkpointed_forward): they run again, the lookup before it not.
  if (modules == 0) return;
  const double t = s_.layout.tp, n = tokens_, h = static_cast<double>(s_.model->hidden);
  const double hs = s_.layout.sequence_parallel ? n * h / t : n * h;  // a norm's elements
  const bool fp8 = s_.training.precision == Precision::FP8;
  const GemmShape g{n, h / t, 2 * h};
  auto push = [&](Kernel k, int per_module = 1) {
    k.count = per_module * modules;
    k.recompute = recompute;
    out.push_back(k);
  };
  auto gemm = [&](const char* what, GemmShape shape) {
    Kernel k{Kernel::Kind::Gemm, what, shape, 1, shape.flops(), shape.bytes()};
    k.fp8 = fp8;
    push(k);
  };
  auto cast = [&](double elements, bool gradient) {
    if (fp8)
      push({Kernel::Kind::Memory,
            "mtp.fp8.cast",
            {0, 0, 0},
            1,
            0,
            fp8_cast_bytes(false, gradient) * elements});
  };
  if (op == Op::F) {
    if (!recompute) embedding_kernels(op, out, modules);
    push(norm_kernel(op, "mtp.norm", hs), 2);
    push({Kernel::Kind::Memory, "mtp.concat", {0, 0, 0}, 1, 0, 2.0 * 2 * hs * 2});
    cast(n * 2 * h, false);
    gemm("mtp.eh_proj", g);
    if (recompute) push(norm_kernel(op, "final_norm", hs));
    return;
  }
  if (op == Op::I || op == Op::B) {
    cast(n * h / t, true);
    gemm("mtp.eh_proj.dgrad", {g.m, g.k, g.n});
    push(norm_kernel(op, "mtp.norm", hs), 2);
  }
  if (op == Op::W || op == Op::B) {
    gemm("mtp.eh_proj.wgrad", {g.k, g.n, g.m});
    main_grad_accumulate(g.k * g.n, g.k * g.n * main_grad_visible_share(g.m), 1, modules, false,
                         out);
    embedding_kernels(op, out, modules);
  }
}

void AnalyticCostModel::head_kernels(Op op, int count, std::vector<Kernel>& out) const {
  const ModelSpec& m = *s_.model;
  const double t = s_.layout.tp, n = tokens_, h = static_cast<double>(m.hidden);
  const double v = static_cast<double>(m.vocab) / t;
  const GemmShape g{n, v, h};   // logits (vocabulary-parallel)
  const double logits = n * v;  // elements on this GPU
  const std::size_t first = out.size();
  // training.fp8_output_proj: Megatron-core's TELMHeadColumnParallelLinear, a Transformer Engine
  // linear under the MXFP8 recipe (megatron/core/extensions/transformer_engine.py): its GEMMs in
  // FP8, its input (n × h, gathered) and the logits' gradient (n × v) quantized apart.
  const bool fp8_head = s_.training.fp8_output_proj;
  auto gemm = [&](const char* what, GemmShape s) {
    Kernel k{Kernel::Kind::Gemm, what, s, 1, s.flops(), s.bytes()};
    k.fp8 = fp8_head;
    out.push_back(k);
  };
  auto cast = [&](double elements, bool gradient) {
    if (fp8_head)
      out.push_back({Kernel::Kind::Memory,
                     "lm_head.fp8.cast",
                     {0, 0, 0},
                     1,
                     0,
                     fp8_cast_bytes(false, gradient) * elements});
  };
  // The loss runs in fp32 (PyTorch autocast lists log_softmax, nll_loss and cross_entropy as
  // float32 ops; Megatron's vocabulary-parallel cross-entropy also upcasts the logits). Per
  // logit, PyTorch's cross_entropy (training.unfused_loss: pytorch), forward: upcast (read 2,
  // write 4 bytes), log-softmax (read 4 three times: the row's maximum, its sum of
  // exponentials, then the output; write 4) = 22 bytes; backward: the loss gradient written
  // (4), log-softmax backward (the gradient's row sum, then gradient and output read again,
  // write 4: 16), the cast back to 16-bit (read 4, write 2) = 26 bytes. A 128,256-wide fp32 row
  // (513 kB) does not stay on chip between passes: in the H100 trace of constants.h, PyTorch's
  // softmax forward and backward ran at 3.0 and 2.9 TB/s counted so (2,799 and 2,875 µs for
  // 4,096 × 128,256 logits). Megatron's vocab_parallel_cross_entropy (megatron/core/
  // tensor_parallel/cross_entropy.py; training.unfused_loss: vocab-parallel; nanotron's
  // _ShardedCrossEntropy copies it, its subtraction out of place: the same bytes, `nanotron`),
  // one PyTorch op a pass over logits.float(): forward
  // the upcast (6), the row's maximum (read 4), its subtraction (read 4, write 4), exp in place
  // (8), the sum of exponentials (4), the division into the softmax it keeps (8) = 38 bytes;
  // backward the softmax's target entries adjusted (one a row), the gradient scaled in place (8)
  // and the upcast's backward casting it to 16 bits (6) = 14 bytes.
  // PyTorch's cross_entropy straight over the 16-bit logits (training.unfused_loss:
  // pytorch-16bit; no autocast region upcasts them in a plain bf16 model) runs the same kernels
  // at 2 bytes an element: forward log-softmax 3 × 2 read + 2 written = 8 bytes; backward the
  // NLL gradient written (2), log-softmax backward 3 × 2 read + 2 written (8) = 10 bytes.
  // A fused loss (training.fused_loss: apex's xentropy_kernel.cu, whose forward reduces each
  // row twice, its maximum, then its sum of exponentials, and stores one log-sum-exp per row;
  // its backward reads each logit once and writes the gradient over it) moves 4 bytes per
  // logit each way instead.
  const bool fused = s_.training.fused_loss;
  const UnfusedLoss loss = s_.training.unfused_loss == UnfusedLoss::Nanotron
                               ? UnfusedLoss::VocabParallel
                               : s_.training.unfused_loss;
  const double forward_bytes = fused                                ? 4.0
                               : loss == UnfusedLoss::VocabParallel ? 38.0
                               : loss == UnfusedLoss::PyTorch16     ? 8.0
                                                                    : 22.0;
  const double backward_bytes = fused                                ? 4.0
                                : loss == UnfusedLoss::VocabParallel ? 14.0
                                : loss == UnfusedLoss::PyTorch16     ? 10.0
                                                                     : 26.0;
  // The final norm before the head: on the sequence-parallel shard under SP.
  const double hs = s_.layout.sequence_parallel ? n * h / t : n * h;
  if (op == Op::F) {
    out.push_back(norm_kernel(op, "final_norm", hs));
    cast(n * h, false);
    gemm("lm_head", g);
    out.push_back({Kernel::Kind::Memory, "cross_entropy", {0, 0, 0}, 1, 0, forward_bytes * logits});
  }
  if (op == Op::I || op == Op::B) {
    out.push_back(
        {Kernel::Kind::Memory, "cross_entropy.backward", {0, 0, 0}, 1, 0, backward_bytes * logits});
    cast(logits, true);
    gemm("lm_head.dgrad", {g.m, g.k, g.n});
    out.push_back(norm_kernel(op, "final_norm", hs));
  }
  if ((op == Op::W || op == Op::B) && s_.training.lora_rank <= 0) {
    gemm("lm_head.wgrad", {g.k, g.n, g.m});
    main_grad_accumulate(g.k * g.n, g.k * g.n * main_grad_visible_share(g.m), 1, 1, false, out);
  }
  // Training metrics over the kept logits once the micro-batch's backward is done (Composer's
  // trainer: _train_microbatch calls _eval_train_metrics after loss.backward(), under no_grad
  // and the training's autocast): each a PyTorch cross_entropy forward (constants.h).
  if ((op == Op::W || op == Op::B) && s_.training.loss_metrics > 0) {
    const int metrics = s_.training.loss_metrics;
    Kernel k{Kernel::Kind::Memory,
             "loss_metrics",
             {0, 0, 0},
             1,
             0,
             metrics * constants::kMetricCrossEntropyBytes * logits};
    k.launches = metrics * constants::kMetricCrossEntropyKernels;
    out.push_back(k);
  }
  for (std::size_t i = first; i < out.size(); ++i) out[i].count *= count;
}

std::vector<Kernel> AnalyticCostModel::kernels(Op op, int stage) const {
  const StageContent& st = stages_.at(static_cast<std::size_t>(stage));
  std::vector<Kernel> out;
  // Forward runs embedding → layers → head; the backward passes the other way.
  // Multi-token prediction's modules (on the head's stage) run after the model's layers: each its
  // lookup, norms and projection, its layer (the stage's last), then a head and loss of its own.
  if (op == Op::F) {
    if (st.embedding) embedding_kernels(op, out);
    stage_layer_kernels(op, st, out);
    mtp_kernels(op, st.mtp, out);
    if (st.head) head_kernels(op, 1 + st.mtp, out);
  } else {
    if (st.head) head_kernels(op, 1 + st.mtp, out);
    if (op != Op::W && recomputes_mtp_blocks(s_.training)) mtp_kernels(Op::F, st.mtp, out, true);
    mtp_kernels(op, st.mtp, out);
    stage_layer_kernels(op, st, out);
    if (st.embedding) embedding_kernels(op, out);
    if (st.embedding && st.head && op != Op::I && s_.training.lora_rank <= 0)
      tied_grad_sum_kernel(out);
    if (op != Op::I) grad_accumulate_kernel(stage, out);
  }
  fsdp_kernels(op, stage, out);
  return out;
}

void AnalyticCostModel::fsdp_kernels(Op op, int stage, std::vector<Kernel>& out) const {
  const Layout& l = s_.layout;
  if (l.zero < 3 || l.dp_ranks() <= 1) return;
  const double params = stage_params(stage);
  const double dp = l.dp_ranks();
  const int layers = stages_.at(static_cast<std::size_t>(stage)).layers;
  const int units = (layers + l.fsdp.unit_layers - 1) / l.fsdp.unit_layers + 1;  // + the root's
  // The fp32 shard cast to bf16 before each all-gather: the forward's, and the backward's when
  // the forward freed the gathered weights (the backward's is charged where weights are needed:
  // with I and W split, in I). Under plain SGD the model's parameters, and so its shards, are
  // 16-bit already (training.optimizer: sgd): no cast either way.
  const bool fp32_shards = s_.training.optimizer != Optimizer::Sgd;
  const bool gathers = op == Op::F || (l.fsdp.reshard_after_forward && op != Op::W);
  if (gathers && fp32_shards) {
    Kernel k{Kernel::Kind::Memory,
             "fsdp.cast_shard",
             {0, 0, 0},
             1,
             0,
             constants::kFsdpCastBytes * params / dp};
    k.launches = units;
    out.push_back(k);
  }
  if (op == Op::F || op == Op::I) return;  // the gradient side: where weight gradients are made
  const double rb = grad_reduce_bytes(s_.training);
  const double grads = trainable_params(stage);  // all but LoRA's frozen weights
  // Flatten (4 bytes) and the two divisions (read and write in the reduce dtype: the whole flat
  // gradient, then the shard); the reduced shard cast to the parameters' dtype where the two
  // differ (a bf16-reduced shard to fp32 parameters, an fp32-reduced one to SGD's 16-bit ones).
  Kernel flat{Kernel::Kind::Memory,
              "fsdp.grad",
              {0, 0, 0},
              1,
              0,
              grads * (constants::kFsdpFlattenBytes + 2 * rb + 2 * rb / dp +
                       ((rb < 4) == fp32_shards ? constants::kFsdpCastBytes / dp : 0))};
  flat.launches = 3 * units;
  out.push_back(flat);
  if (rb >= 4) {  // the flat bf16 gradient cast to fp32 before the reduce-scatter
    Kernel cast{
        Kernel::Kind::Memory, "fsdp.grad_cast", {0, 0, 0}, 1, 0, grads * constants::kFsdpCastBytes};
    cast.launches = units;
    cast.bandwidth_share =
        constants::kConvertingCopyMemoryEfficiency / constants::kMemoryEfficiency;
    cast.sm_bound = true;
    out.push_back(cast);
  }
}

void AnalyticCostModel::main_grad_accumulate(double elements, double shown, int weights, int count,
                                             bool recompute, std::vector<Kernel>& out) const {
  // Megatron-LM's gradient-accumulation fusion (Transformer Engine's fuse_wgrad_accumulation)
  // has every weight-gradient GEMM add its product into the fp32 main gradient (beta = 1): the
  // epilogue reads and writes 4 bytes per weight element where a 16-bit GEMM writes 2, 6 bytes
  // more, for every micro-batch. Measured (calibrate/reference/h100-sxm-kernel-probe.json and
  // h200-kernel-probe.json, `wgrad_sweep`: 21 weight shapes × 1,024-16,384 tokens, bf16 and
  // fp16): the fused GEMM takes 1.81, 1.30, 1.10, 1.04, 1.02 times the 16-bit one's time at
  // 1,024 … 16,384 tokens on H100 SXM (1.58 … 1.01 on H200, whose HBM is faster); the 16-bit
  // GEMM's time plus these bytes at the memory-bound kernels' rate predicts the fused one with
  // a mean |error| of 5 % (+3 % mean) over the 420 timings (bf16 medians quoted; fp16's
  // within 0.07), too long where the micro-batch is long: past 2,048 tokens part of the
  // epilogue runs beside other tiles' main loops. So each GEMM's bytes count by the share of
  // their time its reduction length shows (kMainGradVisibleShare), as the kernel's bandwidth
  // share. Behind an FP8 main loop (H100, `fp8_epilogue`: fp32 against bf16 output, the part
  // torch can time) the same rate overestimates the extra by 4-12 % of the GEMM's time at 2,048
  // tokens. No launch: it is the GEMM's own epilogue. Into 16-bit gradients (NeMo 1's apex
  // buffer, Megatron-core's without grad_reduce_in_fp32) the epilogue reads 2 bytes where it
  // writes 2: a third of the bytes (kMainGrad16EpilogueBytes), at the same visible share. An
  // eager runtime's gradients are added by AccumulateGrad instead (grad_accumulate_kernel).
  if (elements <= 0) return;
  if (!fused_main_grad()) {
    // Without the fusion Megatron's DDP hook adds each weight's 16-bit gradient into its fp32
    // main gradient (main_grad.add_(grad)), a kernel a weight, every micro-batch
    // (--no-gradient-accumulation-fusion); 16-bit gradients outside eager PyTorch: nothing.
    if (!fp32_main_grad(s_.training)) return;
    Kernel add{Kernel::Kind::Memory,
               "wgrad.main_grad_add",
               {0, 0, 0},
               1,
               0,
               constants::kMainGradAddBytes * elements};
    add.count = count;
    add.launches = weights;
    add.recompute = recompute;
    out.push_back(add);
    return;
  }
  Kernel k{Kernel::Kind::Memory,
           "wgrad.main_grad",
           {0, 0, 0},
           1,
           0,
           main_grad_epilogue_bytes() * elements};
  k.count = count;
  k.launches = 0;
  k.recompute = recompute;
  k.bandwidth_share = elements / shown;
  out.push_back(k);
}

double AnalyticCostModel::main_grad_epilogue_bytes() const {
  return s_.training.fp32_grad_accumulation ? constants::kMainGradEpilogueBytes
                                            : constants::kMainGrad16EpilogueBytes;
}

double AnalyticCostModel::main_grad_add_bytes() const {
  return s_.training.fp32_grad_accumulation ? constants::kMainGradAddBytes
                                            : constants::kMainGrad16AddBytes;
}

void AnalyticCostModel::tied_grad_sum_kernel(std::vector<Kernel>& out) const {
  // A tied table's two gradients, the lookup's and the output layer's, summed by autograd on
  // the stage that holds both (constants.h); a fused fp32 main gradient takes each by itself.
  if (!s_.model->tied_embeddings || fused_main_grad()) return;
  const double table =
      static_cast<double>(s_.model->vocab) / s_.layout.tp * static_cast<double>(s_.model->hidden);
  out.push_back({Kernel::Kind::Memory,
                 "embedding.tied_grad_sum",
                 {0, 0, 0},
                 1,
                 0,
                 constants::kTiedEmbeddingGradSumBytes * table});
}

bool AnalyticCostModel::fused_main_grad() const {
  return grad_accumulation_fusion(s_.training);
}

double AnalyticCostModel::main_grad_epilogue_seconds(const Kernel& wgrad) const {
  if (!fused_main_grad()) return 0;
  return memory_seconds(main_grad_epilogue_bytes() * wgrad.gemm.m * wgrad.gemm.n * wgrad.batch) *
         main_grad_visible_share(wgrad.gemm.k);
}

void AnalyticCostModel::grad_accumulate_kernel(int stage, std::vector<Kernel>& out) const {
  // An eager runtime adds each micro-batch's weight gradients into the accumulated ones
  // (AccumulateGrad), every micro-batch but the first: charged as (m − 1) / m of one pass per
  // backward, the same for every micro-batch. Under ZeRO-2/3 the gradients are reduce-scattered
  // first and only this rank's shard is added.
  const TrainingSpec& t = s_.training;
  const int m = s_.microbatches();
  if (t.runtime != Runtime::Eager || m <= 1) return;
  const double shard = s_.layout.zero >= 2 ? 1.0 / s_.layout.dp_ranks() : 1.0;
  const double bytes_per = t.fp32_grad_accumulation ? 4.0 : 2.0;
  Kernel k{Kernel::Kind::Memory,
           "grad_accumulate",
           {0, 0, 0},
           1,
           0,
           static_cast<double>(m - 1) / m * constants::kGradAccumulateReadsWrites * bytes_per *
               trainable_params(stage) * shard};
  // One add per weight tensor: a layer's GEMM weights and its two norms.
  const StageContent& st = stages_.at(static_cast<std::size_t>(stage));
  const int per_layer = static_cast<int>(attention_gemms().size()) + 2 + 2;
  k.launches = st.layers * per_layer + (st.embedding ? 1 : 0) + (st.head ? 2 : 0);
  out.push_back(k);
}

double AnalyticCostModel::attention_parallelism(const Kernel& k) const {
  if (!k_.attention || k.kind != Kernel::Kind::Attention) return 1.0;
  const bool backward = std::string_view(k.what) != "attention";
  // One launch per context-parallel block, its (sequence, head) pairs' tiles fewer or more per
  // SM than the charts' benchmark filled the GPU with. `whole`: the tiles of all s / cp of the
  // rank's tokens; a launch of `share` of them runs at parallelism(share · whole).
  const double cp = s_.layout.cp;
  // The all-to-all's one launch holds the rank's heads / cp over the whole sequence.
  const bool a2a = s_.layout.cp_comm == CpComm::AllToAll;
  const double heads = a2a ? k.batch : k.batch / cp;
  // A backward runs no faster than its longest tile allows (attention_tile_bound): `balance` is
  // its tiles' mean work over the longest's, a causal block's (k + 1) / 2k by default, a
  // rectangular block's 1.
  auto rate = [&](double share, std::optional<double> balance = std::nullopt) {
    const double per_sequence = std::ceil(share * k.gemm.m / constants::kAttentionTileRows);
    return k_.attention->parallelism(backward, heads * per_sequence, s_.cluster.gpu.sms, k.gemm.k,
                                     balance.value_or(causal_mean_over_longest(per_sequence)));
  };
  if (cp <= 1 || a2a) return rate(1.0);
  // Under context parallelism a rank's attention is cp units of work (a unit: one causal
  // attention over its s / cp tokens). The forward's kernels tile the queries and the backward's
  // the keys (FlashAttention-2's and cuDNN's backward loop over key blocks). Each layer waits
  // for every rank, so the slowest rank's launches set the pace: the effective rate is
  // cp / max over ranks r of Σ work / rate(tiles), of its launches.
  double slowest = 0;
  for (int r = 0; r < s_.layout.cp; ++r) {
    double t = 0;
    if (s_.layout.cp_ring()) {
      // Ring (zig-zag): the diagonal block (a unit, all its queries and keys); r blocks of all
      // its queries against half of another rank's keys, cp − 1 − r of half its queries
      // against all of them (a unit each; ring_merge above).
      t = 1 / rate(1.0) + r / rate(backward ? 0.5 : 1.0, 1.0) +
          (cp - 1 - r) / rate(backward ? 1.0 : 0.5, 1.0);
    } else {
      // All-gather: one launch per query chunk of s / (2·cp) tokens (chunks r and 2·cp − 1 − r)
      // against the keys up to it: chunk i takes (i + ½) / 2 units over i + 1 chunks of keys.
      // Chunk i's query tiles (forward) see i·c + 1 … (i + 1)·c key tiles, c to a chunk; its key
      // tiles (backward) see c query tiles each before the chunk and c … 1 within it: either way
      // a mean of i·c + (c + 1) / 2 over a longest of (i + 1)·c (the causal block's at i = 0).
      const double c = std::ceil(0.5 * k.gemm.m / constants::kAttentionTileRows);
      for (const double i : {static_cast<double>(r), 2 * cp - 1 - r})
        t += (i + 0.5) / 2 /
             rate(backward ? (i + 1) / 2 : 0.5, (i * c + (c + 1) / 2) / ((i + 1) * c));
    }
    slowest = std::max(slowest, t);
  }
  return cp / slowest;
}

double AnalyticCostModel::kernel_seconds(const Kernel& k) const {
  switch (k.kind) {
    case Kernel::Kind::Gemm: {
      // `n` GEMMs of the batch run at once, timed as one GEMM of n·m rows: its FP8 ratio too.
      auto at_once = [&](double n) {
        const double bf16 = gemm_seconds(k.gemm, n);
        if (!k.fp8) return bf16;
        // The H100's measured ratio, scaled for a GPU it stands in for (cost/fp8_gemm.h).
        // Block-scaled recipes (MXFP8, NVFP4) at their measured factor (cost/fp8_gemm.h).
        const double scale =
            (k_.preset ? fp8_ratio_scale(k_.preset->device.name) : 1.0) * recipe_gemm_scale();
        double fp8 = bf16 * scale * fp8_gemm_time_ratio(k.gemm.m * n, k.gemm.n, k.gemm.k);
        // No faster than FP8 sustains at the power limit (cost/fp8_gemm.h).
        if (k_.gemm_sweep)
          fp8 = std::max(fp8, n * k.gemm.flops() * scale * fp8_sustained_time_ratio() /
                                  (k_.gemm_sweep->sustained_tflops() * 1e12 * k_.gemm_sweep_scale));
        return fp8;
      };
      // The whole batch as one kernel (a batched or grouped GEMM), or in groups of `together`
      // one after another (the experts' GEMMs one or a stream's worth at a time), the last group
      // what is left.
      const double together = k.together > 0 ? std::min(k.together, k.batch) : k.batch;
      // GEMMs on parallel streams take no longer than one after another (the sweep's shapes
      // interpolate apart): each group of separate GEMMs at most n times one of them.
      const bool separate = k.together > 0 && k.launches > k.splits;
      auto group = [&](double n) {
        return separate ? std::min(at_once(n), n * at_once(1)) : at_once(n);
      };
      const double groups = std::floor(k.batch / together), rest = k.batch - groups * together;
      const double t = groups * group(together) + (rest > 0 ? group(rest) : 0.0);
      return k.splits * t;
    }
    case Kernel::Kind::Attention: {
      const bool backward = std::string_view(k.what) != "attention";
      // Attention dropout runs inside the fused kernel (random numbers for every score, in the
      // forward and again in the backward); the measured and published timings are without it.
      const bool cudnn = s_.training.attention == AttentionKernel::Cudnn;
      double dropout = 1.0;
      if (s_.training.dropout > 0 && cudnn)
        dropout = backward ? constants::kCudnnAttentionDropoutBackward
                           : constants::kCudnnAttentionDropoutForward;
      else if (s_.training.dropout > 0)
        dropout =
            backward ? constants::kAttentionDropoutBackward : constants::kAttentionDropoutForward;
      // A calibration profile's measured calls of this pass, head size and (causal) mask: from
      // a traced run (calibrate's trace import), its dropout already in them.
      if (attention_)
        if (auto t = attention_->seconds(backward, k.gemm.m, k.gemm.k, k.batch, true)) return *t;
      if (!k_.attention)
        return dropout * k.flops / (s_.cluster.gpu.peak_flops * constants::kAttentionEfficiency);
      // The published throughputs count a backward as 2.5 forwards (it recomputes the scores);
      // k.flops counts it as 2 (model FLOPs). A GPU of the measured one's architecture with
      // another peak (H100 PCIe) runs the compute-bound kernel in proportion.
      const double paper_flops = backward ? k.flops / 2 * 2.5 : k.flops;
      const AttentionThroughput t = k_.attention->at(k.gemm.m, k.gemm.k);
      const double scale =
          s_.cluster.gpu.peak_flops / k_.attention->peak_flops * k_.attention->sustained;
      // FP8 attention (training.fp8_attention): the FP8 kernel's time over the bf16 one's.
      const double fp8 = s_.training.fp8_attention ? fp8_attention_ratio(s_, k, backward) : 1.0;
      return fp8 * dropout * paper_flops /
             ((backward ? t.backward_tflops : t.forward_tflops) * 1e12 * scale *
              attention_parallelism(k));
    }
    case Kernel::Kind::Memory: {
      const double t = memory_seconds(k.bytes) / k.bandwidth_share;
      const int sms = s_.cluster.gpu.sms;
      if (!k.sm_bound || sms <= 0) return t;
      // The rate its share gives on an H100 SXM, per SM, times this GPU's SMs.
      const double capped = k.bandwidth_share * constants::kMemoryEfficiency *
                            constants::kSmBoundReferenceBandwidth * sms /
                            constants::kSmBoundReferenceSms;
      return std::max(t, k.bytes / capped);
    }
  }
  return 0;
}

std::string AnalyticCostModel::sources() const {
  std::string s =
      k_.sources.empty() ? "analytic" : "analytic; published kernel data: " + k_.sources;
  if (s_.cluster.nodes > 1) {
    s += "; collectives between nodes by NCCL's tuning model (ring or tree; Simple, LL128 or LL)";
    if (k_.internode) {
      const GpuPreset* m = find_gpu_preset(k_.internode->machine());
      const bool own = m && s_.cluster.inter_node.bandwidth == m->inter_node.bandwidth &&
                       s_.cluster.inter_node.latency == m->inter_node.latency &&
                       s_.cluster.inter_node.nic_share(s_.cluster.gpus_per_node) == 1.0 &&
                       s_.cluster.intra_node.bandwidth == m->intra_node.bandwidth &&
                       s_.cluster.intra_node.latency == m->intra_node.latency;
      s += own ? fmt::format(", scaled by size to the measured ({}: {})", k_.internode->name(),
                             k_.internode->source())
               : fmt::format(
                     ", priced on the scenario's links and scaled by size as the measured "
                     "({}: {}) is over it on the measured machine's",
                     k_.internode->name(), k_.internode->source());
    }
  }
  if (s_.training.precision == Precision::FP8) {
    s += fmt::format("; {}", fp8_gemm_source());
    const double scale = k_.preset ? fp8_ratio_scale(k_.preset->device.name) : 1.0;
    if (blackwell()) s += fmt::format(", standing in on {}", upper(k_.preset->device.name));
    if (scale != 1.0)
      s += fmt::format(", scaled by {:.3f}, {}", scale,
                       fp8_ratio_scale_source(k_.preset->device.name));
    if (s_.training.fp8_recipe == Fp8Recipe::Mxfp8)
      s += fmt::format("; {} ({:.3f})", mxfp8_gemm_source(), recipe_gemm_scale());
    if (s_.training.fp8_recipe == Fp8Recipe::Nvfp4)
      s += fmt::format("; {} ({:.3f})", nvfp4_gemm_source(k_.preset ? k_.preset->device.name : ""),
                       recipe_gemm_scale());
    if (k_.gemm_sweep)
      s += fmt::format(" (at most {:.0f} TFLOP/s, sustained)",
                       k_.gemm_sweep->sustained_tflops() * k_.gemm_sweep_scale /
                           (scale * recipe_gemm_scale() * fp8_sustained_time_ratio()));
  }
  return s;
}

std::vector<KernelTime> AnalyticCostModel::kernel_times(Op op, int stage) const {
  std::vector<KernelTime> out;
  for (const Kernel& k : kernels(op, stage)) {
    KernelTime t{k.what,      "",      k.count,
                 k.flops,     k.bytes, kernel_seconds(k) + k.launches * k_.kernel_launch,
                 k.recompute, ""};
    switch (k.kind) {
      case Kernel::Kind::Gemm:
        t.kind = "gemm";
        t.source = gemms_ && (k.batch == 1 || k.together == 1) &&
                           gemms_->seconds(k.gemm.m, k.gemm.n, k.gemm.k)
                       ? "calibration profile"
                   : k_.gemm_sweep ? "GEMM sweep"
                                   : "roofline";
        if (k.fp8) t.source += " × FP8 ratio";
        if (k.splits > 1)
          t.source += fmt::format(", {} chunks of {:g} rows (comm-GEMM overlap)", k.splits,
                                  k.gemm.m * k.batch);
        if (k.together > 0) {  // the experts' GEMMs (training.expert_gemms)
          const std::string experts =
              fmt::format("{:g} expert{}", k.batch, k.batch == 1 ? "" : "s");
          t.source += k.launches == k.splits ? fmt::format(", {} in one kernel", experts)
                      : k.together > 1
                          ? fmt::format(", {}, {:g} at a time (one GEMM each, on parallel streams)",
                                        experts, k.together)
                          : fmt::format(", {} one after another", experts);
        }
        break;
      case Kernel::Kind::Attention:
        t.kind = "attention";
        t.source = attention_ && attention_->seconds(std::string_view(k.what) != "attention",
                                                     k.gemm.m, k.gemm.k, k.batch, true)
                       ? "calibration profile"
                   : k_.attention ? k_.attention->source
                                  : "constant (efficiency of peak)";
        if (t.source != "calibration profile") {
          if (k_.attention)
            if (const double d = k_.attention->kernel_head_dim(k.gemm.k); d != k.gemm.k)
              t.source += fmt::format(" × {:.2f}: heads of {:g} run as {:g} (the kernel's size)",
                                      k.gemm.k / d, k.gemm.k, d);
          if (k_.attention)
            if (const std::string note = k_.attention->head_dim_note(k.gemm.k); !note.empty())
              t.source += " (" + note + ")";
          if (const double p = attention_parallelism(k); std::abs(p - 1) >= 0.005)
            t.source += fmt::format(" × {:.2f} rate for its launch's parallelism (measured)", p);
          if (k_.attention && k_.attention->sustained != 1)
            t.source +=
                fmt::format(" × {:.2f} at the power limit ({})", k_.attention->sustained,
                            k_.attention->sustained_measured ? "measured" : "its GEMMs' share");
          if (s_.training.dropout > 0) t.source += " × dropout ratio (measured)";
          if (s_.training.fp8_attention)
            t.source +=
                fmt::format(" × FP8 over bf16 time, {:.2f} ({}, NVIDIA's benchmark)",
                            fp8_attention_ratio(s_, k, std::string_view(k.what) != "attention"),
                            fp8_attention_ratio_source(s_, k));
        }
        break;
      case Kernel::Kind::Memory:
        t.kind = "memory";
        t.source = memory_ && memory_->seconds(k.bytes) ? "calibration profile"
                                                        : "HBM bandwidth × efficiency";
        t.source += cast_rate_note(k.what);
        if (std::string_view(k.what) == "wgrad.main_grad")
          t.source += " × the share the GEMM shows (measured)";
        else if (std::abs(k.bandwidth_share - 1) >= 0.005)
          t.source += k.share_from ? fmt::format(" × {:.2f}: {}", k.bandwidth_share, k.share_from)
                                   : fmt::format(" × {:.2f}: this kernel's measured rate",
                                                 k.bandwidth_share);
        break;
    }
    out.push_back(std::move(t));
  }
  return out;
}

double host_speed_factor(const Scenario& s) {
  return s.has_cluster && s.cluster.host() == HostCpu::Grace ? constants::kGraceHostSlowdown : 1.0;
}

double eager_host_per_kernel_seconds(const Scenario& s) {
  return constants::kEagerHostPerKernel * host_speed_factor(s);
}

double host_per_kernel_seconds(const Scenario& s) {
  if (const auto& o = s.efficiency.host_per_kernel) return to_seconds(*o);
  return s.training.runtime != Runtime::Compiled ? eager_host_per_kernel_seconds(s) : 0.0;
}

double host_per_collective_seconds(const Scenario& s) {
  if (const auto& o = s.efficiency.host_per_collective) return to_seconds(*o);
  const double per_kernel = host_per_kernel_seconds(s);
  // Eager or fused with its CPU simulated: torch.distributed's own cost per call, measured; a
  // CUDA graph (host_per_kernel 0) replays its collectives with its kernels.
  return s.training.runtime != Runtime::Compiled && per_kernel > 0
             ? constants::kEagerHostPerCollective * host_speed_factor(s)
             : per_kernel;
}

double AnalyticCostModel::host_per_kernel() const {
  return host_per_kernel_seconds(s_);
}

double AnalyticCostModel::host_per_collective() const {
  return host_per_collective_seconds(s_);
}

HostLaunch AnalyticCostModel::host_launch(Op op, int stage) const {
  const double per_kernel = host_per_kernel();
  double launches = 0;
  for (const Kernel& k : kernels(op, stage)) launches += static_cast<double>(k.count) * k.launches;
  // The TP, CP and EP collectives the pass runs are issued by the same CPU thread, between its
  // kernels: torch.distributed's call each (one NCCL kernel launch, and ProcessGroupNCCL's
  // bookkeeping around it: host_per_collective). Transformer Engine's userbuffers collectives
  // never enter torch.distributed: its GEMM call issues them from C++ beside the GEMM's chunks,
  // a kernel launch's CPU time each.
  double collectives = 0;
  for (const auto& runs :
       {tp_collectives(op, stage), cp_collectives(op, stage), ep_collectives(op, stage)})
    for (const CollectiveRun& c : runs) (c.in_gemm_call ? launches : collectives) += c.count;
  return {seconds_to_ns(launches * per_kernel + collectives * host_per_collective()),
          launches + collectives};
}

Cost AnalyticCostModel::grad_check(double bytes) const {
  // Megatron-core's check_for_nan_in_grad (param_and_grad_buffer.py, check_grads /
  // start_grad_sync): bucket.grad_data.norm(p=2), one reduction reading the bucket's gradients
  // in the buffer's precision, then torch.isnan (and from core 0.12 torch.isinf) of the
  // one-element result: a kernel each. With `norm` (core 0.10-0.11, reruns disabled:
  // validate_result returns before calling its rejection function) the norm alone.
  if (s_.layout.grad_nan_check == GradNanCheck::Off || bytes <= 0) return {};
  const int syncs = s_.layout.grad_check_syncs();
  return {seconds_to_ns(memory_seconds(bytes) + (1 + syncs) * k_.kernel_launch), 0, bytes};
}

Cost AnalyticCostModel::zero_grad(double bytes) const {
  // Megatron-core's zero_grad_buffer: `grad_data.zero_()`, one fill kernel writing each byte of
  // the buffer once (a streaming kernel at efficiency.memory, as every memory-bound pass here).
  if (!s_.training.zero_grad_buffer || bytes <= 0) return {};
  return {seconds_to_ns(memory_seconds(bytes) + k_.kernel_launch), 0, bytes};
}

GradCheckHost AnalyticCostModel::grad_check_host() const {
  // The CPU issues the norm and the NaN test (two operations), then takes the test's truth value
  // (rerun_state_machine.py, validate_result: `if result_rejected:` of a CUDA tensor, or core
  // ≤ 0.9's `assert not norm.isnan()`): a read-back that waits for the GPU to finish both. After
  // it, each read-back's own call, from core 0.12 the Inf test's issue and its read-back, and the
  // bucket's reduce-scatter or all-reduce through torch.distributed; only then does the
  // backward's next kernel go out. Each operation at efficiency.host_per_kernel, the reduction
  // at host_per_collective: the measured eager figures, as for the layers' kernels. With `norm`
  // the CPU issues the norm and goes on: nothing after, no wait.
  if (s_.layout.grad_nan_check == GradNanCheck::Off || !simulates_cpu()) return {};
  const int syncs = s_.layout.grad_check_syncs();
  if (syncs == 0) return {seconds_to_ns(host_per_kernel()), 0};
  return {seconds_to_ns(2 * host_per_kernel()),
          seconds_to_ns((2 * syncs - 1) * host_per_kernel() + host_per_collective())};
}

Cost AnalyticCostModel::compute(Op op, int stage, int /*rank*/) const {
  double seconds = 0, flops = 0, bytes = 0;
  for (const Kernel& k : kernels(op, stage)) {
    seconds += k.count * (kernel_seconds(k) + k.launches * k_.kernel_launch);
    if (!k.recompute) flops += k.count * k.flops;
    bytes += k.count * k.bytes;
  }
  return {seconds_to_ns(seconds), flops, bytes};
}

namespace {

// Seconds of the GEMMs of `backward` (a pass's kernels) named `name + pass` for a name of
// `names` (e.g. "qkv" and ".wgrad"), every layer's run together; recomputation's excluded.
double gemm_seconds_named(const AnalyticCostModel& m, const std::vector<Kernel>& backward,
                          std::initializer_list<std::string_view> names, std::string_view pass) {
  double seconds = 0;
  for (const Kernel& k : backward) {
    if (k.kind != Kernel::Kind::Gemm || k.recompute) continue;
    const std::string_view what = k.what;
    for (std::string_view name : names)
      if (what.substr(0, name.size()) == name && what.substr(name.size()) == pass)
        // A weight gradient's fp32 accumulation is the same kernel's epilogue.
        seconds += k.count * (m.kernel_seconds(k) +
                              (pass == ".wgrad" ? m.main_grad_epilogue_seconds(k) : 0.0));
  }
  return seconds;
}
}  // namespace

std::vector<CollectiveRun> AnalyticCostModel::tp_collectives(Op op, int stage) const {
  const int t = s_.layout.tp;
  if (t <= 1 || op == Op::W) return {};
  // Per layer, 2 all-reduces of the n·h bf16 hidden state forward and 2 backward (Megatron
  // without SP); with SP each becomes an all-gather + reduce-scatter pair of the same volume.
  const double bytes = tokens_ * static_cast<double>(s_.model->hidden) * 2.0;
  // Under FP8 the layers' gathers move the quantized tensors: Transformer Engine quantizes a
  // column-parallel layer's input (the norm's output) and a row-parallel layer's output
  // gradient on this rank's n / t tokens and all-gathers the FP8 data, forward, backward and in
  // the weight gradient's re-gather, through NCCL or userbuffers
  // (transformer_engine/pytorch/module/layernorm_linear.py, layernorm_mlp.py:
  // gather_along_first_dim and fill_userbuffers_buffer_for_all_gather with the quantizer; base.py,
  // _grad_output_preprocess; distributed.py, _all_gather_fp8 / _all_gather_mxfp8 /
  // _all_gather_nvfp4), as the casts' shares in kernels() assume. One row-wise layout:
  // 1 byte an element, MXFP8's one E8M0 scale per 32 and NVFP4's 4 bits and one FP8 scale per 16
  // besides. The reduce-scatters, the head's, the embedding's, a MoE dispatcher's and LoRA's
  // gathers stay 16-bit.
  const double gathered = layer_gather_bytes();
  const StageContent& st = stages_.at(static_cast<std::size_t>(stage));
  const bool sp = s_.layout.sequence_parallel, forward = op == Op::F;
  // A full backward's collectives of the column-parallel layers (QKV, the MLP's up projection,
  // the head) are asynchronous: Megatron-LM's LinearWithGradAccumulationAndAsyncCommunication
  // and Transformer Engine's Linear / LayerNormLinear / LayerNormMLP backward issue the input
  // gradient's all-reduce (reduce-scatter under SP) before the layer's weight-gradient GEMM,
  // which does not need it, and under SP the re-gather of the layer's input (its weight gradient
  // needs the whole sequence) before the input-gradient GEMM, which does not; each is waited for
  // after its GEMM (Megatron's scripts set CUDA_DEVICE_MAX_CONNECTIONS=1 so the collective is
  // scheduled first). Each hides under its GEMM; what outlasts it is on the critical path. The
  // row-parallel layers' gradient all-gathers under SP are needed at once: blocking. A
  // zero-bubble schedule's input-gradient pass runs neither the weight gradients nor the
  // re-gathers: its collectives block. Korthikanti et al. 2022 Table 4 (one layer of a 22B
  // model over 8 A100s): backward 11.9 ms without SP and 11.8 with it, modelled 11.37 and 11.24
  // (tests/published/README.md).
  const bool async = op == Op::B;
  // With comm-GEMM overlap as Transformer Engine runs it (te_overlap: parallelism.tp_overlap with
  // SP, a dense model's QKV or MLP GEMMs) every layer's collective runs inside the GEMM it is
  // fused with (the userbuffers' all-gathers before QKV's and the MLP's up projection's forward
  // and before the row-parallel layers' input gradients, the reduce-scatters after the
  // row-parallel forward) and hides under that GEMM's chunks alone (`userbuffers` below): what
  // outlasts them is on the critical path, as for the asynchronous ones. The column-parallel
  // layers' input-gradient reduce-scatters of a zero-bubble input-gradient pass, with no weight
  // gradient beside them, block. Otherwise (no SP, experts, latent attention)
  // parallelism.tp_overlap is a generic overlap: every collective beside the whole pass (below).
  const bool fused = te_overlap() && st.layers > 0;
  const LoraNormOutputs apart = lora_norm_outputs(s_.training);
  // Megatron-core's all-to-all token dispatcher under SP, the experts split over the TP ranks
  // (expert tensor parallelism = tp, its default): a MoE layer's MLP gathers no hidden states;
  // it all-gathers over the TP group the tokens dispatched to this rank's experts after the
  // all-to-all (token_dispatcher.py, dispatch_postprocess: n·k·c tokens, k = top_k, c the
  // capacity factor, as many rows as its expert GEMMs) and reduce-scatters the experts' output
  // before the one back (combine_preprocess); backward the reverse, both blocking (autograd's,
  // not Transformer Engine's asynchronous ones). Shared experts (SharedExpertMLP) gather and
  // scatter the n·h hidden states as a dense MLP does. mlp_like(layers, sparse): the MLP halves
  // priced as a dense layer's among `layers`, `sparse` of them MoE layers.
  const int sparse_tp = sp && !fused ? s_.model->moe_layers_in(st.first_layer, st.layers) : 0;
  const double dispatched =
      s_.model->is_moe() ? s_.model->moe.top_k * s_.model->moe.capacity_factor * bytes : 0.0;
  const bool shared_mlp = s_.model->is_moe() && s_.model->moe.shared_ffn_hidden > 0;
  auto mlp_like = [&](int layers, int sparse) {
    return layers - sparse + (shared_mlp ? sparse : 0);
  };
  std::vector<CollectiveRun> runs;
  // Experts whole on each TP rank (parallelism.etp 1) are sent this rank's own tokens: no TP
  // collective of the dispatcher's.
  auto dispatch_tp = [&](int sparse) {  // a MoE layer's TP all-gather and reduce-scatter
    if (sparse <= 0 || s_.layout.experts_span_tp()) return;
    runs.push_back({Collective::AllGather, t, dispatched, sparse});
    runs.push_back({Collective::ReduceScatter, t, dispatched, sparse});
  };
  const int halves = st.layers + mlp_like(st.layers, sparse_tp);  // attention's and MLP's
  // Latent attention under SP (latent_sp): its attention gathers no hidden state (its down
  // projections take this rank's n / t tokens, attention_gemms); its column-parallel up
  // projections gather their inputs, the q latent (without one, linear_q_proj's hidden state)
  // and the kv latent, each quantized on this rank's tokens as the layers' gathers are, and the
  // shared rotary key goes by Megatron-core's own gather_from_sequence_parallel_region, 16-bit
  // and blocking (backward its reduce-scatter) (multi_latent_attention.py,
  // get_query_key_value_tensors). Backward the up projections' input gradients are
  // reduce-scattered and their inputs re-gathered as any column-parallel layer's. The attention
  // output's reduce-scatter and its gradient's gather stay the hidden state's.
  const bool latent = latent_sp() && !fused;
  const double q_width =
      static_cast<double>(s_.model->mla.q_rank > 0 ? s_.model->mla.q_rank : s_.model->hidden);
  const double kv_width = static_cast<double>(s_.model->mla.kv_rank);
  const double rope_bytes = tokens_ * static_cast<double>(s_.model->mla.rope_dim) * 2.0;
  const int latent_halves = latent ? st.layers : 0;  // attention halves priced apart
  auto latent_gathers = [&](int layers) {            // a forward's (or its replay's)
    if (layers <= 0) return;
    runs.push_back({Collective::AllGather, t, gather_bytes(q_width), layers});
    runs.push_back({Collective::AllGather, t, gather_bytes(kv_width), layers});
    runs.push_back({Collective::AllGather, t, rope_bytes, layers});
  };
  // The backward's (the row-parallel layers' output gradients, needed at once) gather what the
  // gradient's quantizer holds: Transformer Engine's Linear and LayerNormMLP backward set it to
  // both usages (row-wise for the input gradient's GEMM, column-wise for the weight gradient's:
  // transformer_engine/pytorch/module/linear.py, v2.14) and then gather through NCCL, which for
  // the block-scaled recipes moves both layouts with their scales (distributed.py,
  // _all_gather_mxfp8 and _all_gather_nvfp4: a row-wise and a column-wise all-gather each),
  // where per-tensor FP8 gathers its row-wise data alone (_all_gather_fp8). Frozen layers (LoRA)
  // need no weight gradient: row-wise only.
  const bool both_layouts =
      s_.training.precision == Precision::FP8 &&
      (s_.training.fp8_recipe == Fp8Recipe::Mxfp8 || s_.training.fp8_recipe == Fp8Recipe::Nvfp4) &&
      s_.training.lora_rank <= 0;
  const double gathered_gradient = both_layouts ? 2 * gathered : gathered;
  int layer_gathers = sp && !fused && forward ? halves - latent_halves : 0, gathers = 0,
      gradient_gathers = sp && !fused && !forward ? halves : 0,
      scatters = sp && !async && !(fused && forward) ? halves - (forward ? 0 : latent_halves) : 0;
  if (latent && forward) latent_gathers(st.layers);
  if (latent && !forward) {
    runs.push_back({Collective::ReduceScatter, t, rope_bytes, st.layers});
    if (!async) {  // an input-gradient pass: the up projections' reduce-scatters block
      runs.push_back({Collective::ReduceScatter, t, tokens_ * q_width * 2.0, st.layers});
      runs.push_back({Collective::ReduceScatter, t, tokens_ * kv_width * 2.0, st.layers});
    }
  }
  dispatch_tp(sparse_tp);
  int reduces = sp || async ? 0 : 2 * st.layers;
  // The vocabulary-parallel ends (Megatron-core's LanguageModelEmbedding, the output layer as a
  // ColumnParallelLinear, vocab_parallel_cross_entropy): each TP rank looks up or projects onto
  // its slice of the vocabulary. The embedding's partial outputs are summed: without SP an
  // all-reduce (backward nothing); with SP a reduce-scatter to the sequence-parallel region
  // (backward an all-gather), unless learned absolute positions are added first: then an
  // all-reduce and a local split (reduce_scatter_embeddings is off; backward an all-gather). The
  // head gathers its input from the sequence-parallel region (backward a reduce-scatter of its
  // input gradient), or without SP copies it (backward an all-reduce). The loss all-reduces,
  // forward, three fp32 values per token across the vocabulary slices: the logits' maximum, the
  // target's logit and the sum of exponentials. Multi-token prediction's modules each look up
  // the embedding and run the head and loss again.
  const int lookups = (st.embedding ? 1 : 0) + st.mtp, heads = st.head ? 1 + st.mtp : 0;
  if (!sp)
    reduces += forward ? lookups : 0;
  else if (!forward)
    gathers += lookups;
  else if (s_.model->position == PositionEmbedding::Learned)
    reduces += lookups;
  else
    scatters += lookups;
  if (sp && forward)
    gathers += heads;
  else if (!forward && !async)
    (sp ? scatters : reduces) += heads;
  // Multi-token prediction's eh_proj (column-parallel, 2h → h/t): under SP its [n, 2h] input is
  // all-gathered (backward: re-gathered for the weight gradient, its gradient reduce-scattered),
  // without SP its input gradient all-reduced; its output is then gathered whole
  // (gather_from_tensor_model_parallel_region) and, under SP, split to the sequence-parallel
  // region, whose backward all-gathers. Blocking, each the volume of two hidden states (input)
  // or one (output).
  // Full recompute replays the forward's in the backward (recomputes_mtp_blocks).
  if (st.mtp > 0) {
    const int m = st.mtp;
    if (!forward && recomputes_mtp_blocks(s_.training)) {
      if (sp) runs.push_back({Collective::AllGather, t, 2 * bytes, m});
      gathers += m;
    }
    if (forward) {
      if (sp) runs.push_back({Collective::AllGather, t, 2 * bytes, m});
      gathers += m;
    } else if (sp) {
      runs.push_back({Collective::AllGather, t, 2 * bytes, m});
      runs.push_back({Collective::ReduceScatter, t, 2 * bytes, m});
      gathers += m;
    } else {
      runs.push_back({Collective::AllReduce, t, 2 * bytes, m});
    }
  }
  // The GEMMs the collectives hide under: this pass's kernels (a full backward's for the
  // asynchronous ones).
  const std::vector<Kernel> ks = fused || async ? kernels(op, stage) : std::vector<Kernel>{};
  const std::initializer_list<std::string_view> column_in{"qkv"}, column_mlp{"mlp_up"},
      row_attention{"attn_out"}, row_mlp{"mlp_down"};
  // A userbuffers exchange of comm-GEMM overlap: inside its GEMM's call (in_gemm_call), hidden
  // under that GEMM's chunks as Transformer Engine pipelines them (transformer_engine/common/
  // comm_gemm_overlap/comm_gemm_overlap.cpp). The ring-exchange all-gather (split_overlap_ag)
  // computes chunk i while chunk i + 1 travels: its t − 1 steps hide under the first t − 1 of
  // the GEMM's t chunks, the last chunk computes alone, so what outlasts (t − 1)/t of the GEMM
  // is exposed (half of it at tp 2). The pipelined reduce-scatter (split_overlap_rs) sends each
  // of its k chunks once that chunk's GEMM is done: chunk i's hides under GEMM chunk i + 1, the
  // last one's under nothing, so at most (k − 1)/k of the collective hides, under (k − 1)/k of
  // the GEMM. `hide_s`: the whole GEMM's time (its chunks').
  auto userbuffers = [&](Collective kind, int count, double hide_s) {
    const bool ring = kind == Collective::AllGather;
    const double chunks = ring ? t : constants::kUserbuffersPipelineSplits;
    const double share = (chunks - 1) / chunks;
    CollectiveRun r{kind, t, ring ? gathered : bytes, count, hide_s * share};
    r.in_gemm_call = true;
    if (!ring) r.hidden_share = share;
    return r;
  };
  if (fused) {
    // Per layer, each under its own GEMM (a dense model's: every layer alike).
    const double n = st.layers;
    auto seconds = [&](std::initializer_list<std::string_view> names, std::string_view pass) {
      return gemm_seconds_named(*this, ks, names, pass) / n;
    };
    if (forward) {
      // Under LoRA the norm beside an adapter's layer returns its output, and TE gathers that
      // GEMM's input by a plain all-gather instead (LoraNormOutputs): blocking, and through
      // torch.distributed.
      for (const auto& [names, plain] :
           {std::pair{column_in, apart.attention}, std::pair{column_mlp, apart.mlp}})
        runs.push_back(plain ? CollectiveRun{Collective::AllGather, t, bytes, st.layers, 0.0}
                             : userbuffers(Collective::AllGather, st.layers, seconds(names, "")));
      for (const auto& names : {row_attention, row_mlp})
        runs.push_back(userbuffers(Collective::ReduceScatter, st.layers, seconds(names, "")));
    } else {
      for (const auto& names : {row_attention, row_mlp})
        runs.push_back(userbuffers(Collective::AllGather, st.layers, seconds(names, ".dgrad")));
    }
  }
  if (async) {
    // Per layer, each hides under its own layer's GEMM: the stage's total over its layers (a
    // stage's dense and MoE layers averaged).
    const Collective grad = sp ? Collective::ReduceScatter : Collective::AllReduce;
    const std::initializer_list<std::string_view> attention{"qkv", "q", "q_up", "kv_up"},
        mlp{"mlp_up", "experts.up", "shared.up"}, head{"lm_head"};
    auto seconds = [&](std::initializer_list<std::string_view> names, std::string_view pass) {
      return gemm_seconds_named(*this, ks, names, pass);
    };
    // Under LoRA the layers are frozen (Transformer Engine: requires_wgrad false): no weight
    // gradient hides the input gradient's collective, which so blocks, and no input is
    // re-gathered (ln_out_needs_gather needs weight.requires_grad).
    const bool regather = sp && s_.training.lora_rank <= 0;
    // Delayed weight gradients (training.delay_wgrad): Transformer Engine's layers wait for the
    // input gradient's collective right after its GEMM, nothing beside it (the head, Megatron-
    // core's own ColumnParallelLinear, does not delay).
    // Without SP and without Megatron's async_tensor_model_parallel_allreduce
    // (parallelism.tp_async_allreduce false: Megatron-DeepSpeed), the all-reduce blocks too.
    const bool blocking = !sp && !s_.layout.tp_async_allreduce;
    auto wgrad_hide = [&](std::initializer_list<std::string_view> names) {
      return s_.training.delay_wgrad || blocking ? 0.0 : seconds(names, ".wgrad");
    };
    if (st.layers > 0) {
      const double n = st.layers;
      // A MoE layer's MLP runs the dispatcher's blocking ones instead (above), but for its
      // shared experts'.
      for (const auto& [names, count] : {std::pair{attention, st.layers - latent_halves},
                                         std::pair{mlp, mlp_like(st.layers, sparse_tp)}}) {
        if (count <= 0) continue;
        runs.push_back({grad, t, bytes, count, wgrad_hide(names) / n});
        if (regather)
          runs.push_back({Collective::AllGather, t, gathered, count, seconds(names, ".dgrad") / n});
      }
      // Latent attention's up projections, each under its own GEMMs.
      const std::initializer_list<std::string_view> q_up{"q_up", "q"}, kv_up{"kv_up"};
      for (const auto& [names, width] : {std::pair{q_up, q_width}, std::pair{kv_up, kv_width}}) {
        if (latent_halves <= 0) break;
        runs.push_back({grad, t, tokens_ * width * 2.0, latent_halves, wgrad_hide(names) / n});
        if (regather)
          runs.push_back({Collective::AllGather, t, gather_bytes(width), latent_halves,
                          seconds(names, ".dgrad") / n});
      }
    }
    if (heads > 0) {
      runs.push_back({grad, t, bytes, heads, blocking ? 0.0 : seconds(head, ".wgrad") / heads});
      if (regather)
        runs.push_back({Collective::AllGather, t, bytes, heads, seconds(head, ".dgrad") / heads});
    }
  }
  // Full recomputation replays the recomputed layers' forward inside this backward (or
  // input-gradient pass), their TP collectives with it: Megatron's checkpointed layers run their
  // forward again, all-reduces or (SP) gathers and scatters included; under comm-GEMM overlap
  // each again hidden under its own forward GEMM. Selective recompute's attention core has no TP
  // collective (its context-parallel exchange: cp_collectives); its `mlp` and `moe` modules
  // replay their MLP half's (below).
  if (const int redo = forward ? 0 : recomputed_layers(s_.training, st.layers, st.mtp); redo > 0) {
    if (fused) {
      const std::vector<Kernel> fk = kernels(Op::F, stage);
      auto seconds = [&](std::initializer_list<std::string_view> names) {
        return gemm_seconds_named(*this, fk, names, "") / st.layers;
      };
      for (const auto& [names, plain] :
           {std::pair{column_in, apart.attention}, std::pair{column_mlp, apart.mlp}})
        runs.push_back(plain ? CollectiveRun{Collective::AllGather, t, bytes, redo, 0.0}
                             : userbuffers(Collective::AllGather, redo, seconds(names)));
      for (const auto& names : {row_attention, row_mlp})
        runs.push_back(userbuffers(Collective::ReduceScatter, redo, seconds(names)));
    } else if (sp) {
      // The model's dense layers come first: the recomputed ones' MoE layers are the last.
      const int redo_sparse = std::max(0, redo - (st.layers - sparse_tp));
      layer_gathers += (latent ? 0 : redo) + mlp_like(redo, redo_sparse);
      if (latent) latent_gathers(redo);
      scatters += redo + mlp_like(redo, redo_sparse);
      dispatch_tp(redo_sparse);
    } else {
      reduces += 2 * redo;
    }
  }
  // Selective recompute's `mlp` and `moe` modules replay the MLP half of a layer's forward, its
  // gathers and scatters (or all-reduce) with it.
  const RecomputeModules modules = recompute_modules(s_.training);
  if (!forward && st.layers > 0 && (modules.mlp || modules.moe)) {
    const int sparse = s_.model->moe_layers_in(st.first_layer, st.layers);
    const int redo_mlp = (modules.mlp ? st.layers - sparse : 0) + (modules.moe ? sparse : 0);
    if (redo_mlp > 0 && fused) {
      const std::vector<Kernel> fk = kernels(Op::F, stage);
      runs.push_back(userbuffers(Collective::AllGather, redo_mlp,
                                 gemm_seconds_named(*this, fk, column_mlp, "") / st.layers));
      runs.push_back(userbuffers(Collective::ReduceScatter, redo_mlp,
                                 gemm_seconds_named(*this, fk, row_mlp, "") / st.layers));
    } else if (sp) {
      const int redo_sparse = modules.moe ? sparse_tp : 0;
      layer_gathers += mlp_like(redo_mlp, redo_sparse);
      scatters += mlp_like(redo_mlp, redo_sparse);
      dispatch_tp(redo_sparse);
    } else {
      reduces += redo_mlp;
    }
  }
  // Selective recompute's `mla_up_proj` replays latent attention's up projections (and the
  // rotary embedding; module_recompute_kernels): under SP their gathers of the latents with them,
  // not the rotary key's, gathered before the checkpointed function.
  if (!forward && latent && modules.mla_up_proj && st.layers > 0) {
    runs.push_back({Collective::AllGather, t, gather_bytes(q_width), st.layers});
    runs.push_back({Collective::AllGather, t, gather_bytes(kv_width), st.layers});
  }
  // LoRA's adapters under TP (NeMo's ParallelLinearAdapter; lora_kernels): a column-parallel
  // target's r-wide output all-gathered forward and its B's input gradient all-reduced backward
  // (without SP also A's n × h input gradient: SP's backward reduce-scatters it with the
  // layer's); a row-parallel target's A output all-reduced forward, its B's input gradient
  // backward, and its output (h / tp wide) brought to the layer's: an all-to-all of the n × h /
  // tp shard each way (training.lora_all_to_all) or an all-gather of n × h whose backward,
  // under SP, gathers again. Blocking, every layer's; full recompute replays the forward's.
  if (s_.training.lora_rank > 0 && st.layers > 0) {
    const LoraTargets on = lora_targets(s_.training);
    const int column = (on.qkv ? 1 : 0) + (on.mlp_up ? 1 : 0);
    const int row = (on.attn_out ? 1 : 0) + (on.mlp_down ? 1 : 0);
    const double narrow = tokens_ * s_.training.lora_rank * 2.0;  // n × r, 16-bit
    const bool a2a = s_.training.lora_all_to_all;
    auto add = [&](Collective c, double size, int count) {
      if (count > 0) runs.push_back({c, t, size, count});
    };
    auto forward_runs = [&](int layers) {
      add(Collective::AllGather, narrow, column * layers);
      add(Collective::AllReduce, narrow, row * layers);
      if (a2a)
        add(Collective::AllToAll, bytes / t, row * layers);
      else
        add(Collective::AllGather, bytes, row * layers);
    };
    if (forward) {
      forward_runs(st.layers);
    } else {
      add(Collective::AllReduce, narrow, (column + row) * st.layers);
      if (!sp) add(Collective::AllReduce, bytes, column * st.layers);
      if (a2a)
        add(Collective::AllToAll, bytes / t, row * st.layers);
      else if (sp)
        add(Collective::AllGather, bytes, row * st.layers);
      forward_runs(recomputed_layers(s_.training, st.layers, st.mtp));
    }
  }
  // Per-tensor current scaling (training.fp8_recipe tensorwise) under SP: every rank of the TP
  // group must quantize the tensor it all-gathers with one scale, so the quantizer all-reduces
  // its amax (one fp32 value, MAX) over the TP group first, and the cast waits for it:
  // Transformer Engine 2.8's _customize_quantizers_float8_current_scaling
  // (transformer_engine/pytorch/module/layernorm_linear.py, layernorm_mlp.py, linear.py) sets
  // with_amax_reduction on the column-parallel layers' input quantizers (QKV's and the MLP's up
  // projection's, forward) and the row-parallel layers' gradient quantizers (the attention
  // output's and the MLP's down projection's, backward). A MoE layer's experts are not
  // sequence-parallel modules: its attention's one each way. Full recompute replays the
  // forward's. Latent attention's projections are left out.
  // NVFP4's per-tensor scale is agreed on the same way (its quantizer's with_amax_reduction for
  // the gathered tensors: Transformer Engine's NVFP4 documentation, "Amax reduction").
  const Fp8Recipe recipe = s_.training.fp8_recipe;
  if (sp && s_.training.precision == Precision::FP8 &&
      (recipe == Fp8Recipe::Tensorwise || recipe == Fp8Recipe::Nvfp4) && !s_.model->is_mla() &&
      st.layers > 0) {
    const int sparse = s_.model->moe_layers_in(st.first_layer, st.layers);
    auto per_pass = [&](int layers) {
      const int dense = std::min(layers, st.layers - sparse);
      return 2 * dense + (layers - dense);
    };
    int amax = per_pass(st.layers);
    if (!forward) amax += per_pass(recomputed_layers(s_.training, st.layers, st.mtp));
    runs.push_back({Collective::AllReduce, t, 4.0, amax});
  }
  if (layer_gathers > 0) runs.push_back({Collective::AllGather, t, gathered, layer_gathers});
  if (gradient_gathers > 0)
    runs.push_back({Collective::AllGather, t, gathered_gradient, gradient_gathers});
  if (gathers > 0) runs.push_back({Collective::AllGather, t, bytes, gathers});
  if (scatters > 0) runs.push_back({Collective::ReduceScatter, t, bytes, scatters});
  if (reduces > 0) runs.push_back({Collective::AllReduce, t, bytes, reduces});
  if (heads > 0 && forward) runs.push_back({Collective::AllReduce, t, tokens_ * 4.0, 3 * heads});
  if (s_.layout.tp_overlap && !te_overlap())
    for (CollectiveRun& run : runs) run.beside_pass = true;
  return runs;
}

double AnalyticCostModel::layer_gather_bytes() const {
  return gather_bytes(static_cast<double>(s_.model->hidden));
}

bool AnalyticCostModel::latent_sp() const {
  return s_.model->is_mla() && s_.layout.sequence_parallel && s_.layout.tp > 1;
}

double AnalyticCostModel::gather_bytes(double width) const {
  const double elements = tokens_ * width;
  if (s_.training.precision != Precision::FP8) return 2.0 * elements;
  switch (s_.training.fp8_recipe) {
    case Fp8Recipe::Mxfp8:
      return (1.0 + 1.0 / 32.0) * elements;
    case Fp8Recipe::Nvfp4:
      return kNvfp4ElementBytes * elements;
    default:
      return elements;
  }
}

bool AnalyticCostModel::fused_expert_mlp() const {
  return s_.training.fused_expert_mlp && s_.model->is_moe() &&
         s_.training.precision == Precision::FP8 && s_.training.fp8_recipe == Fp8Recipe::Mxfp8;
}

bool AnalyticCostModel::te_overlap() const {
  return s_.layout.tp_overlap && s_.layout.tp > 1 && s_.layout.sequence_parallel &&
         !s_.model->is_moe() && !s_.model->is_mla();
}

double AnalyticCostModel::fp8_cast_bytes(bool fused, bool gradient) const {
  // A cast reads 16 bits and writes FP8 row-wise and, where the GPU's FP8 GEMMs need the
  // transpose (Hopper), column-wise: 4 bytes per element, 3 on Blackwell. Delayed scaling: a
  // norm or activation writes its FP8 output itself (fused: nothing more than its own 16-bit
  // write, which it is charged). Current scaling (Transformer Engine 2.x,
  // transformer_engine/pytorch/csrc/extensions/normalization.cpp and activation.cpp,
  // FUSED_NORM_AMAX_FP8 / FUSED_ACTIVATION_AMAX_FP8): that output is written in 16 bits with its
  // amax and then cast (the cast's 4 or 3 bytes), and a standalone cast first reads the tensor
  // for its amax (quantizer.cpp, nvte_compute_amax before nvte_quantize: 2 bytes more).
  // MXFP8: every cast writes both layouts with their block scales, at the rate Transformer
  // Engine's casts run on Blackwell (constants.h); a fused activation writes them itself (the
  // norms' casts are apart: kernels()), and no amax is read first.
  if (s_.training.fp8_recipe == Fp8Recipe::Mxfp8)
    return fused ? 0.0 : constants::kMxfp8CastOverhead * constants::kMxfp8CastBytes;
  // NVFP4: every operand cast apart, its amax read first, a gradient rounded stochastically
  // (constants.h); without the Hadamard transform a norm's or activation's output cast takes
  // the amax its kernel computed, and without stochastic rounding a gradient casts as the rest.
  if (s_.training.fp8_recipe == Fp8Recipe::Nvfp4) {
    const double amax = fused && !s_.training.nvfp4_hadamard ? 0.0 : constants::kNvfp4AmaxPassBytes;
    const double cast =
        constants::kNvfp4CastPassBytes * (gradient && s_.training.nvfp4_stochastic_rounding
                                              ? constants::kNvfp4StochasticRounding
                                              : 1.0);
    return constants::kNvfp4CastOverhead * (amax + cast);
  }
  const bool current = s_.training.fp8_recipe == Fp8Recipe::Tensorwise;
  const double cast = k_.preset && k_.preset->fp8_any_layout ? 3.0 : 4.0;
  if (fused) return current ? cast : 0.0;
  if (!current) return cast;
  // A standalone current-scaling cast, its amax pass and its cast pass, on Blackwell at the rate
  // Transformer Engine measured for the pair (constants.h); on Hopper at the model's.
  return (blackwell() ? constants::kBlackwellFp8CurrentCastOverhead : 1.0) * (cast + 2.0);
}

std::string AnalyticCostModel::cast_rate_note(std::string_view what) const {
  if (s_.training.precision != Precision::FP8) return {};
  const bool attention = what == "attention.fp8_cast";
  if (!attention && what != "fp8.cast" && !what.ends_with(".fp8.cast")) return {};
  const Fp8Recipe recipe = s_.training.fp8_recipe;
  // The attention's casts take a recipe's rate only as MXFP8 attention (attention_kernels).
  if (attention &&
      fp8_attention_scaling(recipe, s_.training.cudnn_version) != Fp8AttentionScaling::Mxfp8)
    return {};
  switch (recipe) {
    case Fp8Recipe::Mxfp8:
      return fmt::format(
          " (bytes counted {:.2f}×: MXFP8's casts run that much slower, as Transformer "
          "Engine's cast kernel on a B200)",
          constants::kMxfp8CastOverhead);
    case Fp8Recipe::Nvfp4:
      return fmt::format(
          " (bytes counted {:.2f}×: NVFP4's casts run that much slower, as Transformer "
          "Engine's GEMM benchmark on a B300 times them)",
          constants::kNvfp4CastOverhead);
    case Fp8Recipe::Tensorwise:
      if (blackwell())
        return fmt::format(
            " (a standalone cast's bytes counted {:.2f}×: current scaling's amax and cast run "
            "that much slower on Blackwell, as Transformer Engine's GEMM benchmark on a B300 "
            "times them)",
            constants::kBlackwellFp8CurrentCastOverhead);
      return {};
    case Fp8Recipe::Delayed:
      return {};
  }
  return {};
}

double AnalyticCostModel::recipe_gemm_scale() const {
  switch (s_.training.fp8_recipe) {
    case Fp8Recipe::Mxfp8:
      return mxfp8_time_scale();
    case Fp8Recipe::Nvfp4:
      return nvfp4_time_scale(k_.preset ? k_.preset->device.name : "");
    default:
      return 1.0;
  }
}

bool AnalyticCostModel::blackwell() const {
  return k_.preset && k_.preset->sm >= 100;
}

bool AnalyticCostModel::fp8_transposes_each_microbatch() const {
  return s_.training.fp8_params && !s_.training.fp8_transpose_cache &&
         s_.training.fp8_recipe != Fp8Recipe::Mxfp8 && fp8_weight_bytes() > 0;
}

double AnalyticCostModel::fp8_weight_bytes() const {
  if (!s_.training.fp8_params) return fp8_cast_bytes(false);
  // MXFP8 parameters gathered in 16 bits and quantized after (scenario.h): each weight's MXFP8
  // cast, once a step.
  if (mxfp8_params_gathered_16bit(s_)) return fp8_cast_bytes(false);
  // FP8 parameters: the optimizer writes the FP8 weight (its shard, counted with the step); the
  // forward reads it as it is, the backward's input-gradient GEMM on Hopper its transpose (read
  // 1 byte, write 1: Float8Tensor's columnwise data), which Blackwell does without.
  return k_.preset && k_.preset->fp8_any_layout ? 0.0 : 2.0;
}

std::vector<CollectiveRun> AnalyticCostModel::ep_collectives(Op op, int stage) const {
  const int ep = s_.layout.ep;
  if (ep <= 1 || op == Op::W) return {};
  const StageContent& st = stages_.at(static_cast<std::size_t>(stage));
  const int moe = s_.model->moe_layers_in(st.first_layer, st.layers);
  if (moe == 0) return {};
  // Per MoE layer, Megatron-Core's all-to-all token dispatcher: the tokens this GPU routes
  // (top_k copies of each of its n tokens, n / tp of them under sequence parallelism) go to the
  // ranks of their experts and come back after them: a dispatch and a combine all-to-all of
  // n·k·h bf16 values (nccl-tests S: each rank's whole buffer) forward, their two gradients
  // backward. Routing is taken as even: (ep − 1) / ep of the buffer leaves the GPU.
  const double n = routed_tokens();
  // A capacity factor (or the load imbalance) c pads the buffers by c.
  const double values = n * s_.model->moe.top_k * s_.model->moe.capacity_factor *
                        static_cast<double>(s_.model->hidden);
  const double bytes = values * 2.0;
  // Full recomputation replays the recomputed MoE layers' dispatch and combine in the backward
  // (the model's dense layers come first: stage_layer_kernels).
  // Selective recompute's `moe` module replays every MoE layer's.
  const int redo = op == Op::F ? 0 : recomputed_layers(s_.training, st.layers, st.mtp);
  const int redo_moe = op == Op::F                          ? 0
                       : recompute_modules(s_.training).moe ? moe
                                                            : std::max(0, redo - (st.layers - moe));
  // Each pass moves one all-to-all towards the experts and one back per MoE layer: forward the
  // dispatch and the combine; backward the combine's gradient (the experts' output gradient,
  // towards them) and the dispatch's (their input gradient, back). FP8 dispatch
  // (training.fp8_dispatch) sends the ones towards the experts at 1 byte per value and a 4-byte
  // scale per 128 (DeepSeek-V3, arXiv:2412.19437, §3.3.1–3.3.2).
  const int each_way = moe + redo_moe;
  if (!s_.training.fp8_dispatch) return {{Collective::AllToAll, ep, bytes, 2 * each_way}};
  return {{Collective::AllToAll, ep, values * constants::kFp8DispatchBytesPerValue, each_way},
          {Collective::AllToAll, ep, bytes, each_way}};
}

std::vector<CollectiveRun> AnalyticCostModel::cp_collectives(Op op, int stage) const {
  const int cp = s_.layout.cp;
  if (cp <= 1 || op == Op::W) return {};
  const ModelSpec& m = *s_.model;
  const StageContent& st = stages_.at(static_cast<std::size_t>(stage));
  // Per layer, the keys and values of the whole sequence on this rank's heads (nccl-tests S of
  // the all-gather; the ring's cp − 1 sends of one rank's block move the same (cp − 1)/cp · S).
  // Grouped-query heads are split over TP ranks, or replicated when fewer than tp.
  const double kv_heads = m.kv_heads_per_rank(s_.layout.tp);
  const double width = kv_heads * static_cast<double>(m.qk_head_dim() + m.v_head_dim());
  const double bytes = static_cast<double>(s_.training.seq_len) * s_.training.micro_batch_size *
                       width * 2.0;  // bf16
  // Backward: the keys and values again (their blocks are not kept), and their gradients
  // reduced back to their owners (Transformer Engine's ring sends the dKV blocks along; its
  // all-gather variant reduce-scatters them).
  // Recomputation gathers the keys and values once more for the replayed attention: the fully
  // recomputed layers' forward, or under selective recompute every layer's attention core
  // (Megatron-core checkpoints the core attention, Transformer Engine's context-parallel exchange
  // inside it).
  const int redo = s_.training.recompute == Recompute::Selective
                       ? (recompute_modules(s_.training).core_attn ? st.layers : 0)
                       : recomputed_layers(s_.training, st.layers, st.mtp);
  if (s_.layout.cp_comm == CpComm::AllToAll) {
    // Transformer Engine's `a2a` (AttnFuncWithCPAndQKVOA2A): Q, K and V each exchanged from
    // this rank's s / cp tokens of all its heads to all s tokens of heads / cp before the
    // attention, its output back after it; backward the output's gradient in and Q, K and V's
    // gradients out. Each all-to-all's S: the rank's s / cp tokens of that tensor.
    // Under FP8 attention TE exchanges the FP8 tensors (Q, K, V and dO quantized before their
    // all-to-all; the FP8 output and dQ, dK, dV after the kernels): 1 byte an element.
    const double n = tokens_, e = s_.training.fp8_attention ? 1.0 : 2.0;
    const double q = n * static_cast<double>(m.heads) / s_.layout.tp * m.qk_head_dim() * e;
    const double o = n * static_cast<double>(m.heads) / s_.layout.tp * m.v_head_dim() * e;
    const double k = n * kv_heads * m.qk_head_dim() * e, v = n * kv_heads * m.v_head_dim() * e;
    // The same four sizes each way: forward Q, K, V in and the output out; backward the
    // output's gradient in and Q, K and V's out (the exchanged Q, K and V are kept), and a
    // recomputed attention's forward again.
    const int layers = st.layers, forwards = op == Op::F ? layers : redo;
    // TE pipelines a list's exchanges with the layout copies around them
    // (context_parallel.py, flash_attn_a2a_communicate): tensor i's all-to-all goes out
    // (asynchronously, on NCCL's stream) while tensor i + 1 is laid out for its own, and tensor
    // i − 1's received blocks are reordered on the context-parallel stream. So of Q, K and V (and
    // of dQ, dK and dV) Q's exchange hides under K's copy, K's under V's and Q's, V's under K's;
    // the output's and its gradient's, each alone in its list, under nothing. A copy of one
    // tensor: its share of the layer's layout copies (a2a_layout_copies: two a tensor).
    const Kernel layout = a2a_layout_copies(op);
    const double per_element = kernel_seconds(layout) / (2 * (q + k + v + o));
    const double copy_q = q * per_element, copy_k = k * per_element, copy_v = v * per_element;
    std::vector<CollectiveRun> runs;
    for (const auto& [size, hide] : {std::pair{q, copy_k}, std::pair{k, copy_v + copy_q},
                                     std::pair{v, copy_k}, std::pair{o, 0.0}}) {
      const int count = forwards + (op == Op::F ? 0 : layers);
      if (count > 0) runs.push_back({Collective::AllToAll, cp, size, count, hide});
    }
    return runs;
  }
  if (op == Op::F) return {{Collective::AllGather, cp, bytes, st.layers}};
  return {{Collective::AllGather, cp, bytes, st.layers + redo},
          {Collective::ReduceScatter, cp, bytes, st.layers}};
}

double AnalyticCostModel::activation_bytes() const {
  // s·b·h in 16 bits from each TP rank to its peer in the next stage. Under sequence
  // parallelism each TP rank holds and sends its s/t slice (Megatron-LM's
  // schedules.get_tensor_shapes: seq_length // tensor-parallel size); without it every TP rank
  // sends the whole, replicated tensor.
  const double whole = tokens_ * static_cast<double>(s_.model->hidden) * 2.0;
  return s_.layout.sequence_parallel ? whole / s_.layout.tp : whole;
}

Cost AnalyticCostModel::p2p(LinkClass link, double bytes) const {
  const LinkSpec& l = s_.cluster.link(link);
  // Fewer NICs than GPUs (cluster.inter_node.nics): the node's GPUs whose next pipeline stage is
  // on another node send at once and share them, each pair within one NIC. Those are all its GPUs
  // when a stage spans a node or more, else the last stage's (the ranks between two stages).
  double bandwidth = l.p2p();
  if (l.nics > 0) {
    // Ranks between a GPU and its next stage's peer.
    const int stride = s_.layout.stride(Axis::PP);
    const int senders = std::max(1, std::min(s_.cluster.gpus_per_node, stride));
    bandwidth =
        std::min(bandwidth, l.bandwidth * std::min(1.0, static_cast<double>(l.nics) / senders));
  }
  const double t = constants::kCollectiveBaseLatency + l.latency + bytes / bandwidth;
  return {seconds_to_ns(t), 0, bytes};
}

Cost AnalyticCostModel::collective(Collective c, int n, LinkClass link, double bytes,
                                   int per_node) const {
  if (n <= 1) return {0, 0, 0};
  const LinkSpec& l = s_.cluster.link(link);
  // Cost::bytes of a collective: what each GPU sends over its links, bus factor × S.
  const double sent = busbw_factor(c, n) * bytes;
  // Inside a node of a preset with a measured sweep, on the preset's own links: nccl-tests'
  // times by size (their bandwidth ramps with the message).
  if (link == LinkClass::IntraNode && k_.collectives && n <= 8) {
    const double measured = k_.collectives->seconds(c, n, bytes);
    const double floor = k_.collectives->floor_seconds(c, n);
    const double scaled = floor + (measured - floor) * k_.collective_bandwidth_scale;
    // Another hop latency: each of the ring's steps (all-reduce 2(n − 1), others n − 1) the
    // difference longer; a quicker fabric no shorter than NCCL's base latency, or than the
    // sweep itself where it measured less (2 GPUs, small sizes).
    const int steps = (c == Collective::AllReduce ? 2 : 1) * (n - 1);
    const double shifted = std::max(scaled + steps * k_.collective_hop_shift,
                                    std::min(constants::kCollectiveBaseLatency, scaled));
    return {seconds_to_ns(shifted), 0, sent};
  }
  if (link == LinkClass::InterNode) {
    double t = tuning_model_seconds(c, n, bytes, per_node, true, s_.cluster.intra_node,
                                    s_.cluster.inter_node);
    if (k_.internode) t *= measured_over_model(c, n, bytes, per_node);
    return {seconds_to_ns(t), 0, sent};
  }
  // Ring steps: all-reduce 2(n−1), others n−1; α = base + the latencies of the hops a piece
  // crosses.
  const int steps = (c == Collective::AllReduce ? 2 : 1) * (n - 1);
  const double t = constants::kCollectiveBaseLatency + steps * l.latency + sent / l.bandwidth;
  return {seconds_to_ns(t), 0, sent};
}

double AnalyticCostModel::measured_over_model(Collective c, int n, double bytes,
                                              int per_node) const {
  // Measured ÷ tuning model on a measured layout and machine (its links) at this size
  // (held at the sweep's ends; nccl-tests' all-to-all routes every copy): the tuning model's
  // rings with 8 GPUs per node are up to 2.5 times too quick on infiniband-ndr. Between the
  // node counts measured around the group's, the ratio is interpolated geometrically in log
  // nodes; past them, the nearest holds.
  const InterNodeSweep& net = *k_.internode;
  const std::optional<Collective> op = net.measured_op(c);
  if (!op) return 1.0;  // not measured on this network: the tuning model alone
  // A node with fewer NICs than GPUs (cluster.inter_node.nics) whose ring the NICs limit, not
  // NVLink: the measured rings with one GPU a node are NIC-bound too, where those with all eight
  // are NVLink-bound and carry the ring's per-step overhead as a ratio of NVLink's time.
  const LinkSpec& inter = s_.cluster.inter_node;
  const double share = inter.nic_share(s_.cluster.gpus_per_node);
  const bool nic_bound =
      share < 1 && inter.bandwidth * share * per_node < s_.cluster.intra_node.bandwidth;
  const int g = net.measured_per_node(*op, nic_bound ? 1 : per_node);
  const GpuPreset* measured = find_gpu_preset(net.machine());
  TRAINSIM_CHECK(measured != nullptr, "a network measured on a GPU preset's nodes");
  const GpuPreset& machine = *measured;
  auto ratio = [&](int nodes) {
    const double at = net.clamp_bytes(*op, g, nodes, bytes);
    return net.seconds(*op, g, nodes, at) / tuning_model_seconds(*op, nodes * g, at, g, false,
                                                                 machine.intra_node,
                                                                 machine.inter_node);
  };
  const std::vector<int> counts = net.node_counts(*op, g);
  const double nodes = std::ceil(static_cast<double>(n) / std::max(1, per_node));
  if (nodes <= counts.front()) return ratio(counts.front());
  if (nodes >= counts.back()) return ratio(counts.back());
  const auto hi = std::lower_bound(counts.begin(), counts.end(), nodes);
  if (*hi == nodes) return ratio(*hi);
  const int lo = *(hi - 1);
  const double w = std::log(nodes / lo) / std::log(static_cast<double>(*hi) / lo);
  return std::pow(ratio(lo), 1 - w) * std::pow(ratio(*hi), w);
}

double AnalyticCostModel::tuning_model_seconds(Collective c, int n, double bytes, int per_node,
                                               bool routing, const LinkSpec& intra,
                                               const LinkSpec& l) const {
  const double sent = busbw_factor(c, n) * bytes;
  // Each GPU's NIC bandwidth: one NIC's, or its share of the node's NICs when a node has fewer
  // NICs than GPUs (cluster.inter_node.nics; the measured machines' links have one per GPU).
  const double nic = l.bandwidth * l.nic_share(s_.cluster.gpus_per_node);
  if (c == Collective::AllToAll) {
    // NCCL's all-to-all is a send and a receive to every peer at once (grouped point-to-point,
    // no ring): of S, (n − k)/n leaves through this GPU's own NIC and (k − 1)/n goes over
    // NVLink to the k − 1 members in its node, side by side; one hop of latency.
    const double k = std::max(1, per_node);
    double out = (n - k) / n * bytes / nic;
    double in = (k - 1) / n * bytes / intra.bandwidth;
    // The only all-to-alls are expert parallelism's token dispatch and combine (S: top_k
    // copies of each token). With node-limited routing (DeepSeek-V3 §3.2.2) a token crosses
    // the network once per remote node among the nodes its experts are on, instead of once per
    // remote copy, and is forwarded inside each node over NVLink to its experts there: all
    // copies but the ones on the receiving GPU, (k − 1)/k of S. Its nodes: at most M, and no
    // more than K experts spread evenly over N nodes reach, N·(1 − (1 − 1/N)^K) expected (the
    // expectation capped at M, not the capped one's expectation: a little more than it); of
    // them (N − 1)/N remote, its own node one of them with chance 1/N each.
    const int limit = routing && s_.model ? s_.model->moe.node_limit : 0;
    if (limit > 0 && s_.model->moe.top_k > 0 && n > k) {
      const double nodes = n / k, copies = s_.model->moe.top_k;
      const double reached = nodes * (1 - std::pow(1 - 1 / nodes, copies));
      const double crossing =
          std::min(std::min<double>(limit, reached) * (nodes - 1) / nodes, copies * (n - k) / n);
      out = crossing / copies * bytes / nic;
      in = (k - 1) / k * bytes / intra.bandwidth;
    }
    return constants::kCollectiveBaseLatency + l.latency + std::max(out, in);
  }
  // Between nodes, NCCL runs one ring channel per rail: with k members of the group in each
  // node, k NICs per node carry the traffic at once, up to what NVLink inside the node takes
  // (nccl-tests convention: multi-node rings ≈ min(NVLink, NICs per node × NIC busbw)); with
  // fewer NICs than GPUs a node's groups share them, each member its share.
  double bandwidth = nic;
  if (per_node > 1) bandwidth = std::min(intra.bandwidth, nic * per_node);
  const int steps = (c == Collective::AllReduce ? 2 : 1) * (n - 1);
  // Between nodes, as NCCL's tuning model has it (src/graph/tuning.cc, ring): over k members
  // per node the ring leaves each node once, so of its steps nNodes − 1 (all-reduce 2·nNodes)
  // cross the network and the rest NVLink (as NCCL counts them: with one member per node an
  // all-reduce's 2·nNodes exceed its 2(n − 1) steps, the NVLink count going to −2); and NCCL
  // picks the protocol (Simple, LL128, LL), for an all-reduce also the tree, with the least time.
  const int k = std::max(1, per_node);
  const int nodes = (n + k - 1) / k;
  const int inter = c == Collective::AllReduce ? 2 * nodes : nodes - 1;
  const bool all_reduce = c == Collective::AllReduce;
  const double intra_scale = intra.latency / constants::kSimpleIntraHop;
  const double inter_scale = l.latency / constants::kSimpleInterHop;
  // A protocol's share of the link, within its cap.
  auto share = [&](const constants::NcclProtocol& p, double fraction) {
    const double cap = nodes <= 2 ? p.max_bandwidth_two_nodes : p.max_bandwidth;
    return cap > 0 ? std::min(bandwidth * fraction, cap) : bandwidth * fraction;
  };
  double best = std::numeric_limits<double>::infinity();
  for (const constants::NcclProtocol& p : constants::kRingProtocols) {
    const double bw = share(p, k > 1 ? p.bandwidth_share : p.bandwidth_share_one_per_node);
    double latency =
        p.base + (steps - inter) * p.intra_hop * intra_scale + inter * p.inter_hop * inter_scale;
    if (all_reduce) latency *= p.all_reduce_latency_factor;
    best = std::min(best, latency + sent / bw);
  }
  if (all_reduce && nodes > 1) {
    const int log2_nodes = static_cast<int>(std::floor(std::log2(nodes)));
    // ⌊log₂(bytes / 64)⌋, the index of the tree's correction by size.
    const int log_size = bytes >= 128 ? static_cast<int>(std::floor(std::log2(bytes / 64))) : 0;
    for (const constants::NcclProtocol& p : constants::kTreeProtocols) {
      double bw = share(p, p.bandwidth_share);
      if (log_size < 23) bw *= p.tree_correction[static_cast<std::size_t>(log_size)];
      const double t = p.base + 2 * (k - 1) * p.intra_hop * intra_scale +
                       2 * log2_nodes * p.inter_hop * inter_scale + 2 * bytes / bw;
      best = std::min(best, t);
    }
  }
  return best;
}

double AnalyticCostModel::stage_params(int stage) const {
  return static_cast<double>(trainsim::stage_params(
      *s_.model, stages_.at(static_cast<std::size_t>(stage)), s_.layout.tp,
      static_cast<int>(stages_.size()), s_.layout.ep, s_.layout.etp, learned_position_params(s_)));
}

double AnalyticCostModel::expert_params(int stage) const {
  return static_cast<double>(stage_expert_params(*s_.model,
                                                 stages_.at(static_cast<std::size_t>(stage)),
                                                 s_.layout.tp, s_.layout.ep, s_.layout.etp));
}

double AnalyticCostModel::gradient_bytes(int stage) const {
  // Reduced in training.grad_reduce_dtype: by default the precision they accumulate in.
  return grad_reduce_bytes(s_.training) * trainable_params(stage);
}

Cost AnalyticCostModel::host_transfer(double bytes) const {
  TRAINSIM_CHECK(s_.cluster.host_link > 0, "validate() requires a host link with offload");
  return {seconds_to_ns(bytes / s_.cluster.host_link), 0, bytes};
}

Cost AnalyticCostModel::host_optimizer(double params) const {
  return {seconds_to_ns(params / s_.cluster.host_adam_rate), 0, 0};
}

Cost AnalyticCostModel::optimizer(double params) const {
  const TrainingSpec& t = s_.training;
  if (t.optimizer == Optimizer::Sgd) {
    // Gradient clipping (when on: the norm reads each gradient, the rescale reads and writes it,
    // 3 × its bytes), then plain SGD on the 16-bit weights in place (torch.optim.SGD without
    // momentum: one multi-tensor pass of weight -= lr · gradient): read the weight (2) and its
    // gradient (2, or 4 accumulated in fp32), write the weight (2).
    const double grad = t.fp32_grad_accumulation ? 4.0 : 2.0;
    const double per_param = 2.0 + grad + 2.0 + (t.grad_clipping ? 3.0 * grad : 0.0);
    const double bytes = params * per_param;
    const int kernels = 1 + (t.grad_clipping ? 2 : 0);
    return {seconds_to_ns(memory_seconds(bytes) + kernels * k_.kernel_launch), 0, bytes};
  }
  // Gradient clipping (when on), then Adam: fused into one pass, or one pass per operation.
  // A fused step over fp32 masters (not FSDP's in-place fp32 shards) adds the gradient cast
  // (unless they accumulate in fp32) and the copy back to the 16-bit weights.
  const bool masters = t.fused_optimizer && s_.layout.zero < 3;
  const bool cast = masters && !t.fp32_grad_accumulation;
  const double per_param =
      (t.fused_optimizer ? constants::kAdamBytesPerParam : constants::kUnfusedAdamBytesPerParam) +
      (t.grad_clipping ? constants::kGradClipBytesPerParam : 0.0) +
      (masters ? constants::kMasterCopyBytesPerParam : 0.0) +
      (cast ? constants::kGradCastBytesPerParam : 0.0);
  const double bytes = params * per_param;
  const int kernels =
      (t.fused_optimizer ? 1 : 8) + (t.grad_clipping ? 2 : 0) + (masters ? 1 : 0) + (cast ? 1 : 0);
  return {seconds_to_ns(memory_seconds(bytes) + kernels * k_.kernel_launch), 0, bytes};
}

}  // namespace trainsim
