// `trainsim-calibrate validate --gpus N`: the scenario's whole pipeline (replica 0) run for real,
// one GPU per pipeline rank, and set beside trainsim's prediction from the same profile.
//
// Each GPU has a host thread that issues, in schedule order, its rank's computes (replay.h) on
// one stream, and its transfers as NCCL send/recv on one stream per channel, each channel a
// two-rank communicator (pipeline_plan.h): a send waits (CUDA event) for the compute producing
// it, a compute for the receives it consumes, as trainsim simulates them. A one-element
// all-reduce over all GPUs starts the step together. What is compared, per rank and in all: the
// time from that start to the end of each rank's last compute, and each rank's compute time;
// the DP gradient reduction and the optimizer step, which follow, are not replayed.
#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <deque>
#include <exception>
#include <iostream>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "commands.h"
#include "core/error.h"
#include "device_info.h"
#include "gemm_bench.h"
#include "lower/task_types.h"
#include "pipeline_plan.h"
#include "replay.h"
#include "run/simulate.h"

namespace trainsim {
namespace {

// The ops of a replay step on the stages the cost model knows: model stages (DualPipe's second
// pipeline runs copies of the first's).
std::vector<std::pair<Op, int>> ops_of(const Schedule& s, const ReplayStep& step) {
  std::vector<std::pair<Op, int>> ops;
  for (const Action& a : step.compute) ops.emplace_back(a.op, s.model_stage(a.stage));
  return ops;
}

// One GPU's part: everything on `device` for pipeline rank `r`.
struct RankRun {
  int r = 0, device = 0;
  ncclComm_t world = nullptr;
  bool arrived = false;  // at the common start
  RankTimes measured;
};

}  // namespace

PipelineValidation measure_pipeline(const ValidateArgs& a) {
  const Scenario s = load_validate_scenario(a);
  const int n = a.gpus;
  if (n != s.layout.pp)
    throw InputError(fmt::format(
        "--gpus {}: the scenario's pipeline has parallelism.pp = {} ranks and a pipeline replay "
        "runs one GPU per rank (use --gpus {}, or --gpus 1 --stage R for one stage)",
        n, s.layout.pp, s.layout.pp));
  if (s.layout.tp != 1)
    throw InputError(fmt::format(
        "--gpus {}: a pipeline replay runs tp = 1 (one GPU per stage, no TP collectives); the "
        "scenario has parallelism.tp = {} (use --gpus 1 --stage R to replay one TP shard's "
        "kernels)",
        n, s.layout.tp));
  const int count = gpu::require_devices(
      n, fmt::format("a pipeline of {} ranks replays on {} GPUs; --gpus 1 --stage R replays one "
                     "stage on one GPU",
                     n, n));
  if (a.device < 0 || a.device + n > count)
    throw InputError(
        fmt::format("--device {}: GPUs {} to {} do not all exist (this machine has "
                    "GPUs 0 to {})",
                    a.device, a.device, a.device + n - 1, count - 1));

  const Timeline tl = simulate(s);
  const PipelineReplay plan = plan_pipeline_replay(tl.schedule);
  if (const std::string why = find_replay_deadlock(plan); !why.empty())
    throw InputError(fmt::format("{}: schedule {} cannot be replayed on GPUs: {}", a.scenario,
                                 tl.schedule.name, why));
  const std::vector<RankTimes> predicted = predict_pipeline(tl);
  const AnalyticCostModel model(s);
  const bool fp16 = gemm_dtype(s) == "fp16";
  // Messages are bf16 activations (or their gradients) of one micro-batch.
  const auto elems = static_cast<std::size_t>(model.activation_bytes() / 2);
  TRAINSIM_CHECK(elems > 0, "a model scenario has activations");

  // Communicators: one over all GPUs (the common start), one per channel (rank 0 = sender).
  std::vector<int> devs;
  for (int r = 0; r < n; ++r) devs.push_back(a.device + r);
  std::vector<ncclComm_t> world(static_cast<std::size_t>(n));
  TRAINSIM_GPU(ncclCommInitAll(world.data(), n, devs.data()));
  std::vector<std::array<ncclComm_t, 2>> channel_comms(plan.channels.size());
  for (std::size_t c = 0; c < plan.channels.size(); ++c) {
    const int pair[2] = {devs[static_cast<std::size_t>(plan.channels[c].from)],
                         devs[static_cast<std::size_t>(plan.channels[c].to)]};
    TRAINSIM_GPU(ncclCommInitAll(channel_comms[c].data(), 2, pair));
  }

  std::cerr << fmt::format(
      "validate: {} on {} GPUs ({}), {} channels; choosing GEMM algorithms, then one step "
      "(trainsim predicts {:.1f} ms to the last compute)\n",
      tl.schedule.name, n, provenance_of(a.device).device, plan.channels.size(), [&] {
        double end = 0;
        for (const RankTimes& p : predicted) end = std::max(end, p.last_end);
        return end * 1e3;
      }());

  std::vector<RankRun> runs(static_cast<std::size_t>(n));
  std::barrier sync(n);
  std::atomic<bool> failed{false};
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
  auto body = [&](RankRun& run) {
    const auto& steps = plan.ranks[static_cast<std::size_t>(run.r)];
    TRAINSIM_GPU(cudaSetDevice(run.device));
    std::vector<std::vector<Kernel>> kernels;
    for (const ReplayStep& step : steps)
      kernels.push_back(kernels_of(model, ops_of(tl.schedule, step)));
    const ReplayNeeds needs = replay_needs(kernels);
    GemmBench bench(run.device, fp16, needs.pools);
    for (const PlannedGemm& sh : needs.shapes) bench.time(sh.m, sh.n, sh.k, 3);
    const cudaStream_t compute = bench.stream();

    // This rank's end of each channel: a stream, a message buffer, its communicator.
    struct End {
      cudaStream_t stream = nullptr;
      gpu::DeviceBuffer buffer;
      ncclComm_t comm = nullptr;
      bool send = false;
      std::size_t issued = 0;  // receives issued so far
      std::deque<gpu::Event> received;
      End() = default;
      End(const End&) = delete;
      End& operator=(const End&) = delete;
      ~End() {
        if (stream) cudaStreamDestroy(stream);
      }
    };
    std::map<int, End> ends;
    for (std::size_t c = 0; c < plan.channels.size(); ++c) {
      const Channel& ch = plan.channels[c];
      if (ch.from != run.r && ch.to != run.r) continue;
      End& e = ends[static_cast<int>(c)];
      TRAINSIM_GPU(cudaStreamCreateWithFlags(&e.stream, cudaStreamNonBlocking));
      e.buffer = gpu::DeviceBuffer(2 * elems);
      e.send = ch.from == run.r;
      e.comm = channel_comms[c][e.send ? 0 : 1];
    }
    auto receive_up_to = [&](int c, std::size_t index) {
      End& e = ends.at(c);
      for (; e.issued <= index; ++e.issued) {
        TRAINSIM_GPU(ncclRecv(e.buffer.get(), elems, ncclBfloat16, 0, e.comm, e.stream));
        e.received.emplace_back().record(e.stream);
      }
    };
    // Warm-up: every channel connected (one element each way, as one group), the first
    // compute's kernels run once.
    TRAINSIM_GPU(ncclGroupStart());
    for (auto& [c, e] : ends)
      TRAINSIM_GPU(e.send ? ncclSend(e.buffer.get(), 1, ncclBfloat16, 1, e.comm, e.stream)
                          : ncclRecv(e.buffer.get(), 1, ncclBfloat16, 0, e.comm, e.stream));
    TRAINSIM_GPU(ncclGroupEnd());
    if (!kernels.empty()) run_kernels(bench, kernels.front());
    TRAINSIM_GPU(cudaDeviceSynchronize());
    gpu::DeviceBuffer flag(sizeof(float));
    std::deque<gpu::Event> begin, end;
    gpu::Event start;
    run.arrived = true;
    sync.arrive_and_wait();
    if (failed) return;

    // The step: a common start, then this rank's computes and transfers in order.
    TRAINSIM_GPU(ncclAllReduce(flag.get(), flag.get(), 1, ncclFloat, ncclSum, run.world, compute));
    start.record(compute);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const ReplayStep& step = steps[i];
      for (const MessageRef& m : step.receives) {
        receive_up_to(m.channel, static_cast<std::size_t>(m.index));
        TRAINSIM_GPU(cudaStreamWaitEvent(
            compute, ends.at(m.channel).received[static_cast<std::size_t>(m.index)].get()));
      }
      begin.emplace_back().record(compute);
      run_kernels(bench, kernels[i]);
      end.emplace_back().record(compute);
      for (const MessageRef& m : step.sends) {
        End& e = ends.at(m.channel);
        TRAINSIM_GPU(cudaStreamWaitEvent(e.stream, end.back().get()));
        TRAINSIM_GPU(ncclSend(e.buffer.get(), elems, ncclBfloat16, 1, e.comm, e.stream));
      }
    }
    for (auto& [c, e] : ends)
      if (!e.send) {
        const std::size_t total = plan.channels[static_cast<std::size_t>(c)].messages.size();
        if (total > 0) receive_up_to(c, total - 1);
      }
    TRAINSIM_GPU(cudaDeviceSynchronize());
    for (std::size_t i = 0; i < steps.size(); ++i) {
      run.measured.compute += end[i].since(begin[i]);
      run.measured.last_end = std::max(run.measured.last_end, end[i].since(start));
    }
  };
  {
    std::vector<std::jthread> threads;
    for (int r = 0; r < n; ++r) {
      RankRun& run = runs[static_cast<std::size_t>(r)];
      run.r = r;
      run.device = devs[static_cast<std::size_t>(r)];
      run.world = world[static_cast<std::size_t>(r)];
      threads.emplace_back([&, r] {
        try {
          body(runs[static_cast<std::size_t>(r)]);
        } catch (...) {
          errors[static_cast<std::size_t>(r)] = std::current_exception();
          failed = true;
          // The others must not wait at the start for this rank. (One that fails after the
          // start leaves its peers waiting in NCCL, as any NCCL program would.)
          if (!runs[static_cast<std::size_t>(r)].arrived) sync.arrive_and_drop();
        }
      });
    }
  }
  for (auto& c : channel_comms)
    for (ncclComm_t comm : c) ncclCommDestroy(comm);
  for (ncclComm_t comm : world) ncclCommDestroy(comm);
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);

  PipelineValidation out{tl.schedule.name, s.microbatches(), predicted, {}, tl.cost_sources};
  for (const RankRun& run : runs) out.measured.push_back(run.measured);
  return out;
}

