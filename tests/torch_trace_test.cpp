#include "measured/torch_trace.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <zlib.h>
#include <catch2/catch.hpp>

#include "core/error.h"

using namespace trainsim;

namespace {

std::string data(const std::string& name) {
  return std::string(TRAINSIM_TESTS_DIR) + "/data/kineto/" + name;
}

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("torch_trace_test_" + name)).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string error_of(const std::string& path, const TraceReadOptions& opt = {}) {
  try {
    read_torch_trace(path, opt);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// The expected numbers below were counted from the JSON with Python's gzip + json, independently
// of this reader: events with "ph": "X" and cat kernel/gpu_memcpy/gpu_memset; a kernel's step is
// the ProfilerStep span holding the ts of the cuda_runtime event with its correlation id; times
// are round(µs × 1000) ns.
TEST_CASE("a real multi-step trace: kernels, steps, spans and NCCL kernels") {
  const auto t = read_torch_trace(data("sampled_rank-0.json.gz"));
  CHECK(t.rank == 0);
  CHECK(t.world_size == 128);
  CHECK(t.device.empty());  // no deviceProperties in this trace
  CHECK(t.events == 4855);
  CHECK(t.kernels.size() == 1204);
  REQUIRE(t.steps.size() == 2);
  CHECK(t.steps[0].name == "ProfilerStep#551");
  CHECK(t.steps[0].kernels == 602);
  CHECK(t.steps[0].gpu_end - t.steps[0].gpu_begin == 600'058'000);
  CHECK(t.steps[1].gpu_end - t.steps[1].gpu_begin == 615'601'000);
  int nccl = 0;
  TimeNs nccl_time = 0;
  for (const auto& k : t.kernels)
    if (k.step == 0 && k.kind.category == KernelCategory::Communication) {
      ++nccl, nccl_time += k.dur;
      CHECK(k.kind.collective == "sendrecv");
      CHECK(k.collective == -1);  // this Kineto recorded no collective metadata
    }
  CHECK(nccl == 5);
  CHECK(nccl_time == 195'327'000);
  for (std::size_t i = 1; i < t.kernels.size(); ++i)
    REQUIRE(t.kernels[i - 1].start <= t.kernels[i].start);
}

TEST_CASE("GEMM shapes come from the aten operator around the launch") {
  // This trace's kernels carry their correlation id as External id, so the shape comes from
  // the innermost aten::mm/addmm/linear/bmm span holding the launch on the same thread. The
  // first aten::mm of the file has Input Dims [[2, 2048], [2048, 1]] (float).
  const auto t = read_torch_trace(data("sampled_rank-0.json.gz"));
  int gemms = 0, shaped = 0;
  bool found = false;
  for (const auto& k : t.kernels) {
    if (k.kind.category != KernelCategory::Gemm) continue;
    ++gemms;
    if (k.shape < 0) continue;
    ++shaped;
    const auto& g = t.gemm_shapes[static_cast<std::size_t>(k.shape)];
    CHECK(g.m > 0);
    if (g.m == 2 && g.k == 2048 && g.n == 1) found = (g.dtype == "fp32");
  }
  CHECK(gemms > 0);
  CHECK(shaped * 10 >= gemms * 9);  // nearly every GEMM kernel finds its operator
  CHECK(found);
}

TEST_CASE("collective metadata gives an NCCL kernel's operation, bytes and group") {
  // nccl_data.json.gz: the first ncclKernel_AllReduce_RING_LL_Sum_float of the file has
  // "Collective name": "allreduce", "In msg nelems": 6637568, "dtype": "Float", "Group size": 2,
  // dur 2636.669 µs: S = 6,637,568 × 4 B = 26,550,272 B.
  const auto t = read_torch_trace(data("nccl_data.json.gz"));
  CHECK(t.device == "NVIDIA A100-PG509-200");
  CHECK(t.world_size == 2);
  CHECK(t.kernels.size() == 3774);
  REQUIRE(t.steps.size() == 3);
  CHECK(t.steps[1].name == "ProfilerStep#5");
  CHECK(t.steps[1].kernels == 1258);
  // 213,532.75 µs; Python's round-half-even and llround may differ by 1 ns on an endpoint.
  CHECK(std::abs(t.steps[1].gpu_end - t.steps[1].gpu_begin - 213'532'750) <= 1);
  CHECK(t.optimizer_spans == 3);
  const TraceKernel* first = nullptr;
  for (const auto& k : t.kernels)
    if (k.kind.category == KernelCategory::Communication && k.dur == 2'636'669) {
      first = &k;
      break;
    }
  REQUIRE(first);
  CHECK(first->kind.collective == "all_reduce");
  REQUIRE(first->collective >= 0);
  const auto& c = t.collectives[static_cast<std::size_t>(first->collective)];
  CHECK(c.bytes == 26'550'272);
  CHECK(c.group_size == 2);
  CHECK(c.process_group == "default_pg");
}

TEST_CASE("a long read reports its progress in bytes of the file") {
  // nccl_data.json.gz: 9,778,890 bytes of JSON from 749,757 of gzip; progress every 16 MiB of
  // JSON starting at the first read: one call, early in the file.
  TraceReadOptions opt;
  std::vector<std::pair<std::int64_t, std::int64_t>> calls;
  opt.progress = [&](std::int64_t done, std::int64_t total) { calls.emplace_back(done, total); };
  read_torch_trace(data("nccl_data.json.gz"), opt);
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].second == 749'757);
  CHECK(calls[0].first > 0);
  CHECK(calls[0].first <= 749'757);
}

TEST_CASE("traces that cannot be read say why, naming the file") {
  CHECK_THAT(error_of(data("cpu_only_rank-34.json.gz")),
             Catch::Contains("cpu_only_rank-34.json.gz: no GPU kernels"));
  CHECK_THAT(error_of("no/such/trace.json"), Catch::Contains("no/such/trace.json: cannot open"));
  // Truncated: the first 3000 bytes of a real trace.
  std::string text;
  {
    gzFile f = gzopen(data("nccl_data.json.gz").c_str(), "rb");
    REQUIRE(f);
    char buf[3000];
    const int n = gzread(f, buf, sizeof buf);
    gzclose(f);
    text.assign(buf, static_cast<std::size_t>(n));
  }
  const auto cut = temp_file("cut.json", text);
  CHECK_THAT(error_of(cut), Catch::Contains(cut + ": not a readable trace: JSON error at byte"));
  CHECK_THAT(error_of(temp_file("not.json", "hello")), Catch::Contains("not JSON"));
  CHECK_THAT(error_of(temp_file("obj.json", "{\"a\": 1}")), Catch::Contains("no traceEvents"));
  // Each says what the file is: empty, plain text under a .gz name, JSON with no events, a
  // scenario given where the trace goes.
  CHECK_THAT(error_of(temp_file("empty.json", "")), Catch::EndsWith("an empty file"));
  CHECK_THAT(error_of(temp_file("plain.json.gz", "hello")),
             Catch::EndsWith("not JSON, nor gzip-compressed JSON despite its .gz name"));
  CHECK_THAT(error_of(temp_file("numbers.json", "[1, 2, 3]")),
             Catch::Contains("no trace events: JSON, but not a PyTorch profiler"));
  CHECK_THAT(error_of(temp_file("s.yaml", "model: llama-3.1-8b\n")),
             Catch::Contains("(a scenario where a profiler trace belongs?)"));
  // A gzip of 8 MB of spaces compresses about 1000×: refused when checked after 1 MB.
  const std::string bomb =
      (std::filesystem::temp_directory_path() / "torch_trace_test_bomb.json.gz").string();
  {
    gzFile f = gzopen(bomb.c_str(), "wb9");
    REQUIRE(f);
    const std::string spaces(1 << 20, ' ');
    for (int i = 0; i < 8; ++i) gzwrite(f, spaces.data(), static_cast<unsigned>(spaces.size()));
    gzclose(f);
  }
  TraceReadOptions opt;
  opt.gzip_check_after = 1 << 20;
  CHECK_THAT(error_of(bomb, opt), Catch::Contains("gzip bomb"));
  std::remove(bomb.c_str());
  // Times that are no times: a word or null would read as 0 µs, a kernel that ends before it
  // starts would take GPU time off its category. Event 1 is the only one; quoted numbers pass.
  const auto one = [](const std::string& ts, const std::string& dur) {
    return fmt::format(R"({{"traceEvents": [{{"ph": "X", "cat": "kernel", "name": "k", "pid": 0,
 "tid": 7, "ts": {}, "dur": {}, "args": {{"stream": 7}}}}]}})",
                       ts, dur);
  };
  const auto word = temp_file("word.json", one("10", "\"abc\""));
  CHECK_THAT(error_of(word), Catch::Contains(word + ": event 1: dur is \"abc\": expected a time"));
  CHECK_THAT(error_of(temp_file("null.json", one("null", "5"))),
             Catch::Contains("event 1: ts is null: expected a time in µs"));
  CHECK_THAT(
      error_of(temp_file("negative.json", one("10", "-100"))),
      Catch::Contains("event 1 (kernel \"k\"): dur is -100: a GPU event lasts 0 µs or more"));
  CHECK_NOTHROW(read_torch_trace(temp_file("quoted.json", one("\"10.5\"", "\"5\""))));
}

