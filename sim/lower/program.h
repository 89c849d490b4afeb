#pragma once
// The lowering state that passes share: the graph under construction, the simulated ranks,
// each rank's streams, and an index from (replica, stage, op, micro-batch) to compute tasks.
#include <cstdint>        // std::uint64_t
#include <map>            // std::map
#include <optional>       // std::optional
#include <tuple>          // std::tuple
#include <unordered_map>  // std::unordered_map
#include <utility>        // std::pair
#include <vector>         // std::vector

#include "cost/cost_model.h"
#include "graph/task_graph.h"
#include "lower/ranks.h"
#include "lower/task_types.h"
#include "scenario/partition.h"
#include "scenario/scenario.h"
#include "schedules/schedule.h"

namespace trainsim {

/// The collectives that belong to a layer's compute, by kind: TP's on the critical path, TP's
/// hidden beside the compute (CostModel::tp_hidden_communication), expert parallelism's token
/// all-to-alls (over the EP group), CP's key/value exchange on the critical path, and the part of
/// it hidden beside the compute (CostModel::cp_hidden_communication: all-to-all CP's exchanges
/// under the layout copies around them).
enum class LayerComm { TP, TPHidden, EP, CP, CPHidden };

struct Program {
  Program(const Scenario& sc, const Schedule& sch, const CostModel& cm, RankSet rs);

  const Scenario& scenario;
  const Schedule& schedule;
  const CostModel& cost;
  RankSet ranks;
  TaskGraphBuilder builder;
  std::vector<StreamId> compute_stream;  ///< per simulated rank

  /// Slot of (replica, stage, op kind, micro-batch); kind 0 = F, 1 = B or I, 2 = W.
  static int kind_of(Op op) { return op == Op::F ? 0 : op == Op::W ? 2 : 1; }
  TaskId& task_of(int replica, int stage, Op op, int mb);
  /// The task whose end completes the action: task_of, or the last part of a split backward.
  TaskId end_of(int replica, int stage, Op op, int mb);
  /// Records the tasks of an action divided into parts, in order (task_of holds the first).
  void set_parts(std::vector<TaskId> parts);
  /// Every part of the divided action whose first part is `first`, or nullptr when undivided.
  const std::vector<TaskId>* parts_of(TaskId first) const;
  /// `bytes` moved by ⌈bytes / bucket⌉ equal collectives one after another (one without a
  /// bucket, or when the bytes fit one): their summed time and traffic.
  Cost bucketed(Collective c, int n, LinkClass link, double bytes, int per_node,
                const std::optional<double>& bucket) const;
  /// Number of DP gradient buckets of `stage` (1 when gradients are not reduced per bucket;
  /// under ZeRO-3 one per FSDP unit): the gradients but the last bucket's own parameters
  /// (last_bucket_params) / memory.bucket_size, rounded up.
  int buckets(int stage) const;
  /// Of `stage`'s trained parameters on one GPU, those a framework's bucketed DP reduction
  /// reduces with its last bucket, once the backward is over, and (gathering with the next
  /// forward) gathers with its first: a bucket never splits a parameter and the buckets follow
  /// the order gradients complete (Megatron-core's _ParamAndGradBuffer, PyTorch DDP's bucket
  /// assignment, DeepSpeed's reduce bucket), and the embedding's table completes its gradient
  /// last (a tied head's share of it first); under training.fp8_params Megatron-core puts its
  /// 16-bit buffer's buckets (embedding, head) in the last FP8 bucket's group
  /// (param_and_grad_buffer.py, partition_buckets), so those too. 0 under ZeRO-3 (units of
  /// layers), LoRA (the table frozen) and without a model.
  double last_bucket_params(int stage) const;
  /// Of `bytes`, a backward's gradients of `stage` reduced in `parts` buckets, what bucket
  /// `part` moves: an equal share of what the last bucket's own parameters leave
  /// (last_bucket_params, at `stage`'s gradient bytes per parameter, at most `bytes`), and the
  /// last bucket those besides.
  double bucket_bytes(int stage, int part, int parts, double bytes) const;
  /// Buckets that `bytes` of `stage`'s gradients fill: ⌈(`bytes` less last_bucket_params's
  /// gradients) / memory.bucket_size⌉, at least 1. With `bytes` the stage's gradients, the
  /// buckets a framework fills (buckets() where gradients are reduced per bucket); with one
  /// buffer's share of them, that buffer's (Megatron-core buckets its dense and its
  /// expert-parallel parameters apart).
  int gradient_buckets(int stage, double bytes) const;
  /// Whether `stage` splits its gradients into buckets at all (parallelism.grad_buckets); one
  /// bucket for its gradients, and one for its routed experts', where not.
  bool splits_gradients(int stage) const;
  /// gradient_buckets of all of `stage`'s gradients.
  int gradient_buckets(int stage) const;
  /// FSDP units of `stage`: parameter all-gathers one use of it needs. ZeRO-3: its layers /
  /// fsdp.unit_layers, rounded up; ZeRO-1/2 gathering with the next forward: one per gradient
  /// bucket (Megatron-core gathers the bucket groups it reduces), as buckets() counts them
  /// however the gradients are reduced; 0 when nothing is gathered before compute.
  int gather_units(int stage) const;
  /// Bytes of unit `unit`'s gathered parameters on one GPU (the all-gather's size S): ZeRO-3's
  /// units alike; ZeRO-1/2's buckets an equal share of what the last bucket's own parameters
  /// leave, the first unit a forward needs (the reduction's last bucket) those besides, in
  /// 16-bit.
  double gather_unit_bytes(int stage, int unit) const;
  /// Bytes of `stage`'s parameters on one GPU as a data-parallel all-gather moves them: 2 per
  /// parameter, 1 per layer weight under training.fp8_params.
  double param_gather_bytes(int stage) const;
  /// True when `a`, the first use of its stage on its rank when `first_use`, needs its stage's
  /// parameters gathered first (ZeRO-3: every F, B and I unless kept across micro-batches, then
  /// only the first F; ZeRO-1/2 gathering with the next forward: the first F).
  bool needs_gather(const Action& a, bool first_use) const;
  /// Which of its rank's chunks `stage` is (precomputed Schedule::chunk_of).
  int chunk_of(int stage) const { return chunk_of_[static_cast<std::size_t>(stage)]; }
  /// The model stage a schedule stage runs (Schedule::model_stage): what the cost model and
  /// the memory model are asked about.
  int model_stage(int stage) const { return schedule.model_stage(stage); }
  /// The stages pipeline rank `pp` holds, in increasing order (Schedule::stages_by_rank).
  const std::vector<int>& stages_on(int pp) const {
    return stages_by_rank_[static_cast<std::size_t>(pp)];
  }

