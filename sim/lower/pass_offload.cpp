#include <fmt/format.h>

#include "core/error.h"
#include "lower/program.h"
#include "memory/footprint.h"

namespace trainsim {

void add_activation_offload_pass(Program& p) {
  const Scenario& sc = p.scenario;
  if (sc.training.offload_activation_layers <= 0 || !sc.model || !p.cost.models_hardware()) return;
  // Bytes per micro-batch each stage moves each way (memory/footprint.h), and their transfer.
  std::vector<double> bytes(static_cast<std::size_t>(p.schedule.stages));
  for (int st = 0; st < p.schedule.stages; ++st)
    bytes[static_cast<std::size_t>(st)] = offloaded_activation_bytes(sc, p.model_stage(st));
  for (int r = 0; r < static_cast<int>(p.ranks.ranks.size()); ++r) {
    const std::vector<TaskId> order =
        p.builder.stream_order(p.compute_stream[static_cast<std::size_t>(r)]);
    std::map<std::pair<int, int>, TaskId> offloaded;  // (stage, micro-batch) -> its D2H copy
    // The latest copy out issued once each compute task has been placed.
    std::vector<TaskId> last_down(order.size(), kNone);
    for (std::size_t i = 0; i < order.size(); ++i) {
      const TaskId t = order[i];
      if (i > 0) last_down[i] = last_down[i - 1];
      const Task task = p.builder.task(t);
      const Work w = p.builder.work(task.work);
      const auto type = static_cast<TaskType>(w.type);
      if (type == TaskType::ForwardBackward)
        throw ScenarioError(sc.source, "training.offload_activations",
                            fmt::format("activation offload with {}'s overlapped F&B pairs is "
                                        "not modelled: use another schedule or "
                                        "offload_activations: 0",
                                        p.schedule.name));
      const double b = w.stage >= 0 ? bytes[static_cast<std::size_t>(w.stage)] : 0.0;
      if (b <= 0) continue;
      const Cost c = p.cost.host_transfer(b);
      // After the forward (its last part): down the host link — unless its backward is the
      // very next compute (the last stage of 1F1B): nothing would run while they travel, and
      // nothing would be freed.
      auto backward_of = [&](std::size_t j) {
        if (j >= order.size()) return false;
        const Task next = p.builder.task(order[j]);
        const Work& nw = p.builder.work(next.work);
        const auto nt = static_cast<TaskType>(nw.type);
        return (nt == TaskType::Backward || nt == TaskType::BackwardInput) && nw.stage == w.stage &&
               next.microbatch == task.microbatch;
      };
      if (type == TaskType::Forward && w.part + 1 == w.parts && !backward_of(i + 1)) {
        const TaskId down = p.builder.add_task(
            p.stream(r, StreamType::HostLink),
            p.work(TaskType::ActivationOffload, w.stage, w.chunk, c), task.microbatch);
        p.builder.add_dependency(t, down);
        offloaded[{w.stage, task.microbatch}] = down;
        last_down[i] = down;
      }
      // Before the backward that needs them (B, or I when split; its first part): back up,
      // issued when the compute before it starts (the task before that one has ended) and
      // the copies out of the forwards before that one are done.
      if ((type == TaskType::Backward || type == TaskType::BackwardInput) && w.part == 0) {
        const auto it = offloaded.find({w.stage, task.microbatch});
        if (it == offloaded.end()) continue;  // kept: its backward came right after it
        const TaskId up = p.builder.add_task(
            p.stream(r, StreamType::HostLinkIn),
            p.work(TaskType::ActivationReload, w.stage, w.chunk, c), task.microbatch);
        // After the copies out of the forwards before the compute it runs beside: a reload that
        // overtook them would hold memory while they still wait (1F1B's warm-up forwards).
        p.builder.add_dependency(it->second, up);
        if (i >= 2 && last_down[i - 2] != kNone) p.builder.add_dependency(last_down[i - 2], up);
        if (i >= 2) p.builder.add_dependency(order[i - 2], up);
        p.builder.add_dependency(up, t);
      }
    }
  }
}

}  // namespace trainsim
