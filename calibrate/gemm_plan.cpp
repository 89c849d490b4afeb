#include "gemm_plan.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "core/quantity.h"
#include "cost/analytic.h"

namespace trainsim {

std::string gemm_dtype(const Scenario& s) {
  return s.training.precision == Precision::FP16 ? "fp16" : "bf16";
}

std::vector<PlannedGemm> plan_gemms(const Scenario& s, const GemmPlanOptions& o) {
  const AnalyticCostModel model(s);
  using Shape = std::tuple<std::int64_t, std::int64_t, std::int64_t>;
  std::vector<PlannedGemm> plan;
  std::map<Shape, std::size_t> index;  // shape → position in plan
  auto add = [&](std::int64_t m, std::int64_t n, std::int64_t k, const std::string& why,
                 bool needed) {
    const Shape key{m, n, k};
    if (auto it = index.find(key); it != index.end()) {
      PlannedGemm& g = plan[it->second];
      if (needed && g.needed && g.why.find(why) == std::string::npos) g.why += ", " + why;
      return;
    }
    index[key] = plan.size();
    plan.push_back({m, n, k, why, needed});
  };
  const int stages = s.layout.pp * s.layout.vpp;
  for (int stage = 0; stage < stages; ++stage)
    for (Op op : {Op::F, Op::I, Op::W})
      for (const Kernel& k : model.kernels(op, stage))
        if (k.kind == Kernel::Kind::Gemm)
          add(std::llround(k.gemm.m), std::llround(k.gemm.n), std::llround(k.gemm.k), k.what, true);
  const std::size_t needed = plan.size();
  static const std::array<char, 3> kAxis{'m', 'n', 'k'};
  for (std::size_t i = 0; i < needed; ++i) {
    const PlannedGemm base = plan[i];
    const std::string name = base.why.substr(0, base.why.find(','));
    for (std::size_t axis = 0; axis < 3; ++axis)
      for (double f : o.factors) {
        std::array<std::int64_t, 3> d{base.m, base.n, base.k};
        d[axis] = std::max<std::int64_t>(1, std::llround(static_cast<double>(d[axis]) * f));
        const PlannedGemm g{d[0], d[1], d[2], "", false};
        if (g.bytes() > o.max_bytes) continue;
        add(d[0], d[1], d[2], fmt::format("sweep: {} {}×{:g}", name, kAxis[axis], f), false);
      }
  }
  return plan;
}

OperandPools operand_pools(const std::vector<PlannedGemm>& gemms, double copy_bytes) {
  const auto copy = static_cast<std::size_t>(copy_bytes / 4);  // half the bytes, 2 per element
  OperandPools p{copy, 0, copy};
  for (const auto& g : gemms) {
    p.a = std::max(p.a, static_cast<std::size_t>(g.m * g.k));
    p.b = std::max(p.b, static_cast<std::size_t>(g.k * g.n));
    p.c = std::max(p.c, static_cast<std::size_t>(g.m * g.n));
  }
  return p;
}

std::vector<double> plan_copy_bytes() {
  std::vector<double> sizes;
  for (double b = 256.0 * 1024; b <= 4.0 * (1ull << 30); b *= 2) sizes.push_back(b);
  return sizes;
}

std::string gemm_shape_text(const PlannedGemm& g) {
  return fmt::format("{}×{}×{}", g.m, g.n, g.k);
}

std::string format_gemm_plan(const std::vector<PlannedGemm>& plan,
                             const std::vector<double>& copies, const std::string& dtype,
                             bool fp8) {
  std::size_t needed = 0;
  double biggest = 0;
  for (const auto& g : plan) {
    if (g.needed) ++needed;
    biggest = std::max(biggest, g.bytes());
  }
  // The copies double from 256 KiB: named in binary units, as the help gives them.
  const auto binary = [](double bytes) {
    const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    for (; bytes >= 1024 && u < 4; ++u) bytes /= 1024;
    return fmt::format("{:g} {}", bytes, units[u]);
  };
  std::string out = fmt::format(
      "{} GEMM shapes ({} the scenario runs, {} sweep points), {}, and {} copy sizes ({} to "
      "{}); largest operands {}\n",
      plan.size(), needed, plan.size() - needed, dtype, copies.size(), binary(copies.front()),
      binary(copies.back()), format_bytes(biggest));
  if (fp8)
    out += fmt::format(
        "  (an FP8 scenario: its GEMMs are timed in {}; the simulator prices FP8 at its measured "
        "FP8/bf16 time ratio of each shape)\n",
        dtype);
  out += fmt::format("  {:<22} {}\n", "m × n × k", "the scenario's GEMMs of that shape");
  for (const auto& g : plan)
    if (g.needed) out += fmt::format("  {:<22} {}\n", gemm_shape_text(g), g.why);
  return out;
}

}  // namespace trainsim
