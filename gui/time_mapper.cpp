#include "time_mapper.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace trainsim::gui {
namespace {

struct Unit {
  double ns;
  const char* name;
};
constexpr Unit kUnits[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};

const Unit& unit_for(double ns) {
  for (const Unit& u : kUnits)
    if (std::abs(ns) >= u.ns) return u;
  return kUnits[3];
}

}  // namespace

std::string format_duration(double ns) {
  const Unit& u = unit_for(ns);
  const double v = ns / u.ns;
  const int decimals = std::abs(v) >= 100 ? 0 : std::abs(v) >= 10 ? 1 : 2;
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s.find('.') != std::string::npos) {  // 1.50 -> 1.5, 2.00 -> 2
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s + " " + u.name;
}

void TimeMapper::fit(TimeNs makespan, int width) {
  makespan_ = std::max<TimeNs>(makespan, 1000);
  width_ = std::max(width, 1);
  t0_ = 0;
  ns_per_px_ = static_cast<double>(makespan_) / width_;
}

void TimeMapper::set_width(int width) {
  width_ = std::max(width, 1);
  clamp();
}

void TimeMapper::show_range(double a, double b) {
  if (!(b > a)) return;
  t0_ = a;
  ns_per_px_ = (b - a) / width_;
  clamp();
}

void TimeMapper::zoom(double factor, double anchor_x) {
  if (!(factor > 0)) return;
  const double anchor_t = t_of(anchor_x);
  ns_per_px_ /= factor;
  clamp();
  t0_ = anchor_t - anchor_x * ns_per_px_;
  clamp();
}

void TimeMapper::pan(double dx) {
  t0_ += dx * ns_per_px_;
  clamp();
}

void TimeMapper::clamp() {
  const double whole = static_cast<double>(makespan_) / width_;
  ns_per_px_ = std::clamp(ns_per_px_, kMinNsPerPixel, 4 * whole);
  // Keep some of the step in view: the left edge between −(view) and the makespan.
  const double view = width_ * ns_per_px_;
  t0_ = std::clamp(t0_, -0.5 * view, static_cast<double>(makespan_) - 0.5 * view);
}

std::vector<Tick> TimeMapper::ticks(double min_spacing_px) const {
  const double min_step = std::max(min_spacing_px * ns_per_px_, 1.0);
  double step = std::pow(10.0, std::floor(std::log10(min_step)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (step * m >= min_step) {
      step *= m;
      break;
    }
  std::vector<Tick> out;
  const double first = std::ceil(t0_ / step) * step;
  for (double t = first; t <= t1(); t += step) {
    Tick k;
    k.time = static_cast<TimeNs>(std::llround(t));
    k.x = x_of(t);
    k.label = std::abs(t) < 0.5 ? "0" : format_duration(t);
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace trainsim::gui
