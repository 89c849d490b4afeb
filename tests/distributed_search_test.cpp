// The search split over MPI processes (sim/search/distributed_search.h): what travels to rank 0
// comes back whole, and a world of one is the plain search. The split itself, over real
// processes, is checked by tests/cli_test.sh (`mpirun -np 2` prints what one process prints).
#include "search/distributed_search.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "report/report_format.h"
#include "scenario/model.h"
#include "test_util.h"

using namespace trainsim;

namespace {
// Two nodes of 8 H100s with a price and a measured figure, so every optional field of a report
// is set (and ZeRO-1's reduction, off its defaults, for its candidates); ZeRO and recompute listed
// so some candidates are ruled out and some run out of memory.
Scenario priced() {
  return test::yaml(
      "model: llama-3.1-8b\ncluster: {gpu: h100-sxm, gpus_per_node: 8, nodes: 2, network: efa-p5}\n"
      "parallelism: {pp: 2, dp: 8, overlap_grad_reduce: true, zero1_reduce: all-reduce}\n"
      "training: {seq_len: 4096, global_batch_size: 64}\n"
      "pricing: {gpu_hour: 2.5}\nmeasured: {tokens_per_s: 200000, source: a test}\n");
}
SearchSpace space() {
  SearchSpace s;
  s.tp = {1, 2};
  s.zero = {0, 1, 3};
  s.sequence_parallel = {1};  // at tp 2 (off at tp 1): a report flag that must travel too
  s.tp_overlap = {1};
  s.recompute = {Recompute::None, Recompute::Full};
  return s;
}
}  // namespace

TEST_CASE("distributed search: results survive the trip to rank 0 exactly", "[search][mpi]") {
  const Scenario base = priced();
  const std::vector<SearchResult> ranked = search_layouts(base, space());
  // Layouts that run and layouts ruled out on memory (8B at pp 1 with ZeRO 0: 16 bytes × 8.0e9
  // = 128 GB of states per GPU > 80 GB): the trip must keep both kinds of row.
  const auto ruled = std::count_if(ranked.begin(), ranked.end(),
                                   [](const SearchResult& r) { return r.ruled_out; });
  CHECK(ruled > 0);
  CHECK(static_cast<std::size_t>(ruled) < ranked.size());
  REQUIRE(ranked.front().ran());
  CHECK(ranked.front().report.cost_per_million_tokens.has_value());
  CHECK(ranked.front().report.measured.has_value());

  // Out of order, as the processes' shares arrive: indices 5, 0, 15, ….
  std::vector<std::pair<std::size_t, SearchResult>> tagged;
  for (std::size_t i = 0; i < ranked.size(); ++i)
    tagged.emplace_back((i * 5) % ranked.size(), ranked[i]);
  const auto back = decode_results(encode_results(tagged));
  REQUIRE(back.size() == tagged.size());
  std::vector<SearchResult> copy;
  for (std::size_t i = 0; i < back.size(); ++i) {
    CHECK(back[i].first == tagged[i].first);
    copy.push_back(back[i].second);
  }
  // Everything a user sees is the same: the JSON (every report field), the table, the CSV.
  CHECK(search_to_json(base, copy) == search_to_json(base, ranked));
  CHECK(format_search(base, copy, 100) == format_search(base, ranked, 100));
  CHECK(search_to_csv(base, copy) == search_to_csv(base, ranked));
  // And the report fields no table shows: ZeRO-1's reduction, as the scenario set it.
  int zero1 = 0;
  for (std::size_t i = 0; i < copy.size(); ++i)
    if (ranked[i].ran() && ranked[i].report.zero == 1) {
      ++zero1;
      CHECK(copy[i].report.zero1_all_reduce);
      CHECK(copy[i].report.grad_reduce_with_backward);
    }
  CHECK(zero1 > 0);
  // Sequence parallelism and TP overlap, which the layout line names at tp 2.
  int tp2 = 0;
  for (std::size_t i = 0; i < copy.size(); ++i)
    if (ranked[i].ran() && ranked[i].report.tp == 2) {
      ++tp2;
      CHECK(copy[i].report.sequence_parallel);
      CHECK(copy[i].report.tp_overlap);
    }
  CHECK(tp2 > 0);
  // Doubles bit for bit (MessagePack keeps them; JSON text would round).
  CHECK(copy.front().report.step_time_s == ranked.front().report.step_time_s);
  CHECK(copy.front().report.stages.size() == ranked.front().report.stages.size());
  CHECK(copy.front().report.training->seq_len == 4096);
  REQUIRE(copy.front().report.cluster.has_value());
  CHECK(copy.front().report.cluster->network == Network::EfaP5);  // the network the rows priced
  CHECK(copy.front().layout.words() == ranked.front().layout.words());

  CHECK_THROWS_AS(decode_results("not msgpack"), InternalError);
}

TEST_CASE("distributed search: a world of one is the plain search", "[search][mpi]") {
  const Scenario base = priced();
  const mpi::World alone;  // not started by mpirun: rank 0 of 1
  REQUIRE(alone.size() == 1);
  CHECK(search_to_json(base, search_layouts(alone, base, space())) ==
        search_to_json(base, search_layouts(base, space())));
}

