#include "measured/step_breakdown.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "core/error.h"
#include "core/quantity.h"

using namespace trainsim;

namespace {
std::string data(const std::string& name) {
  return std::string(TRAINSIM_TESTS_DIR) + "/data/kineto/" + name;
}
}  // namespace

TEST_CASE("a step's breakdown adds up: categories, overlap, exposed communication and idle") {
  auto t = read_torch_trace(data("nccl_data.json.gz"));
  // Three steps: the first is skipped as warm-up; of #5 (213.53 ms) and #6 (218.76 ms) the
  // lower median is #5.
  const int i = pick_step(t);
  CHECK(t.steps[static_cast<std::size_t>(i)].name == "ProfilerStep#5");
  const auto b = break_down_step(t, i);
  CHECK(std::abs(b.span - 213'532'750) <= 1);  // rounding of µs to ns: see torch_trace_test
  CHECK(std::accumulate(b.count.begin(), b.count.end(), 0) == 1258);
  // NCCL in step 5 (Python over the JSON): 7 kernels, 12,300,029 ns: 5 all-reduces, 2 broadcasts.
  CHECK(b.count[static_cast<std::size_t>(KernelCategory::Communication)] == 7);
  CHECK(b.sum[static_cast<std::size_t>(KernelCategory::Communication)] == 12'300'029);
  REQUIRE(b.collectives.size() == 2);
  CHECK(b.collectives[0].family == "all_reduce");
  CHECK(b.collectives[0].count == 5);
  CHECK(b.collectives[1].family == "broadcast");
  // By collective and group size (every NCCL kernel of this 2-rank run records Group size 2):
  // all-reduces and broadcasts, one after another on one stream, so their busy times add up to
  // the communication's, and so do their exposed parts.
  REQUIRE(b.comm_groups.size() == 2);
  CHECK(b.comm_groups[0].collective == "all_reduce");
  CHECK(b.comm_groups[0].group_size == 2);
  CHECK(b.comm_groups[0].count == 5);
  CHECK(b.comm_groups[1].collective == "broadcast");
  CHECK(b.comm_groups[1].count == 2);
  CHECK(b.comm_groups[0].busy + b.comm_groups[1].busy == b.busy_of(KernelCategory::Communication));
  CHECK(b.comm_groups[0].exposed + b.comm_groups[1].exposed == b.comm_exposed);
  // Busy ≤ summed time per category; exposed comm ≤ comm busy; everything within the span.
  for (std::size_t c = 0; c < b.busy.size(); ++c) CHECK(b.busy[c] <= b.sum[c]);
  CHECK(b.comm_exposed <= b.busy_of(KernelCategory::Communication));
  CHECK(b.compute_busy + b.comm_exposed + b.idle == b.span);
  // Waiting for the CPU (Python over the JSON, times to ns as the reader rounds them: in start
  // order, a gap where every earlier kernel has ended, closed by kernels whose cudaLaunchKernel
  // (same correlation id) all began after it opened): 821 gaps, 163,125,173 ns of the 163.8 ms
  // idle. A small CNN's host-bound step.
  CHECK(b.launches_known);
  CHECK(b.host_gaps == 821);
  CHECK(b.idle_host == 163'125'173);
  CHECK(b.idle_host <= b.idle);
  // Every kernel of the step has its launch call, the first 213,310,813 ns before the last.
  CHECK(b.launches == 1258);
  CHECK(b.launch_span == 213'310'813);
  // A CNN: cuDNN convolutions and batch norms are not modelled, listed by family.
  REQUIRE_FALSE(b.other.empty());
  CHECK(b.other.front().family == "bn_bw_1C11_kernel_new");
}

