#include "pipeline_plan.h"

#include <map>
#include <utility>

#include <fmt/format.h>

#include "core/error.h"
#include "lower/task_types.h"

namespace trainsim {

std::string to_string(const Message& m) {
  return fmt::format("{} {}{}{}", m.gradient ? "gradient" : "activation", m.stage,
                     m.gradient ? 'B' : 'F', m.microbatch);
}

PipelineReplay plan_pipeline_replay(const Schedule& s) {
  auto rank_of = [&](int stage) { return s.stage_rank.at(static_cast<std::size_t>(stage)); };
  const bool split = s.split_backward();
  // F passes an activation on; B (or I, when the backward is split) an input gradient; W nothing.
  auto passes_on = [&](const Action& a) {
    return a.op == Op::F || a.op == Op::B || (split && a.op == Op::I);
  };
  PipelineReplay out;
  out.ranks.resize(static_cast<std::size_t>(s.ranks));
  std::map<std::pair<int, int>, int> channel_of;  // (from, to) -> index into out.channels
  auto channel = [&](int from, int to) {
    auto [it, added] = channel_of.try_emplace({from, to}, static_cast<int>(out.channels.size()));
    if (added) out.channels.push_back({from, to, {}});
    return it->second;
  };
  // Pass 1, in each sender's order: the computes and the messages they send.
  for (int r = 0; r < s.ranks; ++r) {
    const auto& actions = s.actions[static_cast<std::size_t>(r)];
    for (std::size_t i = 0; i < actions.size(); ++i) {
      ReplayStep step;
      step.compute.push_back(actions[i]);
      if (actions[i].overlapped_with_next) {
        TRAINSIM_CHECK(i + 1 < actions.size(), "an overlapped F is followed by its B");
        step.compute.push_back(actions[++i]);
      }
      for (const Action& a : step.compute) {
        const bool forward = a.op == Op::F;
        if (!passes_on(a)) continue;
        // The end of the micro-batch's pipeline (DualPipe has two): nothing to pass on.
        if (forward ? s.chain_last(a.stage) : s.chain_first(a.stage)) continue;
        const int next = forward ? a.stage + 1 : a.stage - 1;
        if (rank_of(next) == r) continue;
        const int c = channel(r, rank_of(next));
        auto& messages = out.channels[static_cast<std::size_t>(c)].messages;
        step.sends.push_back({c, static_cast<int>(messages.size())});
        messages.push_back({!forward, a.stage, a.microbatch});
      }
      out.ranks[static_cast<std::size_t>(r)].push_back(std::move(step));
    }
  }
  // Pass 2: each message's consumer (F of the next stage; B, or I when split, of the previous).
  std::map<std::tuple<bool, int, int>, MessageRef> by_message;  // (gradient, stage, mb)
  for (std::size_t c = 0; c < out.channels.size(); ++c)
    for (std::size_t k = 0; k < out.channels[c].messages.size(); ++k) {
      const Message& m = out.channels[c].messages[k];
      by_message[{m.gradient, m.stage, m.microbatch}] = {static_cast<int>(c), static_cast<int>(k)};
    }
  for (auto& steps : out.ranks)
    for (ReplayStep& step : steps)
      for (const Action& a : step.compute) {
        const bool forward = a.op == Op::F;
        if (!passes_on(a)) continue;
        const auto it =
            by_message.find({!forward, forward ? a.stage - 1 : a.stage + 1, a.microbatch});
        if (it != by_message.end()) step.receives.push_back(it->second);
      }
  return out;
}

std::string find_replay_deadlock(const PipelineReplay& r) {
  const std::size_t n = r.ranks.size();
  // Who produces each message: (rank, step).
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> producer(r.channels.size());
  for (std::size_t c = 0; c < r.channels.size(); ++c)
    producer[c].resize(r.channels[c].messages.size(), {n, 0});
  for (std::size_t q = 0; q < n; ++q)
    for (std::size_t i = 0; i < r.ranks[q].size(); ++i)
      for (const MessageRef& m : r.ranks[q][i].sends)
        producer.at(static_cast<std::size_t>(m.channel)).at(static_cast<std::size_t>(m.index)) = {
            q, i};
  std::vector<std::size_t> done(n, 0);                  // computes finished per rank
  std::vector<std::size_t> sent(r.channels.size(), 0);  // messages delivered per channel
  auto produced = [&](std::size_t c, std::size_t k) {
    const auto [q, i] = producer[c][k];
    return q < n && done[q] > i;
  };
  for (bool moved = true; moved;) {
    moved = false;
    for (std::size_t c = 0; c < r.channels.size(); ++c)
      while (sent[c] < r.channels[c].messages.size() && produced(c, sent[c])) {
        ++sent[c];
        moved = true;
      }
    for (std::size_t q = 0; q < n; ++q)
      while (done[q] < r.ranks[q].size()) {
        bool ready = true;
        for (const MessageRef& m : r.ranks[q][done[q]].receives)
          ready = ready &&
                  sent[static_cast<std::size_t>(m.channel)] > static_cast<std::size_t>(m.index);
        if (!ready) break;
        ++done[q];
        moved = true;
      }
  }
  std::string stuck;
  for (std::size_t q = 0; q < n; ++q) {
    if (done[q] == r.ranks[q].size()) continue;
    const ReplayStep& step = r.ranks[q][done[q]];
    for (const MessageRef& m : step.receives) {
      const Channel& ch = r.channels[static_cast<std::size_t>(m.channel)];
      if (sent[static_cast<std::size_t>(m.channel)] > static_cast<std::size_t>(m.index)) continue;
      stuck += fmt::format("{}rank {} waits before {} for {} from rank {}",
                           stuck.empty() ? "" : "; ", q, to_string(step.compute.front()),
                           to_string(ch.messages[static_cast<std::size_t>(m.index)]), ch.from);
      break;
    }
  }
  for (std::size_t c = 0; c < r.channels.size(); ++c)
    if (sent[c] < r.channels[c].messages.size() && producer[c][sent[c]].first == n)
      stuck += fmt::format("{}{} from rank {} to rank {} has no producer",
                           stuck.empty() ? "" : "; ", to_string(r.channels[c].messages[sent[c]]),
                           r.channels[c].from, r.channels[c].to);
  return stuck.empty() ? "" : "deadlock: " + stuck;
}

std::vector<RankTimes> predict_pipeline(const Timeline& tl) {
  std::vector<RankTimes> out(static_cast<std::size_t>(tl.schedule.ranks));
  std::vector<bool> seen(out.size(), false);
  const TaskGraph& g = *tl.graph;
  for (TaskId t = 0; t < g.tasks.size(); ++t) {
    const SimRank& rank = tl.ranks.ranks[g.streams[g.tasks[t].stream].owner];
    if (tl.ranks.replica(rank) != 0 || !is_pipeline_compute(static_cast<TaskType>(g.work(t).type)))
      continue;
    const auto r = static_cast<std::size_t>(rank.coord.pp);
    RankTimes& p = out.at(r);
    const double start = to_seconds(tl.start[t]), end = to_seconds(tl.end[t]);
    p.first_start = seen[r] ? std::min(p.first_start, start) : start;
    p.last_end = std::max(p.last_end, end);
    p.compute += end - start;
    seen[r] = true;
  }
  return out;
}

}  // namespace trainsim
