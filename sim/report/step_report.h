#pragma once
// The numbers of one simulated step, derived from a Timeline only.
//
// Idle time. A stage's idle time in the pipeline phase (first F to last backward) has three
// causes, reported apart: the schedule's own bubble, unequal stages, and waiting for
// communication. With C the mean stage's compute (the pipeline compute each stage ran, as
// simulated), T the pipeline phase, M_u the makespan of the same schedule with every stage
// given the mean stage's per-micro-batch costs and free communication, and M_a the same with
// each stage's own costs:
//   pipeline bubble = M_u − C   (what a perfectly balanced pipeline of these costs would idle)
//   imbalance       = M_a − M_u (what unequal stages add)
//   communication   = T − M_a   (exposed p2p, TP, DP waits and contention's extra)
// and they add up to the mean stage idle T − C (each clamped at 0; the last takes the rest).
// The two bubble conventions (Zero Bubble, Qi et al. 2024, arXiv 2401.10241; Megatron,
// Narayanan et al. 2021, arXiv 2104.04473 §2.2) are of the pipeline bubble alone:
//   fraction_of_step (Zero Bubble paper) = (M_u − C) / M_u,
//   over_ideal (Megatron, the Playbook)  = (M_u − C) / C.
// With uniform costs, 1F1B gives (p−1)/(m+p−1) and (p−1)/m; a pp = 1 run has no bubble.
// When steps overlap (training.optimizer_post_validation), T, M_u and M_a are the longest
// stage's span instead of the makespan (schedules/zb_auto.h, estimate_period): the Zero Bubble
// paper's "cost", so ZB-H2 with T_F = T_B = T_W has no bubble, as its §2.2 says.
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "report/critical_path.h"
#include "run/timeline.h"
#include "scenario/layout.h"
#include "scenario/model.h"
#include "schedules/schedule.h"

