#pragma once
// A min-priority queue of events ordered by (time, seq): seq is the insertion counter, so two
// events at the same time pop in the order they were pushed and every run is deterministic.
#include <cstdint>  // std::uint64_t
#include <queue>    // std::priority_queue
#include <vector>   // std::vector

#include "core/error.h"
#include "core/time.h"

namespace trainsim {

template <typename Payload>
class EventQueue {
 public:
  struct Event {
    TimeNs time;
    std::uint64_t seq;
    Payload payload;
  };

  /// Schedules `payload` at `time`; time must not precede the last popped event.
  void push(TimeNs time, Payload payload) {
    TRAINSIM_CHECK(time >= now_, "an event cannot be scheduled in the past");
    heap_.push(Event{time, next_seq_++, payload});
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  /// The time of the last popped event (0 before any).
  TimeNs now() const { return now_; }
  /// Removes and returns the earliest event; advances now().
  Event pop() {
    Event e = heap_.top();
    heap_.pop();
    TRAINSIM_CHECK(e.time >= now_, "simulated time never goes backwards");
    now_ = e.time;
    return e;
  }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  std::uint64_t next_seq_ = 0;
  TimeNs now_ = 0;
};

}  // namespace trainsim
