// The scenario loader with --set overrides, then (when small) the simulation and its reports.
// Input: scenario YAML; lines "#set KEY=VALUE" (YAML comments) are also passed as --set.
#include <sstream>
#include <vector>

#include "core/error.h"
#include "fuzz_util.h"
#include "report/memory_report.h"
#include "report/step_report.h"
#include "scenario/scenario_loader.h"

using namespace trainsim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string yaml = fuzz::text(data, size);
  std::vector<std::string> sets;
  std::istringstream lines(yaml);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("#set ", 0) == 0) sets.push_back(line.substr(5));
  try {
    const Scenario sc = parse_scenario(yaml, "fuzz.yaml", sets);
    if (!fuzz::small(sc)) return 0;
    const Timeline tl = simulate(sc, {});
    make_report(tl);
    make_memory_report(tl);
  } catch (const InputError&) {
  }
  return 0;
}