TEST_CASE("distributed search: the halves make the whole", "[search][mpi]") {
  // Rank 1 of 3 would evaluate 1, 4, 7, …; evaluating two interleaved shares and ranking their
  // union gives search_layouts' order.
  const Scenario base = priced();
  const auto candidates = layout_candidates(base, space());
  std::vector<std::size_t> even, odd;
  for (std::size_t i = 0; i < candidates.size(); ++i) (i % 2 ? odd : even).push_back(i);
  const auto a = evaluate_candidates(base, candidates, even, {0, 1});
  const auto b = evaluate_candidates(base, candidates, odd, {0, 1});
  std::vector<SearchResult> all(candidates.size());
  for (std::size_t k = 0; k < even.size(); ++k) all[even[k]] = a[k];
  for (std::size_t k = 0; k < odd.size(); ++k) all[odd[k]] = b[k];
  rank_search_results(all);
  CHECK(search_to_json(base, all) == search_to_json(base, search_layouts(base, space())));
  CHECK_THROWS_AS(evaluate_candidates(base, candidates, {0}, {0.95, 1}), InputError);
}

TEST_CASE("distributed search: training settings off their defaults and the cluster travel too",
          "[search][mpi]") {
  // A report whose training and cluster differ from every default the search above keeps:
  // FP8 parameters, ZeRO-Offload, activation offload, eager ops, a tuned send/receive rate.
  StepReport r;
  r.training.emplace();
  r.training->precision = Precision::FP8;
  r.training->fp8_params = true;
  r.training->offload = Offload::Optimizer;
  r.training->offload_activation_layers = 3;
  r.training->expert_gemms = ExpertGemms::Sequential;
  r.training->fp8_dispatch = true;
  r.training->eager_ops = EagerOps{.norm = true,
                                   .rope = true,
                                   .bias = true,
                                   .qkv_split = true,
                                   .rope_interleave = true,
                                   .qkv_cat = true,
                                   .gate_up_split = true};
  // FP8's standalone casts, transpose cache and attention, and LoRA's keys.
  r.training->fp8_standalone_casts = Fp8Casts{.norm = true, .activation = true};
  r.training->fp8_transpose_cache = false;
  r.training->fp8_attention = true;
  r.training->cudnn_version = CudnnVersion{9, 13};
  r.training->lora_rank = 16;
  r.training->lora_targets = LoraTargets{.qkv = true, .mlp_down = true};
  r.training->lora_dropout = 0.1;
  r.training->lora_all_to_all = true;
  r.training->lora_fused = true;
  r.cluster = priced().cluster;
  r.cluster->inter_node.p2p_bandwidth = 40e9;
  r.cluster->inter_node.nics = 2;
  r.cluster->gpu_speed_spread = 0.02;  // and the slowest GPU's pace it sets
  r.compute_pace = 1.0284720;
  r.gpu_speed_spread = 0.02;
  r.uneven_layers = {10, 11, 11};  // the layout line names an uneven split
  SearchResult row;
  row.report = r;
  const auto back = decode_results(encode_results({{7, row}}));
  REQUIRE(back.size() == 1);
  CHECK(back[0].first == 7);
  CHECK(report_to_json(back[0].second.report) == report_to_json(r));
  const StepReport& b = back[0].second.report;
  REQUIRE(b.training.has_value());
  CHECK(b.training->fp8_params);
  CHECK(b.training->offload == Offload::Optimizer);
  CHECK(b.training->offload_activation_layers == 3);
  CHECK(b.training->expert_gemms == ExpertGemms::Sequential);
  CHECK(b.training->fp8_dispatch);
  CHECK(b.training->eager_ops == EagerOps{.norm = true,
                                          .rope = true,
                                          .bias = true,
                                          .qkv_split = true,
                                          .rope_interleave = true,
                                          .qkv_cat = true,
                                          .gate_up_split = true});
  CHECK(b.training->fp8_standalone_casts == Fp8Casts{.norm = true, .activation = true});
  CHECK_FALSE(b.training->fp8_transpose_cache);
  CHECK(b.training->fp8_attention);
  CHECK(b.training->cudnn_version == CudnnVersion{9, 13});
  CHECK(b.training->lora_rank == 16);
  CHECK(b.training->lora_targets == LoraTargets{.qkv = true, .mlp_down = true});
  CHECK(b.training->lora_dropout == 0.1);
  CHECK(b.training->lora_all_to_all);
  CHECK(b.training->lora_fused);
  REQUIRE(b.cluster.has_value());
  CHECK(b.cluster->inter_node.p2p_bandwidth == 40e9);
  CHECK(b.cluster->inter_node.nics == 2);
  CHECK(b.cluster->nodes == 2);
  CHECK(b.uneven_layers == std::vector<int>{10, 11, 11});
}

TEST_CASE("distributed search: the model's latent attention, routing limit and biases travel",
          "[search][mpi]") {
  // DeepSeek-V3's preset: latent attention (its parameter count depends on the ranks) and
  // node-limited routing (4 nodes), both in the report's JSON; plus biases.
  StepReport r;
  ModelSpec m = *find_model_preset("deepseek-v3");
  m.linear_bias = true;
  r.model = m;
  SearchResult row;
  row.report = r;
  const StepReport b = decode_results(encode_results({{0, row}}))[0].second.report;
  REQUIRE(b.model.has_value());
  CHECK(b.model->mla.kv_rank == 512);
  CHECK(b.model->mla.q_rank == 1536);
  CHECK(b.model->moe.node_limit == 4);
  CHECK(b.model->linear_bias);
  CHECK(b.model->total_params() == m.total_params());
  CHECK(report_to_json(b) == report_to_json(r));
}
