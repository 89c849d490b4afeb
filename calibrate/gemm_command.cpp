// `trainsim-calibrate gemm`: the GEMM shapes and copy sizes a scenario needs, timed on one GPU.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "commands.h"
#include "core/error.h"
#include "core/quantity.h"
#include "cost/analytic.h"
#include "device_info.h"
#include "gemm_bench.h"
#include "gemm_plan.h"
#include "profile_update.h"
#include "progress.h"
#include "scenario/scenario_loader.h"

namespace trainsim {
namespace {}  // namespace

int cmd_gemm(const GemmArgs& a) {
  const Scenario s = load_scenario(a.scenario, a.overrides);
  if (!s.model || !s.has_cluster)
    throw InputError(fmt::format(
        "{}: gemm needs a scenario with a model and a cluster (it times their GEMM shapes)",
        a.scenario));
  if (a.reps < 3) throw InputError("--reps: at least 3 timed runs per shape");
  std::vector<PlannedGemm> plan = plan_gemms(s);
  const std::vector<double> copies = plan_copy_bytes();
  const std::string dtype = gemm_dtype(s);
  if (a.dry_run) {
    std::cout << format_gemm_plan(plan, copies, dtype, s.training.precision == Precision::FP8);
    return 0;
  }
  const int count = gpu::require_devices();
  if (a.device < 0 || a.device >= count)
    throw InputError(
        fmt::format("--device {}: this machine has GPUs 0 to {}", a.device, count - 1));
  TRAINSIM_GPU(cudaSetDevice(a.device));
  CalibrationProfile profile;
  profile.provenance = provenance_of(a.device);
  check_profile_target(a.out, profile.provenance.device);  // before minutes of measuring

  // Operand pools for the largest A, B and C (and the largest copy); sweep points are left out,
  // largest first, until the pools fit in 80% of free memory.
  std::size_t free = 0, total = 0;
  TRAINSIM_GPU(cudaMemGetInfo(&free, &total));
  std::vector<std::string> skipped;
  while (operand_pools(plan, copies.back()).bytes() > 0.8 * static_cast<double>(free) &&
         !plan.empty()) {
    const auto big = std::max_element(plan.begin(), plan.end(),
                                      [](auto& x, auto& y) { return x.bytes() < y.bytes(); });
    if (big->needed)
      skipped.push_back(fmt::format("{} ({}: operands too large for free memory {})",
                                    gemm_shape_text(*big), big->why, format_bytes(free)));
    plan.erase(big);
  }
  GemmBench bench(a.device, dtype == "fp16", operand_pools(plan, copies.back()));

  const auto t0 = std::chrono::steady_clock::now();
  Progress progress(plan.size() + copies.size(), stderr);
  std::size_t done = 0;
  for (const auto& g : plan) {
    progress.step(done++, fmt::format("{} {}", gemm_shape_text(g), g.why));
    try {
      const Timing t = bench.time(g.m, g.n, g.k, a.reps);
      profile.gemms.push_back({g.m, g.n, g.k, dtype, t.median, t.spread, "measured", ""});
    } catch (const gpu::GpuError& e) {
      skipped.push_back(fmt::format("{} ({}): {}", gemm_shape_text(g), g.why, e.what()));
    }
  }
  for (double bytes : copies) {
    progress.step(done++, "copy " + format_bytes(bytes));
    const Timing t = bench.time_copy(bytes, a.reps);
    profile.memory.push_back({"copy", bytes, t.median, t.spread, "measured", ""});
  }
  progress.finish();
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const ProfileUpdate update = update_profile(a.out, profile, ProfileSection::Compute);

  // Summary: each needed shape's rate beside the analytic roofline, the largest GEMM, the
  // best copy bandwidth.
  std::cout << fmt::format("{}: {} GEMM shapes and {} copy sizes in {:.0f} s → {}{}\n",
                           profile.provenance.device, profile.gemms.size(), profile.memory.size(),
                           took, a.out, describe(update));
  const AnalyticCostModel analytic(s);
  const GemmSample* largest = nullptr;
  std::cout << fmt::format("  {:<22} {:>10} {:>9} {:>12}  {}\n", "shape (m×n×k)", "median",
                           "TFLOP/s", "vs analytic", "used for");
  for (const auto& g : plan) {
    if (!g.needed) continue;
    const auto it = std::find_if(profile.gemms.begin(), profile.gemms.end(),
                                 [&](auto& x) { return x.m == g.m && x.n == g.n && x.k == g.k; });
    if (it == profile.gemms.end()) continue;
    if (!largest || g.flops() > 2.0 * largest->m * largest->n * largest->k) largest = &*it;
    const double roof = analytic.gemm_seconds(
        {static_cast<double>(g.m), static_cast<double>(g.n), static_cast<double>(g.k)});
    std::cout << fmt::format("  {:<22} {:>8.1f}µs {:>9.1f} {:>11.2f}×  {}\n", gemm_shape_text(g),
                             it->time_s * 1e6, g.flops() / it->time_s / 1e12, it->time_s / roof,
                             g.why);
  }
  if (largest)
    std::cout << fmt::format("largest GEMM {}×{}×{}: {:.1f} TFLOP/s\n", largest->m, largest->n,
                             largest->k,
                             2.0 * largest->m * largest->n * largest->k / largest->time_s / 1e12);
  double best_bw = 0;
  for (const auto& m : profile.memory) best_bw = std::max(best_bw, m.bytes / m.time_s);
  std::cout << fmt::format("copy: up to {:.0f} GB/s (bytes read + written)\n", best_bw / 1e9);
  for (const auto& k : skipped) std::cout << "skipped: " << k << "\n";
  return 0;
}

}  // namespace trainsim
