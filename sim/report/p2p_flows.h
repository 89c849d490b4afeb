#pragma once
// A micro-batch's path between ranks: one flow per p2p transfer, from the compute task that
// produced the data to the compute task on the other rank that consumed it. The Chrome trace
// draws them as flow arrows, the GUI as the selected micro-batch's arrows.
#include <vector>  // std::vector

#include "graph/task_graph.h"

namespace trainsim {

struct P2pFlow {
  TaskId from = kNone;  ///< producing compute task (sender's side)
  TaskId send = kNone, recv = kNone;
  TaskId to = kNone;  ///< consuming compute task (receiver's side)
  RendezvousId rendezvous = kNone;
};

/// Every matched send/recv pair whose producer and consumer are known, in rendezvous order.
std::vector<P2pFlow> p2p_flows(const TaskGraph& g);

}  // namespace trainsim
