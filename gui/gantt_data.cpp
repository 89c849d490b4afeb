#include "gantt_data.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "core/error.h"
#include "lower/task_types.h"
#include "report/representative.h"

namespace trainsim::gui {

const char* box_kind_name(BoxKind k) {
  switch (k) {
    case BoxKind::Forward:
      return "F";
    case BoxKind::Backward:
      return "B";
    case BoxKind::BackwardInput:
      return "I";
    case BoxKind::BackwardWeight:
      return "W";
    case BoxKind::ForwardBackward:
      return "F&B";
    case BoxKind::Optimizer:
      return "optimizer";
    case BoxKind::TensorParallel:
      return "TP";
    case BoxKind::ExpertParallel:
      return "EP all-to-all";
    case BoxKind::ContextParallel:
      return "CP exchange";
    case BoxKind::HostLink:
      return "activation offload";
    case BoxKind::DataParallel:
      return "DP / ZeRO";
    case BoxKind::P2p:
      return "p2p";
    case BoxKind::Launch:
      return "CPU launches";
    case BoxKind::Gemm:
      return "GEMM";
    case BoxKind::Attention:
      return "attention";
    case BoxKind::MemoryBound:
      return "memory-bound";
    case BoxKind::Communication:
      return "NCCL";
    case BoxKind::OtherKernel:
      return "other kernel";
    case BoxKind::Count:
      break;
  }
  return "?";
}

BoxKind box_kind(const Work& w) {
  switch (static_cast<TaskType>(w.type)) {
    case TaskType::Forward:
      return BoxKind::Forward;
    case TaskType::Backward:
      return BoxKind::Backward;
    case TaskType::BackwardInput:
      return BoxKind::BackwardInput;
    case TaskType::BackwardWeight:
      return BoxKind::BackwardWeight;
    case TaskType::ForwardBackward:
      return BoxKind::ForwardBackward;
    case TaskType::Optimizer:
    case TaskType::HostTransfer:  // ZeRO-Offload's step, on the host link and the host CPU
    case TaskType::HostOptimizer:
      return BoxKind::Optimizer;
    case TaskType::TpCollective:
      return BoxKind::TensorParallel;
    case TaskType::EpCollective:
      return BoxKind::ExpertParallel;
    case TaskType::CpCollective:
      return BoxKind::ContextParallel;
    case TaskType::ActivationOffload:
    case TaskType::ActivationReload:
      return BoxKind::HostLink;
    case TaskType::DpCollective:
    case TaskType::ParamGather:
      return BoxKind::DataParallel;
    case TaskType::SendActivation:
    case TaskType::RecvActivation:
    case TaskType::SendGradient:
    case TaskType::RecvGradient:
      return BoxKind::P2p;
    case TaskType::Launch:
      return BoxKind::Launch;
  }
  return BoxKind::Forward;
}

bool is_measured_kind(BoxKind k) {
  return k == BoxKind::Gemm || k == BoxKind::Attention || k == BoxKind::MemoryBound ||
         k == BoxKind::Communication || k == BoxKind::OtherKernel;
}

namespace {

BoxKind measured_kind(KernelCategory c) {
  switch (c) {
    case KernelCategory::Gemm:
      return BoxKind::Gemm;
    case KernelCategory::Attention:
      return BoxKind::Attention;
    case KernelCategory::MemoryBound:
      return BoxKind::MemoryBound;
    case KernelCategory::Optimizer:
      return BoxKind::Optimizer;
    case KernelCategory::Communication:
      return BoxKind::Communication;
    case KernelCategory::Other:
      return BoxKind::OtherKernel;
  }
  return BoxKind::OtherKernel;
}

}  // namespace

void add_measured_lanes(GanttData& d, std::shared_ptr<const TorchTrace> t, int step) {
  d.lanes.erase(
      std::remove_if(d.lanes.begin(), d.lanes.end(), [](const Lane& l) { return l.measured; }),
      d.lanes.end());
  d.measured = t;
  d.measured_step = step;
  if (!t) return;
  TRAINSIM_CHECK(step >= 0 && static_cast<std::size_t>(step) < t->steps.size(),
                 "add_measured_lanes is given a step of the trace");
  const TimeNs origin = t->steps[static_cast<std::size_t>(step)].gpu_begin;
  std::map<int, Lane> by_stream;
  std::map<int, TimeNs> busy;
  for (std::size_t i = 0; i < t->kernels.size(); ++i) {
    const TraceKernel& k = t->kernels[i];
    if (k.step != step) continue;
    Lane& lane = by_stream[k.stream];
    lane.boxes.push_back({k.start - origin, k.start - origin + k.dur, static_cast<TaskId>(i),
                          measured_kind(k.kind.category)});
    busy[k.stream] += k.dur;
  }
  int busiest = -1;
  for (const auto& [stream, b] : busy)
    if (busiest < 0 || b > busy[busiest]) busiest = stream;
  // Below every simulated stage: a stage number no layout reaches.
  const int stage = 1 << 30;
  std::vector<Lane> lanes;
  for (auto& [stream, lane] : by_stream) {
    lane.measured = true;
    lane.compute = stream == busiest;
    lane.rank = -1;
    lane.stage = stage;
    lane.label = lane.compute ? fmt::format("measured · rank {}", t->rank)
                              : fmt::format("  stream {}", stream);
    // One stream runs one kernel at a time; a profiler's rounding may overlap neighbours by
    // a nanosecond or two, which box_at's binary search must not see.
    for (std::size_t b = 1; b < lane.boxes.size(); ++b)
      lane.boxes[b].start = std::max(lane.boxes[b].start, lane.boxes[b - 1].end);
    for (auto& b : lane.boxes) b.end = std::max(b.end, b.start);
    if (lane.compute)
      lanes.insert(lanes.begin(), std::move(lane));
    else
      lanes.push_back(std::move(lane));
  }
  for (auto& l : lanes) {
    index_coverage(l);
    d.lanes.push_back(std::move(l));
  }
}

TimeNs measured_span(const GanttData& d) {
  if (!d.measured || d.measured_step < 0) return 0;
  const TraceStep& s = d.measured->steps[static_cast<std::size_t>(d.measured_step)];
  return s.gpu_end - s.gpu_begin;
}

TimeNs drawn_span(const GanttData& d) {
  return std::max(d.timeline ? d.timeline->makespan : 0, measured_span(d));
}

GanttData make_gantt_data(std::shared_ptr<const Timeline> tl) {
  GanttData d;
  d.timeline = tl;
  const TaskGraph& g = *tl->graph;
  d.tasks = g.size();
  d.recompute = tl->scenario.training.recompute != Recompute::None;
  const auto& ranks = tl->ranks.ranks;
  std::vector<int> order(ranks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const Coord& x = ranks[static_cast<std::size_t>(a)].coord;
    const Coord& y = ranks[static_cast<std::size_t>(b)].coord;
    return std::tie(x.pp, x.dp, x.tp) < std::tie(y.pp, y.dp, y.tp);
  });
  const std::vector<int> representatives = stage_representatives(*tl);
  // Streams per owner, compute first, then in creation order.
  std::vector<std::vector<StreamId>> streams(ranks.size());
  for (StreamId s = 0; s < g.streams.size(); ++s)
    if (!g.stream(s).empty()) streams[g.streams[s].owner].push_back(s);
  for (auto& v : streams)
    std::stable_partition(v.begin(), v.end(), [&](StreamId s) {
      return static_cast<StreamType>(g.streams[s].type) == StreamType::Compute;
    });
  for (int r : order) {
    const SimRank& rk = ranks[static_cast<std::size_t>(r)];
    for (StreamId s : streams[static_cast<std::size_t>(r)]) {
      Lane lane;
      const auto type = static_cast<StreamType>(g.streams[s].type);
      lane.compute = type == StreamType::Compute;
      lane.rank = r;
      lane.stage = rk.coord.pp;
      lane.representative = represents(representatives, *tl, r);
      lane.label = lane.compute ? fmt::format("rank {} · pp {}", rk.global, rk.coord.pp)
                                : fmt::format("  {}", stream_type_name(type));
      // A send or receive stream runs towards one peer: name its stage (and rank, when the
      // peer's DP/TP peers are drawn too).
      if (const std::int32_t peer = g.streams[s].peer;
          (type == StreamType::Send || type == StreamType::Recv) && peer >= 0) {
        const SimRank& other = ranks[static_cast<std::size_t>(peer)];
        lane.label +=
            fmt::format(" {} pp {}", type == StreamType::Send ? "→" : "←", other.coord.pp);
        if (other.multiplicity == 1 && (tl->scenario.layout.tp > 1 || tl->scenario.layout.dp > 1))
          lane.label += fmt::format(" (rank {})", other.global);
      }
      if (lane.compute && rk.multiplicity > 1)
        lane.label += fmt::format(" (×{})", rk.multiplicity);
      else if (lane.compute && (tl->scenario.layout.tp > 1 || tl->scenario.layout.dp > 1))
        lane.label += fmt::format(" tp {} dp {}", rk.coord.tp, rk.coord.dp);
      for (TaskId t : g.stream(s))
        lane.boxes.push_back({tl->start[t], tl->end[t], t, box_kind(g.work(t))});
      index_coverage(lane);
      d.lanes.push_back(std::move(lane));
    }
  }
  d.flows = p2p_flows(g);
  return d;
}

