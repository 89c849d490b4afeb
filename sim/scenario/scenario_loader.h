#pragma once
// Reads a scenario YAML file (keys documented in scenarios/README.md), applies `--set` overrides
// and validates every field. Any problem throws ScenarioError naming file, line, key, the value
// and what is allowed; nothing is half-loaded.
#include <string>  // std::string
#include <vector>  // std::vector

#include "scenario/scenario.h"

namespace trainsim {

/// Loads `path`, applying each override "dotted.key=value" (value in YAML syntax) in order.
/// Throws ScenarioError.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});

/// Same, from YAML text; `source` names it in messages and resolves relative paths (hf_config).
Scenario parse_scenario(const std::string& yaml_text, const std::string& source,
                        const std::vector<std::string>& overrides = {});

}  // namespace trainsim