  /// cost.compute(op, stage, pp) and cost.tp_communication / ep_communication(op, stage, link)
  /// of the model stage `stage` runs, each asked of the cost model once per distinct arguments
  /// (a pipeline asks the same ones m times).
  const Cost& compute_cost(Op op, int stage, int pp);
  const Cost& layer_comm_cost(LayerComm kind, Op op, int stage, LinkClass link, int per_node);

  /// A Work record for `type` on `stage`, created once per distinct key (every argument, the
  /// cost's duration and bytes among them). `stage2` is the backward stage of an overlapped F&B
  /// (-1 otherwise).
  WorkId work(TaskType type, int stage, int chunk, const Cost& c, int variant = 0, int stage2 = -1,
              double scale = 1.0, int part = 0, int parts = 1);
  /// Straggler factors (scenario `slowdown`): compute on simulated rank `r`, on top of the job's
  /// slowest-GPU pace (CostModel::compute_pace, pace_of); the slowest link among global ranks
  /// `members` (a collective or a transfer runs at its slowest member's pace).
  double compute_scale(int r) const;
  double link_scale(const std::vector<int>& members) const;
  /// The stream of `type` owned by simulated rank `owner` towards `peer` (created on demand).
  StreamId stream(int owner, StreamType type, int peer = -1);

 private:
  /// last_bucket_params's gradients, of a stage whose gradients are `bytes` (at most those).
  double last_bucket_gradient_bytes(int stage, double bytes) const;
  /// last_bucket_params's 16-bit bytes, of what param_gather_bytes gathers (at most those).
  double first_gather_bytes(int stage) const;

