#include "schedules/validate.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"

namespace trainsim {
namespace {

// Completion flags per (stage, micro-batch).
struct DoneTable {
  int m;
  std::vector<int> f, bi, w;  // step at which done, or -1
  DoneTable(int stages, int mb)
      : m(mb),
        f(static_cast<std::size_t>(stages) * static_cast<std::size_t>(mb), -1),
        bi(f.size(), -1),
        w(f.size(), -1) {}
  std::size_t at(int stage, int mb) const {
    return static_cast<std::size_t>(stage) * static_cast<std::size_t>(m) +
           static_cast<std::size_t>(mb);
  }
};

std::string label(const Schedule& s, const Action& a, bool full = false) {
  // With one stage per rank the stage is implied by the row; otherwise PyTorch's full form.
  if (s.stages == s.ranks && !full)
    return std::string(1, op_letter(a.op)) + std::to_string(a.microbatch);
  return to_string(a);
}

// True when `a` may run at step `t` given actions completed strictly before t.
bool ready(const Schedule& s, const DoneTable& d, const Action& a, int t) {
  auto done = [t](int step) { return step >= 0 && step < t; };
  switch (a.op) {
    case Op::F:
      return s.chain_first(a.stage) || done(d.f[d.at(a.stage - 1, a.microbatch)]);
    case Op::B:
    case Op::I:
      return done(d.f[d.at(a.stage, a.microbatch)]) &&
             (s.chain_last(a.stage) || done(d.bi[d.at(a.stage + 1, a.microbatch)]));
    case Op::W:
      return done(d.bi[d.at(a.stage, a.microbatch)]);
  }
  return false;
}

[[noreturn]] void fail(const Schedule& s, int rank, int index, const std::string& why) {
  UnitRun partial;
  partial.steps.resize(static_cast<std::size_t>(s.ranks));
  for (int r = 0; r < s.ranks; ++r)
    partial.steps[static_cast<std::size_t>(r)].assign(s.actions[static_cast<std::size_t>(r)].size(),
                                                      -1);
  // Show the actions in list order (one per column) so the marked one is visible.
  for (int r = 0; r < s.ranks; ++r)
    for (std::size_t i = 0; i < s.actions[static_cast<std::size_t>(r)].size(); ++i)
      partial.steps[static_cast<std::size_t>(r)][i] = static_cast<int>(i);
  partial.makespan = 0;
  for (const auto& l : s.actions)
    partial.makespan = std::max(partial.makespan, static_cast<int>(l.size()));
  throw ScheduleError(fmt::format("{} (pp = {}, m = {}, stages = {}): {}\n{}", s.name, s.ranks,
                                  s.microbatches, s.stages, why,
                                  format_grid(s, partial, rank, index)));
}

}  // namespace

UnitRun run_unit_steps(const Schedule& s) {
  UnitRun run;
  run.steps.resize(static_cast<std::size_t>(s.ranks));
  std::vector<std::size_t> next(static_cast<std::size_t>(s.ranks), 0);
  std::size_t total = 0, finished = 0;
  for (int r = 0; r < s.ranks; ++r) {
    run.steps[static_cast<std::size_t>(r)].assign(s.actions[static_cast<std::size_t>(r)].size(),
                                                  -1);
    total += s.actions[static_cast<std::size_t>(r)].size();
  }
  DoneTable d(s.stages, s.microbatches);
  // Readiness only grows with time (no latencies), so at step t only ranks that ran at t − 1
  // (a new head action) or own a stage next to one whose action finished at t − 1 (a new input)
  // can start something: O(actions) in all, not O(steps × ranks). Ranks are tried in order, as
  // a sweep over every rank would.
  auto owner = [&](int stage) { return s.stage_rank[static_cast<std::size_t>(stage)]; };
  std::vector<int> candidates(static_cast<std::size_t>(s.ranks));
  for (int r = 0; r < s.ranks; ++r) candidates[static_cast<std::size_t>(r)] = r;
  std::vector<char> queued(static_cast<std::size_t>(s.ranks), 0);
  for (int t = 0; finished < total; ++t) {
    std::vector<Action> ran;
    std::vector<int> ran_on;
    for (int r : candidates) {
      const auto& list = s.actions[static_cast<std::size_t>(r)];
      auto& i = next[static_cast<std::size_t>(r)];
      if (i >= list.size() || !ready(s, d, list[i], t)) continue;
      // An overlapped pair is one task: both halves must be ready, and they run together.
      const bool pair = list[i].overlapped_with_next && i + 1 < list.size();
      if (pair && !ready(s, d, list[i + 1], t)) continue;
      for (std::size_t k = 0; k < (pair ? 2u : 1u); ++k) {
        run.steps[static_cast<std::size_t>(r)][i] = t;
        ran.push_back(list[i]);
        ran_on.push_back(r);
        ++i;
      }
    }
    if (ran.empty()) {
      run.complete = false;
      break;
    }
    std::vector<int> following;
    auto queue = [&](int r) {
      if (r >= 0 && !queued[static_cast<std::size_t>(r)]) {
        queued[static_cast<std::size_t>(r)] = 1;
        following.push_back(r);
      }
    };
    for (std::size_t k = 0; k < ran.size(); ++k) {
      const Action& a = ran[k];
      auto& slot = a.op == Op::F ? d.f : a.op == Op::W ? d.w : d.bi;
      slot[d.at(a.stage, a.microbatch)] = t;
      queue(ran_on[k]);  // its next action, and W after I on the same rank
      if (a.op == Op::F && !s.chain_last(a.stage)) queue(owner(a.stage + 1));
      if (a.op != Op::W && !s.chain_first(a.stage)) queue(owner(a.stage - 1));
    }
    std::sort(following.begin(), following.end());
    for (int r : following) queued[static_cast<std::size_t>(r)] = 0;
    candidates = std::move(following);
    finished += ran.size();
    run.makespan = t + 1;
  }
  return run;
}

std::string format_grid(const Schedule& s, const UnitRun& run, int mark_rank, int mark_index) {
  std::size_t width = 1;
  for (const auto& list : s.actions)
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::size_t w = label(s, list[i], mark_rank >= 0).size();
      if (list[i].overlapped_with_next && i + 1 < list.size())  // "F3&B1" shares one cell
        w += 1 + label(s, list[i + 1], mark_rank >= 0).size();
      width = std::max(width, w);
    }
  int columns = run.makespan;
  std::string out;
  for (int r = 0; r < s.ranks; ++r) {
    const auto& list = s.actions[static_cast<std::size_t>(r)];
    const auto& steps = run.steps[static_cast<std::size_t>(r)];
    std::vector<std::string> cells(static_cast<std::size_t>(columns), ".");
    std::string tail;
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::string text = label(s, list[i], mark_rank >= 0);  // errors show stages in full
      if (r == mark_rank && static_cast<int>(i) == mark_index) text = ">" + text + "<";
      const bool second_of_pair = i > 0 && list[i - 1].overlapped_with_next;
      if (steps[i] >= 0 && second_of_pair && steps[i - 1] == steps[i])
        cells[static_cast<std::size_t>(steps[i])] += "&" + text;
      else if (steps[i] >= 0)
        cells[static_cast<std::size_t>(steps[i])] = text;
      else if (tail.empty())
        tail = "  blocked at " + text;
    }
    out += fmt::format("rank {:>2} |", r);
    for (const auto& c : cells)
      out += fmt::format(" {:<{}}", c, width + ((mark_rank >= 0) ? 2 : 0));
    out += tail + "\n";
  }
  return out;
}

