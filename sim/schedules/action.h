#pragma once
// One pipeline action as PyTorch's torch.distributed.pipelining writes it: `2F0` is stage 2,
// forward, micro-batch 0. Backward is either fused (B) or split into input gradient (I) and
// weight gradient (W), as in the Zero Bubble paper. DualPipe's overlapped forward+backward is an
// F flagged `overlapped_with_next` followed by the B it runs with: one task, two actions.
#include <cstdint>  // std::int32_t, std::uint8_t
#include <string>   // std::string

namespace trainsim {

enum class Op : std::uint8_t { F, B, I, W };

struct Action {
  std::int32_t stage = 0;  ///< global stage index in [0, pp·vpp)
  Op op = Op::F;
  std::int32_t microbatch = 0;
  /// True on an F that runs as one overlapped task with the rank's next action (a B).
  bool overlapped_with_next = false;
  friend bool operator==(const Action&, const Action&) = default;
};

/// 'F', 'B', 'I' or 'W'.
char op_letter(Op op);
/// "2F0" (the flag is not shown; see pair_to_string).
std::string to_string(const Action& a);
/// PyTorch's spelling of an overlapped pair: "(2F5;5B1)OVERLAP_F_B".
std::string pair_to_string(const Action& f, const Action& b);

}  // namespace trainsim
