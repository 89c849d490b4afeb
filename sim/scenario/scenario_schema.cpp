#include "scenario/scenario_schema.h"

namespace trainsim {

const std::vector<SchemaKey>& scenario_keys() {
  static const std::vector<SchemaKey> kKeys{
      {"name", "text", "file name", "label in reports and trace file names"},
      {"description", "text", "—", "free text, ignored"},
      {"model", "preset name or map", "required unless `costs`", "the transformer"},
      {"model.preset", "preset name", "—",
       "start from a preset, override single keys (`--set model.layers=8` widens `model: <preset>` "
       "to this)"},
      {"model.hf_config", "path", "—",
       "a Hugging Face `config.json` (relative to the scenario file), read by its `model_type` "
       "(llama, mistral, qwen2, qwen3, gemma, gemma2, phi3, olmo2, gpt_neox, gptj, phi, gpt2, opt, "
       "bloom, falcon, mpt: gated or plain MLP, tied head, positions and norm as the family "
       "defines them) or, without one, by Llama's key names; a mixture-of-experts, "
       "latent-attention or `head_dim` ≠ h/a config is refused by the field's name "
       "(`sim/scenario/hf_config.h`)"},
      {"model.name", "text", "the preset's or config's", "the model's label in reports"},
      {"model.layers", "integer ≥ 1", "preset", "decoder layers L"},
      {"model.hidden", "integer ≥ 1", "preset", "hidden size h"},
      {"model.ffn_hidden", "integer ≥ 1", "preset", "MLP inner size f"},
      {"model.heads", "integer ≥ 1", "preset", "attention heads a (must divide h)"},
      {"model.kv_heads", "integer ≥ 1", "`heads`", "key/value heads k (GQA; must divide a)"},
      {"model.vocab", "integer ≥ 1", "preset", "vocabulary V"},
      {"model.tied_embeddings", "bool", "preset / false", "LM head shares the embedding"},
      {"model.mlp", "`swiglu` or `gelu`", "`swiglu`", "3 or 2 MLP matrices"},
      {"model.position_embedding", "`rope`, `learned`, `alibi`", "`rope`",
       "rotary costs a kernel on q and k per layer; learned (GPT-2/3) and ALiBi (MPT, BLOOM) cost "
       "nothing measurable"},
      {"model.norm", "`rmsnorm`, `layernorm`",
       "`rmsnorm` (a Hugging Face config with `layer_norm_eps` and no `rms_norm_eps`: `layernorm`)",
       "the layer's normalization; the same bytes as one fused kernel, but an eager runtime runs "
       "RMSNorm as separate PyTorch ops (LayerNorm stays one kernel)"},
      {"training", "map", "required", ""},
      {"training.seq_len", "integer ≥ 1", "required with a model", "tokens per sequence s"},
      {"training.micro_batch_size", "integer ≥ 1", "1", "sequences per micro-batch b"},
      {"training.global_batch_size", "integer ≥ 1", "required (or `microbatches`)",
       "sequences per optimizer step; multiple of dp × b"},
      {"training.microbatches", "integer ≥ 1", "global / (dp × b)",
       "micro-batches m per pipeline, instead of `global_batch_size`"},
      {"training.precision", "`bf16`, `fp16`", "`bf16`", "2-byte activations and weights"},
      {"training.optimizer", "`adam`, `adamw`", "`adam`",
       "mixed-precision Adam (28 bytes of traffic per parameter)"},
      {"training.recompute", "`none`, `selective`, `full`", "`none`",
       "activation recomputation before the backward (memory: `sim/memory/footprint.h`)"},
      {"training.recompute_layers", "integer ≥ 0, with `recompute: full`", "`0` (every layer)",
       "full recompute of only the first N layers of each pipeline stage (model chunk); the others "
       "keep all their activations (Megatron's `--recompute-method block --recompute-num-layers "
       "N`); N at or past a stage's layers recomputes all of them; `--json` echoes it (`null` for "
       "every layer)"},
      {"training.fp32_grad_accumulation", "bool", "false",
       "fp32 gradient buffer (Megatron's default), +4 bytes per parameter"},
      {"training.grad_reduce_dtype", "`fp32` or the training precision",
       "`fp32` with `fp32_grad_accumulation`, else the training precision",
       "the precision the data-parallel gradient reduction (all-reduce or reduce-scatter) sends: 4 "
       "or 2 bytes per parameter. PyTorch FSDP's `MixedPrecision(reduce_dtype=…)` (Composer's "
       "`mixed_precision: DEFAULT` reduces in fp32, `PURE` in 16-bit), Megatron's "
       "`grad_reduce_in_fp32`. The cast kernels and FSDP's transient fp32 copy of one unit's "
       "gradients are not modelled"},
      {"training.attention", "`flash1`, `flash2`, `flash3`, `triton`, `unfused`", "`flash2`",
       "the attention kernels: FlashAttention-1, -2 or -3; `triton`, llm-foundry's `attn_impl: "
       "triton` (T. Dao's `flash_attn_triton.py` on pre-MLIR Triton; no chart times it: OpenAI's "
       "Triton kernel's bars stand in on A100, FlashAttention-1's on H100); each timed by "
       "its published throughput at the sequence length and head dimension "
       "(`sim/cost/kernel_data.cpp`). Or unfused (\"standard\": QKᵀ and PV as batched GEMMs around "
       "a fused softmax and a dropout; stores the s² scores, Korthikanti's 5·a·s/h term; selective "
       "recompute recomputes them)"},
      {"training.dropout", "0–0.99", "0",
       "hidden and attention dropout probability (GPT-3 style 0.1): above 0 the dropout kernels "
       "run (fused bias-dropout-add) and their masks are stored"},
      {"training.fused_optimizer", "bool", "true",
       "the optimizer step as one fused multi-tensor Adam (Megatron, apex, `AdamW(fused=True)`: 28 "
       "bytes moved per parameter), or one pass per operation (`torch.optim.AdamW`'s default "
       "foreach path, Composer's `DecoupledAdamW`: 84 bytes)"},
      {"training.grad_clipping", "bool", "true",
       "gradient-norm clipping before the step (12 bytes per parameter: the norm, then the "
       "rescale)"},
      {"training.optimizer_post_validation", "bool", "false",
       "Zero Bubble's optimizer post-validation (Qi et al., ICLR 2024, §4): the step runs without "
       "the all-stage synchronisation before the optimizer (global gradient norm, NaN/Inf check) "
       "and validates afterwards, so each pipeline stage starts the next step when its own ends. "
       "The step time is then the steady-state period, the longest stage's span (its first task's "
       "start to its last task's end), as the paper counts it; `zb-auto` minimises that span "
       "instead of one step's makespan"},
      {"training.runtime", "`compiled`, `eager`", "`compiled`",
       "how the memory-bound ops run: fused, one kernel each (torch.compile, Megatron's or "
       "Transformer Engine's fused kernels), or eager, one PyTorch op at a time as the Hugging "
       "Face reference code writes them: RMSNorm 8 kernels and 36 bytes per element forward (fp32 "
       "upcast), SwiGLU 2 kernels, rotary embeddings 5 per tensor (`sim/cost/constants.h`). GELU, "
       "LayerNorm and attention are single kernels either way"},
      {"cluster", "map", "required with a model", ""},
      {"cluster.gpu", "preset or map", "required",
       "`a100-sxm-80gb`, `h100-sxm`, `h100-pcie`, `h200` (table below)"},
      {"cluster.gpu.preset", "preset name", "—", "start from a preset, override single keys"},
      {"cluster.gpu.name", "text", "the preset's", "the GPU's label in reports"},
      {"cluster.gpu.peak_flops", "FLOPS", "preset", "dense bf16 peak"},
      {"cluster.gpu.hbm_bandwidth", "bandwidth", "preset", "HBM bandwidth"},
      {"cluster.gpu.memory", "bytes", "preset", "device memory"},
      {"cluster.gpu.sms", "integer", "preset", "SM count (GEMM wave quantization; 0 = off)"},
      {"cluster.gpus_per_node", "integer ≥ 1", "8", "GPUs sharing the intra-node link"},
      {"cluster.nodes", "integer ≥ 1", "1", ""},
      {"cluster.intra_node", "", "", ""},
      {"cluster.intra_node.bandwidth", "bandwidth", "preset",
       "nccl-tests bus bandwidth inside a node"},
      {"cluster.intra_node.latency", "time", "3.4us", "per ring hop"},
      {"cluster.inter_node", "", "", ""},
      {"cluster.inter_node.bandwidth", "bandwidth", "preset", "bus bandwidth between nodes"},
      {"cluster.inter_node.latency", "time", "14us", "per ring hop"},
      {"parallelism", "map", "all 1", "dp × tp × pp must equal gpus_per_node × nodes"},
      {"parallelism.dp", "integer ≥ 1", "1", "data-parallel replicas"},
      {"parallelism.tp", "integer ≥ 1", "1", "tensor-parallel degree (must divide heads)"},
      {"parallelism.pp", "integer ≥ 1", "1", "pipeline ranks"},
      {"parallelism.vpp", "integer ≥ 1", "1", "model chunks per pipeline rank (stages = pp × vpp)"},
      {"parallelism.zero", "0–3", "0",
       "ZeRO stage: 1 shards optimizer states, 2 also gradients (reduce-scattered per bucket), 3 "
       "also parameters (FSDP: all-gathered per unit before each use)"},
      {"parallelism.fsdp", "", "", ""},
      {"parallelism.fsdp.unit_layers", "integer ≥ 1", "1",
       "ZeRO-3: layers per FSDP unit (one all-gather and one reduce-scatter each)"},
      {"parallelism.fsdp.prefetch", "0–64", "1",
       "ZeRO-3 (and `param_gather`): unit i+d is gathered while unit i computes; 0 = on demand"},
      {"parallelism.fsdp.reshard_after_forward", "bool", "true",
       "ZeRO-3: free gathered units after each use (gather again before every F, B, I); false = "
       "gather once per step and keep them across micro-batches"},
      {"parallelism.param_gather", "`after-optimizer`, `with-next-forward`", "`after-optimizer`",
       "ZeRO-1/2: all-gather the updated parameters right after the optimizer, or bucket by bucket "
       "before the next step's first forward (Megatron's overlap_param_gather)"},
      {"parallelism.tp_overlap", "bool", "false",
       "TP collectives overlap the GEMMs they belong to (comm-GEMM overlap) instead of following "
       "them on the critical path"},
      {"parallelism.sequence_parallel", "bool", "false", "Megatron sequence parallelism with TP"},
      {"parallelism.rank_order", "`\"tp,dp,pp\"` permutation", "`tp,dp,pp`",
       "fastest-varying axis first (Megatron's default)"},
      {"contention", "map", "—", "how overlapping work slows down on one GPU"},
      {"contention.compute_slowdown", "0–10", "0.189",
       "compute runs this much longer while communication kernels run beside it (SM sharing). "
       "Default: the 18.9% average Lee et al. measured over GPT/Llama training on "
       "A100/H100/MI250/MI210 (arXiv 2507.03114); 0 turns it off"},
      {"contention.link_sharing", "bool", "true",
       "transfers and collectives crossing the same link of a GPU (its NVLink, its NIC) split its "
       "bandwidth equally (a DP all-reduce beside a pipeline send each get half)"},
      // A schedule map's other keys are the generator's options (schedules/registry.h).
      {"schedule", "name or map", "`1f1b`",
       "`afab` (alias `gpipe`), `1f1b`, `interleaved-1f1b` (vpp ≥ 2), `looped-bfs` (vpp ≥ 2; at 1 "
       "it is AFAB), `zb-h1`, `zb-h2`, `zb-v`, `dualpipe-v` (vpp = 2), `zb-auto` (vpp 1, or 2 in a "
       "V; split backward: costs need `backward_input` + `backward_weight`); `trainsim schedule "
       "--list`"},
      {"schedule.name", "name", "`1f1b`", "other keys of the map are the schedule's options"},
      {"schedule.csv", "path", "—",
       "simulate a torch.distributed.pipelining CSV schedule (one row per rank; `trainsim schedule "
       "--export-csv` writes one); relative to the scenario file"},
      {"costs", "map", "—",
       "explicit per-stage durations of one micro-batch; replace the model for those tasks"},
      {"costs.forward", "time or list of pp times", "required without a model",
       "F per stage (÷ vpp per chunk)"},
      {"costs.backward", "time or list", "—", "fused backward B"},
      {"costs.backward_input", "time or list", "—", "input-gradient I (with `backward_weight`)"},
      {"costs.backward_weight", "time or list", "—", "weight-gradient W"},
      {"costs.p2p", "time", "model's, or 0", "every stage-to-stage transfer"},
      {"costs.forward_backward_overlap", "time or list", "F + B",
       "`dualpipe-v`: one overlapped forward + backward (÷ vpp per chunk pair)"},
      {"efficiency", "map", "cost/constants.h", "analytic-model overrides"},
      {"efficiency.gemm", "0.01–1", "the preset's measured sweep, else 0.80",
       "fraction of peak FLOP/s for large GEMMs (roofline with wave quantization); set, it "
       "replaces the A100/H100/H200 presets' measured GEMM-by-shape sweeps "
       "(`sim/cost/gemm_efficiency.h`)"},
      {"efficiency.memory", "0.01–1", "0.80", "fraction of HBM bandwidth for streaming kernels"},
      {"efficiency.kernel_launch", "time", "2us", "fixed cost per kernel"},
      {"memory", "map", "", "what a GPU holds besides model state and activations"},
      {"memory.runtime_overhead", "bytes", "1.5GB",
       "CUDA context, library workspaces, allocator slack (Playbook: 1–2 GB)"},
      {"memory.bucket_size", "bytes", "25MB", "DP gradient bucket (PyTorch DDP's `bucket_cap_mb`)"},
      {"calibration", "path", "—",
       "a profile from `trainsim-calibrate` or its nccl-tests importer (format: "
       "`calibrate/README.md`): collective and p2p times from its samples (log–log interpolation, "
       "α–β fit outside); what it lacks stays analytic; the report's `durations` line says which. "
       "Needs a model"},
      {"slowdown", "list", "—",
       "stragglers and heterogeneity: `[{rank: N or ranks: [..], compute: factor, link: factor}]`; "
       "compute durations on those GPUs and every transfer or collective they take part in (at the "
       "slowest member's pace) × factor (0.01–100). Disables folding; `run` prints the step time "
       "without them for comparison"},
      {"slowdown[].rank", "a global rank / a list of them", "— (one of the two)",
       "the GPUs an entry slows"},
      {"slowdown[].ranks", "a global rank / a list of them", "— (one of the two)",
       "the GPUs an entry slows"},
      {"slowdown[].compute", "0.01–100", "1",
       "factor on those GPUs' compute durations / on the transfers and collectives they take part "
       "in"},
      {"slowdown[].link", "0.01–100", "1",
       "factor on those GPUs' compute durations / on the transfers and collectives they take part "
       "in"},
      {"measured", "map", "—",
       "a published or measured figure of this very run, to check the prediction against "
       "(`trainsim run` prints the error, `trainsim check` tables many)"},
      {"measured.step_time", "time / number / number / FLOPS / 0–1", "—",
       "exactly one; the error is on step time ((predicted − measured) / measured); TFLOP/s and "
       "MFU compare with trainsim's model FLOPs (causal attention counted half), so prefer a "
       "throughput or a time"},
      {"measured.tokens_per_s", "time / number / number / FLOPS / 0–1", "—",
       "exactly one; the error is on step time ((predicted − measured) / measured); TFLOP/s and "
       "MFU compare with trainsim's model FLOPs (causal attention counted half), so prefer a "
       "throughput or a time"},
      {"measured.tokens_per_s_per_gpu", "time / number / number / FLOPS / 0–1", "—",
       "exactly one; the error is on step time ((predicted − measured) / measured); TFLOP/s and "
       "MFU compare with trainsim's model FLOPs (causal attention counted half), so prefer a "
       "throughput or a time"},
      {"measured.tflops_per_gpu", "time / number / number / FLOPS / 0–1", "—",
       "exactly one; the error is on step time ((predicted − measured) / measured); TFLOP/s and "
       "MFU compare with trainsim's model FLOPs (causal attention counted half), so prefer a "
       "throughput or a time"},
      {"measured.mfu", "time / number / number / FLOPS / 0–1", "—",
       "exactly one; the error is on step time ((predicted − measured) / measured); TFLOP/s and "
       "MFU compare with trainsim's model FLOPs (causal attention counted half), so prefer a "
       "throughput or a time"},
      {"measured.source", "text", "required", "where the figure comes from (paper, table, row)"},
      {"pricing", "map", "—", ""},
      {"pricing.gpu_hour", "dollars", "—", "price per GPU-hour (enables cost per 1M tokens)"},
  };
  return kKeys;
}

namespace {
// The parent of `path` ("" at the top level): the part before its last '.'; a list entry's
// keys ("slowdown[].rank") have the entry ("slowdown[]") as parent.
std::string_view parent_of(std::string_view path) {
  const auto dot = path.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : path.substr(0, dot);
}
}  // namespace

std::vector<std::string> keys_under(std::string_view section) {
  std::vector<std::string> out;
  for (const SchemaKey& k : scenario_keys())
    if (parent_of(k.path) == section)
      out.emplace_back(k.path.substr(section.empty() ? 0 : section.size() + 1));
  return out;
}

bool is_section(std::string_view path) {
  for (const SchemaKey& k : scenario_keys())
    if (parent_of(k.path) == path) return true;
  return false;
}

const SchemaKey* find_key(std::string_view path) {
  for (const SchemaKey& k : scenario_keys())
    if (k.path == path) return &k;
  return nullptr;
}

}  // namespace trainsim
