#include "scenario/hf_config.h"

#include <algorithm>  // std::find_if
#include <array>      // std::array
#include <filesystem>
#include <initializer_list>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_text.h"
#include "scenario/limits.h"

namespace trainsim {
namespace {

/// One architecture family as Hugging Face transformers' `*Config` class and modelling code
/// define it (github.com/huggingface/transformers, src/transformers/models/<type>/): whether the
/// MLP is gated (gate, up and down projections: Llama's SwiGLU, Gemma's GeGLU) or plain (up,
/// down), the `tie_word_embeddings` default of the class (PretrainedConfig's is true; Llama,
/// Mistral, Qwen, Phi, GPT-NeoX and GPT-J override it with false), the positions and the norm.
/// A plain MLP without a width key is 4·h wide (GPT-2's `n_inner: null`, BLOOM, Falcon).
struct Family {
  std::string_view type;
  bool gated;
  bool tied_default;
  PositionEmbedding position;
  NormKind norm;
  bool moe = false;     ///< a mixture-of-experts family whose expert keys are read
  bool latent = false;  ///< a family whose latent-attention keys are read (DeepSeek)
};

using namespace limits;
using enum PositionEmbedding;
using enum NormKind;
constexpr std::array kFamilies{
    Family{"llama", true, false, Rotary, RMSNorm},
    Family{"mistral", true, false, Rotary, RMSNorm},
    Family{"qwen2", true, false, Rotary, RMSNorm},
    Family{"qwen3", true, false, Rotary, RMSNorm},
    Family{"gemma", true, true, Rotary, RMSNorm},
    Family{"gemma2", true, true, Rotary, RMSNorm},
    Family{"phi3", true, false, Rotary, RMSNorm},
    Family{"olmo2", true, false, Rotary, RMSNorm},
    Family{"gpt_neox", false, false, Rotary, LayerNorm},
    Family{"gptj", false, false, Rotary, LayerNorm},
    Family{"phi", false, false, Rotary, LayerNorm},
    Family{"gpt2", false, true, Learned, LayerNorm},
    Family{"opt", false, true, Learned, LayerNorm},
    Family{"bloom", false, true, Alibi, LayerNorm},
    Family{"falcon", false, true, Rotary, LayerNorm},  // `alibi: true` in the config: ALiBi
    Family{"mpt", false, true, Learned, LayerNorm},    // `attn_config.alibi: true`: ALiBi
    // Mixtures of experts: every layer's MLP is routed experts (Mixtral, OLMoE: of width
    // `intermediate_size`; Qwen: `moe_intermediate_size`, plus Qwen2-MoE's shared expert).
    Family{"mixtral", true, false, Rotary, RMSNorm, true},
    Family{"qwen2_moe", true, false, Rotary, RMSNorm, true},
    Family{"qwen3_moe", true, false, Rotary, RMSNorm, true},
    Family{"olmoe", true, false, Rotary, RMSNorm, true},
    // DeepSeek-V2/V3: shared experts (`n_shared_experts` of `moe_intermediate_size`), the first
    // `first_k_dense_replace` layers dense, and latent attention.
    Family{"deepseek_v2", true, false, Rotary, RMSNorm, true, true},
    Family{"deepseek_v3", true, false, Rotary, RMSNorm, true, true},
};

/// Mixture-of-experts model types not read (their routing or layer pattern is not modelled:
/// DBRX's and Jamba's own layouts, Llama 4's interleaved MoE layers, …); refused by type in
/// case a config omits the expert count.
constexpr std::array<std::string_view, 7> kMoeTypes{"dbrx",   "jamba",       "granitemoe", "phimoe",
                                                    "llama4", "llama4_text", "jetmoe"};

/// The keys whose value makes the model a mixture of experts when it is above 1 (Mixtral,
/// Llama 4; Qwen-MoE, OLMoE; DeepSeek; DBRX's `ffn_config`), and those of DeepSeek's
/// multi-head latent attention (a low-rank KV projection) when not null.
constexpr std::array<std::string_view, 4> kExpertKeys{"num_local_experts", "num_experts",
                                                      "n_routed_experts", "moe_num_experts"};
constexpr std::array<std::string_view, 2> kLatentKeys{"kv_lora_rank", "q_lora_rank"};

class ConfigReader {
 public:
  ConfigReader(const nlohmann::json& j, std::string file) : j_(j), file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(fmt::format("{}: {}", file_, what));
  }

