#include "scenario/partition.h"

#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

using namespace trainsim;

namespace {
std::vector<int> layers_of(const std::vector<StageContent>& parts) {
  std::vector<int> out;
  for (const StageContent& st : parts) out.push_back(st.layers);
  return out;
}
}  // namespace

TEST_CASE("partition: layers spread evenly, a remainder one each from stage 1 on", "[partition]") {
  // 10 layers over 4 stages: 2 each, the 2 left over to stages 1 and 2 (not the embedding's).
  const auto parts = partition_layers(10, 4);
  CHECK(layers_of(parts) == std::vector<int>{2, 3, 3, 2});
  CHECK(parts[0].first_layer == 0);
  CHECK(parts[3].first_layer == 8);
  CHECK(parts.front().embedding);
  CHECK(!parts.front().head);
  CHECK(parts.back().head);
}

TEST_CASE("partition: layers given per stage, as a framework splits unevenly", "[partition]") {
  // nanotron balances a cost per block (huggingface/nanotron, models/base.py build_model,
  // llama.py get_block_compute_costs): a Llama-3.2-1B layer 4h² + 3·f·h = 67.1 M, the LM head
  // V·h = 262.7 M (about 4 layers), so over 4 stages it gives the head's stage 2 layers:
  // 6/4/4/2. The embedding stays on the first stage, the head on the last.
  PipelineSplit split;
  split.layers = {6, 4, 4, 2};
  const auto parts = partition_layers(16, 4, split);
  CHECK(layers_of(parts) == split.layers);
  CHECK(parts[1].first_layer == 6);
  CHECK(parts[3].first_layer == 14);
  CHECK(parts.front().embedding);
  CHECK(parts.back().head);
  ModelSpec m;
  m.layers = 16;
  CHECK(partition_fits(m, split, 4));
  CHECK_FALSE(partition_fits(m, split, 2));  // four counts for two stages
  split.layers = {6, 4, 4, 3};               // 17 layers
  CHECK_FALSE(partition_fits(m, split, 4));
  split.layers = {8, 0, 4, 4};  // a middle stage with nothing on it
  CHECK_FALSE(partition_fits(m, split, 4));
  split.layers = {0, 8, 8, 0};  // the first and last may hold the embedding and head alone
  CHECK(partition_fits(m, split, 4));
  split.embedding = true;  // not with the counted embedding
  CHECK_FALSE(partition_fits(m, split, 4));
}

TEST_CASE("partition: a split that counts the embedding and the loss as layers", "[partition]") {
  // Llama 3 405B as Meta split it (arXiv:2407.21783, §3.3.2): 126 layers, 16 ranks × 8 chunks.
  // 126 + 2 slots over 128 chunks: one each; the first chunk holds only the embedding, the last
  // only the output layer and loss, so ranks 0 and 15 hold 7 layers and the others 8.
  const auto parts = partition_layers(126, 128, PipelineSplit{true, true, false, {}});
  REQUIRE(parts.size() == 128);
  CHECK(parts.front().layers == 0);
  CHECK(parts.front().embedding);
  CHECK(parts.back().layers == 0);
  CHECK(parts.back().head);
  for (std::size_t c = 1; c + 1 < parts.size(); ++c) CHECK(parts[c].layers == 1);
  auto rank_layers = [&](int rank) {  // looped placement: chunk c on rank c mod 16
    int n = 0;
    for (int c = rank; c < 128; c += 16) n += parts[static_cast<std::size_t>(c)].layers;
    return n;
  };
  CHECK(rank_layers(0) == 7);
  CHECK(rank_layers(1) == 8);
  CHECK(rank_layers(14) == 8);
  CHECK(rank_layers(15) == 7);
  CHECK(parts.back().first_layer == 126);  // every layer placed once, in order
}

TEST_CASE("partition: the loss alone takes the last stage's slot", "[partition]") {
  // 11 layers over 4 stages: 2 each, the 3 left over to stages 1–3: 2, 3, 3, 3 (the embedding's
  // stage holds fewer). With the loss counted, 12 slots, 3 each, and the last stage gives one
  // up: 3, 3, 3, 2. With the embedding counted instead, stage 0 gives one: 2, 3, 3, 3.
  CHECK(layers_of(partition_layers(11, 4)) == std::vector<int>{2, 3, 3, 3});
  CHECK(layers_of(partition_layers(11, 4, PipelineSplit{false, true, false, {}})) ==
        std::vector<int>{3, 3, 3, 2});
  CHECK(layers_of(partition_layers(11, 4, PipelineSplit{true, false, false, {}})) ==
        std::vector<int>{2, 3, 3, 3});
  // One stage holds everything, however the split counts.
  const auto one = partition_layers(10, 1, PipelineSplit{true, true, false, {}});
  CHECK(one[0].layers == 10);
  CHECK(one[0].embedding);
  CHECK(one[0].head);
}

