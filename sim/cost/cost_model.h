#pragma once
// The "how long" layer's interface. Lowering passes ask it for the duration, FLOPs and bytes of
// each piece of work; they never compute a duration themselves. Implementations: the analytic
// roofline model (analytic.h) and explicit per-stage costs (explicit_costs.h) layered over it.
#include <memory>  // std::unique_ptr
#include <string>  // std::string
#include <vector>  // std::vector

#include "core/time.h"
#include "scenario/cluster.h"
#include "schedules/action.h"

namespace trainsim {

struct Cost {
  TimeNs duration = 0;
  double flops = 0;  ///< model FLOPs (recomputation excluded; MFU counts these)
  double bytes = 0;  ///< bytes moved: memory traffic, a p2p message, or a collective's traffic
                     ///< per GPU (nccl-tests bus factor × S)
};

enum class Collective { AllReduce, AllGather, ReduceScatter, AllToAll };

/// `count` runs of one collective of `bytes` (nccl-tests S) over `group_size` ranks.
struct CollectiveRun {
  Collective kind = Collective::AllReduce;
  int group_size = 1;
  double bytes = 0;
  int count = 1;
  /// An asynchronous run (hide_s > 0): issued before compute that does not need its result and
  /// waited for after it, so each run hides under hide_s seconds of that compute (as the model
  /// listing it times it); only what outlasts them is on the critical path.
  double hide_s = 0;
  /// Runs beside the whole pass it belongs to (a generic comm-compute overlap): all of it hidden
  /// beside that compute, none on the critical path.
  bool beside_pass = false;
  /// Issued inside its GEMM's own library call (Transformer Engine's userbuffers comm-GEMM
  /// overlap), not through torch.distributed: its CPU cost is a kernel launch's, not a
  /// collective call's (AnalyticCostModel::host_launch).
  bool in_gemm_call = false;
  /// The most of the run that can hide (a chunked overlap's last chunk runs after every GEMM
  /// chunk it could hide under): under = min(hidden_share · its time, hide_s).
  double hidden_share = 1;
};

/// nccl-tests bus-bandwidth factor (nccl-tests doc/PERFORMANCE.md): 2(n−1)/n for all-reduce,
/// (n−1)/n otherwise.
double busbw_factor(Collective c, int group_size);
const char* collective_name(Collective c);

/// The CPU's part in a piece of GPU work: it issues `kernels` kernels in `time`.
struct HostLaunch {
  TimeNs time = 0;
  double kernels = 0;
};

/// The CPU's part in one DP bucket's NaN check (parallelism.grad_nan_check) where the CPU is
/// simulated: issuing the norm and its first test (`before`, while the GPU may still be on the
/// backward), then, once the GPU has run them, what follows the wait (`after`: each test's value
/// read back, the Inf test's issue between the two, the bucket's reduction's issue). With the norm
/// alone (`norm`), `before` is its issue and `after` is 0: no wait.
struct GradCheckHost {
  TimeNs before = 0, after = 0;
};

/// One kernel of a micro-batch's work as a model times it (`trainsim kernels`).
struct KernelTime {
  std::string what;        ///< e.g. "qkv.dgrad", "attention.backward", "norm"
  const char* kind = "";   ///< "gemm", "attention" or "memory"
  int count = 1;           ///< runs per micro-batch (a stage's layers)
  double flops = 0;        ///< FLOPs of one run (recomputation's too)
  double bytes = 0;        ///< memory traffic of one run
  double seconds = 0;      ///< one run, its launch cost included
  bool recompute = false;  ///< recomputation: costs time, is not model FLOPs
  std::string source;      ///< where the time comes from (a sweep, a paper, a profile, …)
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  /// One micro-batch of `op` on global `stage` (one chunk), run by pipeline rank `rank`.
  virtual Cost compute(Op op, int stage, int rank) const = 0;
  /// DualPipe's overlapped pair: one micro-batch's forward of `forward_stage` run together with
  /// another's fused backward of `backward_stage`, both chunks of pipeline rank `rank`. The
  /// default is no overlap benefit: the sum of the two (F + B).
  virtual Cost overlapped(int forward_stage, int backward_stage, int rank) const;
  /// The tensor-parallel collectives one micro-batch of `op` on `stage` runs.
  virtual std::vector<CollectiveRun> tp_collectives(Op op, int stage) const = 0;
  /// Those collectives over `link`, summed, each timed by this model's collective() (so a
  /// calibrated model's samples time TP collectives too): the part on the critical path, after
  /// the compute (the blocking runs, and what an asynchronous run outlasts its hide_s by).
  /// `per_node`: the group's members in each node (a TP group wider than a node spans whole
  /// nodes, each node's NICs carrying a ring apiece).
  virtual Cost tp_communication(Op op, int stage, LinkClass link, int per_node = 1) const;
  /// The rest: the asynchronous runs' time hidden beside the compute, with their bytes.
  Cost tp_hidden_communication(Op op, int stage, LinkClass link, int per_node = 1) const;
  /// The expert-parallel all-to-alls one micro-batch of `op` on `stage` runs (token dispatch
  /// and combine of its MoE layers); none without expert parallelism.
  virtual std::vector<CollectiveRun> ep_collectives(Op /*op*/, int /*stage*/) const { return {}; }
  /// Those all-to-alls over `link` with `per_node` of the group in each node, summed and timed
  /// by collective() as tp_communication does.
  Cost ep_communication(Op op, int stage, LinkClass link, int per_node = 1) const;
  /// Context parallelism's key/value exchange one micro-batch of `op` on `stage` runs (per
  /// layer: the KV all-gather, or the ring's cp − 1 block sends, which move the same bytes;
  /// backward also their gradients); none without CP.
  virtual std::vector<CollectiveRun> cp_collectives(Op /*op*/, int /*stage*/) const { return {}; }
  /// Those over `link` with `per_node` of the group in each node, timed by collective(): the
  /// part on the critical path, as tp_communication's.
  Cost cp_communication(Op op, int stage, LinkClass link, int per_node = 1) const;
  /// The rest: what an asynchronous run hides beside the compute (all-to-all context
  /// parallelism's exchanges beside the layout copies of the tensors around them).
  Cost cp_hidden_communication(Op op, int stage, LinkClass link, int per_node = 1) const;
  /// Bytes of one stage-to-stage activation (or gradient) transfer for one micro-batch.
  virtual double activation_bytes() const = 0;
  /// A point-to-point transfer of `bytes`.
  virtual Cost p2p(LinkClass link, double bytes) const = 0;
  /// A collective over `group_size` ranks on `link` of total size `bytes` (nccl-tests S), with
  /// `per_node` of the ranks in each node (an inter-node ring then runs one channel per such
  /// rank, each through its own NIC: NCCL's rings cross nodes on every rail at once).
  virtual Cost collective(Collective c, int group_size, LinkClass link, double bytes,
                          int per_node = 1) const = 0;
  /// Gradient bytes one GPU holds for `stage` (the DP reduction's size).
  virtual double gradient_bytes(int stage) const = 0;
  /// The optimizer step over `params` parameters on one GPU.
  virtual Cost optimizer(double params) const = 0;
  /// ZeRO-Offload (training.offload): `bytes` over one GPU's host link, one way.
  virtual Cost host_transfer(double /*bytes*/) const { return {}; }
  /// ZeRO-Offload: the host CPU's Adam step over `params` parameters (one GPU's shard).
  virtual Cost host_optimizer(double /*params*/) const { return {}; }
  /// Parameters one GPU holds for `stage`.
  virtual double stage_params(int stage) const = 0;
  /// Of stage_params, the routed experts' (reduced over the expert-data-parallel group, not
  /// the whole DP group, under expert parallelism); 0 for a dense model.
  virtual double expert_params(int /*stage*/) const { return 0; }
  /// Parameters one GPU trains for `stage` (gradients, optimizer step, their reduction and
  /// gather): stage_params, or under LoRA (training.lora_rank) only the adapters'.
  virtual double trainable_params(int stage) const { return stage_params(stage); }
  /// True when the model has hardware to cost collectives and optimizer steps (false for a
  /// costs-only pipeline study).
  virtual bool models_hardware() const = 0;
  /// Where this model's durations come from, for the report (e.g. "analytic").
  virtual std::string sources() const { return "analytic"; }
  /// The kernels one micro-batch of `op` on `stage` runs, as compute() times them; empty when
  /// the model does not time kernels (explicit costs).
  virtual std::vector<KernelTime> kernel_times(Op /*op*/, int /*stage*/) const { return {}; }
  /// The CPU issuing the kernels of one micro-batch of `op` on `stage`: how many (0 when the
  /// model does not time kernels), and its time (efficiency.host_per_kernel each; 0 when the
  /// CPU keeps ahead of the GPU).
  virtual HostLaunch host_launch(Op /*op*/, int /*stage*/) const { return {}; }
  /// Whether host_launch ever takes CPU time (false: the CPU keeps ahead, nothing to simulate).
  virtual bool simulates_cpu() const { return false; }
  /// The GPU's part in the NaN check of a DP bucket of `bytes` gradient bytes
  /// (parallelism.grad_nan_check): its norm and tests; nothing when the check is off.
  virtual Cost grad_check(double /*bytes*/) const { return {}; }
  /// Writing zeros over `bytes` of the gradients one GPU holds, once a step
  /// (training.zero_grad_buffer); nothing when it is off.
  virtual Cost zero_grad(double /*bytes*/) const { return {}; }
  /// The CPU's part in it (nothing when the check is off or the CPU is not simulated).
  virtual GradCheckHost grad_check_host() const { return {}; }
  /// Every modelled compute duration of the job × this: a synchronous step runs at the pace of
  /// the slowest of its GPUs (gpu_spread.h); 1 for one GPU.
  virtual double compute_pace() const { return 1.0; }
  /// The pace of one micro-batch of `op` on `stage`: compute_pace(), or 1 where the scenario
  /// gives its duration (`costs:`, what the job's steps took).
  virtual double pace_of(Op /*op*/, int /*stage*/, int /*rank*/) const { return compute_pace(); }
  /// The pace of DualPipe's overlapped pair (overlapped()), the same way.
  virtual double overlapped_pace(int /*forward_stage*/, int /*backward_stage*/,
                                 int /*rank*/) const {
    return compute_pace();
  }
};

/// A model layered over another: every duration comes from `fallback` (or is zero when it is
/// null, a costs-only study) unless the subclass overrides it. The explicit-cost and
/// calibrated models change a few durations and inherit the rest from here.
class LayeredCostModel : public CostModel {
 public:
  explicit LayeredCostModel(std::unique_ptr<CostModel> fallback) : fallback_(std::move(fallback)) {}