  /// The first of `keys` the config gives (not null), or nullptr.
  const nlohmann::json* first(std::initializer_list<const char*> keys,
                              const char** found = nullptr) const {
    for (const char* k : keys)
      if (j_.contains(k) && !j_[k].is_null()) {
        if (found) *found = k;
        return &j_[k];
      }
    return nullptr;
  }

  /// An integer in [1, max] under the first of `keys`; required unless `fallback` > 0.
  long long size(std::initializer_list<const char*> keys, long long max,
                 long long fallback = 0) const {
    const char* key = *keys.begin();
    const nlohmann::json* v = first(keys, &key);
    if (!v && fallback > 0) return fallback;
    if (!v || !v->is_number_integer() || v->get<long long>() < 1 || v->get<long long>() > max)
      fail(fmt::format("\"{}\" must be an integer in [1, {}], got {}", key, max,
                       v ? json_text(*v) : "nothing"));
    return v->get<long long>();
  }

  template <typename T>
  T optional(const char* key, T fallback) const {
    const nlohmann::json* v = first({key});
    if (!v) return fallback;
    const bool ok = std::is_same_v<T, bool> ? v->is_boolean() : v->is_string();
    if (!ok)
      fail(fmt::format("\"{}\" must be {}, got {}", key,
                       std::is_same_v<T, bool> ? "true or false" : "text", json_text(*v)));
    return v->get<T>();
  }

  const nlohmann::json& json() const { return j_; }

 private:
  const nlohmann::json& j_;
  std::string file_;
};

const Family* find_family(std::string_view type) {
  auto it = std::find_if(kFamilies.begin(), kFamilies.end(),
                         [&](const Family& f) { return f.type == type; });
  return it == kFamilies.end() ? nullptr : &*it;
}

/// Refuses what ModelSpec cannot hold, naming the field.
void refuse_unmodelled(const ConfigReader& c, const std::string& type, const Family* family) {
  const nlohmann::json& j = c.json();
  constexpr const char* kDense =
      "trainsim reads the experts of the mixtral, qwen2_moe, qwen3_moe, olmoe, deepseek_v2 and "
      "deepseek_v3 families only and would count a smaller dense model";
  if (!family || !family->moe)
    for (std::string_view key : kExpertKeys) {
      const std::string k(key);
      if (j.contains(k) && j[k].is_number() && j[k].get<double>() > 1)
        c.fail(fmt::format("\"{}\": {} makes this a mixture-of-experts model; {}", k,
                           json_text(j[k]), kDense));
    }
  if (j.contains("ffn_config") && j["ffn_config"].is_object() &&
      j["ffn_config"].contains("moe_num_experts"))
    c.fail(fmt::format("\"ffn_config.moe_num_experts\" makes this a mixture-of-experts model; {}",
                       kDense));
  if (std::find(kMoeTypes.begin(), kMoeTypes.end(), type) != kMoeTypes.end())
    c.fail(fmt::format("model_type \"{}\" is a mixture-of-experts model; {}", type, kDense));
  for (std::string_view key : kLatentKeys) {
    const std::string k(key);
    if (j.contains(k) && !j[k].is_null() && !(family && family->latent))
      c.fail(
          fmt::format("\"{}\": {} is DeepSeek's multi-head latent attention (a low-rank KV "
                      "projection), which trainsim does not model yet",
                      k, json_text(j[k])));
  }
}

/// The experts of a MoE family's config: every layer routed, unless the config says otherwise
/// in a way not modelled (Qwen's `decoder_sparse_step` and `mlp_only_layers`), which is refused.
MoeSpec read_experts(const ConfigReader& c, std::int64_t ffn_hidden) {
  MoeSpec e;
  e.experts = static_cast<int>(
      c.size({"num_local_experts", "num_experts", "n_routed_experts"}, limits::kMaxExperts));
  if (e.experts < 2)
    c.fail(fmt::format("a mixture-of-experts family with {} expert: give 2 or more", e.experts));
  e.top_k = static_cast<int>(c.size({"num_experts_per_tok"}, e.experts));
  const std::int64_t width = c.size({"moe_intermediate_size"}, limits::kMaxWidth, ffn_hidden);
  e.ffn_hidden = width == ffn_hidden ? 0 : width;
  if (c.first({"shared_expert_intermediate_size"}))
    e.shared_ffn_hidden = c.size({"shared_expert_intermediate_size"}, limits::kMaxWidth);
  if (c.first({"n_shared_experts"}))  // DeepSeek: shared experts as wide as the routed ones
    e.shared_ffn_hidden = c.size({"n_shared_experts"}, limits::kMaxExperts) * width;
  if (const nlohmann::json* dense = c.first({"first_k_dense_replace"})) {
    if (!dense->is_number_integer() || dense->get<long long>() < 0 ||
        dense->get<long long>() > limits::kMaxLayers)
      c.fail(fmt::format("\"first_k_dense_replace\" must be an integer in [0, {}], got {}",
                         limits::kMaxLayers, json_text(*dense)));
    e.dense_layers = dense->get<int>();
  }
  if (const nlohmann::json* freq = c.first({"moe_layer_freq"});
      freq && !(freq->is_number_integer() && freq->get<long long>() == 1))
    c.fail(
        fmt::format("\"moe_layer_freq\": {} puts experts in only some layers; trainsim "
                    "models MoE in every layer after the first_k_dense_replace",
                    json_text(*freq)));
  if (const nlohmann::json* step = c.first({"decoder_sparse_step"});
      step && !(step->is_number_integer() && step->get<long long>() == 1))
    c.fail(
        fmt::format("\"decoder_sparse_step\": {} puts experts in every {}th layer only; "
                    "trainsim models MoE in every layer (after model.moe.dense_layers)",
                    json_text(*step), json_text(*step)));
  if (const nlohmann::json* dense = c.first({"mlp_only_layers"});
      dense && !(dense->is_array() && dense->empty()))
    c.fail(
        fmt::format("\"mlp_only_layers\": {} makes chosen layers dense; trainsim models the "
                    "first N layers dense only (model.moe.dense_layers)",
                    json_text(*dense)));
  return e;
}

}  // namespace

