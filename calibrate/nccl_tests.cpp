#include "nccl_tests.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_text.h"

namespace trainsim {
namespace {

// "all_reduce_perf" (or a path or file name containing it) -> "all_reduce"; "" if none.
std::string op_from(const std::string& name) {
  for (const auto& op : collective_op_names())
    if (name.find(op + "_perf") != std::string::npos) return op;
  return "";
}

// mpirun --tag-output prefixes lines with "[1,0]<stdout>:".
std::string strip_prefix(const std::string& line) {
  if (line.empty() || line[0] != '[') return line;
  const auto close = line.find("]<");
  if (close == std::string::npos) return line;
  const auto colon = line.find(">:", close);
  return colon == std::string::npos ? line : line.substr(colon + 2);
}

std::vector<std::string> tokens(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

bool number(const std::string& t, double& v) {
  char* end = nullptr;
  v = std::strtod(t.c_str(), &end);
  return end && *end == '\0' && !t.empty();
}

// A measured column must be a finite number ≥ 0 (nccl-tests prints "inf" or "nan" when a
// timer or a division failed; such a row would become an unreadable profile).
void check_measured(double v, const char* column, const std::string& where) {
  if (!std::isfinite(v) || v < 0)
    throw InputError(
        fmt::format("{}: {} is {}: expected a finite number ≥ 0 (a failed run? "
                    "rerun the test or delete the line)",
                    where, column, v));
}

// j[key] when j is an object holding key, else null (nlohmann's const operator[] on a missing
// key is undefined behaviour, not an exception).
const nlohmann::json* field(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::vector<CollectiveSample> parse_json(const nlohmann::json& j, const std::string& source) {
  std::string op;
  if (j.contains("args") && j["args"].is_array() && !j["args"].empty() && j["args"][0].is_string())
    op = op_from(j["args"][0].get<std::string>());
  if (op.empty()) op = op_from(std::filesystem::path(source).filename().string());
  if (op.empty())
    throw InputError(
        fmt::format("{}: args: cannot tell which collective this is (expected one "
                    "of {} as <op>_perf)",
                    source, fmt::join(collective_op_names(), ", ")));
  std::set<std::string> hosts;
  int ranks = 0;
  if (j.contains("config") && j["config"].contains("devices")) {
    const auto& devices = j["config"]["devices"];
    if (!devices.is_array())
      throw InputError(fmt::format("{}: config.devices: expected a list of devices, got {}", source,
                                   json_text(devices)));
    for (const auto& d : devices) {
      ++ranks;
      const nlohmann::json* host = field(d, "hostname");
      hosts.insert(host && host->is_string() ? host->get<std::string>() : "");
    }
  }
  if (ranks == 0)
    throw InputError(source + ": config.devices: no ranks listed; cannot tell the group size");
  if (!j.contains("results") || !j["results"].is_array())
    throw InputError(source + ": results: missing (not an nccl-tests -J file?)");
  std::vector<CollectiveSample> out;
  for (std::size_t i = 0; i < j["results"].size(); ++i) {
    const auto& r = j["results"][i];
    const nlohmann::json* o = field(r, "out_of_place");
    if (!o || !o->is_object()) o = field(r, "in_place");
    const nlohmann::json* size = field(r, "size");
    const nlohmann::json* time = o ? field(*o, "time") : nullptr;
    if (!size || !size->is_number() || !time || !time->is_number())
      throw InputError(
          fmt::format("{}: results[{}]: expected size and out_of_place.time", source, i));
    auto rate = [&](const char* key) {  // GB/s; absent is 0
      const nlohmann::json* v = field(*o, key);
      return v && v->is_number() ? v->get<double>() : 0.0;
    };
    CollectiveSample s;
    s.op = op;
    s.group_size = ranks;
    s.link = hosts.size() > 1 ? "inter_node" : "intra_node";
    s.bytes = size->get<double>();
    s.time_s = time->get<double>() * 1e-6;
    s.algbw = rate("alg_bw") * 1e9;
    s.busbw = rate("bus_bw") * 1e9;
    s.method = "nccl-tests";
    s.source = fmt::format("{}:results[{}]", source, i);
    check_measured(s.bytes, "size", s.source);
    check_measured(s.time_s, "time", s.source);
    check_measured(s.algbw, "alg_bw", s.source);
    check_measured(s.busbw, "bus_bw", s.source);
    if (s.bytes > 0 && s.time_s > 0) out.push_back(s);
  }
  return out;
}

}  // namespace

std::vector<CollectiveSample> parse_nccl_tests(const std::string& text, const std::string& source) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {  // also a number past double (1e864)
      throw InputError(fmt::format("{}: not valid JSON: {}", source, e.what()));
    }
    try {
      return parse_json(j, source);
    } catch (const nlohmann::json::exception& e) {  // a field of the wrong JSON type
      throw InputError(fmt::format("{}: a field has the wrong type: {}", source, e.what()));
    }
  }
  std::vector<CollectiveSample> out;
  std::string op = op_from(std::filesystem::path(source).filename().string());
  std::vector<int> ranks;
  std::set<std::string> hosts;
  bool new_test = false;  // a header started a test: its rank list starts afresh
  std::istringstream in(text);
  std::string raw;
  for (int ln = 1; std::getline(in, raw); ++ln) {
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    const std::string line = strip_prefix(raw);
    const auto t = tokens(line);
    if (t.empty()) continue;
    if (t[0] == "#") {
      if (line.find("Collective test starting:") != std::string::npos) {
        op = op_from(line);
        if (op.empty())
          throw InputError(fmt::format("{}:{}: \"{}\": not a collective trainsim uses ({})", source,
                                       ln, t.back(), fmt::join(collective_op_names(), ", ")));
        new_test = true;
      }
      // "#  Rank  0 Group  0 Pid  1 on host device 0 …" (older versions have no Group).
      const auto on = std::find(t.begin(), t.end(), "on");
      if (t.size() >= 5 && t[1] == "Rank" && on != t.end() && on + 1 != t.end()) {
        if (new_test) ranks.clear(), hosts.clear(), new_test = false;
        ranks.push_back(std::atoi(t[2].c_str()));
        hosts.insert(*(on + 1));
      }
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(t[0][0]))) continue;  // NCCL INFO, warnings…
    // size count type redop [root] time algbw busbw #wrong  time algbw busbw #wrong
    double size = 0, time = 0, algbw = 0, busbw = 0;
    const std::size_t at = t.size() >= 13 ? 5 : 4;
    if (t.size() < at + 3 || !number(t[0], size) || !number(t[at], time) ||
        !number(t[at + 1], algbw) || !number(t[at + 2], busbw))
      throw InputError(fmt::format(
          "{}:{}: cannot read this result line; expected size count type redop [root] time "
          "algbw busbw #wrong …, got \"{}\"",
          source, ln, line));
    if (op.empty())
      throw InputError(
          fmt::format("{}:{}: results before any \"# Collective test starting:\" "
                      "header, and the file name names no <op>_perf",
                      source, ln));
    if (ranks.empty())
      throw InputError(
          fmt::format("{}:{}: results before the \"# Using devices\" rank list: "
                      "cannot tell the group size",
                      source, ln));
    CollectiveSample s;
    s.op = op;
    s.group_size = static_cast<int>(ranks.size());
    s.link = hosts.size() > 1 ? "inter_node" : "intra_node";
    s.bytes = size;
    s.time_s = time * 1e-6;
    s.algbw = algbw * 1e9;
    s.busbw = busbw * 1e9;
    s.method = "nccl-tests";
    s.source = fmt::format("{}:{}", source, ln);
    check_measured(size, "size", s.source);
    check_measured(time, "time (us)", s.source);
    check_measured(algbw, "algbw", s.source);
    check_measured(busbw, "busbw", s.source);
    if (s.bytes > 0 && s.time_s > 0) out.push_back(s);
  }
  if (out.empty()) throw InputError(source + ": no nccl-tests result lines found");
  return out;
}

}  // namespace trainsim
