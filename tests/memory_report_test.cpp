#include "report/memory_report.h"

#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "memory/footprint.h"
#include "memory/schedule_memory.h"
#include "run/simulate.h"
#include "test_util.h"

using namespace trainsim;

namespace {
Scenario llama8b(const std::string& extra = "") {
  return test::yaml(
      "model: llama-3.1-8b\ncluster: {gpu: h100-sxm, gpus_per_node: 8, nodes: 1}\n"
      "parallelism: {pp: 4, dp: 2}\ntraining: {seq_len: 4096, global_batch_size: 64" +
      extra + "}\n");
}
}  // namespace

TEST_CASE("memory report: peak = static state + the activations 1F1B holds", "[memory]") {
  const Scenario s = llama8b();
  const MemoryReport m = make_memory_report(simulate(s, {"1f1b", true}));
  REQUIRE(m.stages.size() == 4);
  CHECK(m.device_memory == s.cluster.gpu.memory);
  for (int st = 0; st < 4; ++st) {
    const StageMemory& sm = m.stages[static_cast<std::size_t>(st)];
    const int here[] = {st};
    const StaticMemory fixed = static_memory(s, here);
    INFO("stage " << st);
    // Weights 2Ψ, grads 2Ψ, Adam 12Ψ (ZeRO-0), runtime 1.5 GB + one 25 MB bucket (dp 2).
    CHECK(sm.weights == Approx(2 * fixed.parameters));
    CHECK(sm.optimizer == Approx(12 * fixed.parameters));
    CHECK(sm.buffers == Approx(1.5e9 + 25e6));
    // 1F1B: stage r holds p − r micro-batches at its peak; the head's stage, as its forward
    // ends, the loss's 16-bit logits and their upcast beside them (loss_transient_bytes, 0
    // elsewhere).
    CHECK(sm.activations ==
          Approx((4 - st) * stage_activation_bytes(s, st) + loss_transient_bytes(s, st)));
    CHECK(sm.peak ==
          Approx(sm.weights + sm.gradients + sm.optimizer + sm.buffers + sm.activations));
  }
  CHECK(m.out_of_memory.empty());  // 56 GB on stage 0 of a 79.18 GiB H100
  // Stages 0 and 3 hold the same parameters (embedding vs LM head); stage 0 holds p = 4
  // micro-batches of activations against stage 3's one, so it is the fullest GPU.
  CHECK(m.largest_peak() == m.stages[0].peak);
  CHECK(MemoryReport{}.largest_peak() == 0);
}

TEST_CASE("memory report: a costs-only scenario says memory is not modelled", "[memory]") {
  // Stage costs and no model: no bytes to count, said in words, not an empty table (the
  // GUI's report pane and `run` print the same).
  const Scenario s = test::yaml(
      "costs: {forward: 1ms, backward: 2ms}\ntraining: {microbatches: 4}\nparallelism: {pp: 2}\n");
  const std::string text = format_memory(make_memory_report(simulate(s, {"1f1b", true})));
  CHECK(text ==
        "memory not modelled: this scenario gives stage costs, not a model whose bytes could be "
        "counted\n");
  // The H100's 85,017,493,504 B (what CUDA gives a program) in the tables' decimal GB, and
  // in GiB as PyTorch reports it.
  CHECK(format_memory(make_memory_report(simulate(llama8b(), {"1f1b", true})))
            .find("memory per GPU (device 85.02 GB = 79.18 GiB, ") != std::string::npos);
}