int validate_pipeline(const ValidateArgs& a) {
  const PipelineValidation v = measure_pipeline(a);
  const int n = static_cast<int>(v.measured.size());
  std::cout << fmt::format("pipeline of {} GPUs ({}, {} micro-batches), profile {}\n", n,
                           v.schedule, v.microbatches, a.profile);
  std::cout << fmt::format("  {:<5} {:>13} {:>13} {:>8}   {:>13} {:>13} {:>8}\n", "rank", "compute",
                           "predicted", "error", "last end", "predicted", "error");
  double measured_end = 0, predicted_end = 0;
  for (int r = 0; r < n; ++r) {
    const RankTimes& m = v.measured[static_cast<std::size_t>(r)];
    const RankTimes& p = v.predicted[static_cast<std::size_t>(r)];
    measured_end = std::max(measured_end, m.last_end);
    predicted_end = std::max(predicted_end, p.last_end);
    std::cout << fmt::format(
        "  {:<5} {:>10.3f} ms {:>10.3f} ms {:>+7.1f}%   {:>10.3f} ms {:>10.3f} ms {:>+7.1f}%\n", r,
        m.compute * 1e3, p.compute * 1e3, percent_error(p.compute, m.compute), m.last_end * 1e3,
        p.last_end * 1e3, percent_error(p.last_end, m.last_end));
  }
  std::cout << fmt::format(
      "  pipeline (start to last compute): measured {:.3f} ms, predicted "
      "{:.3f} ms, error {:+.1f}%\n",
      measured_end * 1e3, predicted_end * 1e3, percent_error(predicted_end, measured_end));
  std::cout << fmt::format("durations: {}\n", v.cost_sources);
  return 0;
}

}  // namespace trainsim
