#include "cost/calibrated.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "cost/analytic.h"
#include "cost/fp8_gemm.h"
#include "cost/interpolate.h"

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
  // A file that is not a profile is the scenario's `calibration` key's error: name it.
  CalibrationProfile profile = [&s] {
    try {
      return load_profile(s.calibration);
    } catch (const ScenarioError&) {
      throw;
    } catch (const InputError& e) {
      throw ScenarioError(s.where("calibration"), "calibration", e.what());
    }
  }();
  // A profile times the GPU it was measured on: another GPU's would price this one silently.
  if (const std::string why = gpu_mismatch(profile.provenance.device, s.cluster.gpu.name);
      !why.empty())
    throw ScenarioError(
        s.where("calibration"), "calibration",
        fmt::format("{} was measured on \"{}\", the scenario's GPU is {} (cluster.gpu; {}): "
                    "a profile prices the GPU it was measured on; give that GPU's profile, or "
                    "cluster.gpu of the measured one",
                    s.calibration, profile.provenance.device, s.cluster.gpu.name, why));
  auto gemms = std::make_unique<GemmTable>(
      profile.gemms, s.training.precision == Precision::FP16 ? "fp16" : "bf16");
  auto memory = std::make_unique<BandwidthTable>(profile.memory);
  auto attention = std::make_unique<AttentionTable>(profile.attention);
  auto analytic =
      std::make_unique<AnalyticCostModel>(s, gemms.get(), memory.get(), attention.get());
  auto model = std::make_unique<CalibratedCostModel>(std::move(profile), s.calibration,
                                                     std::move(analytic), std::move(gemms),
                                                     std::move(memory), std::move(attention));
  model->fp8_ = s.training.precision == Precision::FP8;
  return model;
}

CalibratedCostModel::CalibratedCostModel(CalibrationProfile profile, std::string path,
                                         std::unique_ptr<CostModel> fallback,
                                         std::unique_ptr<GemmTable> gemms,
                                         std::unique_ptr<BandwidthTable> memory,
                                         std::unique_ptr<AttentionTable> attention)
    : LayeredCostModel(std::move(fallback)),
      profile_(std::move(profile)),
      path_(std::move(path)),
      gemms_(std::move(gemms)),
      memory_(std::move(memory)),
      attention_(std::move(attention)) {
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
  if (auto t = loglog_within(v, bytes)) {
    measured_.insert(record);
    return *t;
  }
  // Outside the table: t = α + β·bytes, least squares over the samples (α ≥ 0).
  fitted_.insert(record);
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [x, y] : v) sx += x, sy += y, sxx += x * x, sxy += x * y;
  const double n = static_cast<double>(v.size());
  const double beta = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const double alpha = std::max(0.0, (sy - beta * sx) / n);
  const double t = alpha + std::max(beta, 0.0) * bytes;
  // No collective of a step takes an hour: a line that says so was fitted to samples far off
  // one another (a unit slip in one of them), and would price the run with it.
  if (t > 3600)
    throw InputError(fmt::format(
        "{}: {}×{} {}: the α–β line through its {} sample(s) ({:g}–{:g} bytes) gives {:.3g} s "
        "for {:g} bytes, past any collective: check those samples' times",
        path_, op, group_size, link_name(link), v.size(), v.front().first, v.back().first, t,
        bytes));
  return t;
}

Cost CalibratedCostModel::collective(Collective c, int group_size, LinkClass link, double bytes,
                                     int per_node) const {
  Cost base = LayeredCostModel::collective(c, group_size, link, bytes, per_node);
  if (group_size <= 1) return base;
  const double t = lookup(op_name(c), group_size, link, bytes);
  if (t >= 0) base.duration = seconds_to_ns(t);
  return base;
}

Cost CalibratedCostModel::tp_communication(Op op, int stage, LinkClass link, int per_node) const {
  for (const CollectiveRun& run : tp_collectives(op, stage))
    if (run.group_size > 1) tp_keys_.insert({op_name(run.kind), run.group_size, link_name(link)});
  return CostModel::tp_communication(op, stage, link, per_node);
}

