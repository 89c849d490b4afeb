#include "nccl_tests.h"

#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "core/error.h"

using namespace trainsim;

namespace {
std::string fixture(const std::string& name) {
  std::ifstream in(std::string(TRAINSIM_TESTS_DIR) + "/data/nccl/" + name);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("nccl-tests: a current text log with the root column", "[nccl-tests]") {
  const auto s = parse_nccl_tests(fixture("all_reduce_8gpu.log"), "all_reduce_8gpu.log");
  REQUIRE(s.size() == 4);
  // Eight ranks on node-a: an intra-node all-reduce of 8.
  CHECK(s[3].op == "all_reduce");
  CHECK(s[3].group_size == 8);
  CHECK(s[3].link == "intra_node");
  // 4194304 B in 100 us out-of-place: algbw 41.94 GB/s, busbw 73.40 GB/s (2·7/8 × algbw).
  CHECK(s[3].bytes == 4194304);
  CHECK(s[3].time_s == Approx(100e-6));
  CHECK(s[3].algbw == Approx(41.94e9));
  CHECK(s[3].busbw == Approx(73.40e9));
  CHECK(s[3].method == "nccl-tests");
  CHECK(s[3].source == "all_reduce_8gpu.log:21");  // the line it came from
}

TEST_CASE("nccl-tests: an older log without root, mpirun prefixes, two hosts", "[nccl-tests]") {
  // No "Collective test starting" header: the op comes from the file name.
  const auto s = parse_nccl_tests(fixture("all_gather_perf_2nodes_noroot.log"),
                                  "all_gather_perf_2nodes_noroot.log");
  REQUIRE(s.size() == 2);
  CHECK(s[0].op == "all_gather");
  CHECK(s[0].group_size == 2);
  CHECK(s[0].link == "inter_node");  // host1 and host2
  CHECK(s[1].bytes == 2097152);
  CHECK(s[1].time_s == Approx(180e-6));
  CHECK(s[1].busbw == Approx(5.83e9));
}

TEST_CASE("nccl-tests: the -J JSON output", "[nccl-tests]") {
  const auto s = parse_nccl_tests(fixture("reduce_scatter_perf.json"), "rs.json");
  REQUIRE(s.size() == 2);
  CHECK(s[0].op == "reduce_scatter");  // from args[0]
  CHECK(s[0].group_size == 4);
  CHECK(s[0].link == "intra_node");
  CHECK(s[1].time_s == Approx(45e-6));
  CHECK(s[1].algbw == Approx(46.60e9));
  CHECK(s[1].source == "rs.json:results[1]");
  NcclTestsOptions two;  // its config lists 4 devices
  two.ranks = 2;
  CHECK_THROWS_WITH(
      read_nccl_tests(fixture("reduce_scatter_perf.json"), "rs.json", two),
      Catch::Contains("rs.json: config.devices: the log lists 4 ranks, --ranks says 2"));
}

TEST_CASE("nccl-tests: unreadable input is reported with its line", "[nccl-tests]") {
  CHECK_THROWS_WITH(
      parse_nccl_tests(fixture("malformed.log"), "malformed.log"),
      Catch::Contains("malformed.log:6: cannot read this result line") && Catch::Contains("fast"));
  CHECK_THROWS_WITH(
      parse_nccl_tests("        1024  256  float  sum  -1  20.0  0.05  0.09  0\n", "mystery.log"),
      Catch::Contains("mystery.log:1") && Catch::Contains("names no <op>_perf"));
  CHECK_THROWS_WITH(
      parse_nccl_tests("# Collective test starting: broadcast_perf\n", "b.log"),
      Catch::Contains("b.log:1") && Catch::Contains("not a collective trainsim uses"));
  CHECK_THROWS_WITH(parse_nccl_tests("{\"results\": [\n", "x.json"),
                    Catch::Contains("x.json: not valid JSON"));
  CHECK_THROWS_WITH(parse_nccl_tests("hello\n", "all_reduce_perf.log"),
                    Catch::Contains("no nccl-tests result lines"));
}

// Real logs (tests/data/nccl/real/README.md names each source). Expected values are the
// files' own lines: result rows, the last row's out-of-place time / algbw / busbw, the Rank
// lines' hosts and device name.
namespace {
NcclTestsLog real(const std::string& name, const NcclTestsOptions& opt = {}) {
  return read_nccl_tests(fixture("real/" + name), name, opt);
}
}  // namespace

TEST_CASE("nccl-tests, real logs: headers, no header, prefixes, INFO lines, old columns",
          "[nccl-tests]") {
  SECTION("newer format with the Collective test header: 8 × H100 all_gather") {
    const auto log = real("h100-8gpu-1node-allgather-header-xxrjun.log");
    REQUIRE(log.samples.size() == 10);
    CHECK(log.op_from == "header");
    CHECK(log.samples.front().bytes == 33554432);
    const auto& last = log.samples.back();  // 17179869184  …  41542.0  413.55  361.86
    CHECK(last.op == "all_gather");
    CHECK(last.bytes == 17179869184.0);
    CHECK(last.time_s == Approx(41542.0e-6));
    CHECK(last.busbw == Approx(361.86e9));
    CHECK(last.group_size == 8);
    CHECK(last.link == "intra_node");
    CHECK(log.gpu == "NVIDIA H100 80GB HBM3");
    CHECK(log.hosts == std::vector<std::string>{"cnode3-002"});
  }
  SECTION("80 ranks on 10 hosts, reduce_scatter") {
    const auto log = real("h100-80gpu-10node-reducescatter-header-xxrjun.log");
    REQUIRE(log.samples.size() == 10);
    CHECK(log.samples.back().op == "reduce_scatter");
    CHECK(log.samples.back().group_size == 80);
    CHECK(log.samples.back().link == "inter_node");
    CHECK(log.samples.back().time_s == Approx(52458.7e-6));
    CHECK(log.hosts.size() == 10);
  }
  SECTION("no header, no op in the name: all_reduce from busbw/algbw = 2·15/16 = 1.875") {
    const auto log = real("h100-16gpu-2node-allreduce-noheader-ztan.log");
    CHECK(log.op_from == "bus factor");
    REQUIRE(log.samples.size() == 31);
    CHECK(log.samples.back().op == "all_reduce");
    CHECK(log.samples.back().bytes == 8589934592.0);
    CHECK(log.samples.back().time_s == Approx(47535e-6));
    CHECK(log.samples.back().group_size == 16);
    CHECK(log.samples.back().link == "inter_node");
    CHECK(log.hosts == std::vector<std::string>{"ztan-mig-235z", "ztan-mig-gq73"});
  }
  SECTION("srun -l prefixes (' 0: ') and #wrong = N/A") {
    const auto log = real("h100-16gpu-2node-allreduce-srun-prefix-nccltests-issue290.log");
    REQUIRE(log.samples.size() == 11);
    CHECK(log.samples.front().bytes == 8388608);
    CHECK(log.samples.back().op == "all_reduce");
    CHECK(log.samples.back().time_s == Approx(103530e-6));
    CHECK(log.samples.back().busbw == Approx(155.57e9));
    CHECK(log.hosts == std::vector<std::string>{"node005", "node007"});
  }
  SECTION("mpirun prefixes, 529 NCCL INFO lines, no root column, an error column") {
    const auto log = real("a100-16gpu-2node-allreduce-mpirun-info-awsefaeks.log");
    REQUIRE(log.samples.size() == 30);
    CHECK(log.samples.front().bytes == 8);
    CHECK(log.samples.back().op == "all_reduce");
    CHECK(log.samples.back().bytes == 4294967296.0);
    CHECK(log.samples.back().time_s == Approx(183834e-6));
    CHECK(log.samples.back().busbw == Approx(43.81e9));
    CHECK(log.gpu == "A100-SXM4-40GB");
    CHECK(log.nccl == "2.9.9");
    CHECK(log.hosts.size() == 2);
  }
  SECTION("an empty redop and 11 fields: all_gather or alltoall cannot be told apart") {
    // busbw/algbw = 224.31/256.36 = 0.875 = 7/8 with no redop: refused until --op says which.
    CHECK_THROWS_WITH(real("a100-8gpu-1node-alltoall-oldformat-superbench.log"),
                      Catch::Contains("all_gather or alltoall; give --op"));
    NcclTestsOptions opt;
    opt.op = "alltoall";
    const auto log = real("a100-8gpu-1node-alltoall-oldformat-superbench.log", opt);
    CHECK(log.op_from == "--op");
    REQUIRE(log.samples.size() == 29);  // 34 rows, the first 5 of size 0 dropped
    CHECK(log.samples.back().op == "alltoall");
    CHECK(log.samples.back().time_s == Approx(33508e-6));
    CHECK(log.samples.back().busbw == Approx(224.31e9));
    CHECK(log.samples.back().group_size == 8);
  }
}

TEST_CASE("nccl-tests: --op and --ranks state what a log does not", "[nccl-tests]") {
  const std::string rows =
      "   1048576   262144  float  sum  -1  100.0  10.49  18.35  0  99.0  10.59  18.54  0\n"
      "   2097152   524288  float  sum  -1  180.0  11.65  20.39  0  178.0  11.78  20.62  0\n";
  CHECK_THROWS_WITH(read_nccl_tests(rows, "bare.log"),
                    Catch::Contains("bare.log:1") && Catch::Contains("give --op and --ranks"));
  NcclTestsOptions opt;
  opt.ranks = 8;  // 18.35 / 10.49 = 1.749 ≈ 2·7/8 = 1.75: all_reduce
  const auto log = read_nccl_tests(rows, "bare.log", opt);
  CHECK(log.samples.size() == 2);
  CHECK(log.samples[0].op == "all_reduce");
  CHECK(log.samples[0].group_size == 8);
  opt.op = "nope";
  CHECK_THROWS_WITH(read_nccl_tests(rows, "bare.log", opt),
                    Catch::Contains("--op nope: expected one of"));
  // A log that lists its ranks: --ranks may not file 8 GPUs' times under another group size.
  NcclTestsOptions four;
  four.ranks = 4;
  CHECK_THROWS_WITH(read_nccl_tests(fixture("all_reduce_8gpu.log"), "all_reduce_8gpu.log", four),
                    Catch::Contains("the log lists 8 ranks") && Catch::Contains("--ranks says 4"));
  four.ranks = 8;  // agreeing is allowed
  CHECK(read_nccl_tests(fixture("all_reduce_8gpu.log"), "all_reduce_8gpu.log", four)
            .samples.front()
            .group_size == 8);
}

TEST_CASE("nccl-tests: the same sizes from several logs merge to the median and the spread",
          "[nccl-tests]") {
  auto a = real("h100-16gpu-2node-allreduce-noheader-ztan.log").samples;
  const auto b = real("h100-16gpu-2node-allreduce-srun-prefix-nccltests-issue290.log").samples;
  // Both: all_reduce over 16 ranks on two hosts. The srun log's 11 sizes (8 MiB … 8 GiB) are all
  // among the 31 of the other (8 B … 8 GiB, ×2): 31 merged sizes.
  a.insert(a.end(), b.begin(), b.end());
  const auto m = merge_collective_samples(a);
  REQUIRE(m.size() == 31);
  const auto& big = m.back();
  CHECK(big.bytes == 8589934592.0);
  // Two times, 47,535 µs and 103,530 µs: median 75,532.5 µs, spread 55,995 µs.
  CHECK(big.time_s == Approx(75532.5e-6));
  CHECK(big.spread_s == Approx(55995e-6));
  CHECK(big.algbw == Approx(8589934592.0 / 75532.5e-6));
  CHECK(big.busbw == Approx(big.algbw * 1.875).epsilon(0.01));
  CHECK_THAT(big.source, Catch::Contains("ztan") && Catch::Contains("issue290"));
}

TEST_CASE("nccl-tests: the -J file's machine, and results it cannot price", "[nccl-tests]") {
  // reduce_scatter_perf.json lists 4 devices on host "box", "NVIDIA H100 80GB HBM3", NCCL code
  // 22105: the same as a text log's Rank lines and nccl-library=22105 say.
  const auto log = read_nccl_tests(fixture("reduce_scatter_perf.json"), "rs.json");
  CHECK(log.gpu == "NVIDIA H100 80GB HBM3");
  CHECK(log.nccl == "2.21.5");
  CHECK(log.hosts == std::vector<std::string>{"box"});
  CHECK(log.op_from == "program in args");
  // Its results emptied (or all of size 0): an error, not an empty profile.
  const std::string head =
      R"({"args": ["./build/all_reduce_perf"], "config": {"devices": [{"hostname": "a"},)"
      R"( {"hostname": "a"}]}, "results": )";
  CHECK_THROWS_WITH(read_nccl_tests(head + "[]}", "e.json"),
                    Catch::Contains("e.json: results: no result with a size and a time above 0"));
  CHECK_THROWS_WITH(
      read_nccl_tests(head + R"([{"size": 0, "out_of_place": {"time": 0}}]})", "z.json"),
      Catch::Contains("(1 with 0)"));
  // nwrong 12: the collective's data was wrong.
  CHECK_THROWS_WITH(read_nccl_tests(head + R"([{"size": 1048576, "out_of_place": {"time": 100.0,)"
                                           R"( "alg_bw": 10.49, "bus_bw": 10.49,)"
                                           R"( "nwrong": 12}}]})",
                                    "w.json"),
                    Catch::Contains("w.json:results[0]: #wrong is 12"));
  NcclTestsOptions op;  // --op naming another operation than the program in args
  op.op = "all_gather";
  CHECK_THROWS_WITH(read_nccl_tests(fixture("reduce_scatter_perf.json"), "rs.json", op),
                    Catch::Contains("the log runs reduce_scatter, --op says all_gather"));
}

TEST_CASE("nccl-tests: a text line nccl-tests did not print is refused with its line",
          "[nccl-tests]") {
  const std::string header =
      "# Collective test starting: all_reduce_perf\n"
      "#  Rank  0 Group  0 Pid 1 on node-a device 0 [0x1b] NVIDIA H100\n"
      "#  Rank  1 Group  0 Pid 2 on node-a device 1 [0x1c] NVIDIA H100\n";
  // 1,048,576 B in 100 us: algbw 10.49 GB/s; at 2 ranks an all-reduce's busbw is 1 × that.
  const std::string good =
      "   1048576  262144  float  sum  -1  100.0  10.49  10.49  0  99.0  "
      "10.59  10.59  0\n";
  CHECK(read_nccl_tests(header + good, "ar.log").samples.size() == 1);
  // A time edited to 1e308 us: algbw no longer size / time.
  CHECK_THROWS_WITH(
      read_nccl_tests(header + "   1048576  262144  float  sum  -1  1e308  10.49  10.49  0  99.0  "
                               "10.59  10.59  0\n",
                      "ar.log"),
      Catch::Contains("ar.log:4: algbw 10.49 GB/s is not size / time"));
  // A time of 2e18 us (2e12 s, past the profile reader's hour) whose algbw rounds to 0.00, so
  // the size / time check cannot catch it: refused here, not in the profile written from it.
  CHECK_THROWS_WITH(
      read_nccl_tests(header + "   1048576  262144  float  sum  -1  2e18  0.00  0.00  0  99.0  "
                               "10.59  10.59  0\n",
                      "ar.log"),
      Catch::Contains("ar.log:4: time 2e+12 s is past any measurement (at most 3600 s)"));
  // 2e15 B (past the reader's petabyte) in 1e9 us: algbw 2,000 GB/s, consistent, still refused.
  CHECK_THROWS_WITH(
      read_nccl_tests(header + "   2e15  5e14  float  sum  -1  1e9  2000.00  2000.00  0  1e9  "
                               "2000.00  2000.00  0\n",
                      "ar.log"),
      Catch::Contains("ar.log:4: size 2e+15 B is past any measurement (at most 1e+15)"));
  // #wrong 5.
  CHECK_THROWS_WITH(
      read_nccl_tests(header + "   1048576  262144  float  sum  -1  100.0  10.49  10.49  5  99.0  "
                               "10.59  10.59  0\n",
                      "ar.log"),
      Catch::Contains("ar.log:4: #wrong is 5"));
  // A negative size is read as a row and refused by name, not skipped as text.
  CHECK_THROWS_WITH(
      read_nccl_tests(header + "   -1024  262144  float  sum  -1  100.0  10.49  10.49  0  99.0  "
                               "10.59  10.59  0\n",
                      "ar.log"),
      Catch::Contains("ar.log:4: size is -1024"));
  // Every time 0: said so.
  CHECK_THROWS_WITH(read_nccl_tests(header + "   1048576  262144  float  sum  -1  0  0  0  0  0  "
                                             "0  0  0\n",
                                    "ar.log"),
                    Catch::Contains("every result line (1) has a size or a time of 0"));
  // A time stamp is neither an srun -l prefix nor a result line: skipped.
  CHECK(read_nccl_tests(header + "12:00:01 done\n" + good, "ar.log").samples.size() == 1);
  // --op stating an operation the bus factor contradicts: an all-reduce at 8 ranks (busbw /
  // algbw = 2·7/8 = 1.75) filed as a send/receive (factor 1).
  const std::string rows =
      "   1048576   262144  float  sum  -1  100.0  10.49  18.35  0  99.0  10.59  18.54  0\n";
  NcclTestsOptions opt;
  opt.ranks = 8;
  opt.op = "sendrecv";
  CHECK_THROWS_WITH(read_nccl_tests(rows, "bare.log", opt),
                    Catch::Contains("busbw / algbw = 1.749 at 8 ranks, where sendrecv (from the "
                                    "--op) has 1") &&
                        Catch::Contains("it is all_reduce's factor"));
  // --link: where the ranks were, for a log whose Rank lines do not say.
  opt.op = "all_reduce";
  opt.link = "inter_node";
  CHECK(read_nccl_tests(rows, "bare.log", opt).samples.front().link == "inter_node");
  opt.link = "rack";
  CHECK_THROWS_WITH(read_nccl_tests(rows, "bare.log", opt),
                    Catch::Contains("--link rack: expected intra_node or inter_node"));
}
