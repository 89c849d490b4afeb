#include "scenario/model.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "core/quantity.h"

namespace trainsim {
namespace {

using enum MlpKind;
using enum PositionEmbedding;
using enum NormKind;
// From each model's Hugging Face config.json (meta-llama/*, mistralai/Mixtral-8x7B-v0.1,
// Qwen/Qwen3-30B-A3B): hidden_size, num_hidden_layers, intermediate_size, num_attention_heads,
// num_key_value_heads, vocab_size, tie_word_embeddings, head_dim; num_local_experts or
// num_experts, num_experts_per_tok, moe_intermediate_size.
const std::array<ModelSpec, 7> kPresets{{
    {"llama-3.2-1b", 16, 2048, 8192, 32, 8, 128256, true, SwiGLU, Rotary, RMSNorm, 0, {}, {}},
    {"llama-3.1-8b", 32, 4096, 14336, 32, 8, 128256, false, SwiGLU, Rotary, RMSNorm, 0, {}, {}},
    {"llama-3.1-70b", 80, 8192, 28672, 64, 8, 128256, false, SwiGLU, Rotary, RMSNorm, 0, {}, {}},
    {"llama-3.1-405b",
     126,
     16384,
     53248,
     128,
     8,
     128256,
     false,
     SwiGLU,
     Rotary,
     RMSNorm,
     0,
     {},
     {}},
    // 46.7 B parameters, 12.9 B active (Jiang et al. 2024, arXiv 2401.04088).
    {"mixtral-8x7b",
     32,
     4096,
     14336,
     32,
     8,
     32000,
     false,
     SwiGLU,
     Rotary,
     RMSNorm,
     0,
     MoeSpec{8, 2, 14336, 0, 0},
     {}},
    // 30.5 B parameters, 3.3 B active (Qwen3 technical report, arXiv 2505.09388, Table 2).
    {"qwen3-30b-a3b",
     48,
     2048,
     6144,
     32,
     4,
     151936,
     false,
     SwiGLU,
     Rotary,
     RMSNorm,
     128,
     MoeSpec{128, 8, 768, 0, 0},
     {}},
    // deepseek-ai/DeepSeek-V3: 671 B parameters, 37 B active (arXiv 2412.19437, §1), trained
    // with one multi-token prediction module (§2.2, §4.2: depth D = 1; its 14 B, with copies of
    // the embedding and head, are not part of that count). Its routing sends each token to
    // experts on at most 4 nodes (§3.2.2).
    {"deepseek-v3", 61, 7168, 18432, 128, 128, 129280, false, SwiGLU, Rotary, RMSNorm, 0,
     MoeSpec{256, 8, 2048, 2048, 3, 1, 4}, LatentAttention{1536, 512, 64, 128, 128}, false, 1},
}};

}  // namespace

int ModelSpec::moe_layers_in(int first, int count) const {
  if (!is_moe()) return 0;
  return std::max(0, first + count - std::max(first, moe.dense_layers));
}

std::int64_t ModelSpec::attention_params() const {
  if (is_mla()) {
    const std::int64_t qk = qk_head_dim();
    const std::int64_t q =
        mla.q_rank > 0 ? hidden * mla.q_rank + mla.q_rank * heads * qk : hidden * heads * qk;
    return q + hidden * (mla.kv_rank + mla.rope_dim) +
           mla.kv_rank * heads * (mla.nope_dim + mla.v_dim) + heads * mla.v_dim * hidden;
  }
  const std::int64_t d = head_dim();
  return hidden * (heads + 2 * kv_heads) * d + heads * d * hidden;
}

std::int64_t ModelSpec::mlp_params(bool moe_layer) const {
  if (!moe_layer) return mlp_matrices() * hidden * ffn_hidden;
  return hidden * moe.experts +
         mlp_matrices() * hidden * (moe.experts * expert_ffn() + moe.shared_ffn_hidden);
}

std::int64_t ModelSpec::active_mlp_params(bool moe_layer) const {
  if (!moe_layer) return mlp_params(false);
  return hidden * moe.experts +
         mlp_matrices() * hidden * (moe.top_k * expert_ffn() + moe.shared_ffn_hidden);
}

std::int64_t ModelSpec::layer_params(int first, int count) const {
  const std::int64_t sparse = moe_layers_in(first, count);
  return count * attention_params() + (count - sparse) * mlp_params(false) +
         sparse * mlp_params(true);
}

std::int64_t ModelSpec::total_params() const {
  return layer_params(0, layers) + embedding_params() + head_params();
}

std::int64_t ModelSpec::active_params() const {
  const std::int64_t sparse = moe_layers_in(0, layers);
  return layers * attention_params() + (layers - sparse) * mlp_params(false) +
         sparse * active_mlp_params(true) + embedding_params() + head_params();
}

std::string edits_note(const std::vector<std::string>& edits) {
  std::string out;
  for (const std::string& e : edits) out += (out.empty() ? " (" : ", ") + e;
  return out.empty() ? out : out + ")";
}

std::string parameter_summary(const ModelSpec& m) {
  std::string s = format_count(static_cast<double>(m.total_params())) + " parameters";
  if (m.is_moe())
    s += fmt::format(", {} active per token", format_count(static_cast<double>(m.active_params())));
  if (m.mtp_layers > 0)
    s += fmt::format(" (+ {} in {} multi-token prediction module{})",
                     format_count(static_cast<double>(m.mtp_layers * m.mtp_module_params())),
                     m.mtp_layers, m.mtp_layers == 1 ? "" : "s");
  return s;
}

const ModelSpec* find_model_preset(const std::string& name) {
  for (const auto& m : kPresets)
    if (m.name == name) return &m;
  return nullptr;
}

std::vector<std::string> model_preset_names() {
  std::vector<std::string> names;
  for (const auto& m : kPresets) names.push_back(m.name);
  return names;
}

}  // namespace trainsim
