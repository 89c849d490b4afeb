#include "cost/kernel_data.h"

#include <array>

namespace trainsim {
namespace {

// FlashAttention-2 (T. Dao, "FlashAttention-2: Faster Attention with Better Parallelism and
// Work Partitioning", arXiv:2307.08691, 2023), abstract and §4.1: on A100 80GB the forward
// reaches up to 73 % of the 312 TFLOP/s peak (≈ 228) and the backward up to 63 % (≈ 197); the
// same code on H100 reaches up to 335 TFLOP/s for forward + backward together (here: both).
constexpr AttentionThroughput kFa2A100{0.73 * 312, 0.63 * 312,
                                       "FlashAttention-2 paper §4.1 (A100: 73 % / 63 % of peak)"};
constexpr AttentionThroughput kFa2H100{335, 335,
                                       "FlashAttention-2 paper §4.1 (H100: up to 335 TFLOP/s)"};
// FlashAttention-3 (J. Shah et al., arXiv:2407.08608, 2024), abstract: FP16 forward up to
// 740 TFLOP/s (75 % of H100's peak); §4.1: backward 1.5–1.75× FlashAttention-2's (1.5 taken).
constexpr AttentionThroughput kFa3H100{740, 1.5 * 335,
                                       "FlashAttention-3 paper (H100: 740 fwd, 1.5× FA2 bwd)"};

const std::array<KernelData, 4> kData{{
    {"a100-sxm-80gb", kFa2A100, std::nullopt},
    {"h100-sxm", kFa2H100, kFa3H100},
    {"h100-pcie", kFa2H100, kFa3H100},  // H100 SXM's figures: no PCIe measurement published
    {"h200", kFa2H100, kFa3H100},       // the same Hopper SMs: H100's figures
}};

}  // namespace

const KernelData* find_kernel_data(const std::string& gpu) {
  for (const KernelData& d : kData)
    if (gpu == d.gpu) return &d;
  return nullptr;
}

}  // namespace trainsim
