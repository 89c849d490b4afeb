#include "scenario/validate_scenario.h"

#include <map>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "scenario/limits.h"
#include "scenario/partition.h"
#include "scenario/scenario_schema.h"

namespace trainsim {
namespace {

class Checker {
 public:
  explicit Checker(const Scenario& s) : s_(s) {}

  [[noreturn]] void fail(const std::string& key, const std::string& msg) const {
    throw ScenarioError(s_.where(key), key, msg);
  }
  void in_range(const std::string& key, long long v, long long lo, long long hi) const {
    if (v < lo || v > hi)
      fail(key, fmt::format("expected an integer in [{}, {}], got {}", lo, hi, v));
  }
  bool given(const std::string& key) const { return s_.origins.count(key) > 0; }

 private:
  const Scenario& s_;
};

// Every value against its key's range in the schema, the one the loader reads it by.
void check_ranges(const Scenario& s, const Checker& c) {
  using Kind = ValueRule::Kind;
  for (const SchemaKey& k : scenario_keys()) {
    // The batch's own check blames the key the file gave (global_batch_size or microbatches).
    if (!k.access.get || k.path == "training.global_batch_size") continue;
    const std::optional<KeyValue> v = k.access.get(s);
    if (!v) continue;
    const std::string key(k.path);
    if (k.rule.kind == Kind::Integer)
      c.in_range(key, v->integer, static_cast<long long>(k.rule.min),
                 static_cast<long long>(k.rule.max));
    if (k.rule.kind == Kind::Number && !(v->number >= k.rule.min && v->number <= k.rule.max))
      c.fail(key, fmt::format("expected a number in [{}, {}], got {}", k.rule.min, k.rule.max,
                              v->number));
  }
}

// A mixture of experts is whole: experts with a top-k, and MoE keys only with experts.
void check_moe(const Scenario& s, const Checker& c) {
  if (!s.model) return;
  const ModelSpec& m = *s.model;
  const MoeSpec& e = m.moe;
  if (e.experts == 0) {
    for (const auto& [key, set] : {std::pair{"model.moe.top_k", e.top_k != 0},
                                   {"model.moe.ffn_hidden", e.ffn_hidden != 0},
                                   {"model.moe.shared_ffn_hidden", e.shared_ffn_hidden != 0},
                                   {"model.moe.dense_layers", e.dense_layers != 0},
                                   {"model.moe.capacity_factor", e.capacity_factor != 1},
                                   {"model.moe.node_limit", e.node_limit != 0}})
      if (set && c.given(key))  // a preset's, after --set model.moe.experts=0: unused
        c.fail(key, "applies to a mixture of experts only: give model.moe.experts (2 or more)");
    return;
  }
  if (e.experts == 1)
    c.fail("model.moe.experts",
           "1 expert is a dense MLP: give 0 (a dense model) or 2 or more routed experts");
  if (e.top_k == 0)
    c.fail("model.moe.top_k", fmt::format("required with model.moe.experts ({}): the experts "
                                          "each token is sent to",
                                          e.experts));
  if (e.top_k > e.experts)
    c.fail("model.moe.top_k", fmt::format("top_k = {} exceeds the {} experts", e.top_k, e.experts));
  if (e.top_k > 0 && e.capacity_factor > static_cast<double>(e.experts) / e.top_k)
    c.fail("model.moe.capacity_factor",
           fmt::format("{:g} exceeds experts / top_k = {} / {}: the busiest expert cannot get more "
                       "than every token",
                       e.capacity_factor, e.experts, e.top_k));
  if (e.node_limit > e.top_k)
    c.fail("model.moe.node_limit",
           fmt::format("{} nodes exceed top_k = {}: a token's experts lie on at most top_k nodes",
                       e.node_limit, e.top_k));
  if (e.dense_layers >= m.layers)
    c.fail("model.moe.dense_layers",
           fmt::format("{} dense layers of the model's {} leave no MoE layer", e.dense_layers,
                       m.layers));
}

// Latent attention is whole: a KV latent with its three head widths, and its keys only with it.
void check_mla(const Scenario& s, const Checker& c) {
  if (!s.model) return;
  const LatentAttention& l = s.model->mla;
  const std::pair<const char*, std::int64_t> widths[] = {{"model.mla.rope_head_dim", l.rope_dim},
                                                         {"model.mla.nope_head_dim", l.nope_dim},
                                                         {"model.mla.v_head_dim", l.v_dim}};
  if (l.kv_rank == 0) {
    // Given with no latent (not a preset's, after --set model.mla.kv_rank=0: unused).
    if (l.q_rank != 0 && c.given("model.mla.q_rank"))
      c.fail("model.mla.q_rank", "applies to latent attention only: give model.mla.kv_rank");
    for (const auto& [key, v] : widths)
      if (v != 0 && c.given(key))
        c.fail(key, "applies to latent attention only: give model.mla.kv_rank");
    return;
  }
  for (const auto& [key, v] : widths)
    if (v == 0) c.fail(key, "required with model.mla.kv_rank (latent attention)");
}

// FP8 GEMMs need FP8 tensor cores (a preset that has them: the measured ratio is a Hopper GPU's);
// FP8 parameters need FP8 training.
// training.cudnn_version (its range is the parser's): for cuDNN's attention only.
void check_cudnn_version(const Scenario& s, const Checker& c) {
  if (s.training.cudnn_version && s.training.attention != AttentionKernel::Cudnn)
    c.fail("training.cudnn_version",
           "a cuDNN release prices cuDNN's fused attention only: give training.attention: "
           "cudnn, or drop the key");
}

// training.grad_accumulation_fusion: a GEMM epilogue's accumulation, which eager PyTorch's
// AccumulateGrad replaces.
void check_grad_accumulation(const Scenario& s, const Checker& c) {
  if (s.training.grad_accumulation_fusion.value_or(false) && s.training.runtime == Runtime::Eager)
    c.fail("training.grad_accumulation_fusion",
           "eager PyTorch (training.runtime: eager) adds each micro-batch's gradients by "
           "AccumulateGrad, not in the GEMM: give runtime fused or compiled, or drop the key");
}

void check_precision(const Scenario& s, const Checker& c) {
  if (s.training.fp8_params && s.training.precision != Precision::FP8)
    c.fail("training.fp8_params", fmt::format("FP8 parameters need training.precision: fp8, got {}",
                                              precision_name(s.training.precision)));
  if (s.training.fp8_params && s.training.optimizer == Optimizer::Sgd)
    c.fail("training.optimizer",
           "FP8 parameters are updated through fp32 master weights, which plain SGD "
           "(training.optimizer: sgd) does not keep: give optimizer: adam or adamw, or drop "
           "training.fp8_params");
  if (!s.training.fp8_transpose_cache && !s.training.fp8_params)
    c.fail("training.fp8_transpose_cache",
           "the transpose cache is FP8 parameters' (Float8Tensor's): give training.fp8_params: "
           "true, or leave this out");
  if (s.training.fp8_recipe != Fp8Recipe::Delayed && s.training.precision != Precision::FP8)
    c.fail("training.fp8_recipe", fmt::format("an FP8 recipe needs training.precision: fp8, got {}",
                                              precision_name(s.training.precision)));
  if (block_scaled(s.training.fp8_recipe) && s.training.precision == Precision::FP8) {
    const char* what = s.training.fp8_recipe == Fp8Recipe::Mxfp8 ? "MXFP8" : "NVFP4";
    const GpuPreset* gpu = find_gpu_preset(s.cluster.gpu.preset);
    if (!gpu || gpu->sm < 100)
      c.fail("training.fp8_recipe",
             fmt::format("{} runs on Blackwell's block-scaled tensor cores only (cluster.gpu: "
                         "b200, gb200, gb300, b300), got {}: give fp8_recipe delayed or tensorwise",
                         what,
                         s.cluster.gpu.preset.empty() ? s.cluster.gpu.name : s.cluster.gpu.preset));
    if (s.training.fp8_recipe == Fp8Recipe::Nvfp4 && s.training.fp8_params)
      c.fail("training.fp8_params",
             "NVFP4 parameters (Megatron-core's fp4_param) are not modelled: drop "
             "training.fp8_params, or give fp8_recipe mxfp8, delayed or tensorwise");
  }
  // NVFP4's options mean nothing under another recipe: refused off their default there.
  const bool nvfp4 =
      s.training.precision == Precision::FP8 && s.training.fp8_recipe == Fp8Recipe::Nvfp4;
  for (const auto& [key, on] :
       {std::pair{"training.nvfp4_hadamard", s.training.nvfp4_hadamard},
        std::pair{"training.nvfp4_stochastic_rounding", s.training.nvfp4_stochastic_rounding}})
    if (!on && !nvfp4)
      c.fail(key,
             "an NVFP4 option: needs training.precision: fp8 with fp8_recipe: nvfp4; leave it out "
             "(true) otherwise");
  if (s.training.fp8_standalone_casts.value_or(Fp8Casts{}) != Fp8Casts{} &&
      s.training.precision != Precision::FP8)
    c.fail("training.fp8_standalone_casts",
           fmt::format("FP8 casts need training.precision: fp8, got {}",
                       precision_name(s.training.precision)));
  if (s.training.fp8_attention) {
    if (s.training.precision != Precision::FP8)
      c.fail("training.fp8_attention",
             fmt::format("FP8 attention needs training.precision: fp8, got {}",
                         precision_name(s.training.precision)));
    else if (s.training.attention != AttentionKernel::Cudnn)
      c.fail("training.fp8_attention",
             "FP8 attention is cuDNN's fused attention in FP8: give training.attention: cudnn");
    else if (s.model) {
      const GpuPreset* gpu = find_gpu_preset(s.cluster.gpu.preset);
      if (!gpu || gpu->sm < 100)
        c.fail(
            "training.fp8_attention",
            fmt::format(
                "FP8 attention has figures on Blackwell only (b200, gb200, gb300, b300: NVIDIA's "
                "cudnn-frontend benchmark), got {}",
                s.cluster.gpu.preset.empty() ? s.cluster.gpu.name : s.cluster.gpu.preset));
    }
  }
  if (s.training.fp8_output_proj &&
      (s.training.precision != Precision::FP8 || s.training.fp8_recipe != Fp8Recipe::Mxfp8))
    c.fail("training.fp8_output_proj",
           s.training.precision != Precision::FP8
               ? fmt::format("the MXFP8 output projection needs training.precision: fp8, got {}",
                             precision_name(s.training.precision))
               : std::string("the output projection runs in FP8 under the MXFP8 recipe only, as "
                             "Megatron-core requires: give training.fp8_recipe: mxfp8"));
  if (eager_ops(s.training).gate_up_split && s.model &&
      (s.model->mlp != MlpKind::SwiGLU || !eager_ops(s.training).swiglu))
    c.fail("training.eager_ops",
           "gate_up_split is where an op-by-op SwiGLU takes its gate and up halves: it needs "
           "model.mlp: swiglu and swiglu in training.eager_ops");
  if (eager_ops(s.training).kv_repeat && s.model &&
      (s.model->is_mla() || s.model->kv_heads >= s.model->heads))
    c.fail("training.eager_ops",
           fmt::format("kv_repeat expands grouped-query K and V to every query head: it needs "
                       "model.kv_heads below model.heads (got {} of {}{})",
                       s.model->kv_heads, s.model->heads,
                       s.model->is_mla() ? ", and latent attention has no such heads" : ""));
  if (s.training.fp8_activation_store && s.model) {
    if (s.model->mlp != MlpKind::SwiGLU)
      c.fail("training.fp8_activation_store",
             "Megatron-core stores a gated MLP's activation input in FP8 (its fused bias-SwiGLU): "
             "give model.mlp: swiglu, or leave this out");
    else if (eager_ops(s.training).swiglu)
      c.fail("training.fp8_activation_store",
             "the FP8 store is the fused SwiGLU's; training.eager_ops runs SwiGLU op by op: take "
             "swiglu out of training.eager_ops, or leave this out");
  }
  // Without expert parallelism it has nothing to send (no effect, as expert_gemms without
  // experts), so a search over ep keeps it.
  if (s.training.fp8_dispatch && s.training.precision != Precision::FP8)
    c.fail("training.fp8_dispatch",
           fmt::format("FP8 dispatch needs training.precision: fp8, got {}",
                       precision_name(s.training.precision)));
  if (s.training.precision != Precision::FP8 || !s.model) return;
  const std::string& p = s.cluster.gpu.preset;
  const GpuPreset* preset = find_gpu_preset(p);
  if (preset && preset->fp8) return;
  std::vector<std::string> with;
  for (const std::string& n : gpu_preset_names())
    if (find_gpu_preset(n)->fp8) with.push_back(n);
  c.fail("training.precision",
         fmt::format("fp8 needs a GPU with FP8 tensor cores (cluster.gpu: {}), got {}: {}",
                     fmt::join(with, ", "), p.empty() ? s.cluster.gpu.name : p,
                     preset ? "its datasheet lists no FP8 tensor cores (Ampere has none)"
                            : "a custom GPU's FP8 GEMM speed is unknown"));
}

// LoRA: adapters on a dense model's linear layers; its keys need a rank.
void check_lora(const Scenario& s, const Checker& c) {
  const TrainingSpec& t = s.training;
  if (t.lora_rank <= 0) {
    if (t.lora_targets && c.given("training.lora_targets"))
      c.fail("training.lora_targets", "applies to LoRA only: give training.lora_rank > 0");
    if (t.lora_dropout > 0)
      c.fail("training.lora_dropout", "applies to LoRA only: give training.lora_rank > 0");
    if (t.lora_all_to_all)
      c.fail("training.lora_all_to_all", "applies to LoRA only: give training.lora_rank > 0");
    if (t.lora_fused)
      c.fail("training.lora_fused", "applies to LoRA only: give training.lora_rank > 0");
    return;
  }
  if (t.lora_all_to_all && !(s.layout.sequence_parallel && s.layout.tp > 1))
    c.fail("training.lora_all_to_all",
           "the adapters' all-to-all exchanges sequence-parallel shards: it needs tp > 1 with "
           "parallelism.sequence_parallel");
  if (t.lora_rank % s.layout.tp != 0)
    c.fail("training.lora_rank",
           fmt::format("rank {} must be a multiple of tp = {}: a column-parallel target's A is "
                       "split over the TP ranks (Megatron's divide asserts it)",
                       t.lora_rank, s.layout.tp));
  if (lora_targets(t) == LoraTargets{})
    c.fail("training.lora_targets",
           "LoRA with no target trains nothing: give some of qkv, attn_out, mlp_up, mlp_down");
  if (!s.model) {
    c.fail("training.lora_rank", "LoRA needs a model (a costs-only study has no weights)");
    return;
  }
  const ModelSpec& m = *s.model;
  const char* unmodelled = m.is_moe()         ? "a mixture of experts"
                           : m.is_mla()       ? "latent attention"
                           : m.mtp_layers > 0 ? "multi-token prediction"
                                              : nullptr;
  if (unmodelled)
    c.fail("training.lora_rank",
           fmt::format("LoRA on {} is not modelled: LoRA applies to dense models with standard "
                       "attention and no multi-token prediction modules",
                       unmodelled));
}

// ZeRO-Offload keeps the optimizer's shard on the host: DeepSpeed's offload_optimizer needs a
// ZeRO stage, and the host link must be known.
void check_offload(const Scenario& s, const Checker& c) {
  if (s.training.offload_activation_layers > 0 && s.model && s.cluster.host_link <= 0)
    c.fail("cluster.host_link",
           "required with training.offload_activations for a GPU without preset: the host "
           "link's bandwidth");
  if (s.training.offload == Offload::None || !s.model) return;
  if (s.training.optimizer == Optimizer::Sgd)
    c.fail("training.offload",
           "optimizer offload moves Adam's master weights and states to the host; plain SGD "
           "(training.optimizer: sgd) has none: give offload: none or optimizer: adam");
  if (s.layout.zero < 1)
    c.fail("training.offload",
           fmt::format("optimizer offload needs parallelism.zero 1, 2 or 3 (DeepSpeed's "
                       "offload_optimizer partitions the states it moves), got zero: {}",
                       s.layout.zero));
  if (s.cluster.host_link <= 0)
    c.fail("cluster.host_link",
           "required with training.offload for a GPU without preset: the host link's bandwidth");
}

void check_layout(const Scenario& s, const Checker& c) {
  using namespace limits;
  const Layout& l = s.layout;
  const long long gpus = static_cast<long long>(l.dp) * l.cp * l.tp * l.pp;
  if (gpus > kMaxGpus)
    c.fail("parallelism",
           fmt::format("dp × cp × tp × pp = {} exceeds the limit of {} GPUs", gpus, kMaxGpus));
  if (static_cast<long long>(l.pp) * l.vpp > kMaxStages)
    c.fail(
        c.given("parallelism.vpp") ? "parallelism.vpp" : "parallelism.pp",
        fmt::format("pp × vpp = {} × {} stages exceed the limit of {}", l.pp, l.vpp, kMaxStages));
  const std::pair<const char*, bool> buckets[] = {
      {"parallelism.fsdp.gather_bucket", l.fsdp.gather_bucket.has_value()},
      {"parallelism.fsdp.reduce_bucket", l.fsdp.reduce_bucket.has_value()}};
  for (const auto& [key, set] : buckets)
    if (set && l.zero != 3)
      c.fail(key, fmt::format("only applies to zero: 3 (the units ZeRO-3 gathers and "
                              "reduce-scatters), got zero: {} (remove it, or --set {}=null)",
                              l.zero, key));
  if (l.param_gather_with_forward && l.zero != 1 && l.zero != 2)
    c.fail("parallelism.param_gather",
           fmt::format("only applies to zero: 1 or 2 (ZeRO-3 gathers before every use; ZeRO-0 "
                       "keeps whole parameters), got zero: {}",
                       l.zero));
}

// A node is one NVLink domain: at most what the preset's spans (a GB200 or GB300 NVL72 rack's
// 72 GPUs).
void check_nvlink_domain(const Scenario& s, const Checker& c) {
  const GpuPreset* p = find_gpu_preset(s.cluster.gpu.preset);
  if (p && p->max_gpus_per_node > 0 && s.cluster.gpus_per_node > p->max_gpus_per_node)
    c.fail("cluster.gpus_per_node",
           fmt::format("a {} node is the NVL72 rack's NVLink domain: at most {} GPUs, got {} "
                       "(more GPUs are more nodes, joined by the network)",
                       p->device.name, p->max_gpus_per_node, s.cluster.gpus_per_node));
}

void check_batch(const Scenario& s, const Checker& c) {
  using namespace limits;
  const TrainingSpec& t = s.training;
  if (t.recompute_layers > 0 && t.recompute != Recompute::Full)
    c.fail("training.recompute_layers",
           fmt::format("only applies to recompute: full (the first N layers of each stage "
                       "recomputed), got recompute: {}",
                       recompute_name(t.recompute)));
  if (t.recompute_modules) {
    const RecomputeModules& r = *t.recompute_modules;
    if (t.recompute != Recompute::Selective)
      c.fail("training.recompute_modules",
             fmt::format("only applies to recompute: selective (the modules recomputed), got "
                         "recompute: {} (remove it, or --set training.recompute_modules=null)",
                         recompute_name(t.recompute)));
    else if (r.mla_up_proj && s.model && !s.model->is_mla())
      c.fail("training.recompute_modules",
             "mla_up_proj needs latent attention (model.mla), as in Megatron-core");
    else if (r.moe_act && s.model && !s.model->is_moe())
      c.fail("training.recompute_modules", "moe_act needs a mixture of experts (model.moe)");
    else if (r.moe_act && t.expert_gemms == ExpertGemms::Sequential)
      c.fail("training.recompute_modules",
             "moe_act needs grouped expert GEMMs (Megatron-core's --moe-grouped-gemm): "
             "training.expert_gemms multi_stream or grouped, got sequential");
  }
  if (t.fused_expert_mlp && s.model && s.model->is_moe()) {
    if (t.precision != Precision::FP8 || t.fp8_recipe != Fp8Recipe::Mxfp8)
      c.fail("training.fused_expert_mlp",
             "Transformer Engine's fused grouped MLP runs MXFP8 only: give training.precision: fp8 "
             "and training.fp8_recipe: mxfp8, or leave this out");
    else if (s.model->mlp != MlpKind::SwiGLU)
      c.fail("training.fused_expert_mlp",
             "Transformer Engine's fused grouped MLP fuses a gated activation (SwiGLU): give "
             "model.mlp: swiglu, or leave this out");
    else if (t.expert_gemms != ExpertGemms::Grouped)
      c.fail("training.fused_expert_mlp",
             "the fused grouped MLP is one grouped kernel over the experts: give "
             "training.expert_gemms: grouped, or leave this out");
    else if (t.recompute_modules && t.recompute_modules->moe_act)
      c.fail(
          "training.fused_expert_mlp",
          "the fused grouped MLP runs the routed experts' activation inside its GEMM: there is no "
          "moe_act to recompute (take it out of training.recompute_modules)");
  }
  if (t.delay_wgrad) {
    const auto f = s.schedule.options.find("overlap_f_b");
    if (f == s.schedule.options.end() || (f->second != "true" && f->second != "1"))
      c.fail("training.delay_wgrad",
             "Megatron-core delays weight gradients only with its combined 1F1B "
             "(overlap_moe_expert_parallel_comm): give schedule.overlap_f_b: true, or leave this "
             "out");
    else if (s.layout.tp_overlap)
      c.fail("training.delay_wgrad",
             "Transformer Engine does not delay weight gradients under userbuffers' comm-GEMM "
             "overlap: give parallelism.tp_overlap: false, or leave this out");
  }
  // The batch is given as global_batch_size or as microbatches: blame the one the file gave.
  const std::string gbs = !c.given("training.global_batch_size") && c.given("training.microbatches")
                              ? "training.microbatches"
                              : "training.global_batch_size";
  c.in_range(gbs, t.global_batch_size, 1, kMaxGlobalBatch);
  const long long per_mb = static_cast<long long>(s.layout.dp) * t.micro_batch_size;
  if (t.global_batch_size % per_mb != 0)
    c.fail(gbs, fmt::format("global_batch_size {} must be a multiple of dp × micro_batch_size = "
                            "{} × {} = {}",
                            t.global_batch_size, s.layout.dp, t.micro_batch_size, per_mb));
  if (t.global_batch_size / per_mb > kMaxMicrobatches)
    c.fail(gbs, fmt::format("{} micro-batches per step exceed the limit of {}",
                            t.global_batch_size / per_mb, kMaxMicrobatches));
}

// The layout's GPUs against the cluster's, before the batch (whose multiple of dp a wrong dp
// would otherwise be blamed on the batch size).
void check_gpu_count(const Scenario& s, const Checker& c) {
  const Layout& l = s.layout;
  // Blame a size an override or code set, else the parallelism section (or the cluster, when
  // the file gives no parallelism).
  std::string gpus_key = c.given("parallelism") ? "parallelism" : "cluster";
  for (const char* k : {"parallelism.dp", "parallelism.tp", "parallelism.pp"})
    if (c.given(k) && s.where(k).rfind(s.source + ":", 0) != 0) gpus_key = k;
  if (s.has_cluster && l.world() != s.cluster.gpus()) {
    // What would fit, where the other sizes divide the GPUs: the first thing a newcomer who
    // left out `dp` (default 1) or changed the node count needs.
    const std::int64_t others = l.world() / l.dp;
    const std::optional<int> dp = dp_filling_gpus(s);
    const std::string fits =
        dp ? fmt::format("; parallelism.dp: {} fits", *dp)
           : fmt::format("; no dp fits: {} = {} = {} does not divide the {} GPUs",
                         l.cp > 1 ? "cp × tp × pp" : "tp × pp",
                         l.cp > 1 ? fmt::format("{} × {} × {}", l.cp, l.tp, l.pp)
                                  : fmt::format("{} × {}", l.tp, l.pp),
                         others, s.cluster.gpus());
    c.fail(gpus_key,
           (l.cp > 1 ? fmt::format("dp × cp × tp × pp = {} × {} × {} × {} = {} must equal the GPU "
                                   "count gpus_per_node × nodes = {} × {} = {}",
                                   l.dp, l.cp, l.tp, l.pp, l.world(), s.cluster.gpus_per_node,
                                   s.cluster.nodes, s.cluster.gpus())
                     : fmt::format("dp × tp × pp = {} × {} × {} = {} must equal the GPU count "
                                   "gpus_per_node × nodes = {} × {} = {}",
                                   l.dp, l.tp, l.pp, l.world(), s.cluster.gpus_per_node,
                                   s.cluster.nodes, s.cluster.gpus())) +
               fits);
  }
}

void check_fit(const Scenario& s, const Checker& c) {
  const Layout& l = s.layout;
  if (const auto why = expert_parallel_refusal(l, s.model ? &*s.model : nullptr))
    c.fail("parallelism.ep", *why);
  if (const auto why = expert_tp_refusal(l, s.model ? &*s.model : nullptr))
    c.fail("parallelism.etp", *why);
  if (const auto why = context_parallel_refusal(l, s.training)) c.fail(why->first, why->second);
  // The all-to-all hands each CP rank heads / cp of its TP rank's query and key-value heads
  // (Transformer Engine 2.8's AttnFuncWithCPAndQKVOA2A asserts both divide:
  // transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py).
  if (l.cp > 1 && l.cp_comm == CpComm::AllToAll && s.model) {
    const std::int64_t q = s.model->heads / l.tp,
                       kv = std::max<std::int64_t>(1, s.model->kv_heads / l.tp);
    if (q % l.cp != 0 || kv % l.cp != 0)
      c.fail("parallelism.cp_comm",
             fmt::format("all_to_all splits each TP rank's {} query and {} key-value heads over "
                         "cp = {}: both must divide by it (use ring or all_gather)",
                         q, kv, l.cp));
  }
  if (s.model) {
    const ModelSpec& m = *s.model;
    if (m.heads % l.tp != 0)
      c.fail("parallelism.tp",
             fmt::format("tp = {} must divide the model's attention heads ({})", l.tp, m.heads));
    if (m.kv_heads % l.tp != 0 && l.tp % m.kv_heads != 0)
      c.fail("parallelism.tp",
             fmt::format("tp = {} and kv_heads = {} must divide one another", l.tp, m.kv_heads));
    const int slots = layer_slots(m, l.split), stages = l.pp * l.vpp;
    // The key to blame: one the split counts by, a given one first.
    const char* split_key = "parallelism.pipeline_split.mtp";
    for (const auto& [on, key] :
         {std::pair{l.split.loss, "parallelism.pipeline_split.loss"},
          std::pair{l.split.embedding, "parallelism.pipeline_split.embedding"}})
      if (on && (c.given(key) || !l.split.mtp)) split_key = key;
    if (!l.split.layers.empty()) {
      const char* key = "parallelism.pipeline_split.layers";
      const auto& given = l.split.layers;
      if (l.split.any())
        c.fail(key,
               "gives each stage's layers: the embedding, loss and modules are not counted "
               "then (drop pipeline_split.embedding, loss and mtp)");
      if (static_cast<int>(given.size()) != stages)
        c.fail(key, fmt::format("{} entries, but the layout has pp × vpp = {} × {} = {} stages: "
                                "one layer count each",
                                given.size(), l.pp, l.vpp, stages));
      long long sum = 0;
      for (int v : given) sum += v;
      if (sum != m.layers)
        c.fail(key, fmt::format("the stages' layers sum to {}, the model has {}", sum, m.layers));
      for (std::size_t i = 1; i + 1 < given.size(); ++i)
        if (given[i] == 0)
          c.fail(key, fmt::format("stage {} holds no layer: only the first (with the embedding) "
                                  "and the last (with the head) may",
                                  i));
    } else if (l.split.mtp && m.mtp_layers == 0)
      c.fail("parallelism.pipeline_split.mtp",
             "counts multi-token prediction modules in the split, but model.mtp_layers is 0: "
             "drop it or give the model its modules");
    else if (l.split.any() && slots % stages != 0)
      c.fail(
          split_key,
          fmt::format("the pipeline split gives every stage as many layer slots (Megatron-core's "
                      "account-for-embedding/loss split, the modules as a layout places them): "
                      "the model's {} layers and the {} the split counts besides them, {}, "
                      "must be a multiple of pp × vpp = {} × {} = {}",
                      m.layers, slots - m.layers, slots, l.pp, l.vpp, stages));
    else if (l.split.mtp && stages > 1 && slots / stages - (l.split.loss ? 1 : 0) < m.mtp_layers)
      c.fail("parallelism.pipeline_split.mtp",
             fmt::format("the last stage has {} layer slot(s){}, too few for the {} multi-token "
                         "prediction module(s): use fewer stages",
                         slots / stages - (l.split.loss ? 1 : 0),
                         l.split.loss ? " left beside the loss" : "", m.mtp_layers));
    else if (slots < l.pp * l.vpp)
      c.fail(l.vpp > 1 && c.given("parallelism.vpp") ? "parallelism.vpp" : "parallelism.pp",
             fmt::format("pp × vpp = {} × {} = {} stages exceed the model's {} layers", l.pp, l.vpp,
                         l.pp * l.vpp, m.layers));
  }
  if (s.costs) {
    const CostOverrides& co = *s.costs;
    const std::pair<const char*, const std::vector<TimeNs>*> lists[] = {
        {"costs.forward", &co.forward},
        {"costs.backward", &co.backward},
        {"costs.backward_input", &co.backward_input},
        {"costs.backward_weight", &co.backward_weight},
        {"costs.forward_backward_overlap", &co.forward_backward_overlap}};
    for (const auto& [key, list] : lists)
      if (!list->empty() && static_cast<int>(list->size()) != l.pp)
        c.fail(key, fmt::format("expected one duration per pipeline stage ({} stages, pp = {}), "
                                "got {}",
                                l.pp, l.pp, list->size()));
  }
  // One entry a rank: two would multiply (100 × 100 … past the 0.01–100 a factor may take, and
  // past what a duration can hold), so a GPU's compute and link factors are given together.
  std::map<int, std::size_t> slowed;  // rank -> the entry that slows it
  for (std::size_t i = 0; i < s.slowdowns.size(); ++i)
    for (std::size_t k = 0; k < s.slowdowns[i].ranks.size(); ++k) {
      const int g = s.slowdowns[i].ranks[k];
      const std::string key = c.given(fmt::format("slowdown[{}].rank", i))
                                  ? fmt::format("slowdown[{}].rank", i)
                                  : fmt::format("slowdown[{}].ranks[{}]", i, k);
      if (g < 0 || g >= l.world())
        c.fail(key,
               fmt::format("rank {} does not exist: the layout has ranks 0..{}", g, l.world() - 1));
      if (const auto [it, fresh] = slowed.emplace(g, i); !fresh)
        c.fail(key, it->second == i
                        ? fmt::format("rank {} is listed twice", g)
                        : fmt::format("rank {} is already slowed by slowdown[{}]: give one entry "
                                      "both its compute and its link factor",
                                      g, it->second));
    }
}

}  // namespace

std::optional<int> dp_filling_gpus(const Scenario& s) {
  const Layout& l = s.layout;
  const std::int64_t gpus = s.cluster.gpus(), others = std::int64_t{l.cp} * l.tp * l.pp;
  if (!s.has_cluster || l.world() == gpus || others <= 0 || gpus % others != 0) return std::nullopt;
  return static_cast<int>(gpus / others);
}

std::optional<std::pair<std::string, std::string>> context_parallel_refusal(const Layout& l,
                                                                            const TrainingSpec& t) {
  if (l.cp <= 1) return std::nullopt;
  auto no = [](const char* key, std::string why) {
    return std::optional<std::pair<std::string, std::string>>({key, std::move(why)});
  };
  if (t.seq_len % (2 * l.cp) != 0)
    return no("parallelism.cp",
              fmt::format("cp = {} needs training.seq_len a multiple of 2 × cp = {} (each rank "
                          "holds two of 2·cp equal chunks), got seq_len {}",
                          l.cp, 2 * l.cp, t.seq_len));
  if (t.attention == AttentionKernel::Unfused)
    return no("parallelism.cp",
              fmt::format("cp = {} needs a fused attention kernel (training.attention: flash1, "
                          "flash2, flash3, triton or cudnn), got unfused: ring attention merges "
                          "block results by their log-sum-exp",
                          l.cp));
  return std::nullopt;
}

std::optional<std::string> expert_parallel_refusal(const Layout& l, const ModelSpec* m) {
  if (l.ep <= 1) return std::nullopt;
  if (l.param_gather_with_forward)
    return fmt::format(
        "ep = {} with parallelism.param_gather: with-next-forward is not modelled (the experts' "
        "parameters would be gathered over their own dp / ep group): use after-optimizer",
        l.ep);
  if (l.zero == 3)
    return fmt::format(
        "ep = {} with zero 3 is not modelled (FSDP would gather the experts over their own dp / "
        "ep group): use zero 0, 1 or 2",
        l.ep);
  if (l.experts_span_tp() && l.expert_ranks() % l.ep != 0)
    return fmt::format(
        "ep = {} must divide tp · dp · cp = {} · {} · {} = {}: with etp 1 expert-parallel groups "
        "are carved out of a stage's tensor-, data- and context-parallel ranks",
        l.ep, l.tp, l.dp, l.cp, l.expert_ranks());
  if (l.dp_ranks() % l.ep != 0 && !l.experts_span_tp())
    return l.cp > 1 ? fmt::format(
                          "ep = {} must divide dp · cp = {} · {} = {}: expert-parallel "
                          "groups are carved out of the data- and context-parallel ranks",
                          l.ep, l.dp, l.cp, l.dp_ranks())
                    : fmt::format(
                          "ep = {} must divide dp = {}: expert-parallel groups are carved "
                          "out of the data-parallel ranks",
                          l.ep, l.dp);
  if (!m) return fmt::format("ep = {} needs a model with experts (model.moe)", l.ep);
  if (!m->is_moe())
    return fmt::format("ep = {} needs a mixture of experts: give model.moe.experts", l.ep);
  if (m->moe.experts % l.ep != 0)
    return fmt::format("ep = {} must divide model.moe.experts ({})", l.ep, m->moe.experts);
  return std::nullopt;
}

std::optional<std::string> expert_tp_refusal(const Layout& l, const ModelSpec* m) {
  if (l.etp <= 0 || l.etp == l.tp) return std::nullopt;
  if (l.etp != 1)
    return fmt::format(
        "etp = {} must be 1 or tp ({}): other expert tensor-parallel widths are not modelled",
        l.etp, l.tp);
  if (!m || !m->is_moe()) return std::nullopt;  // no experts: nothing to split
  if (!l.sequence_parallel)
    return fmt::format(
        "etp = 1 under tp = {} needs parallelism.sequence_parallel: each TP rank routes its own "
        "shard of the tokens (Megatron-core warns that MoE under TP needs SP; without it every TP "
        "rank would route the same tokens)",
        l.tp);
  if (l.zero == 3 || l.param_gather_with_forward)
    return fmt::format(
        "etp = 1 under tp = {} with {} is not modelled (the experts' parameters would be gathered "
        "over their own tp · dp · cp / ep group): use zero 0, 1 or 2 and param_gather: "
        "after-optimizer",
        l.tp, l.zero == 3 ? "zero 3" : "parallelism.param_gather: with-next-forward");
  return std::nullopt;
}

// A fused attention kernel the preset's GPU runs and trainsim has figures for: FlashAttention-3
// is Hopper's alone (its README: H100 / H800, sm90); on Blackwell cuDNN's is measured, and
// FlashAttention-2 on a B200 (cost/kernel_data.cpp); the others would fall back to a fixed share
// of peak that a Hopper-era kernel does not reach there. A custom GPU is not checked.
void check_attention(const Scenario& s, const Checker& c) {
  if (!s.model) return;
  // Windowed attention computes s·w − w²/2 of causal attention's s²/2 query-key pairs
  // (FlashAttention-2's window_size tiles, Dao 2023): not priced, so a window that binds is
  // refused rather than read as full attention.
  if (const std::int64_t w = s.model->sliding_window; w > 0 && w < s.training.seq_len) {
    const double n = static_cast<double>(s.training.seq_len), x = static_cast<double>(w);
    c.fail("model.sliding_window",
           fmt::format("a {}-token attention window is shorter than training.seq_len ({}): "
                       "sliding-window attention is not modelled (trainsim would price full "
                       "causal attention, {:.2f} times the window's work); train at seq_len ≤ "
                       "{}, or set model.sliding_window: 0 to price full attention",
                       w, s.training.seq_len, n * n / (2 * n * x - x * x), w));
  }
  const GpuPreset* p = find_gpu_preset(s.cluster.gpu.preset);
  if (!p || p->sm == 0) return;
  const AttentionKernel a = s.training.attention;
  const char* name = a == AttentionKernel::Flash1   ? "flash1"
                     : a == AttentionKernel::Flash2 ? "flash2"
                     : a == AttentionKernel::Flash3 ? "flash3"
                     : a == AttentionKernel::Triton ? "triton"
                                                    : nullptr;
  if (!name) return;  // cudnn, unfused
  const char* deflt = c.given("training.attention") ? "" : " (the default)";
  const bool fa2_b200 = a == AttentionKernel::Flash2 && s.cluster.gpu.preset == "b200";
  if (p->sm >= 100 && !fa2_b200)
    c.fail("training.attention",
           fmt::format("{}{} has no measured throughput on {} (Blackwell): set "
                       "training.attention: cudnn (what Transformer Engine runs there){} or "
                       "unfused",
                       name, deflt, s.cluster.gpu.preset,
                       a == AttentionKernel::Flash2 ? ", flash2 on a b200" : ""));
  else if (a == AttentionKernel::Flash3 && p->sm != 90) {
    std::vector<std::string> hopper;
    for (const std::string& n : gpu_preset_names())
      if (find_gpu_preset(n)->sm == 90) hopper.push_back(n);
    c.fail("training.attention",
           fmt::format("flash3 runs on Hopper GPUs only ({}), got {}: use flash2, flash1, triton, "
                       "cudnn or unfused",
                       fmt::join(hopper, ", "), s.cluster.gpu.preset));
  }
}

void validate(const Scenario& s) {
  const Checker c(s);
  check_ranges(s, c);
  check_moe(s, c);
  check_mla(s, c);
  check_precision(s, c);
  check_grad_accumulation(s, c);
  check_cudnn_version(s, c);
  check_lora(s, c);
  check_attention(s, c);
  check_offload(s, c);
  check_layout(s, c);
  check_nvlink_domain(s, c);
  check_gpu_count(s, c);
  check_batch(s, c);
  check_fit(s, c);
}

}  // namespace trainsim
