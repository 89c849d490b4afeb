#pragma once
// The analytic cost model: every GEMM of a layer (its projections and MLP) timed by a roofline
// max(FLOPs / (peak · efficiency · wave quantization), bytes / HBM bandwidth), memory-bound ops
// by bytes / (HBM bandwidth · efficiency), a fixed launch cost per kernel, collectives inside a
// node by measured sweeps (else α–β with nccl-tests bus-bandwidth factors), between nodes by
// NCCL's tuning model scaled to a measured sweep where a preset has one. Constants:
// cost/constants.h.
//
// Durations are for work running alone; what overlapping work does to them (compute slowed
// beside communication, transfers sharing a link) is lowering's contention pass and the engine's.
// Does not model: kernel fusion beyond the listed kernels, NVLS (NVLink SHARP) collectives.
#include <array>        // std::array
#include <functional>   // std::function
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "cost/attention_table.h"
#include "cost/bandwidth_table.h"
#include "cost/collective_curve.h"
#include "cost/cost_model.h"
#include "cost/gemm_efficiency.h"
#include "cost/gemm_table.h"
#include "cost/internode_sweep.h"
#include "cost/kernel_data.h"
#include "scenario/partition.h"
#include "scenario/scenario.h"

namespace trainsim {

/// Resolved constants: defaults from constants.h unless the scenario overrides them.
struct AnalyticConstants {
  double gemm_efficiency = 0;
  double memory_efficiency = 0;
  double kernel_launch = 0;  ///< seconds
  /// The attention kernel's published throughput by sequence length and head dimension;
  /// nullptr: constants::kAttentionEfficiency of peak for forward and backward.
  const AttentionData* attention = nullptr;
  /// Measured GEMM throughput by shape for this GPU preset (nullptr: the roofline with
  /// `gemm_efficiency` and wave quantization; also when the scenario overrides efficiency.gemm).
  const GemmEfficiency* gemm_sweep = nullptr;
  /// The scenario GPU's peak over that of the GPU the sweep was measured on (H100 PCIe on H100
  /// SXM's sweep, or a scenario overriding peak_flops): the sweep's compute-bound times scale by
  /// it, as the attention data's do.
  double gemm_sweep_scale = 1.0;
  /// Measured collective times by size inside a node (nullptr: α–β), cost/collective_curve.h.
  const CollectiveCurve* collectives = nullptr;
  /// The preset's intra-node bus bandwidth over the scenario's: a scenario that changes the link's
  /// bandwidth (an A800's 400 GB/s NVLink against an A100's 600) keeps the measured curve's
  /// latency floor and ramp, its bandwidth-bound part stretched by this factor.
  double collective_bandwidth_scale = 1.0;
  /// The scenario's intra-node hop latency minus the preset's, seconds: each ring step of the
  /// measured curve that much longer (a faster or slower fabric than the one measured).
  double collective_hop_shift = 0;
  /// Measured collective times between nodes that scale NCCL's tuning model (nullptr: the
  /// tuning model alone), cost/internode_sweep.h, the scenario's cluster.network: the measured
  /// over the model on the measured machine's links scales the model on the scenario's.
  const InterNodeSweep* internode = nullptr;
  /// The scenario's GPU preset (nullptr for a custom GPU): its FP8 layouts and architecture.
  const GpuPreset* preset = nullptr;
  std::string sources;  ///< which constants came from published kernel data
};
/// The share of the fp32 main-gradient epilogue's time (at the memory-bound rate) that a
/// weight-gradient GEMM over `tokens` (its reduction length) shows (constants.h
/// kMainGradVisibleShare).
double main_grad_visible_share(double tokens);

/// PyTorch's eager LayerNorm kernels' rate at rows of `hidden` elements over their rate at the
/// width their efficiency was measured at (constants.h kEagerLayerNormWidthSweep, 5,120 → 1);
/// `forward`: the forward kernel, else the backward's two.
double eager_layernorm_width_factor(double hidden, bool forward);

/// The scenario's overrides, else the GPU preset's published kernel data (cost/kernel_data.h),
/// else cost/constants.h. `dropout`: the run has attention dropout (FlashAttention-3 has none:
/// FlashAttention-2's data then). `cudnn`: the cuDNN release (training.cudnn_version).
/// `head_dim`: the model's query-key head dimension (0: none), for the sources text only.
AnalyticConstants resolve_constants(const EfficiencyOverrides& o, const DeviceSpec& gpu,
                                    const LinkSpec& intra_node, AttentionKernel attention,
                                    bool dropout = false,
                                    std::optional<CudnnVersion> cudnn = std::nullopt,
                                    double head_dim = 0);

/// How much longer the scenario's host CPU (cluster.host_cpu) takes for the same PyTorch host
/// code than the x86 hosts the eager figures were measured on: constants.h kGraceHostSlowdown
/// on a Grace host, else 1.
double host_speed_factor(const Scenario& s);
/// An eager PyTorch step's CPU time to issue one kernel on the scenario's host, seconds:
/// constants.h kEagerHostPerKernel × host_speed_factor, whatever the runtime.
double eager_host_per_kernel_seconds(const Scenario& s);
/// The CPU's time to issue one kernel, seconds: efficiency.host_per_kernel, else
/// eager_host_per_kernel_seconds under `training.runtime: eager` or `fused`, else 0
/// (CostModel::host_time).
double host_per_kernel_seconds(const Scenario& s);
/// The CPU's time to issue one collective (a pass's TP, CP or EP collective), seconds:
/// efficiency.host_per_collective, else constants.h kEagerHostPerCollective × host_speed_factor
/// under `training.runtime: eager` or `fused` while its kernels take CPU time, else
/// host_per_kernel_seconds (0: the CPU keeps ahead). Transformer Engine's userbuffers exchanges
/// (CollectiveRun::in_gemm_call) take host_per_kernel_seconds instead.
double host_per_collective_seconds(const Scenario& s);

/// One GEMM C[m×n] = A[m×k] · B[k×n].
struct GemmShape {
  double m, n, k;
  double flops() const { return 2.0 * m * n * k; }
  /// bf16 operands and result, each read or written once.
  double bytes() const { return 2.0 * (m * k + k * n + m * n); }
};

/// One kernel of a micro-batch's work: what the analytic model times (each with one launch
/// cost) and what `trainsim-calibrate` measures (GEMM shapes) and replays (`validate`).
struct Kernel {
  enum class Kind { Gemm, Attention, Memory };
  Kind kind = Kind::Memory;
  const char* what = "";  ///< e.g. "qkv", "qkv.dgrad", "norm"
  /// Gemm: the shape of one GEMM of the batch. Attention: one head's score GEMM {s, s, d}.
  GemmShape gemm{0, 0, 0};
  double batch = 1;        ///< GEMMs (or attention heads) run as one batched kernel: b·a/t heads
  double flops = 0;        ///< FLOPs of one run
  double bytes = 0;        ///< memory traffic of one run
  int count = 1;           ///< runs per micro-batch (a stage's layers)
  int launches = 1;        ///< kernels one run launches (an eager op sequence: several)
  bool recompute = false;  ///< recomputation: costs time, is not model FLOPs
  bool attention_core = false;  ///< part of the attention core (what selective recompute redoes)
  /// Memory: the share of the other memory-bound kernels' bandwidth this one reaches (below 1:
  /// PyTorch's generic elementwise kernel on non-contiguous operands, its converting copy, its
  /// LayerNorm's row reductions, constants.h; above 1: the traffic partly runs hidden inside a
  /// GEMM, `wgrad.main_grad`).
  double bandwidth_share = 1;
  /// Memory: bound by the SMs, not the HBM (PyTorch's strided elementwise kernel, its converting
  /// copies): no faster than on an H100 SXM per SM (constants.h, kSmBoundReference…).
  bool sm_bound = false;
  /// Memory: where bandwidth_share was measured when not on this kernel itself (the report's
  /// source column); nullptr: this kernel's own measured rate.
  const char* share_from = nullptr;
  bool fp8 = false;  ///< Gemm: runs in FP8 (training.precision fp8, cost/fp8_gemm.h)
  /// Gemm: runs as this many GEMMs of `gemm` (a chunk of the tokens each) one after another:
  /// comm-GEMM overlap decomposes a GEMM into the chunks its collective moves
  /// (parallelism.tp_overlap). `flops` and `bytes` are the whole run's.
  int splits = 1;
  /// Gemm: how many GEMMs of the batch run at once, each group timed as one GEMM of their rows
  /// together (training.expert_gemms); 0: the whole batch, one kernel.
  double together = 0;
};

/// One GEMM of a layer with its three names (forward, input gradient, weight gradient).
struct LayerGemm {
  std::array<const char*, 3> names;
  GemmShape shape;
  /// The share of its FLOPs the model counts (MFU): below 1 where ranks repeat work, as QKV's
  /// replicated key-value heads past kv_heads = tp.
  double useful = 1;
};

class AnalyticCostModel : public CostModel {
 public:
  /// Requires a scenario with a model and a cluster. `gemms`, `memory` and `attention`
  /// (optional, outliving the model): measured GEMM, memory-bound and fused-attention kernel
  /// times that replace the roofline, the bandwidth formula and the published attention data
  /// where they cover the shape, size or length.
  explicit AnalyticCostModel(const Scenario& s, const GemmTable* gemms = nullptr,
                             const BandwidthTable* memory = nullptr,
                             const AttentionTable* attention = nullptr);

