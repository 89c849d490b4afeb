#include "scenario/partition.h"

#include <cmath>

#include "core/error.h"

namespace trainsim {

std::vector<StageContent> partition_layers(int layers, int stages, PipelineSplit split) {
  std::vector<StageContent> out(static_cast<std::size_t>(stages));
  if (!split.layers.empty()) {  // as given (validate checked the count and the sum)
    TRAINSIM_CHECK(static_cast<int>(split.layers.size()) == stages && split.extra_slots() == 0,
                   "one layer count a stage, the embedding and loss not counted");
    for (int s = 0; s < stages; ++s)
      out[static_cast<std::size_t>(s)].layers = split.layers[static_cast<std::size_t>(s)];
    split.embedding = split.loss = false;
  } else {
    // Slots: the layers, plus the embedding and the loss where the split counts them.
    const int slots = layers + split.extra_slots();
    TRAINSIM_CHECK(stages >= 1 && stages <= slots, "need 1 <= stages <= layer slots");
    const int base = slots / stages, extra = slots % stages;
    for (int s = 0; s < stages; ++s)
      out[static_cast<std::size_t>(s)].layers = base + (s >= 1 && s <= extra ? 1 : 0);
  }
  // The embedding's and the loss's slots are no Transformer layers. A one-stage pipeline holds
  // both; base ≥ 1, so the first stage has its slot to give, and the last one too unless it is
  // the first.
  if (split.embedding) --out.front().layers;
  if (split.loss) --out.back().layers;
  int next = 0;
  for (auto& st : out) {
    TRAINSIM_CHECK(st.layers >= 0, "a stage with a negative number of layers");
    st.first_layer = next;
    next += st.layers;
  }
  out.front().embedding = true;
  out.back().head = true;
  TRAINSIM_CHECK(next == layers, "partition must cover every layer");
  return out;
}

std::vector<StageContent> partition_model(const ModelSpec& m, int stages, PipelineSplit split) {
  std::vector<StageContent> out =
      partition_layers(split.mtp ? m.layers + m.mtp_layers : m.layers, stages, split);
  if (!split.mtp) out.back().layers += m.mtp_layers;
  TRAINSIM_CHECK(out.back().layers >= m.mtp_layers, "validate: the last stage holds the modules");
  out.back().mtp = m.mtp_layers;
  return out;
}

int layer_slots(const ModelSpec& m, const PipelineSplit& split) {
  return m.layers + split.extra_slots() + (split.mtp ? m.mtp_layers : 0);
}

bool partition_fits(const ModelSpec& m, const PipelineSplit& split, int stages) {
  if (!split.layers.empty()) {
    if (static_cast<int>(split.layers.size()) != stages || split.any()) return false;
    long long sum = 0;
    for (std::size_t s = 0; s < split.layers.size(); ++s) {
      sum += split.layers[s];
      // A stage between the first (the embedding's) and the last (the head's) holds a layer.
      if (split.layers[s] < 0 || (split.layers[s] == 0 && s > 0 && s + 1 < split.layers.size()))
        return false;
    }
    return sum == m.layers;
  }
  const int slots = layer_slots(m, split);
  if (stages < 1 || stages > slots) return false;
  if (split.any() && slots % stages != 0) return false;
  return !(split.mtp && stages > 1 && slots / stages - (split.loss ? 1 : 0) < m.mtp_layers);
}

namespace {
// The routed experts one GPU of an expert-parallel group holds of the stage's MoE layers, over
// all its TP ranks: 1/ep of each layer's (ep divides the experts: validate()).
std::int64_t held_routed_params(const ModelSpec& m, const StageContent& st, int ep) {
  TRAINSIM_CHECK(ep >= 1, "an expert-parallel degree of at least 1");
  return m.moe_layers_in(st.first_layer, st.layers) * (m.routed_expert_params() / ep);
}
// The stage's Transformer layers over all TP ranks: every layer's parameters, of the routed
// experts held_routed_params; and multi-token prediction's 2h → h projections.
std::int64_t held_layer_params(const ModelSpec& m, const StageContent& st, int ep) {
  return m.layer_params(st.first_layer, st.layers) -
         m.moe_layers_in(st.first_layer, st.layers) * m.routed_expert_params() +
         held_routed_params(m, st, ep) + st.mtp * 2 * m.hidden * m.hidden;
}
// Whether each GPU holds its routed experts whole under TP (expert TP 1, tp > 1).
bool experts_whole(int tp, int etp) {
  return (etp > 0 ? etp : tp) == 1 && tp > 1;
}
}  // namespace

std::int64_t stage_layer_params(const ModelSpec& m, const StageContent& st, int tp, int ep,
                                int etp) {
  // Past the key-value heads every rank holds one of them (ModelSpec::kv_heads_per_rank).
  const std::int64_t kv = st.layers * m.replicated_kv_params(tp);
  if (!experts_whole(tp, etp)) return (held_layer_params(m, st, ep) + kv) / tp;
  const std::int64_t routed = held_routed_params(m, st, ep);
  return (held_layer_params(m, st, ep) - routed + kv) / tp + routed;
}

std::int64_t stage_params(const ModelSpec& m, const StageContent& st, int tp, int stages, int ep,
                          int etp, std::int64_t positions) {
  // Routed experts held whole are added after the split over TP.
  const std::int64_t whole = experts_whole(tp, etp) ? held_routed_params(m, st, ep) : 0;
  std::int64_t p = held_layer_params(m, st, ep) - whole + st.layers * m.replicated_kv_params(tp);
  if (st.embedding) p += m.embedding_params();
  if (st.head && (!m.tied_embeddings || stages > 1)) p += m.vocab * m.hidden;
  // Multi-token prediction looks up the embedding: an untied model's head stage holds a copy
  // of its table (Megatron-core builds the embedding where mtp_process; a tied head's table
  // serves both).
  if (st.mtp > 0 && !st.embedding && !m.tied_embeddings) p += m.vocab * m.hidden;
  return p / tp + whole + (st.embedding ? positions : 0);
}

std::int64_t stage_lora_params(const ModelSpec& m, const StageContent& st, int tp,
                               const TrainingSpec& t) {
  const LoraTargets on = lora_targets(t);
  const double h = static_cast<double>(m.hidden), f = static_cast<double>(m.ffn_hidden);
  const double q = static_cast<double>(m.heads * m.qk_head_dim());
  const double kv = static_cast<double>(m.kv_heads * m.qk_head_dim());
  const double v = static_cast<double>(m.heads * m.v_head_dim());
  const double up = m.mlp == MlpKind::SwiGLU ? 2 * f : f;
  // A (r × input width) and B (output width × r), both split over the TP ranks (NeMo's
  // ParallelLinearAdapter: a column-parallel target's A over r and B over its output, a
  // row-parallel one's A over its input and B over its output).
  double per_layer = 0;
  if (on.qkv) per_layer += h + q + 2 * kv;
  if (on.attn_out) per_layer += v + h;
  if (on.mlp_up) per_layer += h + up;
  if (on.mlp_down) per_layer += f + h;
  return static_cast<std::int64_t>(std::llround(t.lora_rank * per_layer / tp * st.layers));
}

std::int64_t tied_table_counted_twice(const ModelSpec& m, const std::vector<StageContent>& parts,
                                      std::span<const int> stages_here, int tp) {
  if (parts.size() < 2 || !(m.tied_embeddings || parts.back().mtp > 0)) return 0;
  bool embedding = false, head = false;
  for (int s : stages_here) {
    TRAINSIM_CHECK(s >= 0 && static_cast<std::size_t>(s) < parts.size(), "stage out of range");
    embedding |= parts[static_cast<std::size_t>(s)].embedding;
    head |= parts[static_cast<std::size_t>(s)].head;
  }
  return embedding && head ? m.vocab * m.hidden / tp : 0;
}

std::int64_t stage_expert_params(const ModelSpec& m, const StageContent& st, int tp, int ep,
                                 int etp) {
  return held_routed_params(m, st, ep) / (experts_whole(tp, etp) ? 1 : tp);
}

}  // namespace trainsim
