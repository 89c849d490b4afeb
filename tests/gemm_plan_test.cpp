// The GEMM shapes `trainsim-calibrate gemm` measures for a scenario (calibrate/gemm_plan.h).
#include "gemm_plan.h"

#include <algorithm>

#include <catch2/catch.hpp>

#include "cost/analytic.h"
#include "cost/gemm_table.h"
#include "test_util.h"

using namespace trainsim;

namespace {

Scenario llama1b(int tp, int b = 1, int pp = 1) {
  return test::yaml(fmt::format(R"(model: llama-3.2-1b
training: {{seq_len: 1024, micro_batch_size: {}, global_batch_size: {}}}
cluster: {{gpu: h100-sxm, gpus_per_node: 8}}
parallelism: {{tp: {}, pp: {}, dp: {}}}
)",
                                b, 8 * b, tp, pp, 8 / (tp * pp)));
}

// A GEMM table with a made-up time for every planned shape (2·m·n·k / 1e15 s).
GemmTable table_of(const std::vector<PlannedGemm>& plan) {
  std::vector<GemmSample> samples;
  for (const auto& g : plan)
    samples.push_back({g.m, g.n, g.k, "bf16", g.flops() / 1e15, 0, "", ""});
  return GemmTable(samples, "bf16");
}

// Every GEMM kernel `s` runs, on every stage and op.
std::vector<GemmShape> gemms_of(const Scenario& s) {
  const AnalyticCostModel model(s);
  std::vector<GemmShape> out;
  for (int stage = 0; stage < s.layout.pp * s.layout.vpp; ++stage)
    for (Op op : {Op::F, Op::B, Op::I, Op::W})
      for (const Kernel& k : model.kernels(op, stage))
        if (k.kind == Kernel::Kind::Gemm) out.push_back(k.gemm);
  return out;
}

}  // namespace

TEST_CASE("gemm plan: the needed shapes are exactly the scenario's GEMMs", "[calibration]") {
  const auto plan = plan_gemms(llama1b(1));
  const auto needed = std::count_if(plan.begin(), plan.end(), [](auto& g) { return g.needed; });
  // Llama-3.2-1B, n = 1024 tokens, h = 2048, f = 8192, QKV out 2048 + 2·8·64 = 3072, V = 128256:
  // 4 layer GEMMs × (forward, dgrad, wgrad) + 3 for the LM head = 15, less one repeat: the
  // attention output's forward 1024×2048×2048 is also its dgrad.
  CHECK(needed == 14);
  CHECK(plan[0].m == 1024);
  CHECK(plan[0].n == 3072);
  CHECK(plan[0].k == 2048);
  CHECK(plan[0].why == "qkv");
  const auto attn = std::find_if(plan.begin(), plan.end(),
                                 [](auto& g) { return g.m == 1024 && g.n == 2048 && g.k == 2048; });
  REQUIRE(attn != plan.end());
  CHECK(attn->why == "attn_out, attn_out.dgrad");
  // Needed shapes come first, and no shape is planned twice.
  CHECK(std::is_partitioned(plan.begin(), plan.end(), [](auto& g) { return g.needed; }));
  for (std::size_t i = 0; i < plan.size(); ++i)
    for (std::size_t j = i + 1; j < plan.size(); ++j)
      CHECK_FALSE((plan[i].m == plan[j].m && plan[i].n == plan[j].n && plan[i].k == plan[j].k));
  // Measured, the plan answers every GEMM of the scenario exactly.
  const GemmTable t = table_of(plan);
  for (const GemmShape& g : gemms_of(llama1b(1))) CHECK(t.seconds(g.m, g.n, g.k));
  CHECK(t.outside().empty());
}

TEST_CASE("gemm plan: the sweep covers nearby layouts by one-dimension interpolation",
          "[calibration]") {
  // Measured for tp 2, b 1, the table must also answer tp 1, 4 and 8 (one dimension ×2,
  // ×0.5, ×0.25), b = 2 and 3 (m ×2, and between ×2 and ×4), and pp 2 (a subset).
  const GemmTable t = table_of(plan_gemms(llama1b(2)));
  for (const Scenario& s :
       {llama1b(1), llama1b(4), llama1b(8), llama1b(2, 2), llama1b(2, 3), llama1b(2, 1, 2)})
    for (const GemmShape& g : gemms_of(s)) CHECK(t.seconds(g.m, g.n, g.k));
  CHECK(t.outside().empty());
  // b = 16 is 16× the measured m: outside, not extrapolated.
  const GemmTable t1 = table_of(plan_gemms(llama1b(1)));
  CHECK_FALSE(t1.seconds(16 * 1024, 3072, 2048));
}

TEST_CASE("gemm plan: sweep points above the size limit are left out", "[calibration]") {
  GemmPlanOptions o;
  // The largest needed shape is the LM head, 2·(1024·2048 + 2048·128256 + 1024·128256) B =
  // 793 MB; ×4 along n makes 3.2 GB. A 1 GB limit keeps the needed shapes and drops those.
  o.max_bytes = 1e9;
  const auto plan = plan_gemms(llama1b(1), o);
  for (const auto& g : plan)
    if (!g.needed) CHECK(g.bytes() <= 1e9);
  CHECK(std::count_if(plan.begin(), plan.end(), [](auto& g) { return g.needed; }) == 14);
  CHECK(plan.size() < plan_gemms(llama1b(1)).size());
}

TEST_CASE("gemm plan: copy sizes double from 256 KiB to 4 GiB", "[calibration]") {
  const auto sizes = plan_copy_bytes();
  // 2^18 … 2^32: 15 sizes.
  REQUIRE(sizes.size() == 15);
  CHECK(sizes.front() == 262144);
  CHECK(sizes.back() == 4294967296.0);
}

TEST_CASE("gemm plan: operand pools hold the largest A, B, C and the largest copy",
          "[calibration]") {
  // A: max(1024·2048, 64·4096) = 2,097,152; B: max(2048·512, 4096·8) = 1,048,576;
  // C: max(1024·512, 64·8) = 524,288 elements. A 4 MiB copy reads 2 MiB = 1,048,576 elements
  // from A's pool and writes as many into C's: C grows to 1,048,576, A stays.
  const std::vector<PlannedGemm> g{{1024, 512, 2048, "", true}, {64, 8, 4096, "", false}};
  const OperandPools p = operand_pools(g, 4 << 20);
  CHECK(p.a == 2097152);
  CHECK(p.b == 1048576);
  CHECK(p.c == 1048576);
  CHECK(p.bytes() == 2.0 * (2097152 + 1048576 + 1048576));
  CHECK(operand_pools({}, 0).bytes() == 0);
}
