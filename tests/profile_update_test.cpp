// Writing measurements into an existing profile (calibrate/profile_update.h).
#include "profile_update.h"

#include <cstdio>
#include <fstream>

#include <catch2/catch.hpp>

#include "core/error.h"

using namespace trainsim;

namespace {
const char* const kH100 = "NVIDIA H100 80GB HBM3";

CollectiveSample all_reduce(double bytes, double time_s) {
  return {"all_reduce", 8, "intra_node", bytes, time_s, 0, 0, "nccl-tests", "a.log:3"};
}
}  // namespace

TEST_CASE("profile update: each command merges into its own section and keeps the other",
          "[calibration]") {
  const std::string path = "profile_update_test.json";
  std::remove(path.c_str());
  CalibrationProfile collectives;
  collectives.provenance.device = kH100;
  collectives.provenance.host = "vm";
  collectives.collectives.push_back(all_reduce(1 << 20, 20e-6));
  ProfileUpdate u = update_profile(path, collectives, ProfileSection::Collectives);
  CHECK(u.added == 1);
  CHECK(describe(u).empty());  // a new file: nothing to say about what it held
  // Then `gemm`: 2 GEMM samples and a copy; the collective stays.
  CalibrationProfile compute;
  compute.provenance.device = kH100;
  compute.provenance.cublas = "12.8";
  compute.provenance.host = "node-a";
  compute.gemms.push_back({1024, 1024, 1024, "bf16", 5e-6, 0, "measured", ""});
  compute.gemms.push_back({2048, 1024, 1024, "bf16", 9e-6, 0, "measured", ""});
  compute.memory.push_back({"copy", 1 << 20, 3e-6, 0, "measured", ""});
  u = update_profile(path, compute, ProfileSection::Compute);
  CHECK(u.added == 3);
  CHECK(u.kept == 0);  // the compute section was empty; the collective is another section
  // The file existed: what the update did is said, even with nothing replaced or kept.
  CHECK(describe(u) == " (3 new, 0 replacing the file's, 0 of the file's kept)");
  CalibrationProfile both = load_profile(path);
  CHECK(both.gemms.size() == 2);
  CHECK(both.memory.size() == 1);
  CHECK(both.collectives.size() == 1);
  // Measuring one GEMM shape again (another scenario's `gemm`, a faster driver) replaces that
  // shape's sample and keeps the other: 1 replaced, 2 kept (a GEMM and the copy).
  CalibrationProfile again;
  again.provenance.device = kH100;
  again.provenance.host = "vm";
  again.gemms.push_back({1024, 1024, 1024, "bf16", 4e-6, 0, "measured", ""});
  u = update_profile(path, again, ProfileSection::Compute);
  CHECK(u.added == 0);
  CHECK(u.replaced == 1);
  CHECK(u.kept == 2);
  CHECK(describe(u) == " (0 new, 1 replacing the file's, 2 of the file's kept)");
  both = load_profile(path);
  REQUIRE(both.gemms.size() == 2);
  CHECK(both.gemms[0].time_s == 4e-6);  // replaced in place
  CHECK(both.gemms[1].time_s == 9e-6);
  CHECK(both.memory.size() == 1);
  CHECK(both.collectives.size() == 1);
  // Provenance: the file's, with what the updates add beside it: the GEMMs were measured on
  // "node-a", the all-reduce on "vm" (listed once however often it comes back); the cuBLAS
  // version that only one update gave stays.
  CHECK(both.provenance.cublas == "12.8");
  CHECK(both.provenance.host == "vm, node-a");
  // An all-gather log after an all-reduce one: both operations' sizes stay.
  CalibrationProfile gather;
  gather.provenance.device = "8× " + std::string(kH100);
  gather.collectives.push_back({"all_gather", 8, "intra_node", 1 << 20, 12e-6, 0, 0, "", ""});
  gather.collectives.push_back(all_reduce(1 << 20, 19e-6));
  u = update_profile(path, gather, ProfileSection::Collectives);
  CHECK(u.added == 1);
  CHECK(u.replaced == 1);
  CHECK(u.kept == 0);
  both = load_profile(path);
  REQUIRE(both.collectives.size() == 2);
  CHECK(both.collectives[0].time_s == 19e-6);
  CHECK(both.gemms.size() == 2);
  // A trace's import writes both sections at once: its GEMM shape and collective size replace
  // theirs, the other 5 samples stay.
  CalibrationProfile trace;
  trace.provenance.device = kH100;
  trace.gemms.push_back({2048, 1024, 1024, "bf16", 8e-6, 0, "torch-trace", ""});
  trace.collectives.push_back({"all_gather", 8, "intra_node", 1 << 20, 11e-6, 0, 0, "", ""});
  u = update_profile(path, trace, ProfileSection::Both);
  CHECK(u.added == 0);
  CHECK(u.replaced == 2);
  CHECK(u.kept == 3);  // a GEMM, the copy, the all-reduce
  CHECK(load_profile(path).gemms[1].time_s == 8e-6);
  std::remove(path.c_str());
}

TEST_CASE(
    "profile update: another GPU model's samples, or a file that is not a profile, are "
    "refused and nothing is written",
    "[calibration]") {
  const std::string path = "profile_update_refuse_test.json";
  std::remove(path.c_str());
  CalibrationProfile h100;
  h100.provenance.device = kH100;
  h100.gemms.push_back({1024, 1024, 1024, "bf16", 5e-6, 0, "measured", ""});
  update_profile(path, h100, ProfileSection::Compute);
  CalibrationProfile a100;
  a100.provenance.device = "A100-SXM4-40GB";
  a100.collectives.push_back(all_reduce(1 << 20, 40e-6));
  // A profile prices the GPU it was measured on: an A100's all-reduce in an H100 file would
  // price an H100 run with it (and the file's device would say A100, refusing H100 scenarios).
  CHECK_THROWS_WITH(update_profile(path, a100, ProfileSection::Collectives),
                    Catch::Contains("holds samples measured on \"NVIDIA H100 80GB HBM3\"") &&
                        Catch::Contains("\"A100-SXM4-40GB\" (H100 against A100)"));
  CHECK_THROWS_AS(check_profile_target(path, "A100-SXM4-40GB"), InputError);
  check_profile_target(path, "8× NVIDIA H100 80GB HBM3 over 2 nodes");  // the same model
  check_profile_target(path, "");                                       // a log that names no GPU
  check_profile_target("no_such_profile_update_test.json", "A100-SXM4-40GB");  // a new file
  const CalibrationProfile kept = load_profile(path);
  CHECK(kept.provenance.device == kH100);
  CHECK(kept.collectives.empty());
  // A file that is not a profile is left alone.
  { std::ofstream(path) << "not json"; }
  CHECK_THROWS_AS(update_profile(path, h100, ProfileSection::Compute), InputError);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "not json");
  std::remove(path.c_str());
}
