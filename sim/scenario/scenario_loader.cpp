#include "scenario/scenario_loader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/input_file.h"
#include "core/json_text.h"
#include "core/quantity.h"
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
    // An overridden key (or a parent of it) is reported as the override that set it.
    for (const auto& [path, text] : overridden_)
      if (f.path == path || f.path.rfind(path + ".", 0) == 0 || f.path.rfind(path + "[", 0) == 0)
        return "--set " + text;
    if (f.mark.line >= 0) return fmt::format("{}:{}", source_, f.mark.line + 1);
    return source_;
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
        fail(bad, fmt::format("unknown key \"{}\"; allowed keys here: {}", key, join(allowed)));
      }
    }
  }

  std::string str(const Field& f) const {
    if (!f.node.IsScalar()) fail(f, "expected a text value, got " + show(f.node));
    return f.node.Scalar();
  }

  long long integer(const Field& f, long long min, long long max = 1LL << 50) const {
    long long v = 0;
    if (!f.node.IsScalar() || !YAML::convert<long long>::decode(f.node, v))
      fail(f, fmt::format("expected an integer >= {}, got {}", min, show(f.node)));
    if (v < min || v > max) {
      if (max >= (1LL << 30)) fail(f, fmt::format("expected an integer >= {}, got {}", min, v));
      fail(f, fmt::format("expected an integer in [{}, {}], got {}", min, max, v));
    }
    return v;
  }
  int int32(const Field& f, int min, int max = 1 << 30) const {
    return static_cast<int>(integer(f, min, max));
  }

  double number(const Field& f, double min, double max) const {
    double v = 0;
    if (!f.node.IsScalar() || !YAML::convert<double>::decode(f.node, v) || !(v >= min && v <= max))
      fail(f, fmt::format("expected a number in [{}, {}], got {}", min, max, show(f.node)));
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

  template <typename E>
  E choice(const Field& f, const std::vector<std::pair<std::string, E>>& options) const {
    std::vector<std::string> names;
    for (const auto& [name, value] : options) names.push_back(name);
    if (f.node.IsScalar())
      for (const auto& [name, value] : options)
        if (f.node.Scalar() == name) return value;
    fail(f, fmt::format("expected one of {}, got {}", join(names), show(f.node)));
  }

  /// Where each key read so far came from (Scenario::origins).
  const std::map<std::string, std::string>& origins() const { return origins_; }

 private:
  std::string source_;
  std::map<std::string, std::string> overridden_;  ///< dotted path -> "key=value" text
  mutable std::map<std::string, std::string> origins_;
};

// ---------------------------------------------------------------------------------------------
// model

ModelSpec model_from_hf_config(const Reader& r, const Field& f, const std::string& base_dir) {
  std::filesystem::path p = r.str(f);
  if (p.is_relative()) p = std::filesystem::path(base_dir) / p;
  std::string text;
  try {
    text = read_input_file(p.string(), "Hugging Face config");
  } catch (const InputError& e) {
    r.fail(f, e.what());
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // also a number past double (1e864)
    r.fail(f, fmt::format("{}: not valid JSON: {}", p.string(), e.what()));
  }
  try {
    return model_from_hf_json(j, p.string());
  } catch (const InputError& e) {
    r.fail(f, e.what());
  } catch (const nlohmann::json::exception& e) {  // a key of the wrong JSON type
    r.fail(f, fmt::format("{}: a key has the wrong type: {}", p.string(), e.what()));
  }
}

