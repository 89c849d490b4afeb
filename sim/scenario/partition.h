#pragma once
// Which layers each pipeline stage holds. The first stage also carries the input embedding and
// the last the LM head and loss (Megatron's placement). Layers are spread evenly; a remainder
// goes one each to stages 1, 2, … so the embedding stage is not the heaviest. A PipelineSplit
// counts the embedding and the loss as layers of their own (a stage may then hold only one).
// Multi-token prediction modules go with the head, after the last layer (Megatron-core's
// placement: on the last pipeline stage, outside the layer split).
#include <cstdint>  // std::int64_t
#include <span>     // std::span
#include <vector>   // std::vector

#include "scenario/layout.h"
#include "scenario/model.h"
#include "scenario/scenario.h"

namespace trainsim {

struct StageContent {
  int first_layer = 0;
  int layers = 0;  ///< Transformer layers, the multi-token prediction modules' included
  int mtp = 0;     ///< of `layers`, the last ones: multi-token prediction modules' (head stage)
  bool embedding = false;
  bool head = false;
};

/// Requires 1 <= stages <= layers + split.extra_slots() (the loader checks it for users).
std::vector<StageContent> partition_layers(int layers, int stages, PipelineSplit split = {});
/// partition_layers of the model's layers, with its multi-token prediction modules' layers
/// (numbered after the model's) added to the head's stage: on top of its share, or with
/// `split.mtp` counted in the split as the last of its layers.
std::vector<StageContent> partition_model(const ModelSpec& m, int stages, PipelineSplit split = {});
/// What partition_model spreads over the stages: the model's layers, the embedding's and loss's
/// slots, and with `split.mtp` the multi-token prediction modules' layers.
int layer_slots(const ModelSpec& m, const PipelineSplit& split);
/// Whether partition_model can split `m` over `stages` with `split`: no more stages than slots;
/// with a split, as many slots each (Megatron-core's rule); with the modules counted, room for
/// them beside the loss on the last stage. validate() refuses the rest with its reason.
bool partition_fits(const ModelSpec& m, const PipelineSplit& split, int stages);

/// Parameters one GPU holds for `stage` under TP degree `tp` and expert-parallel degree `ep`
/// (embedding and head are vocabulary-parallel; a tied head still needs its own copy when it is
/// on another stage, and so do multi-token prediction modules the embedding's table they look
/// up; each MoE layer's routed experts are split over ep ranks, then over the expert TP degree
/// `etp`: 0 for tp, or 1 for experts held whole, Layout::etp). `positions`: a learned position
/// table's parameters (learned_position_params), held whole by every TP rank of the embedding's
/// stage (Megatron's position_embeddings is a plain torch.nn.Embedding, not vocabulary-parallel).
std::int64_t stage_params(const ModelSpec& m, const StageContent& st, int tp, int stages,
                          int ep = 1, int etp = 0, std::int64_t positions = 0);
/// Of the stage_params of the stages one GPU holds (`stages_here`), what they count twice: a
/// tied head, or multi-token prediction's lookup, on another of them than the embedding (a
/// V-shaped schedule's last chunk, or pp 1 with several chunks) uses the embedding's own table
/// there, not a copy. 0 otherwise.
std::int64_t tied_table_counted_twice(const ModelSpec& m, const std::vector<StageContent>& parts,
                                      std::span<const int> stages_here, int tp);
/// Of stage_params, the routed experts' parameters one GPU holds (0 for a dense model).
std::int64_t stage_expert_params(const ModelSpec& m, const StageContent& st, int tp, int ep,
                                 int etp = 0);
/// The LoRA adapters' parameters one GPU holds for `stage` under TP degree `tp`
/// (training.lora_rank r, training.lora_targets): per layer and target, A (r × its input width)
/// and B (its output width × r), r × (input + output) / tp (NeMo splits both over the TP
/// ranks); 0 without LoRA.
std::int64_t stage_lora_params(const ModelSpec& m, const StageContent& st, int tp,
                               const TrainingSpec& t);
/// Of stage_params, the Transformer layers' and multi-token prediction's projections (without
/// the embedding and the head): the weights FP8 training runs in FP8 (their norms, a few per
/// layer, counted with them).
std::int64_t stage_layer_params(const ModelSpec& m, const StageContent& st, int tp, int ep = 1,
                                int etp = 0);

}  // namespace trainsim
