#include "schedules/action.h"

#include <charconv>

namespace trainsim {

char op_letter(Op op) {
  switch (op) {
    case Op::F:
      return 'F';
    case Op::B:
      return 'B';
    case Op::I:
      return 'I';
    case Op::W:
      return 'W';
  }
  return '?';
}

std::string to_string(const Action& a) {
  return std::to_string(a.stage) + op_letter(a.op) + std::to_string(a.microbatch);
}

std::optional<Action> parse_action(std::string_view text) {
  Action a;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  auto [q, ec] = std::from_chars(p, end, a.stage);
  if (ec != std::errc() || q == end || a.stage < 0) return std::nullopt;
  switch (*q) {
    case 'F':
      a.op = Op::F;
      break;
    case 'B':
      a.op = Op::B;
      break;
    case 'I':
      a.op = Op::I;
      break;
    case 'W':
      a.op = Op::W;
      break;
    default:
      return std::nullopt;
  }
  ++q;
  auto [r, ec2] = std::from_chars(q, end, a.microbatch);
  if (ec2 != std::errc() || r != end || a.microbatch < 0) return std::nullopt;
  return a;
}

}  // namespace trainsim
