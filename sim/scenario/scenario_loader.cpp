#include "scenario/scenario_loader.h"

#include <algorithm>
#include <cassert>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/input_file.h"
#include "core/json_text.h"
#include "core/quantity.h"
#include "core/suggest.h"
#include "scenario/hf_config.h"
#include "scenario/limits.h"
#include "scenario/scenario_schema.h"
#include "scenario/validate_scenario.h"

namespace trainsim {
namespace {

using namespace limits;

std::string join(const std::vector<std::string>& v) {
  return fmt::format("{}", fmt::join(v, ", "));
}

// " (did you mean X?)" for an unknown key `key` under `section` ("" the top level): the same
// name in another section ("training.tp": parallelism.tp), else the nearest allowed name here
// ("seq_lenn": seq_len); "" when neither.
std::string unknown_key_hint(const std::string& section, const std::string& key,
                             const std::vector<std::string>& allowed) {
  std::vector<std::string> elsewhere;
  for (const SchemaKey& k : scenario_keys()) {
    const std::string_view path = k.path;
    const auto dot = path.find_last_of('.');
    const std::string_view parent = dot == std::string_view::npos ? "" : path.substr(0, dot);
    const std::string_view leaf = dot == std::string_view::npos ? path : path.substr(dot + 1);
    if (leaf == key && parent != section && path.find('[') == std::string_view::npos)
      elsewhere.emplace_back(path);
  }
  if (!elsewhere.empty()) return fmt::format(" (did you mean {}?)", fmt::join(elsewhere, " or "));
  if (const auto near = nearest_name(key, allowed))
    return fmt::format(" (did you mean {}?)", section.empty() ? *near : section + "." + *near);
  return "";
}

std::string show(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsScalar()) return "\"" + n.Scalar() + "\"";
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

/// The offset of the first byte that is not part of well-formed UTF-8 (RFC 3629: no overlong
/// forms, no surrogates, at most U+10FFFF), or npos. YAML is Unicode text; names go into JSON.
std::size_t invalid_utf8_at(std::string_view t) {
  std::size_t i = 0;
  while (i < t.size()) {
    const auto c = static_cast<unsigned char>(t[i]);
    std::size_t n = 0;
    unsigned lo = 0x80, hi = 0xBF;  // the allowed range of the first continuation byte
    if (c < 0x80)
      n = 0;
    else if (c >= 0xC2 && c <= 0xDF)
      n = 1;
    else if (c == 0xE0)
      n = 2, lo = 0xA0;
    else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
      n = 2;
    else if (c == 0xED)
      n = 2, hi = 0x9F;
    else if (c == 0xF0)
      n = 3, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3)
      n = 3;
    else if (c == 0xF4)
      n = 3, hi = 0x8F;
    else
      return i;
    for (std::size_t k = 1; k <= n; ++k) {
      if (i + k >= t.size()) return i;
      const auto b = static_cast<unsigned char>(t[i + k]);
      if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return i;
    }
    i += n + 1;
  }
  return std::string_view::npos;
}

/// What a scenario's quantities may be (scenarios/README.md, "Limits"): far beyond real
/// hardware, small enough that every duration derived from them fits int64 nanoseconds.
struct QuantityRange {
  double max;
  const char* max_text;
  double min_rate;  ///< positive rates: the smallest accepted
  const char* min_text;
};

QuantityRange quantity_range(Dimension dim) {
  switch (dim) {
    case Dimension::Time:
      return {1e6, "1e6s (11.6 days)", 0, ""};
    case Dimension::Bytes:
      return {1e18, "1EB", 1, "1B"};
    case Dimension::Bandwidth:
      return {1e16, "10PB/s", 1e3, "1kB/s"};
    case Dimension::Flops:
      return {1e18, "1EFLOPS", 1e6, "1MFLOPS"};
    case Dimension::Money:
      return {1e9, "1e9 (dollars)", 0, ""};
  }
  return {0, "", 0, ""};
}

/// A node together with its dotted key path, for messages.
struct Field {
  YAML::Node node;
  std::string path;
  YAML::Mark mark;  ///< the node's own mark, or its parent's when the key is missing
  bool present() const { return node.IsDefined() && !node.IsNull(); }
};

class Reader {
 public:
  Reader(std::string source, std::map<std::string, std::string> overridden)
      : source_(std::move(source)), overridden_(std::move(overridden)) {}

  const std::string& source() const { return source_; }

  [[noreturn]] void fail(const Field& f, const std::string& msg) const {
    throw ScenarioError(where(f), f.path, msg);
  }

  std::string where(const Field& f) const {
    // An overridden key (or a parent of it) is reported as the override that set it: the
    // nearest (`--set schedule.memory_limit=…` before `--set schedule=…` for that option).
    const std::string* by = nullptr;
    std::size_t longest = 0;
    for (const auto& [path, origin] : overridden_)
      if ((f.path == path || f.path.rfind(path + ".", 0) == 0 ||
           f.path.rfind(path + "[", 0) == 0) &&
          (!by || path.size() > longest)) {
        by = &origin;
        longest = path.size();
      }
    if (by) return *by;
    if (f.mark.line >= 0) return fmt::format("{}:{}", source_, f.mark.line + 1);
    return source_;
  }

