#include "scenario/scenario_schema.h"

namespace trainsim {

const std::vector<SchemaKey>& scenario_keys() {
  static const std::vector<SchemaKey> kKeys{
      {"name"},
      {"description"},
      {"model"},
      {"model.preset"},
      {"model.hf_config"},
      {"model.name"},
      {"model.layers"},
      {"model.hidden"},
      {"model.ffn_hidden"},
      {"model.heads"},
      {"model.kv_heads"},
      {"model.vocab"},
      {"model.tied_embeddings"},
      {"model.mlp"},
      {"model.position_embedding"},
      {"model.norm"},
      {"training"},
      {"training.seq_len"},
      {"training.micro_batch_size"},
      {"training.global_batch_size"},
      {"training.microbatches"},
      {"training.precision"},
      {"training.optimizer"},
      {"training.recompute"},
      {"training.recompute_layers"},
      {"training.fp32_grad_accumulation"},
      {"training.grad_reduce_dtype"},
      {"training.attention"},
      {"training.dropout"},
      {"training.fused_optimizer"},
      {"training.grad_clipping"},
      {"training.runtime"},
      {"cluster"},
      {"cluster.gpu"},
      {"cluster.gpu.preset"},
      {"cluster.gpu.name"},
      {"cluster.gpu.peak_flops"},
      {"cluster.gpu.hbm_bandwidth"},
      {"cluster.gpu.memory"},
      {"cluster.gpu.sms"},
      {"cluster.gpus_per_node"},
      {"cluster.nodes"},
      {"cluster.intra_node"},
      {"cluster.intra_node.bandwidth"},
      {"cluster.intra_node.latency"},
      {"cluster.inter_node"},
      {"cluster.inter_node.bandwidth"},
      {"cluster.inter_node.latency"},
      {"parallelism"},
      {"parallelism.dp"},
      {"parallelism.tp"},
      {"parallelism.pp"},
      {"parallelism.vpp"},
      {"parallelism.zero"},
      {"parallelism.fsdp"},
      {"parallelism.fsdp.unit_layers"},
      {"parallelism.fsdp.prefetch"},
      {"parallelism.fsdp.reshard_after_forward"},
      {"parallelism.param_gather"},
      {"parallelism.tp_overlap"},
      {"parallelism.sequence_parallel"},
      {"parallelism.rank_order"},
      {"contention"},
      {"contention.compute_slowdown"},
      {"contention.link_sharing"},
      // A schedule map's other keys are the generator's options (schedules/registry.h).
      {"schedule"},
      {"schedule.name"},
      {"schedule.csv"},
      {"costs"},
      {"costs.forward"},
      {"costs.backward"},
      {"costs.backward_input"},
      {"costs.backward_weight"},
      {"costs.p2p"},
      {"costs.forward_backward_overlap"},
      {"efficiency"},
      {"efficiency.gemm"},
      {"efficiency.memory"},
      {"efficiency.kernel_launch"},
      {"memory"},
      {"memory.runtime_overhead"},
      {"memory.bucket_size"},
      {"calibration"},
      {"slowdown"},
      {"slowdown[].rank"},
      {"slowdown[].ranks"},
      {"slowdown[].compute"},
      {"slowdown[].link"},
      {"measured"},
      {"measured.step_time"},
      {"measured.tokens_per_s"},
      {"measured.tokens_per_s_per_gpu"},
      {"measured.tflops_per_gpu"},
      {"measured.mfu"},
      {"measured.source"},
      {"pricing"},
      {"pricing.gpu_hour"},
  };
  return kKeys;
}

namespace {
// The parent of `path` ("" at the top level): the part before its last '.'; a list entry's
// keys ("slowdown[].rank") have the entry ("slowdown[]") as parent.
std::string_view parent_of(std::string_view path) {
  const auto dot = path.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : path.substr(0, dot);
}
}  // namespace

std::vector<std::string> keys_under(std::string_view section) {
  std::vector<std::string> out;
  for (const SchemaKey& k : scenario_keys())
    if (parent_of(k.path) == section)
      out.emplace_back(k.path.substr(section.empty() ? 0 : section.size() + 1));
  return out;
}

bool is_section(std::string_view path) {
  for (const SchemaKey& k : scenario_keys())
    if (parent_of(k.path) == path) return true;
  return false;
}

}  // namespace trainsim