void check_schedule_size(const std::string& name, long long stages, long long microbatches) {
  if (stages * microbatches > kMaxScheduleCells)
    throw ScheduleError(fmt::format(
        "{}: {} stages × {} micro-batches = {} (stage, micro-batch) pairs is past the limit of {} "
        "({}); use fewer pipeline stages, chunks or micro-batches",
        name, stages, microbatches, stages * microbatches, kMaxScheduleCells, "2^22"));
}

void validate_schedule(const Schedule& s) {
  TRAINSIM_CHECK(s.ranks >= 1 && s.stages >= s.ranks && s.microbatches >= 1,
                 "schedule dimensions must be positive");
  TRAINSIM_CHECK(s.chains >= 1 && s.stages % s.chains == 0 && s.microbatches % s.chains == 0,
                 "chains divide the stages and the micro-batches");
  check_schedule_size(s.name, s.stages, s.microbatches);
  if (static_cast<int>(s.stage_rank.size()) != s.stages ||
      static_cast<int>(s.actions.size()) != s.ranks)
    throw ScheduleError(
        fmt::format("{}: placement lists {} stages and {} ranks, expected {} and {}", s.name,
                    s.stage_rank.size(), s.actions.size(), s.stages, s.ranks));
  // Count each (stage, op, mb) and check placement.
  // Overlapped pairs: an F whose partner (the rank's next action) is a B.
  for (int r = 0; r < s.ranks; ++r) {
    const auto& list = s.actions[static_cast<std::size_t>(r)];
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].overlapped_with_next) continue;
      if (list[i].op != Op::F || i + 1 >= list.size() || list[i + 1].op != Op::B ||
          list[i + 1].overlapped_with_next)
        fail(s, r, static_cast<int>(i),
             fmt::format("{} is marked to overlap with the next action, but an overlapped pair "
                         "is a forward followed by a fused backward (F then B)",
                         to_string(list[i])));
    }
  }
  const std::size_t cells =
      static_cast<std::size_t>(s.stages) * static_cast<std::size_t>(s.microbatches);
  std::vector<int> nf(cells, 0), nb(cells, 0), ni(cells, 0), nw(cells, 0);
  for (int r = 0; r < s.ranks; ++r) {
    const auto& list = s.actions[static_cast<std::size_t>(r)];
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Action& a = list[i];
      if (a.stage < 0 || a.stage >= s.stages || a.microbatch < 0 || a.microbatch >= s.microbatches)
        fail(s, r, static_cast<int>(i),
             fmt::format("{} is out of range (stages 0..{}, micro-batches 0..{})", to_string(a),
                         s.stages - 1, s.microbatches - 1));
      if (!s.runs(a.stage, a.microbatch))
        fail(s, r, static_cast<int>(i),
             fmt::format("{}: micro-batch {} goes through pipeline {} of {}, stage {} belongs to "
                         "pipeline {}",
                         to_string(a), a.microbatch, s.chain_of_microbatch(a.microbatch), s.chains,
                         a.stage, s.chain_of_stage(a.stage)));
      if (s.stage_rank[static_cast<std::size_t>(a.stage)] != r)
        fail(s, r, static_cast<int>(i),
             fmt::format("{} is on rank {} but stage {} lives on rank {}", to_string(a), r, a.stage,
                         s.stage_rank[static_cast<std::size_t>(a.stage)]));
      const std::size_t k =
          static_cast<std::size_t>(a.stage) * static_cast<std::size_t>(s.microbatches) +
          static_cast<std::size_t>(a.microbatch);
      int& n = a.op == Op::F ? nf[k] : a.op == Op::B ? nb[k] : a.op == Op::I ? ni[k] : nw[k];
      if (++n > 1) fail(s, r, static_cast<int>(i), fmt::format("{} appears twice", to_string(a)));
      if (a.op == Op::B && ni[k] + nw[k] > 0)
        fail(s, r, static_cast<int>(i),
             fmt::format("{} mixes a fused B with split I/W", to_string(a)));
    }
  }
  for (int st = 0; st < s.stages; ++st)
    for (int mb = 0; mb < s.microbatches; ++mb) {
      if (!s.runs(st, mb)) continue;  // checked above: it never appears
      const std::size_t k =
          static_cast<std::size_t>(st) * static_cast<std::size_t>(s.microbatches) +
          static_cast<std::size_t>(mb);
      const bool backward_ok =
          (nb[k] == 1 && ni[k] == 0 && nw[k] == 0) || (nb[k] == 0 && ni[k] == 1 && nw[k] == 1);
      if (nf[k] != 1 || !backward_ok)
        fail(s, -1, -1,
             fmt::format("stage {} micro-batch {} must run F once and B once (or I and W once); "
                         "found F×{}, B×{}, I×{}, W×{}",
                         st, mb, nf[k], nb[k], ni[k], nw[k]));
    }
  // Same-rank order: a backward after its forward, W after its I. Each stage lives on one rank
  // (checked above), so one table serves every rank (a table per rank would be O(ranks² · m)).
  std::vector<char> seen_f(cells, 0), seen_i(cells, 0);
  for (int r = 0; r < s.ranks; ++r) {
    const auto& list = s.actions[static_cast<std::size_t>(r)];
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Action& a = list[i];
      const std::size_t k =
          static_cast<std::size_t>(a.stage) * static_cast<std::size_t>(s.microbatches) +
          static_cast<std::size_t>(a.microbatch);
      if (a.op == Op::F) seen_f[k] = 1;
      if (a.op == Op::I) seen_i[k] = 1;
      if ((a.op == Op::B || a.op == Op::I) && !seen_f[k])
        fail(s, r, static_cast<int>(i),
             fmt::format("{} comes before {}F{} on rank {}: a backward needs its forward first",
                         to_string(a), a.stage, a.microbatch, r));
      if (a.op == Op::W && !seen_i[k])
        fail(s, r, static_cast<int>(i),
             fmt::format("{} comes before {}I{} on rank {}: W needs its input gradient first",
                         to_string(a), a.stage, a.microbatch, r));
    }
  }
  const UnitRun run = run_unit_steps(s);
  if (!run.complete) {
    // Mark the first rank whose next action is blocked.
    for (int r = 0; r < s.ranks; ++r) {
      const auto& steps = run.steps[static_cast<std::size_t>(r)];
      for (std::size_t i = 0; i < steps.size(); ++i)
        if (steps[i] < 0) {
          throw ScheduleError(fmt::format(
              "{} (pp = {}, m = {}, stages = {}): deadlock: no rank can run its next action; "
              "rank {} waits at {}\n{}",
              s.name, s.ranks, s.microbatches, s.stages, r,
              to_string(s.actions[static_cast<std::size_t>(r)][i]),
              format_grid(s, run, r, static_cast<int>(i))));
        }
    }
  }
}

}  // namespace trainsim
