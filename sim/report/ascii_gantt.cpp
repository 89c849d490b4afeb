#include "report/ascii_gantt.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "core/quantity.h"
#include "lower/task_types.h"

namespace trainsim {

std::string format_gantt(const Timeline& tl, int width) {
  width = std::max(width, 10);
  const TaskGraph& g = *tl.graph;
  const double scale = tl.makespan > 0 ? static_cast<double>(width) / tl.makespan : 0.0;
  auto column = [&](TimeNs t) {
    return std::clamp(static_cast<int>(static_cast<double>(t) * scale + 0.5), 0, width);
  };
  std::string out = fmt::format("{} — step {} ({} per column)\n", tl.schedule.name,
                                format_time(to_seconds(tl.makespan)),
                                format_time(to_seconds(tl.makespan) / width));
  for (StreamId s = 0; s < g.streams.size(); ++s) {
    if (static_cast<StreamType>(g.streams[s].type) != StreamType::Compute) continue;
    std::string row(static_cast<std::size_t>(width), '.');
    for (TaskId t : g.stream(s)) {
      const auto type = static_cast<TaskType>(g.work(t).type);
      int a = column(tl.start[t]), b = column(tl.end[t]);
      if (b == a && tl.end[t] > tl.start[t]) b = std::min(a + 1, width);  // never vanish
      if (b <= a) continue;
      std::string label = task_type_letter(type);
      if (g.work(t).chunk % 2 == 1)  // odd chunks in lower case, so v > 1 stays readable
        for (char& ch : label) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (g.tasks[t].microbatch >= 0) label += std::to_string(g.tasks[t].microbatch);
      if (static_cast<int>(label.size()) > b - a) label = label.substr(0, 1);
      for (int c = a; c < b; ++c)
        row[static_cast<std::size_t>(c)] =
            c - a < static_cast<int>(label.size()) ? label[static_cast<std::size_t>(c - a)] : '-';
    }
    const SimRank& rk = tl.ranks.ranks[g.streams[s].owner];
    out += fmt::format("rank {:>3} |{}|\n", rk.global, row);
  }
  return out;
}

}  // namespace trainsim