ModelSpec read_model(const Reader& r, const Field& f, const std::string& base_dir) {
  const auto presets = model_preset_names();
  auto preset = [&](const Field& name_field) {
    const ModelSpec* m = find_model_preset(r.str(name_field));
    if (!m)
      r.fail(name_field, fmt::format("unknown model preset {}; presets: {}", show(name_field.node),
                                     join(presets)));
    return *m;
  };
  if (f.node.IsScalar()) return preset(f);
  r.expect_map(f, keys_under("model"));
  ModelSpec m;
  const Field pre = r.child(f, "preset"), hf = r.child(f, "hf_config");
  if (pre.present() && hf.present()) r.fail(f, "give either preset or hf_config, not both");
  const bool base = pre.present() || hf.present();
  if (pre.present()) m = preset(pre);
  if (hf.present()) m = model_from_hf_config(r, hf, base_dir);
  auto opt_int = [&](const char* key, auto& out, long long max) {
    Field k = r.child(f, key);
    if (k.present())
      out = static_cast<std::remove_reference_t<decltype(out)>>(r.integer(k, 1, max));
    else if (!base)
      r.fail(k, fmt::format("required for an explicit model (or give preset: one of {})",
                            join(presets)));
  };
  opt_int("layers", m.layers, kMaxLayers);
  opt_int("hidden", m.hidden, kMaxWidth);
  opt_int("ffn_hidden", m.ffn_hidden, kMaxWidth);
  opt_int("heads", m.heads, kMaxHeads);
  m.kv_heads = base ? m.kv_heads : 0;
  if (Field k = r.child(f, "kv_heads"); k.present()) m.kv_heads = r.int32(k, 1, kMaxHeads);
  if (m.kv_heads == 0) m.kv_heads = m.heads;
  opt_int("vocab", m.vocab, kMaxVocab);
  if (Field k = r.child(f, "tied_embeddings"); k.present()) m.tied_embeddings = r.boolean(k);
  if (Field k = r.child(f, "mlp"); k.present())
    m.mlp = r.choice<MlpKind>(k, {{"swiglu", MlpKind::SwiGLU}, {"gelu", MlpKind::GeLU}});
  if (Field k = r.child(f, "position_embedding"); k.present())
    m.position = r.choice<PositionEmbedding>(k, {{"rope", PositionEmbedding::Rotary},
                                                 {"learned", PositionEmbedding::Learned},
                                                 {"alibi", PositionEmbedding::Alibi}});
  if (Field k = r.child(f, "norm"); k.present())
    m.norm =
        r.choice<NormKind>(k, {{"rmsnorm", NormKind::RMSNorm}, {"layernorm", NormKind::LayerNorm}});
  if (Field k = r.child(f, "name"); k.present()) m.name = r.str(k);
  if (m.name.empty()) m.name = "custom";
  if (m.hidden % m.heads != 0)
    r.fail(r.child(f, "heads"),
           fmt::format("hidden ({}) must be divisible by heads ({})", m.hidden, m.heads));
  if (m.heads % m.kv_heads != 0)
    r.fail(r.child(f, "kv_heads"),
           fmt::format("heads ({}) must be divisible by kv_heads ({})", m.heads, m.kv_heads));
  return m;
}

// ---------------------------------------------------------------------------------------------
// cluster

LinkSpec read_link(const Reader& r, const Field& f, LinkSpec def, bool have_default) {
  if (!f.present()) {
    if (!have_default)
      r.fail(f,
             "required: {bandwidth: \"…GB/s\", latency: \"…us\"} (no GPU preset to default from)");
    return def;
  }
  r.expect_map(f, keys_under(f.path));  // cluster.intra_node or cluster.inter_node
  if (Field b = r.child(f, "bandwidth"); b.present())
    def.bandwidth = r.positive_quantity(b, Dimension::Bandwidth);
  else if (!have_default)
    r.fail(b, "required");
  if (Field l = r.child(f, "latency"); l.present())
    def.latency = r.quantity(l, Dimension::Time);
  else if (!have_default)
    r.fail(l, "required");
  return def;
}