std::vector<std::string> hf_model_types() {
  std::vector<std::string> out;
  for (const Family& f : kFamilies) out.emplace_back(f.type);
  return out;
}

ModelSpec model_from_hf_json(const nlohmann::json& j, const std::string& file) {
  const ConfigReader c(j, file);
  if (!j.is_object()) c.fail("expected a JSON object");
  const std::string type = c.optional("model_type", std::string());
  const Family* family = type.empty() ? nullptr : find_family(type);
  refuse_unmodelled(c, type, family);
  if (!type.empty() && !family) {
    std::string known;
    for (const Family& f : kFamilies) known += (known.empty() ? "" : ", ") + std::string(f.type);
    c.fail(
        fmt::format("model_type \"{}\" is not a family trainsim reads (it reads {}); give the "
                    "model's sizes as keys instead (model: {{layers: …, hidden: …, …}}, "
                    "scenarios/README.md)",
                    type, known));
  }

  ModelSpec m;
  const std::filesystem::path p(file);
  m.name = c.optional("_name_or_path", p.parent_path().filename().string());
  if (m.name.empty()) m.name = p.stem().string();
  // The sizes under each family's names (GPT-2 and GPT-J `n_embd`, BLOOM `n_embed`, MPT
  // `d_model`, OPT `ffn_dim`, Falcon `ffn_hidden_size`, …).
  m.hidden = c.size({"hidden_size", "n_embd", "n_embed", "d_model"}, kMaxWidth);
  m.layers = static_cast<int>(
      c.size({"num_hidden_layers", "n_layer", "n_layers", "num_layers"}, kMaxLayers));
  m.heads = static_cast<int>(c.size({"num_attention_heads", "n_head", "n_heads"}, kMaxHeads));
  const bool gated = family ? family->gated : [&] {
    const std::string act = c.optional("hidden_act", std::string("silu"));
    return act == "silu" || act == "swiglu";
  }();
  long long plain_width = 0;  // a plain MLP's default width, 4·h (MPT: expansion_ratio·h)
  if (!gated) {
    plain_width = 4 * m.hidden;
    if (const nlohmann::json* r = c.first({"expansion_ratio"})) {
      if (!r->is_number_integer() || r->get<long long>() < 1 || r->get<long long>() > 64)
        c.fail(fmt::format("\"expansion_ratio\" must be an integer in [1, 64], got {}",
                           json_text(*r)));
      plain_width = r->get<long long>() * m.hidden;
    }
  }
  m.ffn_hidden = c.size({"intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size"}, kMaxWidth,
                        std::min(plain_width, kMaxWidth));
  m.kv_heads = m.heads;
  if (c.first({"num_key_value_heads", "num_kv_heads"}))
    m.kv_heads = static_cast<int>(c.size({"num_key_value_heads", "num_kv_heads"}, kMaxHeads));
  else if (type == "falcon" && c.optional("multi_query", false))
    m.kv_heads = 1;
  m.vocab = c.size({"vocab_size"}, kMaxVocab);
  m.tied_embeddings = c.optional("tie_word_embeddings", family ? family->tied_default : false);
  m.mlp = gated ? MlpKind::SwiGLU : MlpKind::GeLU;
  if (family) {
    m.position = family->position;
    m.norm = family->norm;
    if (type == "falcon" && c.optional("alibi", false)) m.position = PositionEmbedding::Alibi;
    if (type == "mpt" && j.contains("attn_config") && j["attn_config"].is_object() &&
        j["attn_config"].value("alibi", false))
      m.position = PositionEmbedding::Alibi;
  } else if (!j.contains("rms_norm_eps") &&
             (j.contains("layer_norm_eps") || j.contains("layer_norm_epsilon"))) {
    // Llama-style configs name rms_norm_eps; GPT-style ones layer_norm_eps or _epsilon.
    m.norm = NormKind::LayerNorm;
  }

  if (family && family->moe) m.moe = read_experts(c, m.ffn_hidden);
  if (family && family->latent && c.first({"kv_lora_rank"})) {
    m.mla.kv_rank = c.size({"kv_lora_rank"}, kMaxWidth);
    if (c.first({"q_lora_rank"})) m.mla.q_rank = c.size({"q_lora_rank"}, kMaxWidth);
    m.mla.rope_dim = c.size({"qk_rope_head_dim"}, kMaxWidth);
    m.mla.nope_dim = c.size({"qk_nope_head_dim"}, kMaxWidth);
    m.mla.v_dim = c.size({"v_head_dim"}, kMaxWidth);
  }
  // DeepSeek-V3's multi-token prediction modules (MiMo and GLM-4.5 name them alike).
  if (const nlohmann::json* mtp = c.first({"num_nextn_predict_layers"})) {
    if (!mtp->is_number_integer() || mtp->get<long long>() < 0 ||
        mtp->get<long long>() > kMaxLayers)
      c.fail(fmt::format("\"num_nextn_predict_layers\" must be an integer in [0, {}], got {}",
                         kMaxLayers, json_text(*mtp)));
    m.mtp_layers = mtp->get<int>();
  }

  // Gemma's and Qwen3's head size is its own; others' is h / a.
  if (const nlohmann::json* d = c.first({"head_dim"}))
    if (!d->is_number_integer() || d->get<long long>() != m.hidden / m.heads ||
        m.hidden % m.heads != 0)
      m.head_size = c.size({"head_dim"}, kMaxWidth);
  // Sliding-window attention (Mistral, Gemma 2, Phi-3): the window, unless the config turns it
  // off (Qwen2's `use_sliding_window: false` beside a `sliding_window` it then ignores).
  if (c.first({"sliding_window"}) && c.optional("use_sliding_window", true))
    m.sliding_window = c.size({"sliding_window"}, kMaxSeqLen);
  // What ModelSpec would get wrong rather than hold.
  if (m.head_size == 0 && !m.is_mla() && m.hidden % m.heads != 0)
    c.fail(
        fmt::format("hidden size {} is not divisible by {} heads (and no \"head_dim\" is "
                    "given)",
                    m.hidden, m.heads));
  if (const nlohmann::json* w = c.first({"word_embed_proj_dim"});
      w && !(w->is_number_integer() && w->get<long long>() == m.hidden))
    c.fail(
        fmt::format("\"word_embed_proj_dim\": {} differs from the hidden size {} (OPT's "
                    "embedding projection), which trainsim does not model",
                    json_text(*w), m.hidden));
  return m;
}

}  // namespace trainsim
