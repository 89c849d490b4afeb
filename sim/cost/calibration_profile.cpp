#include "cost/calibration_profile.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/input_file.h"
#include "core/json_text.h"
#include "core/suggest.h"
#include "cost/cost_model.h"

namespace trainsim {
namespace {

using json = nlohmann::json;

// Far beyond any measurement, small enough that products of them stay exact in doubles.
constexpr double kMaxGemmDim = 1LL << 31;
constexpr double kMaxGroupSize = 1 << 24;  // the scenario's GPU limit

[[noreturn]] void bad(const std::string& source, const std::string& field, const std::string& why) {
  throw InputError(fmt::format("{}: {}: {}", source, field, why));
}

double positive(const json& j, const std::string& source, const std::string& field) {
  if (!j.contains(field.substr(field.rfind('.') + 1)))
    bad(source, field, "required (a positive number)");
  const json& v = j[field.substr(field.rfind('.') + 1)];
  if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>()))
    bad(source, field, "expected a positive number, got " + json_text(v));
  return v.get<double>();
}

double bounded(const json& j, const std::string& source, const std::string& field, double max,
               const char* unit) {
  const double v = positive(j, source, field);
  if (v > max)
    bad(source, field,
        fmt::format("{:g} {}: past any measurement (at most {:g}); a unit slip?", v, unit, max));
  return v;
}
double seconds(const json& j, const std::string& source, const std::string& field) {
  return bounded(j, source, field, kMaxSampleSeconds, "s");
}
double sample_bytes(const json& j, const std::string& source, const std::string& field) {
  return bounded(j, source, field, kMaxSampleBytes, "bytes");
}

// A count (a GEMM dimension, a group size): an integer in [1, max], so the casts that follow
// are exact.
std::int64_t count(const json& j, const std::string& source, const std::string& field, double max) {
  const double v = positive(j, source, field);
  if (v > max || v != std::floor(v))
    bad(source, field, fmt::format("expected an integer in [1, {}], got {}", max, v));
  return static_cast<std::int64_t>(v);
}

// An optional measured figure: `fallback` when absent, else a finite number >= 0.
double optional_number(const json& j, const std::string& source, const std::string& field,
                       double fallback) {
  const std::string key = field.substr(field.rfind('.') + 1);
  if (!j.is_object() || !j.contains(key)) return fallback;
  const json& v = j[key];
  if (!v.is_number() || !(v.get<double>() >= 0) || !std::isfinite(v.get<double>()))
    bad(source, field, "expected a number >= 0, got " + json_text(v));
  return v.get<double>();
}

std::string text(const json& j, const std::string& key, const std::string& fallback = "") {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}

// A text field: `fallback` when absent; present, it must be a string (a `"dtype": 16` is not
// read as the default bf16).
std::string text_field(const json& j, const std::string& source, const std::string& field,
                       const std::string& fallback = "") {
  const std::string key = field.substr(field.rfind('.') + 1);
  if (!j.contains(key)) return fallback;
  if (!j[key].is_string()) bad(source, field, "expected a string, got " + json_text(j[key]));
  return j[key].get<std::string>();
}

// Every field of the object at `at` is one this reader knows: a misspelt one ("gem" for
// "gemm", "time_ms") would otherwise be skipped and the profile read without it.
void known_fields(const json& j, const std::string& source, const std::string& at,
                  const std::vector<std::string>& known) {
  if (!j.is_object()) bad(source, at.empty() ? "profile" : at, "expected an object");
  for (const auto& [key, value] : j.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const auto near = nearest_name(key, known);
    bad(source, at.empty() ? key : at + "." + key,
        fmt::format("unknown field{}; expected {}",
                    near ? fmt::format(" (did you mean \"{}\"?)", *near) : "",
                    fmt::join(known, ", ")));
  }
}

// The first sample of a section whose key repeats an earlier one's: a profile holds one time
// per key (an importer merges repeats into their median), so two would leave which one prices
// the kernel to the order of the file.
template <typename Sample, typename Key>
void unique_keys(const std::vector<Sample>& samples, const std::string& source,
                 const std::string& section, Key key, const std::string& what) {
  std::map<decltype(key(samples.front())), std::size_t> first;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const auto [at, fresh] = first.emplace(key(samples[i]), i);
    if (!fresh)
      bad(source, fmt::format("{}[{}]", section, i),
          fmt::format("the same {} as {}[{}]: a profile holds one time per {} (keep one, or "
                      "their median)",
                      what, section, at->second, what));
  }
}

}  // namespace

