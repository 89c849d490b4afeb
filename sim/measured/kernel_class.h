#pragma once
// What a GPU kernel of a PyTorch profiler trace is, from its name: the categories trainsim's
// cost model predicts (GEMM, attention, memory-bound, optimizer, communication), so a measured
// kernel lands where the model puts its prediction. A name no rule knows is `Other`: counted
// and listed by its family, never dropped.
//
// Not modelled: convolutions, embedding-bag and recommendation kernels (fbgemm), which an LLM
// step does not run; they are `Other` and listed.
#include <string>       // std::string
#include <string_view>  // std::string_view

namespace trainsim {

enum class KernelCategory { Gemm, Attention, MemoryBound, Optimizer, Communication, Other };
inline constexpr int kKernelCategories = 6;

/// "gemm", "attention", "memory-bound", "optimizer", "communication", "other".
const char* kernel_category_name(KernelCategory c);

struct KernelClass {
  KernelCategory category = KernelCategory::Other;
  /// For communication: the collective in nccl-tests' names (all_reduce, all_gather,
  /// reduce_scatter, alltoall, sendrecv, broadcast, reduce); "" when the name does not say.
  std::string collective;
};

/// Classifies a kernel by name (case-insensitive rules, first match wins):
///   communication  nccl…                              (the NCCL kernel names the collective)
///   attention      flash…, fmha…, …attention…, …attn…, sdpa, Triton's _fwd_kernel/_bwd_kernel
///   other          conv…, winograd, implicit_gemm, fbgemm, embedding-bag codegen
///   optimizer      …adam…, …lamb…, …sgd…, …adagrad… (fused or multi-tensor optimizer kernels)
///   gemm           …gemm…, …gemv…, cublas…, nvjet…, cutlass…, xmma…, splitKreduce, triton_tem…
///   memory-bound   elementwise, reduce, norm, softmax, copy, cat, index, gather, scatter,
///                  dropout, activation, rotary, cross-entropy, fill, sort/scan (cub), Triton
///                  fused pointwise/reduction kernels (triton_poi/red/per, triton__…)
/// A kernel launched inside `Optimizer.step` is an optimizer kernel whatever its name
/// (torch_trace.h decides that; this function sees names only).
KernelClass classify_kernel(std::string_view name);

/// The family of a kernel name for listing: the name without its `void ` prefix, its
/// namespace, template arguments and parameters, e.g. "void at::native::vectorized_elementwise_
/// kernel<4, …>(…)" → "vectorized_elementwise_kernel".
std::string kernel_family(std::string_view name);

}  // namespace trainsim
