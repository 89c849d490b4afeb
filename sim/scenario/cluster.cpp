#include "scenario/cluster.h"

#include <array>

namespace trainsim {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;
constexpr double kGB = 1e9;
constexpr double kUs = 1e-6;

// Per-hop latencies: NCCL's own tuning model (src/graph/tuning.cc, hwLat, Ring/Simple protocol,
// the one large training messages use): NVLink 3.4 us, network 14 us.
constexpr double kNvlinkHopLatency = 3.4 * kUs;
constexpr double kNetHopLatency = 14.0 * kUs;
// InfiniBand NDR 400 Gb/s: ≈ 47 GB/s measured busbw per NIC (nccl-tests all_reduce_perf on NDR
// clusters), i.e. 0.94 of the 50 GB/s line rate; HDR 200 Gb/s systems (DGX A100) take the same
// fraction of 25 GB/s.
constexpr double kNdrBusBw = 47 * kGB;
// NCCL send/receive between nodes, one GPU pair per NIC, NCCL's defaults: 24.9 GB/s each way at
// 1–16 GiB, 24.6 at 64 MiB (nccl-tests sendrecv_perf over 10 nodes of H100 with one GPU each,
// NCCL 2.29.2: xxrjun/nccl-tests-cluster, example-cluster01 multi-node nccl_N10_G1.log), half the
// NIC a ring reaches on the same machines (48.9 GB/s): NCCL gives one peer few channels and 128 KiB
// network chunks (NVIDIA/nccl#1272: 24.2 GB/s on Slingshot; #1496: a larger
// NCCL_P2P_NET_CHUNKSIZE reached 40+ GB/s).
constexpr double kNdrP2p = 24.9 * kGB;
constexpr double kHdrBusBw = 0.94 * 25 * kGB;
// Host link (PCIe 5.0 x16 on H100/H200 boards, 64 GB/s line rate each way): pinned copies
// measured here at 55 GB/s each way on an H100 SXM machine, 4 GiB, one direction at a time
// (calibrate/reference/h100-sxm-host-offload.json; 42 GB/s each when both run at once). A100
// boards have PCIe 4.0 x16, half the line rate: half of it.
constexpr double kPcie5Copy = 55 * kGB;

// Device columns: vendor datasheets (NVIDIA A100, H100, H200). Intra-node busbw: nccl-tests ring
// all-reduce on 8 GPUs in nccl-tests' busbw convention (H100 ≈ 370 GB/s, A100 ≈ 230–240 GB/s). H100
// PCIe has no NVSwitch: PCIe 5.0 x16 line rate 64 GB/s per direction (no measured busbw at hand;
// calibrate to refine).
//
// B200 (HGX / DGX B200, 1,000 W): NVIDIA's Blackwell datasheet (the HGX B200 column: 2.25
// PFLOP/s dense FP16/BF16 and 4.5 FP8 a GPU, half the sparse figures; 7.7 TB/s of HBM3e a GPU,
// 62 TB/s for eight), the memory CUDA gives a program (below; 180 GiB in NVIDIA's aiconfigurator
// system file, aic-core/src/aiconfigurator_core/systems/b200_sxm.yaml at commit 095f58a5), 148
// SMs (what CUDA reports on a B200). NVLink 5 with NVSwitch: the same nccl-tests sweep that gives
// H100's collectives (cost/data/nccl_b200_sxm.inc against nccl_h100_sxm.inc, 8 GPUs, 512 MiB) puts
// B200's all-gather and reduce-scatter at 617 and 613 GB/s busbw against H100's 335 and 336
// (× 1.84): H100's 370 × 1.84 = 680. Between nodes DGX B200 has the same eight ConnectX-7
// 400 Gb/s NICs (NDR InfiniBand) as DGX H100, and a PCIe 5.0 x16 host link.
constexpr double kB200NvlinkBusBw = 370 * kGB * (617.0 / 335.0);
//
// GB200 (one Blackwell GPU of a GB200 NVL72 rack, up to 1,200 W): NVIDIA's GB200 NVL72 datasheet
// (72 GPUs: 180 PFLOP/s dense FP16/BF16 and 360 FP8, 576 TB/s of HBM3e, i.e. 2.5 PFLOP/s, 5 and
// 8 TB/s a GPU), the memory CUDA gives a program (below; nvidia-smi's total 189,471 MiB in MLPerf
// Training v5.1's system description NVIDIA/systems/tyche_ngpu512_ngc25.09_nemo.json,
// "accelerator_memory_capacity", and aiconfigurator's systems/gb200.yaml), 148 SMs as B200. Its
// NVLink 5 is B200's (1.8 TB/s a GPU through NVSwitch) but spans the rack: a trainsim "node" of
// this preset is the NVLink domain a job uses (cluster.gpus_per_node: up to 72; MLPerf's 512-GPU
// Llama 3.1 8B jobs take 8 racks of 64, Slurm's SEGMENT=16 compute trays). Inside it B200's busbw
// (the two GPUs' nccl-tests rows agree: cost/collective_curve.cpp), between domains one ConnectX-7
// 400 Gb/s NIC a GPU (the system description: 4 a 4-GPU tray), NDR InfiniBand as above. The host
// link is NVLink-C2C: 900 GB/s between a Grace CPU and its two GPUs (the datasheet's per-superchip
// figure, both directions), 225 GB/s each way a GPU when both copy, at the share of line rate the
// PCIe copies measured here reach (55 of 64): 193 GB/s, not measured.
constexpr double kGb200C2cCopy = 225 * kGB * (55.0 / 64.0);
//
// GB300 (one Blackwell Ultra GPU of a GB300 NVL72 rack, up to 1,400 W): NVIDIA's GB300 NVL72
// datasheet (72 GPUs: 180 PFLOP/s dense FP16/BF16, 360 FP8, 576 TB/s of HBM3e: 2.5, 5 and 8 TB/s a
// GPU), the memory CUDA gives a program (below; nvidia-smi's total 284,208 MiB in MLPerf Training
// v5.1's NVIDIA/systems/theia_ngpu72_ngc25.09_nemo.json and aiconfigurator's systems/gb300.yaml),
// 160 SMs
// (NVIDIA's Blackwell Ultra description of the full GPU; how many a GB300 enables is not
// published, B200 enabling 148 of its full chip's 160: 148 moves the suite's GB300 cases 0.1–0.6
// points), compute capability 10.3 (aiconfigurator's sm_version 103). NVLink 5 across the rack as
// GB200's (the database's GB300 nccl-tests rows, 2 and 4 GPUs, lie within 0.94–1.03 of B200's
// from 16 MiB up). Between racks one ConnectX-8 XDR 800 Gb/s NIC a GPU (the system description:
// 4 a tray): 0.94 of its 100 GB/s line rate as NDR's 47 of 50, estimated, not measured; a pair's
// send/receive as NDR's 24.9 GB/s, which NCCL's per-peer channels and chunks set, not the NIC.
// Host link as GB200's.
constexpr double kXdrBusBw = 0.94 * 100 * kGB;
//
// B300 (HGX B300, eight Blackwell Ultra GPUs a node, up to 1,100 W): NVIDIA's Blackwell Ultra
// datasheet as aiconfigurator's system file cites it (aic-core/src/aiconfigurator_core/systems/
// b300_sxm.yaml at commit 095f58a5: 2.25 PFLOP/s dense FP16/BF16 and 4.5 FP8 a GPU, half the
// sparse figures), 8 TB/s of HBM3e a GPU (NVIDIA's HGX B300 specification: up to 64 TB/s for
// eight; the system file's 62 is HGX B200's), 160 SMs as GB300 (the same chip), the
// memory CUDA gives a program (below), compute capability 10.3 (the file's sm_version 103). NVLink
// 5 with NVSwitch as B200's (the database's B300 nccl-tests rows, data/b300_sxm/comm/nccl/2.29.2,
// 2, 4 and 8 GPUs, lie within 0.89–1.00 of B200's from 16 MiB to 512 MiB, all four operations:
// cost/collective_curve.cpp). Between nodes one ConnectX-8 800 Gb/s NIC a GPU (the file's
// inter_node_bw, 100 GB/s each way), taken as GB300's XDR InfiniBand (estimated); host link PCIe
// 5.0 x16 as B200's (the x86 hosts' root ports; the GPU's own is PCIe 6.0).
//
// Device memory: what CUDA gives a program (cudaMemGetInfo's total, the "total capacity" in
// PyTorch's out-of-memory message), not the datasheet's size nor nvidia-smi's total, which
// count the memory the driver reserves (nvidia-smi -q's "Reserved": 454 MiB on an H100 with
// driver 565, 763 MiB on an A100 80GB with 555; thamada/nvidia-smi's captures). It varies a
// little with the driver; the usual figure:
// - A100 SXM4 80GB 79.25 GiB (vllm-project/vllm issue #16827; deviceQuery 85,100,068,864 B);
// - H100 80GB HBM3 85,017,493,504 B = 79.18 GiB, measured on the GPU lent to this project
//   (torch.cuda.get_device_properties(0).total_memory, CUDA 13.0: calibrate/reference/
//   h100-sxm-*.json, memory_bytes); 79.11 GiB elsewhere (vllm-project/vllm issues #12756,
//   #27508), 79.21 with driver 565; the PCIe card's 81,559 MiB nvidia-smi total is the SXM's;
// - H200 150,109,880,320 B = 139.80 GiB, measured so on the lent H200 (calibrate/reference/
//   h200-*.json), as stas00/ml-engineering's debug/pytorch.md prints it;
// - B200 178.35 GiB (the same page; nvidia-smi's 183,359 MiB less 728 reserved);
// - GB200 184.31 GiB (vllm-project/vllm issue #43951, 4 × GB200);
// - GB300 276.50 GiB (NVIDIA-NeMo/Megatron-Bridge issue #2221, GB300 NVL72);
// - B300 267.88 GiB, estimated: nvidia-smi's 275,040 MiB (aiconfigurator's systems/b300_sxm.yaml)
//   less the 728 MiB the driver reserves on a B200, none measured.
// The memory report's runtime overhead (memory.runtime_overhead: the CUDA context and library
// workspaces) comes out of this total, the caching allocator's fragmentation after it.
constexpr double kA100Memory = 79.25 * kGiB;
constexpr double kH100Memory = 85017493504.0;
constexpr double kH200Memory = 150109880320.0;
constexpr double kB200Memory = 178.35 * kGiB;
constexpr double kGb200Memory = 184.31 * kGiB;
constexpr double kGb300Memory = 276.50 * kGiB;
constexpr double kB300Memory = (275040.0 - 728.0) * kMiB;
const std::array<GpuPreset, 8> kPresets{{
    {{"a100-sxm-80gb", "a100-sxm-80gb", 312e12, 2.039e12, kA100Memory, 108},
     {235 * kGB, kNvlinkHopLatency},
     {kHdrBusBw, kNetHopLatency},
     "NVIDIA A100 datasheet; nccl-tests 8xA100 ring busbw; HDR InfiniBand",
     false,
     kPcie5Copy / 2,
     false,
     80},
    {{"h100-sxm", "h100-sxm", 989e12, 3.35e12, kH100Memory, 132},
     {370 * kGB, kNvlinkHopLatency},
     {kNdrBusBw, kNetHopLatency, kNdrP2p},
     "NVIDIA H100 datasheet; nccl-tests 8xH100 ring busbw; NDR InfiniBand",
     true,
     kPcie5Copy,
     false,
     90},
    {{"h100-pcie", "h100-pcie", 756e12, 2.0e12, kH100Memory, 114},
     {64 * kGB, kNvlinkHopLatency},
     {kNdrBusBw, kNetHopLatency, kNdrP2p},
     "NVIDIA H100 PCIe datasheet; PCIe 5.0 x16 line rate; NDR InfiniBand",
     true,
     kPcie5Copy,
     false,
     90},
    {{"h200", "h200", 989e12, 4.8e12, kH200Memory, 132},
     {370 * kGB, kNvlinkHopLatency},
     {kNdrBusBw, kNetHopLatency, kNdrP2p},
     "NVIDIA H200 datasheet; NVLink 4 as H100; NDR InfiniBand",
     true,
     kPcie5Copy,
     false,
     90},
    {{"b200", "b200", 2.25e15, 7.7e12, kB200Memory, 148},
     {kB200NvlinkBusBw, kNvlinkHopLatency},
     {kNdrBusBw, kNetHopLatency, kNdrP2p},
     "NVIDIA Blackwell datasheet (HGX B200); NVLink 5 at the measured sweep's ratio to H100; NDR "
     "InfiniBand",
     true,
     kPcie5Copy,
     true,
     100},
    {{"b300", "b300", 2.25e15, 8.0e12, kB300Memory, 160},
     {kB200NvlinkBusBw, kNvlinkHopLatency},
     {kXdrBusBw, kNetHopLatency, kNdrP2p},
     "NVIDIA Blackwell Ultra datasheet (HGX B300); NVLink 5 as B200; XDR InfiniBand (ConnectX-8), "
     "scaled from NDR (estimated)",
     true,
     kPcie5Copy,
     true,
     103},
    {{"gb200", "gb200", 2.5e15, 8.0e12, kGb200Memory, 148},
     {kB200NvlinkBusBw, kNvlinkHopLatency},
     {kNdrBusBw, kNetHopLatency, kNdrP2p},
     "NVIDIA GB200 NVL72 datasheet (a GPU's share); NVLink 5 as B200 across the rack's NVLink "
     "domain; NDR InfiniBand between domains; NVLink-C2C host link (estimated)",
     true,
     kGb200C2cCopy,
     true,
     100,
     72,
     HostCpu::Grace},
    {{"gb300", "gb300", 2.5e15, 8.0e12, kGb300Memory, 160},
     {kB200NvlinkBusBw, kNvlinkHopLatency},
     {kXdrBusBw, kNetHopLatency, kNdrP2p},
     "NVIDIA GB300 NVL72 datasheet (a GPU's share); NVLink 5 as B200 across the rack's NVLink "
     "domain; XDR InfiniBand (ConnectX-8) between domains, scaled from NDR (estimated); "
     "NVLink-C2C host link (estimated)",
     true,
     kGb200C2cCopy,
     true,
     103,
     72,
     HostCpu::Grace},
}};

}  // namespace

HostCpu ClusterSpec::host() const {
  if (host_cpu != HostCpu::Preset) return host_cpu;
  const GpuPreset* p = find_gpu_preset(gpu.preset);
  return p ? p->host_cpu : HostCpu::X86;
}

const GpuPreset* find_gpu_preset(const std::string& name) {
  for (const auto& p : kPresets)
    if (p.device.name == name) return &p;
  return nullptr;
}

std::vector<std::string> gpu_preset_names() {
  std::vector<std::string> names;
  for (const auto& p : kPresets) names.push_back(p.device.name);
  return names;
}

}  // namespace trainsim