TEST_CASE("memory report: the stage table stays aligned past 12-digit parameter counts",
          "[memory]") {
  // A stage of 22,485,495,971,840 parameters (18 characters; hidden 2²⁰) is wider than the
  // column's 12: the column widens, so every byte column still ends under its header.
  MemoryReport m = make_memory_report(simulate(llama8b(), {"1f1b", true}));
  m.stages[0].parameters = 22485495971840.0;
  const std::string text = format_memory(m);
  std::vector<std::string> lines;
  for (std::size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1)
    lines.push_back(text.substr(at, nl - at));
  const auto header = std::find_if(lines.begin(), lines.end(),
                                   [](const std::string& l) { return l.rfind("stage", 0) == 0; });
  REQUIRE(header != lines.end());
  CHECK_THAT(*(header + 1), Catch::Contains(" 22,485,495,971,840 "));
  for (const char* column : {"weights", "optimizer", "buffers", "peak"}) {
    const std::size_t end = header->find(column) + std::string(column).size();
    for (auto row = header + 1; row != header + 5; ++row) {
      INFO(*header << "\n" << *row << "\ncolumn " << column);
      REQUIRE(row->size() > end);
      CHECK(row->at(end - 1) != ' ');  // the value's last character under the header's last
      CHECK(row->at(end) == ' ');
    }
  }
}

TEST_CASE("memory report: a recomputing backward holds the layer it replays", "[memory]") {
  // Full recompute keeps each layer's input, 2nh (n = h = 4,096); the backward replays one layer
  // at a time, which holds what a layer keeps without recompute, 34nh + 4na bytes (Llama-3.1-8B,
  // FlashAttention's fp32 statistics: 17h wide in 16-bit, a = 32 heads), its input among them:
  // 32nh + 4na = 536,870,912 + 524,288 bytes beside the stored micro-batches.
  const Scenario full = llama8b(", recompute: full");
  const double n = 4096, h = 4096, a = 32;
  CHECK(recompute_transient_bytes(full, 0) == Approx(32 * n * h + 4 * n * a));
  // Stage 0 of 1F1B holds p = 4 micro-batches when its first backward starts, and replays one
  // layer of the fourth: its peak is there (it had been the end of the warm-up, the replay
  // uncounted).
  const MemoryReport m = make_memory_report(simulate(full, {"1f1b", true}));
  CHECK(m.stages[0].activations ==
        Approx(4 * stage_activation_bytes(full, 0) + recompute_transient_bytes(full, 0)));
  // The schedule-only estimate the search rules layouts out by agrees.
  const Schedule sch = schedule_for(full);
  CHECK(schedule_memory_peaks(full, sch)[0] == Approx(m.stages[0].peak));
  // The curve the GUI and the trace draw peaks where the report does on every stage, the head's
  // too, whose forward's loss (3.2 GB of logits) and next backward's replayed layer share an
  // instant: the larger is drawn, not the later.
  const auto curves = memory_over_time(simulate(full, {"1f1b", true}), m);
  for (std::size_t st = 0; st < 4; ++st) {
    double top = 0;
    for (const MemorySample& x : curves[st]) top = std::max(top, x.total());
    INFO("stage " << st);
    CHECK(top == Approx(m.stages[st].peak));
  }
}

TEST_CASE("memory report: fp32 gradient accumulation keeps 4-byte gradients, not 2", "[memory]") {
  // Megatron's fp32 main gradients replace the 16-bit ones: 2 + 4 + 12 = 18 bytes per parameter
  // with the optimizer's (Megatron-LM README, distributed optimizer table), 2 more than bf16's.
  const MemoryReport plain = make_memory_report(simulate(llama8b()));
  const MemoryReport fp32 = make_memory_report(simulate(llama8b(", fp32_grad_accumulation: true")));
  for (std::size_t st = 0; st < 4; ++st) {
    CHECK(plain.stages[st].gradients == Approx(2 * plain.stages[st].parameters));
    CHECK(fp32.stages[st].gradients == Approx(4 * plain.stages[st].parameters));
    CHECK(fp32.stages[st].weights + fp32.stages[st].gradients + fp32.stages[st].optimizer ==
          Approx(18 * plain.stages[st].parameters));
  }
}