TEST_CASE("a step is chosen by name, and a wrong name lists the steps there are") {
  auto t = read_torch_trace(data("sampled_rank-0.json.gz"));
  CHECK(pick_step(t, "552") == 1);
  CHECK(pick_step(t, "ProfilerStep#551") == 0);
  try {
    pick_step(t, "7");
    FAIL("an unknown step was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("ProfilerStep#551, ProfilerStep#552"));
  }
}

TEST_CASE("a window of times makes the kernels starting in it a step") {
  auto t = read_torch_trace(data("sampled_rank-0.json.gz"));
  REQUIRE(t.steps.size() == 2);
  // A window around ProfilerStep#552's GPU span, from the trace's first kernel, holds that
  // step's kernels: its first kernel starts at its gpu_begin and none starts at or after its
  // gpu_end (the last one ends there).
  TimeNs first = t.kernels.front().start;
  for (const auto& k : t.kernels) first = std::min(first, k.start);
  const TraceStep s552 = t.steps[1];
  const std::string window =
      fmt::format("{}ns..{}ns", s552.gpu_begin - first, s552.gpu_end - first);
  const int w = pick_step(t, window);
  REQUIRE(w == 2);
  const TraceStep& got = t.steps[2];
  CHECK(got.name.rfind("window ", 0) == 0);
  CHECK(got.name.find("across") == std::string::npos);  // #552's kernels only
  CHECK(got.gpu_begin == s552.gpu_begin);
  int in_span = 0;  // kernels starting inside #552's span
  for (const auto& k : t.kernels)
    if (k.start >= s552.gpu_begin && k.start < s552.gpu_end) ++in_span;
  CHECK(got.kernels == in_span);
  CHECK(got.kernels > 0);
  // The window's breakdown is a step like the others.
  CHECK(break_down_step(t, w).span == got.gpu_end - got.gpu_begin);
  // A window from the first step's start to the second's end holds both steps' kernels: its
  // name says which annotated steps it crosses, as one simulated step is set beside it.
  {
    auto both = read_torch_trace(data("sampled_rank-0.json.gz"));
    const TraceStep a = both.steps[0], b = both.steps[1];
    const int i =
        pick_step(both, fmt::format("{}ns..{}ns", a.gpu_begin - first, b.gpu_end - first));
    CHECK_THAT(both.steps[static_cast<std::size_t>(i)].name,
               Catch::EndsWith(fmt::format(" (across {}, {})", a.name, b.name)));
  }
  // A window running past the trace's last kernel says where the trace ends and how much of
  // the window it covers (the window from #552's start to 1 s past the trace's end).
  {
    auto past = read_torch_trace(data("sampled_rank-0.json.gz"));
    TimeNs end = 0;
    for (const auto& k : past.kernels) end = std::max(end, k.start + k.dur);
    const TimeNs span = end - first, from = s552.gpu_begin - first;
    const int i = pick_step(past, fmt::format("{}ns..{}ns", from, span + 1'000'000'000));
    CHECK_THAT(past.steps[static_cast<std::size_t>(i)].name,
               Catch::EndsWith(fmt::format(" (the trace's kernels end at {}: {} of the window)",
                                           format_time(to_seconds(span)),
                                           format_time(to_seconds(span - from)))));
  }
  // Bad windows, each refused in one line naming the file.
  for (const char* bad : {"1s..", "2s..1s", "x..1s", "1000s..2000s"}) {
    auto again = read_torch_trace(data("sampled_rank-0.json.gz"));
    CHECK_THROWS_WITH(pick_step(again, bad),
                      Catch::Contains("sampled_rank-0.json.gz") && Catch::Contains(bad));
  }
}

TEST_CASE("idle splits into waiting for the CPU and waiting with work launched") {
  // Launch calls and kernels by hand (µs from 1 s): K1 runs 20–30. K2, launched at 40 once the
  // GPU went idle at 30, starts at 50: 20 µs waiting for the CPU. K3, launched at 45, before K2
  // ends at 60, starts at 70: 10 µs idle with work launched. K4 (launched at 90, after K3 ended
  // at 80) and K5 (launched at 50) start together at 100 on two streams: K5 was launched, so
  // those 20 µs are not the CPU's. K6 has no launch record and starts at 130 (20 µs, not the
  // CPU's: nothing says when it was launched). K7, launched at 145 after K6 ended at 140,
  // starts at 150: 10 µs the CPU's. Idle 20 + 10 + 20 + 20 + 10 = 80 µs, 30 of them in 2 gaps
  // waiting for the CPU.
  std::string events =
      R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
          "ts": 1000000, "dur": 1000})";
  struct K {
    int id, launch, start, stream;
  };
  for (const K& k : {K{1, 10, 20, 7}, K{2, 40, 50, 7}, K{3, 45, 70, 7}, K{4, 90, 100, 7},
                     K{5, 50, 100, 8}, K{6, -1, 130, 7}, K{7, 145, 150, 7}}) {
    if (k.launch >= 0)
      events += fmt::format(
          R"(, {{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                "tid": 1, "ts": {}, "dur": 3, "args": {{"correlation": {}}}}})",
          1000000 + k.launch, k.id);
    events += fmt::format(
        R"(, {{"ph": "X", "cat": "kernel", "name": "elementwise_kernel_{}", "pid": 0, "tid": {},
              "ts": {}, "dur": 10, "args": {{"correlation": {}, "stream": {}}}}})",
        k.id, k.stream, 1000000 + k.start, k.launch >= 0 ? k.id : 100 + k.id, k.stream);
  }
  const std::string path =
      (std::filesystem::temp_directory_path() / "step_breakdown_test_idle.json").string();
  std::ofstream(path, std::ios::binary) << "{\"traceEvents\": [" << events << "]}";
  auto t = read_torch_trace(path);
  const auto b = break_down_step(t, pick_step(t));
  CHECK(b.span == 140'000);  // 20 … 160 µs
  CHECK(b.idle == 80'000);
  CHECK(b.launches_known);
  CHECK(b.idle_host == 30'000);
  CHECK(b.host_gaps == 2);
  // Six of the seven have a launch call, the first at 10 µs, the last at 145.
  CHECK(b.launches == 6);
  CHECK(b.launch_span == 135'000);
  std::remove(path.c_str());
}

TEST_CASE("every category's kernels by family: counts and times add up to the category's") {
  // The H200 trace of one tensor-parallel rank's step (calibrate/reference/llama_step.py --tp 8,
  // tests/data/kineto/README.md), ProfilerStep#3 (measured_diff_test picks it).
  auto t = read_torch_trace(data("h200-llama8b-4layers-tp8.json.gz"));
  const int i = pick_step(t);
  REQUIRE(t.steps[static_cast<std::size_t>(i)].name == "ProfilerStep#3");
  const auto b = break_down_step(t, i);
  for (std::size_t c = 0; c < b.families.size(); ++c) {
    int count = 0;
    TimeNs time = 0;
    for (const auto& f : b.families[c]) {
      count += f.count;
      time += f.time;
    }
    CHECK(count == b.count[c]);
    CHECK(time == b.sum[c]);
    for (std::size_t j = 1; j < b.families[c].size(); ++j)
      CHECK(b.families[c][j - 1].time >= b.families[c][j].time);  // most time first
  }
  CHECK(b.families[static_cast<std::size_t>(KernelCategory::Other)].size() == b.other.size());
  // FlashAttention's four kernels, 8 of each (4 layers × 2 micro-batches), summed with Python
  // over the kernels step #3's CPU launched: the backward's main kernel 6,480.667 µs, the forward
  // 3,068.204, convert_dq 65.087, dot_do_o 61.121 (µs to ns: the reader's rounding, ≤ 1 ns each).
  const auto& att = b.families[static_cast<std::size_t>(KernelCategory::Attention)];
  REQUIRE(att.size() == 4);
  CHECK(att[0].family == "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel");
  CHECK(att[1].family == "flash_fwd_kernel");
  CHECK(att[2].family == "flash_bwd_convert_dq_kernel");
  CHECK(att[3].family == "flash_bwd_dot_do_o_kernel");
  for (const auto& f : att) CHECK(f.count == 8);
  CHECK(std::abs(att[0].time - 6'480'667) <= 8);
  CHECK(std::abs(att[1].time - 3'068'204) <= 8);
}
