#pragma once
// The calibration profile: durations measured on real GPUs (trainsim-calibrate) or imported
// from nccl-tests logs, with provenance for every number. A documented JSON file
// (calibrate/README.md) that calibrate/ writes and the simulator reads; this header is both
// sides' one definition of it.
#include <cstdint>  // std::int64_t
#include <string>   // std::string
#include <tuple>    // std::tuple
#include <vector>   // std::vector

#include <nlohmann/json_fwd.hpp>

namespace trainsim {

/// Where numbers came from: the machine and library versions, when, and how.
struct Provenance {
  std::string device;  ///< e.g. "NVIDIA H100 80GB HBM3"
  std::string driver;  ///< driver version, "" when unknown
  std::string cuda;    ///< CUDA runtime version
  std::string cublas;  ///< cuBLAS version
  std::string nccl;    ///< NCCL version
  std::string date;    ///< ISO 8601
  std::string host;
};

/// One GEMM shape timed: C[m×n] = A[m×k]·B[k×n].
struct GemmSample {
  std::int64_t m = 0, n = 0, k = 0;
  std::string dtype = "bf16";  ///< bf16 or fp16 inputs, fp32 accumulation
  double time_s = 0;           ///< median
  double spread_s = 0;         ///< max − min over the timed repetitions
  std::string method = "measured";
  std::string source;  ///< where an imported sample came from (trace, rank, step, calls)
};

/// A memory-bound kernel timed at one size: `bytes` read and written in all (a copy of
/// bytes / 2 moves `bytes`).
struct MemoryKernelSample {
  std::string kernel = "copy";  ///< copy (device-to-device)
  double bytes = 0;
  double time_s = 0;    ///< median
  double spread_s = 0;  ///< max − min
  std::string method = "measured";
  std::string source;  ///< where an imported sample came from (trace, rank, step, copies)
};

/// One collective size measured, in nccl-tests terms (doc/PERFORMANCE.md): S = `bytes`,
/// algbw = S / t, busbw = algbw × the operation's bus factor.
struct CollectiveSample {
  std::string op;  ///< all_reduce, all_gather, reduce_scatter, alltoall, sendrecv
  int group_size = 0;
  std::string link = "intra_node";  ///< intra_node or inter_node
  double bytes = 0;
  double time_s = 0;                ///< out-of-place time (median when merged from several logs)
  double algbw = 0;                 ///< bytes/s
  double busbw = 0;                 ///< bytes/s
  std::string method = "measured";  ///< measured, nccl-tests, analytic
  std::string source;               ///< e.g. "all_reduce.log:42"
  double spread_s = 0;              ///< max − min of merged times (several logs); 0 for one
};

/// One fused attention kernel call timed (FlashAttention, cuDNN or memory-efficient SDPA):
/// `heads` (sequences × query heads) of `seq` queries against `seq` keys, each `head_dim`
/// wide; its forward or its whole backward (every kernel the backward operator launched).
struct AttentionSample {
  std::string pass = "forward";  ///< forward or backward
  std::int64_t seq = 0, head_dim = 0, heads = 0;
  bool causal = true;
  double time_s = 0;    ///< median
  double spread_s = 0;  ///< max − min
  std::string method = "measured";
  std::string source;  ///< e.g. "trace.json.gz rank 0 ProfilerStep#4 (32 calls)"
  /// In the FlashAttention papers' convention: 4·seq²·head_dim·heads forward (halved when
  /// causal), 2.5 × that backward.
  double flops() const;
};

/// The largest measured time a profile sample holds (s): no kernel or collective of a training
/// step takes an hour; a larger figure is a unit slip or a damaged file, and would overflow the
/// simulator's nanoseconds further on. The reader and every importer refuse past it.
inline constexpr double kMaxSampleSeconds = 3600;
/// The most bytes a sample moves: a petabyte, a thousand times the largest GPU's memory.
inline constexpr double kMaxSampleBytes = 1e15;

struct CalibrationProfile {
  static constexpr int kVersion = 1;
  Provenance provenance;
  std::vector<GemmSample> gemms;
  std::vector<MemoryKernelSample> memory;
  std::vector<CollectiveSample> collectives;
  std::vector<AttentionSample> attention;
};

/// What identifies a sample within its section: two samples of one key time the same kernel.
/// A profile holds one of each (the reader refuses a repeat); a command writing into an
/// existing profile replaces the samples of the keys it measured and keeps the others.
std::tuple<std::int64_t, std::int64_t, std::int64_t, std::string> sample_key(const GemmSample& s);
std::tuple<std::string, double> sample_key(const MemoryKernelSample& s);
std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, bool> sample_key(
    const AttentionSample& s);
std::tuple<std::string, int, std::string, double> sample_key(const CollectiveSample& s);

/// The GPU model a device or preset name names ("NVIDIA H100 80GB HBM3", "8× NVIDIA H100 80GB
/// HBM3 over 2 nodes", "h100-sxm": "H100"), or "" for a name without one (a GPU of the user's
/// own): NVIDIA's data-center GPUs. Profiles of two models are two GPUs' timings.
std::string gpu_model(const std::string& name);
/// Why two device or preset names are different GPUs, or "" when nothing says so: another model
/// (gpu_model), another form factor of it (PCIe, NVL or SXM: "NVIDIA H100 PCIe" against
/// "h100-sxm"; an H100 named "… HBM3" is the SXM card), or another memory size ("A100-SXM4-40GB"
/// against "a100-sxm-80gb"). What a name does not say is not held against it.
std::string gpu_mismatch(const std::string& a, const std::string& b);

/// The operation names a profile may use (nccl-tests' binaries without `_perf`).
const std::vector<std::string>& collective_op_names();
/// nccl-tests' bus factor of one of those operations over n ranks (doc/PERFORMANCE.md):
/// 2(n−1)/n all_reduce; (n−1)/n all_gather, reduce_scatter, alltoall; 1 sendrecv.
double op_bus_factor(const std::string& op, int n);

nlohmann::json profile_to_json(const CalibrationProfile& p);
/// Validates every field; throws InputError naming `source`, the field path and what is allowed.
CalibrationProfile profile_from_json(const nlohmann::json& j, const std::string& source);
/// A profile from JSON text: not JSON, a field of the wrong type or value → InputError naming
/// `source`.
CalibrationProfile parse_profile(const std::string& text, const std::string& source);
/// parse_profile of the file at `path` (read_input_file's checks first).
CalibrationProfile load_profile(const std::string& path);
void save_profile(const CalibrationProfile& p, const std::string& path);

}  // namespace trainsim
