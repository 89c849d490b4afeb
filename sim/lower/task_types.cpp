#include "lower/task_types.h"

namespace trainsim {

const char* task_type_name(TaskType t) {
  switch (t) {
    case TaskType::Forward:
      return "forward";
    case TaskType::Backward:
      return "backward";
    case TaskType::BackwardInput:
      return "backward-input";
    case TaskType::BackwardWeight:
      return "backward-weight";
    case TaskType::ForwardBackward:
      return "forward+backward";
    case TaskType::Optimizer:
      return "optimizer";
    case TaskType::SendActivation:
      return "send-activation";
    case TaskType::RecvActivation:
      return "recv-activation";
    case TaskType::SendGradient:
      return "send-gradient";
    case TaskType::RecvGradient:
      return "recv-gradient";
    case TaskType::TpCollective:
      return "tp-collective";
    case TaskType::EpCollective:
      return "ep-all-to-all";
    case TaskType::CpCollective:
      return "cp-kv-exchange";
    case TaskType::DpCollective:
      return "dp-collective";
    case TaskType::ParamGather:
      return "param-gather";
    case TaskType::HostTransfer:
      return "host-transfer";
    case TaskType::HostOptimizer:
      return "host-optimizer";
    case TaskType::ActivationOffload:
      return "activation-offload";
    case TaskType::ActivationReload:
      return "activation-reload";
    case TaskType::Launch:
      return "launch";
  }
  return "?";
}

const char* task_type_letter(TaskType t) {
  switch (t) {
    case TaskType::Forward:
      return "F";
    case TaskType::Backward:
      return "B";
    case TaskType::BackwardInput:
      return "I";
    case TaskType::BackwardWeight:
      return "W";
    case TaskType::ForwardBackward:
      return "X";
    case TaskType::Optimizer:
      return "opt";
    case TaskType::SendActivation:
    case TaskType::SendGradient:
      return "send";
    case TaskType::RecvActivation:
    case TaskType::RecvGradient:
      return "recv";
    case TaskType::TpCollective:
      return "tp";
    case TaskType::EpCollective:
      return "ep";
    case TaskType::CpCollective:
      return "cp";
    case TaskType::DpCollective:
      return "dp";
    case TaskType::ParamGather:
      return "ag";
    case TaskType::HostTransfer:
      return "pcie";
    case TaskType::HostOptimizer:
      return "cpu-opt";
    case TaskType::ActivationOffload:
      return "d2h";
    case TaskType::ActivationReload:
      return "h2d";
    case TaskType::Launch:
      return "cpu";
  }
  return "?";
}

const char* dp_detail_name(DpDetail d) {
  switch (d) {
    case DpDetail::None:
      return "";
    case DpDetail::AllReduce:
      return "all-reduce";
    case DpDetail::ReduceScatter:
      return "reduce-scatter";
    case DpDetail::AllGather:
      return "all-gather";
    case DpDetail::ExpertAllReduce:
      return "experts' all-reduce";
    case DpDetail::ExpertReduceScatter:
      return "experts' reduce-scatter";
    case DpDetail::ExpertAllGather:
      return "experts' all-gather";
    case DpDetail::PairAllReduce:
      return "all-reduce with the stage's other copy";
    case DpDetail::TiedAllReduce:
      return "all-reduce of the tied embedding";
  }
  return "";
}

const char* stream_type_name(StreamType s) {
  switch (s) {
    case StreamType::Compute:
      return "compute";
    case StreamType::Send:
      return "send";
    case StreamType::Recv:
      return "recv";
    case StreamType::DataParallel:
      return "dp-comm";
    case StreamType::Gather:
      return "param-gather";
    case StreamType::TensorParallel:
      return "tp-comm";
    case StreamType::ExpertParallel:
      return "ep-comm";
    case StreamType::ContextParallel:
      return "cp-comm";
    case StreamType::HostLink:
      return "host-link";
    case StreamType::Host:
      return "host-cpu";
    case StreamType::HostLinkIn:
      return "host-link-in";
    case StreamType::Launch:
      return "launch";
  }
  return "?";
}

bool is_pipeline_compute(TaskType t) {
  return t == TaskType::Forward || t == TaskType::Backward || t == TaskType::BackwardInput ||
         t == TaskType::BackwardWeight || t == TaskType::ForwardBackward;
}

bool is_compute(TaskType t) {
  return is_pipeline_compute(t) || t == TaskType::Optimizer;
}

bool is_host_transfer(TaskType t) {
  return t == TaskType::HostTransfer || t == TaskType::ActivationOffload ||
         t == TaskType::ActivationReload;
}

bool is_p2p(TaskType t) {
  return t == TaskType::SendActivation || t == TaskType::RecvActivation ||
         t == TaskType::SendGradient || t == TaskType::RecvGradient;
}

}  // namespace trainsim
