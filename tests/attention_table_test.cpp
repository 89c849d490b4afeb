#include "cost/attention_table.h"

#include <catch2/catch.hpp>

using namespace trainsim;

TEST_CASE("attention table: measured calls timed by throughput over the sequence length",
          "[calibration][attention]") {
  // Forward, head dim 128, causal: 16 heads at 2048 tokens in 1 ms, 16 heads at 8192 in 10 ms.
  // Papers' FLOPs: 4·s²·d·heads·½ = 2·2048²·128·16 = 17.18 GFLOP → 17.18 TFLOP/s; at 8192,
  // 274.9 GFLOP → 27.49 TFLOP/s.
  AttentionSample a, b;
  a.seq = 2048, a.head_dim = 128, a.heads = 16, a.time_s = 1e-3;
  b.seq = 8192, b.head_dim = 128, b.heads = 16, b.time_s = 10e-3;
  const AttentionTable t({a, b});
  const double f2k = 2.0 * 2048 * 2048 * 128 * 16, f8k = 2.0 * 8192 * 8192 * 128 * 16;
  // At a sample's length, 32 heads take twice its time (the same throughput).
  CHECK(*t.seconds(false, 2048, 128, 32, true) == Approx(2e-3));
  // Halfway in log2 (4096): the mean throughput; 16 heads of 4096, 2·4096²·128·16 FLOPs.
  const double mid = (f2k / 1e-3 + f8k / 10e-3) / 2;
  CHECK(*t.seconds(false, 4096, 128, 16, true) == Approx(2.0 * 4096 * 4096 * 128 * 16 / mid));
  // Outside the lengths, another head size, the backward, no mask: no answer.
  CHECK_FALSE(t.seconds(false, 16384, 128, 16, true));
  CHECK_FALSE(t.seconds(false, 1024, 128, 16, true));
  CHECK_FALSE(t.seconds(false, 4096, 64, 16, true));
  CHECK_FALSE(t.seconds(true, 4096, 128, 16, true));
  CHECK_FALSE(t.seconds(false, 4096, 128, 16, false));
  CHECK(t.answered() == 2);  // (forward, 2048, 128) and (forward, 4096, 128)
  // A backward sample counts 2.5 forwards' FLOPs: at its own shape it returns its own time.
  AttentionSample c = a;
  c.pass = "backward";
  c.time_s = 3e-3;
  CHECK(*AttentionTable({c}).seconds(true, 2048, 128, 16, true) == Approx(3e-3));
}
