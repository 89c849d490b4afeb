#pragma once
// A Hugging Face `config.json` as a ModelSpec. The architecture is read from `model_type`, one
// row per family the model describes exactly (gated or plain MLP, the LM head's tying default,
// positions, norm, the family's key names, and for the mixture-of-experts families mixtral,
// qwen2_moe, qwen3_moe, olmoe, deepseek_v2 and deepseek_v3 the experts: count, top-k, width,
// shared experts, DeepSeek's dense first layers and latent attention); `head_dim` and DeepSeek's
// multi-token prediction modules (`num_nextn_predict_layers`) are read, and the attention window
// (`sliding_window`, which validate refuses where it binds). A config that describes
// more than ModelSpec holds — experts in another family, MoE in only some layers
// (`decoder_sparse_step`, `mlp_only_layers`, `moe_layer_freq`), an unknown model_type — is
// refused with the field's name instead of
// being read as a smaller model. A config without `model_type` (written by hand) is read by the
// common Llama key names, its MLP gated when `hidden_act` is silu.
#include <string>  // std::string
#include <vector>  // std::vector

#include <nlohmann/json.hpp>

#include "scenario/model.h"

namespace trainsim {

/// The model of a parsed config.json found at `file` (named in every error, and the model's
/// name when the config has no `_name_or_path`). Throws InputError ("FILE: …") on a missing or
/// out-of-range size, a key of the wrong type, or a config it cannot describe.
ModelSpec model_from_hf_json(const nlohmann::json& config, const std::string& file);

/// The `model_type` values read, in the order the error for an unknown one lists them.
std::vector<std::string> hf_model_types();

}  // namespace trainsim