  /// The override that set `path` or a key under it ("--set schedule.name=…" for "schedule"),
  /// or "": what the whole of such a section says is the override's doing.
  std::string override_under(const std::string& path) const {
    for (const auto& [p, origin] : overridden_)
      if (p == path || p.rfind(path + ".", 0) == 0) return origin;
    return "";
  }

  /// Whether the value at `path` came from a --set edit (of it or of a section above it).
  bool from_command_line(const std::string& path) const {
    for (const auto& [p, origin] : overridden_)
      if (path == p || path.rfind(p + ".", 0) == 0) return true;
    return false;
  }

  Field child(const Field& parent, const std::string& key) const {
    std::string path = parent.path.empty() ? key : parent.path + "." + key;
    if (parent.node.IsDefined() && parent.node.IsMap()) {
      const YAML::Node& map = parent.node;  // const: a lookup must not insert the key
      YAML::Node n = map[key];
      if (n.IsDefined()) {
        Field f{n, std::move(path), n.Mark().line >= 0 ? n.Mark() : parent.mark};
        origins_[f.path] = where(f);
        return f;
      }
    }
    return {YAML::Node(), std::move(path), parent.mark};  // absent: a valid null node
  }

  void expect_map(const Field& f, const std::vector<std::string>& allowed) const {
    if (!f.node.IsMap())
      fail(f, fmt::format("expected a map with keys {}, got {}", join(allowed), show(f.node)));
    for (const auto& kv : f.node) {
      const std::string key = kv.first.as<std::string>();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        Field bad{kv.second, f.path.empty() ? key : f.path + "." + key, kv.first.Mark()};
        fail(bad, fmt::format("unknown key \"{}\"{}; allowed keys here: {}", key,
                              unknown_key_hint(f.path, key, allowed), join(allowed)));
      }
    }
  }

  std::string str(const Field& f) const {
    if (!f.node.IsScalar()) fail(f, "expected a text value, got " + show(f.node));
    return f.node.Scalar();
  }

  long long integer(const Field& f, long long min, long long max = 1LL << 50) const {
    // One wording whatever is wrong (not a number, a fraction, out of range): the range, its
    // upper end only where a key has a tight one or the value is past it.
    const std::string range = fmt::format("expected an integer in [{}, {}]", min, max);
    const std::string want =
        max >= (1LL << 30) ? fmt::format("expected an integer >= {}", min) : range;
    long long v = 0;
    if (!f.node.IsScalar() || !YAML::convert<long long>::decode(f.node, v))
      fail(f, fmt::format("{}, got {}", want, show(f.node)));
    if (v < min) fail(f, fmt::format("{}, got {}", want, v));
    if (v > max) fail(f, fmt::format("{}, got {}", range, v));
    return v;
  }

  /// A number in [min, max]; with `percent`, also as a percentage of 1 ("11.5%" is 0.115).
  double number(const Field& f, double min, double max, bool percent = false) const {
    double v = 0;
    bool read = f.node.IsScalar() && YAML::convert<double>::decode(f.node, v);
    if (!read && percent && f.node.IsScalar()) {
      const std::string& text = f.node.Scalar();
      if (text.size() > 1 && text.back() == '%') {
        YAML::Node digits(text.substr(0, text.size() - 1));
        read = YAML::convert<double>::decode(digits, v);
        v /= 100;
      }
    }
    if (!read || !(v >= min && v <= max))
      fail(f, fmt::format("expected a number in [{}, {}]{}, got {}", min, max,
                          percent ? fmt::format(" or a percentage, {}–{}%", min * 100, max * 100)
                                  : std::string(),
                          show(f.node)));
    return v;
  }

  bool boolean(const Field& f) const {
    bool v = false;
    if (!f.node.IsScalar() || !YAML::convert<bool>::decode(f.node, v))
      fail(f, "expected true or false, got " + show(f.node));
    return v;
  }

  double quantity(const Field& f, Dimension dim) const {
    if (!f.node.IsScalar()) fail(f, "expected a quantity with a unit, got " + show(f.node));
    std::string err;
    auto v = parse_quantity(f.node.Scalar(), dim, &err);
    if (!v) fail(f, err);
    const QuantityRange range = quantity_range(dim);
    if (!(*v <= range.max))  // also inf: "1e308TB" overflows once scaled
      fail(f, fmt::format("{} is too large: at most {}", show(f.node), range.max_text));
    return *v;
  }

  /// A quantity > 0; rates (bandwidth, FLOP/s) also at least their range's minimum, so no
  /// duration computed from them overflows.
  double positive_quantity(const Field& f, Dimension dim) const {
    const double v = quantity(f, dim);
    if (v <= 0) fail(f, fmt::format("expected a quantity > 0, got {}", show(f.node)));
    const QuantityRange range = quantity_range(dim);
    if (v < range.min_rate)
      fail(f, fmt::format("{} is too small: at least {}", show(f.node), range.min_text));
    return v;
  }

  TimeNs duration(const Field& f) const { return seconds_to_ns(quantity(f, Dimension::Time)); }

