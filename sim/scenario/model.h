#pragma once
// The transformer being trained: a decoder with GQA attention and a SwiGLU (Llama) or GELU (GPT)
// MLP. Pure data plus the parameter counts of domain.md §1. Does not model: MoE, biases, norms'
// parameters (2h per layer, negligible), rotary tables.
#include <cstdint>  // std::int64_t
#include <string>   // std::string
#include <vector>   // std::vector

namespace trainsim {

enum class MlpKind { SwiGLU, GeLU };
/// Rotary (Llama, GPT-NeoX) costs a kernel on q and k per layer; learned absolute (GPT-2/3)
/// and ALiBi (MPT, BLOOM) positions cost nothing measurable here.
enum class PositionEmbedding { Rotary, Learned, Alibi };
/// RMSNorm (Llama) or LayerNorm (GPT, MPT): the same bytes as one fused kernel; an eager
/// runtime runs RMSNorm as separate PyTorch ops (LayerNorm stays one ATen kernel).
enum class NormKind { RMSNorm, LayerNorm };

struct ModelSpec {
  std::string name;
  int layers = 0;
  std::int64_t hidden = 0;
  std::int64_t ffn_hidden = 0;
  int heads = 0;
  int kv_heads = 0;
  std::int64_t vocab = 0;
  bool tied_embeddings = false;
  MlpKind mlp = MlpKind::SwiGLU;
  PositionEmbedding position = PositionEmbedding::Rotary;
  NormKind norm = NormKind::RMSNorm;

  std::int64_t head_dim() const { return hidden / heads; }
  /// Parameters of one layer: QKV h·(h + 2·k·d) + out h² + MLP (3·h·f SwiGLU, 2·h·f GELU).
  std::int64_t params_per_layer() const;
  /// Input embedding V·h.
  std::int64_t embedding_params() const { return vocab * hidden; }
  /// LM head V·h, or 0 when tied to the input embedding.
  std::int64_t head_params() const { return tied_embeddings ? 0 : vocab * hidden; }
  std::int64_t total_params() const;
};

/// The named presets (llama-3.2-1b, llama-3.1-8b, llama-3.1-70b, llama-3.1-405b), or nullptr.
const ModelSpec* find_model_preset(const std::string& name);
std::vector<std::string> model_preset_names();

}  // namespace trainsim
