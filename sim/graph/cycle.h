#pragma once
// Finds why a task graph cannot complete. Waiting relations are the dependency edges, the
// stream order (a task waits for its predecessor in the stream) and rendezvous (members start
// together, so a rendezvous acts as one node). A cycle among them is a deadlock.
#include <vector>  // std::vector

#include "graph/task_graph.h"

namespace trainsim {

/// Tasks on one waiting cycle, in order (each waits for the next... and the last for the
/// first), or empty when the graph is acyclic.
std::vector<TaskId> find_wait_cycle(const TaskGraph& g);

}  // namespace trainsim
