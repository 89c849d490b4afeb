#pragma once
// A progress bar for long measurements: redrawn in place on a terminal, one line per tenth
// of the work otherwise (logs stay short).
#include <chrono>  // std::chrono
#include <cstdio>  // std::FILE
#include <string>  // std::string

namespace trainsim {

/// "[#####·····]  37/182  20%  eta 1m05s  qkv 1024×3072×2048" in `width` bar cells. `eta_s` < 0:
/// none yet.
std::string progress_line(std::size_t done, std::size_t total, double eta_s,
                          const std::string& label, int width = 24);

class Progress {
 public:
  /// `out` null: silent (an MPI rank other than 0).
  Progress(std::size_t total, std::FILE* out);
  /// Item `done` (0-based count finished) with its label.
  void step(std::size_t done, const std::string& label);
  /// Clears the bar (on a terminal) before the caller prints its summary.
  void finish();

 private:
  std::size_t total_;
  std::FILE* out_;
  bool tty_;
  int last_tenth_ = -1;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace trainsim
