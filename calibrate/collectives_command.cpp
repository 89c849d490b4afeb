// `trainsim-calibrate collectives`: NCCL collectives over the local GPUs from one process
// (ncclCommInitAll), or under mpirun over every GPU of the job, one process each
// (ncclCommInitRank; mpi_job.h), timed the way nccl-tests times them (doc/PERFORMANCE.md):
// out-of-place, warm-up then `iters` back-to-back runs between CUDA events on every GPU,
// time = the slowest GPU's elapsed / iters, algbw = S / time, busbw = algbw × the bus factor.
#include <algorithm>
#include <cstdio>
#include <deque>
#include <iostream>

#include <fmt/format.h>

#include "commands.h"
#include "core/error.h"
#include "core/mpi_job.h"
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

// One GPU this process drives: all local GPUs in one process, or this process's under MPI.
struct Rank {
  int global = 0;  // rank in the communicator
  int device = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  gpu::DeviceBuffer send, recv;
};

// One run of `op` with S = `bytes` (bf16 elements) over the `n` ranks of the communicator, this
// process's `ranks` issuing theirs as one NCCL group.
void launch(CollOp op, std::vector<Rank>& ranks, int n, std::size_t bytes) {
  const std::size_t elems = bytes / 2, per_rank = elems / static_cast<std::size_t>(n);
  TRAINSIM_GPU(ncclGroupStart());
  for (Rank& k : ranks) {
    const int r = k.global;
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

namespace {

int measure(const CollectivesArgs& a, const mpi::World& world) {
  const bool job = world.size() > 1;
  std::vector<Rank> ranks;
  int n = 0;
  if (job) {
    // One process per GPU (nccl-tests' -g 1): this one drives its node-local GPU.
    if (a.gpus > 1)
      throw InputError(fmt::format(
          "--gpus {}: under mpirun each process drives one GPU; start one process per GPU "
          "(mpirun -np <GPUs in all>)",
          a.gpus));
    gpu::require_devices(world.local_rank() + 1,
                         fmt::format("MPI rank {} is process {} on its node and needs GPU {}",
                                     world.rank(), world.local_rank(), world.local_rank()));
    n = world.size();
    ncclUniqueId id{};
    if (world.rank() == 0) TRAINSIM_GPU(ncclGetUniqueId(&id));
    world.broadcast(&id, sizeof id);
    Rank& k = ranks.emplace_back();
    k.global = world.rank();
    k.device = world.local_rank();
    TRAINSIM_GPU(cudaSetDevice(k.device));
    TRAINSIM_GPU(ncclCommInitRank(&k.comm, n, id, world.rank()));
  } else {
    const int count = gpu::require_devices(
        2,
        "collectives need two or more GPUs (NCCL refuses two ranks on one GPU); nothing was "
        "measured. With one GPU, import nccl-tests logs from a multi-GPU machine "
        "(trainsim-calibrate import-nccl-tests) or let the α–β model stand");
    n = a.gpus == 0 ? count : a.gpus;
    if (n < 2 || n > count)
      throw InputError(fmt::format("--gpus {}: expected 2 to {} (the GPUs here)", a.gpus, count));
    std::vector<int> devs(static_cast<std::size_t>(n));
    std::vector<ncclComm_t> comms(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) devs[static_cast<std::size_t>(r)] = r;
    TRAINSIM_GPU(ncclCommInitAll(comms.data(), n, devs.data()));
    for (int r = 0; r < n; ++r) {
      Rank& k = ranks.emplace_back();
      k.global = k.device = r;
      k.comm = comms[static_cast<std::size_t>(r)];
    }
  }
  if (a.iters < 1) throw InputError("--iters: at least 1");
  std::vector<double> sizes;
  for (double s = 1024; s <= a.max_bytes; s *= 2) sizes.push_back(s);
  if (sizes.empty()) throw InputError("--max-bytes: at least 1 KiB");
  const auto max = static_cast<std::size_t>(sizes.back());
  for (Rank& k : ranks) {
    TRAINSIM_GPU(cudaSetDevice(k.device));
    TRAINSIM_GPU(cudaStreamCreate(&k.stream));
    k.send = gpu::DeviceBuffer(max);
    k.recv = gpu::DeviceBuffer(max);
    gpu::fill_random(k.send, false, static_cast<unsigned>(k.global + 1));
  }
  const bool lead = world.rank() == 0;  // prints and writes the profile
  const std::string link = world.nodes() > 1 ? "inter_node" : "intra_node";
  CalibrationProfile profile;
  profile.provenance = provenance_of(ranks.front().device);
  profile.provenance.device =
      world.nodes() > 1
          ? fmt::format("{}× {} over {} nodes", n, profile.provenance.device, world.nodes())
          : fmt::format("{}× {}", n, profile.provenance.device);
  if (lead) check_profile_target(a.out, profile.provenance.device);  // before measuring
  const std::string method =
      job ? fmt::format("trainsim-calibrate collectives, {} GPUs, {} MPI processes on {} node(s)",
                        n, n, world.nodes())
          : fmt::format("trainsim-calibrate collectives, {} GPUs", n);
  Progress progress(std::size(kOps) * sizes.size(), lead ? stderr : nullptr);
  std::size_t done = 0;
  for (CollOp op : kOps)
    for (double s : sizes) {
      // nccl-tests rounds S down to a whole number of elements per rank.
      const auto bytes = static_cast<std::size_t>(s) / (2 * static_cast<std::size_t>(n)) * 2 *
                         static_cast<std::size_t>(n);
      progress.step(done++, fmt::format("{} {}", name(op), format_bytes(s)));
      if (bytes == 0) continue;
      const int warmup = 5;
      for (int i = 0; i < warmup; ++i) launch(op, ranks, n, bytes);
      // An event belongs to the device current when it is created: one pair per GPU, made
      // there (a deque, since events do not move).
      std::deque<gpu::Event> start, stop;
      for (Rank& k : ranks) {
        TRAINSIM_GPU(cudaSetDevice(k.device));
        start.emplace_back().record(k.stream);
        stop.emplace_back();
      }
      for (int i = 0; i < a.iters; ++i) launch(op, ranks, n, bytes);
      double slowest = 0;
      for (std::size_t r = 0; r < ranks.size(); ++r) {
        TRAINSIM_GPU(cudaSetDevice(ranks[r].device));
        stop[r].record(ranks[r].stream);
      }
      for (std::size_t r = 0; r < ranks.size(); ++r)
        slowest = std::max(slowest, stop[r].since(start[r]));
      const double t = world.max(slowest) / a.iters;  // the slowest GPU of the job
      const double algbw = static_cast<double>(bytes) / t;
      profile.collectives.push_back({name(op), n, link, static_cast<double>(bytes), t, algbw,
                                     algbw * op_bus_factor(name(op), n), "measured", method});
    }
  progress.finish();
  for (Rank& k : ranks) {
    cudaSetDevice(k.device);
    ncclCommDestroy(k.comm);
    cudaStreamDestroy(k.stream);
  }
  if (!lead) return 0;
  const ProfileUpdate update = update_profile(a.out, profile, ProfileSection::Collectives);
  std::cout << fmt::format("{}: {} samples ({}) → {}{}\n", profile.provenance.device,
                           profile.collectives.size(), link, a.out, describe(update));
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

}  // namespace

int cmd_collectives(const CollectivesArgs& a) {
  const mpi::World world;
  try {
    return measure(a, world);
  } catch (const std::exception& e) {
    if (world.size() > 1) {
      // One rank's failure would leave the others waiting in NCCL: say why, end the job.
      std::cerr << fmt::format("[MPI rank {}] {}\n", world.rank(), e.what());
      world.abort_job(dynamic_cast<const InputError*>(&e) ? 2 : 1);
    }
    throw;
  }
}

}  // namespace trainsim
