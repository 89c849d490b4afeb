#pragma once
// Writing a command's measurements into a profile that may already hold others: `gemm` keeps
// the collectives a previous `collectives` or `import-nccl-tests` wrote, and the other way
// round, so one file can collect everything measured on a machine.
#include <string>  // std::string

#include "cost/calibration_profile.h"

namespace trainsim {

enum class ProfileSection { Compute, Collectives };

/// `fresh`'s `section` (compute: GEMM, memory and attention samples; attention kept from the old
/// file when `fresh` has none) replaces that section of the profile at `path` when it exists
/// and is valid (its other section and, when `fresh` has none, its provenance kept); the result is
/// written to `path` and returned. A file at `path` that is not a profile is an InputError: nothing
/// is overwritten.
CalibrationProfile update_profile(const std::string& path, CalibrationProfile fresh,
                                  ProfileSection section);

/// Now, ISO 8601 UTC (a profile's provenance date).
std::string now_iso8601();

}  // namespace trainsim
