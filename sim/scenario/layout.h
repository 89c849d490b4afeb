#pragma once
// The parallel layout: DP × CP × TP × PP ranks (and v model chunks per pipeline rank), and the
// map between a global rank and its (dp, tp, pp) coordinates. Default order is Megatron's: TP
// varies fastest, then DP, then PP; `rank_order` changes it. Context-parallel ranks live on the
// DP axis, innermost (Megatron's tp-cp-dp-pp order): the DP axis has dp · cp positions, the cp
// consecutive ones of a block share a batch and split its sequences.
#include <algorithm>  // std::max
#include <array>      // std::array
#include <optional>   // std::optional
#include <string>     // std::string
#include <vector>     // std::vector

namespace trainsim {

enum class Axis { TP = 0, DP = 1, PP = 2 };

/// How context parallelism reaches the other ranks' keys and values (parallelism.cp_comm):
/// Transformer Engine's `p2p` ring, its `all_gather`, or its `a2a` (DeepSpeed-Ulysses: each rank
/// attends over the whole sequence with heads / cp).
enum class CpComm { Ring, AllGather, AllToAll };
/// Megatron-core DDP's check_for_nan_in_grad: before each bucket's reduction the bucket's
/// gradient norm, tested for NaN (`Nan`, core ≤ 0.9) or for NaN and then Inf (`NanInf`, core
/// 0.12 on), each test read back by the CPU; or the norm alone, never tested (`Norm`: core 0.10
/// and 0.11, whose rerun state machine returns before testing when reruns are disabled).
enum class GradNanCheck { Off, Norm, Nan, NanInf };
/// Which model stages split their DP gradient reduction (and with overlap_param_gather their
/// parameter gathers) into memory.bucket_size buckets: every one (`All`), only the first pipeline
/// rank's first model chunk (`FirstChunk`: Megatron-core's DDP, whose other chunks and pipeline
/// ranks take one bucket each), or none (`None`: one bucket per model chunk everywhere).
enum class GradBuckets { All, FirstChunk, None };

struct Coord {
  int dp = 0;
  int tp = 0;
  int pp = 0;
  friend bool operator==(const Coord&, const Coord&) = default;
};

/// ZeRO-3 / FSDP parameter gathering (`parallelism.fsdp`).
struct FsdpSpec {
  int unit_layers = 1;  ///< layers per FSDP unit: one all-gather (and reduce-scatter) each
  /// Prefetch depth d: unit i+d's all-gather is issued when unit i starts computing. 1 is
  /// PyTorch FSDP's BACKWARD_PRE / forward_prefetch default behaviour; 0 gathers on demand.
  int prefetch = 1;
  /// true: free a unit's gathered parameters after each use and gather again before every
  /// forward and backward (FSDP's reshard_after_forward). false: gather each unit once per step
  /// and keep it across the micro-batches (the Playbook's advice when PP meets ZeRO-3).
  bool reshard_after_forward = true;
  /// Bytes per collective: a unit's all-gather and reduce-scatter issued as ⌈unit / bucket⌉
  /// equal collectives instead of one (DeepSpeed ZeRO-3 gathers module by module and reduces in
  /// reduce_bucket_size buckets; empty: the whole unit at once, as PyTorch FSDP).
  std::optional<double> gather_bucket, reduce_bucket;
};

/// What the split of layers over pipeline stages counts besides the Transformer layers
/// (Megatron-core's --account-for-embedding-in-pipeline-split and
/// --account-for-loss-in-pipeline-split): the input embedding and the output layer with its loss
/// each as one layer, so the first and the last stage hold one layer fewer. Llama 3 405B
/// balanced its pipeline so: 126 layers over 128 chunks, the first chunk the embedding alone and
/// the last the output projection and loss alone (Llama Team, arXiv:2407.21783, §3.3.2).
/// `mtp`: the multi-token prediction modules' layers counted in the split too (the last stage
/// holds as many of the model's layers fewer), as Megatron-core's pipeline layouts (core_v0.13+,
/// pipeline_model_parallel_layout's `m`) can place them; otherwise they come on top of the last
/// stage's share.
/// `layers`: the Transformer layers of each stage (pp × vpp entries, stage order, summing to the
/// model's layers) where a framework splits unevenly: Megatron-core's
/// --decoder-first/last-pipeline-num-layers, torchtitan's split points, or nanotron, which
/// balances a cost per block (the LM head weighing vocabulary × hidden) over the stages.
/// Empty: the even split above.
struct PipelineSplit {
  bool embedding = false;
  bool loss = false;
  bool mtp = false;
  std::vector<int> layers;
  /// Layer slots the embedding and loss take: 0, 1 or 2.
  int extra_slots() const { return (embedding ? 1 : 0) + (loss ? 1 : 0); }
  bool any() const { return embedding || loss || mtp; }
};

struct Layout {
  int dp = 1;
  int tp = 1;
  int pp = 1;
  int vpp = 1;  ///< model chunks per pipeline rank
  int zero = 0;
  /// Expert parallelism (Megatron-Core's): each MoE layer's experts are split over `ep` ranks
  /// carved out of the DP axis of dp · cp ranks (ep divides dp · cp; the ep consecutive ranks
  /// of a block form an EP group, so it spans the CP groups first, as Megatron-Core's expert
  /// mesh does), tokens reach their experts by all-to-all; expert gradients are reduced over
  /// the dp · cp / ep ranks holding the same experts (the expert-data-parallel group).
  int ep = 1;
  /// Expert tensor parallelism (Megatron-core's --expert-tensor-parallel-size): 0 follows tp
  /// (its default: every expert split over the TP ranks like a dense MLP); 1 under tp > 1 keeps
  /// each expert whole, every TP rank routing its own n / tp sequence-parallel tokens, and the
  /// EP groups are then carved out of a stage's tp · dp · cp ranks, TP fastest (Megatron-core's
  /// expert rank generator, order etp-ep-edp-pp: parallel_state.py).
  int etp = 0;
  /// Context parallelism: every sequence split over `cp` ranks (zig-zag, two chunks of
  /// seq / (2·cp) each, for causal balance); attention reaches the other ranks' keys and values
  /// by ring exchange or all-gather. Gradients are reduced, and ZeRO shards, over the dp · cp
  /// ranks (Megatron's data-parallel group with CP).
  int cp = 1;
  /// Ring attention: the KV blocks travel the ring beside the attention blocks (Megatron-core /
  /// Transformer Engine's `p2p`); all-gather: before the attention, on the critical path
  /// (Transformer Engine's `all_gather`, as Llama 3 trained); all-to-all: Q, K and V exchanged
  /// from sequence to head shards before the attention and its output back after it, on the
  /// critical path (Transformer Engine's `a2a`).
  CpComm cp_comm = CpComm::Ring;
  bool cp_ring() const { return cp_comm == CpComm::Ring; }
  bool sequence_parallel = false;
  PipelineSplit split;
  FsdpSpec fsdp;
  /// ZeRO-1/2: all-gather the updated parameters at the start of the next step's forward
  /// (Megatron's overlap_param_gather), unit by unit with `fsdp.prefetch`, instead of right
  /// after the optimizer step.
  bool param_gather_with_forward = false;
  /// ZeRO-1: reduce-scatter the gradients bucket by bucket as the last micro-batch's backward
  /// completes them (Megatron's overlap_grad_reduce with its distributed optimizer), instead of
  /// once after it. ZeRO-0 and -2 always reduce by bucket, ZeRO-3 by unit.
  bool grad_reduce_with_backward = false;
  /// parallelism.grad_nan_check: the DP buckets' NaN check before their reduction.
  GradNanCheck grad_nan_check = GradNanCheck::Off;
  /// parallelism.grad_buckets: which stages split their gradients into buckets.
  GradBuckets grad_buckets = GradBuckets::All;
  /// How often the NaN check of one bucket makes the CPU wait for the GPU: 0 (off, or the norm
  /// alone), 1 or 2.
  int grad_check_syncs() const {
    return grad_nan_check == GradNanCheck::Nan ? 1 : grad_nan_check == GradNanCheck::NanInf ? 2 : 0;
  }
  /// ZeRO-1: all-reduce the gradients whole instead of reduce-scattering them (nanotron with
  /// fp32 gradient accumulation: its ZeRO-1 runs without DDP and all-reduces the fp32 gradient
  /// buffer after the last backward, trainer.py's sync_gradients_across_dp with
  /// reduce_scatter=False). Other stages: no effect.
  bool zero1_all_reduce = false;
  /// TP collectives overlap the neighbouring GEMMs (chunked comm-GEMM overlap, as Megatron's
  /// tp_comm_overlap): they run beside the compute they belong to instead of after it.
  bool tp_overlap = false;
  /// parallelism.tp_async_allreduce: without SP, the column-parallel layers' input-gradient
  /// all-reduce issued asynchronously beside their weight-gradient GEMM (true), or waited for
  /// right after the input-gradient GEMM (false).
  bool tp_async_allreduce = true;
  std::array<Axis, 3> order{Axis::TP, Axis::DP, Axis::PP};  ///< fastest-varying first

