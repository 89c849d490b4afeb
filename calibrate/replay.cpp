#include "replay.h"

#include <cmath>
#include <filesystem>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "core/error.h"
#include "cost/constants.h"
#include "cost/explicit_costs.h"
#include "scenario/scenario_loader.h"

namespace trainsim {
namespace {

using Shape = std::tuple<std::int64_t, std::int64_t, std::int64_t>;

// The GEMMs that stand for one attention kernel run: QKᵀ {heads·s, s/2, d} and PV
// {heads·s, d, s/2} (forward; the backward's twice the FLOPs run them twice).
std::vector<Shape> attention_gemms(const Kernel& k) {
  const auto rows = std::llround(k.batch * k.gemm.m);
  const auto half = std::max<std::int64_t>(1, std::llround(k.gemm.n * constants::kCausalFraction));
  const auto d = std::llround(k.gemm.k);
  std::vector<Shape> g{{rows, half, d}, {rows, d, half}};
  const double fwd = 2.0 * 2.0 * static_cast<double>(rows) * static_cast<double>(half) * d;
  if (k.flops > 1.5 * fwd) g.insert(g.end(), {{rows, half, d}, {rows, d, half}});
  return g;
}

Shape shape_of(const GemmShape& g) {
  return {std::llround(g.m), std::llround(g.n), std::llround(g.k)};
}

}  // namespace

Scenario load_validate_scenario(const ValidateArgs& a) {
  std::vector<std::string> overrides = a.overrides;
  const std::string edit = "calibration=" + std::filesystem::absolute(a.profile).string();
  overrides.push_back(edit);
  // The profile's errors name --profile, the flag given, not the --set edit made of it.
  const auto named = [&](const ScenarioError& e) {
    return e.where() == "--set " + edit ? e.relocated("--profile " + a.profile) : e;
  };
  Scenario s;
  try {
    s = load_scenario(a.scenario, overrides);
  } catch (const ScenarioError& e) {
    throw named(e);
  }
  if (!s.model || !s.has_cluster || s.costs)
    throw InputError(fmt::format(
        "{}: validate needs a scenario with a model and a cluster and no explicit `costs:` "
        "(it runs the kernels the cost model times)",
        a.scenario));
  if (s.training.precision == Precision::FP8)
    throw InputError(fmt::format(
        "{}: training.precision: fp8: validate replays GEMMs in bf16/fp16 only; give "
        "--set training.precision=bf16 to check the bf16 times the FP8 ratio multiplies",
        a.scenario));
  // The replay runs on one GPU, which sets its own pace: the job's slowest GPU is not in it.
  s.cluster.gpu_speed_spread = 0.0;
  // The profile read now (a file that is not one, another GPU's), before any GPU is asked for.
  try {
    make_cost_model(s);
  } catch (const ScenarioError& e) {
    throw named(e);
  }
  return s;
}

std::vector<Kernel> kernels_of(const AnalyticCostModel& model,
                               const std::vector<std::pair<Op, int>>& ops) {
  std::vector<Kernel> k;
  for (const auto& [op, stage] : ops) {
    auto more = model.kernels(op, stage);
    k.insert(k.end(), more.begin(), more.end());
  }
  return k;
}

ReplayNeeds replay_needs(const std::vector<std::vector<Kernel>>& computes) {
  ReplayNeeds out;
  std::set<Shape> seen;
  double max_copy = 0;
  auto add = [&](const Shape& sh) {
    if (seen.insert(sh).second)
      out.shapes.push_back({std::get<0>(sh), std::get<1>(sh), std::get<2>(sh), "", true});
  };
  for (const auto& kernels : computes)
    for (const Kernel& k : kernels) {
      if (k.kind == Kernel::Kind::Gemm) add(shape_of(k.gemm));
      if (k.kind == Kernel::Kind::Attention)
        for (const Shape& sh : attention_gemms(k)) add(sh);
      if (k.kind == Kernel::Kind::Memory) max_copy = std::max(max_copy, k.bytes);
    }
  out.pools = operand_pools(out.shapes, max_copy);
  return out;
}

void run_kernels(GemmBench& bench, const std::vector<Kernel>& ks) {
  std::size_t i = 0;
  while (i < ks.size()) {
    std::size_t j = i + 1;
    while (j < ks.size() && ks[j].count == ks[i].count && ks[i].count > 1) ++j;
    for (int rep = 0; rep < ks[i].count; ++rep)
      for (std::size_t x = i; x < j; ++x) {
        const Kernel& k = ks[x];
        if (k.kind == Kernel::Kind::Gemm) {
          const auto [m, n, kk] = shape_of(k.gemm);
          // A batched GEMM, or one run in chunks (comm-GEMM overlap), one by one: the experts'
          // GEMMs too, as training.expert_gemms: sequential runs them, whatever the scenario says.
          for (double b = 0; b < k.batch * k.splits; ++b) bench.run(m, n, kk);
        } else if (k.kind == Kernel::Kind::Attention) {
          for (const auto& [m, n, kk] : attention_gemms(k)) bench.run(m, n, kk);
        } else {
          bench.copy(k.bytes);
        }
      }
    i = j;
  }
}

}  // namespace trainsim