  Cost compute(Op op, int stage, int rank) const override;
  std::vector<CollectiveRun> tp_collectives(Op op, int stage) const override;
  std::vector<CollectiveRun> ep_collectives(Op op, int stage) const override;
  std::vector<CollectiveRun> cp_collectives(Op op, int stage) const override;
  double expert_params(int stage) const override;
  double activation_bytes() const override;
  Cost p2p(LinkClass link, double bytes) const override;
  Cost collective(Collective c, int group_size, LinkClass link, double bytes,
                  int per_node = 1) const override;
  double gradient_bytes(int stage) const override;
  Cost optimizer(double params) const override;
  double stage_params(int stage) const override;
  /// Under LoRA (training.lora_rank) the adapters' parameters (scenario/partition.h,
  /// stage_lora_params).
  double trainable_params(int stage) const override;
  /// bytes / cluster.host_link (a copy engine's transfer: no launch cost, no GPU time).
  Cost host_transfer(double bytes) const override;
  /// params / cluster.host_adam_rate.
  Cost host_optimizer(double params) const override;
  bool models_hardware() const override { return true; }
  std::string sources() const override;
  std::vector<KernelTime> kernel_times(Op op, int stage) const override;
  /// The kernels compute() counts (each run's launches), efficiency.host_per_kernel each
  /// (host_per_kernel_seconds), and the TP, CP and EP collectives its pass runs (one launch
  /// each), efficiency.host_per_collective each (host_per_collective_seconds), but for
  /// Transformer Engine's userbuffers exchanges (CollectiveRun::in_gemm_call): a kernel's each.
  HostLaunch host_launch(Op op, int stage) const override;
  /// The CPU's time to issue one kernel, seconds (host_per_kernel_seconds).
  double host_per_kernel() const;
  /// The CPU's time to issue one collective, seconds (host_per_collective_seconds).
  double host_per_collective() const;
  bool simulates_cpu() const override { return host_per_kernel() > 0 || host_per_collective() > 0; }
  Cost grad_check(double bytes) const override;
  Cost zero_grad(double bytes) const override;
  GradCheckHost grad_check_host() const override;
  /// slowest_gpu_factor of the scenario's spread (gpu_speed_spread) over the layout's GPUs.
  double compute_pace() const override { return pace_; }

