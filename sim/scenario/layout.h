#pragma once
// The parallel layout: DP × TP × PP ranks (and v model chunks per pipeline rank), and the map
// between a global rank and its (dp, tp, pp) coordinates. Default order is Megatron's: TP
// varies fastest, then DP, then PP; `rank_order` changes it.
#include <array>   // std::array
#include <string>  // std::string

namespace trainsim {

enum class Axis { TP = 0, DP = 1, PP = 2 };

struct Coord {
  int dp = 0;
  int tp = 0;
  int pp = 0;
  friend bool operator==(const Coord&, const Coord&) = default;
};

struct Layout {
  int dp = 1;
  int tp = 1;
  int pp = 1;
  int vpp = 1;  ///< model chunks per pipeline rank
  int zero = 0;
  bool sequence_parallel = false;
  std::array<Axis, 3> order{Axis::TP, Axis::DP, Axis::PP};  ///< fastest-varying first

  int world() const { return dp * tp * pp; }
  int size(Axis a) const { return a == Axis::TP ? tp : a == Axis::DP ? dp : pp; }
  int rank_of(const Coord& c) const;
  Coord coord_of(int rank) const;
  /// Distance between consecutive members of a group along axis `a`.
  int stride(Axis a) const;
};

/// "tp,dp,pp" style text for an order.
std::string order_to_string(const std::array<Axis, 3>& order);

}  // namespace trainsim
