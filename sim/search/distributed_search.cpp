#include "search/distributed_search.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/error.h"

// std::optional as null or its value (nlohmann 3.11 has no serializer for it).
namespace nlohmann {
template <typename T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& v) {
    if (v)
      j = *v;
    else
      j = nullptr;
  }
  static void from_json(const json& j, std::optional<T>& v) {
    if (j.is_null())
      v.reset();
    else
      v = j.get<T>();
  }
};
}  // namespace nlohmann

namespace trainsim {

// Every field of a search result, for the wire only (enums as their integers): a field added to
// these structs and not here is caught by the round-trip test (tests/distributed_search_test.cpp),
// which compares the JSON and table of a real search before and after the trip.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(EagerOps, norm, swiglu, rope, bias, qkv_split, rope_interleave,
                                   qkv_cat, qkv_layout, gate_up_split)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Fp8Casts, norm, activation)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RecomputeModules, core_attn, layernorm, mla_up_proj, mlp, moe,
                                   moe_act, shared_experts)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LoraTargets, qkv, attn_out, mlp_up, mlp_down)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CudnnVersion, major, minor)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(
    TrainingSpec, seq_len, micro_batch_size, global_batch_size, precision, recompute,
    recompute_layers, recompute_modules, fp32_grad_accumulation, fp8_params, fp8_transpose_cache,
    fp8_recipe, fp8_standalone_casts, attention, fp8_attention, nvfp4_hadamard,
    nvfp4_stochastic_rounding, fp8_output_proj, fp8_activation_store, cudnn_version, dropout,
    optimizer, fused_optimizer, fused_loss, unfused_loss, grad_clipping, optimizer_post_validation,
    runtime, eager_ops, offload, offload_activation_layers, grad_reduce, expert_gemms, fp8_dispatch,
    lora_rank, lora_targets, lora_dropout, lora_all_to_all, lora_fused)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DeviceSpec, name, preset, peak_flops, hbm_bandwidth, memory, sms)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LinkSpec, bandwidth, latency, p2p_bandwidth, nics)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClusterSpec, gpu, gpus_per_node, nodes, intra_node, inter_node,
                                   network, host_cpu, host_link, host_adam_rate, gpu_speed_spread)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Measured, metric, value, source)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MoeSpec, experts, top_k, ffn_hidden, shared_ffn_hidden,
                                   dense_layers, capacity_factor, node_limit)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LatentAttention, q_rank, kv_rank, rope_dim, nope_dim, v_dim)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ModelSpec, name, layers, hidden, ffn_hidden, heads, kv_heads,
                                   vocab, tied_embeddings, mlp, position, norm, head_size, moe, mla,
                                   linear_bias, mtp_layers, sliding_window)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(StageStats, stage, compute_busy_s, first_compute_start_s,
                                   last_compute_end_s, idle_s, optimizer_s, peak_in_flight,
                                   peak_activation_bytes, exposed_tp_s, exposed_dp_s, exposed_pp_s,
                                   exposed_gather_s, exposed_ep_s, exposed_cp_s, exposed_host_s,
                                   comm_tp_s, comm_dp_s, comm_pp_s, comm_gather_s, comm_ep_s,
                                   comm_cp_s, comm_host_s, launch_s, launch_wait_s, kernels)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CommVolume, tp_bytes, dp_bytes, pp_bytes, ep_bytes, cp_bytes,
                                   host_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CriticalPath, compute_s, tp_s, dp_s, pp_s, ep_s, cp_s, host_s,
                                   launch_s, optimizer_s, waiting_s, tasks)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PipelineSplit, embedding, loss, mtp, layers)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FsdpSpec, unit_layers, prefetch, reshard_after_forward,
                                   gather_bucket, reduce_bucket)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(StepReport::Idle, total_s, pipeline_bubble_s, imbalance_s,
                                   communication_s, launch_s)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(
    StepReport, scenario, scenario_name, model, schedule, gpus, dp, tp, pp, vpp, ep, etp, cp,
    microbatches, split, uneven_layers, zero, grad_reduce_with_backward, zero1_all_reduce,
    sequence_parallel, tp_overlap, fsdp, gpu, training, cluster, step_time_s, one_step_s,
    overlapped_steps, pipeline_time_s, before_pipeline_s, after_pipeline_s, tokens_per_step,
    tokens_per_s, model_flops, tflops_per_gpu, mfu, bubble_fraction_of_step, bubble_over_ideal,
    idle, cost_per_million_tokens, price_per_gpu_hour, stages, p2p_bytes, volume, critical,
    cost_sources, contention, host_per_kernel_s, host_per_collective_s, cpu_headroom_s,
    cpu_headroom_stage, eager_host_per_kernel_s, compute_pace, gpu_speed_spread,
    tp_groups_across_nodes, tp_groups, gpus_per_node, step_time_without_slowdown_s, measured, tasks,
    simulated_ranks, folded)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LayoutCandidate, dp, tp, pp, vpp, micro_batch_size, schedule,
                                   zero, sequence_parallel, recompute, recompute_layers, tp_overlap,
                                   ep, etp, cp, precision, offload, offload_activations,
                                   drop_split_layers)