double AttentionSample::flops() const {
  const double s = static_cast<double>(seq);
  const double f = 4.0 * s * s * static_cast<double>(head_dim) * static_cast<double>(heads) *
                   (causal ? 0.5 : 1.0);
  return pass == "backward" ? 2.5 * f : f;
}

std::tuple<std::int64_t, std::int64_t, std::int64_t, std::string> sample_key(const GemmSample& s) {
  return {s.m, s.n, s.k, s.dtype};
}
std::tuple<std::string, double> sample_key(const MemoryKernelSample& s) {
  return {s.kernel, s.bytes};
}
std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, bool> sample_key(
    const AttentionSample& s) {
  return {s.pass, s.seq, s.head_dim, s.heads, s.causal};
}
std::tuple<std::string, int, std::string, double> sample_key(const CollectiveSample& s) {
  return {s.op, s.group_size, s.link, s.bytes};
}

// Longest first, so that "GB200" is not read as "B200", nor "H200" as "H20".
std::string gpu_model(const std::string& name) {
  static const char* const kModels[] = {"GB300", "GB200", "B300", "B200", "H800",
                                        "H200",  "H100",  "A800", "A100", "L40S",
                                        "H20",   "L40",   "A30",  "A10",  "L4"};
  std::string upper = name;
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  for (const char* m : kModels)
    for (std::size_t at = upper.find(m); at != std::string::npos; at = upper.find(m, at + 1)) {
      const std::size_t end = at + std::string_view(m).size();
      const bool alone =
          (at == 0 || !std::isalnum(static_cast<unsigned char>(upper[at - 1]))) &&
          (end == upper.size() || !std::isdigit(static_cast<unsigned char>(upper[end])));
      if (alone) return m;
    }
  return "";
}

namespace {
std::string upper_case(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

// "PCIe", "NVL", "SXM" or "" (not said).
std::string form_factor(const std::string& name) {
  const std::string u = upper_case(name), model = gpu_model(name);
  if (u.find("PCIE") != std::string::npos) return "PCIe";
  if ((model == "H100" || model == "H200") && u.find("NVL") != std::string::npos) return "NVL";
  if (u.find("SXM") != std::string::npos) return "SXM";
  if (model == "H100" && u.find("HBM3") != std::string::npos) return "SXM";  // "H100 80GB HBM3"
  return "";
}

// The memory size a name states ("40GB", "80gb"), in GB; 0 when none.
int memory_gb(const std::string& name) {
  const std::string u = upper_case(name);
  for (std::size_t at = u.find("GB"); at != std::string::npos; at = u.find("GB", at + 1)) {
    std::size_t begin = at;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(u[begin - 1]))) --begin;
    if (begin < at && (begin == 0 || !std::isalnum(static_cast<unsigned char>(u[begin - 1]))))
      return std::atoi(u.substr(begin, at - begin).c_str());
  }
  return 0;
}
}  // namespace

std::string gpu_mismatch(const std::string& a, const std::string& b) {
  const std::string ma = gpu_model(a), mb = gpu_model(b);
  if (!ma.empty() && !mb.empty() && ma != mb) return fmt::format("{} against {}", ma, mb);
  if (ma.empty() || mb.empty()) return "";
  const std::string fa = form_factor(a), fb = form_factor(b);
  if (!fa.empty() && !fb.empty() && fa != fb)
    return fmt::format("{} {} against {} {}", ma, fa, mb, fb);
  const int ga = memory_gb(a), gb = memory_gb(b);
  if (ga > 0 && gb > 0 && ga != gb) return fmt::format("{} {} GB against {} GB", ma, ga, gb);
  return "";
}

const std::vector<std::string>& collective_op_names() {
  static const std::vector<std::string> names{"all_reduce", "all_gather", "reduce_scatter",
                                              "alltoall", "sendrecv"};
  return names;
}

double op_bus_factor(const std::string& op, int n) {
  if (op == "sendrecv") return 1.0;
  return busbw_factor(op == "all_reduce" ? Collective::AllReduce : Collective::AllGather, n);
}

