#pragma once
// A PyTorch profiler trace (Kineto's Chrome-trace JSON, as torch.profiler writes it: one file
// per rank, plain or gzip) read into what trainsim compares with a simulated step: the GPU
// kernels (with their category, stream, start, duration and step), the profiler steps, and
// what the trace says about each GEMM's shape and each collective's size.
//
// Streaming: events are read one at a time (nlohmann's SAX-style parser callback over a zlib
// stream) and only the fields kept here stay in memory, about 100 bytes per kernel, so a
// 1 GB trace needs a small fraction of its size.
//
// Links, as Kineto writes them: a kernel's `correlation` id matches the CUDA runtime call that
// launched it (its CPU thread and time), and its `External id` the innermost CPU operator
// (`aten::mm` …) around that call, whose `Input Dims` (record_shapes=True) give GEMM shapes.
// A kernel belongs to the ProfilerStep#N span its launch falls in (kernels without a launch
// record: the span their start falls in); a kernel launched inside `Optimizer.step#…` is an
// optimizer kernel.
#include <cstdint>     // std::int64_t, std::uint32_t
#include <functional>  // std::function
#include <string>      // std::string
#include <vector>      // std::vector

#include "core/time.h"
#include "measured/kernel_class.h"

namespace trainsim {

struct TraceStep {
  std::string name;      ///< "ProfilerStep#12"
  TimeNs cpu_begin = 0;  ///< the annotation's span on the CPU
  TimeNs cpu_end = 0;
  TimeNs gpu_begin = 0;  ///< first kernel start of the step (0 with no kernels)
  TimeNs gpu_end = 0;    ///< last kernel end
  int kernels = 0;
};

/// A GEMM's shape from its CPU operator's Input Dims: C[m×n] = A[m×k]·B[k×n], `batch` > 1
/// for aten::bmm / baddbmm.
struct TraceGemmShape {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  std::string dtype;  ///< "bf16", "fp16", "fp32", "fp8" or "" when the trace does not say
};

/// What the trace says about one NCCL kernel's collective (PyTorch ≥ 2.2 records it on the
/// kernel or its `record_param_comms` operator): bytes in nccl-tests' convention (S: the
/// whole buffer of all-reduce, the gathered output of all-gather, the input of
/// reduce-scatter), group size. 0 when absent.
struct CollectiveInfo {
  double bytes = 0;
  int group_size = 0;
  std::string process_group;  ///< its description ("default_pg", …) when given
};

/// A fused attention call's shape from its SDPA operator (aten::scaled_dot_product_attention and
/// its flash / cuDNN / memory-efficient forms, forward and backward): Input Dims' query (or the
/// backward's output gradient) [b, heads, seq, head_dim], key [b, kv_heads, seq, head_dim];
/// is_causal from Concrete Inputs (PyTorch ≥ 2.1 with record_shapes).
struct TraceAttentionShape {
  bool backward = false;
  std::int64_t batch = 0, heads = 0, kv_heads = 0, seq = 0, head_dim = 0;
  int causal = -1;  ///< 1, 0, or −1 when the trace does not say
};

struct TraceKernel {
  std::uint32_t name = 0;  ///< index into TorchTrace::names
  KernelClass kind;
  int stream = 0;
  TimeNs start = 0, dur = 0;
  /// When the CPU began the runtime call that launched it (cudaLaunchKernel, cudaMemcpyAsync …;
  /// its `correlation`), on the trace's clock; −1 when the trace has no such call.
  TimeNs launch = -1;
  int step = -1;        ///< index into TorchTrace::steps, −1 outside every step
  int shape = -1;       ///< index into TorchTrace::gemm_shapes, −1 when unknown
  int collective = -1;  ///< index into TorchTrace::collectives, −1 when unknown
  int attention = -1;   ///< the attention call it belongs to (TorchTrace::attention_shapes), −1
  bool copy = false;    ///< a gpu_memcpy / gpu_memset event rather than a kernel
  double copy_bytes = 0;
};

struct TorchTrace {
  std::string file;
  int rank = 0;              ///< distributedInfo.rank (0 when absent)
  int world_size = 1;        ///< distributedInfo.world_size (1 when absent)
  std::string device;        ///< deviceProperties[0].name, "" when absent
  std::string nccl_version;  ///< distributedInfo.nccl_version, "" when absent
  /// baseTimeNanoseconds: what turns the trace's times into Unix time (0 when absent: older
  /// Kineto writes Unix-time microseconds, or times that cannot be compared across files).
  std::int64_t base_time_ns = 0;
  std::vector<std::string> names;    ///< kernel names, interned
  std::vector<TraceKernel> kernels;  ///< in start order
  std::vector<TraceStep> steps;      ///< in start order
  std::vector<TraceGemmShape> gemm_shapes;
  std::vector<TraceAttentionShape> attention_shapes;  ///< one per operator call
  std::vector<CollectiveInfo> collectives;
  std::int64_t events = 0;  ///< trace events read
  int optimizer_spans = 0;  ///< `Optimizer.step#…` spans found
};

struct TraceReadOptions {
  /// Decompressed bytes per compressed byte beyond which a gzip file is refused as a bomb
  /// (Kineto JSON compresses 10–30×).
  double max_gzip_ratio = 1000;
  /// The ratio is checked once this much has been decompressed.
  std::int64_t gzip_check_after = 64ll << 20;
  /// Called now and then (every 16 MiB of JSON) with the bytes of the file read so far and its
  /// size, for a progress line on long reads; may be empty.
  std::function<void(std::int64_t done, std::int64_t total)> progress;
};

/// Reads one Kineto trace file (JSON, plain or gzip). Throws InputError naming the file (and
/// the byte offset or event index where it helps) for: a missing or unreadable file, JSON that
/// is truncated or not JSON, no `traceEvents` list, a gzip bomb, and a trace with no GPU
/// kernels (a CPU-only trace says so).
TorchTrace read_torch_trace(const std::string& path, const TraceReadOptions& opt = {});

/// How far apart in Unix time one run's ranks may start a step they share (see below).
inline constexpr TimeNs kSameRunWindow = 300'000'000'000;  // 5 minutes

/// Several ranks' traces of one run (read one after another, `opt.progress` for each): refuses
/// (InputError naming both files) two files of the same rank, different world sizes or NCCL
/// versions, no ProfilerStep name that all files share, or a shared step that starts more than
/// kSameRunWindow apart in Unix time (when the traces' times are Unix times: ranks of one run
/// run each step together, within clock skew; different runs lie minutes to days apart).
std::vector<TorchTrace> read_torch_traces(const std::vector<std::string>& paths,
                                          const TraceReadOptions& opt = {});

}  // namespace trainsim
