#include "measured/kernel_class.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <set>
#include <string_view>

#include <cxxabi.h>

namespace trainsim {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool has(const std::string& s, std::string_view what) {
  return s.find(what) != std::string::npos;
}

template <std::size_t N>
bool has_any(const std::string& s, const std::array<std::string_view, N>& words) {
  return std::any_of(words.begin(), words.end(), [&](std::string_view w) { return has(s, w); });
}

bool alpha(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0;
}

// "sgd" as a word start (SGDFunctor, sgd_kernel) but not inside another word (MsgDispatch).
bool has_word_start(const std::string& s, std::string_view w) {
  for (auto at = s.find(w); at != std::string::npos; at = s.find(w, at + 1))
    if (at == 0 || !alpha(s[at - 1])) return true;
  return false;
}

// "lamb" for the LAMB optimizer, not "lambda".
bool has_lamb(const std::string& s) {
  for (auto at = s.find("lamb"); at != std::string::npos; at = s.find("lamb", at + 1))
    if (s.compare(at, 6, "lambda") != 0) return true;
  return false;
}

// NCCL kernel names carry the collective: ncclKernel_AllReduce_RING_LL_Sum_float,
// ncclDevKernel_ReduceScatter_Sum_f32_RING_LL, ncclDevKernel_SendRecv, ….
std::string collective_of(const std::string& l) {
  if (has(l, "allreduce")) return "all_reduce";
  if (has(l, "allgather")) return "all_gather";
  if (has(l, "reducescatter")) return "reduce_scatter";
  if (has(l, "alltoall")) return "alltoall";
  if (has(l, "sendrecv") || has(l, "_send") || has(l, "_recv")) return "sendrecv";
  if (has(l, "broadcast")) return "broadcast";
  if (has(l, "_reduce")) return "reduce";
  return "";
}

}  // namespace

const char* kernel_category_name(KernelCategory c) {
  switch (c) {
    case KernelCategory::Gemm:
      return "gemm";
    case KernelCategory::Attention:
      return "attention";
    case KernelCategory::MemoryBound:
      return "memory-bound";
    case KernelCategory::Optimizer:
      return "optimizer";
    case KernelCategory::Communication:
      return "communication";
    case KernelCategory::Other:
      return "other";
  }
  return "other";
}

KernelClass classify_kernel(std::string_view name) {
  const std::string l = lower(name);
  // The family without an elementwise template's operation (kernel_family's `<functor>`): a
  // pointwise kernel is one whatever its functor is named (fbgemm's, a "convert").
  std::string fam = lower(kernel_family(name));
  fam = fam.substr(0, fam.find('<'));
  if (has(l, "nccl")) return {KernelCategory::Communication, collective_of(l)};
  // cuDNN's fused attention (PyTorch's SDPA under torch.compile on Hopper) runs its backward's
  // preprocessing and dQ conversion as cudnn::fusion::compute_dot_do_o… / convert_dq_to_16bits.
  static constexpr std::array<std::string_view, 7> kAttention{
      "flash", "fmha", "attention", "attn", "sdpa", "dot_do_o", "convert_dq"};
  if (has_any(l, kAttention) || fam.rfind("_fwd_kernel", 0) == 0 ||
      fam.rfind("_bwd_kernel", 0) == 0 || fam.rfind("_bwd_preprocess", 0) == 0)
    return {KernelCategory::Attention, ""};
  static constexpr std::array<std::string_view, 6> kNotModelled{
      "conv", "winograd", "implicit_gemm", "fbgemm", "split_embedding", "fp8rowwise"};
  // The family and the first template argument: a pointwise kernel templated on an fbgemm
  // functor is still a pointwise kernel.
  if (has_any(fam, kNotModelled) || has(l, "cudnn::")) return {KernelCategory::Other, ""};
  // PyTorch's multi-tensor (foreach) kernels run the optimizer step and gradient clipping
  // (torch.optim's foreach paths, clip_grad_norm_'s norms and rescale, the master-weight copies
  // of mixed precision): the optimizer's, whatever their functor.
  if (has(l, "adam") || has(l, "adagrad") || has_lamb(l) || has_word_start(l, "sgd") ||
      has(l, "multi_tensor_apply"))
    return {KernelCategory::Optimizer, ""};
  static constexpr std::array<std::string_view, 10> kGemm{
      "gemm", "gemv",         "cublas",     "nvjet",  "cutlass",
      "xmma", "splitkreduce", "triton_tem", "matmul", "dot_kernel"};
  if (has_any(l, kGemm)) return {KernelCategory::Gemm, ""};
  // (compute_grad_weight and the *_segment* kernels: PyTorch's dense embedding backward.)
  static constexpr std::array<std::string_view, 34> kMemory{
      "elementwise", "reduce",  "norm",    "softmax",   "copy",          "memcpy",   "memset",
      "cat",         "index",   "gather",  "scatter",   "dropout",       "gelu",     "silu",
      "swiglu",      "relu",    "rotary",  "rope",      "cross_entropy", "nll_loss", "loss",
      "fill",        "cub::",   "sort",    "scan",      "transpose",     "permute",  "embedding",
      "triton_",     "foreach", "moments", "gammabeta", "grad_weight",   "_segment"};
  if (has_any(l, kMemory)) return {KernelCategory::MemoryBound, ""};
  return {KernelCategory::Other, ""};
}

