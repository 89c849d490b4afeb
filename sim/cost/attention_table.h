#pragma once
// Measured fused-attention times (a calibration profile's `attention` samples, e.g. from a
// PyTorch trace by `trainsim-calibrate import-torch-trace`) as a lookup for the cost model.
//
// Samples of one pass (forward or backward), head dimension and mask are throughputs in the
// FlashAttention papers' FLOP convention (AttentionSample::flops) by sequence length, whatever
// kernel measured them (the run's own: import from the run you model); a kernel
// of that pass, head dimension and mask is timed at the throughput interpolated linearly in
// log2(seq) between the nearest samples (at one length, the mean), so its time scales with its
// heads and seq². A length outside the samples' range, another head dimension or mask: no
// answer (the analytic model's published data then).
#include <cstddef>   // std::size_t
#include <map>       // std::map
#include <optional>  // std::optional
#include <set>       // std::set
#include <tuple>     // std::tuple
#include <utility>   // std::pair
#include <vector>    // std::vector

#include "cost/calibration_profile.h"

namespace trainsim {

class AttentionTable {
 public:
  explicit AttentionTable(const std::vector<AttentionSample>& samples);

  /// Seconds of one kernel call of `heads` (sequences × heads) at `seq` and `head_dim`, or none.
  std::optional<double> seconds(bool backward, double seq, double head_dim, double heads,
                                bool causal) const;
  bool empty() const { return size_ == 0; }
  /// Samples the table was made of.
  std::size_t size() const { return size_; }
  /// Distinct (pass, length, head size) answered so far (for the report's durations line).
  std::size_t answered() const { return answered_.size(); }

 private:
  using Kind = std::tuple<bool, double, bool>;                     // backward, head dim, causal
  std::map<Kind, std::vector<std::pair<double, double>>> curves_;  // (log2 seq, TFLOP/s), sorted
  std::size_t size_ = 0;
  mutable std::set<std::tuple<bool, double, double>> answered_;
};

}  // namespace trainsim
