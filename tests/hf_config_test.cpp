// Hugging Face config.json files as models: the families' real configs (the size keys as
// published on the Hugging Face Hub; other keys left out) and the parameter counts their model
// cards state. trainsim counts no biases, norms or learned position tables, so its totals sit
// a little under the cards' (GPT-2: 124.4 M with 0.79 M of positions and 0.12 M of biases and
// norms).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "scenario/hf_config.h"
#include "scenario/scenario_schema.h"

using namespace trainsim;
using nlohmann::json;

namespace {
ModelSpec load(const json& j) {
  return model_from_hf_json(j, "models/x/config.json");
}
std::string error_of(const json& j) {
  try {
    load(j);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("hf config: a gated family is gated whatever its activation (Gemma's GeGLU)",
          "[hf_config]") {
  // google/gemma-2b: head_dim 256 = 2048 / 8, gelu, tied by GemmaConfig's default.
  const ModelSpec m = load(json{{"model_type", "gemma"},
                                {"hidden_size", 2048},
                                {"intermediate_size", 16384},
                                {"num_hidden_layers", 18},
                                {"num_attention_heads", 8},
                                {"num_key_value_heads", 1},
                                {"head_dim", 256},
                                {"hidden_act", "gelu"},
                                {"vocab_size", 256000}});
  CHECK(m.mlp == MlpKind::SwiGLU);
  CHECK(m.tied_embeddings);
  CHECK(m.norm == NormKind::RMSNorm);
  // Per layer 2048·(2048 + 2·1·256) + 2048² + 3·2048·16384 = 110,100,480; × 18 plus one
  // 256000 × 2048 embedding = 2,506,096,640 (the card: 2.51 B). Read as a 2-matrix GeLU MLP
  // with an untied head it would have been 2.43 B.
  CHECK(m.total_params() == 2'506'096'640LL);
}

TEST_CASE("hf config: Qwen2.5-7B's published count", "[hf_config]") {
  const ModelSpec m = load(json{{"model_type", "qwen2"},
                                {"hidden_size", 3584},
                                {"intermediate_size", 18944},
                                {"num_hidden_layers", 28},
                                {"num_attention_heads", 28},
                                {"num_key_value_heads", 4},
                                {"hidden_act", "silu"},
                                {"tie_word_embeddings", false},
                                {"vocab_size", 152064}});
  // Per layer 3584·(3584 + 2·4·128) + 3584² + 3·3584·18944 = 233,046,016; × 28 plus two
  // 152064 × 3584 embeddings = 7,615,283,200 (the card: 7.61 B).
  CHECK(m.total_params() == 7'615'283'200LL);
  CHECK(m.kv_heads == 4);
}

TEST_CASE("hf config: GPT-style families under their own key names", "[hf_config]") {
  // openai-community/gpt2: n_embd, n_layer, n_head, n_inner null (4·h), tied, learned positions.
  const ModelSpec g = load(json{{"model_type", "gpt2"},
                                {"n_embd", 768},
                                {"n_layer", 12},
                                {"n_head", 12},
                                {"n_inner", nullptr},
                                {"activation_function", "gelu_new"},
                                {"vocab_size", 50257}});
  CHECK(g.ffn_hidden == 3072);
  CHECK(g.mlp == MlpKind::GeLU);
  CHECK(g.position == PositionEmbedding::Learned);
  CHECK(g.norm == NormKind::LayerNorm);
  // 12 · 12·768² + 50257·768 = 84,934,656 + 38,597,376 = 123,532,032 (card 124.4 M, see top).
  CHECK(g.total_params() == 123'532'032LL);

  // mosaicml/mpt-7b: d_model, n_layers, n_heads, expansion_ratio, ALiBi in attn_config.
  const ModelSpec mpt = load(json{{"model_type", "mpt"},
                                  {"d_model", 4096},
                                  {"n_layers", 32},
                                  {"n_heads", 32},
                                  {"expansion_ratio", 4},
                                  {"attn_config", {{"alibi", true}}},
                                  {"vocab_size", 50432}});
  CHECK(mpt.ffn_hidden == 16384);
  CHECK(mpt.position == PositionEmbedding::Alibi);
  // 32 · 12·4096² + 50432·4096 = 6,442,450,944 + 206,569,472 = 6,649,020,416 (card: 6.7 B).
  CHECK(mpt.total_params() == 6'649'020'416LL);

  // tiiuae/falcon-7b: multi-query (one KV head), ffn 4·h, rotary, tied.
  const ModelSpec f = load(json{{"model_type", "falcon"},
                                {"hidden_size", 4544},
                                {"num_hidden_layers", 32},
                                {"num_attention_heads", 71},
                                {"multi_query", true},
                                {"alibi", false},
                                {"vocab_size", 65024}});
  CHECK(f.kv_heads == 1);
  CHECK(f.position == PositionEmbedding::Rotary);
  // Per layer 4544·(4544 + 2·64) + 4544² + 2·4544·18176 = 207,060,992; × 32 plus 65024·4544
  // = 6,921,420,800 (the checkpoint: 6.92 B).
  CHECK(f.total_params() == 6'921'420'800LL);
}

TEST_CASE("hf config: what a dense ModelSpec cannot hold is refused by name", "[hf_config]") {
  // mistralai/Mixtral-8x7B-v0.1 read as dense would be 7.24 B instead of 46.7 B.
  const json mixtral{
      {"model_type", "mixtral"}, {"hidden_size", 4096},       {"intermediate_size", 14336},
      {"num_hidden_layers", 32}, {"num_attention_heads", 32}, {"num_key_value_heads", 8},
      {"num_local_experts", 8},  {"num_experts_per_tok", 2},  {"vocab_size", 32000}};
  CHECK_THAT(error_of(mixtral), Catch::Contains("models/x/config.json") &&
                                    Catch::Contains("\"num_local_experts\": 8") &&
                                    Catch::Contains("mixture-of-experts"));
  // A Llama-typed config with an expert count is refused too (the key, not the type).
  json llama_moe = mixtral;
  llama_moe["model_type"] = "llama";
  CHECK_THAT(error_of(llama_moe), Catch::Contains("num_local_experts"));
  // deepseek-ai/DeepSeek-V3: experts and latent attention.
  CHECK_THAT(error_of(json{{"model_type", "deepseek_v3"}, {"n_routed_experts", 256}}),
             Catch::Contains("\"n_routed_experts\": 256"));
  CHECK_THAT(error_of(json{{"model_type", "llama"}, {"kv_lora_rank", 512}}),
             Catch::Contains("kv_lora_rank") && Catch::Contains("latent attention"));
  // The type alone, when a config leaves the count out.
  CHECK_THAT(error_of(json{{"model_type", "qwen3_moe"}}), Catch::Contains("\"qwen3_moe\""));
  // google/gemma-7b: head_dim 256, but 3072 / 16 = 192.
  CHECK_THAT(error_of(json{{"model_type", "gemma"},
                           {"hidden_size", 3072},
                           {"intermediate_size", 24576},
                           {"num_hidden_layers", 28},
                           {"num_attention_heads", 16},
                           {"head_dim", 256},
                           {"vocab_size", 256000}}),
             Catch::Contains("\"head_dim\": 256") && Catch::Contains("3072 / 16 = 192"));
  // facebook/opt-350m projects its 512-wide embedding up to 1024.
  CHECK_THAT(error_of(json{{"model_type", "opt"},
                           {"hidden_size", 1024},
                           {"ffn_dim", 4096},
                           {"num_hidden_layers", 24},
                           {"num_attention_heads", 16},
                           {"word_embed_proj_dim", 512},
                           {"vocab_size", 50272}}),
             Catch::Contains("word_embed_proj_dim"));
  // An architecture it does not know, listing those it does.
  CHECK_THAT(error_of(json{{"model_type", "t5"}, {"d_model", 512}}),
             Catch::Contains("model_type \"t5\"") && Catch::Contains("llama, mistral") &&
                 Catch::Contains("model: {layers:"));
  // A size under none of its names.
  CHECK_THAT(error_of(json{{"model_type", "llama"}}),
             Catch::Contains("\"hidden_size\" must be an integer in [1, 1048576], got nothing"));
}

TEST_CASE("hf config: without model_type the Llama names and hidden_act decide", "[hf_config]") {
  const json base{{"hidden_size", 256},       {"intermediate_size", 1024}, {"num_hidden_layers", 2},
                  {"num_attention_heads", 8}, {"vocab_size", 1000},        {"hidden_act", "gelu"},
                  {"layer_norm_eps", 1e-05}};
  const ModelSpec m = load(base);
  CHECK(m.mlp == MlpKind::GeLU);
  CHECK(m.norm == NormKind::LayerNorm);
  CHECK_FALSE(m.tied_embeddings);
  CHECK(m.name == "x");  // the config's folder
  json silu = base;
  silu["hidden_act"] = "silu";
  CHECK(load(silu).mlp == MlpKind::SwiGLU);
}

TEST_CASE("hf config: the key table names every family read", "[hf_config]") {
  const SchemaKey* key = find_key("model.hf_config");
  REQUIRE(key != nullptr);
  for (const std::string& type : hf_model_types()) {
    INFO(type);
    const bool listed = key->doc.find(type + ",") != std::string_view::npos ||
                        key->doc.find(type + ":") != std::string_view::npos;
    CHECK(listed);
  }
}