std::vector<int> visible_lanes(const GanttData& d, bool show_peers, bool show_streams) {
  std::vector<int> out;
  for (std::size_t i = 0; i < d.lanes.size(); ++i) {
    const Lane& l = d.lanes[i];
    if (!show_peers && !l.representative) continue;
    if (!show_streams && !l.compute) continue;
    out.push_back(static_cast<int>(i));
  }
  return out;
}

const Box* box_at(const Lane& lane, double t) {
  auto it = std::upper_bound(lane.boxes.begin(), lane.boxes.end(), t, [](double x, const Box& b) {
    return x < static_cast<double>(b.start);
  });
  if (it == lane.boxes.begin()) return nullptr;
  --it;
  return t < static_cast<double>(it->end) ? &*it : nullptr;
}

void index_coverage(Lane& lane) {
  lane.kinds.clear();
  for (const Box& b : lane.boxes)
    if (std::find(lane.kinds.begin(), lane.kinds.end(), b.kind) == lane.kinds.end())
      lane.kinds.push_back(b.kind);
  lane.kind_time_before.assign(lane.kinds.size(), std::vector<TimeNs>(lane.boxes.size() + 1, 0));
  for (std::size_t k = 0; k < lane.kinds.size(); ++k) {
    std::vector<TimeNs>& before = lane.kind_time_before[k];
    for (std::size_t i = 0; i < lane.boxes.size(); ++i) {
      const Box& b = lane.boxes[i];
      before[i + 1] = before[i] + (b.kind == lane.kinds[k] ? b.end - b.start : 0);
    }
  }
}

