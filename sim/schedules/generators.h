#pragma once
// The schedule generators. Each is a pure function ScheduleParams -> Schedule that throws
// ScheduleError when (p, m, v) cannot run, saying what is required. Only registry.cpp names them.
#include "schedules/schedule.h"

namespace trainsim {

/// An action-less schedule with one chunk per rank; throws ScheduleError when p.vpp != 1.
Schedule empty_pipeline(const char* name, const ScheduleParams& p);

/// All-forward-all-backward (GPipe): every rank runs F0..F(m-1), then B0..B(m-1).
Schedule generate_afab(const ScheduleParams& p);
/// 1F1B (PipeDream-Flush): rank r warms up with min(p-r-1, m) forwards, then alternates F and B.
Schedule generate_1f1b(const ScheduleParams& p);
/// Megatron interleaved 1F1B: v ≥ 2 chunks per rank (stage c·p + r), depth-first in groups of
/// g micro-batches (option group_size, default p; p ≤ g ≤ m, m a multiple of g).
Schedule generate_interleaved_1f1b(const ScheduleParams& p);
/// Breadth-first looping: all micro-batches through chunk 0, then chunk 1, …; backwards in
/// reverse chunk order. Any v ≥ 1.
Schedule generate_looped_bfs(const ScheduleParams& p);
/// Zero Bubble ZB-H1: backward split into I and W, W deferred; 1F1B's peak memory (p
/// micro-batches). Makespan m(F+I+W) + (p−1)(F+I−W) for m ≥ p when W ≤ min(F, I).
Schedule generate_zb_h1(const ScheduleParams& p);
/// Zero Bubble ZB-H2: as ZB-H1 with a deeper warm-up, 2p − 1 micro-batches in flight.
/// Makespan m(F+I+W) + (p−1)(F+I−2W) for m ≥ 2p − 1 when W ≤ F and 2W ≤ I (with 2W > I
/// the last stage's own start-up, (p−1)F, exceeds that bubble).
Schedule generate_zb_h2(const ScheduleParams& p);

/// Zero Bubble ZB-V: two chunks per rank in a V (vpp = 2), split backward; 1F1B's peak memory.
/// Needs m ≥ 2p − 1.
Schedule generate_zb_v(const ScheduleParams& p);
/// DeepSeek DualPipeV: two chunks per rank in a V (vpp = 2), a forward and a backward of the
/// two chunks overlapped as one F&B task in the steady state. Needs m ≥ 2p.
Schedule generate_dualpipe_v(const ScheduleParams& p);
/// DeepSeek DualPipe: two pipelines over the same p ranks in opposite directions (Schedule::
/// chains = 2), each through the whole model; rank r holds model stages r and p − 1 − r. The
/// steps of DualPipeV on each half of the ranks. Needs vpp = 1, an even p and an even m ≥ 2p.
Schedule generate_dualpipe(const ScheduleParams& p);

}  // namespace trainsim
