#include "schedules/action.h"

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

}  // namespace trainsim
