#pragma once
// "Did you mean …?": the known name nearest a misspelt one, for error messages (unknown
// commands, scenario keys).
#include <cstddef>      // std::size_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

namespace trainsim {

/// `s` in ASCII lower case (names compared without their case).
std::string lowercase(std::string_view s);

/// Edit distance: single-character insertions, deletions, substitutions and swaps of two
/// neighbours ("zeor" is one edit from "zero"; optimal string alignment).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The name of `known` nearest `name` when close enough to be a slip of the keyboard: at most 2
/// edits, case not counted, and fewer than half of `name`'s characters (so "tp" does not suggest
/// "pp"); the first of equally near ones. Failing that, a name that one of them begins with or
/// that begins with one, spelt out or cut short ("seq_length" for seq_len), the shorter of the
/// two at least 5 characters and half the longer. nullopt when none is, or `name` is itself
/// known.
std::optional<std::string> nearest_name(std::string_view name,
                                        const std::vector<std::string>& known);

}  // namespace trainsim
