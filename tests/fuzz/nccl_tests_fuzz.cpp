// nccl-tests output (text log or -J JSON): the importer; what it accepts must make a profile the
// profile reader accepts (21 and 22 of the bad-input campaign wrote profiles that could not be
// read back).
#include "core/error.h"
#include "core/json_text.h"
#include "cost/calibration_profile.h"
#include "fuzz_util.h"
#include "nccl_tests.h"

using namespace trainsim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  CalibrationProfile p;
  try {
    p.collectives = parse_nccl_tests(fuzz::text(data, size), "fuzz.log");
  } catch (const InputError&) {
    return 0;
  }
  // The same sizes twice merge into one sample each (median, spread 0).
  std::vector<CollectiveSample> twice = p.collectives;
  twice.insert(twice.end(), p.collectives.begin(), p.collectives.end());
  const auto merged = merge_collective_samples(twice);
  if (merged.size() > p.collectives.size())
    fuzz::broken("merging a log with itself added samples", std::to_string(merged.size()));
  p.collectives = merged;
  const std::string json = json_text(profile_to_json(p), 2);
  try {
    parse_profile(json, "imported.json");
  } catch (const InputError& e) {
    fuzz::broken("an imported profile does not read back", e.what());
  }
  return 0;
}
