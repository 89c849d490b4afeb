#include "lower/program.h"

#include <cmath>

#include "core/error.h"

namespace trainsim {

Program::Program(const Scenario& sc, const Schedule& sch, const CostModel& cm, RankSet rs)
    : scenario(sc), schedule(sch), cost(cm), ranks(std::move(rs)) {
  task_index_.assign(static_cast<std::size_t>(ranks.replicas) * sch.stages * 3 * sch.microbatches,
                     kNone);
  for (int st = 0; st < sch.stages; ++st) chunk_of_.push_back(sch.chunk_of(st));
  for (int r = 0; r < static_cast<int>(ranks.ranks.size()); ++r)
    compute_stream.push_back(stream(r, StreamType::Compute));
}

TaskId& Program::task_of(int replica, int stage, Op op, int mb) {
  const std::size_t i =
      ((static_cast<std::size_t>(replica) * schedule.stages + stage) * 3 + kind_of(op)) *
          schedule.microbatches +
      mb;
  return task_index_.at(i);
}

TaskId Program::end_of(int replica, int stage, Op op, int mb) {
  const TaskId first = task_of(replica, stage, op, mb);
  auto it = last_part.find(first);
  return it == last_part.end() ? first : it->second;
}

int Program::buckets(int stage) const {
  const Layout& l = scenario.layout;
  // Bucketed reduction overlapping the backward: ZeRO-0 all-reduce and ZeRO-2 reduce-scatter.
  if (l.dp <= 1 || !cost.models_hardware() || (l.zero != 0 && l.zero != 2)) return 1;
  const double bytes = cost.gradient_bytes(stage);
  return std::max(1, static_cast<int>(std::ceil(bytes / scenario.memory.bucket_size)));
}

double Program::compute_scale(int r) const {
  return scenario.compute_factor(ranks.ranks[static_cast<std::size_t>(r)].global);
}

double Program::link_scale(const std::vector<int>& members) const {
  double f = 1.0;
  for (int g : members) f = std::max(f, scenario.link_factor(g));
  return f;
}

WorkId Program::work(TaskType type, int stage, int chunk, const Cost& c, int variant, int stage2,
                     double scale) {
  const long long ppm = std::llround(scale * 1e6);
  const auto key = std::make_tuple(static_cast<int>(type), stage, variant, chunk, stage2, ppm);
  auto it = works_.find(key);
  if (it != works_.end()) return it->second;
  const TimeNs duration =
      scale == 1.0 ? c.duration
                   : static_cast<TimeNs>(std::llround(static_cast<double>(c.duration) * scale));
  Work w{duration,
         c.flops,
         c.bytes,
         static_cast<std::uint8_t>(type),
         static_cast<std::int16_t>(stage),
         static_cast<std::int16_t>(chunk),
         static_cast<std::int16_t>(stage2)};
  const WorkId id = builder.add_work(w);
  works_.emplace(key, id);
  return id;
}

StreamId Program::stream(int owner, StreamType type, int peer) {
  const auto key = std::make_tuple(owner, static_cast<int>(type), peer);
  auto it = streams_.find(key);
  if (it != streams_.end()) return it->second;
  const StreamId id = builder.add_stream(
      {static_cast<std::uint32_t>(owner), static_cast<std::uint8_t>(type), peer});
  streams_.emplace(key, id);
  return id;
}

}  // namespace trainsim
