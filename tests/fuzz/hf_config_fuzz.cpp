// A Hugging Face config.json as `model: {hf_config: …}`, then (when small) the simulation.
#include "core/error.h"
#include "fuzz_util.h"
#include "report/step_report.h"
#include "scenario/scenario_loader.h"

using namespace trainsim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::scratch_file("config.json", fuzz::text(data, size));
  try {
    const Scenario sc = parse_scenario("model: {hf_config: " + path +
                                           "}\n"
                                           "training: {seq_len: 512, global_batch_size: 8}\n"
                                           "cluster: {gpu: h100-sxm, gpus_per_node: 2}\n"
                                           "parallelism: {tp: 2}\n",
                                       "fuzz.yaml");
    if (!fuzz::small(sc)) return 0;
    make_report(simulate(sc, {}));
  } catch (const InputError&) {
  }
  return 0;
}
