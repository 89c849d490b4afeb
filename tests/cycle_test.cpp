#include "graph/cycle.h"

#include <algorithm>
#include <array>

#include <catch2/catch.hpp>

#include "graph_fixtures.h"

using namespace trainsim;

TEST_CASE("cycle: an acyclic graph has no waiting cycle", "[cycle]") {
  TaskGraphBuilder b;
  const StreamId s = b.add_stream({});
  const WorkId w = b.add_work({1});
  const TaskId a = b.add_task(s, w), c = b.add_task(s, w);
  b.add_dependency(a, c);
  const TaskGraph g = b.build();
  CHECK(find_wait_cycle(g).empty());
}

TEST_CASE("cycle: a dependency against stream order is a cycle naming both tasks", "[cycle]") {
  TaskGraphBuilder b;
  const StreamId s = b.add_stream({});
  const WorkId w = b.add_work({1});
  const TaskId a = b.add_task(s, w), c = b.add_task(s, w);
  b.add_dependency(c, a);  // a waits for c, but c is behind a in the stream
  const TaskGraph g = b.build();
  auto cycle = find_wait_cycle(g);
  std::sort(cycle.begin(), cycle.end());
  CHECK(cycle == std::vector<TaskId>{a, c});
}

TEST_CASE("cycle: rendezvous cross-over across two streams is found", "[cycle]") {
  test::Crossover c;
  TaskGraphBuilder& b = c.builder;
  const TaskGraph g = b.build();
  // Contracted: {x,v} -> {u,y} via s0 (x before y) and {u,y} -> {x,v} via s1 (u before v).
  CHECK(find_wait_cycle(g).size() == 2);
}
