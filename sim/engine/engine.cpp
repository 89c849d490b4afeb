#include "engine/engine.h"

#include <cstdint>

#include "engine/event_queue.h"

namespace trainsim {
namespace {

class Run {
 public:
  Run(const TaskGraph& g, const std::vector<EngineObserver*>& obs)
      : g_(g),
        obs_(obs),
        remaining_(g.pred_count),
        head_(g.streams.size(), 0),
        state_(g.streams.size(), kIdle),
        arrived_(g.rendezvous_count(), 0) {}

  EngineResult run() {
    for (StreamId s = 0; s < g_.streams.size(); ++s) try_advance(s, 0);
    EngineResult r;
    while (!q_.empty()) {
      const auto ev = q_.pop();
      const TaskId t = ev.payload;
      for (auto* o : obs_) o->on_end(t, ev.time);
      ++r.completed;
      r.makespan = ev.time;
      const StreamId s = g_.tasks[t].stream;
      state_[s] = kIdle;
      for (auto v : g_.successors(t)) {
        if (--remaining_[v] == 0) try_advance(g_.tasks[v].stream, ev.time);
      }
      try_advance(s, ev.time);
    }
    if (r.completed != g_.size()) r.blocked = blocked();
    return r;
  }

 private:
  enum : std::uint8_t { kIdle, kBusy, kWaiting };

  // Starts the head task of stream `s` if it can start now.
  void try_advance(StreamId s, TimeNs now) {
    if (state_[s] != kIdle) return;
    auto tasks = g_.stream(s);
    if (head_[s] >= tasks.size()) return;
    const TaskId t = tasks[head_[s]];
    if (remaining_[t] != 0) return;
    const RendezvousId r = g_.tasks[t].rendezvous;
    if (r == kNone) {
      start(t, now);
      return;
    }
    state_[s] = kWaiting;
    auto members = g_.rendezvous(r);
    if (++arrived_[r] == members.size())
      for (TaskId m : members) start(m, now);
  }

  void start(TaskId t, TimeNs now) {
    const StreamId s = g_.tasks[t].stream;
    state_[s] = kBusy;
    ++head_[s];
    for (auto* o : obs_) o->on_start(t, now);
    q_.push(now + g_.duration(t), t);
  }

  std::vector<BlockedStream> blocked() const {
    std::vector<BlockedStream> out;
    // Unfinished predecessors need the reverse edges; only built on failure.
    std::vector<std::vector<TaskId>> preds;
    for (StreamId s = 0; s < g_.streams.size(); ++s) {
      auto tasks = g_.stream(s);
      if (head_[s] >= tasks.size() || state_[s] == kBusy) continue;
      BlockedStream b{s, tasks[head_[s]], {}, state_[s] == kWaiting};
      if (b.at_rendezvous) {
        for (TaskId m : g_.rendezvous(g_.tasks[b.task].rendezvous)) {
          const StreamId ms = g_.tasks[m].stream;
          if (state_[ms] != kWaiting || g_.stream(ms)[head_[ms]] != m) b.waits_for.push_back(m);
        }
      } else {
        if (preds.empty()) {
          preds.resize(g_.size());
          for (TaskId u = 0; u < g_.size(); ++u)
            for (auto v : g_.successors(u)) preds[v].push_back(u);
        }
        for (TaskId u : preds[b.task])
          if (!finished(u)) b.waits_for.push_back(u);
      }
      out.push_back(std::move(b));
    }
    return out;
  }

  bool finished(TaskId t) const {
    // A task has finished when its stream's head moved past it and the stream is not still
    // running it.
    const StreamId s = g_.tasks[t].stream;
    auto tasks = g_.stream(s);
    std::size_t pos = 0;
    while (tasks[pos] != t) ++pos;
    return pos < head_[s] && !(state_[s] == kBusy && pos + 1 == head_[s]);
  }

  const TaskGraph& g_;
  const std::vector<EngineObserver*>& obs_;
  std::vector<std::uint32_t> remaining_;
  std::vector<std::uint32_t> head_;
  std::vector<std::uint8_t> state_;
  std::vector<std::uint32_t> arrived_;
  EventQueue<TaskId> q_;
};

}  // namespace

EngineResult Engine::run() {
  return Run(g_, observers_).run();
}

}  // namespace trainsim
