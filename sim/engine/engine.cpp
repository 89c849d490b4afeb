#include "engine/engine.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engine/event_queue.h"

namespace trainsim {
namespace {

// An end event; `version` tells a task's current end from one superseded by a rate change.
struct End {
  TaskId task;
  std::uint32_t version;
};

class Run {
 public:
  Run(const TaskGraph& g, const std::vector<EngineObserver*>& obs, const std::atomic<bool>* stop)
      : g_(g),
        obs_(obs),
        stop_(stop),
        contended_(!g.resources.empty()),
        remaining_(g.pred_count),
        head_(g.streams.size(), 0),
        state_(g.streams.size(), kIdle),
        arrived_(g.rendezvous_count(), 0) {
    if (contended_) {
      left_.assign(g.streams.size(), 0.0);
      rate_.assign(g.streams.size(), 1.0);
      since_.assign(g.streams.size(), 0);
      version_.assign(g.streams.size(), 0);
      mark_.assign(g.streams.size(), 0);
      share_.assign(g.resources.size(), 0);
      aggressors_.assign(g.resources.size(), 0);
      group_mark_.assign(g.pace_count(), 0);
      group_seen_.assign(g.pace_count(), 0);
      group_rate_.assign(g.pace_count(), 1.0);
    }
  }

  EngineResult run() {
    for (StreamId s = 0; s < g_.streams.size(); ++s) try_advance(s, 0);
    EngineResult r;
    std::size_t events = 0;
    while (!q_.empty()) {
      if (stop_ && ++events % Engine::kStopCheckEvents == 0 &&
          stop_->load(std::memory_order_relaxed)) {
        r.stopped = true;
        return r;
      }
      const auto ev = q_.pop();
      const TaskId t = ev.payload.task;
      const StreamId s = g_.tasks[t].stream;
      if (contended_) {
        if (ev.payload.version != version_[s]) continue;  // superseded by a rate change
        release(s, ev.time);
      }
      for (auto* o : obs_) o->on_end(t, ev.time);
      ++r.completed;
      r.makespan = ev.time;
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
    if (!contended_) {
      q_.push(add_time(now, g_.duration(t)), {t, 0});
      return;
    }
    left_[s] = static_cast<double>(g_.duration(t));
    since_[s] = now;
    rate_[s] = -1.0;  // no end event yet: reschedule() must push one
    change(s, now, +1);
  }

  void release(StreamId s, TimeNs now) {
    ending_ = s;  // still marked busy, but no longer slows or is slowed by anything
    change(s, now, -1);
    ending_ = kNone;
  }

  // --- contention: rates change when a task on a shared resource starts (+1) or ends (−1) ---

  TaskId running(StreamId s) const { return g_.stream(s)[head_[s] - 1]; }

  // Stream `s` starts (delta +1) or stops (−1) using its resources at `now`: every running task
  // whose rate may change is brought up to date at its old rate, the resource counts change,
  // and those tasks get new rates and new end events.
  void change(StreamId s, TimeNs now, int delta) {
    ++epoch_;
    affected_.clear();
    if (delta > 0) add(s, now);
    mark_[s] = epoch_;  // the ending stream itself is not rescheduled
    for (const ResourceUse& u : g_.uses_of(s)) {
      const Resource& res = g_.resources[u.resource];
      if (res.policy == ResourcePolicy::FairShare) {
        for (const auto& [other, role] : g_.users_of(u.resource))
          if (state_[other] == kBusy) add(other, now);
      } else if (u.role == ResourceRole::Aggressor &&
                 aggressors_[u.resource] == (delta > 0 ? 0u : 1u)) {
        for (const auto& [other, role] : g_.users_of(u.resource))
          if (role == ResourceRole::Victim && state_[other] == kBusy) add(other, now);
      }
    }
    for (const ResourceUse& u : g_.uses_of(s)) {
      if (u.role == ResourceRole::Share) share_[u.resource] += delta;
      if (u.role == ResourceRole::Aggressor) aggressors_[u.resource] += delta;
    }
    // A collective's members progress at their pace group's lowest rate: theirs may change too.
    partners(s, now);
    for (std::size_t i = 0; i < affected_.size(); ++i) partners(affected_[i], now);
    for (StreamId a : affected_) reschedule(a, now);
  }

  void add(StreamId s, TimeNs now) {
    if (mark_[s] == epoch_) return;
    mark_[s] = epoch_;
    left_[s] = std::max(0.0, left_[s] - static_cast<double>(now - since_[s]) * rate_[s]);
    since_[s] = now;
    affected_.push_back(s);
  }

  void partners(StreamId s, TimeNs now) {
    if (state_[s] != kBusy) return;
    const std::uint32_t rv = g_.pace[running(s)];
    if (rv == kNone || group_seen_[rv] == epoch_) return;
    group_seen_[rv] = epoch_;  // each group's members are added once per change
    for (TaskId m : g_.pace_group(rv)) {
      const StreamId ms = g_.tasks[m].stream;
      if (state_[ms] == kBusy && running(ms) == m) add(ms, now);
    }
  }

  double local_rate(StreamId s) const {
    double r = 1.0;
    for (const ResourceUse& u : g_.uses_of(s)) {
      if (u.role == ResourceRole::Share)
        r = std::min(r, 1.0 / std::max(1u, share_[u.resource]));
      else if (u.role == ResourceRole::Victim && aggressors_[u.resource] > 0)
        r = std::min(r, 1.0 / (1.0 + g_.resources[u.resource].factor));
    }
    return r;
  }

  double rate(StreamId s) {
    const std::uint32_t rv = g_.pace[running(s)];
    if (rv == kNone) return local_rate(s);  // no collective, or only beside one
    if (group_mark_[rv] != epoch_) {        // once per group per change
      group_mark_[rv] = epoch_;
      double r = 1.0;
      for (TaskId m : g_.pace_group(rv)) {
        const StreamId ms = g_.tasks[m].stream;
        if (ms != ending_ && state_[ms] == kBusy && running(ms) == m)
          r = std::min(r, local_rate(ms));
      }
      group_rate_[rv] = r;
    }
    return group_rate_[rv];
  }

  void reschedule(StreamId s, TimeNs now) {
    const double r = rate(s);
    if (r == rate_[s]) return;  // same pace: its end event still holds
    rate_[s] = r;
    // Whole nanoseconds, rounding up; the tolerance keeps an exact division exact.
    q_.push(add_time(now, ceil_ns(left_[s] / rate_[s] - 1e-6)), {running(s), ++version_[s]});
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
  const std::atomic<bool>* stop_;
  const bool contended_;
  std::vector<std::uint32_t> remaining_;  ///< unfinished dependencies per task
  std::vector<std::uint32_t> head_;
  std::vector<std::uint8_t> state_;
  std::vector<std::uint32_t> arrived_;
  EventQueue<End> q_;
  // Contention state, per stream (a stream runs one task at a time) and per resource.
  std::vector<double> left_;   ///< work left of the running task, ns at full rate
  std::vector<double> rate_;   ///< its current progress rate (≤ 1)
  std::vector<TimeNs> since_;  ///< when left_ was last brought up to date
  std::vector<std::uint32_t> version_;
  std::vector<std::uint32_t> mark_;
  std::vector<std::uint32_t> share_, aggressors_;  ///< running Share / Aggressor users
  std::vector<std::uint32_t> group_mark_, group_seen_;
  std::vector<double> group_rate_;
  std::vector<StreamId> affected_;
  std::uint32_t epoch_ = 0;
  StreamId ending_ = kNone;
};

}  // namespace

EngineResult Engine::run() {
  return Run(g_, observers_, stop_).run();
}

}  // namespace trainsim
