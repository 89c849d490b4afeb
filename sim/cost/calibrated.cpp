#include "cost/calibrated.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cost/analytic.h"

namespace trainsim {
namespace {

const char* op_name(Collective c) {
  switch (c) {
    case Collective::AllReduce:
      return "all_reduce";
    case Collective::AllGather:
      return "all_gather";
    case Collective::ReduceScatter:
      return "reduce_scatter";
    case Collective::AllToAll:
      return "alltoall";
  }
  return "?";
}

const char* link_name(LinkClass l) {
  return l == LinkClass::IntraNode ? "intra_node" : "inter_node";
}

}  // namespace

std::unique_ptr<CalibratedCostModel> CalibratedCostModel::for_scenario(const Scenario& s) {
  CalibrationProfile profile = load_profile(s.calibration);
  auto gemms = std::make_unique<GemmTable>(
      profile.gemms, s.training.precision == Precision::FP16 ? "fp16" : "bf16");
  auto analytic = std::make_unique<AnalyticCostModel>(s, gemms.get());
  return std::make_unique<CalibratedCostModel>(std::move(profile), s.calibration,
                                               std::move(analytic), std::move(gemms));
}

CalibratedCostModel::CalibratedCostModel(CalibrationProfile profile, std::string path,
                                         std::unique_ptr<CostModel> fallback,
                                         std::unique_ptr<GemmTable> gemms)
    : LayeredCostModel(std::move(fallback)),
      profile_(std::move(profile)),
      path_(std::move(path)),
      gemms_(std::move(gemms)) {
  for (const auto& s : profile_.collectives)
    table_[{s.op, s.group_size, s.link}].push_back({s.bytes, s.time_s});
  for (auto& [key, v] : table_) std::sort(v.begin(), v.end());
}

double CalibratedCostModel::lookup(const std::string& op, int group_size, LinkClass link,
                                   double bytes) const {
  const auto it = table_.find({op, group_size, link_name(link)});
  const auto record = std::make_tuple(op, group_size, std::string(link_name(link)), bytes);
  if (it == table_.end() || it->second.size() < 2 || bytes <= 0) {
    missing_.insert(record);
    return -1;
  }
  const auto& v = it->second;
  if (bytes >= v.front().first && bytes <= v.back().first) {
    measured_.insert(record);
    auto hi = std::lower_bound(v.begin(), v.end(), std::make_pair(bytes, 0.0));
    if (hi->first == bytes) return hi->second;
    const auto lo = hi - 1;
    // Log–log between the neighbouring sizes: exact at both, a power law between.
    const double f =
        (std::log(bytes) - std::log(lo->first)) / (std::log(hi->first) - std::log(lo->first));
    return std::exp(std::log(lo->second) + f * (std::log(hi->second) - std::log(lo->second)));
  }
  // Outside the table: t = α + β·bytes, least squares over the samples (α ≥ 0).
  fitted_.insert(record);
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [x, y] : v) sx += x, sy += y, sxx += x * x, sxy += x * y;
  const double n = static_cast<double>(v.size());
  const double beta = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const double alpha = std::max(0.0, (sy - beta * sx) / n);
  return alpha + std::max(beta, 0.0) * bytes;
}

Cost CalibratedCostModel::collective(Collective c, int group_size, LinkClass link,
                                     double bytes) const {
  Cost base = LayeredCostModel::collective(c, group_size, link, bytes);
  if (group_size <= 1) return base;
  const double t = lookup(op_name(c), group_size, link, bytes);
  if (t >= 0) base.duration = seconds_to_ns(t);
  return base;
}

Cost CalibratedCostModel::p2p(LinkClass link, double bytes) const {
  Cost base = LayeredCostModel::p2p(link, bytes);
  const double t = lookup("sendrecv", 2, link, bytes);
  if (t >= 0) base.duration = seconds_to_ns(t);
  return base;
}

std::string CalibratedCostModel::sources() const {
  std::string s = fmt::format(
      "profile {} ({}): {} collective size(s) measured, {} extrapolated "
      "(α–β fit)",
      path_, profile_.provenance.device.empty() ? "unknown device" : profile_.provenance.device,
      measured_.size(), fitted_.size());
  if (!missing_.empty()) {
    std::set<std::string> what;
    for (const auto& [op, n, link, bytes] : missing_)
      what.insert(fmt::format("{}×{} {}", op, n, link));
    s += fmt::format("; analytic for {} (no samples)", fmt::join(what, ", "));
  }
  if (!gemms_ || gemms_->empty()) {
    s += "; compute analytic (no GEMM samples)";
    return s;
  }
  s += fmt::format("; {} GEMM shape(s) from the profile", gemms_->answered());
  if (!gemms_->outside().empty()) {
    std::vector<std::string> shapes;
    for (const auto& [m, n, k] : gemms_->outside())
      if (shapes.size() < 4) shapes.push_back(fmt::format("{}×{}×{}", m, n, k));
    s += fmt::format(
        "; warning: {} GEMM shape(s) outside the profile use the analytic roofline ({}{})",
        gemms_->outside().size(), fmt::join(shapes, ", "),
        gemms_->outside().size() > shapes.size() ? ", …" : "");
  }
  s += "; attention and memory-bound kernels analytic";
  return s;
}

}  // namespace trainsim
