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

TEST_CASE("hf config: mixtures of experts count their published totals and active parameters",
          "[hf_config]") {
  // mistralai/Mixtral-8x7B-v0.1. Attention 4096·(32 + 2·8)·128 + 32·128·4096 = 41,943,040;
  // MoE MLP: router 4096·8 + 8 experts · 3·4096·14336 = 1,409,318,912; × 32 layers plus two
  // 32000 × 4096 embeddings = 46,702,526,464 (the paper: 46.7 B). Active: 2 experts,
  // 41,943,040 + 32,768 + 2·176,160,768 = 394,297,344 per layer → 12,879,659,008 (12.9 B).
  const json mixtral{
      {"model_type", "mixtral"}, {"hidden_size", 4096},       {"intermediate_size", 14336},
      {"num_hidden_layers", 32}, {"num_attention_heads", 32}, {"num_key_value_heads", 8},
      {"num_local_experts", 8},  {"num_experts_per_tok", 2},  {"vocab_size", 32000}};
  const ModelSpec m = load(mixtral);
  CHECK(m.moe.experts == 8);
  CHECK(m.moe.top_k == 2);
  CHECK(m.expert_ffn() == 14336);
  CHECK(m.total_params() == 46'702'526'464LL);
  CHECK(m.active_params() == 12'879'659'008LL);
  CHECK(parameter_summary(m) == "46.7 B parameters, 12.9 B active per token");
  // A dense read would have been 7.24 B: the preset agrees with the config.
  CHECK(find_model_preset("mixtral-8x7b")->total_params() == m.total_params());

  // Qwen/Qwen1.5-MoE-A2.7B (qwen2_moe): 60 experts of 1408, top 4, a shared expert of 5632.
  // Per layer: attention 4·2048² = 16,777,216; router 2048·60 = 122,880; experts
  // 60·3·2048·1408 = 519,045,120; shared 3·2048·5632 = 34,603,008 → 570,548,224; × 24 plus two
  // 151936 × 2048 embeddings = 14,315,487,232 (the card: 14.3 B). Active: 4 experts (34,603,008)
  // → 86,106,112 per layer → 2,688,876,544 (2.7 B).
  const ModelSpec q = load(json{{"model_type", "qwen2_moe"},
                                {"hidden_size", 2048},
                                {"intermediate_size", 5632},
                                {"moe_intermediate_size", 1408},
                                {"shared_expert_intermediate_size", 5632},
                                {"num_hidden_layers", 24},
                                {"num_attention_heads", 16},
                                {"num_key_value_heads", 16},
                                {"num_experts", 60},
                                {"num_experts_per_tok", 4},
                                {"decoder_sparse_step", 1},
                                {"mlp_only_layers", json::array()},
                                {"tie_word_embeddings", false},
                                {"vocab_size", 151936}});
  CHECK(q.moe.shared_ffn_hidden == 5632);
  CHECK(q.total_params() == 14'315'487'232LL);
  CHECK(q.active_params() == 2'688'876'544LL);

  // Qwen/Qwen3-30B-A3B (qwen3_moe): head_dim 128 although 2048 / 32 = 64. Attention
  // 2048·(32 + 2·4)·128 + 32·128·2048 = 18,874,368; router 262,144; experts 128·3·2048·768 =
  // 603,979,776; × 48 plus two 151936 × 2048 embeddings = 30,531,911,680 (the report: 30.5 B).
  // Active, 8 experts: (18,874,368 + 262,144 + 37,748,736) · 48 + 622,329,856 = 3,352,821,760.
  const ModelSpec q3 = load(json{{"model_type", "qwen3_moe"},
                                 {"hidden_size", 2048},
                                 {"intermediate_size", 6144},
                                 {"moe_intermediate_size", 768},
                                 {"head_dim", 128},
                                 {"num_hidden_layers", 48},
                                 {"num_attention_heads", 32},
                                 {"num_key_value_heads", 4},
                                 {"num_experts", 128},
                                 {"num_experts_per_tok", 8},
                                 {"vocab_size", 151936}});
  CHECK(q3.head_dim() == 128);
  CHECK(q3.total_params() == 30'531'911'680LL);
  CHECK(q3.active_params() == 3'352'821'760LL);
  CHECK(find_model_preset("qwen3-30b-a3b")->total_params() == q3.total_params());

  // allenai/OLMoE-1B-7B-0924: 64 experts of intermediate_size 1024, top 8. Per layer
  // 4·2048² + 2048·64 + 64·3·2048·1024 = 419,561,472; × 16 + 2·50304·2048 = 6,919,028,736
  // (6.9 B); active 16,777,216 + 131,072 + 8·6,291,456 = 67,239,936 → 1,281,884,160 (1.3 B).
  const ModelSpec o = load(json{{"model_type", "olmoe"},
                                {"hidden_size", 2048},
                                {"intermediate_size", 1024},
                                {"num_hidden_layers", 16},
                                {"num_attention_heads", 16},
                                {"num_experts", 64},
                                {"num_experts_per_tok", 8},
                                {"vocab_size", 50304}});
  CHECK(o.total_params() == 6'919'028'736LL);
  CHECK(o.active_params() == 1'281'884'160LL);
}

TEST_CASE("hf config: DeepSeek's latent attention, shared experts and dense first layers",
          "[hf_config]") {
  // deepseek-ai/DeepSeek-V3 (its num_nextn_predict_layers set to 0 first: see below). Per layer,
  // latent attention: q down 7168·1536 = 11,010,048, q up 1536·128·192 = 37,748,736, kv down
  // 7168·(512 + 64) = 4,128,768, kv up 512·128·256 = 16,777,216, output 128·128·7168 =
  // 117,440,512: 187,105,280. Three dense layers of 3·7168·18432 = 396,361,728; 58 MoE layers of
  // router 7168·256 + 3·7168·(256·2048 + 2048) = 11,320,164,352. With two 129280 × 7168
  // embeddings: 671,025,397,760 (the paper: 671 B). Active, 8 experts and the shared one:
  // 7168·256 + 3·7168·9·2048 = 398,196,736 per MoE layer → 37,551,276,032 (the paper: 37 B,
  // which leaves out the input embedding's 0.93 B lookup; trainsim counts every weight a token
  // touches, as Mixtral's 12.9 B does).
  json v3{{"model_type", "deepseek_v3"}, {"hidden_size", 7168},
          {"intermediate_size", 18432},  {"moe_intermediate_size", 2048},
          {"num_hidden_layers", 61},     {"num_attention_heads", 128},
          {"num_key_value_heads", 128},  {"n_routed_experts", 256},
          {"n_shared_experts", 1},       {"num_experts_per_tok", 8},
          {"first_k_dense_replace", 3},  {"moe_layer_freq", 1},
          {"q_lora_rank", 1536},         {"kv_lora_rank", 512},
          {"qk_rope_head_dim", 64},      {"qk_nope_head_dim", 128},
          {"v_head_dim", 128},           {"num_nextn_predict_layers", 0},
          {"vocab_size", 129280}};
  const ModelSpec m = load(v3);
  CHECK(m.is_mla());
  CHECK(m.qk_head_dim() == 192);
  CHECK(m.attention_params() == 187'105'280);
  CHECK(m.moe.dense_layers == 3);
  CHECK(m.moe.shared_ffn_hidden == 2048);
  CHECK(m.total_params() == 671'025'397'760LL);
  CHECK(m.active_params() == 37'551'276'032LL);
  CHECK(find_model_preset("deepseek-v3")->total_params() == m.total_params());
  CHECK(m.mtp_layers == 0);
  // The released config's multi-token prediction module, read: one module of a 2·7168² =
  // 102,760,448 projection and a MoE layer of 187,105,280 + 11,320,164,352, 11,610,030,080 in
  // all (DeepSeek's 14 B also counts its copies of the embedding and head, 2 · 0.93 B), not in
  // the model's count; the preset has it too.
  v3["num_nextn_predict_layers"] = 1;
  const ModelSpec with_mtp = load(v3);
  CHECK(with_mtp.mtp_layers == 1);
  CHECK(with_mtp.mtp_module_params() == 11'610'030'080LL);
  CHECK(with_mtp.total_params() == m.total_params());
  CHECK(find_model_preset("deepseek-v3")->mtp_layers == 1);
  v3["num_nextn_predict_layers"] = -1;
  CHECK_THAT(error_of(v3), Catch::Contains("\"num_nextn_predict_layers\" must be an integer in "
                                           "[0, ") &&
                               Catch::Contains("got -1"));

  // deepseek-ai/DeepSeek-V2-Lite: Q projected directly (q_lora_rank null), 64 experts of 1408
  // (top 6), 2 shared, the first layer dense. Attention 2048·16·192 + 2048·576 + 512·16·256 +
  // 16·128·2048 = 13,762,560; MoE layer 2048·64 + 3·2048·(64·1408 + 2816) = 571,080,704; dense
  // 3·2048·10944 = 67,239,936: 27 · 13,762,560 + 67,239,936 + 26 · 571,080,704 + 2·102400·2048
  // = 15,706,357,760 (the card: 15.7 B).
  const ModelSpec lite = load(json{{"model_type", "deepseek_v2"},
                                   {"hidden_size", 2048},
                                   {"intermediate_size", 10944},
                                   {"moe_intermediate_size", 1408},
                                   {"num_hidden_layers", 27},
                                   {"num_attention_heads", 16},
                                   {"n_routed_experts", 64},
                                   {"n_shared_experts", 2},
                                   {"num_experts_per_tok", 6},
                                   {"first_k_dense_replace", 1},
                                   {"q_lora_rank", nullptr},
                                   {"kv_lora_rank", 512},
                                   {"qk_rope_head_dim", 64},
                                   {"qk_nope_head_dim", 128},
                                   {"v_head_dim", 128},
                                   {"vocab_size", 102400}});
  CHECK(lite.mla.q_rank == 0);
  CHECK(lite.attention_params() == 13'762'560);
  CHECK(lite.total_params() == 15'706'357'760LL);
}

TEST_CASE("hf config: what the ModelSpec cannot hold is refused by name", "[hf_config]") {
  const json mixtral{
      {"model_type", "mixtral"}, {"hidden_size", 4096},       {"intermediate_size", 14336},
      {"num_hidden_layers", 32}, {"num_attention_heads", 32}, {"num_key_value_heads", 8},
      {"num_local_experts", 8},  {"num_experts_per_tok", 2},  {"vocab_size", 32000}};
  // A Llama-typed config with an expert count is refused (the key, not the type): its family's
  // layers would be read as dense.
  json llama_moe = mixtral;
  llama_moe["model_type"] = "llama";
  CHECK_THAT(error_of(llama_moe), Catch::Contains("models/x/config.json") &&
                                      Catch::Contains("\"num_local_experts\": 8") &&
                                      Catch::Contains("mixture-of-experts"));
  // A MoE family without its top-k.
  json no_top_k = mixtral;
  no_top_k.erase("num_experts_per_tok");
  CHECK_THAT(error_of(no_top_k), Catch::Contains("\"num_experts_per_tok\""));
  // Qwen's MoE layer patterns other than "every layer".
  json sparse_step = mixtral;
  sparse_step["model_type"] = "qwen3_moe";
  sparse_step["decoder_sparse_step"] = 2;
  CHECK_THAT(error_of(sparse_step), Catch::Contains("\"decoder_sparse_step\": 2"));
  json dense_layers = mixtral;
  dense_layers["model_type"] = "qwen2_moe";
  dense_layers["mlp_only_layers"] = json::array({0, 5});
  CHECK_THAT(error_of(dense_layers), Catch::Contains("\"mlp_only_layers\": [0,5]"));
  // Experts under another family's type are not read as its dense MLP.
  CHECK_THAT(error_of(json{{"model_type", "qwen2"}, {"n_routed_experts", 256}}),
             Catch::Contains("\"n_routed_experts\": 256"));
  CHECK_THAT(error_of(json{{"model_type", "llama"}, {"kv_lora_rank", 512}}),
             Catch::Contains("kv_lora_rank") && Catch::Contains("latent attention"));
  // The type alone, when a config leaves the count out.
  CHECK_THAT(error_of(json{{"model_type", "dbrx"}}), Catch::Contains("\"dbrx\""));
  // google/gemma-7b: head_dim 256 where 3072 / 16 = 192 is now read: 28 layers of
  // 3072·(16 + 2·16)·256 + 16·256·3072 + 3·3072·24576 = 276,824,064 plus the tied 256000 × 3072
  // embedding = 8,537,505,792 (the card: 8.54 B).
  const ModelSpec gemma = load(json{{"model_type", "gemma"},
                                    {"hidden_size", 3072},
                                    {"intermediate_size", 24576},
                                    {"num_hidden_layers", 28},
                                    {"num_attention_heads", 16},
                                    {"head_dim", 256},
                                    {"vocab_size", 256000}});
  CHECK(gemma.head_dim() == 256);
  CHECK(gemma.total_params() == 8'537'505'792LL);
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

TEST_CASE("hf config: a sliding window is read unless the config turns it off", "[hf_config]") {
  // mistralai/Mistral-7B-v0.1: a 4,096-token window; Mistral-7B-v0.3: null (none); Qwen2.5-7B:
  // sliding_window 131072 beside use_sliding_window false (not used).
  json mistral{{"model_type", "mistral"}, {"hidden_size", 4096},       {"intermediate_size", 14336},
               {"num_hidden_layers", 32}, {"num_attention_heads", 32}, {"num_key_value_heads", 8},
               {"vocab_size", 32000},     {"sliding_window", 4096}};
  CHECK(load(mistral).sliding_window == 4096);
  mistral["sliding_window"] = nullptr;
  CHECK(load(mistral).sliding_window == 0);
  mistral["sliding_window"] = 131072;
  mistral["use_sliding_window"] = false;
  CHECK(load(mistral).sliding_window == 0);
  mistral["use_sliding_window"] = true;
  CHECK(load(mistral).sliding_window == 131072);
  mistral["sliding_window"] = "4k";
  CHECK_THAT(error_of(mistral), Catch::Contains("\"sliding_window\" must be an integer"));
}