namespace trainsim {

struct StageStats {
  int stage = 0;              ///< pipeline rank
  double compute_busy_s = 0;  ///< F/B/I/W time on the stage's compute stream
  double first_compute_start_s = 0;
  double last_compute_end_s = 0;
  double idle_s = 0;  ///< pipeline time − compute_busy_s
  double optimizer_s = 0;
  /// Most micro-batches whose activations the stage holds at once (from a forward's start to
  /// its last backward task's end), in whole-stage units: a chunk counts 1/v.
  double peak_in_flight = 0;
  /// The most activation bytes one GPU of the stage holds at once (memory/footprint.h's
  /// per-micro-batch bytes of each chunk, held from forward to last backward); 0 without a model.
  double peak_activation_bytes = 0;
  /// Communication not hidden behind this stage's compute (union of its transfers minus the
  /// union of its compute), per kind, a moment two kinds share counted once, for the first in
  /// the order TP, CP, EP, PP, gather, DP, host (so the kinds add up to the stage's time in
  /// transfers outside compute); TP collectives sit on the compute stream, so all of
  /// theirs is exposed unless parallelism.tp_overlap. `gather`: ZeRO parameter all-gathers.
  /// `ep`: expert parallelism's token all-to-alls. `cp`: context parallelism's key/value
  /// exchange. `host`: activation offload's copies to and from host memory.
  double exposed_tp_s = 0, exposed_dp_s = 0, exposed_pp_s = 0, exposed_gather_s = 0,
         exposed_ep_s = 0, exposed_cp_s = 0, exposed_host_s = 0;
  /// The same transfers' whole time (union of their intervals), hidden or not.
  double comm_tp_s = 0, comm_dp_s = 0, comm_pp_s = 0, comm_gather_s = 0, comm_ep_s = 0,
         comm_cp_s = 0, comm_host_s = 0;
  /// The CPU issuing the stage's compute kernels over the step (efficiency.host_per_kernel; 0
  /// when the CPU keeps ahead), and the compute stream's time waiting for it from the first
  /// forward on (what a trace of the step shows): each compute task's start after everything
  /// else it waits for had ended.
  double launch_s = 0, launch_wait_s = 0;
  /// The kernels the stage's GPU runs in a step, a pass's TP, CP and EP collectives counted as
  /// kernels (Timeline::kernels_per_rank; 0 when the cost model times no kernels).
  double kernels = 0;
};

/// Bytes one GPU sends per step, by kind: a collective's bus factor × S, a p2p message whole.
struct CommVolume {
  double tp_bytes = 0;    ///< per GPU (summed over its TP collectives)
  double dp_bytes = 0;    ///< per GPU (gradient reduction and parameter gathers)
  double pp_bytes = 0;    ///< per GPU of the busiest stage (sends)
  double ep_bytes = 0;    ///< per GPU (expert parallelism's all-to-alls)
  double cp_bytes = 0;    ///< per GPU (context parallelism's keys, values and their gradients)
  double host_bytes = 0;  ///< per GPU over its host link (activation offload, both ways)
};

struct StepReport {
  std::string scenario;  ///< path or name
  std::string scenario_name;
  std::optional<ModelSpec> model;  ///< the model trained (none in a costs-only study)
  /// The command-line edits of the model (`--set model.layers=8`, `--vary …`), so the report
  /// does not pass an edited preset off as the preset.
  std::vector<std::string> model_edits;
  std::string schedule;
  int gpus = 0;
  int dp = 1, tp = 1, pp = 1, vpp = 1, ep = 1, cp = 1, microbatches = 0;
  /// The routed experts' TP degree (parallelism.etp): tp, or 1 for experts whole on each rank
  /// (tp for a dense model).
  int etp = 1;
  /// How context parallelism exchanges (parallelism.cp_comm): ring, all_gather or all_to_all.
  std::string cp_comm = "ring";
  PipelineSplit split;  ///< what the layer split over stages counts besides the layers
  /// The model's layers of each pipeline stage (pp × vpp, in model order; a multi-token
  /// prediction module is not one of them, even where the split counts it) where the scenario
  /// gives no split and the even one is not even (32 layers on pp 3: 10/11/11); empty otherwise.
  std::vector<int> uneven_layers;
  int zero = 0;  ///< ZeRO stage
  /// ZeRO-1's gradient reduction: by bucket during the last backward (overlap_grad_reduce), and
  /// an all-reduce instead of a reduce-scatter (parallelism.zero1_reduce).
  bool grad_reduce_with_backward = false, zero1_all_reduce = false;
  /// parallelism.grad_nan_check: "off", "norm", "nan" or "nan-inf".
  std::string grad_nan_check = "off";
  /// parallelism.grad_buckets: "all", "first_chunk" or "none".
  std::string grad_buckets = "all";
  bool tp_async_allreduce = true;  ///< parallelism.tp_async_allreduce
  /// Sequence parallelism and comm-GEMM overlap of the TP collectives (parallelism.
  /// sequence_parallel, tp_overlap): named at tp > 1, where they change the step.
  bool sequence_parallel = false, tp_overlap = false;
  FsdpSpec fsdp;    ///< ZeRO-3's units (meaningful with zero 3)
  std::string gpu;  ///< device name, empty without a cluster
  /// The training settings the durations depend on (attention kernel, optimizer, …); nullopt
  /// without a model (a costs-only study).
  std::optional<TrainingSpec> training;
  /// The GPUs, nodes and links the durations came from; nullopt without a cluster.
  std::optional<ClusterSpec> cluster;
  /// The time per step: one step's makespan, or with training.optimizer_post_validation the
  /// steady-state period of overlapping steps, the longest stage span (a stage's first task's
  /// start to its last task's end on its GPU).
  double step_time_s = 0;
  double one_step_s = 0;          ///< one step alone, first task to last (= step_time_s unless
                                  ///< steps overlap)
  bool overlapped_steps = false;  ///< training.optimizer_post_validation
  double pipeline_time_s = 0;     ///< first F to last backward (steps overlapping: the longest
                                  ///< stage's first F to last backward)
  /// Before the first F: the first parameter gathers (ZeRO-3, or ZeRO-1/2 gathering with the
  /// forward) it waits for; 0 when it starts at once or steps overlap.
  double before_pipeline_s = 0;
  double after_pipeline_s = 0;  ///< DP reduction and optimizer after the pipeline drains
  double tokens_per_step = 0;   ///< 0 when unknown (no model)
  double tokens_per_s = 0;
  double model_flops = 0;  ///< whole cluster, per step
  double tflops_per_gpu = 0;
  std::optional<double> mfu;           ///< needs a device peak
  double bubble_fraction_of_step = 0;  ///< pipeline bubble / M_u (see above)
  double bubble_over_ideal = 0;        ///< pipeline bubble / C
  /// The mean stage's idle time in the pipeline phase, by cause (seconds; see above).
  struct Idle {
    double total_s = 0;  ///< T − C
    double pipeline_bubble_s = 0, imbalance_s = 0, communication_s = 0;
    /// Waiting for the CPU's kernel launches within the pipeline phase (StageStats::launch_wait_s
    /// there; what the bubble and imbalance explain not counted twice).
    double launch_s = 0;
  } idle;
  std::optional<double> cost_per_million_tokens;  ///< needs pricing and tokens
  std::optional<double> price_per_gpu_hour;
  std::vector<StageStats> stages;
  double p2p_bytes = 0;      ///< stage-to-stage activation and gradient bytes, all GPUs
  CommVolume volume;         ///< per GPU, the largest over pipeline stages
  CriticalPath critical;     ///< what the step's end waited on, by kind
  std::string cost_sources;  ///< where the durations came from
  std::string contention;    ///< what slowed overlapping work (lowering's words)
  /// The CPU's time to issue one kernel (efficiency.host_per_kernel; 0: the CPU keeps ahead).
  double host_per_kernel_s = 0;
  /// The CPU's time to issue one TP, CP or EP collective (efficiency.host_per_collective; 0: the
  /// CPU keeps ahead).
  double host_per_collective_s = 0;
  /// Where the CPU is not simulated (host_per_kernel_s 0) and kernels are counted: the least
  /// compute per kernel over the stages, compute_busy_s / kernels (`cpu_headroom_stage` the
  /// stage). A CPU that takes longer on average to issue a kernel than this (eager PyTorch:
  /// 48.3 us, efficiency.host_per_kernel; a framework without CUDA graphs can) cannot keep up
  /// with that GPU, so the step would be the CPU's. 0 when not computed.
  double cpu_headroom_s = 0;
  int cpu_headroom_stage = 0;
  /// What eager PyTorch's CPU takes to issue a kernel on the scenario's host (cost/analytic.h
  /// eager_host_per_kernel_seconds), beside cpu_headroom_s or beside host_per_kernel_s where
  /// the CPU is simulated; 0 when neither.
  double eager_host_per_kernel_s = 0;
  /// Every GPU's modelled compute × this: the slowest of the job's GPUs sets the pace
  /// (cost/gpu_spread.h), their speeds spreading by `gpu_speed_spread` (cluster.gpu_speed_spread
  /// or its default; 0 without a cluster).
  double compute_pace = 1.0;
  double gpu_speed_spread = 0;
  /// Tensor-parallel groups whose GPUs sit on more than one node, their collectives over the
  /// network (TP wider than a node, or a node size it does not divide), of `tp_groups` (dp · cp ·
  /// pp of them; 0 at tp 1 or without a cluster).
  int tp_groups_across_nodes = 0;
  int tp_groups = 0;
  int gpus_per_node = 0;
  /// With `slowdown` entries: the step time of the same scenario without them (set by the
  /// caller that simulated both).
  std::optional<double> step_time_without_slowdown_s;
  /// The scenario's `measured:` figure, if any (report/accuracy.h compares with it).
  std::optional<Measured> measured;
  std::size_t tasks = 0;
  int simulated_ranks = 0;
  bool folded = false;
};

StepReport make_report(const Timeline& tl);

/// Per global stage, the mean simulated duration of one micro-batch's F, I (or fused B) and W,
/// the costs the idle split above replays the schedule on. DualPipe's overlapped F&B pairs are
/// shared between their F and B in the proportion of the stages' lone ones, so that a pair,
/// replayed as F + B, takes what it took. nullopt when a stage ran no lone F or backward.
std::optional<StageCosts> simulated_stage_costs(const Timeline& tl);

}  // namespace trainsim
