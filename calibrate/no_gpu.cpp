// trainsim-calibrate built without CUDA (no toolkit or no NCCL found): the commands that read
// logs and traces work; those that measure say in one line that this build cannot (exit 2).
// `gemm --dry-run` still prints the plan: it needs no GPU.
#include <iostream>

#include <fmt/format.h>

#include "commands.h"
#include "core/error.h"
#include "gemm_plan.h"
#include "scenario/scenario_loader.h"

namespace trainsim {
namespace {

[[noreturn]] void no_gpu(const char* command) {
  throw InputError(fmt::format(
      "trainsim-calibrate {}: this build has no CUDA (CMake found no CUDA toolkit with NCCL); "
      "install one and rebuild to measure on GPUs. import-nccl-tests and import-torch-trace "
      "work without it",
      command));
}

}  // namespace

int cmd_gemm(const GemmArgs& a) {
  if (!a.dry_run) no_gpu("gemm");
  const Scenario s = load_scenario(a.scenario, a.overrides);
  if (!s.model || !s.has_cluster)
    throw InputError(fmt::format(
        "{}: gemm needs a scenario with a model and a cluster (it times their GEMM shapes)",
        a.scenario));
  std::cout << format_gemm_plan(plan_gemms(s), plan_copy_bytes(), gemm_dtype(s),
                                s.training.precision == Precision::FP8);
  return 0;
}

int cmd_collectives(const CollectivesArgs&) {
  no_gpu("collectives");
}

int cmd_validate(const ValidateArgs&) {
  no_gpu("validate");
}

}  // namespace trainsim