json profile_to_json(const CalibrationProfile& p) {
  json j;
  j["format"] = "trainsim-calibration";
  j["version"] = CalibrationProfile::kVersion;
  const Provenance& v = p.provenance;
  j["provenance"] = {{"device", v.device}, {"driver", v.driver}, {"cuda", v.cuda},
                     {"cublas", v.cublas}, {"nccl", v.nccl},     {"date", v.date},
                     {"host", v.host}};
  j["gemm"] = json::array();
  for (const auto& g : p.gemms)
    j["gemm"].push_back({{"m", g.m},
                         {"n", g.n},
                         {"k", g.k},
                         {"dtype", g.dtype},
                         {"time_s", g.time_s},
                         {"spread_s", g.spread_s},
                         {"method", g.method},
                         {"source", g.source}});
  j["memory"] = json::array();
  for (const auto& m : p.memory)
    j["memory"].push_back({{"kernel", m.kernel},
                           {"bytes", m.bytes},
                           {"time_s", m.time_s},
                           {"spread_s", m.spread_s},
                           {"method", m.method},
                           {"source", m.source}});
  j["attention"] = json::array();
  for (const auto& a : p.attention)
    j["attention"].push_back({{"pass", a.pass},
                              {"seq", a.seq},
                              {"head_dim", a.head_dim},
                              {"heads", a.heads},
                              {"causal", a.causal},
                              {"time_s", a.time_s},
                              {"spread_s", a.spread_s},
                              {"method", a.method},
                              {"source", a.source}});
  j["collectives"] = json::array();
  for (const auto& c : p.collectives)
    j["collectives"].push_back({{"op", c.op},
                                {"group_size", c.group_size},
                                {"link", c.link},
                                {"bytes", c.bytes},
                                {"time_s", c.time_s},
                                {"spread_s", c.spread_s},
                                {"algbw_Bps", c.algbw},
                                {"busbw_Bps", c.busbw},
                                {"method", c.method},
                                {"source", c.source}});
  return j;
}