  int world() const { return dp * cp * tp * pp; }
  /// The TP degree of the routed experts: tp unless `etp` says 1.
  int expert_tp() const { return etp > 0 ? etp : tp; }
  /// Whether the EP and expert-data-parallel groups span the TP ranks (etp 1 under tp > 1).
  bool experts_span_tp() const { return expert_tp() == 1 && tp > 1; }
  /// The ranks of a stage EP groups are carved from: its tp · dp · cp ranks when they span TP,
  /// else the dp · cp ranks of one TP coordinate.
  int expert_ranks() const { return experts_span_tp() ? tp * dp_ranks() : dp_ranks(); }
  /// The expert-data-parallel group's size: the expert_ranks holding the same experts.
  int expert_dp_ranks() const { return expert_ranks() / std::max(1, ep); }
  /// A rank's position among expert_ranks (TP fastest when they span TP, else its DP index).
  int expert_slot(const Coord& c) const { return experts_span_tp() ? c.dp * tp + c.tp : c.dp; }
  /// The rank at position `slot` of expert_ranks in pipeline stage `pp` (`tp_coord`: the TP
  /// coordinate when the groups do not span TP).
  Coord expert_coord(int slot, int tp_coord, int pp) const {
    return experts_span_tp() ? Coord{slot / tp, slot % tp, pp} : Coord{slot, tp_coord, pp};
  }
  /// Ranks of a data-parallel group: the data replicas times the context-parallel ranks
  /// (gradients are reduced and ZeRO shards over all of them).
  int dp_ranks() const { return dp * cp; }
  int size(Axis a) const { return a == Axis::TP ? tp : a == Axis::DP ? dp * cp : pp; }
  int rank_of(const Coord& c) const;
  Coord coord_of(int rank) const;
  /// Distance between consecutive members of a group along axis `a`.
  int stride(Axis a) const;
};

/// "tp,dp,pp" style text for an order.
std::string order_to_string(const std::array<Axis, 3>& order);

}  // namespace trainsim
