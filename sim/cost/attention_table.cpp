#include "cost/attention_table.h"

#include <cmath>

namespace trainsim {

AttentionTable::AttentionTable(const std::vector<AttentionSample>& samples) {
  // Per kind, the throughputs at each length (several samples at one length: their mean).
  std::map<Kind, std::map<double, std::pair<double, int>>> sums;
  for (const AttentionSample& s : samples) {
    auto& [sum, n] = sums[{s.pass == "backward", static_cast<double>(s.head_dim), s.causal}]
                         [std::log2(static_cast<double>(s.seq))];
    sum += s.flops() / s.time_s / 1e12;
    ++n;
  }
  for (const auto& [kind, by_length] : sums)
    for (const auto& [l, sn] : by_length) curves_[kind].emplace_back(l, sn.first / sn.second);
  size_ = samples.size();
}

std::optional<double> AttentionTable::seconds(bool backward, double seq, double head_dim,
                                              double heads, bool causal) const {
  const auto it = curves_.find({backward, head_dim, causal});
  if (it == curves_.end()) return std::nullopt;
  const auto& curve = it->second;  // (log2 seq, TFLOP/s), by length
  const double l = std::log2(seq);
  if (l < curve.front().first || l > curve.back().first) return std::nullopt;
  double tflops = curve.front().second;
  for (std::size_t i = 0; i + 1 < curve.size(); ++i)
    if (l >= curve[i].first && l <= curve[i + 1].first) {
      const double f = (l - curve[i].first) / (curve[i + 1].first - curve[i].first);
      tflops = (1 - f) * curve[i].second + f * curve[i + 1].second;
      break;
    }
  // AttentionSample::flops of this call (in doubles: seq² · heads may pass 2^63).
  const double flops =
      4.0 * seq * seq * head_dim * heads * (causal ? 0.5 : 1.0) * (backward ? 2.5 : 1.0);
  answered_.emplace(backward, seq, head_dim);
  return flops / (tflops * 1e12);
}

}  // namespace trainsim
