#include "schedules/schedule.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "schedules/generators.h"

namespace trainsim {

int Schedule::chunk_of(int stage) const {
  const int rank = stage_rank[static_cast<std::size_t>(stage)];
  int chunk = 0;
  for (int s = 0; s < stage; ++s)
    if (stage_rank[static_cast<std::size_t>(s)] == rank) ++chunk;
  return chunk;
}

std::vector<std::vector<int>> Schedule::stages_by_rank() const {
  std::vector<std::vector<int>> out(static_cast<std::size_t>(ranks));
  for (int s = 0; s < static_cast<int>(stage_rank.size()); ++s)
    out[static_cast<std::size_t>(stage_rank[static_cast<std::size_t>(s)])].push_back(s);
  return out;
}

std::vector<std::vector<int>> Schedule::model_stages_by_rank() const {
  auto out = stages_by_rank();
  for (auto& held : out)
    for (int& s : held) s = model_stage(s);
  return out;
}

std::map<std::pair<int, int>, Action> Schedule::overlapped_backwards() const {
  std::map<std::pair<int, int>, Action> out;
  for (const auto& list : actions)
    for (std::size_t i = 0; i + 1 < list.size(); ++i)
      if (list[i].overlapped_with_next) out[{list[i].stage, list[i].microbatch}] = list[i + 1];
  return out;
}

bool Schedule::split_backward() const {
  for (const auto& list : actions)
    for (const auto& a : list)
      if (a.op == Op::I || a.op == Op::W) return true;
  return false;
}

double schedule_option(const ScheduleParams& p, const char* key, double fallback, bool integer) {
  auto it = p.options.find(key);
  if (it == p.options.end()) return fallback;
  const std::string& s = it->second;
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  const bool ok = ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(v);
  if (!ok || (integer && v != std::floor(v)))
    throw ScheduleError(fmt::format("option {} must be {}, got \"{}\"", key,
                                    integer ? "an integer" : "a number", s),
                        key);
  return v;
}

bool schedule_flag(const ScheduleParams& p, const char* key) {
  auto it = p.options.find(key);
  if (it == p.options.end()) return false;
  if (it->second == "true" || it->second == "1") return true;
  if (it->second == "false" || it->second == "0") return false;
  throw ScheduleError(fmt::format("option {} must be true or false, got \"{}\"", key, it->second),
                      key);
}

std::vector<int> looped_placement(int pp, int vpp) {
  std::vector<int> r(static_cast<std::size_t>(pp * vpp));
  for (int s = 0; s < pp * vpp; ++s) r[static_cast<std::size_t>(s)] = s % pp;
  return r;
}

Schedule empty_pipeline(const char* name, const ScheduleParams& p) {
  if (p.vpp != 1)
    throw ScheduleError(std::string(name) + " runs one chunk per rank (vpp = 1), got vpp = " +
                        std::to_string(p.vpp) + "; for chunks use interleaved-1f1b or looped-bfs");
  return Schedule{name, p.pp, p.pp, p.microbatches, looped_placement(p.pp, 1), {}};
}

std::vector<int> v_placement(int pp) {
  std::vector<int> r(static_cast<std::size_t>(2 * pp));
  for (int s = 0; s < 2 * pp; ++s) r[static_cast<std::size_t>(s)] = s < pp ? s : 2 * pp - 1 - s;
  return r;
}

std::vector<int> dualpipe_placement(int pp) {
  std::vector<int> r(static_cast<std::size_t>(2 * pp));
  for (int j = 0; j < pp; ++j) {
    r[static_cast<std::size_t>(j)] = j;
    r[static_cast<std::size_t>(pp + j)] = pp - 1 - j;
  }
  return r;
}

}  // namespace trainsim
