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

std::string pair_to_string(const Action& f, const Action& b) {
  return "(" + to_string(f) + ";" + to_string(b) + ")OVERLAP_F_B";
}

}  // namespace trainsim
