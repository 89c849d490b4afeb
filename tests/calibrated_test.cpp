#include "cost/calibrated.h"

#include <cmath>
#include <cstdio>

#include <catch2/catch.hpp>

#include "cost/analytic.h"
#include "cost/constants.h"
#include "cost/explicit_costs.h"
#include "test_util.h"

using namespace trainsim;

namespace {

Scenario model_scenario(const std::string& extra = "") {
  return test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 2}
cluster: {gpu: h100-sxm, gpus_per_node: 2}
parallelism: {dp: 2}
memory: {bucket_size: 100GB}
)" + extra);
}

// All-reduce over 2 GPUs on one node: 1 MB in 20 us, 4 MB in 50 us, 16 MB in 170 us.
CalibrationProfile profile() {
  CalibrationProfile p;
  p.provenance.device = "NVIDIA H100 80GB HBM3";
  for (auto [bytes, us] : {std::pair{1 << 20, 20.0}, {4 << 20, 50.0}, {16 << 20, 170.0}})
    p.collectives.push_back(
        {"all_reduce", 2, "intra_node", double(bytes), us * 1e-6, 0, 0, "nccl-tests", "test"});
  return p;
}

CalibratedCostModel model(const Scenario& s) {
  return CalibratedCostModel(profile(), "p.json", std::make_unique<AnalyticCostModel>(s));
}

}  // namespace

TEST_CASE("calibrated: measured sizes are exact, sizes between interpolate in log-log space",
          "[calibration]") {
  const Scenario s = model_scenario();
  const auto m = model(s);
  CHECK(m.lookup("all_reduce", 2, LinkClass::IntraNode, 4 << 20) == Approx(50e-6));
  // 2 MB is halfway (in log) between 1 and 4 MB: t = sqrt(20 · 50) us = 31.62 us.
  CHECK(m.lookup("all_reduce", 2, LinkClass::IntraNode, 2 << 20) ==
        Approx(std::sqrt(20.0 * 50.0) * 1e-6));
  CHECK(m.collective(Collective::AllReduce, 2, LinkClass::IntraNode, 4 << 20).duration ==
        50 * kNsPerUs);
}

TEST_CASE("calibrated: outside the table an alpha-beta line fitted to the samples",
          "[calibration]") {
  const auto m = model(model_scenario());
  // Least squares of t = α + β·S over (1, 20), (4, 50), (16, 170) [MB, us]: β = 10 us/MB,
  // α = 10 us, so 64 MB takes 10 + 640 = 650 us (both derived by hand: the points are on the
  // line t = 10 + 10·S).
  CHECK(m.lookup("all_reduce", 2, LinkClass::IntraNode, 64 << 20) == Approx(650e-6));
  CHECK_THAT(m.sources(), Catch::Contains("1 extrapolated"));
}

TEST_CASE("calibrated: what the profile lacks stays analytic, and says so", "[calibration]") {
  const Scenario s = model_scenario();
  const auto m = model(s);
  const AnalyticCostModel a(s);
  // No all-gather samples, and none for 4 GPUs: the analytic durations, named in sources().
  CHECK(m.collective(Collective::AllGather, 2, LinkClass::IntraNode, 1 << 20).duration ==
        a.collective(Collective::AllGather, 2, LinkClass::IntraNode, 1 << 20).duration);
  CHECK(m.lookup("all_reduce", 4, LinkClass::IntraNode, 1 << 20) < 0);
  CHECK_THAT(m.sources(), Catch::Contains("by the model, not in the profile: all_gather×2 "
                                          "intra_node, all_reduce×4 intra_node") &&
                              Catch::Contains("; the model: " + a.sources()));
  // Compute is untouched.
  CHECK(m.compute(Op::F, 0, 0).duration == a.compute(Op::F, 0, 0).duration);
  // One all-gather size is in a profile, but a lookup needs two (interpolation or a line):
  // the model prices it, and the line says the profile has one.
  CalibrationProfile one = profile();
  one.collectives.push_back(
      {"all_gather", 2, "intra_node", double(1 << 20), 15e-6, 0, 0, "nccl-tests", "test"});
  const CalibratedCostModel m1(one, "p.json", std::make_unique<AnalyticCostModel>(s));
  CHECK(m1.lookup("all_gather", 2, LinkClass::IntraNode, 1 << 20) < 0);
  CHECK_THAT(m1.sources(), Catch::Contains("all_gather×2 intra_node (one size: two needed)"));
}

TEST_CASE("calibrated: a scenario's calibration key changes exactly the DP all-reduce",
          "[calibration]") {
  // One stage, dp 2, one bucket: the only collective is the gradient all-reduce of G bytes.
  // With the profile its time is the fitted line's; everything else stays as it was.
  const std::string path = "calibrated_test_profile.json";
  save_profile(profile(), path);
  const Scenario plain = model_scenario();
  const Scenario calibrated = model_scenario("calibration: " + path + "\n");
  const auto a = make_cost_model(plain);
  const auto c = make_cost_model(calibrated);
  const double g = a->gradient_bytes(0);
  const TimeNs analytic_ar =
      a->collective(Collective::AllReduce, 2, LinkClass::IntraNode, g).duration;
  const TimeNs measured_ar = seconds_to_ns(10e-6 + 10e-6 * g / double(1 << 20));
  const Timeline ta = simulate(plain), tc = simulate(calibrated);
  std::remove(path.c_str());
  CHECK(tc.makespan - ta.makespan == measured_ar - analytic_ar);
  CHECK_THAT(tc.cost_sources, Catch::Contains("calibrated_test_profile.json"));
  CHECK_THAT(ta.cost_sources, Catch::StartsWith("analytic") && !Catch::Contains("profile"));
}

