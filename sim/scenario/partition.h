#pragma once
// Which layers each pipeline stage holds. The first stage also carries the input embedding and
// the last the LM head and loss (Megatron's placement). Layers are spread evenly; a remainder
// goes one each to stages 1, 2, … so the embedding stage is not the heaviest.
#include <cstdint>  // std::int64_t
#include <vector>   // std::vector

#include "scenario/model.h"

namespace trainsim {

struct StageContent {
  int first_layer = 0;
  int layers = 0;
  bool embedding = false;
  bool head = false;
};

/// Requires 1 <= stages <= layers (the loader checks it for users).
std::vector<StageContent> partition_layers(int layers, int stages);

/// Parameters one GPU holds for `stage` under TP degree `tp` (embedding and head are
/// vocabulary-parallel; a tied head still needs its own copy when it is on another stage).
std::int64_t stage_params(const ModelSpec& m, const StageContent& st, int tp, int stages);

}  // namespace trainsim