  /// Time of one GEMM in seconds: measured (the GEMM table) when covered, else the roofline
  /// (exposed for tests and calibration).
  double gemm_seconds(const GemmShape& g, double batch = 1) const;
  /// Forward GEMMs of one dense transformer layer on one TP rank: the attention's, then the
  /// MLP's up (gate and up) and down.
  std::vector<GemmShape> layer_gemms() const;
  /// The attention's projections: QKV and output, or latent attention's down and up
  /// projections and output.
  std::vector<LayerGemm> attention_gemms() const;
  /// Every kernel one micro-batch of `op` on `stage` runs, in order; compute() is their sum.
  std::vector<Kernel> kernels(Op op, int stage) const;
  /// One run of `k`, without its launch cost.
  double kernel_seconds(const Kernel& k) const;
  /// What accumulating weight-gradient GEMM `wgrad`'s output into the fp32 main gradient adds
  /// to one run of it (its epilogue, `wgrad.main_grad`); 0 without the fused accumulation.
  double main_grad_epilogue_seconds(const Kernel& wgrad) const;
  /// Seconds of a collective of `bytes` (nccl-tests S) over `n` GPUs between nodes, `per_node`
  /// of them in each node, as NCCL's tuning model prices it: a ring or (all-reduce) a tree, its
  /// quickest protocol; an all-to-all as sends to every peer at once, with the model's
  /// node-limited routing when `routing` (collective() then scales it by the measured sweep).
  double tuning_model_seconds(Collective c, int n, double bytes, int per_node,
                              bool routing = true) const {
    return tuning_model_seconds(c, n, bytes, per_node, routing, s_.cluster.intra_node,
                                s_.cluster.inter_node);
  }
  /// The same on the given links (the measured machine's, for the sweep's correction).
  double tuning_model_seconds(Collective c, int n, double bytes, int per_node, bool routing,
                              const LinkSpec& intra, const LinkSpec& inter) const;
  /// What the scenario's network (cluster.network) measured over the tuning model for a
  /// collective of `bytes` over `n` GPUs, `per_node` a node: on its nearest measured layout
  /// (GPUs per node; node counts around the group's, interpolated), at this size; 1 for an
  /// operation it did not measure. Needs a network.
  double measured_over_model(Collective c, int n, double bytes, int per_node) const;
  /// A fused attention kernel's rate at its launches' tiles over the charts' (1 without charts):
  /// AttentionData::parallelism of each launch (under context parallelism each block's or query
  /// chunk's, on the slowest rank), weighted by its work.
  double attention_parallelism(const Kernel& k) const;

