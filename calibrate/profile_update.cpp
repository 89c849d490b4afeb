#include "profile_update.h"

#include <filesystem>

namespace trainsim {

CalibrationProfile update_profile(const std::string& path, CalibrationProfile fresh,
                                  ProfileSection section) {
  if (std::filesystem::exists(path)) {
    const CalibrationProfile old = load_profile(path);  // throws if it is not a profile
    if (section == ProfileSection::Compute) {
      fresh.collectives = old.collectives;
    } else {
      fresh.gemms = old.gemms;
      fresh.memory = old.memory;
    }
    if (fresh.provenance.device.empty()) fresh.provenance = old.provenance;
  }
  save_profile(fresh, path);
  return fresh;
}

}  // namespace trainsim
