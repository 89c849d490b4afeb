#pragma once
// zb-auto: a pipeline schedule searched for under a memory limit, with the real per-stage costs
// (Zero Bubble paper, Qi et al. ICLR 2024, §4 "automatic scheduling"; our search replaces their
// ILP refinement by an exhaustive pick over heuristic variants, so it stays fast and exact).
//
// Memory is counted per rank in units of one micro-batch's activations on its stage: F takes
// one, I frees `input_frees` (option, default 0.5) and W the rest. 1F1B peaks at p on rank 0.
// (The paper's M_B and M_W, its Table 1: input_frees = 1 − M_W/M_B = 1 − 32h/(34h + 5as).)
//
// The algorithm:
//  1. A greedy list scheduler runs the pipeline in simulated time (the same semantics as the
//     engine: a rank runs one action at a time; an activation or gradient crosses a stage
//     boundary in `p2p` time on a first-in first-out channel). Whenever a rank is free it picks:
//       - an I whose gradient has arrived (the critical path), unless it is still warming up
//         and the `forward_first` variant prefers its next F;
//       - else its next F, if the input has arrived, the rank holds fewer than its warm-up cap
//         of un-backpropagated micro-batches, and memory + 1 stays within the limit;
//       - else a deferred W: always in the `eager` variant; in the `fit` variant only when no
//         input is known to arrive before the W would end, or memory blocks the next F, or (the
//         `fill_partial` variant, the paper's §3.1 rule) idling through the shorter gap would
//         give this rank the most idle time of all ranks so far;
//       - else it waits for the next arrival.
//     In the `w_unblocks_f` variant a W goes first whenever memory alone holds back an F whose
//     input is here, so a full-memory steady state keeps the next stage fed (1F-1I-1W).
//     Rank i's warm-up cap (un-backpropagated micro-batches) is either (p − i) + λ·(p − 1 − i):
//     λ = 0 is ZB-H1's shape, λ = 1 ZB-H2's, larger λ lets memory alone decide; or timed, as
//     the paper's heuristic chooses its warm-up: the forwards that fit before the first
//     micro-batch's input gradient can come back to rank i with these costs and transfers
//     (rounded down, or up to leave no gap), within the memory limit.
//  2. Every variant (λ ∈ {0, ½, 1, 3/2, 2, ∞} × forward_first × eager/fit, and the two timed
//     caps × forward_first × w_unblocks_f × eager/fit/fill_partial) is generated, and so are
//     the handcrafted 1F1B (I and W back to back), ZB-H1 and ZB-H2: 51 candidates.
//  3. Each candidate is timed by `estimate_makespan` (the engine's semantics on the same
//     costs), or by `estimate_period` when steps overlap (ScheduleParams::overlapped_steps),
//     and its peak memory counted; the fastest within the limit wins (ties: less memory,
//     then the order above). The handcrafted schedules being candidates, zb-auto is never
//     worse than them at the same limit; the greedy variants find near-zero bubbles where the
//     limit allows (limit ≥ 2p − 1 reaches ZB-H2's shape and beyond).
//
// On the paper's own inputs (its Table 9 profiled F, B, W, T_comm; tests/zb_auto_test.cpp) and
// its "cost" (the longest stage span, steps overlapping), zb-auto equals its ZB-1p at memory p
// in all 12 settings and is at or below its ZB-2p at 2p in all 12 (below in 8).
//
// At vpp = 2 the same list scheduling runs over ZB-V's V placement (rank r holds stages r and
// 2p − 1 − r; a chunk's F holds half a micro-batch of the rank's activations): an I whose
// gradient is here first (the deeper chunk's, or the earliest arrival), else an F that fits
// (chunk 1's first, it carries the micro-batch to the loss), else a W by the rules above; 12
// variants plus the handcrafted ZB-V. At 1F1B's memory it matches or beats ZB-V (property
// test), so it reaches ZB-V's zero bubble where one chunk per rank is held to ZB-1p's.
//
// Options: memory_limit (default p, 1F1B's peak; at least 1), input_frees (0 … 1).
// One chunk per rank (vpp = 1) or two in a V (vpp = 2).
#include "schedules/schedule.h"

namespace trainsim {

/// Makespan of `s` when each action takes its stage's cost and transfers take `c.p2p`, with
/// the engine's semantics (in-order ranks; FIFO channels per rank pair in production order).
/// An overlapped F&B pair takes F + B. Requires a valid schedule and costs for every stage.
TimeNs estimate_makespan(const Schedule& s, const StageCosts& c);

/// The steady-state step period of `s` on the same costs when consecutive steps overlap
/// (Zero Bubble paper §4, optimizer post-validation: each rank starts the next step as soon as
/// its own ends): the longest rank span, first action's start to last action's end. This is
/// the paper's "cost" (§5.3, Appendix G's objective), so its bubble rate is
/// (period − m(T_F + T_B + T_W)) / period.
TimeNs estimate_period(const Schedule& s, const StageCosts& c);

/// Peak activation units per rank (F +1, B −1, I −input_frees, W the rest), in list order.
std::vector<double> peak_memory_units(const Schedule& s);

/// zb-auto's stage → rank: ZB-V's V at vpp = 2, else one stage per rank.
std::vector<int> zb_auto_placement(int pp, int vpp);

/// The zb-auto generator (see above); registered as "zb-auto".
Schedule generate_zb_auto(const ScheduleParams& p);

}  // namespace trainsim
