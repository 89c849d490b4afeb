#include "scenario/partition.h"

#include "core/error.h"

namespace trainsim {

std::vector<StageContent> partition_layers(int layers, int stages) {
  TRAINSIM_CHECK(stages >= 1 && stages <= layers, "need 1 <= stages <= layers");
  std::vector<StageContent> out(static_cast<std::size_t>(stages));
  const int base = layers / stages, extra = layers % stages;
  int next = 0;
  for (int s = 0; s < stages; ++s) {
    auto& st = out[static_cast<std::size_t>(s)];
    st.first_layer = next;
    st.layers = base + ((s >= 1 && s <= extra) || (extra == stages && s == 0) ? 1 : 0);
    next += st.layers;
  }
  out.front().embedding = true;
  out.back().head = true;
  TRAINSIM_CHECK(next == layers, "partition must cover every layer");
  return out;
}

std::int64_t stage_params(const ModelSpec& m, const StageContent& st, int tp, int stages) {
  std::int64_t p = m.layer_params(st.first_layer, st.layers);
  if (st.embedding) p += m.embedding_params();
  if (st.head && (!m.tied_embeddings || stages > 1)) p += m.vocab * m.hidden;
  return p / tp;
}

}  // namespace trainsim
