#pragma once
// Small task graphs shared by the engine and cycle tests.
#include <array>

#include "graph/task_graph.h"

namespace trainsim::test {

/// Two streams, s0: x then y; s1: u then v; rendezvous (x, v) and (u, y). x waits for v, which
/// is behind u, which waits for y, which is behind x: a cross-over deadlock.
struct Crossover {
  TaskGraphBuilder builder;
  TaskId x, y, u, v;
  Crossover() {
    const StreamId s0 = builder.add_stream({}), s1 = builder.add_stream({});
    const WorkId w = builder.add_work({1});
    x = builder.add_task(s0, w);
    y = builder.add_task(s0, w);
    u = builder.add_task(s1, w);
    v = builder.add_task(s1, w);
    builder.add_rendezvous(std::array<TaskId, 2>{x, v});
    builder.add_rendezvous(std::array<TaskId, 2>{u, y});
  }
};

}  // namespace trainsim::test
