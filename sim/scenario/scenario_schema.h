#pragma once
// The scenario's keys in one table: every dotted path a scenario file (or `--set`) may give, in
// the order scenarios/README.md documents them. The loader takes each section's allowed keys
// from it (an unknown key is an error listing them), and a test checks the README's key table
// against it both ways. A list's entries are written "slowdown[]". Types, ranges and defaults
// are still read in scenario_loader.cpp and documented in the README.
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

namespace trainsim {

struct SchemaKey {
  std::string_view path;  ///< "training.seq_len"; a section is the path of its keys' parent
};

/// Every key, sections included, in documentation order.
const std::vector<SchemaKey>& scenario_keys();

/// The keys directly under `section` ("" for the top level, "parallelism.fsdp", "slowdown[]"),
/// by their last name, in table order. Empty for an unknown section or a leaf.
std::vector<std::string> keys_under(std::string_view section);

/// True when some key lies under `path`.
bool is_section(std::string_view path);

}  // namespace trainsim