// A result that did not run has no report to send (nothing reads it): about half the rows of
// a wide search, half the bytes to encode, send and decode.
void to_json(nlohmann::json& j, const SearchResult& r) {
  j = {{"layout", r.layout},
       {"error", r.error},
       {"report", r.ran() ? nlohmann::json(r.report) : nlohmann::json(nullptr)},
       {"peak_memory", r.peak_memory},
       {"out_of_memory", r.out_of_memory},
       {"tight", r.tight},
       {"ruled_out", r.ruled_out},
       {"static_memory", r.static_memory},
       {"memory_bound", r.memory_bound},
       {"pareto", r.pareto}};
}
void from_json(const nlohmann::json& j, SearchResult& r) {
  j.at("layout").get_to(r.layout);
  j.at("error").get_to(r.error);
  if (!j.at("report").is_null()) j.at("report").get_to(r.report);
  j.at("peak_memory").get_to(r.peak_memory);
  j.at("out_of_memory").get_to(r.out_of_memory);
  j.at("tight").get_to(r.tight);
  j.at("ruled_out").get_to(r.ruled_out);
  j.at("static_memory").get_to(r.static_memory);
  j.at("memory_bound").get_to(r.memory_bound);
  j.at("pareto").get_to(r.pareto);
}

std::string encode_results(const std::vector<std::pair<std::size_t, SearchResult>>& results) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& [index, result] : results) j.push_back({index, result});
  const std::vector<std::uint8_t> bytes = nlohmann::json::to_msgpack(j);
  return std::string(bytes.begin(), bytes.end());
}

std::vector<std::pair<std::size_t, SearchResult>> decode_results(const std::string& bytes) {
  try {
    const nlohmann::json j = nlohmann::json::from_msgpack(bytes);
    std::vector<std::pair<std::size_t, SearchResult>> out;
    for (const auto& row : j) out.emplace_back(row.at(0).get<std::size_t>(), row.at(1));
    return out;
  } catch (const nlohmann::json::exception& e) {
    throw InternalError(std::string("decode_results: ") + e.what());
  }
}

std::vector<SearchResult> search_layouts(
    const mpi::World& world, const Scenario& base, const SearchSpace& space,
    const SearchOptions& options, const std::function<void(std::size_t, std::size_t)>& progress) {
  if (world.size() == 1) return search_layouts(base, space, options, progress);
  const std::vector<LayoutCandidate> candidates = layout_candidates(base, space);
  // The candidates in a fixed pseudo-random order, dealt round-robin: candidate order nests
  // the dimensions (the last one, often two values, alternating), so dealing i mod N would give
  // one process every "TP overlap on" layout. Every process computes the same order (its own
  // Fisher–Yates with a 64-bit LCG, Knuth's MMIX constants; no library shuffle, whose order is
  // the implementation's).
  std::vector<std::size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), 0);
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  for (std::size_t i = order.size(); i > 1; --i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    std::swap(order[i - 1], order[(state >> 33) % i]);
  }
  std::vector<std::size_t> mine;
  for (auto k = static_cast<std::size_t>(world.rank()); k < order.size();
       k += static_cast<std::size_t>(world.size()))
    mine.push_back(order[k]);
  std::sort(mine.begin(), mine.end());  // each process in candidate order, as one would
  SearchOptions own = options;
  if (own.jobs == 0)  // the node's cores shared by its processes
    own.jobs = static_cast<int>(std::max(
        1u, std::thread::hardware_concurrency() / static_cast<unsigned>(world.local_size())));
  std::vector<SearchResult> results = evaluate_candidates(base, candidates, mine, own, progress);
  std::vector<std::pair<std::size_t, SearchResult>> tagged;
  for (std::size_t k = 0; k < mine.size(); ++k) tagged.emplace_back(mine[k], std::move(results[k]));
  const std::vector<std::string> parts = world.gather(encode_results(tagged));
  if (world.rank() != 0) return {};

  std::vector<SearchResult> all(candidates.size());
  std::vector<bool> seen(candidates.size(), false);
  for (const std::string& part : parts)
    for (auto& [index, result] : decode_results(part)) {
      TRAINSIM_CHECK(index < all.size() && !seen[index],
                     "search over MPI: a candidate came back twice or out of range");
      all[index] = std::move(result);
      seen[index] = true;
    }
  TRAINSIM_CHECK(std::find(seen.begin(), seen.end(), false) == seen.end(),
                 "search over MPI: a candidate did not come back");
  rank_search_results(all);
  return all;
}

}  // namespace trainsim