TEST_CASE("memory report: out of memory names the stage, the excess, the moment and the cause",
          "[memory]") {
  // AFAB holds all 32 micro-batches: stage 3 keeps 32 × (8 layers + logits) of activations.
  const Scenario s = llama8b();
  const Timeline tl = simulate(s, {"afab", true});
  const MemoryReport m = make_memory_report(tl);
  REQUIRE(m.out_of_memory.size() == 4);
  const OutOfMemory& last = m.out_of_memory.back();
  CHECK(last.stage == 3);
  CHECK(last.dominant == "activations");
  CHECK(last.excess == Approx(m.stages[3].peak - s.cluster.gpu.memory));
  // The peak is reached when stage 3 ends its 32nd forward (its last) with the loss's 16-bit
  // logits beside the 32 micro-batches' activations, before any backward.
  CHECK(m.stages[3].activations ==
        Approx(32 * stage_activation_bytes(s, 3) + loss_transient_bytes(s, 3)));
  CHECK(last.time_s > 0);
  CHECK(last.time_s < to_seconds(tl.makespan));
  CHECK_THAT(format_memory(m), Catch::Contains("OUT OF MEMORY: stage 3"));
}

TEST_CASE("memory report: a peak within the device but past its usable memory is tight",
          "[memory]") {
  Scenario s = llama8b();
  const double peak0 = make_memory_report(simulate(s, {"1f1b", true})).stages[0].peak;
  // A device 5 % above stage 0's peak (56 GB): the caching allocator's default fragmentation,
  // 11.5 %, leaves 0.885 × 1.05 = 0.929 of that peak usable, so stage 0 is tight by 0.071 of it;
  // stage 3, the next fullest (48 GB, 0.85 of stage 0's), fits.
  s.cluster.gpu.memory = 1.05 * peak0;
  const MemoryReport m = make_memory_report(simulate(s, {"1f1b", true}));
  CHECK(m.fragmentation == 0.115);
  CHECK(m.usable_memory == Approx(0.885 * 1.05 * peak0));
  CHECK(m.out_of_memory.empty());
  REQUIRE(m.tight.size() == 1);
  CHECK(m.tight[0].stage == 0);
  CHECK(m.tight[0].excess == Approx((1 - 0.885 * 1.05) * peak0));
  CHECK(m.tight[0].dominant == "optimizer states");  // 27 GB of Adam state beside 18 of activations
  const std::string text = format_memory(m);
  CHECK_THAT(text, Catch::Contains("TIGHT: stage 0 peaks") && Catch::Contains("of it usable"));
  CHECK(memory_to_json(m)["tight"].size() == 1);
  CHECK(memory_to_json(m)["usable_memory"] == Approx(m.usable_memory));
  CHECK(memory_to_json(m)["stages"][0]["parameters"].is_number_integer());  // a count
  // A run under PyTorch's expandable_segments (memory.fragmentation 0): every byte usable.
  s.memory.fragmentation = 0;
  const MemoryReport all = make_memory_report(simulate(s, {"1f1b", true}));
  CHECK(all.usable_memory == all.device_memory);
  CHECK(all.tight.empty());
  CHECK_THAT(format_memory(all), !Catch::Contains("usable") && !Catch::Contains("TIGHT"));
  // Past the device itself: out of memory, not tight.
  s.cluster.gpu.memory = 0.95 * peak0;
  const MemoryReport over = make_memory_report(simulate(s, {"1f1b", true}));
  REQUIRE(over.out_of_memory.size() == 1);
  CHECK(over.out_of_memory[0].excess == Approx(0.05 * peak0));
  // The key: a share of device memory, at most a half.
  CHECK(test::yaml("model: llama-3.1-8b\ncluster: {gpu: h100-sxm, gpus_per_node: 1}\ntraining: "
                   "{seq_len: 4096, "
                   "global_batch_size: 8}\nmemory: {fragmentation: 0.2}\n")
            .memory.fragmentation == 0.2);
  CHECK_THROWS_WITH(
      test::yaml("model: llama-3.1-8b\ncluster: {gpu: h100-sxm, gpus_per_node: 1}\ntraining: "
                 "{seq_len: 4096, global_batch_size: 8}\nmemory: {fragmentation: "
                 "0.6}\n"),
      Catch::Contains("memory.fragmentation: expected a number in [0, 0.5]"));
}