namespace {
// A one-kernel trace of `rank` (of 2) in Kineto's newer layout: times relative to
// baseTimeNanoseconds, ProfilerStep#1 at 1 s, its kernel launched inside it.
std::string tiny_trace(int rank, long long base_ns, const std::string& nccl = "2.18.1") {
  return temp_file(
      fmt::format("tiny_{}_{}_{}.json", rank, base_ns, nccl),
      fmt::format(R"({{"distributedInfo": {{"rank": {}, "world_size": 2, "nccl_version": "{}"}},
 "baseTimeNanoseconds": {},
 "traceEvents": [
  {{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
    "ts": 1000000, "dur": 1000}},
  {{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
    "ts": 1000100, "dur": 5, "args": {{"correlation": 7}}}},
  {{"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16", "pid": 0, "tid": 7,
    "ts": 1000200, "dur": 300, "args": {{"correlation": 7, "stream": 7}}}}]}})",
                  rank, nccl, base_ns));
}
}  // namespace

TEST_CASE("traces of one run start their steps together - other runs are refused") {
  const long long base = 1'711'964'646'000'000'000;  // 2024-04-01 in Unix nanoseconds
  // Ranks 0 and 1 of one run: the same base time, step #1 at the same instant.
  CHECK(read_torch_traces({tiny_trace(0, base), tiny_trace(1, base)}).size() == 2);
  // Rank 1 a day later: ProfilerStep#1 starts 24 h apart, more than the 5-minute window.
  try {
    read_torch_traces({tiny_trace(0, base), tiny_trace(1, base + 86'400'000'000'000)});
    FAIL("traces a day apart were accepted");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()),
               Catch::Contains("ProfilerStep#1 starts 86400.000 s apart (more than 300.000 s)"));
    CHECK_THAT(std::string(e.what()), Catch::Contains("traces of different runs"));
  }
  // Another NCCL version: another run.
  try {
    read_torch_traces({tiny_trace(0, base), tiny_trace(1, base, "2.21.5")});
    FAIL("traces of two NCCL versions were accepted");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()),
               Catch::Contains("(NCCL 2.18.1)") && Catch::Contains("(NCCL 2.21.5)"));
  }
  // No base time and times that are not Unix times: nothing to compare, accepted.
  CHECK(read_torch_traces({tiny_trace(0, 0), tiny_trace(1, 0)}).size() == 2);
}

TEST_CASE("several ranks of one run are read together - mixed runs are refused") {
  const auto both =
      read_torch_traces({data("sampled_rank-0.json.gz"), data("sampled_rank-1.json.gz")});
  REQUIRE(both.size() == 2);
  CHECK(both[1].rank == 1);
  try {
    read_torch_traces({data("sampled_rank-0.json.gz"), data("nccl_data.json.gz")});
    FAIL("mixed runs were accepted");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("rank 0"));
  }
}
