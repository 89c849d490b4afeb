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
