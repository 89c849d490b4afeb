#pragma once
// zb-auto: a pipeline schedule searched for under a memory limit, with the real per-stage costs
// (Zero Bubble paper, Qi et al. ICLR 2024, §4 "automatic scheduling"; our search replaces their
// ILP refinement by an exhaustive pick over heuristic variants, so it stays fast and exact).
//
// Memory is counted per rank in units of one micro-batch's activations on its stage: F takes
// one, I frees `input_frees` (option, default 0.5) and W the rest. 1F1B peaks at p on rank 0.
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
//         input is known to arrive before the W would end (or memory blocks the next F);
//       - else it waits for the next arrival.
//     Rank i's warm-up cap is (p − i) + λ·(p − 1 − i): λ = 0 is ZB-H1's shape, λ = 1 ZB-H2's,
//     larger λ lets memory alone decide.
//  2. Every variant (λ ∈ {0, ½, 1, 3/2, 2, ∞} × forward_first × eager/fit) is generated, and so
//     are the handcrafted 1F1B (I and W back to back), ZB-H1 and ZB-H2.
//  3. Each candidate is timed by `estimate_makespan` (the engine's semantics on the same
//     costs) and its peak memory counted; the fastest within the limit wins (ties: less memory,
//     then the order above). The handcrafted schedules being candidates, zb-auto is never
//     worse than them at the same limit; the greedy variants find near-zero bubbles where the
//     limit allows (limit ≥ 2p − 1 reaches ZB-H2's shape and beyond).
//
// Options: memory_limit (default p, 1F1B's peak; at least 1), input_frees (0 … 1).
// One chunk per rank (vpp = 1).
#include "schedules/schedule.h"

namespace trainsim {

/// Makespan of `s` when each action takes its stage's cost and transfers take `c.p2p`, with
/// the engine's semantics (in-order ranks; FIFO channels per rank pair in production order).
/// An overlapped F&B pair takes F + B. Requires a valid schedule and costs for every stage.
TimeNs estimate_makespan(const Schedule& s, const StageCosts& c);

/// Peak activation units per rank (F +1, B −1, I −input_frees, W the rest), in list order.
std::vector<double> peak_memory_units(const Schedule& s);

/// The zb-auto generator (see above); registered as "zb-auto".
Schedule generate_zb_auto(const ScheduleParams& p);

}  // namespace trainsim
