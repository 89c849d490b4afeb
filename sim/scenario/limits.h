#pragma once
// Input size limits: far beyond any real model or cluster, small enough that every count and
// product the simulator forms (parameters, GPUs, stages, micro-batches) fits its integer type
// with room to spare (scenarios/README.md, "Limits"). The loader checks each key against them
// as it parses; validate() checks the values again after code edits them.

namespace trainsim::limits {

inline constexpr long long kMaxLayers = 100'000;
/// Pipeline stages (pp × vpp): 64 × any published pipeline, and a 16,384-rank step still
/// simulates and reports in about a second.
inline constexpr long long kMaxStages = 1LL << 14;
inline constexpr long long kMaxWidth = 1LL << 20;  ///< hidden, ffn_hidden
inline constexpr long long kMaxHeads = 1LL << 16;  ///< heads, kv_heads
inline constexpr long long kMaxVocab = 1LL << 24;
inline constexpr long long kMaxExperts = 1LL << 14;   ///< routed experts per MoE layer
inline constexpr long long kMaxParallel = 1LL << 20;  ///< dp, tp, pp, vpp, nodes, gpus_per_node
inline constexpr long long kMaxGpus = 1LL << 24;      ///< dp × tp × pp
inline constexpr long long kMaxSeqLen = 1LL << 24;
inline constexpr long long kMaxMicroBatch = 1LL << 20;  ///< sequences per micro-batch
inline constexpr long long kMaxMicrobatches = 1LL << 16;
inline constexpr long long kMaxGlobalBatch = 1LL << 30;

}  // namespace trainsim::limits