ClusterSpec read_cluster(const Reader& r, const Field& f) {
  r.expect_map(f, keys_under("cluster"));
  ClusterSpec c;
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
    auto q = [&](const char* key, double& out, Dimension dim) {
      Field k = r.child(g, key);
      if (k.present())
        out = r.positive_quantity(k, dim);
      else if (!preset)
        r.fail(k, "required for a GPU without preset");
    };
    q("peak_flops", c.gpu.peak_flops, Dimension::Flops);
    q("hbm_bandwidth", c.gpu.hbm_bandwidth, Dimension::Bandwidth);
    q("memory", c.gpu.memory, Dimension::Bytes);
    if (Field k = r.child(g, "sms"); k.present()) c.gpu.sms = r.int32(k, 1);
    if (Field k = r.child(g, "name"); k.present()) c.gpu.name = r.str(k);
    if (c.gpu.name.empty()) c.gpu.name = "custom-gpu";
  }
  if (Field k = r.child(f, "gpus_per_node"); k.present())
    c.gpus_per_node = r.int32(k, 1, kMaxParallel);
  if (Field k = r.child(f, "nodes"); k.present()) c.nodes = r.int32(k, 1, kMaxParallel);
  if (static_cast<long long>(c.gpus_per_node) * c.nodes > kMaxGpus)
    r.fail(f, fmt::format("gpus_per_node × nodes = {} × {} exceeds the limit of {} GPUs",
                          c.gpus_per_node, c.nodes, kMaxGpus));
  c.intra_node = read_link(r, r.child(f, "intra_node"), preset ? preset->intra_node : LinkSpec{},
                           preset != nullptr || c.gpus_per_node == 1);
  c.inter_node = read_link(r, r.child(f, "inter_node"), preset ? preset->inter_node : LinkSpec{},
                           preset != nullptr || c.nodes == 1);
  return c;
}

// ---------------------------------------------------------------------------------------------
// the rest

std::vector<TimeNs> read_stage_costs(const Reader& r, const Field& f, int pp) {
  std::vector<TimeNs> out;
  if (f.node.IsSequence()) {  // one per stage: validate() checks the count
    for (std::size_t i = 0; i < f.node.size(); ++i) {
      Field e{f.node[i], fmt::format("{}[{}]", f.path, i), f.node[i].Mark()};
      out.push_back(r.duration(e));
    }
  } else {
    out.assign(static_cast<std::size_t>(pp), r.duration(f));
  }
  return out;
}

std::array<Axis, 3> read_order(const Reader& r, const Field& f) {
  std::string text = r.str(f);
  std::array<Axis, 3> order{};
  std::vector<std::string> parts;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, ',');) {
    part.erase(std::remove(part.begin(), part.end(), ' '), part.end());
    parts.push_back(part);
  }
  bool seen[3] = {false, false, false};
  if (parts.size() != 3)
    r.fail(f, "expected a permutation of \"tp,dp,pp\" (fastest first), got " + show(f.node));
  for (int i = 0; i < 3; ++i) {
    Axis a = parts[i] == "tp"   ? Axis::TP
             : parts[i] == "dp" ? Axis::DP
             : parts[i] == "pp" ? Axis::PP
                                : Axis(-1);
    if (static_cast<int>(a) < 0 || seen[static_cast<int>(a)])
      r.fail(f, "expected a permutation of \"tp,dp,pp\" (fastest first), got " + show(f.node));
    seen[static_cast<int>(a)] = true;
    order[static_cast<std::size_t>(i)] = a;
  }
  return order;
}

// True when keys[0..i] names a shorthand scalar that stands for a map.
/// Every mapping key is a scalar and appears once: YAML allows `? [a]: 1`, and yaml-cpp keeps
/// the first of two equal keys silently, which would ignore what the user wrote last.
/// `lines`: the node came from a file (its marks are file lines), not from a --set value.
void check_keys(const YAML::Node& node, const std::string& where, bool lines = true) {
  if (node.IsSequence())
    for (const auto& item : node) check_keys(item, where, lines);
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
    check_keys(kv.second, where, lines);
  }
}

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
    cur[keys.back()] = value;
    applied[path] = text;
  }
  return applied;
}

