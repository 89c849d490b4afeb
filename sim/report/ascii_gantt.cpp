#include "report/ascii_gantt.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/quantity.h"
#include "lower/task_types.h"

namespace trainsim {
namespace {

bool on_compute(const TaskGraph& g, StreamId s) {
  return static_cast<StreamType>(g.streams[s].type) == StreamType::Compute;
}

std::string label_of(const TaskGraph& g, TaskId t) {
  std::string label = task_type_letter(static_cast<TaskType>(g.work(t).type));
  if (g.work(t).chunk % 2 == 1)  // odd chunks in lower case, so v > 1 stays readable
    for (char& ch : label) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (g.tasks[t].microbatch >= 0) label += std::to_string(g.tasks[t].microbatch);
  return label;
}

}  // namespace

int gantt_width_for_labels(const Timeline& tl) {
  const TaskGraph& g = *tl.graph;
  double need = 100;
  if (tl.makespan <= 0) return 100;
  for (StreamId s = 0; s < g.streams.size(); ++s) {
    if (!on_compute(g, s)) continue;
    for (TaskId t : g.stream(s)) {
      const TimeNs d = tl.end[t] - tl.start[t];
      if (d <= 0) continue;
      // The task covers round(end · k) − round(start · k) columns (k = width / makespan), at
      // least floor(d · k): d · k ≥ the label's length + 1 is enough for the label and one '-'
      // before the next task's label ("F10-F11-", not "F10F11").
      const double cols = static_cast<double>(label_of(g, t).size() + 1);
      need = std::max(need, cols * static_cast<double>(tl.makespan) / static_cast<double>(d));
      if (need >= kMaxGanttWidth) return kMaxGanttWidth;
    }
  }
  return static_cast<int>(std::ceil(need));
}

std::string format_gantt(const Timeline& tl, int width) {
  if (width == 0) width = gantt_width_for_labels(tl);
  width = std::max(width, 10);
  const TaskGraph& g = *tl.graph;
  const double scale = tl.makespan > 0 ? static_cast<double>(width) / tl.makespan : 0.0;
  auto column = [&](TimeNs t) {
    return std::clamp(static_cast<int>(static_cast<double>(t) * scale + 0.5), 0, width);
  };
  std::string out = fmt::format("{} — step {} ({} per column)\n", tl.schedule.name,
                                format_time(to_seconds(tl.makespan)),
                                format_time(to_seconds(tl.makespan) / width));
  std::map<std::string, const char*> letters;  // sorted, so the legend is stable
  bool odd_chunks = false;
  std::size_t cut = 0;
  for (StreamId s = 0; s < g.streams.size(); ++s) {
    if (!on_compute(g, s)) continue;
    std::string row(static_cast<std::size_t>(width), '.');
    for (TaskId t : g.stream(s)) {
      const auto type = static_cast<TaskType>(g.work(t).type);
      int a = column(tl.start[t]), b = column(tl.end[t]);
      if (b == a && tl.end[t] > tl.start[t]) b = std::min(a + 1, width);  // never vanish
      if (b <= a) continue;
      letters.emplace(task_type_letter(type), task_type_name(type));
      odd_chunks = odd_chunks || g.work(t).chunk % 2 == 1;
      std::string label = label_of(g, t);
      if (static_cast<int>(label.size()) > b - a) {
        label = label.substr(0, 1);
        ++cut;
      }
      for (int c = a; c < b; ++c)
        row[static_cast<std::size_t>(c)] =
            c - a < static_cast<int>(label.size()) ? label[static_cast<std::size_t>(c - a)] : '-';
    }
    const SimRank& rk = tl.ranks.ranks[g.streams[s].owner];
    out += fmt::format("rank {:>3} |{}|\n", rk.global, row);
  }
  std::string legend;
  for (const auto& [letter, what] : letters)
    legend += fmt::format("{}{} {}", legend.empty() ? "" : ", ", letter, what);
  out += fmt::format("legend: {}{}; the number is the micro-batch; - the task goes on; . idle\n",
                     legend,
                     !odd_chunks              ? ""
                     : tl.schedule.chains > 1 ? "; lower case: the second pipeline's stage"
                                              : "; lower case: an odd model chunk");
  if (cut > 0)
    out += fmt::format(
        "{} task{} narrower than {} label{} show{} the letter alone (a wider "
        "--width shows more)\n",
        cut, cut == 1 ? "" : "s", cut == 1 ? "its" : "their", cut == 1 ? "" : "s",
        cut == 1 ? "s" : "");
  return out;
}

}  // namespace trainsim
