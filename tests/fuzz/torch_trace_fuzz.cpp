// PyTorch profiler (Kineto) traces: the streaming reader, the step breakdown and the profile
// import. What the reader accepts must break down into parts that add up to the step's span,
// and import into a profile the profile reader accepts.
#include "core/error.h"
#include "core/json_text.h"
#include "cost/calibration_profile.h"
#include "fuzz_util.h"
#include "measured/step_breakdown.h"
#include "torch_trace_import.h"

using namespace trainsim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::scratch_file("trace.json", fuzz::text(data, size));
  TorchTrace t;
  StepBreakdown b;
  try {
    t = read_torch_trace(path);
    b = break_down_step(t, pick_step(t));
  } catch (const InputError&) {
    return 0;
  }
  if (b.compute_busy + b.comm_exposed + b.idle != b.span)
    fuzz::broken("a step's parts do not add up to its span", b.step);
  Scenario s;
  const TorchTraceImport imp = import_torch_traces({t}, s);
  try {
    parse_profile(json_text(profile_to_json(imp.profile), 2), "imported.json");
  } catch (const InputError& e) {
    // A profile with nothing in it is what the CLI refuses before writing; anything else
    // must read back.
    if (!imp.profile.gemms.empty() || !imp.profile.memory.empty() ||
        !imp.profile.collectives.empty())
      fuzz::broken("an imported trace's profile does not read back", e.what());
  }
  return 0;
}
