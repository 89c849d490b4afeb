#pragma once
// The schedule generators. Each is a pure function ScheduleParams -> Schedule that throws
// ScheduleError when (p, m, v) cannot run, saying what is required. Only registry.cpp names them.
#include "schedules/schedule.h"

namespace trainsim {

/// All-forward-all-backward (GPipe): every rank runs F0..F(m-1), then B0..B(m-1).
Schedule generate_afab(const ScheduleParams& p);
/// 1F1B (PipeDream-Flush): rank r warms up with min(p-r-1, m) forwards, then alternates F and B.
Schedule generate_1f1b(const ScheduleParams& p);

}  // namespace trainsim
