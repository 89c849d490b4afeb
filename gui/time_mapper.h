#pragma once
// The time ↔ pixel mapping of a Gantt view, with zoom, pan and fit, and the axis ticks that go
// with it. Pure value type: no widgets, no Qt, so it is tested on its own.
#include <string>  // std::string
#include <vector>  // std::vector

#include "core/time.h"

namespace trainsim::gui {

struct Tick {
  double x = 0;       ///< pixel, relative to the plot's left edge
  TimeNs time = 0;    ///< nanoseconds
  std::string label;  ///< "250 µs", "1.5 ms", "2 s"
};

class TimeMapper {
 public:
  /// Shows [0, makespan] across `width` pixels (with no makespan, 1 µs).
  void fit(TimeNs makespan, int width);
  /// Resizing keeps the left edge and the scale.
  void set_width(int width);
  /// Shows [a, b] (ns) across the width; a ≥ b is ignored.
  void show_range(double a, double b);
  /// Zooms by `factor` (> 1: in) keeping the time under pixel `anchor_x` in place. The scale is
  /// kept between kMinNsPerPixel and a whole-step view ×4.
  void zoom(double factor, double anchor_x);
  /// Moves the view by `dx` pixels (positive: later times come into view).
  void pan(double dx);

  double x_of(double t_ns) const { return (t_ns - t0_) / ns_per_px_; }
  double t_of(double x) const { return t0_ + x * ns_per_px_; }
  double t0() const { return t0_; }
  double t1() const { return t0_ + width_ * ns_per_px_; }
  double ns_per_pixel() const { return ns_per_px_; }
  int width() const { return width_; }

  /// Ticks at a 1-2-5 step chosen so labels sit at least `min_spacing_px` apart, each
  /// labelled by format_duration.
  std::vector<Tick> ticks(double min_spacing_px = 80) const;

  static constexpr double kMinNsPerPixel = 0.01;

 private:
  void clamp();
  double t0_ = 0;
  double ns_per_px_ = 1;
  int width_ = 1;
  TimeNs makespan_ = 1000;
};

/// "1.5 ms", "250 µs", "12 ns", "3.2 s": a duration in the unit that suits it, ≤ 4 digits.
std::string format_duration(double ns);

}  // namespace trainsim::gui