TEST_CASE("partition: multi-token prediction modules join the head's stage, with their params",
          "[partition][mtp]") {
  // Llama-3.1-8B (untied, V = 128,256, h = 4,096; a layer 218,103,808 parameters) with one
  // multi-token prediction module over pp 4: 8 layers each, and the module's layer (numbered 32)
  // after the last stage's 8: 9 layers there, 1 of them the module's. Besides the layer, the
  // module holds its 2h × h projection (33,554,432) and, the model being untied, a copy of the
  // embedding's table for its lookup (V·h = 525,336,576) beside the head's.
  const ModelSpec* preset = find_model_preset("llama-3.1-8b");
  REQUIRE(preset);
  ModelSpec m = *preset;
  m.mtp_layers = 1;
  const auto parts = partition_model(m, 4);
  CHECK(layers_of(parts) == std::vector<int>{8, 8, 8, 9});
  CHECK(parts.back().mtp == 1);
  CHECK(parts.back().first_layer == 24);
  CHECK(parts.front().mtp == 0);
  const std::int64_t layer = 218'103'808, table = 525'336'576, proj = 33'554'432;
  CHECK(stage_params(m, parts[2], 1, 4) == 8 * layer);
  CHECK(stage_params(m, parts[3], 1, 4) == 9 * layer + 2 * table + proj);
  CHECK(stage_params(m, parts[3], 2, 4) == (9 * layer + 2 * table + proj) / 2);
  // The projection runs in FP8 with the layers; the tables do not.
  CHECK(stage_layer_params(m, parts[3], 1) == 9 * layer + proj);
  // On one stage the lookup uses the embedding itself: 33 layers, the embedding, the head.
  const auto one = partition_model(m, 1);
  CHECK(one[0].layers == 33);
  CHECK(stage_params(m, one[0], 1, 1) == 33 * layer + 2 * table + proj);
  // A tied model's head stage already holds the table: no second copy.
  m.tied_embeddings = true;
  CHECK(stage_params(m, partition_model(m, 4)[3], 1, 4) == 9 * layer + table + proj);
  // Untied, on a GPU that holds the embedding's chunk too (a V: chunks 0 and 3), the module's
  // copy is the embedding itself, counted twice.
  m.tied_embeddings = false;
  const int v[] = {0, 3};
  CHECK(tied_table_counted_twice(m, parts, v, 1) == table);
  m.mtp_layers = 0;
  CHECK(tied_table_counted_twice(m, partition_model(m, 4), v, 1) == 0);
  CHECK(stage_params(m, partition_model(m, 4)[3], 1, 4) == 8 * layer + table);
}

TEST_CASE("partition: a split that counts the modules leaves their stage fewer model layers",
          "[partition][mtp]") {
  // DeepSeek-V3: 61 layers, the embedding, the loss and one module counted: 64 slots over 16
  // stages, 4 each. Stage 0: the embedding and layers 0-2; stages 1-14: 4 layers each (3-58);
  // stage 15: the loss, layers 59 and 60 and the module (numbered 61). Without the module
  // counted, 63 slots: stages 1-14 take the remainder rule's 4 (last stage 3 + the module).
  const ModelSpec* preset = find_model_preset("deepseek-v3");
  REQUIRE(preset);
  const auto parts = partition_model(*preset, 16, PipelineSplit{true, true, true, {}});
  CHECK(layer_slots(*preset, PipelineSplit{true, true, true, {}}) == 64);
  CHECK(parts.front().layers == 3);
  for (std::size_t s = 1; s + 1 < parts.size(); ++s) CHECK(parts[s].layers == 4);
  CHECK(parts.back().layers == 3);
  CHECK(parts.back().mtp == 1);
  CHECK(parts.back().first_layer == 59);
  const auto uncounted = partition_model(*preset, 16);
  CHECK(uncounted.back().layers == 4);  // 3 of the model's, and the module
  CHECK(uncounted.back().mtp == 1);
  // What fits: 64 slots split evenly over 16 (4 a stage, 3 beside the loss for the module) or
  // 32 (2, 1 left); not over 64 (the loss takes the last stage's one slot), 15 (no even split)
  // or 65 (more stages than slots). Seven modules (70 slots) over 10 stages leave 6 beside the
  // loss: too few; over 5, 13: enough.
  const PipelineSplit all{true, true, true, {}};
  CHECK(partition_fits(*preset, all, 16));
  CHECK(partition_fits(*preset, all, 32));
  CHECK_FALSE(partition_fits(*preset, all, 64));
  CHECK_FALSE(partition_fits(*preset, all, 15));
  CHECK_FALSE(partition_fits(*preset, all, 65));
  CHECK(partition_fits(*preset, PipelineSplit{}, 15));  // the remainder rule
  ModelSpec seven = *preset;
  seven.mtp_layers = 7;
  CHECK_FALSE(partition_fits(seven, all, 10));
  CHECK(partition_fits(seven, all, 5));
  CHECK(partition_model(seven, 5, all).back().mtp == 7);
}

TEST_CASE("partition: past the key-value heads each TP rank holds one of them", "[partition]") {
  // Llama-3.1-8B (8 key-value heads of 128, h 4,096): at tp 16 each rank holds one key-value
  // head's K and V weights, 2 · 4,096 · 128 = 1,048,576 a layer, as at tp 8, not half of it
  // (Megatron-core's attention with num_query_groups < tp). Q and the output split 16 ways.
  const ModelSpec* preset = find_model_preset("llama-3.1-8b");
  REQUIRE(preset);
  const auto parts = partition_model(*preset, 4);
  const std::int64_t layer = 218'103'808, kv = 2LL * 4096 * 128 * 8;  // K and V, all heads
  CHECK(stage_layer_params(*preset, parts[1], 8) == 8 * layer / 8);
  CHECK(stage_layer_params(*preset, parts[1], 16) == 8 * (layer - kv) / 16 + 8 * kv / 8);
  CHECK(preset->replicated_kv_params(8) == 0);
  CHECK(preset->replicated_kv_params(16) == 2LL * 4096 * 128 * 8);
  CHECK(preset->kv_heads_per_rank(16) == 1.0);
  CHECK(preset->kv_heads_per_rank(4) == 2.0);
}