namespace {
// The first box at or after `from` for which `before(box)` is false, boxes being partitioned
// (true, then false): a few boxes looked at in turn (a pixel's worth, where a binary search's
// unpredictable branches cost more), then a galloping search, O(log d) for an answer d boxes
// past `from`.
template <typename Before>
std::vector<Box>::const_iterator gallop(const std::vector<Box>& boxes,
                                        std::vector<Box>::const_iterator from, Before before) {
  auto lo = from;
  for (int i = 0; i < 16; ++i, ++lo)
    if (lo == boxes.end() || !before(*lo)) return lo;
  std::ptrdiff_t step = 1;
  while (true) {
    const std::ptrdiff_t left = boxes.end() - lo;
    if (left <= step) break;
    if (!before(*(lo + step))) break;
    lo += step;
    step *= 2;
  }
  const auto hi = boxes.end() - lo <= step ? boxes.end() : lo + step + 1;
  return std::partition_point(lo, hi, before);
}
}  // namespace

void busy_before(const Lane& lane, double t, std::vector<double>& out, std::size_t* from) {
  const auto& boxes = lane.boxes;
  const auto start = boxes.begin() + static_cast<std::ptrdiff_t>(
                                         from ? std::min(*from, boxes.size()) : std::size_t{0});
  // Every box before the first one ending after t has run in full; that one, in part.
  const auto a =
      gallop(boxes, start, [&](const Box& b) { return static_cast<double>(b.end) <= t; });
  const auto ia = static_cast<std::size_t>(a - boxes.begin());
  if (from) *from = ia;
  out.resize(lane.kinds.size());
  for (std::size_t k = 0; k < lane.kinds.size(); ++k) {
    out[k] = static_cast<double>(lane.kind_time_before[k][ia]);
    if (a != boxes.end() && a->kind == lane.kinds[k] && static_cast<double>(a->start) < t)
      out[k] += t - static_cast<double>(a->start);
  }
}

std::size_t first_starting_at(const Lane& lane, std::size_t from, double t) {
  const auto& boxes = lane.boxes;
  const auto start = boxes.begin() + static_cast<std::ptrdiff_t>(std::min(from, boxes.size()));
  return static_cast<std::size_t>(
      gallop(boxes, start, [&](const Box& b) { return static_cast<double>(b.start) < t; }) -
      boxes.begin());
}

void coverage(const Lane& lane, double t0, double t1, std::vector<double>& out, std::size_t* from) {
  out.assign(lane.kinds.size(), 0.0);
  if (!(t1 > t0)) return;
  const auto& boxes = lane.boxes;
  // The boxes overlapping [t0, t1): from the first ending after t0 to the last starting
  // before t1.
  const auto start = boxes.begin() + static_cast<std::ptrdiff_t>(
                                         from ? std::min(*from, boxes.size()) : std::size_t{0});
  const auto a =
      gallop(boxes, start, [&](const Box& b) { return static_cast<double>(b.end) <= t0; });
  const auto b = gallop(boxes, a, [&](const Box& x) { return static_cast<double>(x.start) < t1; });
  if (from) *from = static_cast<std::size_t>(a - boxes.begin());
  if (a >= b) return;
  const auto ia = static_cast<std::size_t>(a - boxes.begin());
  const auto ib = static_cast<std::size_t>(b - boxes.begin());
  for (std::size_t k = 0; k < lane.kinds.size(); ++k)
    out[k] = static_cast<double>(lane.kind_time_before[k][ib] - lane.kind_time_before[k][ia]);
  auto slot = [&](BoxKind kind) {
    return static_cast<std::size_t>(std::find(lane.kinds.begin(), lane.kinds.end(), kind) -
                                    lane.kinds.begin());
  };
  // The parts of the end boxes outside the range.
  out[slot(a->kind)] -= std::max(0.0, t0 - static_cast<double>(a->start));
  const Box& last = *(b - 1);
  out[slot(last.kind)] -= std::max(0.0, static_cast<double>(last.end) - t1);
}

}  // namespace trainsim::gui
