#include "gemm_bench.h"

#include <algorithm>
#include <array>
#include <limits>

#include <fmt/format.h>

namespace trainsim {
namespace {
constexpr std::size_t kWorkspace = std::size_t{32}
                                   << 20;  // cuBLASLt's recommended workspace on Hopper
constexpr int kAlgorithms = 8;
}  // namespace

// One shape's descriptors and its algorithms. Row-major C[m×n] = A[m×k]·B[k×n] is computed as
// cuBLASLt's column-major "TN" D = op(A)·B with A stored k×m (transposed), B k×n, D m×n:
// the layout Hopper's bf16 kernels are fastest in.
struct GemmBench::Plan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  std::vector<cublasLtMatmulHeuristicResult_t> algos;
  int best = -1;  // index into algos once timed
  ~Plan() {
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

GemmBench::GemmBench(int device, bool fp16, const OperandPools& pools) : fp16_(fp16) {
  TRAINSIM_GPU(cudaSetDevice(device));
  TRAINSIM_GPU(cudaStreamCreate(&stream_));
  TRAINSIM_GPU(cublasLtCreate(&handle_));
  a_ = gpu::DeviceBuffer(2 * pools.a);
  b_ = gpu::DeviceBuffer(2 * pools.b);
  c_ = gpu::DeviceBuffer(2 * pools.c);
  gpu::fill_random(a_, fp16, 1);
  gpu::fill_random(b_, fp16, 2);
  workspace_ = gpu::DeviceBuffer(kWorkspace);
  int l2 = 0;
  TRAINSIM_GPU(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  flush_ = gpu::DeviceBuffer(2 * static_cast<std::size_t>(std::max(l2, 1 << 20)));
}

GemmBench::~GemmBench() {
  plans_.clear();  // descriptors before the handle
  if (handle_) cublasLtDestroy(handle_);
  if (stream_) cudaStreamDestroy(stream_);
}

void GemmBench::flush_l2() {
  TRAINSIM_GPU(cudaMemsetAsync(flush_.get(), 0, flush_.bytes(), stream_));
}

GemmBench::Plan& GemmBench::plan(std::int64_t m, std::int64_t n, std::int64_t k) {
  auto& slot = plans_[{m, n, k}];
  if (slot) return *slot;
  if (static_cast<std::size_t>(m * k * 2) > a_.bytes() ||
      static_cast<std::size_t>(k * n * 2) > b_.bytes() ||
      static_cast<std::size_t>(m * n * 2) > c_.bytes())
    throw gpu::GpuError(fmt::format("GEMM {}×{}×{} is larger than the operand pools", m, n, k));
  slot = std::make_unique<Plan>();
  Plan& p = *slot;
  const cudaDataType_t t = fp16_ ? CUDA_R_16F : CUDA_R_16BF;
  TRAINSIM_GPU(cublasLtMatmulDescCreate(&p.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t trans = CUBLAS_OP_T, none = CUBLAS_OP_N;
  TRAINSIM_GPU(
      cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &trans, sizeof trans));
  TRAINSIM_GPU(
      cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof none));
  TRAINSIM_GPU(cublasLtMatrixLayoutCreate(&p.a, t, static_cast<std::uint64_t>(k),
                                          static_cast<std::uint64_t>(m), k));
  TRAINSIM_GPU(cublasLtMatrixLayoutCreate(&p.b, t, static_cast<std::uint64_t>(k),
                                          static_cast<std::uint64_t>(n), k));
  TRAINSIM_GPU(cublasLtMatrixLayoutCreate(&p.c, t, static_cast<std::uint64_t>(m),
                                          static_cast<std::uint64_t>(n), m));
  cublasLtMatmulPreference_t pref = nullptr;
  TRAINSIM_GPU(cublasLtMatmulPreferenceCreate(&pref));
  const std::size_t ws = kWorkspace;
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                       sizeof ws);
  std::array<cublasLtMatmulHeuristicResult_t, kAlgorithms> found{};
  int returned = 0;
  const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(handle_, p.op, p.a, p.b, p.c, p.c, pref,
                                                           kAlgorithms, found.data(), &returned);
  cublasLtMatmulPreferenceDestroy(pref);
  TRAINSIM_GPU(st);
  for (int i = 0; i < returned; ++i)
    if (found[static_cast<std::size_t>(i)].state == CUBLAS_STATUS_SUCCESS)
      p.algos.push_back(found[static_cast<std::size_t>(i)]);
  if (p.algos.empty())
    throw gpu::GpuError(fmt::format("cuBLASLt has no algorithm for {}×{}×{}", m, n, k));
  return p;
}

void GemmBench::launch(Plan& p, const cublasLtMatmulAlgo_t& algo) {
  const float alpha = 1.0f, beta = 0.0f;
  TRAINSIM_GPU(cublasLtMatmul(handle_, p.op, &alpha, a_.get(), p.a, b_.get(), p.b, &beta, c_.get(),
                              p.c, c_.get(), p.c, &algo, workspace_.get(), kWorkspace, stream_));
}

Timing GemmBench::time(std::int64_t m, std::int64_t n, std::int64_t k, int reps) {
  Plan& p = plan(m, n, k);
  auto timed = [&](const cublasLtMatmulAlgo_t& algo, int count) {
    std::vector<double> t;
    std::vector<gpu::Event> start(static_cast<std::size_t>(count)),
        stop(static_cast<std::size_t>(count));
    for (std::size_t i = 0; i < start.size(); ++i) {
      flush_l2();
      start[i].record(stream_);
      launch(p, algo);
      stop[i].record(stream_);
    }
    for (std::size_t i = 0; i < start.size(); ++i) t.push_back(stop[i].since(start[i]));
    return t;
  };
  // Choose: one warm-up and 3 timed runs of each candidate, the lowest median wins.
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < p.algos.size(); ++i) {
    launch(p, p.algos[i].algo);
    const double t = summarize(timed(p.algos[i].algo, 3)).median;
    if (t < best) best = t, p.best = static_cast<int>(i);
  }
  return summarize(timed(p.algos[static_cast<std::size_t>(p.best)].algo, reps));
}

void GemmBench::run(std::int64_t m, std::int64_t n, std::int64_t k, int batch) {
  Plan& p = plan(m, n, k);
  const auto& algo = p.algos[static_cast<std::size_t>(std::max(p.best, 0))].algo;
  for (int i = 0; i < batch; ++i) launch(p, algo);
}

void GemmBench::copy(double bytes) {
  const auto half = static_cast<std::size_t>(bytes / 2);
  if (half > a_.bytes() || half > c_.bytes())
    throw gpu::GpuError(fmt::format("a copy of {} bytes is larger than the pools", half));
  TRAINSIM_GPU(cudaMemcpyAsync(c_.get(), a_.get(), half, cudaMemcpyDeviceToDevice, stream_));
}

Timing GemmBench::time_copy(double bytes, int reps) {
  copy(bytes);  // warm-up
  std::vector<gpu::Event> start(static_cast<std::size_t>(reps)),
      stop(static_cast<std::size_t>(reps));
  for (std::size_t i = 0; i < start.size(); ++i) {
    flush_l2();
    start[i].record(stream_);
    copy(bytes);
    stop[i].record(stream_);
  }
  std::vector<double> t;
  for (std::size_t i = 0; i < start.size(); ++i) t.push_back(stop[i].since(start[i]));
  return summarize(t);
}

}  // namespace trainsim
