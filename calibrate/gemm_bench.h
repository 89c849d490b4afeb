#pragma once
// Timing GEMMs and copies on one GPU the usual way: cuBLASLt, bf16/fp16 inputs
// with fp32 accumulation, a 32 MiB workspace, the heuristic's top algorithms tried and the
// fastest kept, random inputs, L2 flushed before every timed run, CUDA events, median and
// spread of many runs.
#include <cstdint>  // std::int64_t
#include <map>      // std::map
#include <memory>   // std::unique_ptr
#include <tuple>    // std::tuple

#include "gemm_plan.h"
#include "gpu.h"

namespace trainsim {

class GemmBench {
 public:
  /// Operand pools of these sizes (gemm_plan.h: operand_pools), A and B filled at random.
  GemmBench(int device, bool fp16, const OperandPools& pools);
  ~GemmBench();
  GemmBench(const GemmBench&) = delete;
  GemmBench& operator=(const GemmBench&) = delete;

  /// C[m×n] = A[m×k]·B[k×n], timed `reps` times with the fastest algorithm (chosen once per
  /// shape from the heuristic's top 8; remembered for run()).
  Timing time(std::int64_t m, std::int64_t n, std::int64_t k, int reps);
  /// One run on `stream`, untimed (validate's replay), with the algorithm time() chose, or the
  /// heuristic's first when the shape was never timed. `batch` > 1: that many GEMMs in a row.
  void run(std::int64_t m, std::int64_t n, std::int64_t k, int batch = 1);
  /// A device-to-device copy moving `bytes` in all (bytes / 2 read, bytes / 2 written).
  Timing time_copy(double bytes, int reps);
  void copy(double bytes);

  cudaStream_t stream() const { return stream_; }
  /// Writes over L2 so the next run reads its operands from HBM.
  void flush_l2();

 private:
  struct Plan;
  Plan& plan(std::int64_t m, std::int64_t n, std::int64_t k);
  void launch(Plan& p, const cublasLtMatmulAlgo_t& algo);

  bool fp16_;
  cudaStream_t stream_ = nullptr;
  cublasLtHandle_t handle_ = nullptr;
  gpu::DeviceBuffer a_, b_, c_, workspace_, flush_;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::unique_ptr<Plan>> plans_;
};

}  // namespace trainsim