Cost CalibratedCostModel::p2p(LinkClass link, double bytes) const {
  Cost base = LayeredCostModel::p2p(link, bytes);
  // nccl-tests' sendrecv runs a ring over all its GPUs, each sending S to one peer at once:
  // any group size measures one point-to-point transfer. A pair if measured, else the smallest.
  int group = 2;
  for (const auto& [key, v] : table_)
    if (std::get<0>(key) == "sendrecv" && std::get<2>(key) == link_name(link)) {
      group = std::get<1>(key);
      if (group == 2) break;
    }
  const double t = lookup("sendrecv", group, link, bytes);
  if (t >= 0) base.duration = seconds_to_ns(t);
  return base;
}

std::string CalibratedCostModel::sources() const {
  std::string s = fmt::format(
      "profile {} ({}): {} collective size(s) measured, {} extrapolated "
      "(α–β fit)",
      path_, profile_.provenance.device.empty() ? "unknown device" : profile_.provenance.device,
      measured_.size(), fitted_.size());
  // Per collective kind that came from the profile (measured or fitted): which, and whether the
  // TP collectives are among them.
  std::map<std::string, std::pair<int, int>> used;  // "op×n link" -> (measured, fitted) sizes
  std::set<std::string> tp_used;
  for (const auto* set : {&measured_, &fitted_})
    for (const auto& [op, n, link, bytes] : *set) {
      const std::string k = fmt::format("{}×{} {}", op, n, link);
      auto& [m, f] = used[k];
      (set == &measured_ ? m : f) += 1;
      if (tp_keys_.count({op, n, link})) tp_used.insert(k);
    }
  if (!used.empty()) {
    std::vector<std::string> what;
    for (const auto& [k, mf] : used)
      what.push_back(fmt::format("{}{} ({} measured, {} fitted)", k,
                                 tp_used.count(k) ? " [TP]" : "", mf.first, mf.second));
    s += fmt::format("; from the profile: {}", fmt::join(what, ", "));
  }
  // What the profile does not answer the model below it prices (its published kernel data or
  // its roofline: the last part of this line says which).
  if (!missing_.empty()) {
    std::set<std::string> what;
    for (const auto& [op, n, link, bytes] : missing_) {
      const auto it = table_.find({op, n, link});
      what.insert(fmt::format("{}×{} {}{}{}", op, n, link,
                              tp_keys_.count({op, n, link}) ? " [TP]" : "",
                              it == table_.end() ? "" : " (one size: two needed)"));
    }
    s += fmt::format("; by the model, not in the profile: {}", fmt::join(what, ", "));
  }
  if (!gemms_ || gemms_->empty()) {
    s += "; GEMMs by the model (no GEMM samples)";
  } else {
    s += fmt::format("; {} GEMM shape(s) from the profile", gemms_->answered());
    if (!gemms_->outside().empty()) {
      std::vector<std::string> shapes;
      for (const auto& [m, n, k] : gemms_->outside())
        if (shapes.size() < 4) shapes.push_back(fmt::format("{}×{}×{}", m, n, k));
      s += fmt::format("; warning: {} GEMM shape(s) outside the profile priced by the model ({}{})",
                       gemms_->outside().size(), fmt::join(shapes, ", "),
                       gemms_->outside().size() > shapes.size() ? ", …" : "");
    }
  }
  if (!memory_ || memory_->empty()) {
    s += "; memory-bound kernels by the model (no memory samples)";
  } else {
    s += fmt::format("; {} memory-bound kernel size(s) from the profile", memory_->answered());
    if (memory_->outside() > 0)
      s += fmt::format(", {} outside its sizes by the model", memory_->outside());
  }
  if (!attention_ || attention_->empty())
    s += "; attention core by the model";
  else if (attention_->answered() == 0)
    s += fmt::format(
        "; attention core by the model ({} attention sample(s) in the profile, none of this "
        "run's length, head size and mask)",
        attention_->size());
  else
    s += fmt::format("; {} attention shape(s) from the profile", attention_->answered());
  // The model's own line ("analytic; published kernel data: …") names its FP8 source too.
  if (const CostModel* model = fallback())
    s += fmt::format("; the model: {}", model->sources());
  else if (fp8_)
    s += fmt::format("; {}", fp8_gemm_source());
  return s;
}

}  // namespace trainsim
