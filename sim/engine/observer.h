#pragma once
// What the engine tells the world: task start and end. The timeline
// recorder, trace writer, statistics and memory tracker subscribe; the engine includes none
// of them.
#include "core/time.h"
#include "graph/task_graph.h"

namespace trainsim {

class EngineObserver {
 public:
  virtual ~EngineObserver() = default;
  virtual void on_start(TaskId /*task*/, TimeNs /*time*/) {}
  virtual void on_end(TaskId /*task*/, TimeNs /*time*/) {}
};

}  // namespace trainsim