  Cost compute(Op op, int stage, int rank) const override {
    return fallback_ ? fallback_->compute(op, stage, rank) : Cost{};
  }
  std::vector<CollectiveRun> tp_collectives(Op op, int stage) const override {
    return fallback_ ? fallback_->tp_collectives(op, stage) : std::vector<CollectiveRun>{};
  }
  std::vector<CollectiveRun> ep_collectives(Op op, int stage) const override {
    return fallback_ ? fallback_->ep_collectives(op, stage) : std::vector<CollectiveRun>{};
  }
  std::vector<CollectiveRun> cp_collectives(Op op, int stage) const override {
    return fallback_ ? fallback_->cp_collectives(op, stage) : std::vector<CollectiveRun>{};
  }
  double activation_bytes() const override {
    return fallback_ ? fallback_->activation_bytes() : 0.0;
  }
  Cost p2p(LinkClass link, double bytes) const override {
    return fallback_ ? fallback_->p2p(link, bytes) : Cost{};
  }
  Cost collective(Collective c, int group_size, LinkClass link, double bytes,
                  int per_node = 1) const override {
    return fallback_ ? fallback_->collective(c, group_size, link, bytes, per_node) : Cost{};
  }
  double gradient_bytes(int stage) const override {
    return fallback_ ? fallback_->gradient_bytes(stage) : 0.0;
  }
  Cost host_transfer(double bytes) const override {
    return fallback_ ? fallback_->host_transfer(bytes) : Cost{};
  }
  Cost host_optimizer(double params) const override {
    return fallback_ ? fallback_->host_optimizer(params) : Cost{};
  }
  Cost optimizer(double params) const override {
    return fallback_ ? fallback_->optimizer(params) : Cost{};
  }
  double stage_params(int stage) const override {
    return fallback_ ? fallback_->stage_params(stage) : 0.0;
  }
  double expert_params(int stage) const override {
    return fallback_ ? fallback_->expert_params(stage) : 0.0;
  }
  double trainable_params(int stage) const override {
    return fallback_ ? fallback_->trainable_params(stage) : 0.0;
  }
  bool models_hardware() const override { return fallback_ && fallback_->models_hardware(); }
  std::vector<KernelTime> kernel_times(Op op, int stage) const override {
    return fallback_ ? fallback_->kernel_times(op, stage) : std::vector<KernelTime>{};
  }
  HostLaunch host_launch(Op op, int stage) const override {
    return fallback_ ? fallback_->host_launch(op, stage) : HostLaunch{};
  }
  bool simulates_cpu() const override { return fallback_ && fallback_->simulates_cpu(); }
  Cost grad_check(double bytes) const override {
    return fallback_ ? fallback_->grad_check(bytes) : Cost{};
  }
  Cost zero_grad(double bytes) const override {
    return fallback_ ? fallback_->zero_grad(bytes) : Cost{};
  }
  GradCheckHost grad_check_host() const override {
    return fallback_ ? fallback_->grad_check_host() : GradCheckHost{};
  }
  double compute_pace() const override { return fallback_ ? fallback_->compute_pace() : 1.0; }
  double pace_of(Op op, int stage, int rank) const override {
    return fallback_ ? fallback_->pace_of(op, stage, rank) : 1.0;
  }
  double overlapped_pace(int forward_stage, int backward_stage, int rank) const override {
    return fallback_ ? fallback_->overlapped_pace(forward_stage, backward_stage, rank) : 1.0;
  }

 protected:
  const CostModel* fallback() const { return fallback_.get(); }

 private:
  std::unique_ptr<CostModel> fallback_;
};

}  // namespace trainsim
