#include "torch_trace_import.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "measured/step_breakdown.h"
#include "stats.h"

namespace trainsim {
namespace {

// The steps of a trace that carry over: all with kernels, less the first when three or more.
std::vector<bool> used_steps(const TorchTrace& t) {
  std::vector<bool> use(t.steps.size(), false);
  int with = 0;
  for (std::size_t i = 0; i < t.steps.size(); ++i) with += t.steps[i].kernels > 0;
  bool skipped = with < 3;
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    if (t.steps[i].kernels == 0) continue;
    if (!skipped) {
      skipped = true;
      continue;
    }
    use[i] = true;
  }
  return use;
}

// Where a sample's first call was: "trace.json.gz rank 0 ProfilerStep#3" (the whole trace when it
// has no steps).
std::string where(const TorchTrace& t, int step) {
  return fmt::format("{} rank {} {}", t.file, t.rank,
                     step >= 0 && static_cast<std::size_t>(step) < t.steps.size()
                         ? t.steps[static_cast<std::size_t>(step)].name
                         : std::string("whole trace"));
}

// A profile sample of one shape from its calls' kernel times: their median and spread, made by
// this importer. The caller fills in the shape.
template <typename Sample>
Sample timed(const std::vector<double>& times) {
  Sample s;
  const Timing tm = summarize(times);
  s.time_s = tm.median;
  s.spread_s = tm.spread;
  s.method = "torch-trace";
  return s;
}

}  // namespace

TorchTraceImport import_torch_traces(std::vector<TorchTrace> traces, const Scenario& s,
                                     const std::string& step) {
  TorchTraceImport out;
  if (!traces.empty()) out.profile.provenance.device = traces.front().device;
  const int per_node = s.has_cluster ? s.cluster.gpus_per_node : 8;
  using GemmKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::string>;
  std::map<GemmKey, std::vector<double>> gemms;
  std::map<double, std::vector<double>> copies;
  std::map<GemmKey, std::string> gemm_source;
  std::map<double, std::string> copy_source;
  using CollKey = std::tuple<std::string, int, double>;
  std::map<CollKey, std::vector<double>> colls;
  std::map<CollKey, std::string> coll_source;
  // (pass, seq, head dim, heads, causal) → per-call times, and where the first came from.
  using AttnKey = std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, bool>;
  std::map<AttnKey, std::vector<double>> attention;
  std::map<AttnKey, std::string> attention_source;
  for (TorchTrace& t : traces) {
    // The step asked for; else every step but a warm-up, and a trace without ProfilerStep
    // annotations is one step: every kernel counts.
    std::vector<bool> use;
    if (!step.empty()) {
      const int picked = pick_step(t, step);
      use.assign(t.steps.size(), false);
      use[static_cast<std::size_t>(picked)] = true;
    } else {
      use = used_steps(t);
    }
    const bool whole = step.empty() && t.steps.empty();
    out.steps += whole ? 1 : static_cast<int>(std::count(use.begin(), use.end(), true));
    std::map<std::pair<int, int>, double> call;  // (step, shape id) → summed kernel time
    std::map<std::pair<int, int>, std::pair<double, int>> attn_call;  // → (time, kernels)
    for (const TraceKernel& k : t.kernels) {
      if (!whole && (k.step < 0 || !use[static_cast<std::size_t>(k.step)])) continue;
      const double secs = to_seconds(k.dur);
      switch (k.kind.category) {
        case KernelCategory::Gemm:
          if (k.shape < 0)
            ++out.gemm_no_shape;
          else
            call[{k.step, k.shape}] += secs;
          break;
        case KernelCategory::Attention:
          if (k.attention < 0) {
            ++out.attention_kernels;
          } else {
            auto& [time, kernels] = attn_call[{k.step, k.attention}];
            time += secs;
            ++kernels;
          }
          break;
        case KernelCategory::Communication: {
          const CollectiveInfo* c =
              k.collective >= 0 ? &t.collectives[static_cast<std::size_t>(k.collective)] : nullptr;
          const auto& ops = collective_op_names();
          if (!c || c->bytes <= 0 || c->group_size < 2 ||
              std::find(ops.begin(), ops.end(), k.kind.collective) == ops.end()) {
            ++out.collective_skipped;
            break;
          }
          const CollKey key{k.kind.collective, c->group_size, c->bytes};
          colls[key].push_back(secs);
          coll_source.emplace(key, where(t, whole ? -1 : k.step));
          ++out.collective_calls;
          break;
        }
        case KernelCategory::MemoryBound:
          if (k.copy && k.copy_bytes > 0 && t.names[k.name].find("DtoD") != std::string::npos) {
            copies[2 * k.copy_bytes].push_back(secs);
            copy_source.emplace(2 * k.copy_bytes, where(t, k.step));
            ++out.copies;
          }
          break;
        default:
          break;
      }
    }
    // One attention call: every kernel its SDPA operator launched (a backward's preprocessing,
    // main kernel and dQ conversion).
    for (const auto& [key, tk] : attn_call) {
      const TraceAttentionShape& a = t.attention_shapes[static_cast<std::size_t>(key.second)];
      if (a.causal < 0) {
        out.attention_kernels += tk.second;
        continue;
      }
      const AttnKey k{a.backward ? "backward" : "forward", a.seq, a.head_dim, a.batch * a.heads,
                      a.causal == 1};
      attention[k].push_back(tk.first);
      attention_source.emplace(k, where(t, key.first));
      ++out.attention_calls;
    }
    for (const auto& [key, secs] : call) {
      const TraceGemmShape& g = t.gemm_shapes[static_cast<std::size_t>(key.second)];
      if (g.batch > 1) {
        ++out.gemm_batched;
      } else if (g.dtype != "bf16" && g.dtype != "fp16") {
        ++out.gemm_fp32;
      } else {
        gemms[{g.m, g.n, g.k, g.dtype}].push_back(secs);
        gemm_source.emplace(GemmKey{g.m, g.n, g.k, g.dtype}, where(t, key.first));
        ++out.gemm_calls;
      }
    }
  }
  for (const auto& [key, v] : gemms) {
    GemmSample g = timed<GemmSample>(v);
    std::tie(g.m, g.n, g.k, g.dtype) = key;
    g.source = fmt::format("{} ({} calls)", gemm_source[key], v.size());
    out.profile.gemms.push_back(g);
  }
  for (const auto& [bytes, v] : copies) {
    MemoryKernelSample m = timed<MemoryKernelSample>(v);
    m.bytes = bytes;
    m.source = fmt::format("{} ({} copies)", copy_source[bytes], v.size());
    out.profile.memory.push_back(m);
  }
  for (const auto& [key, v] : attention) {
    AttentionSample a = timed<AttentionSample>(v);
    std::tie(a.pass, a.seq, a.head_dim, a.heads, a.causal) = key;
    a.source = fmt::format("{} ({} calls)", attention_source[key], v.size());
    out.profile.attention.push_back(a);
  }
  for (const auto& [key, v] : colls) {
    CollectiveSample c = timed<CollectiveSample>(v);
    std::tie(c.op, c.group_size, c.bytes) = key;
    c.link = c.group_size > per_node ? "inter_node" : "intra_node";
    c.algbw = c.bytes / c.time_s;
    c.busbw = c.algbw * op_bus_factor(c.op, c.group_size);
    c.method = "torch-trace";
    c.source = fmt::format("{} ({} calls)", coll_source[key], v.size());
    out.profile.collectives.push_back(c);
  }
  return out;
}

}  // namespace trainsim
