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

TEST_CASE("engine: two equal flows on a shared link each get half its bandwidth",
          "[engine][contention]") {
  TaskGraphBuilder b;
  const StreamId s0 = b.add_stream({}), s1 = b.add_stream({});
  const ResourceId link = b.add_resource({ResourcePolicy::FairShare, 0});
  b.use_resource(s0, link, ResourceRole::Share);
  b.use_resource(s1, link, ResourceRole::Share);
  const WorkId flow = b.add_work({10});
  const TaskId a = b.add_task(s0, flow), c = b.add_task(s1, flow);
  auto r = run(b);
  // Both start at 0 at rate 1/2: 10 ns of work each takes 20 ns.
  CHECK(r.end[a] == 20);
  CHECK(r.end[c] == 20);
}

TEST_CASE("engine: a flow gets the whole link back when the other one ends",
          "[engine][contention]") {
  TaskGraphBuilder b;
  const StreamId s0 = b.add_stream({}), s1 = b.add_stream({}), s2 = b.add_stream({});
  const ResourceId link = b.add_resource({ResourcePolicy::FairShare, 0});
  b.use_resource(s0, link, ResourceRole::Share);
  b.use_resource(s1, link, ResourceRole::Share);
  const TaskId shorter = b.add_task(s0, b.add_work({10}));
  const TaskId longer = b.add_task(s1, b.add_work({30}));
  const TaskId other = b.add_task(s2, b.add_work({30}));  // not on the link: unaffected
  auto r = run(b);
  // Rate 1/2 each until the shorter one's 10 ns are done at 20; the longer one has done 10 of
  // its 30 and runs the last 20 alone: ends at 40.
  CHECK(r.end[shorter] == 20);
  CHECK(r.end[longer] == 40);
  CHECK(r.end[other] == 30);
}

TEST_CASE("engine: compute runs slower while communication runs beside it",
          "[engine][contention]") {
  TaskGraphBuilder b;
  const StreamId compute = b.add_stream({}), comm = b.add_stream({});
  const ResourceId sm = b.add_resource({ResourcePolicy::Interference, 0.25});
  b.use_resource(compute, sm, ResourceRole::Victim);
  b.use_resource(comm, sm, ResourceRole::Aggressor);
  const TaskId gemm = b.add_task(compute, b.add_work({100}));
  const TaskId coll = b.add_task(comm, b.add_work({20}));
  const TaskId gemm2 = b.add_task(compute, b.add_work({50}));
  auto r = run(b);
  // The collective is not slowed: ends at 20. Until then the GEMM runs at 1/1.25 = 0.8 and does
  // 16 of its 100; the other 84 at full rate: ends at 104. The next GEMM runs alone: 154.
  CHECK(r.end[coll] == 20);
  CHECK(r.end[gemm] == 104);
  CHECK(r.end[gemm2] == 154);
}

TEST_CASE("engine: a collective's members progress at their slowest member's rate",
          "[engine][contention]") {
  TaskGraphBuilder b;
  const StreamId s0 = b.add_stream({}), s1 = b.add_stream({}), s2 = b.add_stream({});
  const ResourceId nic1 = b.add_resource({ResourcePolicy::FairShare, 0});
  b.use_resource(s1, nic1, ResourceRole::Share);
  b.use_resource(s2, nic1, ResourceRole::Share);
  const WorkId coll = b.add_work({20});
  const TaskId c0 = b.add_task(s0, coll), c1 = b.add_task(s1, coll);
  const std::array<TaskId, 2> members{c0, c1};
  b.add_rendezvous(members);
  const TaskId send = b.add_task(s2, b.add_work({10}));  // shares member 1's NIC
  auto r = run(b);
  // Member 1 and the send split the NIC: rate 1/2 for both members until the send's 10 ns are
  // done at 20 (the collective has done 10 of 20), then the last 10 at full rate: both at 30.
  CHECK(r.end[send] == 20);
  CHECK(r.end[c0] == 30);
  CHECK(r.end[c1] == 30);
}

TEST_CASE("engine: a task beside a collective starts with it and keeps its own pace",
          "[engine][contention]") {
  // Compute C (25 ns, after a 7 ns task on its stream) beside a collective c0, c1 (20 ns each);
  // member 1 shares its NIC with a 10 ns send that starts at 0. All three start at 7 (C is
  // ready last). The send runs alone 0–7 (7 done), then shares: its last 3 ns at 1/2 end at 13.
  // The members do 3 ns of 20 by 13 at 1/2, then 17 at full rate: both end at 30. C is no member:
  // it runs at its own full rate, 7 + 25 = 32 (at the members' pace it would end at 35).
  TaskGraphBuilder b;
  const StreamId sc = b.add_stream({}), s0 = b.add_stream({}), s1 = b.add_stream({}),
                 s2 = b.add_stream({});
  const ResourceId nic1 = b.add_resource({ResourcePolicy::FairShare, 0});
  b.use_resource(s1, nic1, ResourceRole::Share);
  b.use_resource(s2, nic1, ResourceRole::Share);
  b.add_task(sc, b.add_work({7}));
  const TaskId c = b.add_task(sc, b.add_work({25}));
  const WorkId coll = b.add_work({20});
  const TaskId c0 = b.add_task(s0, coll), c1 = b.add_task(s1, coll);
  const TaskId send = b.add_task(s2, b.add_work({10}));
  b.add_rendezvous(std::array<TaskId, 2>{c0, c1}, std::array<TaskId, 1>{c});
  auto r = run(b);
  CHECK(r.g.rendezvous_count() == 1);
  CHECK(r.g.pace_count() == 1);
  CHECK(r.g.pace[c] == kNone);
  for (TaskId t : {c, c0, c1}) CHECK(r.start[t] == 7);
  CHECK(r.end[send] == 13);
  CHECK(r.end[c0] == 30);
  CHECK(r.end[c1] == 30);
  CHECK(r.end[c] == 32);
}

