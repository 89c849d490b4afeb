#pragma once
// The chain of tasks the step's end actually waited on. Walking back from the last task to
// finish, each step follows the constraint that bound the task's start: a dependency, the
// previous task in its stream, or, for a rendezvous, either of those of any member (whose end
// equals the start). The chain covers [0, makespan] without gaps, so its time by kind says
// where the step goes: compute, TP, DP/ZeRO, pipeline transfers, optimizer.
#include <cstddef>  // std::size_t

#include "run/timeline.h"

namespace trainsim {

struct CriticalPath {
  double compute_s = 0;    ///< F, B, I, W, F&B and backward parts
  double tp_s = 0;         ///< tensor-parallel collectives
  double dp_s = 0;         ///< data-parallel / ZeRO collectives
  double pp_s = 0;         ///< pipeline sends and receives
  double ep_s = 0;         ///< expert parallelism's all-to-alls
  double cp_s = 0;         ///< context parallelism's key/value exchange
  double host_s = 0;       ///< activation offload's copies to and from host memory
  double launch_s = 0;     ///< the CPU issuing kernels (efficiency.host_per_kernel)
  double optimizer_s = 0;  ///< the optimizer step
  double waiting_s = 0;    ///< time no constraint explains (0 in a well-formed run)
  std::size_t tasks = 0;   ///< tasks on the chain
};

CriticalPath critical_path(const Timeline& tl);

}  // namespace trainsim