  /// `f`'s value by its key's rule (scenario_schema.h).
  KeyValue value(const Field& f, const ValueRule& rule) const {
    using Kind = ValueRule::Kind;
    KeyValue v;
    const auto min = static_cast<long long>(rule.min), max = static_cast<long long>(rule.max);
    switch (rule.kind) {
      case Kind::Text:
        v.text = str(f);
        break;
      case Kind::Path: {
        // Relative to the scenario file's folder. A --set value typed in a shell names a path
        // from the current folder: taken from there when the scenario's folder has no such file
        // (`--set calibration=calibrate/profiles/h100-sxm.json` on scenarios/default.yaml).
        const std::filesystem::path given = str(f);
        std::filesystem::path p = given;
        if (p.is_relative()) p = std::filesystem::path(base_dir()) / p;
        std::error_code ec;
        if (given.is_relative() && from_command_line(f.path) && !std::filesystem::exists(p, ec)) {
          if (!std::filesystem::exists(given, ec))
            fail(f, fmt::format("no such file in the scenario's folder ({}) nor in the current "
                                "folder ({})",
                                p.string(), given.string()));
          p = given;
        }
        v.text = p.string();
        break;
      }
      case Kind::Integer:
        v.integer = integer(f, min, max);
        break;
      case Kind::Number:
        v.number = number(f, rule.min, rule.max, rule.percent);
        break;
      case Kind::Bool:
        v.flag = boolean(f);
        break;
      case Kind::Choice: {
        std::vector<std::string> names(rule.choices.begin(), rule.choices.end());
        for (std::size_t i = 0; f.node.IsScalar() && i < names.size(); ++i)
          if (f.node.Scalar() == names[i]) {
            v.integer = static_cast<long long>(i);
            v.text = names[i];
            return v;
          }
        // Another tool's name for a value ("p2p"), else a slip of the keyboard ("all_to_al").
        std::optional<std::string> near;
        for (const auto& [theirs, ours] : rule.known_as)
          if (f.node.IsScalar() && !near && lowercase(f.node.Scalar()) == theirs)
            near = std::string(ours);
        if (!near && f.node.IsScalar()) near = nearest_name(f.node.Scalar(), names);
        fail(f, fmt::format("expected one of {}, got {}{}", join(names), show(f.node),
                            near ? " (did you mean " + *near + "?)" : std::string()));
      }
      case Kind::Quantity:
        v.number = rule.positive ? positive_quantity(f, rule.dim) : quantity(f, rule.dim);
        if (rule.dim == Dimension::Time) v.integer = seconds_to_ns(v.number);
        break;
      case Kind::Times:
        if (f.node.IsSequence()) {  // one per stage: validate() checks the count
          for (std::size_t i = 0; i < f.node.size(); ++i)
            v.items.push_back(
                duration(Field{f.node[i], fmt::format("{}[{}]", f.path, i), f.node[i].Mark()}));
        } else {
          v.items.push_back(duration(f));
          v.one_item = true;
        }
        break;
      case Kind::Ranks:
      case Kind::Integers:
        if (!f.node.IsSequence() || f.node.size() == 0)
          fail(f, rule.kind == Kind::Ranks ? "expected a non-empty list of global ranks"
                                           : "expected a non-empty list of integers");
        for (std::size_t i = 0; i < f.node.size(); ++i)
          v.items.push_back(
              integer(Field{f.node[i], fmt::format("{}[{}]", f.path, i), f.mark}, min, max));
        break;
      case Kind::None:
      case Kind::Map:
      case Kind::List:
        assert(false && "a section has no value of its own");
    }
    return v;
  }

  /// Reads `f` by `key`'s rule and puts the value into `s`; an objection of the key's own
  /// (scenario_schema.h's ApplyFn) is reported at `f`.
  void apply(const SchemaKey& key, const Field& f, Scenario& s) const {
    assert(key.access.apply);
    if (std::string err = key.access.apply(s, value(f, key.rule)); !err.empty()) fail(f, err);
  }

  /// The folder relative paths are taken from: the scenario file's.
  std::string base_dir() const { return std::filesystem::path(source_).parent_path().string(); }

  /// Where each key read so far came from (Scenario::origins).
  const std::map<std::string, std::string>& origins() const { return origins_; }

 private:
  std::string source_;
  std::map<std::string, std::string> overridden_;  ///< dotted path -> "--set key=value"
  mutable std::map<std::string, std::string> origins_;
};

// ---------------------------------------------------------------------------------------------
// model

