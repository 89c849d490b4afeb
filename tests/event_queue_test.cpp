#include "engine/event_queue.h"

#include <catch2/catch.hpp>

using namespace trainsim;

TEST_CASE("event queue: pops by time, then by insertion order", "[event_queue]") {
  EventQueue<int> q;
  q.push(30, 1);
  q.push(10, 2);
  q.push(30, 3);  // same time as 1, pushed later: pops after it
  q.push(10, 4);
  std::vector<int> order;
  std::vector<TimeNs> times;
  while (!q.empty()) {
    auto e = q.pop();
    order.push_back(e.payload);
    times.push_back(q.now());
  }
  CHECK(order == std::vector<int>{2, 4, 1, 3});
  CHECK(times == std::vector<TimeNs>{10, 10, 30, 30});
}

TEST_CASE("event queue: time never goes backwards", "[event_queue]") {
  EventQueue<int> q;
  q.push(50, 0);
  q.pop();
  CHECK_THROWS_AS(q.push(49, 1), InternalError);  // before now(): a bug, not input
  CHECK_NOTHROW(q.push(50, 2));
}