Scenario build(YAML::Node root, const std::string& source,
               const std::vector<std::string>& overrides) {
  auto overridden = apply_overrides(root, overrides);
  Reader r(source, overridden);
  const std::string base_dir = std::filesystem::path(source).parent_path().string();
  Field top{root, "", root.Mark()};
  if (!root.IsMap())
    r.fail(top, "expected a map of sections (model, training, cluster, parallelism, schedule, …)");
  r.expect_map(top, keys_under(""));
  Scenario s;
  s.source = source;
  s.name = std::filesystem::path(source).stem().string();
  if (Field f = r.child(top, "name"); f.present()) s.name = r.str(f);

  // parallelism
  Field par = r.child(top, "parallelism");
  if (par.present()) {
    r.expect_map(par, keys_under("parallelism"));
    if (Field f = r.child(par, "dp"); f.present()) s.layout.dp = r.int32(f, 1, kMaxParallel);
    if (Field f = r.child(par, "tp"); f.present()) s.layout.tp = r.int32(f, 1, kMaxParallel);
    if (Field f = r.child(par, "pp"); f.present()) s.layout.pp = r.int32(f, 1, kMaxParallel);
    if (Field f = r.child(par, "vpp"); f.present()) s.layout.vpp = r.int32(f, 1, kMaxParallel);
    if (Field f = r.child(par, "zero"); f.present()) s.layout.zero = r.int32(f, 0, 3);
    if (Field f = r.child(par, "sequence_parallel"); f.present())
      s.layout.sequence_parallel = r.boolean(f);
    if (Field f = r.child(par, "rank_order"); f.present()) s.layout.order = read_order(r, f);
    if (Field f = r.child(par, "fsdp"); f.present()) {
      r.expect_map(f, keys_under("parallelism.fsdp"));
      if (Field k = r.child(f, "unit_layers"); k.present())
        s.layout.fsdp.unit_layers = r.int32(k, 1);
      if (Field k = r.child(f, "prefetch"); k.present()) s.layout.fsdp.prefetch = r.int32(k, 0, 64);
      if (Field k = r.child(f, "reshard_after_forward"); k.present())
        s.layout.fsdp.reshard_after_forward = r.boolean(k);
    }
    if (Field f = r.child(par, "param_gather"); f.present()) {
      s.layout.param_gather_with_forward =
          r.choice<bool>(f, {{"after-optimizer", false}, {"with-next-forward", true}});
      if (s.layout.zero != 1 && s.layout.zero != 2)
        r.fail(f, fmt::format("only applies to zero: 1 or 2 (ZeRO-3 gathers before every use; "
                              "ZeRO-0 keeps whole parameters), got zero: {}",
                              s.layout.zero));
    }
    if (Field f = r.child(par, "tp_overlap"); f.present()) s.layout.tp_overlap = r.boolean(f);
  }

  // model
  Field model = r.child(top, "model");
  if (model.present()) s.model = read_model(r, model, base_dir);

  // training
  Field tr = r.child(top, "training");
  if (!tr.present()) r.fail(tr, "required: {seq_len, micro_batch_size, global_batch_size}");
  r.expect_map(tr, keys_under("training"));
  if (Field f = r.child(tr, "seq_len"); f.present())
    s.training.seq_len = r.int32(f, 1, kMaxSeqLen);
  else if (s.model)
    r.fail(f, "required when a model is given (tokens per sequence)");
  if (Field f = r.child(tr, "micro_batch_size"); f.present())
    s.training.micro_batch_size = r.int32(f, 1, kMaxMicroBatch);
  const Field gbs = r.child(tr, "global_batch_size"), mbs = r.child(tr, "microbatches");
  const long long per_mb = static_cast<long long>(s.layout.dp) * s.training.micro_batch_size;
  if (gbs.present()) s.training.global_batch_size = r.int32(gbs, 1, kMaxGlobalBatch);
  if (mbs.present()) {
    const long long m = r.int32(mbs, 1, kMaxMicrobatches);
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
  if (Field f = r.child(tr, "precision"); f.present())
    s.training.precision =
        r.choice<Precision>(f, {{"bf16", Precision::BF16}, {"fp16", Precision::FP16}});
  if (Field f = r.child(tr, "optimizer"); f.present())
    r.choice<int>(f, {{"adam", 0}, {"adamw", 0}});
  if (Field f = r.child(tr, "fp32_grad_accumulation"); f.present())
    s.training.fp32_grad_accumulation = r.boolean(f);
  if (Field f = r.child(tr, "attention"); f.present())
    s.training.attention = r.choice<AttentionKernel>(f, {{"flash1", AttentionKernel::Flash1},
                                                         {"flash2", AttentionKernel::Flash2},
                                                         {"flash3", AttentionKernel::Flash3},
                                                         {"triton", AttentionKernel::Triton},
                                                         {"unfused", AttentionKernel::Unfused}});
  if (Field f = r.child(tr, "dropout"); f.present()) s.training.dropout = r.number(f, 0, 0.99);
  if (Field f = r.child(tr, "fused_optimizer"); f.present())
    s.training.fused_optimizer = r.boolean(f);
  if (Field f = r.child(tr, "grad_clipping"); f.present()) s.training.grad_clipping = r.boolean(f);
  if (Field f = r.child(tr, "optimizer_post_validation"); f.present())
    s.training.optimizer_post_validation = r.boolean(f);
  if (Field f = r.child(tr, "runtime"); f.present())
    s.training.runtime =
        r.choice<Runtime>(f, {{"compiled", Runtime::Compiled}, {"eager", Runtime::Eager}});
  if (Field f = r.child(tr, "grad_reduce_dtype"); f.present()) {
    // 16-bit reductions run in the training precision, so only its name is accepted.
    const std::string half = s.training.precision == Precision::BF16 ? "bf16" : "fp16";
    s.training.grad_reduce =
        r.choice<GradReduce>(f, {{"fp32", GradReduce::FP32}, {half, GradReduce::Half}});
  }
  if (Field f = r.child(tr, "recompute"); f.present())
    s.training.recompute = r.choice<Recompute>(f, {{"none", Recompute::None},
                                                   {"selective", Recompute::Selective},
                                                   {"full", Recompute::Full}});
  if (Field f = r.child(tr, "recompute_layers"); f.present())
    s.training.recompute_layers = r.int32(f, 0, kMaxLayers);  // recompute: full, validate()

  // cluster
  Field cl = r.child(top, "cluster");
  if (cl.present()) {
    s.cluster = read_cluster(r, cl);
    s.has_cluster = true;
  }

  // schedule
  Field sch = r.child(top, "schedule");
  s.schedule.origin = sch.present() ? r.where(sch) : r.source();  // absent: the default
  if (sch.present()) {
    if (sch.node.IsScalar()) {
      s.schedule.name = r.str(sch);
    } else {
      if (!sch.node.IsMap()) r.fail(sch, "expected a schedule name or {name: …, options…}");
      for (const auto& kv : sch.node) {
        const std::string key = kv.first.as<std::string>();
        Field opt{kv.second, sch.path + "." + key, kv.second.Mark()};
        if (key == "name") {
          s.schedule.name = r.str(opt);
        } else if (key == "csv") {
          std::filesystem::path csv = r.str(opt);
          if (csv.is_relative()) csv = std::filesystem::path(base_dir) / csv;
          s.schedule.csv = csv.string();
          s.schedule.name = "csv";
        } else
          s.schedule.options[key] = r.str(opt);
      }
    }
  }

  // costs
  Field co = r.child(top, "costs");
  if (co.present()) {
    r.expect_map(co, keys_under("costs"));
    CostOverrides c;
    const int pp = s.layout.pp;
    if (Field f = r.child(co, "forward"); f.present()) c.forward = read_stage_costs(r, f, pp);
    if (Field f = r.child(co, "backward"); f.present()) c.backward = read_stage_costs(r, f, pp);
    if (Field f = r.child(co, "backward_input"); f.present())
      c.backward_input = read_stage_costs(r, f, pp);
    if (Field f = r.child(co, "backward_weight"); f.present())
      c.backward_weight = read_stage_costs(r, f, pp);
    if (Field f = r.child(co, "p2p"); f.present()) c.p2p = r.duration(f);
    if (Field f = r.child(co, "forward_backward_overlap"); f.present())
      c.forward_backward_overlap = read_stage_costs(r, f, pp);
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
    s.costs = c;
  }

  if (!s.model && !s.costs)
    r.fail(model,
           fmt::format("required: a preset ({}), a map, or {{hf_config: path}} — or give costs:",
                       join(model_preset_names())));
  if (s.model && !s.has_cluster)
    r.fail(cl, fmt::format("required when a model is given: {{gpu: {}, gpus_per_node, nodes}}",
                           join(gpu_preset_names())));

  // efficiency
  Field ef = r.child(top, "efficiency");
  if (ef.present()) {
    r.expect_map(ef, keys_under("efficiency"));
    if (Field f = r.child(ef, "gemm"); f.present()) s.efficiency.gemm = r.number(f, 0.01, 1.0);
    if (Field f = r.child(ef, "memory"); f.present()) s.efficiency.memory = r.number(f, 0.01, 1.0);
    if (Field f = r.child(ef, "kernel_launch"); f.present())
      s.efficiency.kernel_launch = r.duration(f);
  }

  // pricing
  Field pr = r.child(top, "pricing");
  if (pr.present()) {
    r.expect_map(pr, keys_under("pricing"));
    Field f = r.child(pr, "gpu_hour");
    if (!f.present()) r.fail(f, "required: dollars per GPU-hour, e.g. 2.5");
    s.price_per_gpu_hour = r.quantity(f, Dimension::Money);
  }

  // memory
  Field me = r.child(top, "memory");
  if (me.present()) {
    r.expect_map(me, keys_under("memory"));
    if (Field f = r.child(me, "runtime_overhead"); f.present()) {
      s.memory.runtime_overhead = r.quantity(f, Dimension::Bytes);
      if (s.memory.runtime_overhead < 0) r.fail(f, "must be 0 or more bytes, e.g. 1.5GB");
    }
    if (Field f = r.child(me, "bucket_size"); f.present())
      s.memory.bucket_size = r.positive_quantity(f, Dimension::Bytes);
  }

  Field ct = r.child(top, "contention");
  if (ct.present()) {
    r.expect_map(ct, keys_under("contention"));
    if (Field f = r.child(ct, "compute_slowdown"); f.present())
      s.contention.compute_slowdown = r.number(f, 0, 10);
    if (Field f = r.child(ct, "link_sharing"); f.present())
      s.contention.link_sharing = r.boolean(f);
  }

  // calibration: a profile from trainsim-calibrate (read by the cost model)
  if (Field f = r.child(top, "calibration"); f.present()) {
    std::filesystem::path path = r.str(f);
    if (path.is_relative()) path = std::filesystem::path(base_dir) / path;
    std::error_code ec;
    const auto kind = std::filesystem::status(path, ec).type();
    if (kind == std::filesystem::file_type::not_found || ec)
      r.fail(f, fmt::format("\"{}\" does not exist (a JSON profile from trainsim-calibrate)",
                            path.string()));
    if (kind != std::filesystem::file_type::regular)
      r.fail(f, fmt::format("\"{}\" is {}, expected a JSON profile file from trainsim-calibrate",
                            path.string(),
                            kind == std::filesystem::file_type::directory ? "a directory"
                                                                          : "not a regular file"));
    if (!s.model) r.fail(f, "needs a model: the profile replaces analytic durations");
    s.calibration = path.string();
  }

  // slowdown: a list of {ranks | rank, compute, link}
  Field sl = r.child(top, "slowdown");
  if (sl.present()) {
    if (!sl.node.IsSequence())
      r.fail(sl, "expected a list of {ranks: [..], compute: factor, link: factor}");
    for (std::size_t i = 0; i < sl.node.size(); ++i) {
      const YAML::Node item = sl.node[i];
      Field e{item, fmt::format("{}[{}]", sl.path, i),
              item.Mark().line >= 0 ? item.Mark() : sl.mark};
      r.expect_map(e, keys_under("slowdown[]"));
      Slowdown sd;
      const Field one = r.child(e, "rank"), many = r.child(e, "ranks");
      if (one.present() == many.present()) r.fail(e, "give rank: N or ranks: [N, …] (one of them)");
      auto add = [&](const Field& f) {
        sd.ranks.push_back(r.int32(f, 0, kMaxGpus));  // below the world: validate()
      };
      if (one.present()) add(one);
      if (many.present()) {
        if (!many.node.IsSequence() || many.node.size() == 0)
          r.fail(many, "expected a non-empty list of global ranks");
        for (std::size_t k = 0; k < many.node.size(); ++k)
          add(Field{many.node[k], fmt::format("{}[{}]", many.path, k), many.mark});
      }
      if (Field f = r.child(e, "compute"); f.present()) sd.compute = r.number(f, 0.01, 100.0);
      if (Field f = r.child(e, "link"); f.present()) sd.link = r.number(f, 0.01, 100.0);
      s.slowdowns.push_back(sd);
    }
  }

  // measured: one published or measured figure of this run, and its source
  Field ms = r.child(top, "measured");
  if (ms.present()) {
    const std::vector<std::pair<std::string, Measured::Metric>> metrics{
        {"step_time", Measured::Metric::StepTime},
        {"tokens_per_s", Measured::Metric::TokensPerS},
        {"tokens_per_s_per_gpu", Measured::Metric::TokensPerSPerGpu},
        {"tflops_per_gpu", Measured::Metric::TflopsPerGpu},
        {"mfu", Measured::Metric::Mfu}};
    r.expect_map(ms, keys_under("measured"));
    Measured m;
    int given = 0;
    for (const auto& [key, metric] : metrics) {
      const Field f = r.child(ms, key);
      if (!f.present()) continue;
      ++given;
      m.metric = metric;
      switch (metric) {
        case Measured::Metric::StepTime:
          m.value = r.positive_quantity(f, Dimension::Time);
          break;
        case Measured::Metric::TflopsPerGpu:
          m.value = r.positive_quantity(f, Dimension::Flops) / 1e12;
          break;
        case Measured::Metric::Mfu:
          m.value = r.number(f, 1e-6, 1.0);
          break;
        default:
          m.value = r.number(f, 1e-9, 1e18);
      }
    }
    if (given != 1)
      r.fail(ms, fmt::format("give exactly one measured figure (one of step_time, tokens_per_s, "
                             "tokens_per_s_per_gpu, tflops_per_gpu, mfu), got {}",
                             given));
    const Field src = r.child(ms, "source");
    if (!src.present()) r.fail(src, "required: where the figure was published or measured");
    m.source = r.str(src);
    if (!s.model) r.fail(ms, "needs a model (the figures are per token or per FLOP)");
    s.measured = m;
  }

  YAML::Emitter e;
  e << root;
  s.canonical_yaml = e.c_str();
  s.origins = r.origins();
  validate(s);
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

Scenario parse_scenario(const std::string& yaml_text, const std::string& source,
                        const std::vector<std::string>& overrides) {
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
  } catch (const YAML::Exception& e) {
    throw ScenarioError(fmt::format("{}:{}", source, e.mark.line + 1), "",
                        "invalid YAML: " + e.msg);
  }
  check_keys(root, source);
  try {
    return build(root, source, overrides);
  } catch (const YAML::Exception& e) {  // yaml-cpp's own conversions: still the input's fault
    throw ScenarioError(fmt::format("{}:{}", source, e.mark.line + 1), "", e.msg);
  }
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  return parse_scenario(read_input_file(path, "scenario"), path, overrides);
}

}  // namespace trainsim
