#pragma once
// JSON as text for output and messages. Strings from users (a scenario name, a path, a bad
// value) may hold bytes that are not UTF-8; they become U+FFFD instead of an exception.
#include <string>  // std::string

#include <nlohmann/json.hpp>

namespace trainsim {

/// `j` as text: one line (indent -1) or pretty-printed with `indent` spaces.
inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace trainsim
