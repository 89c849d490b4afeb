#pragma once
// The hardware: one GPU type, nodes of G GPUs, and two link classes (inside a node, between
// nodes). Bandwidths are nccl-tests *bus* bandwidths (nccl-tests doc/PERFORMANCE.md), latencies are
// per ring hop. Does not model: topology beyond two link classes, NVSwitch SHARP, rail-optimised
// fabrics.
#include <algorithm>  // std::min
#include <optional>   // std::optional
#include <string>     // std::string
#include <vector>     // std::vector

namespace trainsim {

struct DeviceSpec {
  std::string name;
  std::string preset;        ///< the preset it started from ("" for a custom GPU)
  double peak_flops = 0;     ///< dense bf16/fp16 FLOP/s
  double hbm_bandwidth = 0;  ///< bytes/s
  double memory = 0;         ///< bytes
  int sms = 0;               ///< streaming multiprocessors (0 = unknown)
};

struct LinkSpec {
  double bandwidth = 0;  ///< achievable bus bandwidth, bytes/s
  double latency = 0;    ///< seconds per hop
  /// What one pair of GPUs moves over this link by NCCL send/receive (pipeline transfers),
  /// bytes/s, at most `bandwidth`; 0: `bandwidth`.
  double p2p_bandwidth = 0;
  /// Between nodes: the NICs a node has on this link, each of `bandwidth`; 0: one per GPU.
  int nics = 0;
  /// The send/receive bandwidth in use: p2p_bandwidth when set, within the link's.
  double p2p() const { return p2p_bandwidth > 0 ? std::min(p2p_bandwidth, bandwidth) : bandwidth; }
  /// Each GPU's share of one NIC's bandwidth when all `gpus_per_node` GPUs of a node use the
  /// link at once (their groups' collectives run together): nics / gpus_per_node (1 with one NIC
  /// per GPU, the default; 2 with two each).
  double nic_share(int gpus_per_node) const {
    return nics > 0 && gpus_per_node > 0 ? static_cast<double>(nics) / gpus_per_node : 1.0;
  }
};

enum class LinkClass { IntraNode, InterNode };

/// The network between nodes whose measured collective times scale NCCL's tuning model
/// (`cluster.network`, cost/internode_sweep.h): the GPU preset's, none (the tuning model alone),
/// or a named measurement. The order is the schema's list of names.
enum class Network { Preset, Model, InfinibandNdr, EfaP5, EfaPlaybook };

/// The host CPU that issues each GPU's kernels (`cluster.host_cpu`): the GPU preset's (Grace on
/// GB200 and GB300, an x86 server CPU on the others), or named. An eager framework's CPU time
/// per kernel and per collective depends on it (cost/constants.h kGraceHostSlowdown). The order
/// is the schema's list of names.
enum class HostCpu { Preset, X86, Grace };

struct ClusterSpec {
  DeviceSpec gpu;
  int gpus_per_node = 8;
  int nodes = 1;
  LinkSpec intra_node;
  LinkSpec inter_node;
  Network network = Network::Preset;
  HostCpu host_cpu = HostCpu::Preset;
  /// The host CPU in effect: host_cpu, or the GPU preset's when Preset (x86 without one).
  HostCpu host() const;
  /// Each GPU's link to host memory, bytes/s each way (training.offload's transfers).
  double host_link = 0;
  /// The host CPU's Adam step, parameters per second per GPU (training.offload: optimizer).
  /// Default: torch.optim.AdamW(fused=True) over 1.07 G fp32 parameters took 0.256 s on the 16
  /// cores of an H100 machine (calibrate/reference/h100-sxm-host-offload.json; foreach 1.17 s);
  /// a node with fewer cores per GPU is slower.
  double host_adam_rate = 4.2e9;
  /// Coefficient of variation of the GPUs' sustained compute speed across the cluster: a
  /// synchronous step runs at its slowest GPU's pace (cost/gpu_spread.h). Absent: the cost
  /// model's default (cost/constants.h kGpuSpeedSpread); 0: all GPUs alike.
  std::optional<double> gpu_speed_spread;

  int gpus() const { return gpus_per_node * nodes; }
  const LinkSpec& link(LinkClass c) const {
    return c == LinkClass::IntraNode ? intra_node : inter_node;
  }
};

/// A GPU preset together with the default links of the systems it ships in, or nullptr.
struct GpuPreset {
  DeviceSpec device;
  LinkSpec intra_node;
  LinkSpec inter_node;
  const char* source;  ///< where the numbers come from
  /// FP8 tensor cores (the datasheet lists FP8 Tensor Core throughput): training.precision fp8.
  bool fp8 = false;
  double host_link = 0;  ///< pinned host↔device copy bandwidth each way, bytes/s
  /// FP8 GEMMs take either operand transposed (Blackwell; Hopper's take only the TN layout):
  /// Transformer Engine then keeps no transposed FP8 copy of a tensor
  /// (transformer_engine/pytorch/utils.py, is_non_tn_fp8_gemm_supported: sm100 and later).
  bool fp8_any_layout = false;
  /// Compute capability × 10 (80 Ampere, 90 Hopper, 100 Blackwell): which fused attention
  /// kernels run on it (training.attention).
  int sm = 0;
  /// The most GPUs one node (one NVLink domain) may hold; 0: no limit. A GB200 or GB300 NVL72
  /// rack's NVLink spans its 72 GPUs.
  int max_gpus_per_node = 0;
  /// The host CPU of the systems it ships in: Grace for a Grace Blackwell superchip.
  HostCpu host_cpu = HostCpu::X86;
};
const GpuPreset* find_gpu_preset(const std::string& name);
std::vector<std::string> gpu_preset_names();

}  // namespace trainsim
