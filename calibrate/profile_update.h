#pragma once
// Writing a command's measurements into a profile that may already hold others: `gemm` keeps
// the collectives a previous `collectives` or `import-nccl-tests` wrote, an import of an
// all-gather log keeps the all-reduce sizes of an earlier one, so one file can collect
// everything measured on a machine, one command at a time.
#include <string>  // std::string

#include "cost/calibration_profile.h"

namespace trainsim {

enum class ProfileSection { Compute, Collectives, Both };

/// What an update did to the samples of the section it wrote.
struct ProfileUpdate {
  CalibrationProfile profile;  ///< as written
  int added = 0;               ///< samples of keys the file did not hold
  int replaced = 0;            ///< samples of keys it held: the new time replaces the old
  int kept = 0;                ///< the file's samples of that section the update did not measure
  bool existed = false;        ///< `path` held a profile before
};

/// Merges `fresh`'s `section` (compute: GEMM, memory and attention samples; collectives; both) into
/// the profile at `path` when it exists, by sample_key: a key measured again takes the new
/// sample, the file's other samples stay, and so does its other section. Provenance: the file's
/// fields with `fresh`'s beside them where they differ ("vm, node-a": the hosts, drivers and
/// library versions its samples were measured with), the date `fresh`'s (the last update).
/// Written to `path`. InputError, nothing overwritten: a file at `path` that is not a profile,
/// or one measured on another GPU (gpu_mismatch of the two provenance devices): a profile
/// prices one GPU.
ProfileUpdate update_profile(const std::string& path, CalibrationProfile fresh,
                             ProfileSection section);

/// update_profile's checks, before anything is measured: InputError when a file at `path` is not
/// a profile or holds another GPU model's samples than `device`'s (a command measuring for
/// minutes checks its --out first).
void check_profile_target(const std::string& path, const std::string& device);

/// " (12 new, 3 replacing the file's, 40 of the file's kept)" to follow a command's line, or ""
/// for a new file.
std::string describe(const ProfileUpdate& u);

/// Now, ISO 8601 UTC (a profile's provenance date).
std::string now_iso8601();

}  // namespace trainsim
