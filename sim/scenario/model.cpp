#include "scenario/model.h"

#include <array>

namespace trainsim {
namespace {

// From each model's Hugging Face config.json (meta-llama/*): hidden_size, num_hidden_layers,
// intermediate_size, num_attention_heads, num_key_value_heads, vocab_size, tie_word_embeddings.
const std::array<ModelSpec, 4> kPresets{{
    {"llama-3.2-1b", 16, 2048, 8192, 32, 8, 128256, true, MlpKind::SwiGLU},
    {"llama-3.1-8b", 32, 4096, 14336, 32, 8, 128256, false, MlpKind::SwiGLU},
    {"llama-3.1-70b", 80, 8192, 28672, 64, 8, 128256, false, MlpKind::SwiGLU},
    {"llama-3.1-405b", 126, 16384, 53248, 128, 8, 128256, false, MlpKind::SwiGLU},
}};

}  // namespace

std::int64_t ModelSpec::params_per_layer() const {
  const std::int64_t d = head_dim();
  const std::int64_t attn = hidden * (hidden + 2 * kv_heads * d) + hidden * hidden;
  const std::int64_t mlp_mats = mlp == MlpKind::SwiGLU ? 3 : 2;
  return attn + mlp_mats * hidden * ffn_hidden;
}

std::int64_t ModelSpec::total_params() const {
  return layers * params_per_layer() + embedding_params() + head_params();
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
