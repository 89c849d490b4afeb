// The scenario's key table (scenario_schema.h) against the loader and the README: the loader
// accepts exactly its keys, and scenarios/README.md documents every key and no other.
#include "scenario/scenario_schema.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "scenario/scenario_loader.h"
#include "schedules/registry.h"
#include "test_util.h"

using namespace trainsim;
using Catch::Contains;

namespace {

// The dotted keys a README table row names in its first cell: "`a.b`", or alternatives
// "`a.b` / `c`" where a bare name is a sibling of the first ("measured.step_time / mfu").
std::set<std::string> readme_keys() {
  std::ifstream in(std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/README.md");
  REQUIRE(in);
  std::set<std::string> keys;
  const std::regex code("`([^`]+)`");
  bool in_table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| key |", 0) == 0) in_table = true;
    if (!in_table) continue;
    if (line.rfind("|", 0) != 0) break;  // the table ends
    const std::string cell = line.substr(1, line.find('|', 1) - 1);
    std::string parent;
    for (auto it = std::sregex_iterator(cell.begin(), cell.end(), code);
         it != std::sregex_iterator(); ++it) {
      std::string k = (*it)[1];
      if (k.find(':') != std::string::npos) break;  // "model: <preset>", a shorthand's row
      if (k.find('.') == std::string::npos && !parent.empty()) k = parent + "." + k;
      const auto dot = k.rfind('.');
      parent = dot == std::string::npos ? "" : k.substr(0, dot);
      keys.insert(k);
    }
  }
  return keys;
}

// Each key's row in the README: (type, default, meaning), the first row naming it.
std::map<std::string, std::array<std::string, 3>> readme_rows() {
  std::ifstream in(std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/README.md");
  REQUIRE(in);
  std::map<std::string, std::array<std::string, 3>> rows;
  const std::regex code("`([^`]+)`");
  bool in_table = false;
  auto trim = [](std::string x) {
    x.erase(0, x.find_first_not_of(' '));
    x.erase(x.find_last_not_of(' ') + 1);
    return x;
  };
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| key |", 0) == 0) in_table = true;
    if (!in_table) continue;
    if (line.rfind("|", 0) != 0) break;
    std::vector<std::string> cells;
    for (std::size_t a = 1, b; (b = line.find('|', a)) != std::string::npos; a = b + 1)
      cells.push_back(trim(line.substr(a, b - a)));
    if (cells.size() != 4) continue;
    std::string parent;
    for (auto it = std::sregex_iterator(cells[0].begin(), cells[0].end(), code);
         it != std::sregex_iterator(); ++it) {
      std::string k = (*it)[1];
      if (k.find(':') != std::string::npos) break;
      if (k.find('.') == std::string::npos && !parent.empty()) k = parent + "." + k;
      const auto dot = k.rfind('.');
      parent = dot == std::string::npos ? "" : k.substr(0, dot);
      rows.emplace(k, std::array<std::string, 3>{cells[1], cells[2], cells[3]});
    }
  }
  return rows;
}

}  // namespace

TEST_CASE("schema: each key's type, default and meaning are its README row's") {
  const auto rows = readme_rows();
  int checked = 0;
  for (const SchemaKey& k : scenario_keys()) {
    const auto it = rows.find(std::string(k.path));
    if (it == rows.end()) {  // a section documented only through its keys
      CHECK(k.doc.empty());
      continue;
    }
    INFO(k.path);
    CHECK(std::string(k.type) == it->second[0]);
    CHECK(std::string(k.default_value) == it->second[1]);
    CHECK(std::string(k.doc) == it->second[2]);
    ++checked;
  }
  CHECK(checked >= 90);
  REQUIRE(find_key("training.seq_len"));
  CHECK_FALSE(find_key("training.seq_len")->doc.empty());
  CHECK(find_key("training.nope") == nullptr);
}

TEST_CASE("schema: keys_under lists a section's keys in table order") {
  CHECK(keys_under("parallelism.fsdp") ==
        std::vector<std::string>{"unit_layers", "prefetch", "reshard_after_forward",
                                 "gather_bucket", "reduce_bucket"});
  CHECK(keys_under("slowdown[]") == std::vector<std::string>{"rank", "ranks", "compute", "link"});
  CHECK(keys_under("")[0] == "name");
  CHECK(keys_under("training.seq_len").empty());
  CHECK(is_section("cluster.gpu"));
  CHECK_FALSE(is_section("cluster.nodes"));
}

