#pragma once
// One pipeline action as PyTorch's torch.distributed.pipelining writes it: `2F0` is stage 2,
// forward, micro-batch 0. Backward is either fused (B) or split into input gradient (I) and
// weight gradient (W), as in the Zero Bubble paper.
#include <cstdint>  // std::int32_t, std::uint8_t
#include <string>   // std::string

namespace trainsim {

enum class Op : std::uint8_t { F, B, I, W };

struct Action {
  std::int32_t stage = 0;  ///< global stage index in [0, pp·vpp)
  Op op = Op::F;
  std::int32_t microbatch = 0;
  friend bool operator==(const Action&, const Action&) = default;
};

/// 'F', 'B', 'I' or 'W'.
char op_letter(Op op);
/// "2F0".
std::string to_string(const Action& a);

}  // namespace trainsim