CalibrationProfile profile_from_json(const json& j, const std::string& source) {
  if (!j.is_object() || text(j, "format") != "trainsim-calibration")
    bad(source, "format",
        "not a trainsim calibration profile (expected \"format\": "
        "\"trainsim-calibration\": trainsim-calibrate writes them; calibrate/profiles/ holds "
        "those of the GPUs this project measured)");
  if (!j.contains("version") || !j["version"].is_number_integer() ||
      j["version"] != CalibrationProfile::kVersion)  // compared as numbers: 2^32 + 1 is not 1
    bad(source, "version",
        fmt::format("this trainsim reads version {}", CalibrationProfile::kVersion));
  known_fields(j, source, "",
               {"format", "version", "provenance", "gemm", "memory", "attention", "collectives"});
  CalibrationProfile p;
  if (j.contains("provenance")) {
    const json& v = j["provenance"];
    known_fields(v, source, "provenance",
                 {"device", "driver", "cuda", "cublas", "nccl", "date", "host"});
    auto field = [&](const char* key) {
      return text_field(v, source, "provenance." + std::string(key));
    };
    p.provenance = {field("device"), field("driver"), field("cuda"), field("cublas"),
                    field("nccl"),   field("date"),   field("host")};
  }
  if (j.contains("gemm")) {
    if (!j["gemm"].is_array()) bad(source, "gemm", "expected a list");
    for (std::size_t i = 0; i < j["gemm"].size(); ++i) {
      const json& g = j["gemm"][i];
      const std::string at = fmt::format("gemm[{}]", i);
      known_fields(g, source, at,
                   {"m", "n", "k", "dtype", "time_s", "spread_s", "method", "source"});
      GemmSample s;
      s.m = count(g, source, at + ".m", kMaxGemmDim);
      s.n = count(g, source, at + ".n", kMaxGemmDim);
      s.k = count(g, source, at + ".k", kMaxGemmDim);
      s.dtype = text_field(g, source, at + ".dtype", "bf16");
      if (s.dtype != "bf16" && s.dtype != "fp16")
        bad(source, at + ".dtype", "expected bf16 or fp16, got \"" + s.dtype + "\"");
      s.time_s = seconds(g, source, at + ".time_s");
      s.spread_s = optional_number(g, source, at + ".spread_s", 0.0);
      s.method = text_field(g, source, at + ".method", "measured");
      s.source = text_field(g, source, at + ".source");
      p.gemms.push_back(s);
    }
  }
  if (j.contains("memory")) {
    if (!j["memory"].is_array()) bad(source, "memory", "expected a list");
    for (std::size_t i = 0; i < j["memory"].size(); ++i) {
      const json& m = j["memory"][i];
      const std::string at = fmt::format("memory[{}]", i);
      known_fields(m, source, at, {"kernel", "bytes", "time_s", "spread_s", "method", "source"});
      MemoryKernelSample s;
      s.kernel = text_field(m, source, at + ".kernel", "copy");
      if (s.kernel != "copy")
        bad(source, at + ".kernel", "expected copy, got \"" + s.kernel + "\"");
      s.bytes = sample_bytes(m, source, at + ".bytes");
      s.time_s = seconds(m, source, at + ".time_s");
      s.spread_s = optional_number(m, source, at + ".spread_s", 0.0);
      s.method = text_field(m, source, at + ".method", "measured");
      s.source = text_field(m, source, at + ".source");
      p.memory.push_back(s);
    }
  }
  if (j.contains("attention")) {
    if (!j["attention"].is_array()) bad(source, "attention", "expected a list");
    for (std::size_t i = 0; i < j["attention"].size(); ++i) {
      const json& a = j["attention"][i];
      const std::string at = fmt::format("attention[{}]", i);
      known_fields(
          a, source, at,
          {"pass", "seq", "head_dim", "heads", "causal", "time_s", "spread_s", "method", "source"});
      AttentionSample s;
      s.pass = text_field(a, source, at + ".pass", "forward");
      if (s.pass != "forward" && s.pass != "backward")
        bad(source, at + ".pass", "expected forward or backward, got \"" + s.pass + "\"");
      s.seq = count(a, source, at + ".seq", kMaxGemmDim);
      s.head_dim = count(a, source, at + ".head_dim", kMaxGemmDim);
      s.heads = count(a, source, at + ".heads", kMaxGemmDim);
      if (a.contains("causal")) {
        if (!a["causal"].is_boolean()) bad(source, at + ".causal", "expected true or false");
        s.causal = a["causal"].get<bool>();
      }
      s.time_s = seconds(a, source, at + ".time_s");
      s.spread_s = optional_number(a, source, at + ".spread_s", 0.0);
      s.method = text_field(a, source, at + ".method", "measured");
      s.source = text_field(a, source, at + ".source");
      p.attention.push_back(s);
    }
  }
  if (j.contains("collectives")) {
    if (!j["collectives"].is_array()) bad(source, "collectives", "expected a list");
    for (std::size_t i = 0; i < j["collectives"].size(); ++i) {
      const json& c = j["collectives"][i];
      const std::string at = fmt::format("collectives[{}]", i);
      known_fields(c, source, at,
                   {"op", "group_size", "link", "bytes", "time_s", "spread_s", "algbw_Bps",
                    "busbw_Bps", "method", "source"});
      CollectiveSample s;
      s.op = text_field(c, source, at + ".op");
      const auto& ops = collective_op_names();
      if (std::find(ops.begin(), ops.end(), s.op) == ops.end())
        bad(source, at + ".op", fmt::format("\"{}\" is not one of {}", s.op, fmt::join(ops, ", ")));
      s.group_size = static_cast<int>(count(c, source, at + ".group_size", kMaxGroupSize));
      s.link = text_field(c, source, at + ".link", "intra_node");
      if (s.link != "intra_node" && s.link != "inter_node")
        bad(source, at + ".link", "expected intra_node or inter_node, got \"" + s.link + "\"");
      s.bytes = sample_bytes(c, source, at + ".bytes");
      s.time_s = seconds(c, source, at + ".time_s");
      s.spread_s = optional_number(c, source, at + ".spread_s", 0.0);
      s.algbw = optional_number(c, source, at + ".algbw_Bps", s.bytes / s.time_s);
      s.busbw = optional_number(c, source, at + ".busbw_Bps", 0.0);
      s.method = text_field(c, source, at + ".method", "measured");
      s.source = text_field(c, source, at + ".source");
      p.collectives.push_back(s);
    }
  }
  unique_keys(
      p.gemms, source, "gemm", [](const auto& x) { return sample_key(x); },
      "shape (m, n, k, dtype)");
  unique_keys(
      p.memory, source, "memory", [](const auto& x) { return sample_key(x); }, "kernel and size");
  unique_keys(
      p.attention, source, "attention", [](const auto& x) { return sample_key(x); },
      "pass and shape (seq, head_dim, heads, causal)");
  unique_keys(
      p.collectives, source, "collectives", [](const auto& x) { return sample_key(x); },
      "operation, group size, link and size");
  return p;
}

CalibrationProfile load_profile(const std::string& path) {
  return parse_profile(read_input_file(path, "calibration profile"), path);
}

CalibrationProfile parse_profile(const std::string& text, const std::string& path) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // also a number past double (1e864)
    throw InputError(fmt::format("{}: not JSON: {}", path, e.what()));
  }
  try {
    return profile_from_json(j, path);
  } catch (const json::exception& e) {  // a field of the wrong JSON type
    throw InputError(fmt::format("{}: a field has the wrong type: {}", path, e.what()));
  }
}

void save_profile(const CalibrationProfile& p, const std::string& path) {
  write_output_file(path, json_text(profile_to_json(p), 2) + "\n", "calibration profile");
}

}  // namespace trainsim
