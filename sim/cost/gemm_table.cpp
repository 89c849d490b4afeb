#include "cost/gemm_table.h"

#include <array>
#include <cmath>

#include "cost/interpolate.h"

namespace trainsim {

GemmTable::GemmTable(const std::vector<GemmSample>& samples, std::string dtype)
    : dtype_(std::move(dtype)) {
  for (const GemmSample& s : samples)
    if (s.dtype == dtype_ && s.time_s > 0) times_[{s.m, s.n, s.k}] = s.time_s;
}

std::optional<double> GemmTable::along(int axis, const Shape& q) const {
  // The nearest measured shapes below and above q on `axis`, equal to q on the other two.
  auto get = [axis](const Shape& s) -> std::int64_t {
    return axis == 0 ? std::get<0>(s) : axis == 1 ? std::get<1>(s) : std::get<2>(s);
  };
  auto same_elsewhere = [&](const Shape& s) {
    for (int a = 0; a < 3; ++a) {
      if (a == axis) continue;
      const std::array<std::int64_t, 3> x{std::get<0>(s), std::get<1>(s), std::get<2>(s)};
      const std::array<std::int64_t, 3> y{std::get<0>(q), std::get<1>(q), std::get<2>(q)};
      if (x[static_cast<std::size_t>(a)] != y[static_cast<std::size_t>(a)]) return false;
    }
    return true;
  };
  const Shape* lo = nullptr;
  const Shape* hi = nullptr;
  for (const auto& [s, t] : times_) {
    if (!same_elsewhere(s)) continue;
    if (get(s) < get(q) && (!lo || get(s) > get(*lo))) lo = &s;
    if (get(s) > get(q) && (!hi || get(s) < get(*hi))) hi = &s;
  }
  if (!lo || !hi) return std::nullopt;
  return loglog(static_cast<double>(get(*lo)), times_.at(*lo), static_cast<double>(get(*hi)),
                times_.at(*hi), static_cast<double>(get(q)));
}

std::optional<double> GemmTable::seconds(double m, double n, double k) const {
  const Shape q{std::llround(m), std::llround(n), std::llround(k)};
  if (auto it = times_.find(q); it != times_.end()) {
    answered_.insert(q);
    return it->second;
  }
  for (int axis = 0; axis < 3; ++axis)
    if (auto t = along(axis, q)) {
      answered_.insert(q);
      return t;
    }
  outside_.insert(q);
  return std::nullopt;
}

}  // namespace trainsim
