#pragma once
// GPUs of one model are not equally fast: chips differ, and at its power limit each runs the
// clock its own silicon allows. A synchronous training step waits for its slowest GPU (every
// collective and pipeline transfer joins the GPUs it links), so a job's compute runs at the
// pace of the slowest of its GPUs, the further behind the median the more GPUs it has.
// Sustained speeds are taken as normally distributed across a cluster's GPUs with coefficient
// of variation `spread` (cluster.gpu_speed_spread, constants.h kGpuSpeedSpread): the slowest of
// n is expected spread · E[max of n standard normals] behind the median. The pace applies to
// every compute task whole, its memory-bound kernels too, though a kernel bound by HBM (whose
// clock does not vary with the SMs') varies less: a simplification. And to every stage alike:
// where pipeline stages are unequal a slow GPU in a stage that waits anyway costs less, so the
// pace is an upper bound there. Durations a scenario gives (`costs:`) keep theirs
// (CostModel::pace_of).

namespace trainsim {

struct Scenario;

/// The expected largest of `n` independent standard normal draws: 0 for one, 1/√π for two,
/// about 1.42 for 8, 3.24 for 1,000 (Harter 1961's table). Numerical integration of
/// x · n · φ(x) · Φ(x)^(n−1); deterministic.
double expected_max_standard_normal(int n);

/// Compute durations × this on every GPU of a synchronous job of `gpus` GPUs whose sustained
/// speeds spread with coefficient of variation `spread`: 1 + spread · E[max of gpus].
double slowest_gpu_factor(double spread, int gpus);

/// The scenario's spread: cluster.gpu_speed_spread, else constants.h kGpuSpeedSpread.
double gpu_speed_spread(const Scenario& s);

}  // namespace trainsim
