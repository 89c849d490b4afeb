#pragma once
// Measured bf16 GEMM throughput by shape for the GPU presets that have a published sweep
// (cost/data/, NVIDIA's aiconfigurator database: A100 SXM, H100 SXM, H200 SXM). Between grid
// points the throughput is interpolated trilinearly in log2(m), log2(n), log2(k); above the grid
// it stays at the edge's; below it the time stays at the edge's (a GEMM smaller than the
// smallest measured one takes at least as long as nothing, and no longer than that one).
//
// Does not model: shapes that are not multiples of the grid's tiles (interpolation smooths tile
// and wave quantization away), fp8.
#include <string>  // std::string

namespace trainsim {

class GemmEfficiency {
 public:
  /// The sweep of GPU preset `preset` (a100-sxm-80gb, h100-sxm, h200), or nullptr.
  static const GemmEfficiency* for_preset(const std::string& preset);

  /// Throughput, TFLOP/s, of one m×n×k GEMM (see above for shapes off the grid).
  double tflops(double m, double n, double k) const;
  /// Seconds of one m×n×k GEMM: 2·m·n·k / throughput.
  double seconds(double m, double n, double k) const;

  struct Point {
    int m, n, k;
    double tflops;
  };
  GemmEfficiency(const char* source, const Point* points, int count);
  const char* source() const { return source_; }

 private:
  double at(int im, int in, int ik) const;  // grid value by axis index
  const char* source_;
  const Point* points_;
  int count_;
};

}  // namespace trainsim