TEST_CASE("memory report: a logged peak is set against stage 0's peak less the runtime overhead",
          "[memory]") {
  // measured.peak_memory is the run's max_memory_allocated on rank 0 (pipeline stage 0); the
  // CUDA context and workspaces (memory.runtime_overhead, 1.5 GB) lie outside the allocator's
  // count, so the prediction is stage 0's peak less them.
  Scenario s = llama8b();
  const double peak0 = make_memory_report(simulate(s, {"1f1b", true})).stages[0].peak;
  s.measured = Measured{Measured::Metric::StepTime, 4.0, "a log", "", 50 * 1024.0 * 1024 * 1024};
  const MemoryReport m = make_memory_report(simulate(s, {"1f1b", true}));
  REQUIRE(m.measured);
  CHECK(m.measured->measured == 50 * 1024.0 * 1024 * 1024);
  CHECK(m.measured->predicted == Approx(peak0 - 1.5e9));
  CHECK(m.measured->error() == Approx((peak0 - 1.5e9) / (50 * 1024.0 * 1024 * 1024) - 1));
  CHECK_THAT(format_memory(m), Catch::Contains("measured: rank 0's logged peak allocation 53.69 GB "
                                               "(50.00 GiB, measured.peak_memory)"));
  CHECK(memory_to_json(m)["measured"]["error"].get<double>() == Approx(m.measured->error()));
  // Without a logged peak: nothing to compare.
  CHECK_FALSE(make_memory_report(simulate(llama8b(), {"1f1b", true})).measured);
  CHECK(memory_to_json(make_memory_report(simulate(llama8b())))["measured"].is_null());
  // The key reads a size with its unit.
  CHECK(*test::yaml("model: llama-3.1-8b\ncluster: {gpu: h100-sxm, gpus_per_node: 1}\ntraining: "
                    "{seq_len: 4096, global_batch_size: 8}\nmeasured: {step_time: 1s, source: a "
                    "log, peak_memory: 58.817GiB}\n")
             .measured->peak_memory == Approx(58.817 * 1024 * 1024 * 1024));
}

TEST_CASE("memory report: FP8 weights are counted in buffers, and said to be", "[memory]") {
  // Llama-3.1-8B's linear weights on a stage of 8 layers: 8 × (4096 × 6144 QKV + 4096² out +
  // 3 × 4096 × 14336 MLP) = 1.745e9, held in FP8 and (Hopper) transposed: 2 bytes each, 3.49 GB.
  const double linear = 8.0 * (4096.0 * 6144 + 4096.0 * 4096 + 3 * 4096.0 * 14336);
  const MemoryReport bf16 = make_memory_report(simulate(llama8b()));
  const MemoryReport fp8 = make_memory_report(simulate(llama8b(", precision: fp8")));
  for (std::size_t st = 1; st < 3; ++st) {  // the middle stages: layers only
    CHECK(bf16.stages[st].fp8_weights == 0);
    CHECK(fp8.stages[st].fp8_weights == Approx(2 * linear).epsilon(1e-4));
    CHECK(fp8.stages[st].buffers - bf16.stages[st].buffers == Approx(fp8.stages[st].fp8_weights));
  }
  CHECK(memory_to_json(fp8)["stages"][1]["fp8_weights"].get<double>() ==
        Approx(2 * linear).epsilon(1e-4));
  CHECK_THAT(format_memory(fp8),
             Catch::Contains("buffers: the runtime overhead, DP buckets and the layers' FP8 "
                             "weights (3.49 GB a stage;"));
  CHECK(format_memory(bf16).find("FP8 weights") == std::string::npos);
}

TEST_CASE("memory report: JSON carries the per-stage fields the issue names", "[memory]") {
  const nlohmann::json j = memory_to_json(make_memory_report(simulate(llama8b())));
  for (const char* k : {"parameters", "weights", "gradients", "optimizer", "activations", "buffers",
                        "total", "peak"})
    CHECK(j["stages"][0].contains(k));
  CHECK(j["stages"][0]["peak"].contains("time_s"));
  CHECK(j["out_of_memory"].is_array());
  CHECK(j["dp_buckets"] == "view");
  Scenario copied = llama8b();
  copied.memory.dp_buckets = DpBuckets::Copy;
  CHECK(memory_to_json(make_memory_report(simulate(copied)))["dp_buckets"] == "copy");
}

