#include "cost/explicit_costs.h"

#include "core/error.h"
#include "cost/analytic.h"
#include "cost/calibrated.h"

namespace trainsim {

ExplicitCostModel::ExplicitCostModel(CostOverrides costs, int vpp,
                                     std::unique_ptr<CostModel> fallback, std::string source)
    : LayeredCostModel(std::move(fallback)),
      c_(std::move(costs)),
      vpp_(vpp),
      source_(std::move(source)) {}

Cost ExplicitCostModel::compute(Op op, int stage, int rank) const {
  Cost base = LayeredCostModel::compute(op, stage, rank);
  const auto r = static_cast<std::size_t>(rank);
  auto pick = [&](const std::vector<TimeNs>& v) { return v.at(r) / vpp_; };
  switch (op) {
    case Op::F:
      if (!c_.forward.empty()) base.duration = pick(c_.forward);
      break;
    case Op::B:
      if (!c_.backward.empty())
        base.duration = pick(c_.backward);
      else if (!c_.backward_input.empty())
        base.duration = pick(c_.backward_input) + pick(c_.backward_weight);
      break;
    case Op::I:
    case Op::W:
      if (!c_.backward_input.empty())
        base.duration = pick(op == Op::I ? c_.backward_input : c_.backward_weight);
      else if (!c_.backward.empty() || !fallback())
        throw ScenarioError(source_, "costs.backward",
                            "this schedule splits the backward into input (I) and weight (W) "
                            "gradients: give costs.backward_input and costs.backward_weight");
      break;
  }
  return base;
}

namespace {
// Whether the scenario gives compute durations: they stand for the whole work, the CPU's part
// included.
bool times_compute(const CostOverrides& c) {
  return !c.forward.empty() || !c.backward.empty() || !c.backward_input.empty() ||
         !c.backward_weight.empty();
}
}  // namespace

HostLaunch ExplicitCostModel::host_launch(Op op, int stage) const {
  return times_compute(c_) ? HostLaunch{} : LayeredCostModel::host_launch(op, stage);
}

bool ExplicitCostModel::simulates_cpu() const {
  return !times_compute(c_) && LayeredCostModel::simulates_cpu();
}

bool ExplicitCostModel::gives(Op op) const {
  switch (op) {
    case Op::F:
      return !c_.forward.empty();
    case Op::B:
      return !c_.backward.empty() || !c_.backward_input.empty();
    case Op::I:
    case Op::W:
      return !c_.backward_input.empty();
  }
  return false;
}

double ExplicitCostModel::pace_of(Op op, int stage, int rank) const {
  return gives(op) ? 1.0 : LayeredCostModel::pace_of(op, stage, rank);
}

double ExplicitCostModel::overlapped_pace(int forward_stage, int backward_stage, int rank) const {
  if (!c_.forward_backward_overlap.empty()) return 1.0;
  // F + B (CostModel::overlapped): each part at its own pace, weighted by its duration.
  const double f = static_cast<double>(compute(Op::F, forward_stage, rank).duration);
  const double b = static_cast<double>(compute(Op::B, backward_stage, rank).duration);
  if (f + b <= 0) return 1.0;
  return (f * pace_of(Op::F, forward_stage, rank) + b * pace_of(Op::B, backward_stage, rank)) /
         (f + b);
}

Cost ExplicitCostModel::overlapped(int forward_stage, int backward_stage, int rank) const {
  Cost c = CostModel::overlapped(forward_stage, backward_stage, rank);
  if (!c_.forward_backward_overlap.empty())
    c.duration = c_.forward_backward_overlap.at(static_cast<std::size_t>(rank)) / vpp_;
  return c;
}

Cost ExplicitCostModel::p2p(LinkClass link, double bytes) const {
  if (c_.p2p) return {*c_.p2p, 0, bytes};
  return LayeredCostModel::p2p(link, bytes);
}

std::unique_ptr<CostModel> make_cost_model(const Scenario& s) {
  std::unique_ptr<CostModel> analytic;
  if (s.model && !s.calibration.empty())  // measured GEMMs and collectives, analytic the rest
    analytic = CalibratedCostModel::for_scenario(s);
  else if (s.model)
    analytic = std::make_unique<AnalyticCostModel>(s);
  if (!s.costs) return analytic;
  return std::make_unique<ExplicitCostModel>(*s.costs, s.layout.vpp, std::move(analytic),
                                             s.where("costs.backward"));
}

}  // namespace trainsim
