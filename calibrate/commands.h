#pragma once
// trainsim-calibrate's GPU commands, one function each (main.cpp parses the command line).
// Each throws InputError (exit 2, one line) for bad input or a machine without the GPUs it
// needs, gpu::GpuError (exit 1) when a CUDA, cuBLASLt or NCCL call fails.
#include <string>  // std::string
#include <vector>  // std::vector

#include "pipeline_plan.h"

namespace trainsim {

struct GemmArgs {
  std::string scenario;
  std::vector<std::string> overrides;  ///< --set key=value
  std::string out = "calibration.json";
  int device = 0;
  int reps = 25;
  bool dry_run = false;  ///< print the plan, measure nothing (no GPU needed)
};
int cmd_gemm(const GemmArgs& a);

struct CollectivesArgs {
  int gpus = 0;  ///< 0: every visible GPU
  std::string out = "calibration.json";
  double max_bytes = 4.0 * (1ull << 30);
  int iters = 20;
};
int cmd_collectives(const CollectivesArgs& a);

struct ValidateArgs {
  std::string scenario;
  std::vector<std::string> overrides;
  std::string profile;
  int device = 0;
  int stage = 0;  ///< pipeline rank whose kernels run (one GPU)
  int gpus = 1;   ///< > 1: the whole pipeline, one GPU per pipeline rank (= parallelism.pp)
};
int cmd_validate(const ValidateArgs& a);
/// validate --gpus N > 1: the pipeline of replica 0 on GPUs device … device + N − 1, measured
/// beside trainsim's prediction (printed by validate_pipeline).
struct PipelineValidation {
  std::string schedule;
  int microbatches = 0;
  std::vector<RankTimes> predicted, measured;  ///< per pipeline rank
  std::string cost_sources;
};
PipelineValidation measure_pipeline(const ValidateArgs& a);
int validate_pipeline(const ValidateArgs& a);

}  // namespace trainsim