TEST_CASE("schema: an unknown key is refused with the section's keys from the table") {
  CHECK_THROWS_WITH(test::yaml("training: {seq_len: 8, global_batch_size: 1, seqlen: 4}\n"
                               "costs: {forward: 1ms, backward: 2ms}\n"),
                    Contains("training.seqlen: unknown key \"seqlen\" (did you mean "
                             "training.seq_len?); allowed keys here: "
                             "seq_len, micro_batch_size, global_batch_size, microbatches"));
  CHECK_THROWS_WITH(test::yaml("training: {microbatches: 1}\ncosts: {forward: 1ms, "
                               "backward: 2ms}\nslowdown: [{rank: 0, speed: 2}]\n"),
                    Contains("unknown key \"speed\"; allowed keys here: rank, ranks, compute, "
                             "link"));
}

TEST_CASE("schema: scenarios/README.md documents every key and only keys of the table") {
  const std::set<std::string> documented = readme_keys();
  REQUIRE(documented.size() > 50);
  // A schedule map's other keys are its generator's options.
  std::set<std::string> options;
  for (const auto& e : schedule_entries())
    for (const auto& o : e.options) options.insert("schedule." + o);
  for (const SchemaKey& k : scenario_keys()) {
    const std::string key(k.path);
    INFO(key << " is in the schema but has no row in scenarios/README.md");
    if (!is_section(key)) CHECK(documented.count(key) == 1);
  }
  for (const std::string& d : documented) {
    INFO(d << " is documented in scenarios/README.md but is not a scenario key");
    const bool known = std::any_of(scenario_keys().begin(), scenario_keys().end(),
                                   [&](const SchemaKey& k) { return k.path == d; });
    CHECK((known || options.count(d) == 1));
  }
}

