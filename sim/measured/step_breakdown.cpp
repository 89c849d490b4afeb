#include "measured/step_breakdown.h"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "core/error.h"
#include "core/intervals.h"

namespace trainsim {
namespace {

using Intervals = std::vector<Interval>;

std::vector<FamilyTime> sorted(const std::map<std::string, FamilyTime>& m) {
  std::vector<FamilyTime> out;
  for (const auto& [k, v] : m) out.push_back(v);
  std::stable_sort(out.begin(), out.end(),
                   [](const FamilyTime& a, const FamilyTime& b) { return a.time > b.time; });
  return out;
}

}  // namespace

StepBreakdown break_down_step(const TorchTrace& t, int step) {
  TRAINSIM_CHECK(step >= 0 && static_cast<std::size_t>(step) < t.steps.size(),
                 "break_down_step is given a step of the trace");
  const auto& s = t.steps[static_cast<std::size_t>(step)];
  if (s.kernels == 0) throw InputError(fmt::format("{}: {} has no GPU kernels", t.file, s.name));
  StepBreakdown b;
  b.file = t.file;
  b.step = s.name;
  b.rank = t.rank;
  b.span = s.gpu_end - s.gpu_begin;
  std::array<Intervals, kKernelCategories> per;
  Intervals all, compute;
  std::map<std::string, FamilyTime> coll, other;
  for (const auto& k : t.kernels) {
    if (k.step != step) continue;
    const auto c = static_cast<std::size_t>(k.kind.category);
    ++b.count[c];
    b.sum[c] += k.dur;
    per[c].emplace_back(k.start, k.start + k.dur);
    all.emplace_back(k.start, k.start + k.dur);
    if (k.kind.category != KernelCategory::Communication) {
      compute.emplace_back(k.start, k.start + k.dur);
    } else {
      auto& f = coll[k.kind.collective];
      f.family = k.kind.collective;
      ++f.count;
      f.time += k.dur;
    }
    if (k.kind.category == KernelCategory::Other) {
      const std::string fam = kernel_family(t.names[k.name]);
      auto& f = other[fam];
      f.family = fam;
      ++f.count;
      f.time += k.dur;
    }
  }
  for (std::size_t c = 0; c < per.size(); ++c) b.busy[c] = union_length(per[c]);
  const TimeNs busy_all = union_length(all);
  b.compute_busy = union_length(compute);
  b.comm_exposed = busy_all - b.compute_busy;  // = uncovered(communication, compute)
  b.idle = b.span - busy_all;
  b.collectives = sorted(coll);
  b.other = sorted(other);
  return b;
}

int pick_step(TorchTrace& t, const std::string& name) {
  if (t.steps.empty()) {
    // No ProfilerStep annotations: one step over every kernel.
    TraceStep s{"whole trace", 0, 0, 0, 0, 0};
    for (auto& k : t.kernels) {
      s.gpu_begin = s.kernels == 0 ? k.start : std::min(s.gpu_begin, k.start);
      s.gpu_end = std::max(s.gpu_end, k.start + k.dur);
      ++s.kernels;
      k.step = 0;
    }
    t.steps.push_back(s);
    if (!name.empty() && name != s.name)
      throw InputError(
          fmt::format("{}: --step {}: the trace has no ProfilerStep annotations; "
                      "leave --step out to compare the whole trace",
                      t.file, name));
    return 0;
  }
  if (!name.empty()) {
    const std::string full = name.rfind("ProfilerStep#", 0) == 0 ? name : "ProfilerStep#" + name;
    for (std::size_t i = 0; i < t.steps.size(); ++i)
      if (t.steps[i].name == full) {
        if (t.steps[i].kernels == 0)
          throw InputError(fmt::format("{}: {} has no GPU kernels", t.file, full));
        return static_cast<int>(i);
      }
    std::vector<std::string> names;
    for (const auto& s : t.steps) names.push_back(s.name);
    throw InputError(fmt::format("{}: --step {}: no such step; the trace has {}", t.file, name,
                                 fmt::join(names, ", ")));
  }
  std::vector<int> with;
  for (std::size_t i = 0; i < t.steps.size(); ++i)
    if (t.steps[i].kernels > 0) with.push_back(static_cast<int>(i));
  if (with.empty())
    throw InputError(
        fmt::format("{}: none of its {} ProfilerSteps holds a GPU kernel", t.file, t.steps.size()));
  if (with.size() >= 3) with.erase(with.begin());
  auto len = [&](int i) {
    const auto& s = t.steps[static_cast<std::size_t>(i)];
    return s.gpu_end - s.gpu_begin;
  };
  std::stable_sort(with.begin(), with.end(), [&](int a, int b) { return len(a) < len(b); });
  return with[(with.size() - 1) / 2];
}

}  // namespace trainsim