TEST_CASE("calibrated: a missing profile file is a scenario error", "[calibration]") {
  CHECK_THROWS_WITH(model_scenario("calibration: /no/such.json\n"),
                    Catch::Contains("calibration") && Catch::Contains("does not exist"));
}

TEST_CASE("calibrated: a profile of another GPU model is refused at the calibration key",
          "[calibration]") {
  // The scenario runs H100 SXMs. A profile measured on an H200 would price them as H200s:
  // refused, naming both. So is one of the H100 PCIe card (756 against 989 TFLOP/s, 2.0 against
  // 3.35 TB/s: its times would price the SXM's). One of a GPU of the user's own naming, which
  // names no model, is used, as is the SXM card under CUDA's name for it.
  const std::string path = "calibrated_device_profile.json";
  CalibrationProfile p = profile();
  p.provenance.device = "NVIDIA H200";
  save_profile(p, path);
  CHECK_THROWS_WITH(make_cost_model(model_scenario("calibration: " + path + "\n")),
                    Catch::Contains("calibration: " + path +
                                    " was measured on \"NVIDIA H200\", the scenario's GPU is "
                                    "h100-sxm (cluster.gpu; H200 against H100)"));
  p.provenance.device = "NVIDIA H100 PCIe";
  save_profile(p, path);
  CHECK_THROWS_WITH(make_cost_model(model_scenario("calibration: " + path + "\n")),
                    Catch::Contains("(cluster.gpu; H100 PCIe against H100 SXM)"));
  for (const char* device : {"NVIDIA H100 80GB HBM3", "my lab's card"}) {
    p.provenance.device = device;
    save_profile(p, path);
    CHECK_NOTHROW(make_cost_model(model_scenario("calibration: " + path + "\n")));
  }
  // A B200 profile on GB200s: another model, though its name is inside the GB200's.
  p.provenance.device = "NVIDIA B200";
  save_profile(p, path);
  const std::string gb200 = R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 2, attention: cudnn}
cluster: {gpu: gb200, gpus_per_node: 2}
parallelism: {dp: 2}
calibration: )" + path + "\n";
  CHECK_THROWS_WITH(make_cost_model(test::yaml(gb200)),
                    Catch::Contains("measured on \"NVIDIA B200\", the scenario's GPU is "
                                    "gb200 (cluster.gpu; B200 against GB200)"));
  std::remove(path.c_str());
}

TEST_CASE("calibrated: measured GEMM shapes replace the roofline for exactly those GEMMs",
          "[calibration][gemm]") {
  // The forward QKV projection of Llama-3.2-1B at n = 1024 tokens, tp 1: 1024 × 3072 × 2048
  // (h + 2·kv_heads·d = 2048 + 2·8·64). A profile timing it at 3× the roofline makes each
  // forward longer by layers × 2 × roofline; the backward's shapes (transposed) stay analytic.
  const Scenario plain = model_scenario();
  const AnalyticCostModel analytic(plain);
  const GemmShape qkv = analytic.layer_gemms()[0];
  REQUIRE(qkv.m == 1024);
  REQUIRE(qkv.n == 3072);
  REQUIRE(qkv.k == 2048);
  const double roof = analytic.gemm_seconds(qkv);
  CalibrationProfile p = profile();
  p.gemms.push_back({1024, 3072, 2048, "bf16", 3 * roof, 0, "measured", ""});
  const std::string path = "calibrated_gemm_profile.json";
  save_profile(p, path);
  const Scenario calibrated = model_scenario("calibration: " + path + "\n");
  const auto c = make_cost_model(calibrated);
  std::remove(path.c_str());
  const auto a = make_cost_model(plain);
  const int layers = calibrated.model->layers;  // one stage holds them all
  CHECK(static_cast<double>(c->compute(Op::F, 0, 0).duration - a->compute(Op::F, 0, 0).duration) ==
        Approx(layers * 2 * roof * 1e9).margin(2));
  CHECK(c->compute(Op::B, 0, 0).duration == a->compute(Op::B, 0, 0).duration);
  CHECK(c->compute(Op::F, 0, 0).flops == a->compute(Op::F, 0, 0).flops);
  CHECK_THAT(c->sources(), Catch::Contains("1 GEMM shape(s) from the profile") &&
                               Catch::Contains("warning") &&
                               Catch::Contains("outside the profile priced by the model"));
}

