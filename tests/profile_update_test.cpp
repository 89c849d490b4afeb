// Writing measurements into an existing profile (calibrate/profile_update.h).
#include "profile_update.h"

#include <cstdio>
#include <fstream>

#include <catch2/catch.hpp>

#include "core/error.h"

using namespace trainsim;

TEST_CASE("profile update: each command replaces its own section and keeps the other",
          "[calibration]") {
  const std::string path = "profile_update_test.json";
  std::remove(path.c_str());
  CalibrationProfile collectives;
  collectives.provenance.device = "NVIDIA H100 80GB HBM3";
  collectives.collectives.push_back(
      {"all_reduce", 8, "intra_node", 1 << 20, 20e-6, 0, 0, "nccl-tests", "a.log:3"});
  update_profile(path, collectives, ProfileSection::Collectives);
  // Then `gemm`: 2 GEMM samples and a copy; the collective stays.
  CalibrationProfile compute;
  compute.provenance.device = "NVIDIA H100 80GB HBM3";
  compute.gemms.push_back({1024, 1024, 1024, "bf16", 5e-6, 0, "measured", ""});
  compute.gemms.push_back({2048, 1024, 1024, "bf16", 9e-6, 0, "measured", ""});
  compute.memory.push_back({"copy", 1 << 20, 3e-6, 0, "measured", ""});
  update_profile(path, compute, ProfileSection::Compute);
  CalibrationProfile both = load_profile(path);
  CHECK(both.gemms.size() == 2);
  CHECK(both.memory.size() == 1);
  CHECK(both.collectives.size() == 1);
  // Measuring GEMMs again replaces the 2 samples rather than adding to them.
  compute.gemms.pop_back();
  update_profile(path, compute, ProfileSection::Compute);
  both = load_profile(path);
  CHECK(both.gemms.size() == 1);
  CHECK(both.collectives.size() == 1);
  // A file that is not a profile is left alone.
  { std::ofstream(path) << "not json"; }
  CHECK_THROWS_AS(update_profile(path, compute, ProfileSection::Compute), InputError);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "not json");
  std::remove(path.c_str());
}
