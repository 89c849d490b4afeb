#include "profile_update.h"

#include <ctime>

#include <filesystem>

namespace trainsim {

CalibrationProfile update_profile(const std::string& path, CalibrationProfile fresh,
                                  ProfileSection section) {
  if (std::filesystem::exists(path)) {
    const CalibrationProfile old = load_profile(path);  // throws if it is not a profile
    if (section == ProfileSection::Compute) {
      fresh.collectives = old.collectives;
      // `gemm` times no attention: what a trace gave stays.
      if (fresh.attention.empty()) fresh.attention = old.attention;
    } else {
      fresh.gemms = old.gemms;
      fresh.memory = old.memory;
      fresh.attention = old.attention;
    }
    if (fresh.provenance.device.empty()) fresh.provenance = old.provenance;
  }
  save_profile(fresh, path);
  return fresh;
}

std::string now_iso8601() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace trainsim