TEST_CASE("memory over time: starts at the static state and peaks at the report's peak",
          "[memory]") {
  // 1F1B, pp 4: each stage starts at its static bytes with nothing alive, reaches the report's
  // peak (static + (4 − r) micro-batches of activations) at the report's moment, and ends the
  // step at the makespan with every activation freed.
  const Timeline tl = simulate(llama8b(), {"1f1b", true});
  const MemoryReport m = make_memory_report(tl);
  const auto samples = memory_over_time(tl, m);
  REQUIRE(samples.size() == 4);
  for (std::size_t st = 0; st < 4; ++st) {
    INFO("stage " << st);
    const StageMemory& sm = m.stages[st];
    const auto& v = samples[st];
    CHECK(v.front().time == 0);
    CHECK(v.front().total() == Approx(sm.weights + sm.gradients + sm.optimizer + sm.buffers));
    CHECK(v.back().time == tl.makespan);
    CHECK(v.back().activations == Approx(0).margin(1));
    double peak = 0;
    TimeNs at = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i > 1 && i + 1 < v.size()) CHECK(v[i].time > v[i - 1].time);  // one per instant
      if (v[i].total() > peak) peak = v[i].total(), at = v[i].time;
    }
    CHECK(peak == Approx(sm.peak));
    CHECK(to_seconds(at) == Approx(sm.peak_time_s));
  }
}

TEST_CASE("memory report: selective recompute that drops nothing says so", "[memory]") {
  // Megatron's selective recompute replays the attention core. FlashAttention-2 (the default
  // attention) stores no s² scores, and Q, K, V and the output stay for the projections around
  // it: every stage keeps what it keeps without recompute, and the report says the recompute
  // only costs time. Unfused attention stores 5·a·s²·b bytes of scores a layer (Korthikanti et
  // al. 2022), which selective recompute drops: no such line.
  const auto report = [](const Scenario& s) { return make_memory_report(simulate(s)); };
  const MemoryReport flash = report(llama8b(", recompute: selective"));
  CHECK(flash.selective_saves_nothing);
  CHECK_THAT(format_memory(flash), Catch::Contains("selective recompute saves no memory here"));
  CHECK(memory_to_json(flash)["selective_recompute_saves_nothing"] == true);
  CHECK(flash.stages[0].activations == Approx(report(llama8b()).stages[0].activations));
  const MemoryReport unfused = report(llama8b(", recompute: selective, attention: unfused"));
  CHECK_FALSE(unfused.selective_saves_nothing);
  CHECK(unfused.stages[0].activations <
        report(llama8b(", attention: unfused")).stages[0].activations);
  CHECK_THAT(format_memory(unfused), !Catch::Contains("saves no memory"));
  CHECK_FALSE(report(llama8b()).selective_saves_nothing);  // no recompute: nothing to say
  // DualPipe runs the model's 4 stages twice over (two chains, 8 schedule stages): the model's
  // 4 are compared, and the answer is the same as 1F1B's (it had checked stage 4 of a 4-stage
  // split and stopped as an internal error).
  const Scenario dual = llama8b(", recompute: selective");
  const MemoryReport dp = make_memory_report(simulate(dual, {"dualpipe", true}));
  CHECK(dp.selective_saves_nothing);
}

TEST_CASE("memory report: the stage furthest over its line, in words", "[memory]") {
  // Stage 1 is 66.1 GB over, stages 0 and 2 less: it is named, with the 2 others counted; one
  // stage alone has no "more"; none, no words.
  const std::vector<OutOfMemory> three{{0, 1.0, 2.5e9, "activations"},
                                       {1, 1.5, 66.1e9, "activations"},
                                       {2, 2.0, 0.4e9, "activations"}};
  CHECK(worst_excess(three) == &three[1]);
  CHECK(worst_excess_words(three) == "stage 1 (+66.1 GB) and 2 more");
  CHECK(worst_excess_words({three[2]}) == "stage 2 (+0.4 GB)");
  CHECK(worst_excess({}) == nullptr);
  CHECK(worst_excess_words({}).empty());
}
