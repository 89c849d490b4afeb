#include "report/chrome_trace.h"

#include <cmath>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/input_file.h"
#include "core/json_text.h"
#include "lower/task_types.h"
#include "report/memory_report.h"
#include "report/p2p_flows.h"
#include "report/representative.h"
#include "report/step_report.h"

namespace trainsim {
namespace {

// Exact decimal microseconds from integer nanoseconds ("12.345").
std::string us(TimeNs ns) {
  return fmt::format("{}.{:03}", ns / 1000, ns % 1000);
}

std::string q(const std::string& s) {
  return json_text(nlohmann::json(s));
}

}  // namespace

void write_chrome_trace(const Timeline& tl, std::ostream& out) {
  const TaskGraph& g = *tl.graph;
  const auto& ranks = tl.ranks.ranks;
  // Thread ids: each stream's position among its rank's streams (compute first).
  std::vector<int> tid(g.streams.size(), 0), next_tid(ranks.size(), 1);
  for (StreamId s = 0; s < g.streams.size(); ++s) {
    const auto owner = g.streams[s].owner;
    tid[s] =
        static_cast<StreamType>(g.streams[s].type) == StreamType::Compute ? 0 : next_tid[owner]++;
  }
  bool first = true;
  auto emit = [&](const std::string& e) {
    out << (first ? "\n" : ",\n") << e;
    first = false;
  };
  out << "{\"traceEvents\":[";
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const SimRank& rk = ranks[r];
    std::string name = fmt::format("rank {} · pp {} · tp {} · dp {}", rk.global, rk.coord.pp,
                                   rk.coord.tp, rk.coord.dp);
    if (rk.multiplicity > 1)
      name += fmt::format(" (stands for {} identical ranks)", rk.multiplicity);
    emit(fmt::format(R"({{"ph":"M","name":"process_name","pid":{},"tid":0,"args":{{"name":{}}}}})",
                     rk.global, q(name)));
    emit(fmt::format(
        R"({{"ph":"M","name":"process_sort_index","pid":{},"tid":0,"args":{{"sort_index":{}}}}})",
        rk.global, r));
  }
  for (StreamId s = 0; s < g.streams.size(); ++s) {
    const StreamInfo& si = g.streams[s];
    const int pid = ranks[si.owner].global;
    std::string name = stream_type_name(static_cast<StreamType>(si.type));
    if (si.peer >= 0) {
      const bool send = static_cast<StreamType>(si.type) == StreamType::Send;
      name = fmt::format("{} rank {}", send ? "send →" : "recv ←",
                         ranks[static_cast<std::size_t>(si.peer)].global);
    }
    emit(fmt::format(R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":{}}}}})",
                     pid, tid[s], q(name)));
    emit(fmt::format(
        R"({{"ph":"M","name":"thread_sort_index","pid":{},"tid":{},"args":{{"sort_index":{}}}}})",
        pid, tid[s], tid[s]));
  }
  // DualPipe's overlapped pairs, by their forward: the backward each task also runs.
  const auto pairs = tl.schedule.overlapped_backwards();
  const bool chunked = tl.schedule.chunks() > 1;
  for (TaskId t = 0; t < g.size(); ++t) {
    const Task& task = g.tasks[t];
    const Work& w = g.works[task.work];
    const auto type = static_cast<TaskType>(w.type);
    const int pid = ranks[g.streams[task.stream].owner].global;
    std::string name = task_type_letter(type);
    if (task.microbatch >= 0) name += std::to_string(task.microbatch);
    const std::string detail = dp_detail_name(static_cast<DpDetail>(w.detail));
    if (!detail.empty()) name += " " + detail;
    if (chunked && w.chunk >= 0) name += fmt::format(" c{}", w.chunk);
    const Action* paired = nullptr;  // an F&B task's backward: "F5 c0 & B1 c1"
    if (type == TaskType::ForwardBackward) {
      const auto it = pairs.find({w.stage, task.microbatch});
      TRAINSIM_CHECK(it != pairs.end(), "an F&B task comes from an overlapped pair");
      paired = &it->second;
      name = fmt::format("F{}{} & B{}", task.microbatch,
                         chunked ? fmt::format(" c{}", w.chunk) : "", paired->microbatch);
      if (chunked) name += fmt::format(" c{}", tl.schedule.chunk_of(paired->stage));
    }
    const char* cat = is_compute(type)                                            ? "compute"
                      : is_p2p(type)                                              ? "p2p"
                      : type == TaskType::TpCollective                            ? "tp"
                      : type == TaskType::EpCollective                            ? "ep"
                      : type == TaskType::CpCollective                            ? "cp"
                      : type == TaskType::ParamGather                             ? "zero-gather"
                      : is_host_transfer(type) || type == TaskType::HostOptimizer ? "offload"
                      : type == TaskType::Launch                                  ? "cpu"
                                                                                  : "dp";
    // Args a slice has: no micro-batch for a DP collective, no stage for a rank's whole
    // optimizer (no -1 placeholders); a divided work (a backward cut at its gradient buckets
    // or gathered units) numbers its pieces, 1-based, so 182 slices "B31" read as one backward.
    std::string args = fmt::format(R"("op":"{}")", task_type_name(type));
    if (task.microbatch >= 0) args += fmt::format(R"(,"microbatch":{})", task.microbatch);
    if (w.stage >= 0) args += fmt::format(R"(,"stage":{})", w.stage);
    if (w.chunk >= 0) args += fmt::format(R"(,"chunk":{})", w.chunk);
    if (paired)
      args += fmt::format(R"(,"backward_microbatch":{},"backward_stage":{})", paired->microbatch,
                          paired->stage);
    if (w.parts > 1) args += fmt::format(R"(,"part":{},"parts":{})", w.part + 1, w.parts);
    if (!detail.empty()) args += fmt::format(R"(,"collective":{})", q(detail));
    args += fmt::format(R"(,"flops":{:.6g},"bytes":{:.6g})", w.flops, w.bytes);
    emit(fmt::format(
        R"({{"ph":"X","name":{},"cat":"{}","pid":{},"tid":{},"ts":{},"dur":{},"args":{{{}}}}})",
        q(name), cat, pid, tid[task.stream], us(tl.start[t] + kTraceOriginNs),
        us(tl.end[t] - tl.start[t]), args));
  }
  // Flow arrows, one per p2p transfer: from the compute slice that produced the data to the
  // compute slice on the other rank that consumed it (the micro-batch's path). Both ends start
  // at different times, which flow consumers need to bind them.
  for (const P2pFlow& f : p2p_flows(g)) {
    const TaskId from = f.from, to = f.to;
    const RendezvousId rv = f.rendezvous;
    const auto& fs = g.tasks[from];
    const auto& ts = g.tasks[to];
    emit(fmt::format(
        R"({{"ph":"s","name":"p2p","cat":"compute","id":{},"pid":{},"tid":{},"ts":{}}})", rv + 1,
        ranks[g.streams[fs.stream].owner].global, tid[fs.stream],
        us(tl.start[from] + kTraceOriginNs)));
    emit(fmt::format(
        R"({{"ph":"f","bp":"e","name":"p2p","cat":"compute","id":{},"pid":{},"tid":{},"ts":{}}})",
        rv + 1, ranks[g.streams[ts.stream].owner].global, tid[ts.stream],
        us(tl.start[to] + kTraceOriginNs)));
  }
  // Memory counter tracks, one per pipeline stage on its representative GPU
  // (report/representative.h): the static state and the activations alive, in GB, at every
  // change.
  if (tl.scenario.model) {
    const auto samples = memory_over_time(tl, make_memory_report(tl));
    const std::vector<int> representatives = stage_representatives(tl);
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      const SimRank& rk = ranks[i];
      if (!represents(representatives, tl, static_cast<int>(i))) continue;
      for (const MemorySample& m : samples[static_cast<std::size_t>(rk.coord.pp)])
        emit(fmt::format(
            R"({{"ph":"C","name":"memory GB","pid":{},"tid":0,"ts":{},"args":{{"static":{:.6g},"activations":{:.6g},"gathered":{:.6g}}}}})",
            rk.global, us(m.time + kTraceOriginNs), m.fixed / 1e9,
            std::max(m.activations, 0.0) / 1e9, std::max(m.gathered, 0.0) / 1e9));
    }
  }
  nlohmann::json other;
  other["generator"] = "trainsim";
  other["scenario"] = tl.scenario.source;
  other["scenario_yaml"] = tl.scenario.canonical_yaml;
  other["schedule"] = tl.schedule.name;
  // Numbers, not text (times in microseconds, exact to the nanosecond). The step time is the
  // report's: where steps overlap (training.optimizer_post_validation) the steady period, shorter
  // than the one step the trace draws (`one_step_us`).
  const StepReport rep = make_report(tl);
  other["step_time_us"] = static_cast<double>(std::llround(rep.step_time_s * 1e9)) / 1e3;
  other["one_step_us"] = static_cast<double>(tl.makespan) / 1e3;
  other["time_origin_us"] = static_cast<double>(kTraceOriginNs) / 1e3;
  other["folded"] = tl.ranks.folded;
  // The pipeline bubble over a balanced pipeline's time (step_report.h), not the step's idle;
  // the step's idle time by cause, mean stage, microseconds.
  other["bubble_fraction_of_balanced_pipeline"] = rep.bubble_fraction_of_step;
  other["idle_us"] = {{"pipeline_bubble", rep.idle.pipeline_bubble_s * 1e6},
                      {"imbalance", rep.idle.imbalance_s * 1e6},
                      {"communication", rep.idle.communication_s * 1e6}};
  out << "\n],\n\"otherData\":" << json_text(other) << "}\n";
}

void write_chrome_trace_file(const Timeline& tl, const std::string& path) {
  const std::filesystem::path p(path);
  if (p.has_parent_path()) {
    std::error_code ec;  // a failure shows as "cannot write" below, with the reason
    std::filesystem::create_directories(p.parent_path(), ec);
  }
  write_output(path, "trace file", [&](std::ostream& out) { write_chrome_trace(tl, out); });
}

}  // namespace trainsim
