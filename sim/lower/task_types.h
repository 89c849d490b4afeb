#pragma once
// The meaning of the opaque `type` codes lowering writes into Work and StreamInfo. Reports,
// traces and the GUI read them through these helpers; the engine never does.
#include <cstdint>  // std::uint8_t

namespace trainsim {

enum class TaskType : std::uint8_t {
  Forward,
  Backward,         ///< fused input + weight gradient
  BackwardInput,    ///< I: input gradient
  BackwardWeight,   ///< W: weight gradient
  ForwardBackward,  ///< DualPipe's F&B: a forward overlapped with another chunk's fused backward
  /// A leading part of a stage's last gradient-producing backward (B or W), cut where a DP
  /// bucket's gradients are complete; the last part keeps the action's own type.
  BackwardPart,
  Optimizer,
  SendActivation,
  RecvActivation,
  SendGradient,
  RecvGradient,
  TpCollective,
  DpCollective,
};

enum class StreamType : std::uint8_t { Compute, Send, Recv, DataParallel };

const char* task_type_name(TaskType t);    ///< "forward", "send-activation", …
const char* task_type_letter(TaskType t);  ///< "F", "B", "I", "W", "opt", "send", …
const char* stream_type_name(StreamType s);
/// F, B, I, W or F&B: the pipeline's own compute (what bubbles are measured against).
bool is_pipeline_compute(TaskType t);
/// Work on the compute stream: pipeline compute and the optimizer step.
bool is_compute(TaskType t);
bool is_p2p(TaskType t);

}  // namespace trainsim
