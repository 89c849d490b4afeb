#include "engine/engine.h"

#include <array>

#include <catch2/catch.hpp>

#include "graph_fixtures.h"

using namespace trainsim;

namespace {

struct Built {
  TaskGraph g;
  std::vector<TimeNs> start, end;
  EngineResult result;
};

Built run(TaskGraphBuilder& b) {
  Built out{b.build(), {}, {}, {}};
  Engine e(out.g);
  TimelineRecorder rec(out.g.size());
  e.subscribe(&rec);
  out.result = e.run();
  out.start = rec.start();
  out.end = rec.end();
  return out;
}

}  // namespace

TEST_CASE("engine: a stream runs its tasks in order, one at a time", "[engine]") {
  TaskGraphBuilder b;
  const StreamId s = b.add_stream({});
  const WorkId w3 = b.add_work({3}), w5 = b.add_work({5});
  const TaskId a = b.add_task(s, w3), c = b.add_task(s, w5), d = b.add_task(s, w3);
  auto r = run(b);
  // 3 then 5 then 3, back to back: ends at 3, 8, 11.
  CHECK(r.end[a] == 3);
  CHECK(r.start[c] == 3);
  CHECK(r.end[c] == 8);
  CHECK(r.end[d] == 11);
  CHECK(r.result.makespan == 11);
  CHECK(r.result.complete());
}

TEST_CASE("engine: a task waits for dependencies on other streams", "[engine]") {
  TaskGraphBuilder b;
  const StreamId s0 = b.add_stream({}), s1 = b.add_stream({});
  const TaskId a = b.add_task(s0, b.add_work({10}));
  const TaskId c = b.add_task(s1, b.add_work({4}));  // would start at 0 ...
  const TaskId d = b.add_task(s1, b.add_work({1}));  // ... this waits for a (ends 10)
  b.add_dependency(a, d);
  auto r = run(b);
  CHECK(r.start[c] == 0);
  CHECK(r.start[d] == 10);  // max(end of c = 4, end of a = 10)
  CHECK(r.result.makespan == 11);
}

TEST_CASE("engine: rendezvous members start together when the last one is ready", "[engine]") {
  TaskGraphBuilder b;
  const StreamId s0 = b.add_stream({}), s1 = b.add_stream({}), s2 = b.add_stream({});
  const TaskId pre0 = b.add_task(s0, b.add_work({2}));
  const TaskId pre1 = b.add_task(s1, b.add_work({7}));
  const WorkId coll = b.add_work({5});
  const TaskId c0 = b.add_task(s0, coll), c1 = b.add_task(s1, coll), c2 = b.add_task(s2, coll);
  const std::array<TaskId, 3> members{c0, c1, c2};
  b.add_rendezvous(members);
  auto r = run(b);
  (void)pre0;
  (void)pre1;
  // Ready at 2, 7 and 0: all start at the latest, 7, and end at 7 + 5 = 12.
  for (TaskId t : members) {
    CHECK(r.start[t] == 7);
    CHECK(r.end[t] == 12);
  }
}

TEST_CASE("engine: a stuck rendezvous is reported with the member it waits for", "[engine]") {
  test::Crossover c;
  const TaskId x = c.x, v = c.v;
  TaskGraphBuilder& b = c.builder;
  auto r = run(b);
  CHECK_FALSE(r.result.complete());
  CHECK(r.result.completed == 0);
  REQUIRE(r.result.blocked.size() == 2);
  CHECK(r.result.blocked[0].task == x);
  CHECK(r.result.blocked[0].at_rendezvous);
  CHECK(r.result.blocked[0].waits_for == std::vector<TaskId>{v});
}

TEST_CASE("engine: zero-duration tasks and identical inputs give identical runs", "[engine]") {
  auto make = [] {
    TaskGraphBuilder b;
    const StreamId s0 = b.add_stream({}), s1 = b.add_stream({});
    const WorkId z = b.add_work({0}), w = b.add_work({3});
    TaskId prev = b.add_task(s0, z);
    for (int i = 0; i < 20; ++i) {
      const TaskId t = b.add_task(i % 2 ? s0 : s1, i % 3 ? w : z);
      b.add_dependency(prev, t);
      prev = t;
    }
    return b;
  };
  auto b1 = make(), b2 = make();
  auto r1 = run(b1), r2 = run(b2);
  CHECK(r1.start == r2.start);
  CHECK(r1.end == r2.end);
  // A chain of 20: 13 tasks of 3 (i % 3 != 0 for i in 0..19) and the rest zero: 39.
  CHECK(r1.result.makespan == 39);
}
