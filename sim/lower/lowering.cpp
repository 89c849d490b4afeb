#include "lower/lowering.h"

#include "lower/program.h"

namespace trainsim {

Lowered lower(const Scenario& sc, const Schedule& sch, const CostModel& cost, bool fold) {
  Program p(sc, sch, cost, make_rank_set(sc, fold));
  const ComputeTasks compute = add_compute_pass(p);
  const LayerCommTasks layer_comm = add_layer_comm_pass(p);
  add_p2p_pass(p, layer_comm);
  add_param_gather_pass(p, compute);
  add_activation_offload_pass(p);
  add_dp_optimizer_pass(p, compute, layer_comm.tails);
  add_launch_pass(p, compute);
  std::string contention = add_contention_pass(p);
  return {p.builder.build(), std::move(p.ranks), std::move(contention)};
}

}  // namespace trainsim
