#pragma once
// The "when" layer: a discrete-event simulation of a TaskGraph. A task starts when all its
// dependencies have finished and it is at the head of its (in-order) stream; the members of a
// rendezvous start together once every one of them is ready (a collective's members then keep
// its slowest member's pace, tasks beside it their own). Time is integer nanoseconds and
// events are ordered by (time, seq), so identical inputs give identical runs. When the graph
// declares shared resources, a running task's progress rate follows what else runs on them
// (task_graph.h: fair-shared links, compute slowed by communication) and its end moves with it;
// end times stay whole nanoseconds, rounded up.
// The engine knows tasks, streams and time only — never schedules, layers or libraries.
#include <atomic>  // std::atomic
#include <vector>  // std::vector

#include "engine/observer.h"
#include "graph/task_graph.h"

namespace trainsim {

/// A stream that could not proceed when the simulation ran out of events.
struct BlockedStream {
  StreamId stream;
  TaskId task;                    ///< the task at the head of the stream
  std::vector<TaskId> waits_for;  ///< unfinished dependencies, or rendezvous members not ready
  bool at_rendezvous = false;     ///< true when the task waits for rendezvous partners
};

struct EngineResult {
  TimeNs makespan = 0;
  std::size_t completed = 0;
  std::vector<BlockedStream> blocked;  ///< empty when every task completed
  bool stopped = false;                ///< the stop flag was raised; the run is partial
  bool complete() const { return blocked.empty() && !stopped; }
};

class Engine {
 public:
  explicit Engine(const TaskGraph& g) : g_(g) {}
  /// Observers are called in subscription order; they must outlive run().
  void subscribe(EngineObserver* o) { observers_.push_back(o); }
  /// When `*stop` becomes true (another thread's request), run() returns early with
  /// `stopped` set. Checked every kStopCheckEvents events, so a stop costs at most that many.
  void set_stop_flag(const std::atomic<bool>* stop) { stop_ = stop; }
  static constexpr std::size_t kStopCheckEvents = 4096;
  /// Runs the graph to completion (or until nothing can move) and returns the makespan.
  EngineResult run();

 private:
  const TaskGraph& g_;
  std::vector<EngineObserver*> observers_;
  const std::atomic<bool>* stop_ = nullptr;
};

/// Records every task's start and end: the raw timeline.
class TimelineRecorder : public EngineObserver {
 public:
  explicit TimelineRecorder(std::size_t tasks) : start_(tasks, -1), end_(tasks, -1) {}
  void on_start(TaskId t, TimeNs time) override { start_[t] = time; }
  void on_end(TaskId t, TimeNs time) override { end_[t] = time; }
  std::vector<TimeNs>& start() { return start_; }
  std::vector<TimeNs>& end() { return end_; }

 private:
  std::vector<TimeNs> start_, end_;
};

}  // namespace trainsim
