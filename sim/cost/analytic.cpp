#include "cost/analytic.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "cost/constants.h"

namespace trainsim {

AnalyticConstants resolve_constants(const EfficiencyOverrides& o) {
  return {o.gemm.value_or(constants::kGemmEfficiency), constants::kAttentionEfficiency,
          o.memory.value_or(constants::kMemoryEfficiency),
          o.kernel_launch ? to_seconds(*o.kernel_launch) : constants::kKernelLaunch};
}

AnalyticCostModel::AnalyticCostModel(const Scenario& s, const GemmTable* gemms)
    : s_(s),
      k_(resolve_constants(s.efficiency)),
      stages_(partition_layers(s.model.value().layers, s.layout.pp * s.layout.vpp)),
      tokens_(static_cast<double>(s.training.seq_len) * s.training.micro_batch_size),
      gemms_(gemms) {
  TRAINSIM_CHECK(s.has_cluster, "the analytic model needs a cluster");
}

double AnalyticCostModel::memory_seconds(double bytes) const {
  return bytes / (s_.cluster.gpu.hbm_bandwidth * k_.memory_efficiency);
}

double AnalyticCostModel::gemm_seconds(const GemmShape& g) const {
  if (gemms_)
    if (auto t = gemms_->seconds(g.m, g.n, g.k)) return *t;
  const DeviceSpec& d = s_.cluster.gpu;
  double wave = 1.0;
  if (d.sms > 0) {
    // Wave quantization: the last wave of output tiles may leave SMs idle.
    const double tiles =
        std::ceil(g.m / constants::kGemmTile) * std::ceil(g.n / constants::kGemmTile);
    const double waves = std::ceil(tiles / d.sms);
    wave = tiles / (waves * d.sms);
  }
  const double compute = g.flops() / (d.peak_flops * k_.gemm_efficiency * wave);
  const double bytes = 2.0 * (g.m * g.k + g.k * g.n + g.m * g.n);  // bf16 operands and result
  return std::max(compute, bytes / d.hbm_bandwidth);
}

std::vector<GemmShape> AnalyticCostModel::layer_gemms() const {
  const ModelSpec& m = *s_.model;
  const double t = s_.layout.tp, n = tokens_, h = static_cast<double>(m.hidden);
  const double kvd = static_cast<double>(m.kv_heads) * static_cast<double>(m.head_dim());
  const double f = static_cast<double>(m.ffn_hidden);
  const double up = m.mlp == MlpKind::SwiGLU ? 2.0 * f : f;
  return {
      {n, (h + 2 * kvd) / t, h},  // QKV projection (column-parallel)
      {n, h, h / t},              // attention output (row-parallel)
      {n, up / t, h},             // MLP gate+up or up (column-parallel)
      {n, h, f / t},              // MLP down (row-parallel)
  };
}

AnalyticCostModel::Parts AnalyticCostModel::layer_part(Op op) const {
  const ModelSpec& m = *s_.model;
  const double t = s_.layout.tp, n = tokens_, h = static_cast<double>(m.hidden);
  const double sq = s_.training.seq_len, b = s_.training.micro_batch_size;
  const double f = static_cast<double>(m.ffn_hidden);
  const double kvd = static_cast<double>(m.kv_heads) * static_cast<double>(m.head_dim());
  Parts p;
  // GEMMs. Input gradient: dA = dC·Bᵀ (m×k from m×n, n×k); weight gradient dB = Aᵀ·dC (k×n).
  for (const GemmShape& g : layer_gemms()) {
    GemmShape shape = g;
    if (op == Op::I) shape = {g.m, g.k, g.n};
    if (op == Op::W) shape = {g.k, g.n, g.m};
    if (op == Op::B) {
      const GemmShape di{g.m, g.k, g.n}, dw{g.k, g.n, g.m};
      p.seconds += gemm_seconds(di) + gemm_seconds(dw);
      p.flops += di.flops() + dw.flops();
      p.bytes +=
          2.0 * (di.m * di.k + di.k * di.n + di.m * di.n + dw.m * dw.k + dw.k * dw.n + dw.m * dw.n);
      continue;
    }
    p.seconds += gemm_seconds(shape);
    p.flops += shape.flops();
    p.bytes += 2.0 * (shape.m * shape.k + shape.k * shape.n + shape.m * shape.n);
  }
  if (op == Op::W) {
    p.seconds += constants::kKernelsBackwardWeight * k_.kernel_launch;
    return p;
  }
  // Attention core: QKᵀ and PV, 2·2·b·a·s²·d = 4·b·s²·h FLOPs forward, causal half skipped;
  // backward recomputes scores and forms dQ, dK, dV: twice the forward.
  const double attn_fwd = 4.0 * b * sq * sq * h / t * constants::kCausalFraction;
  const double attn = (op == Op::F) ? attn_fwd : 2.0 * attn_fwd;
  p.seconds += attn / (s_.cluster.gpu.peak_flops * k_.attention_efficiency);
  p.flops += attn;
  // Memory-bound ops, bf16. Norms and residual adds see the full hidden state unless sequence
  // parallelism splits it over TP ranks.
  const double hs = s_.layout.sequence_parallel ? n * h / t : n * h;
  const double norms = 2 * (2 * hs * 2);     // 2 RMSNorms: read + write
  const double residual = 2 * (3 * hs * 2);  // 2 adds: read 2, write 1
  const double act = (m.mlp == MlpKind::SwiGLU ? 3.0 : 2.0) * n * f / t * 2;
  const double rope = 2.0 * n * (h + kvd) / t * 2;  // q and k: read + write
  const double mem = norms + residual + act + rope;
  const double mem_bytes = (op == Op::F) ? mem : 2.0 * mem;  // backward reads grads and inputs
  p.seconds += memory_seconds(mem_bytes);
  p.bytes += mem_bytes;
  const int kernels = (op == Op::F) ? constants::kKernelsForward
                      : (op == Op::I)
                          ? constants::kKernelsBackwardInput
                          : constants::kKernelsBackwardInput + constants::kKernelsBackwardWeight;
  p.seconds += kernels * k_.kernel_launch;
  // Recomputation runs (part of) the forward again before the input gradient; it costs time
  // but is not model FLOPs.
  if (op == Op::I || op == Op::B) {
    if (s_.training.recompute == Recompute::Full) {
      Parts fwd = layer_part(Op::F);
      p.seconds += fwd.seconds;
      p.bytes += fwd.bytes;
    } else if (s_.training.recompute == Recompute::Selective) {
      p.seconds +=
          attn_fwd / (s_.cluster.gpu.peak_flops * k_.attention_efficiency) + k_.kernel_launch;
    }
  }
  return p;
}

AnalyticCostModel::Parts AnalyticCostModel::embedding_part(Op op) const {
  // Embedding lookup reads and writes n·h bf16 values; its gradient scatters them back.
  const double h = static_cast<double>(s_.model->hidden);
  const double bytes = 2.0 * tokens_ * h * 2.0;
  if (op == Op::I) return {};  // nothing upstream needs an input gradient
  return {memory_seconds(bytes) + k_.kernel_launch, 0.0, bytes};
}

AnalyticCostModel::Parts AnalyticCostModel::head_part(Op op) const {
  const ModelSpec& m = *s_.model;
  const double t = s_.layout.tp, n = tokens_, h = static_cast<double>(m.hidden);
  const double v = static_cast<double>(m.vocab) / t;
  const GemmShape g{n, v, h};  // logits (vocabulary-parallel)
  const double logits = n * v * 2.0;
  Parts p;
  auto add_gemm = [&](const GemmShape& s) {
    p.seconds += gemm_seconds(s) + k_.kernel_launch;
    p.flops += s.flops();
    p.bytes += 2.0 * (s.m * s.k + s.k * s.n + s.m * s.n);
  };
  if (op == Op::F) {
    add_gemm(g);
    p.seconds += memory_seconds(2 * logits) + k_.kernel_launch;  // softmax cross-entropy: 2 passes
    p.bytes += 2 * logits;
  }
  if (op == Op::I || op == Op::B) {
    p.seconds += memory_seconds(2 * logits) + k_.kernel_launch;  // gradient of the loss
    p.bytes += 2 * logits;
    add_gemm({g.m, g.k, g.n});
  }
  if (op == Op::W || op == Op::B) add_gemm({g.k, g.n, g.m});
  return p;
}

Cost AnalyticCostModel::compute(Op op, int stage, int /*rank*/) const {
  const StageContent& st = stages_.at(static_cast<std::size_t>(stage));
  Parts layer = layer_part(op);
  Parts total{layer.seconds * st.layers, layer.flops * st.layers, layer.bytes * st.layers};
  auto add = [&](const Parts& p) {
    total.seconds += p.seconds;
    total.flops += p.flops;
    total.bytes += p.bytes;
  };
  if (st.embedding) add(embedding_part(op));
  if (st.head) add(head_part(op));
  return {seconds_to_ns(total.seconds), total.flops, total.bytes};
}

Cost AnalyticCostModel::tp_communication(Op op, int stage, LinkClass link) const {
  const int t = s_.layout.tp;
  if (t <= 1 || op == Op::W) return {};
  // Per layer, 2 all-reduces of the n·h bf16 hidden state forward and 2 backward (Megatron
  // without SP); with SP an all-gather + reduce-scatter pair of the same total volume.
  const double bytes = tokens_ * static_cast<double>(s_.model->hidden) * 2.0;
  const StageContent& st = stages_.at(static_cast<std::size_t>(stage));
  // Each all-reduce of the no-SP layout becomes an all-gather + reduce-scatter pair with SP.
  Cost one;
  if (s_.layout.sequence_parallel) {
    Cost ag = collective(Collective::AllGather, t, link, bytes);
    Cost rs = collective(Collective::ReduceScatter, t, link, bytes);
    one = {2 * (ag.duration + rs.duration), 0, 2 * (ag.bytes + rs.bytes)};
  } else {
    Cost ar = collective(Collective::AllReduce, t, link, bytes);
    one = {2 * ar.duration, 0, 2 * ar.bytes};
  }
  return {one.duration * st.layers, 0, one.bytes * st.layers};
}

double AnalyticCostModel::activation_bytes() const {
  return tokens_ * static_cast<double>(s_.model->hidden) * 2.0;  // s·b·h bf16
}

Cost AnalyticCostModel::p2p(LinkClass link, double bytes) const {
  const LinkSpec& l = s_.cluster.link(link);
  const double t = constants::kCollectiveBaseLatency + l.latency + bytes / l.bandwidth;
  return {seconds_to_ns(t), 0, bytes};
}

Cost AnalyticCostModel::collective(Collective c, int n, LinkClass link, double bytes) const {
  if (n <= 1) return {0, 0, 0};
  const LinkSpec& l = s_.cluster.link(link);
  // Ring steps: all-reduce 2(n−1), others n−1; α = base + steps · per-hop latency.
  const int steps = (c == Collective::AllReduce ? 2 : 1) * (n - 1);
  const double t = constants::kCollectiveBaseLatency + steps * l.latency +
                   busbw_factor(c, n) * bytes / l.bandwidth;
  // Cost::bytes of a collective: what each GPU sends over its links, bus factor × S.
  return {seconds_to_ns(t), 0, busbw_factor(c, n) * bytes};
}

double AnalyticCostModel::stage_params(int stage) const {
  return static_cast<double>(
      trainsim::stage_params(*s_.model, stages_.at(static_cast<std::size_t>(stage)), s_.layout.tp,
                             static_cast<int>(stages_.size())));
}

double AnalyticCostModel::gradient_bytes(int stage) const {
  // Reduced in the precision they accumulate in: fp32 with fp32 accumulation, else 16-bit.
  return (s_.training.fp32_grad_accumulation ? 4.0 : 2.0) * stage_params(stage);
}

Cost AnalyticCostModel::optimizer(double params) const {
  const double bytes = params * constants::kAdamBytesPerParam;
  return {seconds_to_ns(memory_seconds(bytes) + k_.kernel_launch), 0, bytes};
}

}  // namespace trainsim