TEST_CASE("engine: a task beside two collectives starts with both", "[engine]") {
  // C (10 ns) beside collective A = {a0, a1} (6 ns) and collective B = {b0} (4 ns). a1's
  // stream runs at half rate while a 100 ns task runs on an aggressor stream (interference,
  // factor 1): its first task (4 ns) ends at 8; b0 is ready at 9: one start group, everything
  // at 9. Two pace groups: A's members both at a1's half rate, 6 ns → 21; B's and C at their
  // own full rate, 13 and 19.
  TaskGraphBuilder b;
  const StreamId sc = b.add_stream({}), sa0 = b.add_stream({}), sa1 = b.add_stream({}),
                 sb = b.add_stream({}), sx = b.add_stream({});
  const ResourceId sm = b.add_resource({ResourcePolicy::Interference, 1.0});
  b.use_resource(sa1, sm, ResourceRole::Victim);
  b.use_resource(sx, sm, ResourceRole::Aggressor);
  b.add_task(sx, b.add_work({100}));
  const TaskId c = b.add_task(sc, b.add_work({10}));
  const WorkId wa = b.add_work({6});
  const TaskId a0 = b.add_task(sa0, wa);
  b.add_task(sa1, b.add_work({4}));
  const TaskId a1 = b.add_task(sa1, wa);
  b.add_task(sb, b.add_work({9}));
  const TaskId b0 = b.add_task(sb, b.add_work({4}));
  const std::array<TaskId, 1> beside{c};
  b.add_rendezvous(std::array<TaskId, 2>{a0, a1}, beside);
  b.add_rendezvous(std::array<TaskId, 1>{b0}, beside);
  auto r = run(b);
  CHECK(r.g.rendezvous_count() == 1);
  CHECK(r.g.rendezvous(0).size() == 4);
  CHECK(r.g.pace_count() == 2);
  CHECK(r.g.pace[a0] == r.g.pace[a1]);
  CHECK(r.g.pace[b0] != r.g.pace[a0]);
  for (TaskId t : {c, a0, a1, b0}) CHECK(r.start[t] == 9);
  CHECK(r.end[c] == 19);
  CHECK(r.end[a0] == 21);
  CHECK(r.end[a1] == 21);
  CHECK(r.end[b0] == 13);
  CHECK(r.result.makespan == 100);
}

TEST_CASE("engine: contended runs are deterministic", "[engine][contention]") {
  auto make = [] {
    TaskGraphBuilder b;
    const ResourceId sm = b.add_resource({ResourcePolicy::Interference, 0.189});
    const ResourceId link = b.add_resource({ResourcePolicy::FairShare, 0});
    std::vector<StreamId> s;
    for (int i = 0; i < 4; ++i) s.push_back(b.add_stream({}));
    b.use_resource(s[0], sm, ResourceRole::Victim);
    for (int i = 1; i < 4; ++i) {
      b.use_resource(s[static_cast<std::size_t>(i)], sm, ResourceRole::Aggressor);
      b.use_resource(s[static_cast<std::size_t>(i)], link, ResourceRole::Share);
    }
    for (int i = 0; i < 40; ++i)
      b.add_task(s[static_cast<std::size_t>(i % 4)], b.add_work({7 + 13 * (i % 5)}));
    return b;
  };
  auto b1 = make(), b2 = make();
  auto r1 = run(b1), r2 = run(b2);
  CHECK(r1.result.complete());
  CHECK(r1.start == r2.start);
  CHECK(r1.end == r2.end);
  // Contention only ever slows: the compute stream's 10 tasks take at least their sum.
  TimeNs sum = 0;
  for (int i = 0; i < 40; i += 4) sum += 7 + 13 * (i % 5);
  CHECK(r1.end[36] >= sum);
}

TEST_CASE("engine: a raised stop flag ends the run early and says so", "[engine]") {
  // A chain of 3·4096 unit tasks: without a stop it completes at 3·4096; with the flag raised
  // before run() the engine stops at its first check, after kStopCheckEvents − 1 events.
  constexpr std::size_t n = 3 * Engine::kStopCheckEvents;
  TaskGraphBuilder b;
  const StreamId s = b.add_stream({});
  const WorkId w = b.add_work({1});
  for (std::size_t i = 0; i < n; ++i) b.add_task(s, w);
  TaskGraph g = b.build();
  std::atomic<bool> stop{false};
  Engine free_run(g);
  free_run.set_stop_flag(&stop);
  const EngineResult whole = free_run.run();
  CHECK(whole.complete());
  CHECK(whole.makespan == static_cast<TimeNs>(n));
  stop = true;
  Engine stopped(g);
  stopped.set_stop_flag(&stop);
  const EngineResult part = stopped.run();
  CHECK(part.stopped);
  CHECK_FALSE(part.complete());
  CHECK(part.completed == Engine::kStopCheckEvents - 1);
}
