#pragma once
// Reading nccl-tests output (NVIDIA/nccl-tests: all_reduce_perf, all_gather_perf, …) into
// calibration-profile samples, so a user with one GPU, or with logs from their cluster, still
// gets measured collective times. No CUDA here: this part of trainsim-calibrate is plain C++.
#include <string>  // std::string
#include <vector>  // std::vector

#include "cost/calibration_profile.h"

namespace trainsim {

/// The samples in one nccl-tests log. Accepts the text output (with or without the `root`
/// column of older versions, lines prefixed by mpirun's `[1,0]<stdout>:`, several tests in one
/// log) and the `-J` JSON file. The operation comes from the "# Collective test starting:"
/// header (JSON: the program in `args`), else from `source`'s file name (e.g.
/// all_gather_perf.log). The group size is the number of ranks listed under "Using devices";
/// the link is inter_node when they span more than one host. Times are the out-of-place ones.
/// Throws InputError naming `source` and the line for anything it cannot read.
std::vector<CollectiveSample> parse_nccl_tests(const std::string& text, const std::string& source);

}  // namespace trainsim