  std::vector<TaskId> task_index_;
  std::vector<int> chunk_of_;
  std::vector<std::vector<int>> stages_by_rank_;
  std::vector<StageContent> stage_content_;      // by model stage
  std::map<TaskId, std::vector<TaskId>> parts_;  // first part -> every part (task_types.h)
  // (type, stage, variant, chunk, stage2, scale ppm, part, parts, duration, bytes)
  std::map<std::tuple<int, int, int, int, int, long long, int, int, TimeNs, long long>, WorkId>
      works_;
  std::map<std::tuple<int, int, int>, StreamId> streams_;
  std::unordered_map<std::uint64_t, Cost> compute_costs_, layer_comm_costs_;
};

// The passes, in the order lower() runs them. Each adds one kind of work and hands what later
// passes need to know of it as its result (lowering.cpp passes them along).

/// What the compute pass tells the passes after it about the compute tasks it made.
struct ComputeTasks {
  /// Per (simulated rank, stage, micro-batch): where the gradients of a backward (B or W) that
  /// reduces them are complete — the stage's last backward, or under ZeRO-2/3 every one: one
  /// task per DP bucket (its parts), or the one task that ends it.
  std::map<std::tuple<int, int, int>, std::vector<TaskId>> gradient_parts;
  /// Per simulated rank: the first task of each action needing a parameter gather (one per
  /// part, Program::parts_of), in compute-stream order.
  std::vector<std::vector<TaskId>> gathered;
};
/// F/B/I/W tasks on each rank's compute stream in schedule order, with same-rank data
/// dependencies (backward after its forward, W after I).
ComputeTasks add_compute_pass(Program& p);
/// What the layer-collective pass tells the passes after it.
struct LayerCommTasks {
  /// Per simulated rank: the collectives of its stream's last compute task, which a task added
  /// after that compute (the optimizer step) must wait for.
  std::vector<std::vector<TaskId>> tails;
  /// Per compute task (or part): every collective of its layers, those beside it and those
  /// after it. Its output (what a pipeline transfer sends) is complete when they are.
  std::unordered_map<TaskId, std::vector<TaskId>> after;
};
/// The collectives of each F/B/I part that belong to its layers, each kind on the rank's stream
/// of its own, meeting across its group, before the next compute: TP's over the TP group, what
/// hides under its GEMMs starting together with the part (the backward's asynchronous
/// collectives; with parallelism.tp_overlap each layer's, under the GEMM it is fused with) and
/// the rest after the part (on the critical path);
/// expert parallelism's all-to-alls over the EP group, after the part and its TP collectives
/// when those follow it, or starting together with the part when it is an overlapped F&B pair
/// (DualPipe, DualPipeV); ring context parallelism's key/value exchange over the CP group,
/// starting together with the part. A part beside several kinds starts with all of them and
/// keeps its own pace (TaskGraphBuilder::add_rendezvous). Runs before the p2p pass, which needs
/// its result.
LayerCommTasks add_layer_comm_pass(Program& p);
/// Activation and gradient transfers between ranks: a send/recv pair that meets (rendezvous)
/// on per-peer channels, ordered as the sender produces them; same-rank neighbours get a
/// direct dependency instead.
/// A transfer leaves after its producer's layer collectives too (LayerCommTasks::after): a
/// stage's output is not there before its last layer's TP reduce-scatter (forward) or
/// input-gradient collectives (backward) are done.
void add_p2p_pass(Program& p, const LayerCommTasks& layer_comm);
/// Parameter all-gathers over the DP group on a gather stream, one per FSDP unit before each
/// compute part that needs it (ComputeTasks::gathered), issued `fsdp.prefetch` parts ahead.
void add_param_gather_pass(Program& p, const ComputeTasks& compute);
/// Activation offload (training.offload_activations): after each forward its stage's offloaded
/// activations go down the host link; before the backward (B or I) that needs them they come
/// back on the host link's other direction, issued when the compute before that backward starts
/// and the copies out of the forwards before that one are done.
/// A forward whose backward is the next compute on its rank keeps them.
void add_activation_offload_pass(Program& p);
/// Data-parallel gradient reduction after each stage's last backward on a separate stream
/// (all-reduce for ZeRO-0; reduce-scatter, then all-gather after the optimizer, for ZeRO-1/2),
/// under ZeRO-2/3 after every backward (they keep only their gradient shard), leaving the DP
/// stream in the order their gradients complete; with two pipelines (DualPipe) each model
/// stage's gradients (or shard) then all-reduced between the two ranks holding a copy of it;
/// and the optimizer step on the compute stream, after `tails` (add_layer_comm_pass's). Under
/// expert parallelism the routed experts' gradients are reduced (and gathered) over their
/// expert-data-parallel group, the rest over the DP group.
void add_dp_optimizer_pass(Program& p, const ComputeTasks& compute,
                           const std::vector<std::vector<TaskId>>& tails);
/// The CPU issuing each compute task's kernels (CostModel::host_launch,
/// efficiency.host_per_kernel) on each rank's `launch` stream, in schedule order, waiting for
/// the GPU only at a DP bucket's NaN check (below): a compute task (or part) starts after its first
/// kernel is issued, and what needs its result (the next task on the compute stream, its sends,
/// collectives and gradient reductions) after its last; kernels shorter than their issue time leave
/// the GPU waiting. Nothing when the CPU keeps ahead (no launches). A pass's TP, CP and EP
/// collectives count as kernels (CostModel::host_launch); the optimizer's and the DP collectives'
/// launches are not counted (but for a checked bucket's reduction). After every pass that adds to
/// the compute stream. With parallelism.grad_nan_check, where each DP bucket is complete
/// (ComputeTasks:: gradient_parts) the CPU issues its check (CostModel::grad_check_host), waits for
/// the GPU to run it, then issues the rest and the bucket's reduction, which waits for that; the
/// CPU's next issue follows.
void add_launch_pass(Program& p, const ComputeTasks& compute);
/// Shared hardware, last: per simulated rank two SM resources (compute slowed by the
/// communication running beside it, contention.compute_slowdown; communication slowed by the
/// compute beside it, contention.comm_slowdown) and its NVLink and network links fair-shared by
/// the transfers and collectives crossing them (contention.link_sharing), each direction apart:
/// sends share the outgoing side, receives the incoming one, collectives both.
/// Returns what it modelled, in words ("" when nothing).
std::string add_contention_pass(Program& p);

}  // namespace trainsim
