#pragma once
// The transformer being trained: a decoder with GQA attention and a SwiGLU (Llama) or GELU (GPT)
// MLP, or a mixture of experts in place of the MLP (Mixtral, Qwen-MoE, OLMoE, DeepSeek), and
// GQA or DeepSeek's latent attention. Pure data plus its parameter counts.
// Does not count: biases' and norms' parameters (under 0.05 % of a layer's), rotary tables.
#include <algorithm>  // std::max
#include <cstdint>    // std::int64_t
#include <string>     // std::string
#include <vector>     // std::vector

namespace trainsim {

enum class MlpKind { SwiGLU, GeLU };
/// Rotary (Llama, GPT-NeoX) costs a kernel on q and k per layer; learned absolute (GPT-2/3)
/// and ALiBi (MPT, BLOOM) positions cost nothing measurable in time (a learned table's
/// parameters: learned_position_params in scenario.h).
enum class PositionEmbedding { Rotary, Learned, Alibi };
/// RMSNorm (Llama) or LayerNorm (GPT, MPT): the same bytes as one fused kernel; an eager
/// runtime runs RMSNorm as separate PyTorch ops (LayerNorm stays one ATen kernel).
enum class NormKind { RMSNorm, LayerNorm };

/// Mixture of experts (Shazeer et al. 2017; Mixtral, arXiv 2401.04088; DeepSeekMoE, arXiv
/// 2401.06066): in each MoE layer a router (an h × E GEMM) sends every token to `top_k` of
/// `experts` MLPs of width `ffn_hidden`, and every token also passes the shared experts (one
/// MLP of total width `shared_ffn_hidden`, 0 for none). The first `dense_layers` layers keep
/// the model's dense MLP (DeepSeek's first_k_dense_replace).
struct MoeSpec {
  int experts = 0;  ///< routed experts per MoE layer; 0: a dense model
  int top_k = 0;
  std::int64_t ffn_hidden = 0;  ///< one routed expert's MLP width; 0: the model's ffn_hidden
  std::int64_t shared_ffn_hidden = 0;
  int dense_layers = 0;
  /// The busiest expert's tokens over the average (≥ 1): a capacity factor pads every expert's
  /// buffer to it (Megatron's --moe-expert-capacity-factor); for dropless routing, the load
  /// imbalance the slowest rank waits for. 1: tokens routed evenly.
  double capacity_factor = 1;
  /// Node-limited routing (DeepSeek-V3, arXiv 2412.19437, §2.1.2 and §3.2.2): each token's
  /// routed experts lie on at most this many nodes, so across nodes a token travels once per
  /// node and is forwarded to its experts there over NVLink. 0: no limit (each routed copy
  /// travels on its own).
  int node_limit = 0;
};

/// DeepSeek's multi-head latent attention (DeepSeek-V2, arXiv 2405.04434, §2.1): K and V are
/// projected up from a `kv_rank`-wide latent, with one `rope_dim`-wide rotary key shared by the
/// heads; Q from a `q_rank`-wide latent (0: projected from the hidden state directly). Scores
/// use heads of nope_dim + rope_dim, values heads of v_dim. kv_rank 0: not latent attention.
struct LatentAttention {
  std::int64_t q_rank = 0;
  std::int64_t kv_rank = 0;
  std::int64_t rope_dim = 0;
  std::int64_t nope_dim = 0;
  std::int64_t v_dim = 0;
};

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
  std::int64_t head_size = 0;  ///< d when given (Gemma, Qwen3); 0: hidden / heads
  MoeSpec moe;
  LatentAttention mla;
  /// Biases on the attention's and the dense MLP's projections (GPT-2/3, OPT, BLOOM, Megatron's
  /// default `--add-bias-linear`; a mixture of experts' expert MLPs and latent attention have
  /// none here). They cost time only where they run as kernels of their own (training.eager_ops
  /// `bias`); their parameters are not counted.
  bool linear_bias = false;
  /// Multi-token prediction modules (DeepSeek-V3, arXiv 2412.19437, §2.2; Megatron-core's
  /// `--mtp-num-layers`, multi_token_prediction.py): after the last layer, each looks up the
  /// embedding of the tokens one further ahead, normalizes it and the hidden state (two norms),
  /// projects their concatenation 2h → h, runs one Transformer layer of the model's last kind and
  /// the shared head and loss. They sit on the head's pipeline stage. 0: none.
  int mtp_layers = 0;
  /// Sliding-window attention (Mistral 7B v0.1, Gemma 2, Phi-3; a Hugging Face config's
  /// `sliding_window`): each token attends to the last `sliding_window` tokens only. Not
  /// modelled: a window at least the sequence long changes nothing, a shorter one is refused
  /// (validate). 0: full causal attention.
  std::int64_t sliding_window = 0;

