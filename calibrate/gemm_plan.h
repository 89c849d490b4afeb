#pragma once
// What `trainsim-calibrate gemm --scenario S` measures, worked out without a GPU: every GEMM
// shape the cost model times for S (each stage's forward, input-gradient and weight-gradient
// GEMMs under its TP sharding and micro-batch, the LM head), then a sweep around each along
// one dimension at a time, so that nearby layouts (another TP degree, micro-batch or sequence
// length) fall on or between measured shapes (the GEMM table interpolates along one
// dimension); and the copy sizes memory-bound kernels are timed at.
#include <cstdint>  // std::int64_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "scenario/scenario.h"

namespace trainsim {

struct PlannedGemm {
  std::int64_t m = 0, n = 0, k = 0;
  std::string why;      ///< e.g. "qkv, attn_out.dgrad" or "sweep: qkv m×0.5"
  bool needed = false;  ///< a shape the scenario runs (not a sweep point)
  double bytes() const { return 2.0 * static_cast<double>(m * k + k * n + m * n); }
  double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * k; }
};

struct GemmPlanOptions {
  /// Sweep factors applied to one dimension at a time (1/4 … 4 covers TP 1–8 from TP 2, and
  /// micro-batches or sequences up to 4× apart).
  std::vector<double> factors{0.25, 0.5, 2.0, 4.0};
  /// Sweep points whose operands (bf16 A, B, C) would exceed this are left out.
  double max_bytes = 8.0 * (1ull << 30);
};

/// Needed shapes first (in the order the scenario's kernels name them), then the sweep; no
/// shape twice. Requires a scenario with a model and a cluster.
std::vector<PlannedGemm> plan_gemms(const Scenario& s, const GemmPlanOptions& o = {});

/// 16-bit elements the GEMM timer's operand pools hold for A, B and C.
struct OperandPools {
  std::size_t a = 0, b = 0, c = 0;
  double bytes() const { return 2.0 * static_cast<double>(a + b + c); }
};
/// Pools for every GEMM in `gemms` (the largest m·k, k·n and m·n) and for copies moving up to
/// `copy_bytes` (a copy reads half of them from A's pool and writes half into C's).
OperandPools operand_pools(const std::vector<PlannedGemm>& gemms, double copy_bytes);

/// Total bytes moved (read + write) by each timed copy: 256 KiB to 4 GiB, doubling.
std::vector<double> plan_copy_bytes();

/// The profile's dtype name for the scenario's precision: "bf16" or "fp16".
std::string gemm_dtype(const Scenario& s);

/// The plan as `gemm --dry-run` prints it: counts, sizes, and each needed shape with its reason;
/// for an FP8 scenario (`fp8`), that its GEMMs are timed in bf16.
std::string format_gemm_plan(const std::vector<PlannedGemm>& plan,
                             const std::vector<double>& copies, const std::string& dtype,
                             bool fp8 = false);

/// "m×n×k".
std::string gemm_shape_text(const PlannedGemm& g);

}  // namespace trainsim
