#include "scenario/layout.h"

namespace trainsim {
namespace {
int get(const Coord& c, Axis a) {
  return a == Axis::TP ? c.tp : a == Axis::DP ? c.dp : c.pp;
}
void set(Coord& c, Axis a, int v) {
  (a == Axis::TP ? c.tp : a == Axis::DP ? c.dp : c.pp) = v;
}
}  // namespace

int Layout::stride(Axis a) const {
  int s = 1;
  for (Axis x : order) {
    if (x == a) return s;
    s *= size(x);
  }
  return s;
}

int Layout::rank_of(const Coord& c) const {
  int r = 0;
  for (Axis a : order) r += get(c, a) * stride(a);
  return r;
}

Coord Layout::coord_of(int rank) const {
  Coord c;
  for (Axis a : order) {
    set(c, a, rank % size(a));
    rank /= size(a);
  }
  return c;
}

std::string order_to_string(const std::array<Axis, 3>& order) {
  std::string s;
  for (Axis a : order) {
    if (!s.empty()) s += ",";
    s += a == Axis::TP ? "tp" : a == Axis::DP ? "dp" : "pp";
  }
  return s;
}

}  // namespace trainsim
