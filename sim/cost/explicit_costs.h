#pragma once
// Explicit per-stage durations from a scenario's `costs:` section, layered over a fallback model
// (or none, for a costs-only pipeline study). The per-stage values are per pipeline rank; with
// v chunks per rank each chunk takes the value / v. FLOPs and bytes still come from the fallback
// when there is one, so MFU stays meaningful.
#include <memory>  // std::unique_ptr

#include "cost/cost_model.h"
#include "scenario/scenario.h"

namespace trainsim {

class ExplicitCostModel : public LayeredCostModel {
 public:
  /// `fallback` may be null (no model: collectives and optimizer cost nothing).
  /// `source` places the error about a missing split backward (the `costs.backward` key's
  /// file and line).
  ExplicitCostModel(CostOverrides costs, int vpp, std::unique_ptr<CostModel> fallback,
                    std::string source = "scenario");

  /// Throws InputError when the schedule needs a duration the costs do not give (a split
  /// backward from a fused `backward`).
  Cost compute(Op op, int stage, int rank) const override;
  /// `forward_backward_overlap` / vpp when given, else F + B.
  Cost overlapped(int forward_stage, int backward_stage, int rank) const override;
  Cost p2p(LinkClass link, double bytes) const override;
  /// Empty: the scenario's costs replace the kernels' times.
  std::vector<KernelTime> kernel_times(Op, int) const override { return {}; }
  /// The fallback's, unless the scenario gives compute durations (which then stand for the
  /// whole work, the CPU's share included): 0.
  HostLaunch host_launch(Op op, int stage) const override;
  bool simulates_cpu() const override;
  /// 1 for the durations `costs:` gives (what the job's steps took), else the fallback's pace.
  double pace_of(Op op, int stage, int rank) const override;
  double overlapped_pace(int forward_stage, int backward_stage, int rank) const override;
  std::string sources() const override {
    return "scenario costs" + (fallback() ? " over " + fallback()->sources() : std::string());
  }

 private:
  /// Whether `costs:` gives the duration of `op`.
  bool gives(Op op) const;

  CostOverrides c_;
  int vpp_;
  std::string source_;
};

/// The cost model a scenario asks for: analytic, explicit costs, or explicit over analytic.
std::unique_ptr<CostModel> make_cost_model(const Scenario& s);

}  // namespace trainsim