namespace {
bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE("schema: each key's type text states the rule its value is read by") {
  using Kind = ValueRule::Kind;
  int checked = 0;
  for (const SchemaKey& k : scenario_keys()) {
    INFO(k.path << " — type \"" << k.type << "\"");
    const std::string type(k.type);
    const auto min = static_cast<long long>(k.rule.min), max = static_cast<long long>(k.rule.max);
    switch (k.rule.kind) {
      case Kind::Integer:
        // "integer ≥ 1" (the upper limit is the README's Limits table), "0–3", or a rank.
        CHECK((type.rfind(fmt::format("integer ≥ {}", min), 0) == 0 ||
               type == fmt::format("{}–{}", min, max) || contains(type, "global rank")));
        break;
      case Kind::Number:
        CHECK((contains(type, fmt::format("{}–{}", k.rule.min, k.rule.max)) ||
               contains(type, "number")));
        break;
      case Kind::Bool:
        CHECK(type == "bool");
        break;
      case Kind::Choice: {
        for (std::string_view c : k.rule.choices) CHECK(contains(type, "`" + std::string(c) + "`"));
        const auto ticks = std::count(type.begin(), type.end(), '`');
        CHECK(ticks == 2 * static_cast<long>(k.rule.choices.size()));
        break;
      }
      case Kind::Quantity: {
        const char* word = k.rule.dim == Dimension::Time        ? "time"
                           : k.rule.dim == Dimension::Bytes     ? "bytes"
                           : k.rule.dim == Dimension::Bandwidth ? "bandwidth"
                           : k.rule.dim == Dimension::Flops     ? "FLOPS"
                                                                : "dollars";
        CHECK(contains(type, word));
        break;
      }
      case Kind::Times:
        CHECK(contains(type, "time or list"));
        break;
      case Kind::Ranks:
        CHECK(contains(type, "a list of them"));
        break;
      case Kind::Integers:
        CHECK(contains(type, "list of integers"));
        break;
      case Kind::Path:
        CHECK(type == "path");
        break;
      case Kind::Text:
        CHECK((type == "text" || type == "name" || contains(type, "permutation") ||
               contains(type, "comma-separated subset")));
        break;
      case Kind::List:
        CHECK(type == "list");
        break;
      default:
        continue;
    }
    ++checked;
  }
  CHECK(checked >= 80);
}

TEST_CASE("schema: every key with a value is read into the scenario, none ignored") {
  using Kind = ValueRule::Kind;
  // The loader's own code reads these: the batch given either way, and the model's base.
  const std::set<std::string> by_loader{"training.global_batch_size", "training.microbatches",
                                        "model.hf_config"};
  for (const SchemaKey& k : scenario_keys()) {
    INFO(k.path);
    if (k.rule.kind == Kind::None || k.rule.kind == Kind::Map) continue;
    CHECK((k.access.apply != nullptr || by_loader.count(std::string(k.path)) == 1));
  }
}

TEST_CASE("schema: a value shown from a scenario and given back with --set is the same value") {
  // Every key with a getter, on the default scenario: show_value's text, read again by the
  // loader through `--set key=text`, puts back the value it came from (put and get agree, and
  // the text is in the rule's own spelling, units included).
  const std::string path = std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/default.yaml";
  const Scenario base = load_scenario(path);
  int round_trips = 0;
  for (const SchemaKey& k : scenario_keys()) {
    const std::optional<std::string> shown = show_value(k, base);
    if (!shown || shown->empty()) continue;
    INFO(k.path << " = " << *shown);
    const Scenario again = load_scenario(path, {std::string(k.path) + "=" + *shown});
    CHECK(show_value(k, again) == shown);
    ++round_trips;
  }
  // dp, tp, pp, vpp, zero, the model's and GPU's sizes, the links, the training keys, …
  CHECK(round_trips >= 45);
  // A list (the default scenario gives none): the layers of each pipeline stage.
  const SchemaKey* split = find_key("parallelism.pipeline_split.layers");
  REQUIRE(split != nullptr);
  CHECK_FALSE(show_value(*split, base));  // the even split: no value
  const Scenario uneven = load_scenario(path, {"parallelism.pipeline_split.layers=[9, 8, 8, 7]"});
  REQUIRE(show_value(*split, uneven) == "[9, 8, 8, 7]");
  // shown, given back with --set, shown the same
  const Scenario again =
      load_scenario(path, {"parallelism.pipeline_split.layers=" + *show_value(*split, uneven)});
  CHECK(show_value(*split, again) == show_value(*split, uneven));
}

TEST_CASE("schema: setting_values lists every key with a getter, a value or none") {
  // The same keys in the same order for any two scenarios (what `check`'s setting changes
  // compare), "—" where the scenario has no value.
  const std::string path = std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/default.yaml";
  const auto a = setting_values(load_scenario(path));
  const auto b =
      setting_values(load_scenario(path, {"parallelism.pipeline_split.layers=[9, 8, 8, 7]"}));
  REQUIRE(a.size() == b.size());
  int differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    REQUIRE(a[i].first == b[i].first);
    if (a[i].second != b[i].second) {
      ++differ;
      CHECK(a[i].first == "parallelism.pipeline_split.layers");
      CHECK(a[i].second == "—");
      CHECK(b[i].second == "[9, 8, 8, 7]");
    }
  }
  CHECK(differ == 1);
  int getters = 0;
  for (const SchemaKey& k : scenario_keys()) getters += k.access.get != nullptr;
  CHECK(static_cast<int>(a.size()) == getters);
}

TEST_CASE("schema: a choice's index is its enum's value") {
  // The loader stores a choice as the index of its name in the row; these enums are declared
  // in the same order as the names.
  const Scenario s = test::yaml(
      "training: {seq_len: 8, global_batch_size: 1, recompute: selective, attention: triton, "
      "runtime: eager, precision: fp16}\n"
      "model: {preset: llama-3.1-8b, mlp: gelu, position_embedding: alibi, norm: layernorm}\n"
      "cluster: {gpu: h100-sxm, gpus_per_node: 1}\n"
      "parallelism: {zero: 1, param_gather: with-next-forward}\n");
  CHECK(s.training.recompute == Recompute::Selective);
  CHECK(s.training.attention == AttentionKernel::Triton);
  CHECK(s.training.runtime == Runtime::Eager);
  CHECK(s.training.precision == Precision::FP16);
  CHECK(s.model->mlp == MlpKind::GeLU);
  CHECK(s.model->position == PositionEmbedding::Alibi);
  CHECK(s.model->norm == NormKind::LayerNorm);
  CHECK(s.layout.param_gather_with_forward);
  for (const char* key :
       {"training.recompute", "training.attention", "training.runtime", "training.precision",
        "model.mlp", "model.position_embedding", "model.norm", "parallelism.param_gather"}) {
    INFO(key);
    const auto shown = show_value(*find_key(key), s);
    REQUIRE(shown);
    CHECK(contains(std::string(find_key(key)->type), "`" + *shown + "`"));
  }
  CHECK(show_value(*find_key("training.recompute"), s) == "selective");
  CHECK(show_value(*find_key("model.norm"), s) == "layernorm");
}
