#pragma once
// The meaning of the opaque `type` codes lowering writes into Work and StreamInfo. Reports,
// traces and the GUI read them through these helpers; the engine never does.
#include <cstdint>  // std::uint8_t

namespace trainsim {

/// A compute action may be divided into pieces (Work::part of Work::parts) — at DP bucket
/// boundaries of a stage's last backward, and at FSDP unit boundaries when parameters are
/// gathered before use. Every piece keeps the action's type: a forward's activations exist from
/// the start of its piece 0, a backward's are freed at the end of its last piece.
enum class TaskType : std::uint8_t {
  Forward,
  Backward,         ///< fused input + weight gradient
  BackwardInput,    ///< I: input gradient
  BackwardWeight,   ///< W: weight gradient
  ForwardBackward,  ///< DualPipe's F&B: a forward overlapped with another chunk's fused backward
  Optimizer,
  SendActivation,
  RecvActivation,
  SendGradient,
  RecvGradient,
  TpCollective,
  /// Expert parallelism's token all-to-alls (dispatch and combine) of a part's MoE layers.
  EpCollective,
  /// Context parallelism's key/value exchange (ring blocks or all-gather, and their gradients)
  /// of a part's layers.
  CpCollective,
  DpCollective,
  /// A parameter all-gather over the DP group before a unit's compute (ZeRO-3 / FSDP, or
  /// ZeRO-1/2's gather of updated parameters overlapped with the next forward).
  ParamGather,
  /// ZeRO-Offload: a gradient shard to the host, or updated weights back, over the host link.
  HostTransfer,
  /// ZeRO-Offload: the host CPU's optimizer step on this GPU's shard.
  HostOptimizer,
  /// Activation offload: a forward's saved activations to host memory, after the forward.
  ActivationOffload,
  /// Activation offload: those activations back to the GPU, before the backward needs them.
  ActivationReload,
  /// The CPU issuing one compute task's kernels (efficiency.host_per_kernel), before the task
  /// can start: CPU time, not GPU time.
  Launch,
};

enum class StreamType : std::uint8_t {
  Compute,
  Send,
  Recv,
  DataParallel,
  Gather,
  TensorParallel,
  ExpertParallel,
  ContextParallel,
  HostLink,    ///< the GPU's copy engine to host memory (and ZeRO-Offload's both ways)
  Host,        ///< the host CPU
  HostLinkIn,  ///< the GPU's copy engine from host memory (activation reloads: PCIe is duplex)
  Launch       ///< the CPU thread issuing the GPU's kernels
};

/// What a data-parallel collective (TaskType::DpCollective) runs, in Work::detail: the gradient
/// reduction (all-reduce, or ZeRO's reduce-scatter), ZeRO-1/2's parameter all-gather after the
/// optimizer, each also over the routed experts' group, and the all-reduces between two ranks:
/// DualPipe's two copies of a stage, a pipeline's tied embedding and output layer.
enum class DpDetail : std::uint8_t {
  None,
  AllReduce,
  ReduceScatter,
  AllGather,
  ExpertAllReduce,
  ExpertReduceScatter,
  ExpertAllGather,
  PairAllReduce,
  TiedAllReduce,
};
/// "reduce-scatter", "experts' all-gather", "all-reduce of the tied embedding", … ("" for None).
const char* dp_detail_name(DpDetail d);

const char* task_type_name(TaskType t);    ///< "forward", "send-activation", …
const char* task_type_letter(TaskType t);  ///< "F", "B", "I", "W", "opt", "send", …
const char* stream_type_name(StreamType s);
/// F, B, I, W or F&B: the pipeline's own compute (what bubbles are measured against).
bool is_pipeline_compute(TaskType t);
/// Work on the compute stream: pipeline compute and the optimizer step.
bool is_compute(TaskType t);
bool is_p2p(TaskType t);
/// Transfers over the GPU's host link: ZeRO-Offload's and activation offload's.
bool is_host_transfer(TaskType t);

}  // namespace trainsim