TEST_CASE("calibrated: measured copy times replace the bandwidth formula for sizes they cover",
          "[calibration]") {
  // Copies from 1 MiB to 64 MiB measured at 3× the analytic time (bytes / (3.35 TB/s · 0.8)):
  // a straight line in log–log, so every memory-bound kernel moving 1–64 MiB takes 3× its
  // analytic time; larger ones (Llama-3.2-1B's cross-entropy: 2 · 1024 · 128256 · 2 B =
  // 525 MB) keep the formula. GEMMs and attention do not change.
  const Scenario plain = model_scenario();
  const AnalyticCostModel analytic(plain);
  const double bw = plain.cluster.gpu.hbm_bandwidth * constants::kMemoryEfficiency;
  CalibrationProfile p = profile();
  for (double mib = 1; mib <= 64; mib *= 2)
    p.memory.push_back({"copy", mib * (1 << 20), 3 * mib * (1 << 20) / bw, 0, "measured", ""});
  const std::string path = "calibrated_memory_profile.json";
  save_profile(p, path);
  const Scenario calibrated = model_scenario("calibration: " + path + "\n");
  const auto c = make_cost_model(calibrated);
  std::remove(path.c_str());
  const auto a = make_cost_model(plain);
  for (Op op : {Op::F, Op::B}) {
    double extra = 0;
    int outside = 0;
    for (const Kernel& k : analytic.kernels(op, 0)) {
      if (k.kind != Kernel::Kind::Memory) continue;
      if (k.bytes <= 64 << 20)
        extra += k.count * 2 * analytic.kernel_seconds(k);
      else
        ++outside;
    }
    // Forward: the loss. Backward: its gradient, SwiGLU's (2 · 3 · 1024 · 8192 · 2 B =
    // 100.7 MB; forward 50.3 MB is inside), the embedding's dense gradient (the 128,256 ×
    // 2048 bf16 table, 525 MB) and the sum of the tied table's two gradients (6 B each, 1.6 GB).
    CHECK(outside == (op == Op::F ? 1 : 4));
    CHECK(static_cast<double>(c->compute(op, 0, 0).duration - a->compute(op, 0, 0).duration) ==
          Approx(extra * 1e9).margin(2));
  }
  CHECK_THAT(c->sources(), Catch::Contains("memory-bound kernel size(s) from the profile") &&
                               Catch::Contains("outside its sizes by the model") &&
                               Catch::Contains("GEMMs by the model (no GEMM samples)"));
}

TEST_CASE("calibrated: point-to-point from sendrecv samples of any group size", "[calibration]") {
  // An 8-GPU nccl-tests sendrecv ring: each GPU sends S to one peer, so its 4 MB in 30 µs is a
  // point-to-point time; 1 MB in 10 µs. 2 MB: log–log halfway = √(10 · 30) = 17.32 µs.
  const Scenario s = model_scenario();
  CalibrationProfile p;
  p.collectives.push_back(
      {"sendrecv", 8, "intra_node", double(1 << 20), 10e-6, 0, 0, "nccl-tests", "s.log:1"});
  p.collectives.push_back(
      {"sendrecv", 8, "intra_node", double(4 << 20), 30e-6, 0, 0, "nccl-tests", "s.log:2"});
  const CalibratedCostModel c(p, "p.json", std::make_unique<AnalyticCostModel>(s));
  CHECK(to_seconds(c.p2p(LinkClass::IntraNode, double(2 << 20)).duration) ==
        Approx(std::sqrt(300.0) * 1e-6).margin(1e-9));  // to the nanosecond
  // No inter-node samples: analytic.
  const AnalyticCostModel a(s);
  CHECK(c.p2p(LinkClass::InterNode, 1e6).duration == a.p2p(LinkClass::InterNode, 1e6).duration);
}

TEST_CASE("calibrated: TP collectives are timed by the profile's samples and named TP",
          "[calibration]") {
  // tp 2 on one node, no DP: each forward runs 2 all-reduces per layer of n·h bf16 bytes,
  // n = 1024 tokens, h = 2048: 4 MiB each, exactly a sample (50 us), and one more summing the
  // vocabulary-parallel embedding's output. Llama-3.2-1B has 16 layers, so one forward's TP time
  // is (2 · 16 + 1) · 50 us = 1.65 ms with the profile, plus the loss's 3 all-reduces of n fp32
  // values (4 KiB, below the sample: the profile's α–β fit).
  const Scenario s = test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 1}
cluster: {gpu: h100-sxm, gpus_per_node: 2}
parallelism: {tp: 2}
)");
  const auto m = model(s);
  const AnalyticCostModel a(s);
  const Cost tp = m.tp_communication(Op::F, 0, LinkClass::IntraNode);
  const TimeNs loss = m.collective(Collective::AllReduce, 2, LinkClass::IntraNode, 4096).duration;
  CHECK(tp.duration == (2 * 16 + 1) * 50 * kNsPerUs + 3 * loss);
  CHECK(tp.duration != a.tp_communication(Op::F, 0, LinkClass::IntraNode).duration);
  CHECK(tp.bytes == a.tp_communication(Op::F, 0, LinkClass::IntraNode).bytes);
  CHECK_THAT(m.sources(), Catch::Contains("from the profile: all_reduce×2 intra_node [TP] "
                                          "(1 measured, 1 fitted)"));
}
