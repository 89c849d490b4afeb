#pragma once
// Reads a scenario YAML file (keys documented in scenarios/README.md), applies `--set` overrides
// and validates every field. Any problem throws ScenarioError naming file, line, key, the value
// and what is allowed; nothing is half-loaded.
#include <functional>  // std::function
#include <optional>
#include <string>  // std::string
#include <vector>  // std::vector

#include "scenario/scenario.h"

namespace trainsim {

/// A change code makes to a parsed scenario's values before they are validated (the layout
/// search reads a layout sized for other GPUs with the dp that fills them); it names what it
/// sets with Scenario::set_origin.
using ScenarioAdjust = std::function<void(Scenario&)>;

/// Loads `path`, applying each override "dotted.key=value" (value in YAML syntax) in order, then
/// `adjust`, then validate(). Throws ScenarioError.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {},
                       const ScenarioAdjust& adjust = {});

/// Same, from YAML text; `source` names it in messages and resolves relative paths (hf_config).
Scenario parse_scenario(const std::string& yaml_text, const std::string& source,
                        const std::vector<std::string>& overrides = {},
                        const ScenarioAdjust& adjust = {});

/// Why `path` cannot be edited on a loaded scenario (set_value: `--vary` and the GUI), or
/// nullopt: an unknown key with the keys its section allows, a key that is a value not a
/// section, a key only the file (or `--set`, read with it) can give.
std::optional<std::string> edit_refusal(const std::string& path);

/// Edits one value of a loaded scenario, as `--set` edits a file: `assignment` is
/// "dotted.key=value" (value in YAML syntax), read by the key's rule in the schema
/// (scenario_schema.h) and put in place; `by` becomes the key's origin and names it in errors
/// ("--vary parallelism.zero=1"). `training.microbatches` sets the global batch to
/// m × dp × micro_batch_size (the values at the time). A key that only the file can give (a
/// section, a model or GPU preset, a schedule option, a list entry) is refused by name. Does not
/// validate: call validate() after the last edit. Throws ScenarioError.
void set_value(Scenario& s, const std::string& assignment, const std::string& by);

}  // namespace trainsim
