// A calibration profile: the reader, then a small scenario whose durations come from it (the
// interpolation and the α–β fit outside the measured range; 28 of the bad-input campaign).
#include "core/error.h"
#include "cost/calibration_profile.h"
#include "fuzz_util.h"
#include "report/step_report.h"
#include "scenario/scenario_loader.h"

using namespace trainsim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = fuzz::text(data, size);
  try {
    parse_profile(text, "fuzz.json");
  } catch (const InputError&) {
    return 0;
  }
  const std::string path = fuzz::scratch_file("profile.json", text);
  try {
    // TP, DP and PP all on: GEMMs, copies and three kinds of collectives read the profile.
    const Scenario sc = parse_scenario(
        "model: {preset: llama-3.2-1b, layers: 4}\n"
        "training: {seq_len: 1024, global_batch_size: 8}\n"
        "cluster: {gpu: h100-sxm, gpus_per_node: 8}\n"
        "parallelism: {tp: 2, pp: 2, dp: 2}\n"
        "calibration: " +
            path + "\n",
        "fuzz.yaml");
    make_report(simulate(sc, {}));
  } catch (const InputError&) {
  }
  return 0;
}
