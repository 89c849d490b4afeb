#include "schedules/zb_auto.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <queue>
#include <string>

#include <fmt/format.h>

#include "core/error.h"
#include "schedules/generators.h"

namespace trainsim {
namespace {

constexpr double kEps = 1e-9;
constexpr TimeNs kUnknown = -1;

// The list schedulers' clock: the ranks that may act, by (wake time, rank); an entry goes stale
// when its rank's wake time changes. A rank has busy_until, wake and blocked.
using WakeQueue = std::priority_queue<std::pair<TimeNs, int>, std::vector<std::pair<TimeNs, int>>,
                                      std::greater<>>;

// An input of rank `i` arrives at `arrival`: a blocked rank, or one waiting for a later time,
// wakes when it is both here and the rank is free.
template <typename Rank>
void notify(WakeQueue& q, Rank& r, int i, TimeNs arrival) {
  if (!r.blocked && arrival >= r.wake) return;
  r.blocked = false;
  r.wake = std::max(r.busy_until, arrival);
  q.push({r.wake, i});
}

// Nothing to run at its wake time: rank `i` waits for `next`, the earliest arrival it knows of,
// or blocks until another rank delivers one (no known arrival).
template <typename Rank>
void park(WakeQueue& q, Rank& r, int i, TimeNs next) {
  if (next == std::numeric_limits<TimeNs>::max()) {
    r.blocked = true;
    return;
  }
  r.wake = next;
  q.push({next, i});
}

struct Variant {
  double lambda;  ///< warm-up cap (p − i) + λ(p − 1 − i); infinity: memory alone decides
  bool forward_first;
  bool eager_w;
  /// Caps from the costs instead of λ: as many forwards as run before the first input gradient
  /// can arrive (rounded down, or up to leave no gap), within memory.
  enum Cap { Linear, TimedFloor, TimedCeil } cap = Linear;
  /// When memory blocks a forward whose input is here, run a deferred W first even if an I
  /// could run (keeps the next stage fed in a full-memory steady state).
  bool w_unblocks_f = false;
  /// A deferred W also goes into a gap shorter than itself when leaving the gap idle would
  /// make this rank's idle time so far the largest of all ranks (the Zero Bubble paper's rule).
  bool fill_partial = false;
};

// Per rank, the forwards that fit before its first input gradient can arrive (the first
// micro-batch's round trip with these costs), rounded down or up; at least 1, at most `most`.
std::vector<int> timed_caps(const StageCosts& c, int P, bool up, int most) {
  const auto u = [](int i) { return static_cast<std::size_t>(i); };
  std::vector<TimeNs> start(u(P), 0), grad(u(P), 0);
  for (int i = 1; i < P; ++i) start[u(i)] = start[u(i - 1)] + c.forward[u(i - 1)] + c.p2p[u(i - 1)];
  grad[u(P - 1)] = start[u(P - 1)] + c.forward[u(P - 1)];
  for (int i = P - 2; i >= 0; --i)
    grad[u(i)] = grad[u(i + 1)] + c.backward_input[u(i + 1)] + c.p2p[u(i)];
  std::vector<int> caps(u(P));
  for (int i = 0; i < P; ++i) {
    const double f = static_cast<double>(std::max<TimeNs>(c.forward[u(i)], 1));
    const double cover = static_cast<double>(grad[u(i)] - start[u(i)]) / f;
    const double n = up ? std::ceil(cover - 1e-9) : std::floor(cover + 1e-9);
    caps[u(i)] = std::clamp(static_cast<int>(n), 1, std::max(most, 1));
  }
  return caps;
}

// Step 1's rule for a deferred W when no I or F can run, shared by both list schedulers: run it
// now (always when `eager`; to free memory that blocks an F; when it ends before the next known
// input arrives at `next`; with `fill_partial`, when idling until `next` would give this rank
// the most idle time of all `ranks` so far), or wait.
template <class Ranks>
bool w_now(bool eager, bool fill_partial, bool memory_blocked, TimeNs t, TimeNs next, TimeNs w,
           TimeNs idle, const Ranks& ranks) {
  if (eager || memory_blocked || next >= t + w) return true;
  if (!fill_partial) return false;
  TimeNs most = 0;
  for (const auto& o : ranks) most = std::max(most, o.idle);
  return idle + (next - t) > most;
}

// Step 1 of the header: the greedy list scheduler for one variant.
Schedule greedy(const ScheduleParams& p, const StageCosts& c, double limit, double alpha,
                Variant v) {
  const int P = p.pp, m = p.microbatches;
  Schedule s = empty_pipeline("zb-auto", p);
  s.input_frees = alpha;
  s.actions.assign(static_cast<std::size_t>(P), {});
  struct Rank {
    TimeNs busy_until = 0, wake = 0;
    bool blocked = false;
    int next_f = 0, next_i = 0, outstanding = 0;
    double mem = 0;
    TimeNs idle = 0;  // between its first action and now
    std::deque<int> pending_w;
    std::vector<TimeNs> f_arrival, g_arrival;  // when F's input / I's gradient is here
    int cap = 0;
  };
  std::vector<Rank> rk(static_cast<std::size_t>(P));
  const std::vector<int> timed =
      v.cap == Variant::Linear
          ? std::vector<int>{}
          : timed_caps(c, P, v.cap == Variant::TimedCeil,
                       std::min(m, static_cast<int>(std::floor(limit + kEps))));
  for (int i = 0; i < P; ++i) {
    Rank& r = rk[static_cast<std::size_t>(i)];
    r.f_arrival.assign(static_cast<std::size_t>(m), i == 0 ? 0 : kUnknown);
    r.g_arrival.assign(static_cast<std::size_t>(m), kUnknown);
    r.cap = !timed.empty() ? timed[static_cast<std::size_t>(i)]
            : std::isinf(v.lambda)
                ? m
                : (P - i) + static_cast<int>(std::lround(v.lambda * (P - 1 - i)));
  }
  std::vector<TimeNs> chan_down(static_cast<std::size_t>(P), 0), chan_up(chan_down);
  WakeQueue queue;
  auto wake_up = [&](int i) { queue.push({rk[static_cast<std::size_t>(i)].wake, i}); };
  auto at = [](std::vector<TimeNs>& v, int k) -> TimeNs& { return v[static_cast<std::size_t>(k)]; };
  auto deliver = [&](int to, bool gradient, int mb, TimeNs arrival) {
    Rank& r = rk[static_cast<std::size_t>(to)];
    at(gradient ? r.g_arrival : r.f_arrival, mb) = arrival;
    notify(queue, r, to, arrival);
  };
  auto finished = [&](const Rank& r) {
    return r.next_f == m && r.next_i == m && r.pending_w.empty();
  };
  for (int i = 0; i < P; ++i) wake_up(i);
  while (!queue.empty()) {
    const auto [when, who] = queue.top();
    queue.pop();
    Rank& r = rk[static_cast<std::size_t>(who)];
    if (r.blocked || finished(r) || when != r.wake) continue;  // stale
    const TimeNs t = r.wake;
    const auto u = static_cast<std::size_t>(who);
    const bool f_left = r.next_f < m;
    const TimeNs f_at = f_left ? at(r.f_arrival, r.next_f) : kUnknown;
    const bool f_allowed = f_left && r.outstanding < r.cap && r.mem + 1 <= limit + kEps;
    const bool can_f = f_allowed && f_at != kUnknown && f_at <= t;
    const TimeNs i_at = r.next_i < r.next_f ? at(r.g_arrival, r.next_i) : kUnknown;
    const bool can_i = i_at != kUnknown && i_at <= t;
    enum { None, F, I, W } pick = None;
    const bool f_waits_for_memory = v.w_unblocks_f && f_left && r.outstanding < r.cap &&
                                    f_at != kUnknown && f_at <= t && r.mem + 1 > limit + kEps &&
                                    !r.pending_w.empty();
    if (f_waits_for_memory)
      pick = W;
    else if (can_i && can_f)
      pick = v.forward_first ? F : I;
    else if (can_i)
      pick = I;
    else if (can_f)
      pick = F;
    else if (!r.pending_w.empty()) {
      TimeNs next = std::numeric_limits<TimeNs>::max();
      if (f_allowed && f_at != kUnknown) next = std::min(next, f_at);
      if (i_at != kUnknown) next = std::min(next, i_at);
      const bool memory_blocked = f_left && r.mem + 1 > limit + kEps;
      if (w_now(v.eager_w, v.fill_partial, memory_blocked, t, next, c.backward_weight[u], r.idle,
                rk))
        pick = W;
    }
    if (pick == None) {  // wait for the next known arrival, or for another rank to produce one
      TimeNs next = std::numeric_limits<TimeNs>::max();
      if (f_allowed && f_at != kUnknown) next = std::min(next, f_at);
      if (i_at != kUnknown) next = std::min(next, i_at);
      park(queue, r, who, next);
      continue;
    }
    auto& list = s.actions[u];
    if (!list.empty()) r.idle += t - r.busy_until;
    TimeNs end = t;
    if (pick == F) {
      const int mb = r.next_f++;
      list.push_back({who, Op::F, mb});
      end = t + c.forward[u];
      r.mem += 1;
      ++r.outstanding;
      if (who + 1 < P) {
        const TimeNs arrival = std::max(end, chan_down[u]) + c.p2p[u];
        chan_down[u] = arrival;
        deliver(who + 1, false, mb, arrival);
      } else {
        at(r.g_arrival, mb) = end;  // the loss is here: the backward may start at once
      }
    } else if (pick == I) {
      const int mb = r.next_i++;
      list.push_back({who, Op::I, mb});
      end = t + c.backward_input[u];
      r.mem -= alpha;
      --r.outstanding;
      r.pending_w.push_back(mb);
      if (who > 0) {
        const TimeNs arrival = std::max(end, chan_up[u]) + c.p2p[u - 1];
        chan_up[u] = arrival;
        deliver(who - 1, true, mb, arrival);
      }
    } else {
      list.push_back({who, Op::W, r.pending_w.front()});
      r.pending_w.pop_front();
      end = t + c.backward_weight[u];
      r.mem -= 1 - alpha;
    }
    r.busy_until = r.wake = end;
    wake_up(who);
  }
  for (const Rank& r : rk)
    if (!finished(r))
      throw ScheduleError(fmt::format(
          "zb-auto (pp = {}, m = {}) found no schedule within memory_limit = {}", P, m, limit));
  return s;
}

// The V-shaped variant (vpp = 2, ZB-V's placement: rank r holds stage r and stage 2p − 1 − r):
// the same list scheduling over both chunks of a rank. A chunk's F holds half a micro-batch of
// the rank's activations (I frees alpha of it, W the rest). Whenever a rank is free it picks an
// I whose gradient is here (the deeper chunk's first, or the earliest arrival, by variant), else
// an F whose input is here and fits in memory (chunk 1's first: it carries the micro-batch to
// the loss), else a deferred W by the rules of `Variant`, else waits.
struct VVariant {
  bool forward_first;
  bool eager_w;
  bool fill_partial;
  bool deep_i_first;
};

Schedule greedy_v(const ScheduleParams& p, const StageCosts& c, double limit, double alpha,
                  VVariant v) {
  const int P = p.pp, m = p.microbatches, S = 2 * P;
  const auto u = [](int i) { return static_cast<std::size_t>(i); };
  Schedule s{"zb-auto", P, S, m, v_placement(P), {}};
  s.input_frees = alpha;
  s.actions.assign(u(P), {});
  struct StageState {
    int next_f = 0, next_i = 0;
    std::vector<TimeNs> f_arrival, g_arrival;
  };
  std::vector<StageState> st(u(S));
  for (int k = 0; k < S; ++k) {
    st[u(k)].f_arrival.assign(u(m), k == 0 ? 0 : kUnknown);
    st[u(k)].g_arrival.assign(u(m), kUnknown);
  }
  struct Rank {
    TimeNs busy_until = 0, wake = 0, idle = 0;
    bool blocked = false;
    double mem = 0;
    std::deque<std::pair<int, int>> pending_w;  // (stage, micro-batch)
  };
  std::vector<Rank> rk(u(P));
  // Links between neighbouring ranks, per direction (2·min + (from > to)), first-in first-out.
  std::vector<TimeNs> link(u(2 * P), 0);
  WakeQueue queue;
  auto wake_up = [&](int i) { queue.push({rk[u(i)].wake, i}); };
  // The output of stage `from` for `mb`, ended at `end`, reaches stage `to`.
  auto deliver = [&](int from, int to, bool gradient, int mb, TimeNs end) {
    const int a = s.stage_rank[u(from)], b = s.stage_rank[u(to)];
    TimeNs arrival = end;
    if (a != b) {
      TimeNs& l = link[u(2 * std::min(a, b) + (a > b ? 1 : 0))];
      arrival = l = std::max(end, l) + c.p2p[u(std::min(from, to))];
    }
    (gradient ? st[u(to)].g_arrival : st[u(to)].f_arrival)[u(mb)] = arrival;
    notify(queue, rk[u(b)], b, arrival);
  };
  auto finished = [&](int r) {
    for (int k : {r, S - 1 - r})
      if (st[u(k)].next_f < m || st[u(k)].next_i < m) return false;
    return rk[u(r)].pending_w.empty();
  };
  const double chunk = 0.5;
  for (int i = 0; i < P; ++i) wake_up(i);
  while (!queue.empty()) {
    const auto [when, who] = queue.top();
    queue.pop();
    Rank& r = rk[u(who)];
    if (r.blocked || finished(who) || when != r.wake) continue;
    const TimeNs t = r.wake;
    const int deep = S - 1 - who, shallow = who;  // chunk 1 and chunk 0
    TimeNs next = std::numeric_limits<TimeNs>::max();
    // The I to run: a stage whose next I's gradient is here.
    int i_stage = -1;
    TimeNs i_when = 0;
    for (int k : {deep, shallow}) {
      const StageState& x = st[u(k)];
      if (x.next_i >= x.next_f) continue;
      const TimeNs at = x.g_arrival[u(x.next_i)];
      if (at == kUnknown) continue;
      if (at > t) {
        next = std::min(next, at);
        continue;
      }
      if (i_stage < 0 || (!v.deep_i_first && at < i_when)) i_stage = k, i_when = at;
    }
    const bool fits = r.mem + chunk <= limit + kEps;
    int f_stage = -1;
    for (int k : {deep, shallow}) {
      const StageState& x = st[u(k)];
      if (x.next_f >= m) continue;
      const TimeNs at = x.f_arrival[u(x.next_f)];
      if (at == kUnknown || !fits) continue;
      if (at > t) {
        next = std::min(next, at);
        continue;
      }
      if (f_stage < 0) f_stage = k;
    }
    enum { None, F, I, W } pick = None;
    if (i_stage >= 0 && f_stage >= 0)
      pick = v.forward_first ? F : I;
    else if (i_stage >= 0)
      pick = I;
    else if (f_stage >= 0)
      pick = F;
    else if (!r.pending_w.empty()) {
      const bool memory_blocked = !fits && (st[u(deep)].next_f < m || st[u(shallow)].next_f < m);
      if (w_now(v.eager_w, v.fill_partial, memory_blocked, t, next,
                c.backward_weight[u(r.pending_w.front().first)], r.idle, rk))
        pick = W;
    }
    if (pick == None) {
      park(queue, r, who, next);
      continue;
    }
    auto& list = s.actions[u(who)];
    if (!list.empty()) r.idle += t - r.busy_until;
    TimeNs end = t;
    if (pick == F) {
      const int mb = st[u(f_stage)].next_f++;
      list.push_back({f_stage, Op::F, mb});
      end = t + c.forward[u(f_stage)];
      r.mem += chunk;
      if (f_stage + 1 < S)
        deliver(f_stage, f_stage + 1, false, mb, end);
      else
        st[u(f_stage)].g_arrival[u(mb)] = end;  // the loss: the backward may start at once
    } else if (pick == I) {
      const int mb = st[u(i_stage)].next_i++;
      list.push_back({i_stage, Op::I, mb});
      end = t + c.backward_input[u(i_stage)];
      r.mem -= alpha * chunk;
      r.pending_w.push_back({i_stage, mb});
      if (i_stage > 0) deliver(i_stage, i_stage - 1, true, mb, end);
    } else {
      const auto [ws, mb] = r.pending_w.front();
      r.pending_w.pop_front();
      list.push_back({ws, Op::W, mb});
      end = t + c.backward_weight[u(ws)];
      r.mem -= (1 - alpha) * chunk;
    }
    r.busy_until = r.wake = end;
    wake_up(who);
  }
  for (int i = 0; i < P; ++i)
    if (!finished(i))
      throw ScheduleError(fmt::format(
          "zb-auto (pp = {}, vpp = 2, m = {}) found no schedule within memory_limit = {}", P, m,
          limit));
  return s;
}

// 1F1B with each backward split into I then W at once: the handcrafted baseline.
Schedule split_1f1b(const ScheduleParams& p) {
  Schedule s = generate_1f1b(p);
  for (auto& list : s.actions) {
    std::vector<Action> split;
    for (const Action& a : list) {
      if (a.op != Op::B) {
        split.push_back(a);
        continue;
      }
      split.push_back({a.stage, Op::I, a.microbatch});
      split.push_back({a.stage, Op::W, a.microbatch});
    }
    list = std::move(split);
  }
  return s;
}

}  // namespace

namespace {

// Per rank, when its first action starts and its last ends (the engine's semantics; see the
// header).
struct RankSpan {
  TimeNs first = std::numeric_limits<TimeNs>::max(), last = 0;
};

std::vector<RankSpan> replay(const Schedule& s, const StageCosts& c) {
  const int S = s.stages, m = s.microbatches, R = s.ranks;
  const auto cells = static_cast<std::size_t>(S) * static_cast<std::size_t>(m);
  std::vector<TimeNs> f_done(cells, kUnknown), b_done(cells, kUnknown);
  std::vector<TimeNs> f_out(cells, kUnknown), g_out(cells, kUnknown);  // arrival at the consumer
  // The time each (sender, receiver) link is busy until. Only neighbouring stages' ranks talk, so
  // the links are numbered once per stage boundary and direction (an R × R table would be
  // O(ranks²)); boundaries between the same two ranks (interleaved chunks) share a link.
  std::vector<std::size_t> link_of(2 * static_cast<std::size_t>(std::max(S - 1, 0)));
  {
    std::map<std::pair<int, int>, std::size_t> ids;
    for (int b = 0; b + 1 < S; ++b) {
      const int lo = s.stage_rank[static_cast<std::size_t>(b)];
      const int hi = s.stage_rank[static_cast<std::size_t>(b + 1)];
      link_of[2 * static_cast<std::size_t>(b)] =
          ids.try_emplace({lo, hi}, ids.size()).first->second;
      link_of[2 * static_cast<std::size_t>(b) + 1] =
          ids.try_emplace({hi, lo}, ids.size()).first->second;
    }
  }
  std::vector<TimeNs> channel(link_of.size(), 0);
  std::vector<TimeNs> free(static_cast<std::size_t>(R), 0);
  std::vector<RankSpan> spans(static_cast<std::size_t>(R));
  std::vector<std::size_t> next(static_cast<std::size_t>(R), 0);
  auto cell = [m](int stage, int mb) {
    return static_cast<std::size_t>(stage) * static_cast<std::size_t>(m) +
           static_cast<std::size_t>(mb);
  };
  // When `a` may start, or kUnknown while an input is not yet produced.
  auto ready = [&](const Action& a) -> TimeNs {
    const std::size_t k = cell(a.stage, a.microbatch);
    switch (a.op) {
      case Op::F:
        return s.chain_first(a.stage) ? 0 : f_out[cell(a.stage - 1, a.microbatch)];
      case Op::B:
      case Op::I:
        if (f_done[k] == kUnknown) return kUnknown;
        if (s.chain_last(a.stage)) return f_done[k];
        return g_out[cell(a.stage + 1, a.microbatch)] == kUnknown
                   ? kUnknown
                   : std::max(f_done[k], g_out[cell(a.stage + 1, a.microbatch)]);
      case Op::W:
        return b_done[k];
    }
    return kUnknown;
  };
  auto duration = [&](const Action& a) {
    const auto st = static_cast<std::size_t>(a.stage);
    switch (a.op) {
      case Op::F:
        return c.forward[st];
      case Op::B:
        return c.backward_input[st] + c.backward_weight[st];
      case Op::I:
        return c.backward_input[st];
      case Op::W:
        return c.backward_weight[st];
    }
    return TimeNs{0};
  };
  std::vector<int> work;  // ranks to visit
  std::vector<char> waiting(static_cast<std::size_t>(R), 0);
  auto wake = [&](int r) {
    if (!waiting[static_cast<std::size_t>(r)]) {
      waiting[static_cast<std::size_t>(r)] = 1;
      work.push_back(r);
    }
  };
  // The output of `a` (ended at `end` on `rank`) travels to the neighbouring stage.
  auto send = [&](const Action& a, int rank, TimeNs end) {
    const std::size_t k = cell(a.stage, a.microbatch);
    if (a.op == Op::F) f_done[k] = end;
    if (a.op == Op::B || a.op == Op::I) b_done[k] = end;
    if (a.op == Op::W) return;
    // The end of the micro-batch's pipeline (its chain): nothing to send on.
    if (a.op == Op::F ? s.chain_last(a.stage) : s.chain_first(a.stage)) return;
    const int to = a.op == Op::F ? a.stage + 1 : a.stage - 1;
    const int dest = s.stage_rank[static_cast<std::size_t>(to)];
    TimeNs arrival = end;
    if (dest != rank) {
      const std::size_t boundary = static_cast<std::size_t>(std::min(a.stage, to));
      TimeNs& ch = channel[link_of[2 * boundary + (a.op == Op::F ? 0 : 1)]];
      arrival = ch = std::max(end, ch) + c.p2p[static_cast<std::size_t>(std::min(a.stage, to))];
    }
    (a.op == Op::F ? f_out : g_out)[k] = arrival;
    wake(dest);
  };
  // Each rank runs as far as its inputs allow; a rank is visited again only when an input for
  // it arrives (O(actions), not O(ranks) per wave). The times do not depend on the visiting
  // order: each rank's actions and each link's sends keep their program order.
  for (int r = 0; r < R; ++r) wake(r);
  while (!work.empty()) {
    const int r = work.back();
    work.pop_back();
    waiting[static_cast<std::size_t>(r)] = 0;
    {
      const auto& list = s.actions[static_cast<std::size_t>(r)];
      auto& i = next[static_cast<std::size_t>(r)];
      while (i < list.size()) {
        const Action& a = list[i];
        const bool pair = a.overlapped_with_next && i + 1 < list.size();
        TimeNs start = ready(a);
        if (start == kUnknown) break;
        if (pair) {
          const TimeNs second = ready(list[i + 1]);
          if (second == kUnknown) break;
          start = std::max(start, second);
        }
        start = std::max(start, free[static_cast<std::size_t>(r)]);
        const TimeNs end = start + duration(a) + (pair ? duration(list[i + 1]) : 0);
        auto& span = spans[static_cast<std::size_t>(r)];
        span.first = std::min(span.first, start);
        span.last = end;
        send(a, r, end);
        if (pair) send(list[i + 1], r, end);
        free[static_cast<std::size_t>(r)] = end;
        i += pair ? 2 : 1;
      }
    }
  }
  for (int r = 0; r < R; ++r)
    TRAINSIM_CHECK(
        next[static_cast<std::size_t>(r)] == s.actions[static_cast<std::size_t>(r)].size(),
        "estimate_makespan needs a valid (deadlock-free) schedule");
  return spans;
}

}  // namespace

TimeNs estimate_makespan(const Schedule& s, const StageCosts& c) {
  TimeNs end = 0;
  for (const RankSpan& r : replay(s, c)) end = std::max(end, r.last);
  return end;
}

TimeNs estimate_period(const Schedule& s, const StageCosts& c) {
  TimeNs period = 0;
  for (const RankSpan& r : replay(s, c))
    if (r.first <= r.last) period = std::max(period, r.last - r.first);
  return period;
}

std::vector<double> peak_memory_units(const Schedule& s) {
  std::vector<double> peaks;
  const double unit = 1.0 / std::max(s.chunks(), 1);  // a chunk holds 1/v of the rank's share
  for (const auto& list : s.actions) {
    double held = 0, peak = 0;
    for (const Action& a : list) {
      held += unit * (a.op == Op::F   ? 1.0
                      : a.op == Op::B ? -1.0
                      : a.op == Op::I ? -s.input_frees
                                      : s.input_frees - 1);
      peak = std::max(peak, held);
    }
    peaks.push_back(peak);
  }
  return peaks;
}

std::vector<int> zb_auto_placement(int pp, int vpp) {
  return vpp == 2 ? v_placement(pp) : looped_placement(pp, vpp);
}

Schedule generate_zb_auto(const ScheduleParams& p) {
  const int P = p.pp, m = p.microbatches;
  if (p.vpp != 1 && p.vpp != 2)
    throw ScheduleError(fmt::format(
        "zb-auto searches schedules with one chunk per rank, or two in a V (as ZB-V): it needs "
        "vpp = 1 or 2, got vpp = {}",
        p.vpp));
  const int S = P * p.vpp;
  const double limit = schedule_option(p, "memory_limit", P);
  const double alpha = schedule_option(p, "input_frees", 0.5);
  if (limit < 1)
    throw ScheduleError(
        fmt::format(
            "zb-auto needs memory_limit >= 1 (one micro-batch's activations on a stage; 1F1B peaks "
            "at pp = {}), got {}",
            P, limit),
        "memory_limit");
  if (alpha < 0 || alpha > 1)
    throw ScheduleError(
        fmt::format("zb-auto needs 0 <= input_frees <= 1 (the share I frees), got {}", alpha),
        "input_frees");
  StageCosts c;
  if (p.costs) {
    c = *p.costs;
    if (c.backward_input.empty() || c.backward_weight.empty())
      throw ScheduleError(
          "zb-auto splits the backward into I and W and needs both costs: give "
          "costs.backward_input and costs.backward_weight (or a model)");
    TRAINSIM_CHECK(static_cast<int>(c.forward.size()) == S &&
                       static_cast<int>(c.backward_input.size()) == S &&
                       static_cast<int>(c.backward_weight.size()) == S &&
                       static_cast<int>(c.p2p.size()) == S - 1,
                   "zb-auto costs must cover every stage and boundary");
  } else {  // no costs: F = I = W, free transfers
    c.forward.assign(static_cast<std::size_t>(S), 1);
    c.backward_input = c.backward_weight = c.forward;
    c.p2p.assign(static_cast<std::size_t>(std::max(S - 1, 0)), 0);
  }
  // Step 2: the candidates. A greedy variant that gets stuck under the limit is left out.
  std::vector<Schedule> candidates;
  auto add = [&](auto&& make) {
    try {
      candidates.push_back(make());
    } catch (const ScheduleError&) {
    }
  };
  ScheduleParams plain = p;
  plain.options.clear();
  if (p.vpp == 2) {
    for (bool forward_first : {false, true})
      for (int w_rule = 0; w_rule < 3; ++w_rule)  // fit, eager, fill_partial
        for (bool deep_first : {false, true})
          add([&] {
            return greedy_v(p, c, limit, alpha,
                            {forward_first, w_rule == 1, w_rule == 2, deep_first});
          });
    if (m >= 2 * P - 1) add([&] { return generate_zb_v(plain); });
  } else {
    for (double lambda : {0.0, 0.5, 1.0, 1.5, 2.0, std::numeric_limits<double>::infinity()})
      for (bool forward_first : {false, true})
        for (bool eager : {false, true})
          add([&] { return greedy(p, c, limit, alpha, {lambda, forward_first, eager}); });
    for (auto cap : {Variant::TimedFloor, Variant::TimedCeil})
      for (bool forward_first : {false, true})
        for (bool eager : {false, true})
          for (bool unblock : {false, true})
            for (bool partial : {false, true})
              if (!(eager && partial))  // eager already fills every gap
                add([&] {
                  return greedy(p, c, limit, alpha,
                                {0, forward_first, eager, cap, unblock, partial});
                });
    add([&] { return split_1f1b(plain); });
    add([&] { return generate_zb_h1(plain); });
    add([&] { return generate_zb_h2(plain); });
  }
  const Schedule* best = nullptr;
  TimeNs best_time = 0;
  double best_peak = 0;
  for (Schedule& s : candidates) {
    s.input_frees = alpha;
    const auto peaks = peak_memory_units(s);
    const double peak = *std::max_element(peaks.begin(), peaks.end());
    if (peak > limit + kEps) continue;
    const TimeNs t = p.overlapped_steps ? estimate_period(s, c) : estimate_makespan(s, c);
    if (!best || t < best_time || (t == best_time && peak < best_peak - kEps)) {
      best = &s;
      best_time = t;
      best_peak = peak;
    }
  }
  if (!best)
    throw ScheduleError(fmt::format(
        "zb-auto (pp = {}, vpp = {}, m = {}) found no schedule within memory_limit = {}", P, p.vpp,
        m, limit));
  Schedule out = *best;
  out.name = "zb-auto";
  return out;
}

}  // namespace trainsim