std::string kernel_family(std::string_view name) {
  std::string s(name);
  // Some kernels (CUTLASS inside cuDNN, …) are traced by their mangled names.
  if (s.rfind("_Z", 0) == 0) {
    int status = 0;
    const std::unique_ptr<char, void (*)(void*)> d(
        abi::__cxa_demangle(s.c_str(), nullptr, nullptr, &status), std::free);
    if (status == 0 && d) {
      s = d.get();
    } else {
      // Names the demangler refuses (nvcc's, or cut short): the longest of the first six
      // <length><identifier> source names, e.g. ImplicitGemmConvolution of
      // _ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolution….
      std::string best;
      std::size_t i = 2;
      for (int found = 0; i < s.size() && found < 6;) {
        if (!std::isdigit(static_cast<unsigned char>(s[i]))) {
          ++i;
          continue;
        }
        std::size_t len = 0;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
          len = len * 10 + static_cast<std::size_t>(s[i++] - '0');
        if (len == 0 || i + len > s.size()) break;
        const std::string id = s.substr(i, len);
        i += len;
        ++found;
        if (id.size() > best.size()) best = id;
      }
      if (!best.empty()) return best;
    }
  }
  if (s.rfind("void ", 0) == 0) s.erase(0, 5);
  for (std::string anon = "(anonymous namespace)::";;) {
    const auto at = s.find(anon);
    if (at == std::string::npos) break;
    s.erase(at, anon.size());
  }
  const auto open = s.find_first_of("<(");
  std::string base = s.substr(0, open);
  if (const auto colon = base.rfind("::"); colon != std::string::npos) base.erase(0, colon + 2);
  // cutlass::Kernel<cutlass_80_tensorop_s1688gemm_…>(…): the first template argument says more.
  if ((base == "Kernel" || base == "Kernel2" || base == "device_kernel") &&
      open != std::string::npos && s[open] == '<') {
    const auto end = s.find_first_of("<>,(", open + 1);
    std::string arg =
        s.substr(open + 1, end == std::string::npos ? std::string::npos : end - open - 1);
    if (const auto colon = arg.rfind("::"); colon != std::string::npos) arg.erase(0, colon + 2);
    if (!arg.empty()) return arg;
  }
  // PyTorch's elementwise kernel templates (vectorized_elementwise_kernel, elementwise_kernel,
  // unrolled_elementwise_kernel, elementwise_kernel_with_index) run every pointwise op: the
  // operation is the template's functor, the first name there that qualifies nothing and wraps
  // nothing, e.g. GeluCUDAKernelImpl, CUDAFunctor_add, FillFunctor, direct_copy_kernel_cuda.
  if (open != std::string::npos && s[open] == '<' &&
      (base.ends_with("elementwise_kernel") || base == "elementwise_kernel_with_index")) {
    static const std::set<std::string_view> kWrappers{"gpu_kernel_impl_nocast",
                                                      "gpu_kernel_impl",
                                                      "AUnaryFunctor",
                                                      "BUnaryFunctor",
                                                      "BinaryFunctor",
                                                      "float",
                                                      "double",
                                                      "int",
                                                      "long",
                                                      "unsigned",
                                                      "bool",
                                                      "char",
                                                      "short",
                                                      "BFloat16",
                                                      "Half",
                                                      "TensorIteratorBase",
                                                      "Scalar",
                                                      "array"};
    const std::string_view args = std::string_view(s).substr(open + 1, 400);
    for (std::size_t i = 0; i < args.size();) {
      const auto c = static_cast<unsigned char>(args[i]);
      if (!(std::isalpha(c) || c == '_')) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < args.size() &&
             (std::isalnum(static_cast<unsigned char>(args[j])) || args[j] == '_'))
        ++j;
      const std::string_view id = args.substr(i, j - i);
      const bool qualifier = args.substr(j, 2) == "::";
      i = j;
      if (qualifier || kWrappers.contains(id)) continue;
      return base + "<" + std::string(id) + ">";
    }
  }
  while (!base.empty() && base.back() == ' ') base.pop_back();
  if (base.empty()) base = s;
  return base.size() > 80 ? base.substr(0, 77) + "…" : base;
}

}  // namespace trainsim