 private:
  /// The layers of `st`: their recomputation, then the dense layers', then the MoE layers'.
  void stage_layer_kernels(Op op, const StageContent& st, std::vector<Kernel>& out) const;
  /// `layers` layers of one kind (dense or MoE), each a run of every kernel.
  void layer_kernels(Op op, int layers, bool moe, bool recompute, std::vector<Kernel>& out) const;
  void attention_kernels(Op op, int layers, bool recompute, std::vector<Kernel>& out) const;
  /// The forward kernels selective recompute's modules other than the attention core
  /// (training.recompute_modules) run again in the backward, for `layers` dense or MoE layers.
  void module_recompute_kernels(int layers, bool moe, std::vector<Kernel>& out) const;
  /// The kernels of the LoRA adapter beside linear layer `target` of shape `g` (this GPU's), if
  /// training.lora_targets names it, each given to `push`.
  void lora_kernels(Op op, std::string_view target, const GemmShape& g,
                    const std::function<void(Kernel)>& push) const;
  /// Ring context parallelism's per-step merges of block results, one layer's (memory-bound).
  Kernel ring_merge(Op op) const;
  /// All-to-all context parallelism's layout copies around its exchanges, one layer's
  /// (Transformer Engine's movedim and index_select copies; memory-bound, SM-bound).
  Kernel a2a_layout_copies(Op op) const;
  /// The input embedding's lookup and gradient; `mtp`: the lookups of that many multi-token
  /// prediction modules (their names prefixed `mtp.`).
  void embedding_kernels(Op op, std::vector<Kernel>& out, int mtp = 0) const;
  /// Of `modules` multi-token prediction modules, what runs besides their Transformer layers
  /// (counted with the stage's) and their heads and losses (head_kernels): the embedding lookups,
  /// the two norms, the concatenation and the 2h → h projection. `recompute` (a forward under
  /// full recompute, recomputes_mtp_blocks): what the checkpointed block runs again, the lookup
  /// not.
  void mtp_kernels(Op op, int modules, std::vector<Kernel>& out, bool recompute = false) const;
  /// One RMSNorm or LayerNorm over `elements` (a layer's two, the final one): one fused kernel,
  /// or with training.eager_ops `norm` PyTorch's ops (RMSNorm) or own kernels (LayerNorm).
  Kernel norm_kernel(Op op, const char* what, double elements) const;
  void grad_accumulate_kernel(int stage, std::vector<Kernel>& out) const;
  /// Autograd's sum of a tied table's two gradients (on a stage with the embedding and head).
  void tied_grad_sum_kernel(std::vector<Kernel>& out) const;
  /// Weight-gradient GEMMs accumulate into the gradient buffer
  /// (training.grad_accumulation_fusion).
  bool fused_main_grad() const;
  /// parallelism.tp_overlap as Transformer Engine's userbuffers run it: with SP, on a dense
  /// model's QKV and MLP GEMMs (chunked, each collective under its own GEMM); otherwise the knob
  /// is a generic overlap of the TP collectives with the whole pass.
  bool te_overlap() const;
  /// Transformer Engine's fused grouped MLP runs the routed experts' activation and casts inside
  /// their GEMMs (training.fused_expert_mlp, with MXFP8 experts).
  bool fused_expert_mlp() const;
  /// Bytes per element of an FP8 quantization (training.fp8_recipe): `fused`, one a norm, the
  /// activation or its backward produces (free under delayed scaling, a cast of its own after
  /// a 16-bit output under current scaling), or a standalone cast; `gradient`, an output
  /// gradient's (NVFP4 rounds those stochastically).
  double fp8_cast_bytes(bool fused, bool gradient = false) const;
  /// The GPU preset is a Blackwell one (compute capability 10.x and later).
  bool blackwell() const;
  /// For `trainsim kernels`' source column: how a cast kernel `what` (fp8.cast and its kin) takes
  /// Transformer Engine's measured cast rate into its bytes' time, or empty where it takes none.
  std::string cast_rate_note(std::string_view what) const;
  /// Bytes of one pass's n·h hidden state as a layer's TP all-gather under SP moves it: 16-bit,
  /// or under FP8 the quantized tensor (tp_collectives).
  double layer_gather_bytes() const;
  /// The same for a tensor of `width` elements a token (latent attention's latents).
  double gather_bytes(double width) const;
  /// Latent attention under sequence parallelism at tp > 1: its down projections run on this
  /// rank's n / t tokens and its up projections gather the latents (attention_gemms,
  /// tp_collectives).
  bool latent_sp() const;
  /// Bytes per element of a linear weight's FP8 copy, made once per step (cached over the
  /// micro-batches): a cast of the 16-bit weight, or with training.fp8_params the transpose of
  /// the FP8 one where the GPU's FP8 GEMMs need it, or under MXFP8 with ZeRO-1/2 the cast of the
  /// weight gathered in 16 bits.
  double fp8_weight_bytes() const;
  /// An FP8 GEMM's time over per-tensor FP8's of its shape under training.fp8_recipe: MXFP8's
  /// and NVFP4's measured factors, 1 otherwise (cost/fp8_gemm.h).
  double recipe_gemm_scale() const;
  /// FP8 parameters without the transpose cache on Hopper: each micro-batch's backward makes the
  /// weights' transposes (fp8_weight_bytes each), not each step's first forward.
  bool fp8_transposes_each_microbatch() const;
  /// The gradient buffer's accumulation of `weights` weight-gradient outputs (`elements` in all),
  /// `count` times per micro-batch: inside their GEMMs' epilogues under
  /// training.grad_accumulation_fusion (`shown`: the elements weighted by
  /// main_grad_visible_share of their GEMM's tokens), else into fp32 gradients by a kernel each.
  void main_grad_accumulate(double elements, double shown, int weights, int count, bool recompute,
                            std::vector<Kernel>& out) const;
  /// Bytes per weight element the fused accumulation's epilogue moves beyond a 16-bit GEMM's,
  /// and per element a hook's add into the gradient buffer: fp32 or 16-bit gradients.
  double main_grad_epilogue_bytes() const;
  double main_grad_add_bytes() const;
  /// PyTorch FSDP's own kernels (ZeRO-3): the shard cast before each all-gather, the gradient
  /// flatten, cast and divisions around each reduce-scatter (constants.h).
  void fsdp_kernels(Op op, int stage, std::vector<Kernel>& out) const;
  /// The final norm, the LM head and the loss, `count` times (the main model's and each
  /// multi-token prediction module's, sharing the head's weights).
  void head_kernels(Op op, int count, std::vector<Kernel>& out) const;
  double memory_seconds(double bytes) const;
  /// Tokens of a micro-batch one GPU routes to its experts: its n / t sequence-parallel shard
  /// under SP (Megatron-core's MoE layer routes the shard), else all n.
  double routed_tokens() const {
    return s_.layout.sequence_parallel ? tokens_ / s_.layout.tp : tokens_;
  }

  Scenario s_;
  AnalyticConstants k_;
  std::vector<StageContent> stages_;
  double tokens_;  ///< tokens of one micro-batch, n = b·s
  const GemmTable* gemms_ = nullptr;
  const BandwidthTable* memory_ = nullptr;
  const AttentionTable* attention_ = nullptr;
  double pace_ = 1.0;  ///< compute_pace()
};

}  // namespace trainsim
