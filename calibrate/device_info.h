#pragma once
// What the local GPUs are (the `device` command) and the provenance a profile records.
#include <nlohmann/json.hpp>

#include "cost/calibration_profile.h"

namespace trainsim {

/// Versions (driver, runtime, cuBLASLt, NCCL) and every device's name, SMs, memory, clocks and
/// compute capability. Throws InputError (exit 2) with no driver or no device.
nlohmann::json describe_devices();
/// The same as text, one line per device after a versions line.
std::string describe_devices_text(const nlohmann::json& j);
/// Device `d`'s name and the library versions, the host and the current time (UTC).
Provenance provenance_of(int d);

}  // namespace trainsim
