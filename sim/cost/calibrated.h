#pragma once
// Durations from a calibration profile (calibration_profile.h) over a fallback model. Collective
// and point-to-point times come from the profile's samples for the same operation, group size
// and link class: interpolated in log–log space between measured sizes, and outside them from
// an α–β line fitted to the samples (said in sources()). Anything the profile does not cover
// comes from the fallback, and sources() says which. GEMMs are timed by shape from the profile's
// `gemm` samples (gemm_table.h), memory-bound kernels by size from its `memory` samples
// (bandwidth_table.h) and the attention core by call from its `attention` samples
// (attention_table.h) inside the analytic model; the rest keeps the model's published kernel
// data or roofline: sources() warns which, and ends with the model's own line.
#include <map>     // std::map
#include <memory>  // std::unique_ptr
#include <set>     // std::set
#include <string>  // std::string
#include <tuple>   // std::tuple
#include <vector>  // std::vector

#include "cost/attention_table.h"
#include "cost/bandwidth_table.h"
#include "cost/calibration_profile.h"
#include "cost/cost_model.h"
#include "cost/gemm_table.h"
#include "scenario/scenario.h"

namespace trainsim {

class CalibratedCostModel : public LayeredCostModel {
 public:
  /// `gemms`, `memory`: the tables `fallback` times GEMMs and memory-bound kernels with (kept
  /// alive here), or null.
  CalibratedCostModel(CalibrationProfile profile, std::string path,
                      std::unique_ptr<CostModel> fallback,
                      std::unique_ptr<GemmTable> gemms = nullptr,
                      std::unique_ptr<BandwidthTable> memory = nullptr,
                      std::unique_ptr<AttentionTable> attention = nullptr);
  /// The scenario's `calibration:` profile over the analytic model, GEMM table included.
  static std::unique_ptr<CalibratedCostModel> for_scenario(const Scenario& s);

  Cost p2p(LinkClass link, double bytes) const override;
  Cost collective(Collective c, int group_size, LinkClass link, double bytes,
                  int per_node = 1) const override;
  /// As the base class (each TP collective through collective()), noting which profile keys
  /// TP uses so sources() can name them.
  Cost tp_communication(Op op, int stage, LinkClass link, int per_node = 1) const override;
  std::string sources() const override;

  /// The profile's time for `op` ("all_reduce", …) of `bytes` over `group_size` GPUs on
  /// `link`, or a negative value when it has no samples for that combination.
  double lookup(const std::string& op, int group_size, LinkClass link, double bytes) const;

 private:
  using Key = std::tuple<std::string, int, std::string>;  // op, group size, link
  CalibrationProfile profile_;
  std::string path_;
  std::unique_ptr<GemmTable> gemms_;
  std::unique_ptr<BandwidthTable> memory_;
  std::unique_ptr<AttentionTable> attention_;
  std::map<Key, std::vector<std::pair<double, double>>> table_;  // sorted (bytes, seconds)
  // What the lookups used, by (op, group, link, bytes), for sources().
  mutable std::set<std::tuple<std::string, int, std::string, double>> measured_, fitted_, missing_;
  mutable std::set<Key> tp_keys_;  ///< (op, group, link) the TP collectives looked up
  bool fp8_ = false;               ///< FP8 GEMMs (the profile's bf16 times × the FP8 ratio)
};

}  // namespace trainsim
