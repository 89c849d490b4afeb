#include "cost/attention_table.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace trainsim {

AttentionTable::AttentionTable(const std::vector<AttentionSample>& samples) {
  for (const AttentionSample& s : samples)
    points_.push_back({s.pass == "backward", static_cast<double>(s.head_dim), s.causal,
                       static_cast<double>(s.seq), s.flops() / s.time_s / 1e12});
  std::sort(points_.begin(), points_.end(), [](const Point& a, const Point& b) {
    return std::tie(a.backward, a.head_dim, a.causal, a.seq) <
           std::tie(b.backward, b.head_dim, b.causal, b.seq);
  });
}

std::optional<double> AttentionTable::seconds(bool backward, double seq, double head_dim,
                                              double heads, bool causal) const {
  // The samples of this kind, by length; those at one length averaged.
  std::vector<std::pair<double, double>> curve;  // (log2 seq, TFLOP/s)
  std::vector<int> at_length;
  for (const Point& p : points_) {
    if (p.backward != backward || p.head_dim != head_dim || p.causal != causal) continue;
    const double l = std::log2(p.seq);
    if (!curve.empty() && curve.back().first == l) {
      curve.back().second += p.tflops;
      ++at_length.back();
    } else {
      curve.emplace_back(l, p.tflops);
      at_length.push_back(1);
    }
  }
  for (std::size_t i = 0; i < curve.size(); ++i) curve[i].second /= at_length[i];
  const double l = std::log2(seq);
  if (curve.empty() || l < curve.front().first || l > curve.back().first) return std::nullopt;
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
