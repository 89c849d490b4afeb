#include "measured/step_breakdown.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "core/error.h"
#include "core/intervals.h"
#include "core/quantity.h"

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

// First kernel start to last kernel end.
TimeNs trace_span(const TorchTrace& t) {
  TimeNs first = 0, last = 0;
  for (std::size_t i = 0; i < t.kernels.size(); ++i) {
    const TraceKernel& k = t.kernels[i];
    first = i == 0 ? k.start : std::min(first, k.start);
    last = std::max(last, k.start + k.dur);
  }
  return last - first;
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
  std::map<std::string, FamilyTime> coll;
  std::array<std::map<std::string, FamilyTime>, kKernelCategories> fams;
  std::map<std::pair<std::string, int>, std::pair<int, Intervals>> groups;
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
      const int n =
          k.collective >= 0 ? t.collectives[static_cast<std::size_t>(k.collective)].group_size : 0;
      auto& g = groups[{k.kind.collective, n}];
      ++g.first;
      g.second.emplace_back(k.start, k.start + k.dur);
    }
    const std::string fam = kernel_family(t.names[k.name]);
    auto& f = fams[c][fam];
    f.family = fam;
    ++f.count;
    f.time += k.dur;
  }
  for (std::size_t c = 0; c < per.size(); ++c) b.busy[c] = union_length(per[c]);
  const TimeNs busy_all = union_length(all);
  b.compute_busy = union_length(compute);
  b.comm_exposed = busy_all - b.compute_busy;  // = uncovered(communication, compute)
  b.idle = b.span - busy_all;
  // Idle gaps by what ended them: in start order, a gap opens where every kernel so far has
  // ended and closes at the next start; the kernel starting then was launched after the gap
  // opened (the GPU waited for the CPU) or before it (the GPU waited with that work launched).
  std::vector<const TraceKernel*> order;
  TimeNs first_launch = 0, last_launch = 0;
  for (const auto& k : t.kernels)
    if (k.step == step) {
      order.push_back(&k);
      if (k.launch < 0) continue;
      first_launch = b.launches == 0 ? k.launch : std::min(first_launch, k.launch);
      last_launch = std::max(last_launch, k.launch);
      ++b.launches;
    }
  b.launch_span = last_launch - first_launch;  // `order` is in start order, as t.kernels is
  b.launches_known = b.launches > 0;
  TRAINSIM_CHECK(!order.empty(), "a step with kernels has kernels");
  TimeNs end = order.front()->start + order.front()->dur;
  for (std::size_t i = 1; i < order.size();) {
    // The kernels starting when the gap (if any) closes: the GPU waited for the CPU only if
    // none of them had been launched when it opened.
    const TimeNs start = order[i]->start, opened = end;
    bool late = true;
    std::size_t j = i;
    for (; j < order.size() && order[j]->start == start; ++j) {
      late = late && order[j]->launch > opened;
      end = std::max(end, order[j]->start + order[j]->dur);
    }
    if (start > opened && late) {
      b.idle_host += start - opened;
      ++b.host_gaps;
    }
    i = j;
  }
  b.collectives = sorted(coll);
  for (const auto& [key, g] : groups)
    b.comm_groups.push_back(
        {key.first, key.second, g.first, union_length(g.second), uncovered(g.second, compute)});
  for (std::size_t c = 0; c < fams.size(); ++c) b.families[c] = sorted(fams[c]);
  b.other = b.families[static_cast<std::size_t>(KernelCategory::Other)];
  return b;
}

int pick_step(TorchTrace& t, const std::string& name) {
  if (const auto dots = name.find(".."); dots != std::string::npos) {
    // A window of the trace's time, from its first kernel's start: every kernel starting in
    // [A, B) becomes a step of its own (a trace without ProfilerStep annotations, or a span
    // the annotations do not mark).
    auto time = [&](const std::string& text) {
      std::string why;
      const auto v = parse_quantity(text, Dimension::Time, &why);
      constexpr double kLongest = 1e6;  // seconds, 11.6 days: longer than any profiled run
      if (!v || *v < 0 || *v > kLongest)
        throw InputError(fmt::format(
            "{}: --step {}: expected a window START..END of times from the trace's first "
            "kernel, e.g. 1.2s..1.9s; {}",
            t.file, name,
            !v       ? why
            : *v < 0 ? "a time is negative"
                     : fmt::format("{} is past any trace (at most {:g} s)", text, kLongest)));
      return seconds_to_ns(*v);
    };
    const TimeNs from = time(name.substr(0, dots)), to = time(name.substr(dots + 2));
    if (to <= from)
      throw InputError(
          fmt::format("{}: --step {}: the window's end must come after its start", t.file, name));
    TimeNs first = 0;
    for (std::size_t i = 0; i < t.kernels.size(); ++i)
      first = i == 0 ? t.kernels[i].start : std::min(first, t.kernels[i].start);
    const int index = static_cast<int>(t.steps.size());
    TraceStep w{
        fmt::format("window {}..{}", format_time(to_seconds(from)), format_time(to_seconds(to))),
        0,
        0,
        0,
        0,
        0};
    std::set<int> spans;  // the annotated steps the window's kernels had belonged to
    for (auto& k : t.kernels) {
      if (k.start < first + from || k.start >= first + to) continue;
      w.gpu_begin = w.kernels == 0 ? k.start : std::min(w.gpu_begin, k.start);
      w.gpu_end = std::max(w.gpu_end, k.start + k.dur);
      ++w.kernels;
      if (k.step >= 0) spans.insert(k.step);
      k.step = index;
    }
    // A window across annotated steps is compared with one simulated step: said in its name.
    if (spans.size() > 1) {
      std::vector<std::string> names;
      for (const int i : spans) names.push_back(t.steps[static_cast<std::size_t>(i)].name);
      w.name += fmt::format(" (across {})", fmt::join(names, ", "));
    }
    if (w.kernels == 0)
      throw InputError(
          fmt::format("{}: --step {}: no GPU kernel starts in that window (the "
                      "trace's kernels span {} from the first)",
                      t.file, name, format_time(to_seconds(trace_span(t)))));
    // A window running past the trace compares only the part of it the trace covers.
    if (const TimeNs span = trace_span(t); to > span)
      w.name += fmt::format(" (the trace's kernels end at {}: {} of the window)",
                            format_time(to_seconds(span)), format_time(to_seconds(span - from)));
    t.steps.push_back(w);
    return index;
  }
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
