#include "report/memory_report.h"

#include <cmath>

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/quantity.h"
#include "cost/cost_model.h"
#include "lower/task_types.h"
#include "memory/footprint.h"
#include "report/report_format.h"
#include "report/representative.h"

namespace trainsim {

std::vector<std::vector<ActivationEvent>> activation_events(const Timeline& tl) {
  const TaskGraph& g = *tl.graph;
  const Schedule& sch = tl.schedule;
  // Per stage: the activations a micro-batch keeps, and the loss's instant on top of them.
  // And the layer a recomputing backward replays, beside them while it runs.
  std::vector<double> act(static_cast<std::size_t>(sch.stages)), spike(act.size()),
      replay(act.size());
  for (int st = 0; st < sch.stages; ++st) {
    act[static_cast<std::size_t>(st)] = stage_activation_bytes(tl.scenario, sch.model_stage(st));
    spike[static_cast<std::size_t>(st)] = loss_transient_bytes(tl.scenario, sch.model_stage(st));
    replay[static_cast<std::size_t>(st)] =
        recompute_transient_bytes(tl.scenario, sch.model_stage(st));
  }
  auto of = [](const std::vector<double>& v, int stage) {
    return stage >= 0 ? v[static_cast<std::size_t>(stage)] : 0.0;
  };
  auto bytes_of = [&](int stage) { return of(act, stage); };
  auto spike_of = [&](int stage) { return of(spike, stage); };
  auto replay_of = [&](int stage) { return of(replay, stage); };
  const double unit = 1.0 / std::max(sch.vpp(), 1), alpha = sch.input_frees;
  std::vector<std::vector<ActivationEvent>> out(static_cast<std::size_t>(sch.ranks));
  for (int r = 0; r < sch.ranks; ++r)  // about one event per action
    out[static_cast<std::size_t>(r)].reserve(sch.actions[static_cast<std::size_t>(r)].size());
  const Layout& l = tl.scenario.layout;
  const std::vector<int> representatives = stage_representatives(tl);
  for (TaskId t = 0; t < g.size(); ++t) {
    const Work& w = g.work(t);
    const auto type = static_cast<TaskType>(w.type);
    if (!is_pipeline_compute(type) && type != TaskType::ParamGather &&
        type != TaskType::ActivationOffload && type != TaskType::ActivationReload)
      continue;
    const int owner = g.streams[g.tasks[t].stream].owner;
    if (!represents(representatives, tl, owner)) continue;
    const SimRank& rank = tl.ranks.ranks[static_cast<std::size_t>(owner)];
    auto& ev = out[static_cast<std::size_t>(rank.coord.pp)];
    const TimeNs start = tl.start[t], end = tl.end[t];
    // Activation offload: off the GPU once copied out, back when the copy in starts.
    if (type == TaskType::ActivationOffload) {
      ev.push_back({end, 0, -w.bytes});
      continue;
    }
    if (type == TaskType::ActivationReload) {
      ev.push_back({start, 0, w.bytes});
      continue;
    }
    if (type == TaskType::ParamGather) {
      // ZeRO-1/2 gather into parameters they already hold whole; ZeRO-3 into a new buffer of
      // S bytes (the collective's per-GPU traffic is S·(n−1)/n).
      if (l.zero != 3) continue;
      const double s = w.bytes / busbw_factor(Collective::AllGather, l.dp_ranks());
      TimeNs freed = tl.makespan;
      if (l.fsdp.reshard_after_forward)
        for (auto v : g.successors(t))
          if (is_pipeline_compute(static_cast<TaskType>(g.work(static_cast<TaskId>(v)).type)))
            freed = tl.end[v];
      ev.push_back({start, 0, 0, s});
      ev.push_back({freed, 0, 0, -s});
      continue;
    }
    // A divided action allocates with its first part and frees with its last; a forward's
    // loss runs in its last.
    if (type == TaskType::Forward) {
      if (w.part == 0) ev.push_back({start, unit, bytes_of(w.stage)});
      if (w.part + 1 == w.parts && spike_of(w.stage) > 0)
        ev.push_back({end, 0, 0, 0, spike_of(w.stage)});
      continue;
    }
    // A recomputing backward replays a layer's forward as it starts (its first piece).
    if (w.part == 0 && (type == TaskType::Backward || type == TaskType::BackwardInput ||
                        type == TaskType::ForwardBackward)) {
      const int replayed = type == TaskType::ForwardBackward ? w.stage2 : w.stage;
      if (replay_of(replayed) > 0) ev.push_back({start, 0, 0, 0, replay_of(replayed)});
    }
    if (w.part + 1 != w.parts) continue;
    switch (type) {
      case TaskType::Backward:
        ev.push_back({end, -unit, -bytes_of(w.stage)});
        break;
      case TaskType::BackwardInput:
        ev.push_back({end, -alpha * unit, -alpha * bytes_of(w.stage)});
        break;
      case TaskType::BackwardWeight:
        ev.push_back({end, (alpha - 1) * unit, (alpha - 1) * bytes_of(w.stage)});
        break;
      case TaskType::ForwardBackward:
        ev.push_back({start, unit, bytes_of(w.stage)});
        if (spike_of(w.stage) > 0) ev.push_back({start, 0, 0, 0, spike_of(w.stage)});
        ev.push_back({end, -unit, -bytes_of(w.stage2)});
        break;
      default:
        break;
    }
  }
  for (auto& ev : out)
    std::stable_sort(ev.begin(), ev.end(), [](const ActivationEvent& a, const ActivationEvent& b) {
      if (a.time != b.time) return a.time < b.time;
      if ((a.transient > 0) != (b.transient > 0)) return b.transient > 0;  // instants last
      return a.microbatches + a.gathered < b.microbatches + b.gathered;    // frees first
    });
  return out;
}

double MemoryReport::largest_peak() const {
  double peak = 0;
  for (const StageMemory& s : stages) peak = std::max(peak, s.peak);
  return peak;
}

const OutOfMemory* worst_excess(const std::vector<OutOfMemory>& list) {
  const OutOfMemory* worst = nullptr;
  for (const OutOfMemory& o : list)
    if (!worst || o.excess > worst->excess) worst = &o;
  return worst;
}

std::string worst_excess_words(const std::vector<OutOfMemory>& list) {
  const OutOfMemory* w = worst_excess(list);
  if (!w) return "";
  return fmt::format("stage {} (+{:.1f} GB){}", w->stage, w->excess / 1e9,
                     list.size() > 1 ? fmt::format(" and {} more", list.size() - 1) : "");
}

MemoryReport make_memory_report(const Timeline& tl) {
  const Scenario& sc = tl.scenario;
  const Schedule& sch = tl.schedule;
  MemoryReport m;
  m.model = sc.model;
  m.model_edits = sc.command_line_edits("model.");
  if (sc.has_cluster) {
    m.device_memory = sc.cluster.gpu.memory;
    m.usable_memory = usable_memory(m.device_memory, sc.memory);
    m.fragmentation = sc.memory.fragmentation;
  }
  m.dp_buckets = sc.memory.dp_buckets;
  if (sc.model && sc.training.recompute == Recompute::Selective) {
    Scenario kept = sc;
    kept.training.recompute = Recompute::None;
    bool saves = false;
    // The model's stages (one chain's: DualPipe's two chains run the same ones).
    for (int st = 0; st < sch.chain_stages(); ++st)
      saves = saves || stage_activation_bytes(sc, st) < stage_activation_bytes(kept, st);
    m.selective_saves_nothing = !saves;
  }
  const auto events = activation_events(tl);
  const auto held = sch.model_stages_by_rank();
  for (int r = 0; r < sch.ranks; ++r) {
    const StaticMemory fixed = static_memory(sc, held[static_cast<std::size_t>(r)], sch.chains);
    StageMemory s;
    s.stage = r;
    s.parameters = fixed.parameters;
    s.weights = fixed.weights;
    s.gradients = fixed.gradients;
    s.optimizer = fixed.optimizer;
    s.buffers = sc.model ? fixed.buffers : 0;  // a costs-only study has no memory to speak of
    s.fp8_weights = sc.model ? fixed.fp8_weights : 0;
    double act = 0, gathered = 0;
    TimeNs when = 0;
    for (const auto& e : events[static_cast<std::size_t>(r)]) {
      act += e.bytes;
      gathered += e.gathered;
      if (act + e.transient + gathered > s.activations + s.gathered) {
        s.activations = act + e.transient;
        s.gathered = gathered;
        when = e.time;
      }
    }
    s.total = s.weights + s.gradients + s.optimizer + s.buffers + s.activations + s.gathered;
    s.peak = s.total;
    s.peak_time_s = to_seconds(when);
    if (m.usable_memory > 0 && s.peak > m.usable_memory) {
      const std::pair<double, const char*> parts[] = {{s.weights, "weights"},
                                                      {s.gradients, "gradients"},
                                                      {s.optimizer, "optimizer states"},
                                                      {s.activations, "activations"},
                                                      {s.gathered, "gathered parameters"},
                                                      {s.buffers, "buffers"}};
      const auto* top = std::max_element(std::begin(parts), std::end(parts),
                                         [](auto& a, auto& b) { return a.first < b.first; });
      if (s.peak > m.device_memory)
        m.out_of_memory.push_back({r, s.peak_time_s, s.peak - m.device_memory, top->second});
      else
        m.tight.push_back({r, s.peak_time_s, s.peak - m.usable_memory, top->second});
    }
    m.stages.push_back(s);
  }
  if (sc.measured && sc.measured->peak_memory && !m.stages.empty() && sc.model)
    m.measured =
        MemoryCheck{*sc.measured->peak_memory, m.stages.front().peak - sc.memory.runtime_overhead};
  return m;
}

std::vector<std::vector<MemorySample>> memory_over_time(const Timeline& tl, const MemoryReport& m) {
  const auto events = activation_events(tl);
  std::vector<std::vector<MemorySample>> out;
  for (const StageMemory& sm : m.stages) {
    const double fixed = sm.weights + sm.gradients + sm.optimizer + sm.buffers;
    std::vector<MemorySample> v{{0, fixed, 0, 0}};
    const auto& ev = events[static_cast<std::size_t>(sm.stage)];
    double held = 0, gathered = 0, transient = 0;
    for (std::size_t i = 0; i < ev.size(); ++i) {
      held += ev[i].bytes;
      gathered += ev[i].gathered;
      // One sample per instant, with the largest of the instant's transient bytes (sorted last:
      // a forward's loss and the next backward's replayed layer can share an instant; each is
      // held in turn, as make_memory_report counts them).
      transient = std::max(transient, ev[i].transient);
      if (i + 1 == ev.size() || ev[i + 1].time != ev[i].time) {
        v.push_back({ev[i].time, fixed, held + transient, gathered});
        transient = 0;
      }
    }
    v.push_back({tl.makespan, fixed, held, gathered});
    out.push_back(std::move(v));
  }
  return out;
}

std::string usable_words(const MemoryReport& m) {
  return fmt::format("the {} usable of the device's {} (memory.fragmentation {:g} %)",
                     format_bytes(m.usable_memory), format_bytes(m.device_memory),
                     m.fragmentation * 100);
}

namespace {
// The memory header's device: " (device 85.90 GB, 76.02 GB of it usable: the caching allocator's
// fragmentation, memory.fragmentation 11.5 %)".
std::string device_words(const MemoryReport& m) {
  if (m.device_memory <= 0) return "";
  // Beside the decimal GB of these tables, the GiB CUDA and PyTorch report ("total capacity of
  // 79.18 GiB"), to the hundredth.
  const double gib = m.device_memory / double(1ull << 30);
  std::string gib_text;
  if (std::isfinite(gib) && gib >= 1) {
    gib_text = fmt::format("{:.2f}", gib);
    while (gib_text.back() == '0') gib_text.pop_back();
    if (gib_text.back() == '.') gib_text.pop_back();
    gib_text = " = " + gib_text + " GiB";
  }
  const std::string device = format_bytes(m.device_memory) + gib_text;
  if (m.usable_memory >= m.device_memory) return fmt::format(" (device {})", device);
  return fmt::format(
      " (device {}, {} of it usable: the caching allocator's fragmentation, "
      "memory.fragmentation {:g} %)",
      device, format_bytes(m.usable_memory), m.fragmentation * 100);
}
}  // namespace

std::string format_memory(const MemoryReport& m) {
  if (!m.model)
    return "memory not modelled: this scenario gives stage costs, not a model whose bytes could "
           "be counted\n";
  std::string o = fmt::format("model {}{} · {}\n", m.model->name, edits_note(m.model_edits),
                              parameter_summary(*m.model));
  o += fmt::format("memory per GPU{}\n", device_words(m));
  // The gathered-parameters column only appears when something is gathered (ZeRO-3).
  const bool gathers = std::any_of(m.stages.begin(), m.stages.end(),
                                   [](const StageMemory& s) { return s.gathered > 0; });
  // The count column widens to its longest entry (a 22-trillion-parameter stage is 18
  // characters), so the byte columns after it stay under their headers.
  std::size_t count_width = 12;
  for (const auto& s : m.stages)
    count_width = std::max(count_width, thousands(s.parameters).size());
  o += fmt::format("{:>5} {:>{}} {:>11} {:>11} {:>11} {:>12} {:>11}{} {:>11}  {}\n", "stage",
                   "parameters", count_width, "weights", "gradients", "optimizer", "activations",
                   "buffers", gathers ? fmt::format(" {:>11}", "gathered") : "", "peak", "at");
  for (const auto& s : m.stages)
    o += fmt::format("{:>5} {:>{}} {:>11} {:>11} {:>11} {:>12} {:>11}{} {:>11}  {}\n", s.stage,
                     thousands(s.parameters), count_width, format_bytes(s.weights),
                     format_bytes(s.gradients), format_bytes(s.optimizer),
                     format_bytes(s.activations), format_bytes(s.buffers),
                     gathers ? fmt::format(" {:>11}", format_bytes(s.gathered)) : "",
                     format_bytes(s.peak), format_time(s.peak_time_s));
  // FP8 weights sit in the buffers column: say how much, so a large one is not a mystery (a
  // LoRA run's frozen FP8 model is most of its memory there).
  std::vector<std::string> fp8;
  for (const auto& s : m.stages) fp8.push_back(format_bytes(s.fp8_weights));
  if (std::any_of(m.stages.begin(), m.stages.end(),
                  [](const StageMemory& s) { return s.fp8_weights > 0; }))
    o += fmt::format(
        "buffers: the runtime overhead, DP buckets and the layers' FP8 weights ({}; the weights "
        "themselves under training.fp8_params, else a copy beside the 16-bit ones)\n",
        std::all_of(fp8.begin(), fp8.end(), [&](const std::string& b) { return b == fp8[0]; })
            ? fp8[0] + (fp8.size() > 1 ? " a stage" : "")
            : "by stage: " + fmt::format("{}", fmt::join(fp8, ", ")));
  for (const auto& e : m.out_of_memory)
    o += fmt::format(
        "OUT OF MEMORY: stage {} needs {} more than the device's {} at {} ({} dominate)\n", e.stage,
        format_bytes(e.excess), format_bytes(m.device_memory), format_time(e.time_s), e.dominant);
  for (const auto& e : m.tight)
    o += fmt::format("TIGHT: stage {} peaks {} over the {} usable at {} ({} dominate)\n", e.stage,
                     format_bytes(e.excess), format_bytes(m.usable_memory), format_time(e.time_s),
                     e.dominant);
  // A cudaMalloc the cache cannot serve makes PyTorch's allocator free its cached blocks and retry
  // (torch.cuda.memory_stats "num_alloc_retries": "failed cudaMalloc calls that result in a cache
  // flush and retry"), a device synchronisation each; the Ultra-Scale Playbook reports its runs
  // near the limit as running "inefficiently" (tests/published/README.md, "Near the memory limit").
  if (!m.tight.empty())
    o += "tight: within the device, but past what PyTorch's caching allocator leaves usable once "
         "fragmented: it may run out, or run slower than simulated while the allocator frees its "
         "cache and retries (memory.fragmentation; 0 for a run under expandable_segments)\n";
  if (m.selective_saves_nothing)
    o += "selective recompute saves no memory here: the modules it replays keep nothing the "
         "layer does not keep anyway (a fused attention kernel stores no s² scores; under "
         "training.attention: unfused it would drop them), so it only adds their forward to each "
         "backward\n";
  if (m.measured)
    o += fmt::format(
        "measured: rank 0's logged peak allocation {} ({:.2f} GiB, measured.peak_memory); "
        "predicted {} (stage 0's peak less memory.runtime_overhead): {:+.1f} % (negative = "
        "predicted too little)\n",
        format_bytes(m.measured->measured), m.measured->measured / (1024.0 * 1024 * 1024),
        format_bytes(m.measured->predicted), m.measured->error() * 100);
  return o;
}

nlohmann::json memory_to_json(const MemoryReport& m) {
  nlohmann::json j;
  if (m.model) j["model"] = model_to_json(*m.model);
  j["device_memory"] = m.device_memory;
  j["usable_memory"] = m.usable_memory;
  j["fragmentation"] = m.fragmentation;
  j["dp_buckets"] = m.dp_buckets == DpBuckets::Copy ? "copy" : "view";
  j["selective_recompute_saves_nothing"] = m.selective_saves_nothing;
  nlohmann::json stages = nlohmann::json::array();
  for (const auto& s : m.stages)
    stages.push_back({{"stage", s.stage},
                      {"parameters", std::llround(s.parameters)},  // a count: an integer
                      {"weights", s.weights},
                      {"gradients", s.gradients},
                      {"optimizer", s.optimizer},
                      {"activations", s.activations},
                      {"buffers", s.buffers},
                      {"fp8_weights", s.fp8_weights},
                      {"gathered", s.gathered},
                      {"total", s.total},
                      {"peak", {{"bytes", s.peak}, {"time_s", s.peak_time_s}}}});
  j["stages"] = stages;
  auto entries = [](const std::vector<OutOfMemory>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& e : v)
      a.push_back({{"stage", e.stage},
                   {"time_s", e.time_s},
                   {"excess_bytes", e.excess},
                   {"dominant", e.dominant}});
    return a;
  };
  j["out_of_memory"] = entries(m.out_of_memory);
  j["tight"] = entries(m.tight);
  j["measured"] = memory_check_to_json(m.measured);
  return j;
}

nlohmann::json memory_check_to_json(const std::optional<MemoryCheck>& c) {
  if (!c) return nullptr;
  return {{"peak_memory", c->measured}, {"predicted", c->predicted}, {"error", c->error()}};
}

}  // namespace trainsim
