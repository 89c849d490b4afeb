#include "cost/internode_sweep.h"

#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "nccl_tests.h"

using namespace trainsim;

TEST_CASE("internode sweep: the H100 and H200 presets read it, the others do not", "[internode]") {
  const InterNodeSweep* h100 = InterNodeSweep::for_preset("h100-sxm");
  REQUIRE(h100 != nullptr);
  CHECK(h100 == InterNodeSweep::named("infiniband-ndr"));
  CHECK(InterNodeSweep::for_preset("h200") == h100);   // the same HGX board and network
  CHECK(InterNodeSweep::for_preset("b200") == h100);   // DGX B200: the same eight 400 Gb/s NICs
  CHECK(InterNodeSweep::for_preset("gb200") == h100);  // GB200 NVL72: one such NIC a GPU
  // GB300 NVL72's ConnectX-8 XDR 800 Gb/s NICs: the same rings, the ratio carried to its links.
  CHECK(InterNodeSweep::for_preset("gb300") == h100);
  CHECK(InterNodeSweep::for_preset("b300") == h100);  // HGX B300: ConnectX-8 as GB300's
  CHECK(InterNodeSweep::for_preset("a100-sxm-80gb") == nullptr);
  CHECK(InterNodeSweep::for_preset("h100-pcie") == nullptr);
  for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter,
                       Collective::AllToAll})
    for (int g : {1, 2, 4, 8}) CHECK(h100->node_counts(c, g) == std::vector<int>{10});
  CHECK(std::string(h100->source()).find("xxrjun/nccl-tests-cluster") != std::string::npos);
  for (const InterNodeSweep* n : InterNodeSweep::all())
    CHECK(std::string(n->machine()) == "h100-sxm");
}

TEST_CASE("internode sweep: the named networks, as cluster.network lists them", "[internode]") {
  std::vector<std::string> names;
  for (const InterNodeSweep* n : InterNodeSweep::all()) names.push_back(n->name());
  CHECK(names == std::vector<std::string>{"infiniband-ndr", "efa-p5", "efa-playbook"});
  CHECK(InterNodeSweep::named("efa") == nullptr);
  const InterNodeSweep& p5 = *InterNodeSweep::named("efa-p5");
  const InterNodeSweep& playbook = *InterNodeSweep::named("efa-playbook");
  CHECK(p5.node_counts(Collective::AllReduce, 8) == std::vector<int>{2, 4, 8, 16, 32});
  CHECK(playbook.node_counts(Collective::AllReduce, 8) == std::vector<int>{2, 4, 8, 16, 32, 64});
  // Only 8 GPUs a node were measured on EFA: every group reads those rows.
  CHECK(p5.measured_per_node(Collective::AllReduce, 1) == 8);
  CHECK(playbook.measured_per_node(Collective::AllGather, 2) == 8);
}

TEST_CASE("internode sweep: an operation a network did not measure reads its ring sibling or none",
          "[internode]") {
  const InterNodeSweep& ib = *InterNodeSweep::named("infiniband-ndr");
  const InterNodeSweep& p5 = *InterNodeSweep::named("efa-p5");
  const InterNodeSweep& playbook = *InterNodeSweep::named("efa-playbook");
  CHECK(ib.measured_op(Collective::ReduceScatter) == Collective::ReduceScatter);
  // efa-p5 measured all-reduce, all-gather and all-to-all: a reduce-scatter reads the
  // all-gather (the same ring the other way).
  CHECK(p5.measured_op(Collective::ReduceScatter) == Collective::AllGather);
  CHECK(p5.measured_op(Collective::AllToAll) == Collective::AllToAll);
  // efa-playbook measured no all-to-all: the tuning model alone.
  CHECK(playbook.measured_op(Collective::AllToAll) == std::nullopt);
  CHECK(playbook.measured_op(Collective::AllGather) == Collective::AllGather);
}

