// `trainsim-calibrate collectives`: NCCL collectives over the local GPUs from one process
// (ncclCommInitAll), timed the way nccl-tests times them (doc/PERFORMANCE.md): out-of-place,
// warm-up then `iters` back-to-back runs between CUDA events on every GPU, time = the slowest
// GPU's elapsed / iters, algbw = S / time, busbw = algbw × the bus factor.
#include <algorithm>
#include <cstdio>
#include <deque>
#include <iostream>

#include <fmt/format.h>

#include "commands.h"
#include "core/error.h"
#include "core/quantity.h"
#include "cost/cost_model.h"
#include "device_info.h"
#include "gpu.h"
#include "profile_update.h"
#include "progress.h"

namespace trainsim {
namespace {

// In the order of collective_op_names().
enum class CollOp { AllReduce, AllGather, ReduceScatter, AllToAll, SendRecv };
constexpr CollOp kOps[] = {CollOp::AllReduce, CollOp::AllGather, CollOp::ReduceScatter,
                           CollOp::AllToAll, CollOp::SendRecv};

// The profile's operation names (calibration_profile.h), in CollOp's order.
const char* name(CollOp op) {
  return collective_op_names().at(static_cast<std::size_t>(op)).c_str();
}

// nccl-tests' bus factor (domain.md §4).
double bus_factor(CollOp op, int n) {
  switch (op) {
    case CollOp::AllReduce:
      return busbw_factor(Collective::AllReduce, n);
    case CollOp::AllGather:
    case CollOp::ReduceScatter:
    case CollOp::AllToAll:
      return busbw_factor(Collective::AllGather, n);
    case CollOp::SendRecv:
      return 1.0;
  }
  return 1.0;
}

struct Rank {
  int device = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  gpu::DeviceBuffer send, recv;
};

// One run of `op` with S = `bytes` (bf16 elements) on every rank, as one NCCL group.
void launch(CollOp op, std::vector<Rank>& ranks, std::size_t bytes) {
  const int n = static_cast<int>(ranks.size());
  const std::size_t elems = bytes / 2, per_rank = elems / static_cast<std::size_t>(n);
  TRAINSIM_GPU(ncclGroupStart());
  for (int r = 0; r < n; ++r) {
    Rank& k = ranks[static_cast<std::size_t>(r)];
    void* in = k.send.get();
    void* out = k.recv.get();
    switch (op) {
      case CollOp::AllReduce:
        TRAINSIM_GPU(ncclAllReduce(in, out, elems, ncclBfloat16, ncclSum, k.comm, k.stream));
        break;
      case CollOp::AllGather:  // S = the gathered size
        TRAINSIM_GPU(ncclAllGather(in, out, per_rank, ncclBfloat16, k.comm, k.stream));
        break;
      case CollOp::ReduceScatter:  // S = the input size
        TRAINSIM_GPU(ncclReduceScatter(in, out, per_rank, ncclBfloat16, ncclSum, k.comm, k.stream));
        break;
      case CollOp::AllToAll:  // S per rank, S / n to each peer
        for (int p = 0; p < n; ++p) {
          const std::size_t off = static_cast<std::size_t>(p) * per_rank * 2;
          TRAINSIM_GPU(
              ncclSend(static_cast<char*>(in) + off, per_rank, ncclBfloat16, p, k.comm, k.stream));
          TRAINSIM_GPU(
              ncclRecv(static_cast<char*>(out) + off, per_rank, ncclBfloat16, p, k.comm, k.stream));
        }
        break;
      case CollOp::SendRecv:  // a ring: S to the next rank, S from the previous
        TRAINSIM_GPU(ncclSend(in, elems, ncclBfloat16, (r + 1) % n, k.comm, k.stream));
        TRAINSIM_GPU(ncclRecv(out, elems, ncclBfloat16, (r + n - 1) % n, k.comm, k.stream));
        break;
    }
  }
  TRAINSIM_GPU(ncclGroupEnd());
}

}  // namespace

int cmd_collectives(const CollectivesArgs& a) {
  const int count = gpu::require_devices(
      2,
      "collectives need two or more GPUs (NCCL refuses two ranks on one GPU); nothing was "
      "measured. With one GPU, import nccl-tests logs from a multi-GPU machine "
      "(trainsim-calibrate import-nccl-tests) or let the α–β model stand");
  const int n = a.gpus == 0 ? count : a.gpus;
  if (n < 2 || n > count)
    throw InputError(fmt::format("--gpus {}: expected 2 to {} (the GPUs here)", a.gpus, count));
  if (a.iters < 1) throw InputError("--iters: at least 1");
  std::vector<double> sizes;
  for (double s = 1024; s <= a.max_bytes; s *= 2) sizes.push_back(s);
  if (sizes.empty()) throw InputError("--max-bytes: at least 1 KiB");

  std::vector<Rank> ranks(static_cast<std::size_t>(n));
  std::vector<int> devs(static_cast<std::size_t>(n));
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) devs[static_cast<std::size_t>(r)] = r;
  TRAINSIM_GPU(ncclCommInitAll(comms.data(), n, devs.data()));
  const auto max = static_cast<std::size_t>(sizes.back());
  for (int r = 0; r < n; ++r) {
    Rank& k = ranks[static_cast<std::size_t>(r)];
    k.device = r;
    k.comm = comms[static_cast<std::size_t>(r)];
    TRAINSIM_GPU(cudaSetDevice(r));
    TRAINSIM_GPU(cudaStreamCreate(&k.stream));
    k.send = gpu::DeviceBuffer(max);
    k.recv = gpu::DeviceBuffer(max);
    gpu::fill_random(k.send, false, static_cast<unsigned>(r + 1));
  }
  CalibrationProfile profile;
  profile.provenance = provenance_of(0);
  profile.provenance.device = fmt::format("{}× {}", n, profile.provenance.device);
  Progress progress(std::size(kOps) * sizes.size(), stderr);
  std::size_t done = 0;
  for (CollOp op : kOps)
    for (double s : sizes) {
      // nccl-tests rounds S down to a whole number of elements per rank.
      const auto bytes = static_cast<std::size_t>(s) / (2 * static_cast<std::size_t>(n)) * 2 *
                         static_cast<std::size_t>(n);
      progress.step(done++, fmt::format("{} {}", name(op), format_bytes(s)));
      if (bytes == 0) continue;
      const int warmup = 5;
      for (int i = 0; i < warmup; ++i) launch(op, ranks, bytes);
      // An event belongs to the device current when it is created: one pair per GPU, made
      // there (a deque, since events do not move).
      std::deque<gpu::Event> start, stop;
      for (std::size_t r = 0; r < ranks.size(); ++r) {
        TRAINSIM_GPU(cudaSetDevice(ranks[r].device));
        start.emplace_back().record(ranks[r].stream);
        stop.emplace_back();
      }
      for (int i = 0; i < a.iters; ++i) launch(op, ranks, bytes);
      double slowest = 0;
      for (std::size_t r = 0; r < ranks.size(); ++r) {
        TRAINSIM_GPU(cudaSetDevice(ranks[r].device));
        stop[r].record(ranks[r].stream);
      }
      for (std::size_t r = 0; r < ranks.size(); ++r)
        slowest = std::max(slowest, stop[r].since(start[r]));
      const double t = slowest / a.iters;
      const double algbw = static_cast<double>(bytes) / t;
      profile.collectives.push_back({name(op), n, "intra_node", static_cast<double>(bytes), t,
                                     algbw, algbw * bus_factor(op, n), "measured",
                                     fmt::format("trainsim-calibrate collectives, {} GPUs", n)});
    }
  progress.finish();
  for (Rank& k : ranks) {
    cudaSetDevice(k.device);
    ncclCommDestroy(k.comm);
    cudaStreamDestroy(k.stream);
  }
  update_profile(a.out, profile, ProfileSection::Collectives);
  std::cout << fmt::format("{}: {} samples → {}\n", profile.provenance.device,
                           profile.collectives.size(), a.out);
  std::cout << fmt::format("  {:<16} {:>12} {:>12}\n", "op", "busbw @ max", "time @ 1 KiB");
  for (CollOp op : kOps) {
    double bw = 0, small = 0;
    for (const auto& c : profile.collectives)
      if (c.op == name(op)) {
        if (small == 0) small = c.time_s;
        bw = std::max(bw, c.busbw);
      }
    std::cout << fmt::format("  {:<16} {:>9.1f} GB/s {:>9.1f} µs\n", name(op), bw / 1e9,
                             small * 1e6);
  }
  return 0;
}

}  // namespace trainsim
