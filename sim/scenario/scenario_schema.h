#pragma once
// The scenario's keys in one table: every dotted path a scenario file (or `--set`) may give, in
// the order scenarios/README.md documents them. The loader takes each section's allowed keys
// from it (an unknown key is an error listing them), and a test checks the README's key table
// against it both ways, and each key's type, default and meaning here against the README row
// that names it (the GUI's knob tooltips read them from here). A list's entries are written
// "slowdown[]". The parsing of types and ranges is still scenario_loader.cpp's.
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

namespace trainsim {

struct SchemaKey {
  std::string_view path;  ///< "training.seq_len"; a section is the path of its keys' parent
  std::string_view type;  ///< type or unit, or the values allowed ("integer ≥ 1", "bytes", …)
  std::string_view default_value;  ///< "—" when none
  std::string_view doc;            ///< what it means (Markdown, as in scenarios/README.md)
};

/// Every key, sections included, in documentation order.
const std::vector<SchemaKey>& scenario_keys();

/// The keys directly under `section` ("" for the top level, "parallelism.fsdp", "slowdown[]"),
/// by their last name, in table order. Empty for an unknown section or a leaf.
std::vector<std::string> keys_under(std::string_view section);

/// The key at `path`, or nullptr.
const SchemaKey* find_key(std::string_view path);
/// True when some key lies under `path`.
bool is_section(std::string_view path);

}  // namespace trainsim
