// A torch.distributed.pipelining schedule CSV: the reader and the validator; an accepted
// schedule must export to a CSV that reads back to the same actions, and (when small and
// regular) simulate as a costs-only pipeline.
#include <fmt/format.h>

#include "core/error.h"
#include "fuzz_util.h"
#include "report/step_report.h"
#include "scenario/scenario_loader.h"
#include "schedules/csv.h"
#include "schedules/validate.h"

using namespace trainsim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = fuzz::text(data, size);
  Schedule s;
  try {
    s = schedule_from_csv(text, "fuzz.csv");
    validate_schedule(s);
  } catch (const InputError&) {
    return 0;
  }
  format_grid(s, run_unit_steps(s));
  try {
    const Schedule back = schedule_from_csv(schedule_to_csv(s), "round-trip");
    if (back.actions != s.actions || back.stage_rank != s.stage_rank)
      fuzz::broken("csv round trip", "the exported CSV reads back to other actions");
  } catch (const InputError& e) {
    fuzz::broken("csv round trip", e.what());
  }
  if (s.stages % s.ranks != 0 || s.ranks > 32 || s.stages > 64 || s.microbatches > 32) return 0;
  const std::string path = fuzz::scratch_file("schedule.csv", text);
  try {
    const Scenario sc = parse_scenario(
        fmt::format("parallelism: {{pp: {}, vpp: {}}}\ntraining: {{microbatches: {}}}\n"
                    "costs: {{forward: 1ms, backward: 2ms, p2p: 0.1ms}}\n"
                    "schedule: {{csv: {}}}\n",
                    s.ranks, s.stages / s.ranks, s.microbatches, path),
        "fuzz.yaml");
    make_report(simulate(sc, {}));
  } catch (const InputError&) {
  }
  return 0;
}
