#pragma once
// The scenario's keys in one table: every dotted path a scenario file (or `--set`) may give, in
// the order scenarios/README.md documents them, each with its type text, default and meaning (the
// README's row, checked cell by cell by a test), the rule its value is read by (kind, range,
// allowed names, unit) and where the value goes in a Scenario. The loader walks this table: a
// section's allowed keys, each key's parsing and range, and putting the value in place all come
// from the row; only the few rules between keys (a preset under a model's keys, the batch given
// two ways, …) are the loader's own code. validate() checks edited values against the same
// ranges, and the GUI's knobs take their ranges, choices, values and tooltips from here.
//
// The table is also the read order: a key's `apply` may look at keys of rows above it (a
// 16-bit `grad_reduce_dtype` is the training precision's name; a single stage time is repeated
// `parallelism.pp` times).
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "core/quantity.h"
#include "scenario/scenario.h"

namespace trainsim {

/// What a key's value must be.
struct ValueRule {
  enum class Kind {
    None,      ///< a section, or a key its section's own code reads (a model preset, …)
    Map,       ///< a section whose keys are read from their rows
    List,      ///< a list of maps; each entry's keys are the rows under "path[]"
    Text,      ///< any scalar text
    Path,      ///< a file path, relative to the scenario file's folder
    Integer,   ///< in [min, max]
    Number,    ///< a real in [min, max]
    Bool,      ///< true / false
    Choice,    ///< one of `choices` (their index is the enum's value)
    Quantity,  ///< a number with a unit of `dim` ("3.4us", "80GB"), ≥ 0 or, `positive`, > 0
    Times,     ///< a time, or a list of times (one per pipeline stage)
    Ranks,     ///< a non-empty list of integers in [min, max]
    Integers,  ///< the same, read as counts (its message asks for integers, not ranks)
  };
  Kind kind = Kind::None;
  double min = 0, max = 0;
  std::vector<std::string_view> choices;
  /// Choice: other tools' names for a value ({theirs, what to write here}), refused like any
  /// other but answered in the error ("p2p" → "did you mean ring?").
  std::vector<std::pair<std::string_view, std::string_view>> known_as;
  Dimension dim = Dimension::Time;
  bool positive = false;  ///< Quantity: > 0, and a rate at least its range's floor
  bool percent = false;   ///< Number: a fraction, also written as a percentage ("11.5%")
};

/// A value read by its key's rule.
struct KeyValue {
  long long integer = 0;  ///< Integer; Choice: the index; Quantity of time: nanoseconds
  double number = 0;      ///< Number; Quantity: SI units (seconds, bytes, B/s, FLOP/s, dollars)
  bool flag = false;      ///< Bool
  std::string text;       ///< Text; Path (resolved); Choice: the name
  std::vector<long long> items;  ///< Times: nanoseconds each; Ranks; Integers
  bool one_item = false;         ///< Times: a single time was given (it applies to every stage)
};

/// Puts `v` into the scenario; returns "" or why the value cannot be taken here (the loader
/// reports it at the key's file and line).
using ApplyFn = std::string (*)(Scenario& s, const KeyValue& v);
/// The value the scenario holds at the key; nullopt when it has none (no model, an optional
/// left unset, a list entry).
using GetFn = std::optional<KeyValue> (*)(const Scenario& s);

/// How a key's value gets into and out of a Scenario.
struct KeyAccess {
  ApplyFn apply = nullptr;  ///< null: its section's own code puts it (rule None, or read there)
  GetFn get = nullptr;
};

struct SchemaKey {
  std::string_view path;  ///< "training.seq_len"; a section is the path of its keys' parent
  std::string_view type;  ///< type or unit, or the values allowed ("integer ≥ 1", "bytes", …)
  std::string_view default_value;  ///< "—" when none
  std::string_view doc;            ///< what it means (Markdown, as in scenarios/README.md)
  ValueRule rule;
  KeyAccess access;
};

/// Every key, sections included, in documentation (and read) order.
const std::vector<SchemaKey>& scenario_keys();

/// The keys directly under `section` ("" for the top level, "parallelism.fsdp", "slowdown[]"),
/// by their last name, in table order. Empty for an unknown section or a leaf.
std::vector<std::string> keys_under(std::string_view section);
/// The same keys' rows.
std::vector<const SchemaKey*> rows_under(std::string_view section);

/// The key at `path`, or nullptr.
const SchemaKey* find_key(std::string_view path);
/// True when some key lies under `path`.
bool is_section(std::string_view path);

/// The keys under `section` with a getter and the scenario's value at each (nullopt: none, as
/// `recompute_layers` 0, "every layer"), in table order: what `--json` echoes of the section.
std::vector<std::pair<const SchemaKey*, std::optional<KeyValue>>> values_under(
    std::string_view section, const Scenario& s);

/// The scenario's value at `key` as YAML text ("4", "full", "3.4e-06s"), nullopt when the key
/// has no getter or the scenario no value there.
std::optional<std::string> show_value(const SchemaKey& key, const Scenario& s);

/// Every key with a getter, in table order, with the scenario's value as show_value writes it
/// ("—": none there): what two scenarios are compared by (`trainsim check`'s setting changes).
/// Keys without a getter are not in it: `description`, the presets (their keys are),
/// `training.microbatches` (`training.global_batch_size` is), `costs.*` and `slowdown[]`.
std::vector<std::pair<std::string, std::string>> setting_values(const Scenario& s);

}  // namespace trainsim