  std::int64_t head_dim() const { return head_size > 0 ? head_size : hidden / heads; }
  bool is_mla() const { return mla.kv_rank > 0; }
  /// Width of one head's query and key (the scores' d) and of its value and output.
  std::int64_t qk_head_dim() const { return is_mla() ? mla.nope_dim + mla.rope_dim : head_dim(); }
  std::int64_t v_head_dim() const { return is_mla() ? mla.v_dim : head_dim(); }
  bool is_moe() const { return moe.experts > 0; }
  /// Key-value heads one of `tp` tensor-parallel ranks computes and holds: kv_heads / tp, or past
  /// them one, replicated (Megatron-core's attention: with num_query_groups < tp each rank
  /// produces one key-value head, megatron/core/transformer/attention.py).
  double kv_heads_per_rank(int tp) const {
    return std::max(1.0, static_cast<double>(kv_heads) / tp);
  }
  /// The key and value projections' parameters one of `tp` ranks holds beyond kv_heads / tp of
  /// them, over all ranks (the replicated heads' share; 0 while tp ≤ kv_heads, and with latent
  /// attention): a layer's K and V weights h·d each per replicated head.
  std::int64_t replicated_kv_params(int tp) const {
    if (is_mla() || tp <= kv_heads) return 0;
    return 2 * hidden * head_dim() * (tp - kv_heads);
  }
  /// One routed expert's MLP width.
  std::int64_t expert_ffn() const { return moe.ffn_hidden > 0 ? moe.ffn_hidden : ffn_hidden; }
  /// MLP weight matrices per unit of width: 3 (gate, up, down) for SwiGLU, 2 for GELU.
  std::int64_t mlp_matrices() const { return mlp == MlpKind::SwiGLU ? 3 : 2; }
  /// Whether layer `i` (0-based) has experts in place of the dense MLP.
  bool moe_layer(int i) const { return is_moe() && i >= moe.dense_layers; }
  /// The MoE layers among layers [first, first + count).
  int moe_layers_in(int first, int count) const;
  /// Attention of one layer: Q h·a·d, K and V h·k·d each, output a·d·h; latent: Q's down and
  /// up projections (or h·a·d_qk), KV's down h·(kv_rank + rope) and up kv_rank·a·(nope + v),
  /// output a·v·h.
  std::int64_t attention_params() const;
  /// The MLP of one layer: dense f·h·(3 or 2); MoE: router h·E + E experts + shared experts.
  std::int64_t mlp_params(bool moe_layer) const;
  /// Of a MoE layer's mlp_params, the routed experts' (E · f_e · h · (3 or 2)): what expert
  /// parallelism splits.
  std::int64_t routed_expert_params() const {
    return is_moe() ? mlp_matrices() * hidden * moe.experts * expert_ffn() : 0;
  }
  /// Of mlp_params, what one token uses: the router, top_k experts and the shared experts.
  std::int64_t active_mlp_params(bool moe_layer) const;
  /// Parameters of layers [first, first + count).
  std::int64_t layer_params(int first, int count) const;
  /// Input embedding V·h.
  std::int64_t embedding_params() const { return vocab * hidden; }
  /// LM head V·h, or 0 when tied to the input embedding.
  std::int64_t head_params() const { return tied_embeddings ? 0 : vocab * hidden; }
  /// The main model's parameters (the multi-token prediction modules are not counted: they are
  /// training-only, and papers quote the model without them).
  std::int64_t total_params() const;
  /// One multi-token prediction module: its 2h × h projection and a layer of the last kind (the
  /// embedding and head it shares are not counted).
  std::int64_t mtp_module_params() const { return 2 * hidden * hidden + layer_params(layers, 1); }
  /// Parameters one token passes through (total_params for a dense model): what MoE papers
  /// call activated parameters.
  std::int64_t active_params() const;
};

/// "8.03 B parameters", or for a mixture of experts "46.7 B parameters, 12.9 B active per
/// token": what `run` and `memory` print, so a user sees at once what was loaded.
std::string parameter_summary(const ModelSpec& m);

/// " (--set model.layers=8, …)" after a model's name in a report, "" without edits.
std::string edits_note(const std::vector<std::string>& edits);

/// The named presets (llama-3.2-1b, llama-3.1-8b, llama-3.1-70b, llama-3.1-405b,
/// mixtral-8x7b, qwen3-30b-a3b, deepseek-v3), or nullptr.
const ModelSpec* find_model_preset(const std::string& name);
std::vector<std::string> model_preset_names();

}  // namespace trainsim