ModelSpec model_from_hf_config(const Reader& r, const Field& f) {
  const std::string path = r.value(f, find_key("model.hf_config")->rule).text;
  std::string text;
  try {
    text = read_input_file(path, "Hugging Face config");
  } catch (const InputError& e) {
    r.fail(f, e.what());
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // also a number past double (1e864)
    r.fail(f, fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  try {
    return model_from_hf_json(j, path);
  } catch (const InputError& e) {
    r.fail(f, e.what());
  } catch (const nlohmann::json::exception& e) {  // a key of the wrong JSON type
    r.fail(f, fmt::format("{}: a key has the wrong type: {}", path, e.what()));
  }
}

/// The keys of `section` at `f`, each read by its row's rule and put by its row's access, in
/// table order: sections recursively, list entries one by one. Rows of kind None (and keys read
/// by the loader's own code, with no `apply`) are left to the caller.
void read_keys(const Reader& r, const Field& f, std::string_view section, Scenario& s) {
  using Kind = ValueRule::Kind;
  r.expect_map(f, keys_under(section));
  for (const SchemaKey* k : rows_under(section)) {
    const std::string name(k->path.substr(section.empty() ? 0 : section.size() + 1));
    const Field key = r.child(f, name);
    if (!key.present()) continue;
    switch (k->rule.kind) {
      case Kind::None:
        break;
      case Kind::Map:
        read_keys(r, key, k->path, s);
        break;
      case Kind::List: {
        const std::string entries = std::string(k->path) + "[]";
        if (!key.node.IsSequence())
          r.fail(key,
                 fmt::format("expected a list of maps with keys {}", join(keys_under(entries))));
        for (std::size_t i = 0; i < key.node.size(); ++i) {
          const YAML::Node item = key.node[i];
          const Field e{item, fmt::format("{}[{}]", key.path, i),
                        item.Mark().line >= 0 ? item.Mark() : key.mark};
          k->access.apply(s, {});  // a new entry
          read_keys(r, e, entries, s);
        }
        break;
      }
      default:
        if (k->access.apply) r.apply(*k, key, s);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// model and cluster: a preset (or a Hugging Face config) under single keys

void read_model(const Reader& r, const Field& f, Scenario& s) {
  const auto presets = model_preset_names();
  auto preset = [&](const Field& name_field) {
    const ModelSpec* m = find_model_preset(r.str(name_field));
    if (!m)
      r.fail(name_field, fmt::format("unknown model preset {}; presets: {}", show(name_field.node),
                                     join(presets)));
    return *m;
  };
  if (f.node.IsScalar()) {
    s.model = preset(f);
    return;
  }
  r.expect_map(f, keys_under("model"));
  const Field pre = r.child(f, "preset"), hf = r.child(f, "hf_config");
  if (pre.present() && hf.present()) r.fail(f, "give either preset or hf_config, not both");
  const bool base = pre.present() || hf.present();
  s.model = pre.present() ? preset(pre) : hf.present() ? model_from_hf_config(r, hf) : ModelSpec{};
  read_keys(r, f, "model", s);
  if (!base)
    for (const char* key : {"layers", "hidden", "ffn_hidden", "heads", "vocab"})
      if (const Field k = r.child(f, key); !k.present())
        r.fail(k, fmt::format("required for an explicit model (or give preset: one of {})",
                              join(presets)));
  ModelSpec& m = *s.model;
  if (m.kv_heads == 0) m.kv_heads = m.heads;
  if (m.name.empty()) m.name = "custom";
  if (m.head_size == 0 && !m.is_mla() && m.hidden % m.heads != 0)
    r.fail(r.child(f, "heads"),
           fmt::format("hidden ({}) must be divisible by heads ({}), or give model.head_dim",
                       m.hidden, m.heads));
  if (m.heads % m.kv_heads != 0)
    r.fail(r.child(f, "kv_heads"),
           fmt::format("heads ({}) must be divisible by kv_heads ({})", m.heads, m.kv_heads));
}

void read_cluster(const Reader& r, const Field& f, Scenario& s) {
  r.expect_map(f, keys_under("cluster"));
  s.has_cluster = true;
  ClusterSpec& c = s.cluster;
  const Field g = r.child(f, "gpu");
  const GpuPreset* preset = nullptr;
  auto find = [&](const Field& name) {
    const GpuPreset* p = find_gpu_preset(r.str(name));
    if (!p)
      r.fail(name, fmt::format("unknown GPU preset {}; presets: {}", show(name.node),
                               join(gpu_preset_names())));
    return p;
  };
  if (!g.present())
    r.fail(g, fmt::format("required: a preset ({}) or a map", join(gpu_preset_names())));
  if (g.node.IsScalar()) {
    preset = find(g);
    c.gpu = preset->device;
  } else {
    r.expect_map(g, keys_under("cluster.gpu"));
    if (Field p = r.child(g, "preset"); p.present()) {
      preset = find(p);
      c.gpu = preset->device;
    }
    read_keys(r, g, "cluster.gpu", s);
    if (!preset)
      for (const char* key : {"peak_flops", "hbm_bandwidth", "memory"})
        if (const Field k = r.child(g, key); !k.present())
          r.fail(k, "required for a GPU without preset");
    if (c.gpu.name.empty()) c.gpu.name = "custom-gpu";
  }
  if (preset) {  // the links default to the preset's
    c.intra_node = preset->intra_node;
    c.inter_node = preset->inter_node;
    c.host_link = preset->host_link;
  }
  read_keys(r, f, "cluster", s);  // gpus_per_node, nodes, the links
  if (static_cast<long long>(c.gpus_per_node) * c.nodes > kMaxGpus)
    r.fail(f, fmt::format("gpus_per_node × nodes = {} × {} exceeds the limit of {} GPUs",
                          c.gpus_per_node, c.nodes, kMaxGpus));
  // Without a preset, a link the cluster uses must be described.
  for (const auto& [key, used] :
       {std::pair{"intra_node", c.gpus_per_node > 1}, std::pair{"inter_node", c.nodes > 1}}) {
    if (preset || !used) continue;
    const Field link = r.child(f, key);
    if (!link.present())
      r.fail(link,
             "required: {bandwidth: \"…GB/s\", latency: \"…us\"} (no GPU preset to default from)");
    for (const char* part : {"bandwidth", "latency"})
      if (const Field k = r.child(link, part); !k.present()) r.fail(k, "required");
  }
}

/// Every mapping key is a scalar and appears once: YAML allows `? [a]: 1`, and yaml-cpp keeps
/// the first of two equal keys silently, which would ignore what the user wrote last.
/// `lines`: the node came from a file (its marks are file lines), not from a --set value.
/// An alias is the node its anchor names (yaml-cpp shares it), so each map or list is walked
/// once, known by where it starts: nine lines of aliases of aliases ten wide stand for 10⁹
/// nodes, which a walk of the expanded tree would take minutes over.
void check_keys(const YAML::Node& node, const std::string& where, bool lines,
                std::set<int>& walked) {
  if (!node.IsSequence() && !node.IsMap()) return;
  if (const int pos = node.Mark().pos; pos >= 0 && !walked.insert(pos).second) return;
  if (node.IsSequence())
    for (const auto& item : node) check_keys(item, where, lines, walked);
  if (!node.IsMap()) return;
  std::map<std::string, int> seen;  // key -> its line
  for (const auto& kv : node) {
    const YAML::Mark m = kv.first.Mark();
    const std::string at = lines && m.line >= 0 ? fmt::format("{}:{}", where, m.line + 1) : where;
    if (!kv.first.IsScalar())
      throw ScenarioError(at, "", "a key must be a plain name, got " + show(kv.first));
    const auto [it, fresh] = seen.emplace(kv.first.Scalar(), m.line + 1);
    if (!fresh)
      throw ScenarioError(at, "",
                          lines ? fmt::format("duplicate key \"{}\" (first on line {})",
                                              kv.first.Scalar(), it->second)
                                : fmt::format("duplicate key \"{}\"", kv.first.Scalar()));
    check_keys(kv.second, where, lines, walked);
  }
}

void check_keys(const YAML::Node& node, const std::string& where, bool lines = true) {
  std::set<int> walked;
  check_keys(node, where, lines, walked);
}

// True when keys[0..i] names a shorthand scalar that stands for a map.
bool widen_key(const std::vector<std::string>& keys, std::size_t i) {
  if (i == 0) return keys[0] == "schedule" || keys[0] == "model";
  return i == 1 && keys[0] == "cluster" && keys[1] == "gpu";
}

std::map<std::string, std::string> apply_overrides(YAML::Node& root,
                                                   const std::vector<std::string>& overrides) {
  std::map<std::string, std::string> applied;
  for (const auto& text : overrides) {
    const auto eq = text.find('=');
    const std::string where = "--set " + text;
    if (eq == std::string::npos || eq == 0)
      throw ScenarioError(where, "", "expected key.path=value, e.g. parallelism.pp=4");
    const std::string path = text.substr(0, eq);
    // An empty value would read as null and silently drop the key (a shell slip: `--set
    // parallelism.zero= 3`); removing a key is said out loud.
    if (text.find_first_not_of(" \t", eq + 1) == std::string::npos)
      throw ScenarioError(where, path,
                          fmt::format("no value after '='; give one, or --set {}=null to remove "
                                      "the key (its default then holds)",
                                      path));
    YAML::Node value;
    try {
      value = YAML::Load(text.substr(eq + 1));
    } catch (const YAML::Exception& e) {
      throw ScenarioError(where, path, std::string("value is not valid YAML: ") + e.msg);
    }
    check_keys(value, where, false);
    std::vector<std::string> keys;
    std::stringstream ss(path);
    for (std::string k; std::getline(ss, k, '.');) {
      if (k.empty()) throw ScenarioError(where, path, "empty key in path");
      keys.push_back(k);
    }
    if (path.back() == '.') throw ScenarioError(where, path, "empty key in path");
    if (!root.IsMap()) root = YAML::Node(YAML::NodeType::Map);
    YAML::Node cur = root;
    for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
      YAML::Node next = cur[keys[i]];
      if (!next.IsDefined() || next.IsNull()) {
        cur[keys[i]] = YAML::Node(YAML::NodeType::Map);
        next = cur[keys[i]];
        // A section this override created: its errors (an unknown key) are the override's.
        std::string created = keys[0];
        for (std::size_t j = 1; j <= i; ++j) created += "." + keys[j];
        applied.emplace(created, text);
      } else if (next.IsScalar() && widen_key(keys, i)) {
        // `schedule: 1f1b`, `model: llama-3.1-8b`, `gpu: h100-sxm` are shorthands for maps;
        // widen them so a single key can be overridden.
        const std::string value = next.Scalar();
        cur[keys[i]] = YAML::Node(YAML::NodeType::Map);
        cur[keys[i]][keys[i] == "schedule" ? "name" : "preset"] = value;
        next = cur[keys[i]];
      } else if (!next.IsMap()) {
        throw ScenarioError(where, path,
                            fmt::format("\"{}\" is {}, not a map", keys[i], show(next)));
      }
      cur.reset(next);
    }
    // A model's source given on the command line replaces the file's: a Hugging Face config
    // over a preset, a preset over a config (the file's other model keys still apply on top).
    if (keys.size() == 2 && keys[0] == "model" && (keys[1] == "hf_config" || keys[1] == "preset"))
      cur.remove(keys[1] == "hf_config" ? "preset" : "hf_config");
    cur[keys.back()] = value;
    applied[path] = text;
  }
  return applied;
}

// The schedule: a name, or a map of its name (or CSV file) and the generator's own options.
void read_schedule(const Reader& r, const Field& top, Scenario& s) {
  const Field sch = r.child(top, "schedule");
  // The generator's errors (an unknown name, an option it lacks) are placed here: at the
  // override that changed the schedule, else at the file's `schedule` key.
  const std::string by = r.override_under("schedule");
  s.schedule.origin = !by.empty() ? by : sch.present() ? r.where(sch) : r.source();
  if (!sch.present()) return;
  if (sch.node.IsScalar()) {
    s.schedule.name = r.str(sch);
    return;
  }
  if (!sch.node.IsMap()) r.fail(sch, "expected a schedule name or {name: …, options…}");
  for (const auto& kv : sch.node) {
    const std::string key = kv.first.as<std::string>();
    const Field opt = r.child(sch, key);  // records the option's line (or --set)
    if (const SchemaKey* k = find_key(opt.path))
      r.apply(*k, opt, s);
    else
      s.schedule.options[key] = r.str(opt);  // the generator checks its options
  }
}

// The batch, as sequences per step or as micro-batches per pipeline (dp × b sequences each).
void read_batch(const Reader& r, const Field& tr, Scenario& s) {
  const Field gbs = r.child(tr, "global_batch_size"), mbs = r.child(tr, "microbatches");
  const long long per_mb = static_cast<long long>(s.layout.dp) * s.training.micro_batch_size;
  if (gbs.present())
    s.training.global_batch_size = static_cast<int>(r.value(gbs, find_key(gbs.path)->rule).integer);
  if (mbs.present()) {
    const long long m = r.value(mbs, find_key(mbs.path)->rule).integer;
    if (gbs.present() && m * per_mb != s.training.global_batch_size)
      r.fail(mbs, fmt::format("microbatches {} disagrees with global_batch_size / (dp × "
                              "micro_batch_size) = {}",
                              m, s.training.global_batch_size / per_mb));
    if (m * per_mb > kMaxGlobalBatch)
      r.fail(mbs, fmt::format("microbatches × dp × micro_batch_size = {} × {} × {} sequences "
                              "exceed the limit of {}",
                              m, s.layout.dp, s.training.micro_batch_size, kMaxGlobalBatch));
    s.training.global_batch_size = static_cast<int>(m * per_mb);
  }
  if (!gbs.present() && !mbs.present())
    r.fail(gbs, "required (sequences per step), or give training.microbatches");
}

// The rules within a section the table's rows cannot state one key at a time.
void check_sections(const Reader& r, const Field& top, const Scenario& s) {
  const Field co = r.child(top, "costs");
  if (co.present()) {
    const CostOverrides& c = *s.costs;
    if (!c.backward.empty() && (!c.backward_input.empty() || !c.backward_weight.empty()))
      r.fail(co, "give either backward or backward_input + backward_weight, not both");
    if (c.backward_input.empty() != c.backward_weight.empty())
      r.fail(co, "backward_input and backward_weight go together");
    if (!s.model) {
      if (c.forward.empty())
        r.fail(r.child(co, "forward"), "required when the scenario has no model");
      if (c.backward.empty() && c.backward_input.empty())
        r.fail(r.child(co, "backward"),
               "required when the scenario has no model (or backward_input + backward_weight)");
    }
  }
  if (!s.model && !s.costs)
    r.fail(r.child(top, "model"),
           fmt::format("required: a preset ({}), a map, or {{hf_config: path}} — or give costs:",
                       join(model_preset_names())));
  if (s.model && !s.has_cluster)
    r.fail(r.child(top, "cluster"),
           fmt::format("required when a model is given: {{gpu: {}, gpus_per_node, nodes}}",
                       join(gpu_preset_names())));
  if (const Field pr = r.child(top, "pricing"); pr.present())
    if (const Field f = r.child(pr, "gpu_hour"); !f.present())
      r.fail(f, "required: dollars per GPU-hour, e.g. 2.5");
  if (const Field sl = r.child(top, "slowdown"); sl.present())
    for (std::size_t i = 0; i < sl.node.size(); ++i) {
      const Field e{sl.node[i], fmt::format("{}[{}]", sl.path, i),
                    sl.node[i].Mark().line >= 0 ? sl.node[i].Mark() : sl.mark};
      if (r.child(e, "rank").present() == r.child(e, "ranks").present())
        r.fail(e, "give rank: N or ranks: [N, …] (one of them)");
    }
  if (const Field ms = r.child(top, "measured"); ms.present()) {
    int given = 0;
    for (const char* key :
         {"step_time", "tokens_per_s", "tokens_per_s_per_gpu", "tflops_per_gpu", "mfu"})
      given += r.child(ms, key).present();
    if (given != 1)
      r.fail(ms, fmt::format("give exactly one measured figure (one of step_time, tokens_per_s, "
                             "tokens_per_s_per_gpu, tflops_per_gpu, mfu), got {}",
                             given));
    if (const Field src = r.child(ms, "source"); !src.present())
      r.fail(src, "required: where the figure was published or measured");
    if (!s.model) r.fail(ms, "needs a model (the figures are per token or per FLOP)");
  }
}

Scenario build(YAML::Node root, const std::string& source,
               const std::vector<std::string>& overrides, const ScenarioAdjust& adjust) {
  std::map<std::string, std::string> overridden;
  for (const auto& [path, text] : apply_overrides(root, overrides))
    overridden[path] = "--set " + text;
  Reader r(source, overridden);
  Field top{root, "", root.Mark()};
  if (!root.IsMap())
    r.fail(top, "expected a map of sections (model, training, cluster, parallelism, schedule, …)");
  r.expect_map(top, keys_under(""));
  Scenario s;
  s.source = source;
  s.name = std::filesystem::path(source).stem().string();
  const Field tr = r.child(top, "training");
  if (!tr.present())
    r.fail(tr, "required: {seq_len, global_batch_size} (micro_batch_size defaults to 1)");
  // The model and the cluster first: presets under single keys, and keys below read them.
  if (const Field f = r.child(top, "model"); f.present()) read_model(r, f, s);
  if (const Field f = r.child(top, "cluster"); f.present()) read_cluster(r, f, s);
  read_keys(r, top, "", s);  // every other key, by its row in scenario_schema.cpp
  if (const Field f = r.child(tr, "seq_len"); !f.present() && s.model)
    r.fail(f, "required when a model is given (tokens per sequence)");
  read_batch(r, tr, s);
  read_schedule(r, top, s);
  if (r.child(top, "costs").present() && !s.costs) s.costs.emplace();  // `costs: {}`
  check_sections(r, top, s);

  YAML::Emitter e;
  e << root;
  s.canonical_yaml = e.c_str();
  s.origins = r.origins();
  if (adjust) adjust(s);
  try {
    validate(s);
  } catch (const ScenarioError& e) {
    // A rule between keys broken by an edit names the file's key at its line; say which edits
    // the scenario had, unless the message names one already.
    if (overrides.empty() || std::string_view(e.what()).find("--set ") != std::string_view::npos)
      throw;
    std::string edits;
    for (const std::string& o : overrides) edits += (edits.empty() ? "" : ", ") + ("--set " + o);
    throw e.with_note(" (the scenario as edited by " + edits + ")");
  }
  return s;
}

}  // namespace

namespace {

// Where each document of a YAML stream starts, and nothing else.
class DocumentStarts : public YAML::EventHandler {
 public:
  YAML::Mark start;
  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// The first document of `text`; ScenarioError when a second one follows. Not YAML::LoadAll:
// yaml-cpp 0.7 (Debian bookworm) loops forever there, allocating, on a stray ',' (its parser
// then "reads" an empty document without consuming anything; jbeder/yaml-cpp#1040, fixed
// upstream in #1319). A parser that does not move is reported as invalid YAML instead.
YAML::Node first_document(const std::string& text, const std::string& source) {
  YAML::Node root = YAML::Load(text);
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts seen;
  if (!parser.HandleNextDocument(seen)) return root;
  const YAML::Mark first = seen.start;
  if (!parser.HandleNextDocument(seen)) return root;
  if (seen.start.pos == first.pos)
    throw ScenarioError(fmt::format("{}:{}", source, first.line + 1), "",
                        "invalid YAML: a character out of place (a stray ',' or flow "
                        "indicator?) where a key or a value belongs");
  throw ScenarioError(fmt::format("{}:{}", source, seen.start.line + 1), "",
                      "a second YAML document (after \"---\"): a scenario is one document");
}

}  // namespace

namespace {

// " (line N indents with a tab: YAML indents with spaces)" when a line's indentation holds a tab
// and yaml-cpp's message does not already say so ("illegal map value" is what a tab before a key
// usually gives).
std::string tab_hint(const std::string& text, const std::string& msg) {
  if (msg.find("tab") != std::string::npos) return "";
  std::size_t line = 1;
  for (std::size_t i = 0; i < text.size(); ++line) {
    const std::size_t end = std::min(text.find('\n', i), text.size());
    const std::size_t body = text.find_first_not_of(" \t", i);
    // The tab looked for in the indentation only: the whole text is read once, however long.
    if (body != std::string::npos && body < end &&
        std::find(text.begin() + static_cast<std::ptrdiff_t>(i),
                  text.begin() + static_cast<std::ptrdiff_t>(body),
                  '\t') != text.begin() + static_cast<std::ptrdiff_t>(body))
      return fmt::format(" (line {} indents with a tab: YAML indents with spaces)", line);
    i = end + 1;
  }
  return "";
}

}  // namespace

Scenario parse_scenario(const std::string& yaml_text, const std::string& source,
                        const std::vector<std::string>& overrides, const ScenarioAdjust& adjust) {
  if (const std::size_t bad = invalid_utf8_at(yaml_text); bad != std::string_view::npos) {
    const auto line =
        1 + std::count(yaml_text.begin(), yaml_text.begin() + static_cast<long>(bad), '\n');
    throw ScenarioError(fmt::format("{}:{}", source, line), "",
                        fmt::format("not UTF-8 text (byte {} of the file)", bad + 1));
  }
  for (const auto& text : overrides)
    if (invalid_utf8_at(text) != std::string_view::npos)
      throw ScenarioError("--set", "", "not UTF-8 text");
  YAML::Node root;
  try {
    root = first_document(yaml_text, source);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own message is "bad file".
    throw ScenarioError(fmt::format("{}:{}", source, e.mark.line + 1), "",
                        "invalid YAML: lists or maps nested too deep for the parser (hundreds "
                        "of levels)");
  } catch (const YAML::Exception& e) {
    throw ScenarioError(fmt::format("{}:{}", source, e.mark.line + 1), "",
                        "invalid YAML: " + e.msg + tab_hint(yaml_text, e.msg));
  }
  check_keys(root, source);
  try {
    return build(root, source, overrides, adjust);
  } catch (const YAML::Exception& e) {  // yaml-cpp's own conversions: still the input's fault
    throw ScenarioError(fmt::format("{}:{}", source, e.mark.line + 1), "", e.msg);
  }
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides,
                       const ScenarioAdjust& adjust) {
  return parse_scenario(read_input_file(path, "scenario"), path, overrides, adjust);
}

std::optional<std::string> edit_refusal(const std::string& path) {
  if (path.empty() || path.front() == '.' || path.back() == '.' ||
      path.find("..") != std::string::npos)
    return "empty key in path (write it as section.key, e.g. parallelism.zero)";
  if (const SchemaKey* key = find_key(path)) {
    const bool batch = path == "training.microbatches" || path == "training.global_batch_size";
    if ((key->access.apply || batch) && key->rule.kind != ValueRule::Kind::List)
      return std::nullopt;
    return "cannot be edited on a loaded scenario; give it in the file or with --set";
  }
  if (path.rfind("schedule.", 0) == 0)
    return "a schedule option is read with the file: give it there or with --set (or, in "
           "`trainsim schedule`, -o KEY=VALUE)";
  // The deepest prefix the schema knows: a section lists its keys; a value or list has none.
  std::string section = path;
  for (;;) {
    const auto cut = section.find_last_of(".[");
    section = cut == std::string::npos ? std::string() : section.substr(0, cut);
    if (section.empty() || is_section(section)) break;
    if (const SchemaKey* above = find_key(section))
      return above->rule.kind == ValueRule::Kind::List
                 ? fmt::format("{} is a list: give it whole, in the file or with --set", section)
                 : fmt::format("{} is a value, not a section: it has no key \"{}\"", section,
                               path.substr(section.size() + 1));
  }
  const std::string name = section.empty() ? path : path.substr(section.size() + 1);
  std::string allowed;
  for (const std::string& k : keys_under(section)) allowed += (allowed.empty() ? "" : ", ") + k;
  return fmt::format("unknown key \"{}\"{}; allowed keys {}: {}", name,
                     unknown_key_hint(section, name, keys_under(section)),
                     section.empty() ? "at the top" : "under " + section, allowed);
}

void set_value(Scenario& s, const std::string& assignment, const std::string& by) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ScenarioError(by, "", "expected key.path=value, e.g. parallelism.zero=1");
  const std::string path = assignment.substr(0, eq);
  if (const auto why = edit_refusal(path)) throw ScenarioError(by, path, *why);
  const SchemaKey* key = find_key(path);
  const bool batch = path == "training.microbatches" || path == "training.global_batch_size";
  if (path.rfind("model.", 0) == 0 && !s.model)
    throw ScenarioError(by, path, "the scenario has no model (it gives costs)");
  YAML::Node node;
  try {
    node = YAML::Load(assignment.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw ScenarioError(by, path, std::string("value is not valid YAML: ") + e.msg);
  }
  const Reader r(s.source, {{path, by}});  // errors are placed at `by`
  const Field f{node, path, YAML::Mark::null_mark()};
  if (!f.present()) r.fail(f, "expected a value, got nothing");
  if (batch) {
    const long long v = r.value(f, key->rule).integer;
    const long long per_mb = static_cast<long long>(s.layout.dp) * s.training.micro_batch_size;
    const long long gbs = path == "training.microbatches" ? v * per_mb : v;
    if (gbs > limits::kMaxGlobalBatch)
      r.fail(f, fmt::format("{} sequences per step exceed the limit of {}", gbs,
                            limits::kMaxGlobalBatch));
    s.training.global_batch_size = static_cast<int>(gbs);
  } else {
    r.apply(*key, f, s);
  }
  s.set_origin(path, by);
  if (batch) s.set_origin("training.global_batch_size", by);
}

}  // namespace trainsim