TEST_CASE("internode sweep: the EFA rows are their sources' figures", "[internode]") {
  // efa-p5: time = S / out-of-place algbw. data/nccl_all_reduce.csv, 8 nodes, 256 MiB: 117.88
  // GB/s → 2^28 / 117.88e9 = 2,277.2 µs; all-gather, 2 nodes, 2 GiB: 350.49 → 6,127.1 µs.
  const InterNodeSweep& p5 = *InterNodeSweep::named("efa-p5");
  CHECK(p5.seconds(Collective::AllReduce, 8, 8, 268435456) ==
        Approx(268435456 / 117.88e9).epsilon(1e-4));
  CHECK(p5.seconds(Collective::AllGather, 8, 2, 2147483648) ==
        Approx(2147483648 / 350.49e9).epsilon(1e-4));
  // efa-playbook: time = bus factor × S / bus bandwidth (the figure's medians). All-reduce on
  // 8 nodes, 99.564 GB/s: 2 · 63/64 · 2^28 / 99.564e9 = 5,308.0 µs; reduce-scatter on 64 nodes,
  // 11.070 GB/s: 511/512 · 2^28 / 11.070e9 = 24,202 µs.
  const InterNodeSweep& playbook = *InterNodeSweep::named("efa-playbook");
  CHECK(playbook.seconds(Collective::AllReduce, 8, 8, 268435456) ==
        Approx(2.0 * 63 / 64 * 268435456 / 99.56427561837455e9).epsilon(1e-4));
  CHECK(playbook.seconds(Collective::ReduceScatter, 8, 64, 268435456) ==
        Approx(511.0 / 512 * 268435456 / 11.069652777777778e9).epsilon(1e-4));
  // One size measured: every size holds at it.
  CHECK(playbook.clamp_bytes(Collective::AllReduce, 8, 8, 1e6) == 268435456.0);
  CHECK(playbook.clamp_bytes(Collective::AllReduce, 8, 8, 1e10) == 268435456.0);
}

TEST_CASE("internode sweep: a group's GPUs per node read the nearest measured count",
          "[internode]") {
  // Measured: 1, 2, 4, 8. Nearest in log₂: 3 (log₂ 1.58, 0.42 from 4) → 4; 5 (2.32) → 4;
  // 6 (2.58, 0.42 from 8) → 8; past 8 → 8.
  const InterNodeSweep& ib = *InterNodeSweep::for_preset("h100-sxm");
  const Collective ar = Collective::AllReduce;
  CHECK(ib.measured_per_node(ar, 0) == 1);
  CHECK(ib.measured_per_node(ar, 1) == 1);
  CHECK(ib.measured_per_node(ar, 2) == 2);
  CHECK(ib.measured_per_node(ar, 3) == 4);
  CHECK(ib.measured_per_node(ar, 5) == 4);
  CHECK(ib.measured_per_node(ar, 6) == 8);
  CHECK(ib.measured_per_node(ar, 16) == 8);
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
    CHECK(sweep.seconds(Collective::ReduceScatter, 8, 10, s.bytes) ==
          Approx(s.time_s).epsilon(1e-3));  // the data file keeps 0.1 µs
  }
}

TEST_CASE("internode sweep: log-log between sizes and clamped at its ends", "[internode]") {
  const InterNodeSweep& sweep = *InterNodeSweep::for_preset("h100-sxm");
  // All-reduce, 8 GPUs per node: 32 MiB 798.5 µs, 64 MiB 939.8 µs (the data file). At 2^25.5
  // bytes, halfway in log₂: √(798.5 · 939.8) = 866.3 µs.
  const double mid = std::pow(2.0, 25.5);
  CHECK(sweep.seconds(Collective::AllReduce, 8, 10, mid) ==
        Approx(std::sqrt(798.5e-6 * 939.8e-6)).epsilon(1e-9));
  // Outside 32 MiB … 16 GiB a size is held at the nearest end.
  CHECK(sweep.clamp_bytes(Collective::AllReduce, 8, 10, 1e6) == 33554432.0);
  CHECK(sweep.clamp_bytes(Collective::AllReduce, 8, 10, 1e12) == 17179869184.0);
  CHECK(sweep.clamp_bytes(Collective::AllReduce, 8, 10, mid) == mid);
}
