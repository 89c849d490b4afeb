#include "report/measured_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cost/explicit_costs.h"
#include "run/simulate.h"
#include "scenario/scenario_loader.h"
#include "torch_trace_import.h"

using namespace trainsim;

namespace {

struct Fixture {
  Scenario sc = load_scenario(std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/default.yaml", {});
  Timeline tl = simulate(sc);
  StepReport r = make_report(tl);
  std::vector<KernelReport> kernels;
  std::vector<TorchTrace> traces{
      read_torch_trace(std::string(TRAINSIM_TESTS_DIR) + "/data/kineto/nccl_data.json.gz")};
  std::vector<int> picked;
  std::vector<StepBreakdown> steps;
  Fixture() {
    const auto model = make_cost_model(sc);
    for (int c = 0; c < sc.layout.pp * sc.layout.vpp; ++c)
      kernels.push_back(make_kernel_report(sc, *model, c));
    picked.push_back(pick_step(traces[0]));
    steps.push_back(break_down_step(traces[0], picked[0]));
  }
};

const DiffRow& row(const RankDiff& rd, const std::string& what) {
  for (const auto& x : rd.rows)
    if (x.what == what) return x;
  FAIL("no row " << what);
  return rd.rows.front();
}

}  // namespace

TEST_CASE("diff: measured categories beside the simulated ones, adding up to the step") {
  Fixture f;
  const MeasuredDiff d = make_measured_diff(f.tl, f.r, f.kernels, f.traces, f.steps);
  REQUIRE(d.ranks.size() == 1);
  const RankDiff& rd = d.ranks[0];
  CHECK(rd.step == "ProfilerStep#5");
  CHECK(rd.stage == f.sc.layout.coord_of(0).pp);
  const auto& st = f.r.stages[static_cast<std::size_t>(rd.stage)];
  // Measured side: the breakdown's figures, in seconds.
  CHECK(row(rd, "step").measured_s == Approx(to_seconds(f.steps[0].span)));
  CHECK(row(rd, "communication").measured_s ==
        Approx(to_seconds(f.steps[0].busy_of(KernelCategory::Communication))));
  CHECK(row(rd, "idle").measured_s == Approx(to_seconds(f.steps[0].idle)));
  CHECK_FALSE(row(rd, "other").predicted_known);
  // Predicted side: the step is the simulated step; GEMM + attention + memory-bound are the
  // simulated compute busy time of the stage (the kernel report's shares, scaled by the
  // stretch from overlapping communication) as one GPU computes it: without the slowest of
  // the 8 GPUs' pace (1 + 0.010 · 1.42360); idle is what the step leaves, that pace's part in it.
  CHECK(row(rd, "step").predicted_s == Approx(f.r.step_time_s));
  REQUIRE(f.r.compute_pace == Approx(1.0142360));
  const double compute = row(rd, "gemm").predicted_s + row(rd, "attention").predicted_s +
                         row(rd, "memory_bound").predicted_s;
  CHECK(compute == Approx(st.compute_busy_s / f.r.compute_pace).epsilon(1e-9));
  CHECK(row(rd, "gemm").predicted_s > row(rd, "memory_bound").predicted_s);
  const double exposed =
      st.exposed_tp_s + st.exposed_dp_s + st.exposed_pp_s + st.exposed_gather_s + st.exposed_ep_s;
  CHECK(row(rd, "communication_exposed").predicted_s == Approx(exposed));
  CHECK(row(rd, "optimizer").predicted_s == Approx(st.optimizer_s / f.r.compute_pace));
  CHECK(
      row(rd, "idle").predicted_s ==
      Approx(std::max(0.0, f.r.step_time_s -
                               (st.compute_busy_s + st.optimizer_s) / f.r.compute_pace - exposed)));
  // The error is (predicted − measured) / measured.
  const auto& s = row(rd, "step");
  CHECK(s.error() == Approx((s.predicted_s - s.measured_s) / s.measured_s));
  // Idle while waiting for the CPU: the breakdown's figure; not predicted, as the default
  // scenario (compiled) does not simulate its CPU.
  CHECK(row(rd, "idle_host").measured_s == Approx(to_seconds(f.steps[0].idle_host)));
  CHECK_FALSE(row(rd, "idle_host").predicted_known);
  // Four caveats: the trace's 2 ranks against the scenario's 8 GPUs, A100 against H100, a
  // CNN's step against a Llama one, many times its length, and a host-bound trace: 163.125 ms of
  // the step's 213.533 ms (76 %) waiting for the CPU, in 821 gaps (step_breakdown_test); and
  // what the rows leave out: the slowest GPU's pace.
  REQUIRE(d.notes.size() == 5);
  CHECK_THAT(d.notes[4], Catch::Contains("the slowest of its 8 GPUs, 1.4% longer"));
  CHECK_THAT(d.notes[0], Catch::Contains("world size is 2"));
  CHECK_THAT(d.notes[1],
             Catch::Contains("ran on NVIDIA A100-PG509-200, the scenario simulates h100-sxm"));
  CHECK_THAT(d.notes[2], Catch::Contains("times the measured one"));
  // Its CPU set the pace: 1,258 launch calls over 213,310,813 ns, 169,698 ns apart. The note
  // offers the time per kernel that makes the scenario's CPU (compiled: not simulated) take as
  // long for its own kernels: the span over the kernels pipeline rank 0 issues in the step (its
  // chunks' forward and backward launches × the micro-batches).
  double launches = 0;
  const auto held = f.tl.schedule.model_stages_by_rank();
  for (const int c : held.at(0))
    for (const KernelPass& p : f.kernels[static_cast<std::size_t>(c)].passes)
      launches += p.launches * f.sc.microbatches();
  REQUIRE(launches > 0);
  CHECK_THAT(d.notes[3],
             Catch::Contains("the GPU waited 163.125 ms (76 % of the step, 821 gaps) "
                             "for the CPU") &&
                 Catch::Contains("made 1,258 launch calls in 213.311 ms, 169.698 us apart") &&
                 Catch::Contains(fmt::format("--set efficiency.host_per_kernel={:.1f}us",
                                             213'310'813e-9 / launches * 1e6)) &&
                 Catch::Contains("simulated kernels a step take the trace's 213.311 ms"));
  // A scenario whose CPU issues its kernels (1 ms each): the wait is simulated too, and the
  // note compares.
  {
    Scenario cpu = f.sc;
    cpu.efficiency.host_per_kernel = kNsPerMs;
    const Timeline tl = simulate(cpu);
    const StepReport r = make_report(tl);
    const MeasuredDiff m = make_measured_diff(tl, r, f.kernels, f.traces, f.steps);
    const auto& st = r.stages[static_cast<std::size_t>(m.ranks[0].stage)];
    REQUIRE(st.launch_s > 0);
    CHECK(row(m.ranks[0], "idle_host").predicted_known);
    CHECK(row(m.ranks[0], "idle_host").predicted_s == Approx(st.launch_wait_s));
    REQUIRE(m.notes.size() == 5);
    CHECK_THAT(m.notes[3], Catch::Contains("the scenario issues its own kernels at 1.000 ms each"));
  }
  // Below 5 % of the step, no note: the same trace with its waits cut to 5 % less a nanosecond.
  f.steps[0].idle_host = static_cast<TimeNs>(0.05 * static_cast<double>(f.steps[0].span)) - 1;
  CHECK(make_measured_diff(f.tl, f.r, f.kernels, f.traces, f.steps).notes.size() == 4);
  // A trace without launch records: no such row (nothing to tell the waits apart by).
  f.steps[0].launches_known = false;
  const MeasuredDiff without = make_measured_diff(f.tl, f.r, f.kernels, f.traces, f.steps);
  for (const DiffRow& x : without.ranks[0].rows) CHECK(x.what != "idle_host");
}

TEST_CASE("diff: communication split into TP, DP and PP by each collective's group size") {
  Fixture f;
  // The default scenario: pp 4 · dp 2 · tp 1. Every NCCL kernel of the trace records group
  // size 2 (its run has 2 ranks): the DP degree, so all of it is DP's; no kernel is
  // point-to-point, so PP's measured part is 0; no TP row (tp 1, no TP kernels).
  const MeasuredDiff d = make_measured_diff(f.tl, f.r, f.kernels, f.traces, f.steps);
  const RankDiff& rd = d.ranks[0];
  const auto& st = f.r.stages[static_cast<std::size_t>(rd.stage)];
  CHECK(row(rd, "communication_dp").measured_s == Approx(row(rd, "communication").measured_s));
  CHECK(row(rd, "communication_dp_exposed").measured_s ==
        Approx(row(rd, "communication_exposed").measured_s));
  CHECK(row(rd, "communication_dp").predicted_s == Approx(st.comm_dp_s + st.comm_gather_s));
  CHECK(row(rd, "communication_pp").measured_s == 0);
  CHECK(row(rd, "communication_pp").predicted_s == Approx(st.comm_pp_s));
  CHECK(row(rd, "communication_pp_exposed").predicted_s == Approx(st.exposed_pp_s));
  for (const DiffRow& x : rd.rows) CHECK(x.what.rfind("communication_tp", 0) == std::string::npos);
  // The world size, device, step, host-bound and pace notes only: none unattributed.
  CHECK(d.notes.size() == 5);
  const std::string text = format_measured_diff(d);
  CHECK_THAT(text, Catch::Contains("\n    DP "));
  CHECK_THAT(text, Catch::Contains("\n      exposed "));

  // A trace without group sizes (PyTorch before 2.2): nothing can be attributed, and a note says
  // how much communication that leaves unsplit (12.300 ms, 7 kernels).
  for (auto& g : f.steps[0].comm_groups) g.group_size = 0;
  const MeasuredDiff u = make_measured_diff(f.tl, f.r, f.kernels, f.traces, f.steps);
  CHECK(row(u.ranks[0], "communication_dp").measured_s == 0);
  REQUIRE(u.notes.size() == 6);
  CHECK_THAT(u.notes[3], Catch::Contains("12.300 ms of communication (7 kernels) not split"));
}

TEST_CASE("diff: text, JSON and the side-by-side Perfetto trace") {
  Fixture f;
  const MeasuredDiff d = make_measured_diff(f.tl, f.r, f.kernels, f.traces, f.steps);
  const std::string text = format_measured_diff(d);
  CHECK_THAT(text, Catch::Contains("rank 0 (pipeline rank 0)"));
  CHECK_THAT(text, Catch::Contains("largest differences"));
  CHECK_THAT(text, Catch::Contains("measured collectives: all_reduce"));
  CHECK_THAT(text, Catch::Contains("not in the model: 16 kernel families"));
  CHECK_THAT(text, Catch::Contains("\n    waiting on CPU   163.125 ms            -"));
  // Every signed figure is signed with ASCII '-', as the error column is: a row predicted short
  // (the idle time here) reads "-1.2 ms", never with the Unicode minus beside an ASCII "-3.1%".
  CHECK_FALSE(std::regex_search(text, std::regex("\u2212[0-9]")));
  CHECK(std::regex_search(text, std::regex(R"( -[0-9.]+ (ms|us|s)\n)")));
  const auto j = measured_diff_to_json(d);
  CHECK(j["ranks"][0]["step"]["measured_s"].get<double>() == Approx(to_seconds(f.steps[0].span)));
  CHECK(j["ranks"][0]["other"]["predicted_s"].is_null());
  CHECK(j["ranks"][0]["idle_host"]["measured_s"].get<double>() == Approx(0.163125173));
  CHECK(j["ranks"][0]["idle_host"]["predicted_s"].is_null());
  CHECK(j["ranks"][0].contains("communication_exposed"));
  CHECK(j["ranks"][0].contains("memory_bound"));
  // The ResNet trace runs no attention: 0 measured against a predicted time has no relative
  // error (the text's "-"), so null, not 0; a measured row keeps its error.
  CHECK(j["ranks"][0]["attention"]["measured_s"].get<double>() == 0);
  CHECK(j["ranks"][0]["attention"]["predicted_s"].get<double>() > 0);
  CHECK(j["ranks"][0]["attention"]["error"].is_null());
  CHECK(j["ranks"][0]["step"]["error"].get<double>() > 0);
  // The text's "largest differences" line in the JSON too: up to three parts, largest first,
  // each its predicted − measured (the step itself and communication's sub-rows are not parts).
  const auto& top = j["ranks"][0]["largest_differences"];
  REQUIRE(top.size() == 3);
  for (std::size_t i = 0; i < top.size(); ++i) {
    const std::string part = top[i]["part"];
    CHECK(part != "step");
    CHECK(top[i]["difference_s"].get<double>() ==
          Approx(j["ranks"][0][part]["predicted_s"].get<double>() -
                 j["ranks"][0][part]["measured_s"].get<double>()));
    if (i > 0)
      CHECK(std::abs(top[i]["difference_s"].get<double>()) <=
            std::abs(top[i - 1]["difference_s"].get<double>()));
  }

  const std::string path =
      (std::filesystem::temp_directory_path() / "measured_diff_test_trace.json").string();
  write_measured_trace_file(f.tl, f.traces, f.picked, path);
  std::ifstream in(path);
  const auto t = nlohmann::json::parse(in);
  int measured = 0;
  bool named = false;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name" &&
        e["args"]["name"].get<std::string>().rfind("measured rank 0 · ProfilerStep#5", 0) == 0)
      named = true;
    if (e["ph"] == "X" && e["pid"].get<int>() >= f.sc.layout.world() + 1000) ++measured;
  }
  CHECK(named);
  CHECK(measured == 1258);  // every kernel of ProfilerStep#5 (torch_trace_test)
  std::remove(path.c_str());
}

