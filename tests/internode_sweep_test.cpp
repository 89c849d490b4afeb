#include "cost/internode_sweep.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "nccl_tests.h"

using namespace trainsim;

TEST_CASE("internode sweep: the H100 and H200 presets read it, the others do not", "[internode]") {
  const InterNodeSweep* h100 = InterNodeSweep::for_preset("h100-sxm");
  REQUIRE(h100 != nullptr);
  CHECK(InterNodeSweep::for_preset("h200") == h100);   // the same HGX board and network
  CHECK(InterNodeSweep::for_preset("b200") == h100);   // DGX B200: the same eight 400 Gb/s NICs
  CHECK(InterNodeSweep::for_preset("gb200") == h100);  // GB200 NVL72: one such NIC a GPU
  // GB300 NVL72's ConnectX-8 XDR 800 Gb/s NICs are not those measured: NCCL's model alone.
  CHECK(InterNodeSweep::for_preset("gb300") == nullptr);
  CHECK(InterNodeSweep::for_preset("a100-sxm-80gb") == nullptr);
  CHECK(InterNodeSweep::for_preset("h100-pcie") == nullptr);
  CHECK(h100->nodes() == 10);
  CHECK(std::string(h100->source()).find("xxrjun/nccl-tests-cluster") != std::string::npos);
}

TEST_CASE("internode sweep: a group's GPUs per node read the nearest measured count",
          "[internode]") {
  // Measured: 1, 2, 4, 8. Nearest in log₂: 3 (log₂ 1.58, 0.42 from 4) → 4; 5 (2.32) → 4;
  // 6 (2.58, 0.42 from 8) → 8; past 8 → 8.
  CHECK(InterNodeSweep::measured_per_node(0) == 1);
  CHECK(InterNodeSweep::measured_per_node(1) == 1);
  CHECK(InterNodeSweep::measured_per_node(2) == 2);
  CHECK(InterNodeSweep::measured_per_node(3) == 4);
  CHECK(InterNodeSweep::measured_per_node(5) == 4);
  CHECK(InterNodeSweep::measured_per_node(6) == 8);
  CHECK(InterNodeSweep::measured_per_node(16) == 8);
}

TEST_CASE("internode sweep: its rows are the nccl-tests log's as our importer reads it",
          "[internode]") {
  // tests/data/nccl/real/ holds the reduce-scatter of the 8-GPUs-per-node log the data file
  // came from (80 ranks on 10 hosts): every out-of-place time, read by import-nccl-tests'
  // parser, is the sweep's at that size.
  std::ifstream in(std::string(TRAINSIM_TESTS_DIR) +
                   "/data/nccl/real/h100-80gpu-10node-reducescatter-header-xxrjun.log");
  std::stringstream text;
  text << in.rdbuf();
  const NcclTestsLog log = read_nccl_tests(text.str(), "xxrjun.log");
  REQUIRE(log.samples.size() == 10);
  const InterNodeSweep& sweep = *InterNodeSweep::for_preset("h100-sxm");
  for (const CollectiveSample& s : log.samples) {
    REQUIRE(s.group_size == 80);
    CHECK(sweep.seconds(Collective::ReduceScatter, 8, s.bytes) ==
          Approx(s.time_s).epsilon(1e-3));  // the data file keeps 0.1 µs
  }
}

TEST_CASE("internode sweep: log-log between sizes and clamped at its ends", "[internode]") {
  const InterNodeSweep& sweep = *InterNodeSweep::for_preset("h100-sxm");
  // All-reduce, 8 GPUs per node: 32 MiB 798.5 µs, 64 MiB 939.8 µs (the data file). At 2^25.5
  // bytes, halfway in log₂: √(798.5 · 939.8) = 866.3 µs.
  const double mid = std::pow(2.0, 25.5);
  CHECK(sweep.seconds(Collective::AllReduce, 8, mid) ==
        Approx(std::sqrt(798.5e-6 * 939.8e-6)).epsilon(1e-9));
  // Outside 32 MiB … 16 GiB a size is held at the nearest end.
  CHECK(sweep.clamp_bytes(Collective::AllReduce, 8, 1e6) == 33554432.0);
  CHECK(sweep.clamp_bytes(Collective::AllReduce, 8, 1e12) == 17179869184.0);
  CHECK(sweep.clamp_bytes(Collective::AllReduce, 8, mid) == mid);
}