TEST_CASE("diff: an all-to-all over the EP degree is expert parallelism's") {
  // Mixtral-8x7B with ep 4 (dp 4): a measured all-to-all over 4 GPUs (3 kernels, 1 ms busy,
  // 0.5 ms exposed) is EP's; it also matches dp 4, but an all-to-all is not DP's collective.
  Scenario sc = load_scenario(std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/mixtral-8x7b.yaml",
                              {"parallelism.ep=4"});
  const Timeline tl = simulate(sc);
  const StepReport r = make_report(tl);
  const auto model = make_cost_model(sc);
  std::vector<KernelReport> kernels;
  for (int c = 0; c < sc.layout.pp * sc.layout.vpp; ++c)
    kernels.push_back(make_kernel_report(sc, *model, c));
  Fixture f;
  f.steps[0].comm_groups = {{"alltoall", 4, 3, 1'000'000, 500'000}};
  const MeasuredDiff d = make_measured_diff(tl, r, kernels, f.traces, f.steps);
  const RankDiff& rd = d.ranks[0];
  const auto& st = r.stages[static_cast<std::size_t>(rd.stage)];
  CHECK(row(rd, "communication_ep").measured_s == Approx(1e-3));
  CHECK(row(rd, "communication_ep_exposed").measured_s == Approx(0.5e-3));
  CHECK(row(rd, "communication_ep").predicted_s == Approx(st.comm_ep_s));
  CHECK(st.comm_ep_s > 0);
  CHECK(row(rd, "communication_dp").measured_s == 0);
}

TEST_CASE(
    "diff: a real H100 LLM step against its scenario, and the GEMM time its trace calibrates") {
  // calibrate/reference/llama_step.py's step on an H100 SXM (tests/data/kineto/README.md) and
  // the scenario it runs, calibrate/reference/llama-4l-1gpu.yaml.
  const std::string dir = std::string(TRAINSIM_SOURCE_DIR) + "/calibrate/reference/";
  const std::string trace =
      std::string(TRAINSIM_TESTS_DIR) + "/data/kineto/h100-llama8b-4layers.json.gz";
  std::vector<TorchTrace> traces{read_torch_trace(trace)};
  // The median-length step but the first: #2 365.72 ms, #3 368.72 ms, #4 365.26 ms (their GPU
  // annotations) → #4.
  const int step = pick_step(traces[0]);
  std::vector<StepBreakdown> steps{break_down_step(traces[0], step)};
  auto diff = [&](const std::vector<std::string>& set) {
    const Scenario sc = load_scenario(dir + "llama-4l-1gpu.yaml", set);
    const Timeline tl = simulate(sc);
    const StepReport r = make_report(tl);
    const auto model = make_cost_model(sc);
    std::vector<KernelReport> kernels{make_kernel_report(sc, *model, 0)};
    return make_measured_diff(tl, r, kernels, traces, steps);
  };
  const MeasuredDiff d = diff({});
  REQUIRE(d.ranks.size() == 1);
  const RankDiff& rd = d.ranks[0];
  CHECK(rd.step == "ProfilerStep#4");
  // Summed with Python over the JSON's kernels in #4's GPU window: 204 nvjet (cuBLAS) GEMMs,
  // 174,157.6 µs; 64 FlashAttention kernels (forward, backward and its two helpers, 16 each),
  // 32,824.6 µs; the step 365,263.0 µs.
  CHECK(row(rd, "step").measured_s == Approx(365.263e-3).epsilon(1e-5));
  CHECK(row(rd, "gemm").measured_s == Approx(174.1576e-3).epsilon(1e-5));
  CHECK(row(rd, "attention").measured_s == Approx(32.8246e-3).epsilon(1e-5));
  CHECK(row(rd, "communication").measured_s == 0);
  CHECK(d.notes.empty());  // one GPU on both sides, an H100 on both sides
  // The model's answer for this real step: 364.3 ms predicted against 365.3 measured (−0.3 %)
  // when this test was written; a change that moves it past 5 % needs a reason.
  CHECK(std::abs(row(rd, "step").error()) < 0.05);
  // The same trace against the scenario with 32 layers, not the traced 4: 1.98 s against
  // 365 ms (28 more layers of ~58 ms each, forward and backward of 4 micro-batches), 5.4 times,
  // which a note calls out.
  const MeasuredDiff wrong = diff({"model.layers=32"});
  CHECK(row(wrong.ranks[0], "step").error() > 1);
  REQUIRE(wrong.notes.size() == 1);
  CHECK_THAT(wrong.notes[0], Catch::Contains("times the measured one: check that the scenario "
                                             "describes the traced run"));

  // The trace's own GEMM samples as the profile: the simulated GEMM time is then the measured
  // one, up to the median per shape (the 2 steps' calls) against one step's sum: within 1 %.
  const std::string profile =
      (std::filesystem::temp_directory_path() / "measured_diff_h100_profile.json").string();
  const Scenario sc = load_scenario(dir + "llama-4l-1gpu.yaml");
  save_profile(import_torch_traces(traces, sc).profile, profile);
  const MeasuredDiff c = diff({"calibration=" + profile});
  CHECK(row(c.ranks[0], "gemm").predicted_s ==
        Approx(row(c.ranks[0], "gemm").measured_s).epsilon(0.01));
  // And its attention samples the attention time: the per-call medians against one step's 64
  // FlashAttention kernels (32,824.6 µs) and 2 GQA reductions the backward operator leaves to
  // memory-bound: within 5 %.
  CHECK(row(c.ranks[0], "attention").predicted_s ==
        Approx(row(c.ranks[0], "attention").measured_s).epsilon(0.05));
  CHECK_THAT(c.cost_sources, Catch::Contains("2 attention shape(s) from the profile"));
  // Taken as they are: one sequence's 32 heads (1,024 tiles) would scale a chart's rate by 0.89
  // for the launch's parallelism, but a measured call already ran at that launch.
  const Scenario calibrated = load_scenario(dir + "llama-4l-1gpu.yaml", {"calibration=" + profile});
  const KernelReport kr = make_kernel_report(calibrated, *make_cost_model(calibrated), 0);
  int attention_rows = 0;
  for (const KernelPass& p : kr.passes)
    for (const KernelRow& k : p.rows)
      if (k.kind == "attention") {
        CHECK(k.source == "calibration profile");
        ++attention_rows;
      }
  CHECK(attention_rows == 2);
  std::remove(profile.c_str());
}

// A one-GPU reference step (calibrate/reference/SCENARIO) against its trace
// (tests/data/kineto/TRACE), at the median-length step but the first.
MeasuredDiff diff_one_gpu(const std::string& scenario, const std::string& trace) {
  const Scenario sc =
      load_scenario(std::string(TRAINSIM_SOURCE_DIR) + "/calibrate/reference/" + scenario);
  std::vector<TorchTrace> traces{
      read_torch_trace(std::string(TRAINSIM_TESTS_DIR) + "/data/kineto/" + trace)};
  std::vector<StepBreakdown> steps{break_down_step(traces[0], pick_step(traces[0]))};
  const Timeline tl = simulate(sc);
  const StepReport r = make_report(tl);
  const auto model = make_cost_model(sc);
  std::vector<KernelReport> kernels{make_kernel_report(sc, *model, 0)};
  return make_measured_diff(tl, r, kernels, traces, steps);
}

TEST_CASE("diff: one tensor-parallel rank's shapes on an H200: the attention of 4 heads") {
  // calibrate/reference/llama_step.py --tp 8 --seq 8192 --micro 2 on an H200 (4 query heads
  // and 1 key/value head; calibrate/reference/h200-tp-step.json) and its scenario,
  // calibrate/reference/llama-4l-tp8-1gpu.yaml.
  const MeasuredDiff d = diff_one_gpu("llama-4l-tp8-1gpu.yaml", "h200-llama8b-4layers-tp8.json.gz");
  const RankDiff& rd = d.ranks[0];
  // #2 71,967.1 µs, #3 71,902.7, #4 71,943.4 → #3. Summed with Python over its GPU window: 32
  // FlashAttention kernels (forward, backward and its two helpers, 8 each), 9,675.1 µs.
  CHECK(rd.step == "ProfilerStep#3");
  CHECK(row(rd, "attention").measured_s == Approx(9.6751e-3).epsilon(1e-5));
  // 256 query tiles per launch on 132 SMs, a sixth of the charts' benchmark: the forward at
  // 0.53 and the backward at 0.90 of the charted rate predict 8.95 ms (−7.5 %; the same
  // model's attention error at tp 1, 32 heads, is −9.7 %). At the charted rate it was 6.81 ms
  // (−29.6 %).
  CHECK(std::abs(row(rd, "attention").error()) < 0.10);
  // The step: 71.90 ms measured; 63.8 predicted (−11.2 %) without the final norm (full width
  // here: no sequence parallelism), 66.2 (−8.0 %) with it, 66.6 (−7.4 %) with the rotary
  // embedding's strided kernels capped at the H100's rate per SM (constants.h,
  // kSmBoundReference…: they took as long on the H200 as on an H100), 69.4 (−3.5 %) with the
  // eager RMSNorm at the rates its kernels reached on an H100.
  CHECK(std::abs(row(rd, "step").error()) < 0.10);
}

TEST_CASE("diff: a real H100 MPT-13B step (llm-foundry's layer) against its scenario") {
  // calibrate/reference/llama_step.py --arch mpt-13b on an H100 SXM: four layers, 2 micro-batches
  // of 2 × 2048 tokens. Its scenario: calibrate/reference/mpt-13b-4l-1gpu.yaml.
  const MeasuredDiff d = diff_one_gpu("mpt-13b-4l-1gpu.yaml", "h100-mpt13b-4layers.json.gz");
  const RankDiff& rd = d.ranks[0];
  // Every kernel of the step falls in a category the model predicts: nothing "other".
  CHECK(row(rd, "other").measured_s == 0);
  // 161.7 ms predicted against 160.6 measured (+0.7 %) when this test was written; 164.6 (+2.5 %)
  // once its LayerNorm ran at the rates measured in this trace and the final norm was counted, the
  // GEMMs 5.6 % slower than the lent H100 ran them.
  CHECK(std::abs(row(rd, "step").error()) < 0.05);
  // Its memory-bound kernels: 20.22 ms measured; 17.59 predicted (−13.0 %) with one fused
  // LayerNorm kernel, no sum of the tied table's gradients and no final norm, 20.17 (−0.3 %) with
  // PyTorch's own LayerNorm kernels at their measured rates, autograd's sum and the final norm.
  // Those rates were read from this very trace: a check that they are applied as measured, not an
  // independent one.
  CHECK(row(rd, "memory_bound").measured_s == Approx(20.218e-3).epsilon(1e-4));
  CHECK(std::abs(row(rd, "memory_bound").error()) < 0.05);
}

TEST_CASE("diff: a whole MPT-125M step on an H200 (head dim 64, small GEMMs)") {
  // calibrate/reference/llama_step.py --arch mpt-125m --layers 12 --batch 32 --seq 2048 --micro 2
  // on an H200 (calibrate/reference/h200-small-mpt.json); its scenario
  // calibrate/reference/mpt-125m-1gpu.yaml.
  const MeasuredDiff d = diff_one_gpu("mpt-125m-1gpu.yaml", "h200-mpt125m.json.gz");
  const RankDiff& rd = d.ranks[0];
  // GPU windows of #2, #3, #4: 354.19, 351.67, 355.46 ms; the first skipped, the shorter of the
  // other two is #3. Summed with Python over the kernels its CPU launched: 96 FlashAttention
  // kernels (forward, backward and its two helpers, 12 layers × 2 micro-batches each), 78,996.1 µs.
  CHECK(rd.step == "ProfilerStep#3");
  CHECK(row(rd, "step").measured_s == Approx(351.6696e-3).epsilon(1e-5));
  CHECK(row(rd, "attention").measured_s == Approx(78.9961e-3).epsilon(1e-5));
  CHECK(row(rd, "other").measured_s == 0);
  // 354.2 ms predicted (+0.7 %) when this test was written: GEMMs +10.5 % (the GPU held 1,980 MHz
  // between memory-bound kernels; the sweep's rate is the sustained one), attention +15.3 %
  // (twelve heads of 64 at 2,048 tokens), memory-bound −14.9 %. With the LayerNorms at the rate
  // of rows of 768 (constants.h kEagerLayerNormWidthSweep): memory-bound 133.4 ms (−5.4 %), the
  // step 367.5 ms (+4.5 %), the GEMMs' and attention's excess no longer offset.
  CHECK(std::abs(row(rd, "memory_bound").error()) < 0.08);
  CHECK(std::abs(row(rd, "step").error()) < 0.06);
}

TEST_CASE("diff: a whole MPT-1B step at 32,768 tokens on an H200: attention is 74 % of it") {
  // calibrate/reference/llama_step.py --arch mpt-1b --layers 24 --batch 1 --seq 32768 --micro 2
  // on an H200 (calibrate/reference/h200-small-mpt.json); its scenario
  // calibrate/reference/mpt-1b-32k-1gpu.yaml.
  const MeasuredDiff d = diff_one_gpu("mpt-1b-32k-1gpu.yaml", "h200-mpt1b-32k.json.gz");
  const RankDiff& rd = d.ranks[0];
  // GPU windows of #2, #3, #4: 3,200.31, 3,206.83, 3,190.61 ms → #4. Its 192 FlashAttention
  // kernels (24 layers × 2 micro-batches × 4) took 2,368,539.9 µs, summed with Python.
  CHECK(rd.step == "ProfilerStep#4");
  CHECK(row(rd, "attention").measured_s == Approx(2.3685399).epsilon(1e-5));
  // 16 heads of 128 at 32K tokens: the 16K point of the H100's measured curve, × 1.07 for the
  // launch's parallelism, predicted 2.381 s (+0.5 %). The step 3.284 s against 3.191 (+2.9 %),
  // GEMMs +15.8 % (as above), memory-bound −8.5 %.
  CHECK(std::abs(row(rd, "attention").error()) < 0.05);
  CHECK(std::abs(row(rd, "step").error()) < 0.05);
}

TEST_CASE(
    "diff --kernels: each compute category's measured families beside its predicted kernels") {
  // The whole MPT-125M step on an H200 (above): one GPU, no communication, so the step's stretch
  // and pace are 1 and each category's predicted kernels add up to its predicted row.
  const MeasuredDiff d = diff_one_gpu("mpt-125m-1gpu.yaml", "h200-mpt125m.json.gz");
  const RankDiff& rd = d.ranks[0];
  REQUIRE(rd.kernels.size() == 3);
  for (const CategoryKernels& ck : rd.kernels) {
    double sum = 0;
    for (const auto& k : ck.predicted) sum += k.seconds;
    CHECK(sum == Approx(row(rd, ck.what).predicted_s).epsilon(1e-9));
  }
  const CategoryKernels& att = rd.kernels[1];
  CHECK(att.what == "attention");
  // Predicted: 12 layers × 2 micro-batches of each pass's one attention kernel.
  REQUIRE(att.predicted.size() == 2);
  CHECK(att.predicted[0].name == "backward attention.backward");
  CHECK(att.predicted[0].runs == 24);
  CHECK(att.predicted[1].name == "forward attention");
  CHECK(att.predicted[1].runs == 24);
  // Measured: FlashAttention-2's forward, 24 kernels, 19,581 µs (Python over the trace's step #3).
  REQUIRE(att.measured.size() == 4);
  CHECK(att.measured[1].family == "flash_fwd_kernel");
  CHECK(att.measured[1].count == 24);
  CHECK(to_seconds(att.measured[1].time) == Approx(19.581e-3).epsilon(1e-3));
  // The memory-bound families name PyTorch's pointwise operations: GELU's backward, 24 kernels.
  const CategoryKernels& mem = rd.kernels[2];
  const auto gelu = std::find_if(mem.measured.begin(), mem.measured.end(), [](const auto& f) {
    return f.family == "vectorized_elementwise_kernel<GeluBackwardCUDAKernelImpl>";
  });
  REQUIRE(gelu != mem.measured.end());
  CHECK(gelu->count == 24);
  // Text: only with --kernels; the longest `most` of each list and what the rest add up to.
  CHECK(format_measured_diff(d).find("kernels by category") == std::string::npos);
  const std::string text = format_measured_diff(d, true, 3);
  CHECK(text.find("kernels by category") != std::string::npos);
  CHECK(text.find("backward attention.backward") != std::string::npos);
  CHECK(text.find("… 35 more") != std::string::npos);  // 38 memory-bound families, 3 shown
  // JSON: always, every kernel.
  const nlohmann::json j = measured_diff_to_json(d);
  CHECK(j["ranks"][0]["kernels"]["attention"]["predicted"].size() == 2);
  CHECK(j["ranks"][0]["kernels"]["memory_bound"]["measured"].size() == mem.measured.size());
}

TEST_CASE("diff: the Ultra-Scale Playbook's 1B on an H200 as nanotron lays it out") {
  // calibrate/reference/llama_step.py --arch playbook-1b --layers 16 --batch 2 --seq 4096
  // --micro 2 --fp32-accum --fused-norm-rope --nanotron-layout on an H200 (2026-11-30;
  // calibrate/reference/h200-playbook.json): RMSNorm and the rotary embedding fused, SwiGLU op by
  // op on the torch.split halves of one GEMM's output, nanotron's layout copies around attention;
  // scenario calibrate/reference/playbook-1b-nanotron-1gpu.yaml, whose 16 micro-batches the
  // trace's steps cut to 2.
  const std::string dir = std::string(TRAINSIM_SOURCE_DIR) + "/calibrate/reference/";
  std::vector<TorchTrace> traces{read_torch_trace(std::string(TRAINSIM_TESTS_DIR) +
                                                  "/data/kineto/h200-playbook1b-nanotron.json.gz")};
  // #2 375,010.7 µs, #3 380,788.6, #4 377,831.3 (their GPU annotations) → #4.
  const int step = pick_step(traces[0]);
  std::vector<StepBreakdown> steps{break_down_step(traces[0], step)};
  auto diff = [&](const std::string& eager_ops) {
    const Scenario sc =
        load_scenario(dir + "playbook-1b-nanotron-1gpu.yaml",
                      {"training.microbatches=2", "training.eager_ops=" + eager_ops});
    const Timeline tl = simulate(sc);
    const StepReport r = make_report(tl);
    const auto model = make_cost_model(sc);
    std::vector<KernelReport> kernels{make_kernel_report(sc, *model, 0)};
    return make_measured_diff(tl, r, kernels, traces, steps);
  };
  const MeasuredDiff d = diff("swiglu,qkv_layout,gate_up_split");
  const RankDiff& rd = d.ranks[0];
  CHECK(rd.step == "ProfilerStep#4");
  // Summed with Python over #4's GPU window: 390 nvjet (cuBLAS) GEMMs, 170,812.8 µs.
  CHECK(row(rd, "step").measured_s == Approx(377.831e-3).epsilon(1e-5));
  CHECK(row(rd, "gemm").measured_s == Approx(170.8128e-3).epsilon(1e-5));
  // Memory-bound kernels 105.9 ms predicted against 110.5 measured (−4.1 %; the step +0.7 %,
  // its GEMMs +11.4 % as on every lone GPU here). The layout's copies (326 kernels: the strided
  // copies, the stacked gradients, K and V's device copies) took 26.5 ms of them, whose rates
  // constants.h takes from this trace, and SwiGLU's on the strided halves 25.7; without the
  // layout's copies memory-bound was −28.5 %, and −19.1 % (now −21.8 %) without the split halves.
  CHECK(std::abs(row(rd, "step").error()) < 0.05);
  CHECK(std::abs(row(rd, "memory_bound").error()) < 0.05);
  CHECK(row(diff("swiglu,gate_up_split").ranks[0], "memory_bound").error() < -0.25);
  CHECK(row(diff("swiglu,qkv_layout").ranks[0], "memory_bound").error() < -0.15);
}

TEST_CASE("one-GPU reference steps: the Playbook's whole 1B and 3B steps on an H200") {
  // calibrate/reference/gpu_playbook.sh's runs (h200-playbook.json: medians of 3 timed steps of
  // 16 micro-batches of 2 × 4,096 tokens) beside the scenarios that describe them. When this test
  // was written: plain PyTorch 1B 3,342 ms predicted against 3,247.4 measured (+2.9 %), 3B 8,108
  // against 7,975.9 (+1.7 %); norm and rotary fused 2,744 against 2,737.4 (+0.3 %); laid out as
  // nanotron lays them 2,959 against 2,855.6 (+3.6 %) and 7,140 against 6,979.3 (+2.3 %). Every
  // one a little slow: a lone GPU's GEMMs ran 10-16 % faster than the sustained sweep prices them.
  const std::string dir = std::string(TRAINSIM_SOURCE_DIR) + "/calibrate/reference/";
  std::ifstream in(dir + "h200-playbook.json");
  REQUIRE(in);
  const auto runs = nlohmann::json::parse(in).at("runs");
  for (const auto& [run, scenario] : {std::pair{"playbook-1b", "playbook-1b-1gpu.yaml"},
                                      {"playbook-3b", "playbook-3b-1gpu.yaml"},
                                      {"playbook-1b-fused", "playbook-1b-fused-1gpu.yaml"},
                                      {"playbook-1b-nanotron", "playbook-1b-nanotron-1gpu.yaml"},
                                      {"playbook-3b-nanotron", "playbook-3b-nanotron-1gpu.yaml"}}) {
    INFO(run);
    const auto& r = runs.at(run);
    REQUIRE(r.at("micro_batches") == 16);
    const double measured = r.at("median").at("step_s").get<double>();
    const Scenario sc = load_scenario(dir + scenario);
    const double predicted = make_report(simulate(sc)).step_time_s;
    CHECK(std::abs(predicted / measured - 1) < 0.05);
  }
}
