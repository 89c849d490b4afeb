#include "report/report_format.h"

#include <algorithm>
#include <sstream>
#include <tuple>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/quantity.h"
#include "report/validation.h"
#include "scenario/scenario_schema.h"
#include "test_util.h"

using namespace trainsim;

namespace {
// The default scenario's setting: Llama-3.1-8B, pp 4 × dp 2 on 8 H100s (80 GiB), 32 micro-batches.
Scenario llama8b() {
  return test::yaml(
      "model: llama-3.1-8b\ncluster: {gpu: h100-sxm, gpus_per_node: 8, nodes: 1}\n"
      "parallelism: {pp: 4, dp: 2}\ntraining: {seq_len: 4096, global_batch_size: 64}\n");
}

ComparedSchedule compared(const Scenario& s, const std::string& schedule) {
  const Timeline tl = simulate(s, {schedule, true});
  return {make_report(tl), make_memory_report(tl), {}, false};
}

// A checked case on 8 H100s named `name`, its step predicted `error` off the measured 1 s
// (error = predicted / measured − 1).
CheckedCase checked_case(const std::string& name, double error) {
  CheckedCase c;
  c.step.scenario_name = name;
  c.step.gpu = "h100-sxm";
  c.step.gpus = 8;
  c.accuracy.metric = "step time";
  c.accuracy.measured = 1.0;
  c.accuracy.predicted = 1.0 + error;
  c.accuracy.step_time_error = error;
  return c;
}

// The table line whose first word is `schedule`.
std::string row_of(const std::string& table, const std::string& schedule) {
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(schedule + " ", 0) == 0) return line;
  return "";
}
}  // namespace

TEST_CASE("compare: each schedule's GPU memory peak, marked OOM over the device", "[report]") {
  const Scenario s = llama8b();
  const std::vector<ComparedSchedule> rows = {compared(s, "afab"), compared(s, "1f1b")};
  // AFAB holds all 32 micro-batches: stage 3 needs ~252 GB, over 80 GiB on every stage.
  // 1F1B holds p − r: stage 0 peaks at ~56 GB and fits.
  REQUIRE(rows[0].memory.out_of_memory.size() == 4);
  REQUIRE(rows[1].memory.out_of_memory.empty());
  const std::string table = format_comparison(rows);
  const std::string afab = row_of(table, "afab"), one = row_of(table, "1f1b");
  INFO(table);
  CHECK(afab.find(format_bytes(rows[0].memory.largest_peak()) + " OOM") != std::string::npos);
  CHECK(one.find(format_bytes(rows[1].memory.largest_peak())) != std::string::npos);
  CHECK(one.find("OOM") == std::string::npos);
  CHECK(table.find("OOM: over the device's " + format_bytes(s.cluster.gpu.memory)) !=
        std::string::npos);
  // Neither row is marked tight (AFAB's is OOM, 1F1B's 56 GB under the 76 GB usable): no legend.
  CHECK(table.find("tight") == std::string::npos);
  // On a 60 GB GPU (53.1 GB usable) 1F1B's 56 GB peak is tight: marked, and the legend says so.
  Scenario small = s;
  small.cluster.gpu.memory = 60e9;
  const std::string tight = format_comparison({compared(small, "afab"), compared(small, "1f1b")});
  CHECK_THAT(row_of(tight, "1f1b"), Catch::EndsWith(" tight"));
  CHECK_THAT(tight, Catch::Contains("tight: within it, but over the 53.10 GB usable"));
}

TEST_CASE("compare: scenarios on different GPUs and pipelines, each row against its own",
          "[report]") {
  // A/B: one pipeline stage on a 141 GB GPU first, then AFAB's four stages on the 80 GiB H100
  // (OOM there, as above). The legend must not judge both rows by the first row's device, and
  // the per-stage table needs a column for each of the second row's four stages.
  Scenario one = llama8b();
  one.layout.pp = 1;
  one.layout.dp = 8;
  one.cluster.gpu.memory = 141e9;
  std::vector<ComparedSchedule> rows = {compared(one, "1f1b"), compared(llama8b(), "afab")};
  rows[0].step.schedule = "a · 1f1b";
  rows[1].step.schedule = "b · afab";
  REQUIRE_FALSE(rows[1].memory.out_of_memory.empty());
  const std::string table = format_comparison(rows);
  INFO(table);
  CHECK_THAT(table, Catch::Contains("OOM: over the row's own device's memory (a · 1f1b 141.00 GB, "
                                    "b · afab " +
                                    format_bytes(llama8b().cluster.gpu.memory) + ")"));
  CHECK(table.find("OOM: over the device's") == std::string::npos);
  const std::string per_stage = table.substr(table.find("per stage:"));
  CHECK_THAT(per_stage, Catch::Contains("stage 3"));
}

TEST_CASE("compare --json: every schedule carries its memory report", "[report]") {
  const Scenario s = llama8b();
  const nlohmann::json j = comparison_to_json({compared(s, "afab"), compared(s, "1f1b")});
  REQUIRE(j["schedules"].size() == 2);
  CHECK(j["schedules"][0]["schedule"] == "afab");
  CHECK(j["schedules"][0]["label"] == "afab");  // no label given: the schedule's name
  CHECK(j["schedules"][0]["retried"] == false);
  CHECK(j["schedules"][0]["memory"]["out_of_memory"].size() == 4);
  CHECK(j["schedules"][1]["memory"]["out_of_memory"].empty());
  CHECK(j["schedules"][1]["memory"]["device_memory"].get<double>() == s.cluster.gpu.memory);
}

TEST_CASE("compare: a costs-only scenario has no memory to judge", "[report]") {
  // No model, no cluster: no bytes, no device, so "-" and no OOM legend.
  const std::string table = format_comparison({compared(test::pipeline(4, 8, 1, 2), "1f1b")});
  const std::string row = row_of(table, "1f1b");
  REQUIRE_FALSE(row.empty());
  CHECK(row.back() == '-');
  CHECK(table.find("OOM") == std::string::npos);
}

TEST_CASE("report: a cost per 1M tokens reads at any size", "[report]") {
  StepReport r = make_report(simulate(llama8b(), {"", true}));
  r.price_per_gpu_hour = 2.5;
  r.cost_per_million_tokens = 0.0823;
  CHECK_THAT(format_report(r), Catch::Contains("cost per 1M tokens   $0.0823  (at $2.50 per"));
  // A dear one in grouped dollars and cents, not "$5057955.8712".
  r.cost_per_million_tokens = 5057955.8712;
  CHECK_THAT(format_report(r), Catch::Contains("cost per 1M tokens   $5,057,955.87  (at $2.50"));
}

TEST_CASE("run --json: a mixture of experts shows its routing", "[report]") {
  // The MoE settings the all-to-alls depend on are echoed; a dense model has no "moe".
  const Scenario moe = test::yaml(R"(model: {layers: 2, hidden: 1024, ffn_hidden: 2048, heads: 8,
        vocab: 1000, moe: {experts: 8, top_k: 2, capacity_factor: 1.25, node_limit: 2}}
training: {seq_len: 512, global_batch_size: 8}
cluster: {gpu: h100-sxm, gpus_per_node: 8}
parallelism: {dp: 8, ep: 8}
)");
  const auto j = report_to_json(make_report(simulate(moe, {"", true})));
  CHECK(j["model"]["moe"]["experts"] == 8);
  CHECK(j["model"]["moe"]["top_k"] == 2);
  CHECK(j["model"]["moe"]["capacity_factor"] == 1.25);
  CHECK(j["model"]["moe"]["node_limit"] == 2);
  CHECK_FALSE(
      report_to_json(make_report(simulate(llama8b(), {"", true})))["model"].contains("moe"));
}

TEST_CASE("run --json: the cluster and its links", "[report]") {
  // llama8b() is one node of 8 H100s: the preset's links, the send/receive rate between nodes
  // included (24.9 GB/s, sim/scenario/cluster.cpp).
  Scenario s = llama8b();
  auto j = report_to_json(make_report(simulate(s, {"", true})));
  CHECK(j["cluster"]["gpus_per_node"] == 8);
  CHECK(j["cluster"]["nodes"] == 1);
  // The GPUs' speed spread in effect, the default 1 % where the file gives none (not null).
  CHECK(j["cluster"]["gpu_speed_spread"] == 0.01);
  // Counts are integers (262144, not 262144.0): 64 sequences of 4,096 tokens.
  CHECK(j["tokens_per_step"].is_number_integer());
  CHECK(j["tokens_per_step"] == 64 * 4096);
  CHECK(j["stages"][0]["kernels"].is_number_integer());
  CHECK(j["cluster"]["intra_node"]["bandwidth"] == 370e9);
  CHECK(j["cluster"]["inter_node"]["bandwidth"] == 47e9);
  CHECK(j["cluster"]["inter_node"]["p2p_bandwidth"] == 24.9e9);
  // The NICs a node has between nodes: one per GPU unless given (8; on a 4-GPU node, 4).
  CHECK(j["cluster"]["inter_node"]["nics"] == 8);
  Scenario four = s;
  four.cluster.gpus_per_node = 4;
  four.cluster.nodes = 2;
  CHECK(report_to_json(make_report(simulate(four, {"", true})))["cluster"]["inter_node"]["nics"] ==
        4);
  s.cluster.inter_node.p2p_bandwidth = 40e9;
  s.cluster.inter_node.nics = 2;
  j = report_to_json(make_report(simulate(s, {"", true})));
  CHECK(j["cluster"]["inter_node"]["p2p_bandwidth"] == 40e9);
  CHECK(j["cluster"]["inter_node"]["nics"] == 2);
}

TEST_CASE("run --json: the training settings the durations depend on", "[report]") {
  Scenario s = llama8b();
  s.training.attention = AttentionKernel::Triton;
  s.training.fused_optimizer = false;
  const auto j = report_to_json(make_report(simulate(s, {"", true})));
  CHECK(j["training"]["attention"] == "triton");
  CHECK(j["training"]["fused_optimizer"] == false);
  CHECK(j["training"]["grad_clipping"] == true);
  CHECK(j["training"]["runtime"] == "compiled");
  s.training.runtime = Runtime::Fused;
  CHECK(report_to_json(make_report(simulate(s, {"", true})))["training"]["runtime"] == "fused");
  CHECK(j["training"]["optimizer_post_validation"] == false);
  CHECK(j["steps_overlap"] == false);
  CHECK(j["one_step_s"] == j["step_time_s"]);
  CHECK(j["training"]["seq_len"] == 4096);
  // The reduction precision is echoed resolved: bf16 by default, fp32 when asked or when the
  // gradients accumulate in fp32.
  CHECK(j["training"]["grad_reduce_dtype"] == "bf16");
  s.training.fp32_grad_accumulation = true;
  CHECK(report_to_json(make_report(simulate(s, {"", true})))["training"]["grad_reduce_dtype"] ==
        "fp32");
  // Partial full recompute: the layer count, null when every layer is recomputed (or none).
  CHECK(j["training"]["recompute_layers"].is_null());
  s.training.recompute = Recompute::Full;
  s.training.recompute_layers = 3;
  const auto partial = report_to_json(make_report(simulate(s, {"", true})));
  CHECK(partial["training"]["recompute"] == "full");
  CHECK(partial["training"]["recompute_layers"] == 3);
  // A costs-only study has no training settings.
  const auto costs = report_to_json(make_report(simulate(test::pipeline(2, 4, 1, 2), {"", true})));
  CHECK(costs["training"].is_null());
}

TEST_CASE("run: the layout line names the ZeRO stage and ZeRO-3's buckets", "[report][zero3]") {
  Scenario s = llama8b();
  CHECK_THAT(format_report(make_report(simulate(s))),
             Catch::Contains("· dp 2 · tp 1 · pp 4 · 32 micro-batches"));
  s.layout.pp = 1;
  s.layout.dp = 8;
  s.layout.zero = 3;
  s.training.global_batch_size = 8;
  CHECK_THAT(format_report(make_report(simulate(s))),
             Catch::Contains("· dp 8 · tp 1 · pp 1 · ZeRO-3 · 1 micro-batch"));
  s.layout.fsdp.reduce_bucket = 20e6;
  const StepReport r = make_report(simulate(s));
  CHECK_THAT(
      format_report(r),
      Catch::Contains("ZeRO-3 (collectives of a unit gathered, ≤ 20.00 MB reduce-scattered)"));
  const nlohmann::json j = report_to_json(r);
  CHECK(j["layout"]["zero"] == 3);
  CHECK(j["layout"]["fsdp"]["reduce_bucket_bytes"] == 20e6);
  CHECK(j["layout"]["fsdp"]["gather_bucket_bytes"].is_null());
  CHECK(j["layout"]["fsdp"]["unit_layers"] == 1);
  CHECK_FALSE(j["layout"].contains("zero1_reduce"));  // ZeRO-1's alone
  s.layout.zero = 1;
  s.layout.zero1_all_reduce = true;
  const nlohmann::json one = report_to_json(make_report(simulate(s)));
  CHECK(one["layout"]["zero1_reduce"] == "all-reduce");
  CHECK(one["layout"]["overlap_grad_reduce"] == false);
  CHECK_FALSE(one["layout"].contains("fsdp"));
}

TEST_CASE("run: the layout line names sequence parallelism and TP overlap at tp > 1", "[report]") {
  // Both change the step (SP: norms and dropouts on n / tp tokens, the all-reduces split into
  // all-gathers and reduce-scatters; overlap: the collectives under their GEMMs), so a report
  // that left them out would give two different answers the same description.
  Scenario s = llama8b();
  s.layout.pp = 1;
  s.layout.dp = 4;
  s.layout.tp = 2;
  const StepReport plain = make_report(simulate(s));
  CHECK_THAT(format_report(plain), Catch::Contains("· dp 4 · tp 2 · pp 1 · 16 micro-batches"));
  CHECK(report_to_json(plain)["layout"]["sequence_parallel"] == false);
  CHECK(report_to_json(plain)["layout"]["tp_overlap"] == false);
  s.layout.sequence_parallel = true;
  s.layout.tp_overlap = true;
  const StepReport both = make_report(simulate(s));
  CHECK_THAT(format_report(both),
             Catch::Contains("· dp 4 · tp 2 · pp 1 · SP · TP overlap · 16 micro-batches"));
  CHECK(report_to_json(both)["layout"]["sequence_parallel"] == true);
  CHECK(report_to_json(both)["layout"]["tp_overlap"] == true);
  CHECK(both.step_time_s != plain.step_time_s);
  // At tp 1 there is nothing to split or overlap: the words stay out (the JSON keeps the flags).
  s.layout.tp = 1;
  s.layout.dp = 8;
  CHECK_THAT(format_report(make_report(simulate(s))),
             Catch::Contains("· dp 8 · tp 1 · pp 1 · 8 micro-batches"));
}

TEST_CASE("run: the layout line and the JSON name how context parallelism exchanges",
          "[report][cp]") {
  // The three exchanges give different steps; a report that named only the degree would give
  // them one description. Llama-3.1-8B, 8,192 tokens at cp 2 · dp 4, tp 1.
  Scenario s = llama8b();
  s.training.seq_len = 8192;
  s.layout.pp = 1;
  s.layout.dp = 4;
  s.layout.cp = 2;
  std::vector<double> steps;
  for (const auto& [comm, words, json] :
       {std::tuple{CpComm::Ring, "· cp 2 (ring)", "ring"},
        std::tuple{CpComm::AllGather, "· cp 2 (all-gather)", "all_gather"},
        std::tuple{CpComm::AllToAll, "· cp 2 (all-to-all)", "all_to_all"}}) {
    s.layout.cp_comm = comm;
    const StepReport r = make_report(simulate(s));
    const std::string text = format_report(r);
    CHECK_THAT(text, Catch::Contains(words));
    CHECK(report_to_json(r)["layout"]["cp_comm"] == json);
    // The exposed time of the exchange, named by what it moves.
    CHECK_THAT(text, Catch::Contains(comm == CpComm::AllToAll ? "· CP all-to-all " : "· CP KV "));
    steps.push_back(r.step_time_s);
  }
  CHECK(steps[0] != steps[2]);
}

TEST_CASE("run: an uneven default layer split is named in the layout line", "[report]") {
  // 32 layers on pp 3: 10 each and a remainder of 2, one each to stages 1 and 2 (partition.h),
  // which the user did not write down: the line says what was simulated. pp 4 divides evenly.
  Scenario s = llama8b();
  s.layout.pp = 3;
  s.layout.dp = 1;
  s.cluster.gpus_per_node = 3;
  const StepReport r = make_report(simulate(s));
  CHECK(r.uneven_layers == std::vector<int>{10, 11, 11});
  CHECK(report_to_json(r)["layout"]["uneven_layers"] == nlohmann::json({10, 11, 11}));
  CHECK(report_to_json(make_report(simulate(llama8b())))["layout"]["uneven_layers"].is_null());
  CHECK_THAT(format_report(r),
             Catch::Contains("· pp 3 · layers per stage 10/11/11 (the even split's remainder on "
                             "stages 1, 2, …) · 64 micro-batches"));
  CHECK(make_report(simulate(llama8b())).uneven_layers.empty());
}

TEST_CASE("run: a split that counts a multi-token prediction module names the model's layers",
          "[report]") {
  // 32 layers, the embedding, the loss and one module counted: 35 slots, 7 a stage on pp 5.
  // Stage 0: the embedding and 6 layers; 1–3: 7 layers; 4: 5 layers, the module and the loss.
  // The line lists the model's layers, 6 + 7 + 7 + 7 + 5 = 32 (not 6/7/7/7/6, 33 with the
  // module read as a layer).
  Scenario s = llama8b();
  s.model->mtp_layers = 1;
  s.layout.split.embedding = s.layout.split.loss = s.layout.split.mtp = true;
  s.layout.pp = 5;
  s.layout.dp = 1;
  s.cluster.gpus_per_node = 5;
  const StepReport r = make_report(simulate(s));
  CHECK(r.uneven_layers == std::vector<int>{6, 7, 7, 7, 5});
  CHECK_THAT(format_report(r), Catch::Contains("· layers per stage 6/7/7/7/5 ·"));
}

TEST_CASE("run: overlapping steps say so, with one step's own time", "[report]") {
  // ZB-H2, p = 4, m = 8, F = I = W = 1 ms: period 24 ms, one step alone 27 ms (step_report_test).
  const Scenario s = test::yaml(
      "parallelism: {pp: 4}\ntraining: {microbatches: 8, optimizer_post_validation: true}\n"
      "schedule: zb-h2\ncosts: {forward: 1ms, backward_input: 1ms, backward_weight: 1ms}\n");
  const StepReport r = make_report(simulate(s));
  const std::string text = format_report(r);
  CHECK_THAT(text, Catch::Contains("step time            24.000 ms") &&
                       Catch::Contains("optimizer post-validation") &&
                       Catch::Contains("one step alone: 27.000 ms"));
  const auto j = report_to_json(r);
  CHECK(j["steps_overlap"] == true);
  CHECK(j["step_time_s"].get<double>() == Approx(24e-3));
  CHECK(j["one_step_s"].get<double>() == Approx(27e-3));
  // The critical path is one step's chain (27 ms of it), not the 24 ms period: said so.
  const double chain = r.critical.compute_s + r.critical.pp_s + r.critical.optimizer_s +
                       r.critical.waiting_s + r.critical.tp_s + r.critical.dp_s;
  CHECK(chain == Approx(27e-3));
  CHECK_THAT(text, Catch::Contains("tasks; one step alone, as steps overlap)"));
  CHECK_THAT(format_report(make_report(simulate(test::pipeline(4, 8, 1, 2)))),
             !Catch::Contains("one step alone, as steps overlap"));
}

TEST_CASE("run: an fp8 run's MFU says which peak it is of", "[report][fp8]") {
  // Model FLOPs over the 16-bit peak, for FP8 too: the line says so (bf16 runs do not).
  Scenario s = llama8b();
  const std::string bf16 = format_report(make_report(simulate(s)));
  s.training.precision = Precision::FP8;
  const StepReport r = make_report(simulate(s));
  const std::string fp8 = format_report(r);
  CHECK_THAT(fp8, Catch::Contains(" of the 16-bit peak\n"));
  CHECK_THAT(bf16, !Catch::Contains("of the 16-bit peak"));
  REQUIRE(r.mfu);
  CHECK(*r.mfu == Approx(r.tflops_per_gpu * 1e12 / 989e12));
}

TEST_CASE("report json: the training echo is the scenario schema's training keys") {
  const Scenario s = test::yaml(
      "model: llama-3.1-8b\n"
      "training: {seq_len: 2048, global_batch_size: 8, recompute: full, recompute_layers: 2, "
      "attention: unfused, precision: fp16}\n"
      "cluster: {gpu: h100-sxm, gpus_per_node: 4}\nparallelism: {pp: 4}\n");
  const nlohmann::json j = report_to_json(make_report(simulate(s, {"", true})));
  const nlohmann::json& t = j.at("training");
  // Every training key with a value in a Scenario, and no other (not `microbatches`, which the
  // global batch already says). The optimizer is one of them since `sgd` changes the answer.
  std::vector<std::string> keys;
  for (const auto& [key, v] : values_under("training", s))
    keys.emplace_back(key->path.substr(std::string_view("training.").size()));
  CHECK(keys.size() == t.size());
  for (const std::string& k : keys) CHECK(t.contains(k));
  CHECK_FALSE(t.contains("microbatches"));
  CHECK(t.at("optimizer") == "adam");
  CHECK(t.at("seq_len") == 2048);
  CHECK(t.at("global_batch_size") == 8);
  CHECK(t.at("recompute") == "full");
  CHECK(t.at("recompute_layers") == 2);
  CHECK(t.at("attention") == "unfused");
  CHECK(t.at("grad_reduce_dtype") == "fp16");  // the training precision without fp32 buffers
  CHECK(t.at("fused_optimizer") == true);
  // recompute_layers 0 is "every layer": null.
  const nlohmann::json every =
      report_to_json(make_report(simulate(test::yaml("model: llama-3.1-8b\n"
                                                     "training: {seq_len: 512, "
                                                     "global_batch_size: 1, recompute: full}\n"
                                                     "cluster: {gpu: h100-sxm, gpus_per_node: "
                                                     "1}\n"),
                                          {"", true})));
  CHECK(every.at("training").at("recompute_layers").is_null());
}

TEST_CASE("run and memory: the model's parameter count, and a MoE's active count",
          "[report][moe]") {
  // Llama-3.1-8B: 32 layers of 218,103,808 plus two 128256 × 4096 embeddings = 8.03 B.
  const Timeline dense = simulate(llama8b(), {"", true});
  CHECK_THAT(format_report(make_report(dense)),
             Catch::Contains("model      llama-3.1-8b · 8.03 B parameters\n"));
  CHECK_THAT(format_memory(make_memory_report(dense)),
             Catch::StartsWith("model llama-3.1-8b · 8.03 B parameters\n"));
  // Mixtral-8x7B (hf_config_test derives 46,702,526,464 and 12,879,659,008).
  const Timeline moe = simulate(test::yaml("model: mixtral-8x7b\n"
                                           "cluster: {gpu: h100-sxm, gpus_per_node: 8}\n"
                                           "parallelism: {tp: 2, pp: 4}\n"
                                           "training: {seq_len: 4096, global_batch_size: 8}\n"),
                                {"", true});
  CHECK_THAT(format_report(make_report(moe)),
             Catch::Contains("mixtral-8x7b · 46.7 B parameters, 12.9 B active per token"));
  const auto j = report_to_json(make_report(moe));
  CHECK(j["model"]["parameters"] == 46'702'526'464LL);
  CHECK(j["model"]["active_parameters"] == 12'879'659'008LL);
  CHECK(memory_to_json(make_memory_report(moe))["model"]["name"] == "mixtral-8x7b");
  // The model's keys as resolved from the preset: its shape and kind (Mixtral: 32 layers of
  // h 4096, 8 KV heads, no biases), its experts; the same object in `memory --json`.
  CHECK(j["model"]["layers"] == 32);
  CHECK(j["model"]["hidden"] == 4096);
  CHECK(j["model"]["kv_heads"] == 8);
  CHECK(j["model"]["mlp"] == "swiglu");
  CHECK(j["model"]["linear_bias"] == false);
  CHECK(j["model"]["moe"]["experts"] == 8);
  CHECK(j["model"]["moe"]["ffn_hidden"] == 14336);
  CHECK_FALSE(j["model"].contains("mla"));
  CHECK(memory_to_json(make_memory_report(moe))["model"] == j["model"]);
  // Latent attention's widths (DeepSeek-V3's preset) in an object of their own.
  ModelSpec v3 = *find_model_preset("deepseek-v3");
  v3.linear_bias = true;
  const auto mla = model_to_json(v3);
  CHECK(mla["mla"]["kv_rank"] == 512);
  CHECK(mla["mla"]["rope_head_dim"] == 64);
  CHECK(mla["linear_bias"] == true);
  CHECK_FALSE(mla.contains("head_dim"));
  CHECK_FALSE(mla.contains("kv_heads"));
  CHECK(mla["moe"]["dense_layers"] == 3);
  // A costs-only study has no model to count.
  CHECK(report_to_json(make_report(simulate(test::pipeline(2, 4, 1, 2), {"", true})))["model"]
            .is_null());
}

TEST_CASE("check: the errors summarized per GPU preset, in name order", "[report][accuracy]") {
  // h100 −10 % and −20 %, a100 +4 % and −2 %: a100 mean |e| 3 %, max 4 %, signed +1 %; h100
  // mean |e| 15 %, max 20 %, signed −15 %.
  auto checked = [](const std::string& gpu, double error) {
    CheckedCase c = checked_case(gpu + "-case", error);
    c.step.gpu = gpu;
    return c;
  };
  const std::vector<CheckedCase> cases{checked("h100-sxm", -0.10), checked("a100-sxm-80gb", 0.04),
                                       checked("h100-sxm", -0.20), checked("a100-sxm-80gb", -0.02)};
  const std::vector<GpuAccuracy> by = summarize_by_gpu(cases);
  REQUIRE(by.size() == 2);
  CHECK(by[0].gpu == "a100-sxm-80gb");
  CHECK(by[0].summary.cases == 2);
  CHECK(by[0].summary.mean_abs_error == Approx(0.03));
  CHECK(by[0].summary.max_abs_error == Approx(0.04));
  CHECK(by[0].summary.mean_error == Approx(0.01));
  CHECK(by[1].gpu == "h100-sxm");
  CHECK(by[1].summary.mean_abs_error == Approx(0.15));
  CHECK(by[1].summary.max_abs_error == Approx(0.20));
  CHECK(by[1].summary.mean_error == Approx(-0.15));

  const std::string text = format_check(cases, false);
  CHECK_THAT(text, Catch::Contains("by GPU"));
  CHECK_THAT(text, Catch::Contains("-15.0%"));
  const std::string md = format_check(cases, true);
  CHECK_THAT(md, Catch::Contains("| h100-sxm | 2 | 15.0 % | 20.0 % | -15.0 % |"));
  const nlohmann::json j = check_to_json(cases);
  REQUIRE(j["by_gpu"].size() == 2);
  CHECK(j["by_gpu"][1]["gpu"] == "h100-sxm");
  CHECK(j["by_gpu"][1]["mean_error"].get<double>() == Approx(-0.15));
  // One kind of GPU: its summary is the overall one, not repeated as a table.
  const std::vector<CheckedCase> one{cases[0], cases[2]};
  CHECK_THAT(format_check(one, false), !Catch::Contains("by GPU"));
  CHECK_THAT(format_check(one, true), !Catch::Contains("| GPU |"));
}

TEST_CASE("check: the memory peaks logged, summarized apart from the step times",
          "[report][accuracy][memory]") {
  // Two cases of three log a peak: 100 GB predicted 104 (+4 %), 50 GB predicted 49 (−2 %):
  // mean |error| 3 %, max 4 %, mean signed +1 %; the third counts for step time only.
  std::vector<CheckedCase> cases{checked_case("a", -0.1), checked_case("b", 0.1),
                                 checked_case("c", 0.0)};
  cases[0].memory = MemoryCheck{100e9, 104e9};
  cases[1].memory = MemoryCheck{50e9, 49e9};
  const AccuracySummary m = summarize_memory(cases);
  CHECK(m.cases == 2);
  CHECK(m.mean_abs_error == Approx(0.03));
  CHECK(m.max_abs_error == Approx(0.04));
  CHECK(m.mean_error == Approx(0.01));
  CHECK_THAT(format_check(cases, false),
             Catch::Contains("memory: 2 cases with a logged peak") &&
                 Catch::Contains("mean |error| 3.0% · max |error| 4.0% · mean signed +1.0%"));
  CHECK_THAT(format_check(cases, true), Catch::Contains("memory: 2 cases"));
  const nlohmann::json j = check_to_json(cases);
  CHECK(j["cases"][0]["memory"]["error"].get<double>() == Approx(0.04));
  CHECK(j["cases"][2]["memory"].is_null());
  CHECK(j["memory_summary"]["cases"] == 2);
  // No case logs one: no line.
  CHECK_THAT(format_check({checked_case("c", 0.0)}, false), !Catch::Contains("memory:"));
}

TEST_CASE("check: the errors summarized per training.runtime, where the cases mix them",
          "[report][accuracy]") {
  // Eager −10 % and −20 %, compiled +4 %, fused −6 %: eager mean |e| 15 %, signed −15 %;
  // compiled 4 %, +4 %; fused 6 %, −6 %.
  auto checked = [](const std::string& name, Runtime runtime, double error) {
    CheckedCase c = checked_case(name, error);
    TrainingSpec t;
    t.runtime = runtime;
    c.step.training = t;
    return c;
  };
  const std::vector<CheckedCase> cases{
      checked("a", Runtime::Eager, -0.10), checked("b", Runtime::Compiled, 0.04),
      checked("c", Runtime::Eager, -0.20), checked("d", Runtime::Fused, -0.06)};
  const auto by = summarize_by_runtime(cases);
  REQUIRE(by.size() == 3);
  CHECK(by[0].first == "compiled");
  CHECK(by[0].second.cases == 1);
  CHECK(by[0].second.mean_error == Approx(0.04));
  CHECK(by[1].first == "eager");
  CHECK(by[1].second.cases == 2);
  CHECK(by[1].second.mean_abs_error == Approx(0.15));
  CHECK(by[1].second.mean_error == Approx(-0.15));
  CHECK(by[2].first == "fused");
  CHECK(by[2].second.cases == 1);
  CHECK(by[2].second.mean_abs_error == Approx(0.06));
  const std::string text = format_check(cases, false);
  CHECK_THAT(text, Catch::Contains("by runtime"));
  CHECK_THAT(text, Catch::Matches("(.|\n)*  eager +2 +15\\.0% +20\\.0% +-15\\.0%(.|\n)*"));
  // The README's Markdown has the same table.
  CHECK_THAT(format_check(cases, true),
             Catch::Contains("| runtime | cases |") &&
                 Catch::Contains("| eager | 2 | 15.0 % | 20.0 % | -15.0 % |") &&
                 Catch::Contains("| fused | 1 | 6.0 % | 6.0 % | -6.0 % |"));
  const nlohmann::json j = check_to_json(cases);
  REQUIRE(j["by_runtime"].size() == 3);
  CHECK(j["by_runtime"][1]["runtime"] == "eager");
  CHECK(j["by_runtime"][1]["mean_error"].get<double>() == Approx(-0.15));
  // One runtime: no table.
  CHECK_THAT(format_check({cases[0], cases[2]}, false), !Catch::Contains("by runtime"));
}

TEST_CASE("check: the errors summarized per tensor-parallel degree, where the cases mix them",
          "[report][accuracy]") {
  // tp 1 at +2 %, tp 2 at −10 % and −30 %, tp 8 at −5 %: tp 2's mean |e| 20 %, max 30 %,
  // signed −20 %; the rows in ascending TP order.
  auto checked = [](const std::string& name, int tp, double error) {
    CheckedCase c = checked_case(name, error);
    c.step.tp = tp;
    return c;
  };
  const std::vector<CheckedCase> cases{checked("a", 2, -0.10), checked("b", 8, -0.05),
                                       checked("c", 1, 0.02), checked("d", 2, -0.30)};
  const auto by = summarize_by_tp(cases);
  REQUIRE(by.size() == 3);
  CHECK(by[0].first == 1);
  CHECK(by[1].first == 2);
  CHECK(by[1].second.cases == 2);
  CHECK(by[1].second.mean_abs_error == Approx(0.20));
  CHECK(by[1].second.max_abs_error == Approx(0.30));
  CHECK(by[1].second.mean_error == Approx(-0.20));
  CHECK(by[2].first == 8);
  const std::string text = format_check(cases, false);
  CHECK_THAT(text, Catch::Matches("(.|\n)*  tp 2 +2 +20\\.0% +30\\.0% +-20\\.0%(.|\n)*"));
  CHECK_THAT(format_check(cases, true),
             Catch::Contains("| TP degree | cases |") &&
                 Catch::Contains("| tp 2 | 2 | 20.0 % | 30.0 % | -20.0 % |") &&
                 Catch::Contains("| tp 8 | 1 | 5.0 % | 5.0 % | -5.0 % |"));
  const nlohmann::json j = check_to_json(cases);
  REQUIRE(j["by_tp"].size() == 3);
  CHECK(j["by_tp"][1]["tp"] == 2);
  CHECK(j["by_tp"][1]["mean_error"].get<double>() == Approx(-0.20));
  // The validation record carries one ACCURACY_TP row per degree.
  const std::string inc = validation_inc(cases);
  CHECK_THAT(inc, Catch::Contains("ACCURACY_TP(2, 2, 0.20000, 0.30000, -0.20000,"));
  CHECK_THAT(inc, Catch::Contains("ACCURACY_TP(8, 1, 0.05000,"));
  // One degree: no table.
  CHECK_THAT(format_check({cases[0], cases[3]}, false), !Catch::Contains("by TP degree"));
}

TEST_CASE("check: the errors summarized by job size, where the cases span sizes",
          "[report][accuracy]") {
  // 8 GPUs at +2 %, 64 at −4 %, 72 and 512 at −6 % and −12 %, 8,192 at −8 %: buckets 1–8,
  // 9–64, 65–512 (mean |e| 9 %, max 12 %, signed −9 %) and 513+, in ascending size.
  auto checked = [](const std::string& name, int gpus, double error) {
    CheckedCase c = checked_case(name, error);
    c.step.gpus = gpus;
    return c;
  };
  const std::vector<CheckedCase> cases{checked("a", 512, -0.12), checked("b", 8, 0.02),
                                       checked("c", 8192, -0.08), checked("d", 72, -0.06),
                                       checked("e", 64, -0.04)};
  const auto by = summarize_by_job_size(cases);
  REQUIRE(by.size() == 4);
  CHECK(by[0].first == "1–8 GPUs");
  CHECK(by[1].first == "9–64");
  CHECK(by[2].first == "65–512");
  CHECK(by[2].second.cases == 2);
  CHECK(by[2].second.mean_abs_error == Approx(0.09));
  CHECK(by[2].second.max_abs_error == Approx(0.12));
  CHECK(by[2].second.mean_error == Approx(-0.09));
  CHECK(by[3].first == "513+");
  CHECK_THAT(format_check(cases, false),
             Catch::Matches("(.|\n)*  65–512 +2 +9\\.0% +12\\.0% +-9\\.0%(.|\n)*"));
  CHECK_THAT(format_check(cases, true),
             Catch::Contains("| job size | cases |") &&
                 Catch::Contains("| 65–512 | 2 | 9.0 % | 12.0 % | -9.0 % |"));
  const nlohmann::json j = check_to_json(cases);
  REQUIRE(j["by_job_size"].size() == 4);
  CHECK(j["by_job_size"][3]["gpus"] == "513+");
  // One size: no table.
  CHECK_THAT(format_check({cases[1]}, false), !Catch::Contains("by job size"));
}

TEST_CASE("check: the layout ranking of runs measured together", "[report][accuracy]") {
  // Series s: "fast" on 8 GPUs predicted 8 / 1000 = 0.008 GPU-s per token, measured 0.010;
  // "slow" on 8 GPUs predicted 8 / 800 = 0.010, measured 0.0105; "big" on 16 GPUs predicted
  // 16 / 1000 = 0.016, measured 0.0102. Measured fast < big < slow, predicted fast < slow <
  // big: (big, slow) is misordered, big measured 0.0105 / 0.0102 − 1 = 2.9 % faster, predicted
  // 0.016 / 0.010 − 1 = 60.0 % slower. 2 of 3 pairs, the fastest picked.
  auto run = [](const std::string& name, const std::string& series, int gpus, double tps,
                double measured_cost) {
    CheckedCase c;
    c.step.scenario_name = name;
    c.step.gpu = "h100-sxm";
    c.step.gpus = gpus;
    c.step.tokens_per_s = tps;
    c.accuracy.metric = "tokens/s";
    c.accuracy.series = series;
    c.accuracy.step_time_error = gpus / tps / measured_cost - 1;
    return c;
  };
  const std::vector<CheckedCase> cases{
      run("fast", "s", 8, 1000, 0.010), run("slow", "s", 8, 800, 0.0105),
      run("big", "s", 16, 1000, 0.0102), run("lone", "", 8, 1000, 0.01)};
  const std::string text = format_check(cases, false);
  CHECK_THAT(text, Catch::Contains("layout ranking"));
  CHECK_THAT(text, Catch::Contains("misordered: big measured 2.9% faster than slow, predicted "
                                   "60.0% slower"));
  CHECK_THAT(text, Catch::Contains("2 of 3 pairs ordered right (66.7%) · fastest picked in 1 of "
                                   "1 series"));
  // Paces (measured / predicted step time): fast 0.010 / 0.008 = 1.25 (error −0.2), slow
  // 0.0105 / 0.010 = 1.05 (−0.047619), big 0.0102 / 0.016 = 0.6375 (+0.568627); the series' is
  // the median, 1.05; mean |error| 0.816246 / 3 = 27.2 %, median 20.0 %. Each at the mean of the
  // other two: fast 0.84375 · 0.8 − 1 = −0.325, slow 0.94375 / 1.05 − 1 = −0.101190, big 1.15 ·
  // 1.568627 − 1 = +0.803922: mean 41.0 %, median 32.5 %.
  CHECK_THAT(text, Catch::Contains("yes  27.2% → 41.0% (×1.050)"));
  CHECK_THAT(text, Catch::Contains("their 3 runs' |error|: mean 27.2%, median 20.0%; at the pace "
                                   "of their series' other runs: mean 41.0%, median 32.5%"));
  CHECK_THAT(format_check(cases, true),
             Catch::Contains("| s | 3 | 2 of 3 | yes | 27.2% → 41.0% (×1.050) |"));
  const nlohmann::json j = check_to_json(cases);
  CHECK(j["cases"][0]["series"] == "s");
  CHECK(j["cases"][3]["series"].is_null());
  REQUIRE(j["ranking"]["series"].size() == 1);
  CHECK(j["ranking"]["series"][0]["runs"][0]["name"] == "fast");
  CHECK(j["ranking"]["series"][0]["runs"][1]["measured_gpu_seconds_per_token"].get<double>() ==
        Approx(0.0102));
  CHECK(j["ranking"]["series"][0]["misordered"][0] == nlohmann::json{"big", "slow"});
  CHECK(j["ranking"]["summary"]["pairs"] == 3);
  CHECK(j["ranking"]["summary"]["ordered_right"] == 2);
  CHECK(j["ranking"]["series"][0]["pace"].get<double>() == Approx(1.05));
  CHECK(j["ranking"]["series"][0]["runs"][0]["paced_step_time_error"].get<double>() ==
        Approx(-0.325));
  CHECK(j["ranking"]["summary"]["runs"] == 3);
  CHECK(j["ranking"]["summary"]["paced_median_abs_error"].get<double>() == Approx(0.325));
  // A series of one run (a name no other case shares): nothing to rank, said as such.
  const std::vector<CheckedCase> lone{run("solo", "only", 8, 1000, 0.01)};
  CHECK_THAT(format_check(lone, false), Catch::Contains("- (one run)"));
  CHECK_THAT(format_check(lone, false),
             Catch::Contains("no series of two or more runs: nothing to rank") &&
                 !Catch::Contains("0 of 0 pairs"));
  CHECK(check_to_json(lone)["ranking"]["series"][0]["fastest_picked"].is_null());
  // The summary's errors over no runs are null, not 0 %.
  CHECK(check_to_json(lone)["ranking"]["summary"]["runs"] == 0);
  CHECK(check_to_json(lone)["ranking"]["summary"]["mean_abs_error"].is_null());
  CHECK(check_to_json(lone)["ranking"]["summary"]["paced_median_abs_error"].is_null());
  // A predicted tie ordered against the measured order is said as such.
  const std::vector<CheckedCase> tie{run("p", "t", 8, 1000, 0.010), run("q", "t", 8, 1000, 0.011)};
  CHECK_THAT(format_check(tie, false),
             Catch::Contains("misordered: p measured 10.0% faster than q, predicted the same"));
  // No series among the cases: no ranking section.
  CHECK_THAT(format_check({cases[3]}, false), !Catch::Contains("layout ranking"));
}

TEST_CASE("run: the report quotes the validation record of its GPU", "[report][accuracy]") {
  // llama8b() runs on H100 SXMs: the text and JSON carry the suite's h100-sxm record
  // (report/validation.h); a GPU no published run used carries the whole suite's, gpu null.
  Scenario s = llama8b();
  const StepReport r = make_report(simulate(s, {"", true}));
  const auto rec = validation_for_gpu("h100-sxm");
  REQUIRE(rec);
  CHECK_THAT(format_report(r),
             Catch::Contains("validation           " + std::to_string(rec->cases) +
                             " published h100-sxm runs"));
  auto j = report_to_json(r);
  CHECK(j["validation"]["gpu"] == "h100-sxm");
  CHECK(j["validation"]["cases"] == rec->cases);
  CHECK(j["validation"]["mean_error"].get<double>() == rec->mean_error);
  CHECK(j["validation"]["p10_error"].get<double>() == rec->p10_error);
  CHECK(j["validation"]["p90_error"].get<double>() == rec->p90_error);
  // The likely measured range: the step over 1 + the 90th and 10th percentiles of the record
  // of the GPU's runs under the same runtime (llama8b() is compiled; the suite holds 10 or
  // more such H100 runs: report/data/validation.inc).
  const auto like = validation_for_runtime("h100-sxm", "compiled");
  REQUIRE(like);
  REQUIRE(like->cases >= kLikelyMinCases);
  CHECK_THAT(format_report(r),
             Catch::Contains("likely measured      " +
                             likely_line("h100-sxm", r.step_time_s, "compiled") + "\n"));
  CHECK_THAT(format_report(r),
             Catch::Contains(fmt::format("the {} published h100-sxm runs under runtime: compiled",
                                         like->cases)));
  CHECK(j["likely_step_time_s"]["low"].get<double>() ==
        Approx(r.step_time_s / (1 + like->p90_error)));
  CHECK(j["likely_step_time_s"]["high"].get<double>() ==
        Approx(r.step_time_s / (1 + like->p10_error)));
  CHECK(j["likely_step_time_s"]["gpu"] == "h100-sxm");
  CHECK(j["likely_step_time_s"]["runtime"] == "compiled");
  s.cluster.gpu.name = "my-gpu";
  s.cluster.gpu.preset.clear();
  j = report_to_json(make_report(simulate(s, {"", true})));
  CHECK(j["validation"]["gpu"].is_null());
  CHECK(j["validation"]["cases"] == validation_overall().cases);
  CHECK(j["likely_step_time_s"]["gpu"].is_null());
  CHECK(j["likely_step_time_s"]["runtime"].is_null());
  CHECK(j["likely_step_time_s"]["cases"] == validation_overall().cases);
}

TEST_CASE("run: a run with tensor parallelism quotes the suite's runs of its TP degree",
          "[report][accuracy]") {
  // llama8b() at tp 2 (pp 4 · dp 1 · tp 2 on the 8 H100s). The suite's tp-2 runs (12 in
  // report/data/validation.inc, every GPU's) have a record of their own: the report quotes it
  // under the GPU's, and the likely measured range comes from it (kLikelyMinCases or more),
  // before the GPU's runs under the same runtime.
  Scenario s = llama8b();
  s.layout.dp = 1;
  s.layout.tp = 2;
  const StepReport r = make_report(simulate(s, {"", true}));
  const auto tp2 = validation_for_tp(2);
  REQUIRE(tp2);
  REQUIRE(tp2->cases >= kLikelyMinCases);
  const std::string text = format_report(r);
  CHECK_THAT(text, Catch::Contains("  at this TP degree  " + tp_validation_line(2) + "\n"));
  CHECK_THAT(text,
             Catch::Contains(fmt::format("{} published runs at tp 2, on any GPU", tp2->cases)));
  CHECK_THAT(text, Catch::Contains("likely measured      " +
                                   likely_line("h100-sxm", r.step_time_s, "compiled", 2) + "\n"));
  auto j = report_to_json(r);
  CHECK(j["validation_tp"]["tp"] == 2);
  CHECK(j["validation_tp"]["cases"] == tp2->cases);
  CHECK(j["validation_tp"]["mean_error"].get<double>() == tp2->mean_error);
  CHECK(j["likely_step_time_s"]["tp"] == 2);
  CHECK(j["likely_step_time_s"]["gpu"].is_null());
  CHECK(j["likely_step_time_s"]["low"].get<double>() ==
        Approx(r.step_time_s / (1 + tp2->p90_error)));
  CHECK(j["likely_step_time_s"]["high"].get<double>() ==
        Approx(r.step_time_s / (1 + tp2->p10_error)));
  // Without a cluster (a costs-only study: no GPU, so no record of any kind) neither the line
  // nor the JSON record, at tp 2 too.
  Scenario costs = test::yaml(
      "parallelism: {pp: 2, tp: 2}\ntraining: {microbatches: 4}\ncosts: {forward: 1ms, backward: "
      "2ms}\n");
  const StepReport bare = make_report(simulate(costs, {"", true}));
  REQUIRE(bare.gpu.empty());
  REQUIRE(bare.tp == 2);
  CHECK_THAT(format_report(bare), !Catch::Contains("at this TP degree"));
  CHECK(report_to_json(bare)["validation_tp"].is_null());
  // At tp 1 neither: no line, a null record, the GPU's basis.
  const StepReport one = make_report(simulate(llama8b(), {"", true}));
  CHECK_THAT(format_report(one), !Catch::Contains("at this TP degree"));
  j = report_to_json(one);
  CHECK(j["validation_tp"].is_null());
  CHECK(j["likely_step_time_s"]["tp"].is_null());
}

TEST_CASE("run: multi-token prediction in the model line, the layout line and the JSON",
          "[report][mtp]") {
  // Llama-3.1-8B with two modules over pp 4: 32 + 2 modules + embedding + loss = 36 slots, 9 a
  // stage. Each module: its 2h × h projection and a layer, 33,554,432 + 218,103,808.
  Scenario s = llama8b();
  s.model->mtp_layers = 2;
  s.layout.split = PipelineSplit{true, true, true, {}};
  const StepReport r = make_report(simulate(s, {"", true}));
  const std::string text = format_report(r);
  CHECK_THAT(text,
             Catch::Contains("8.03 B parameters (+ 503 M in 2 multi-token prediction modules)"));
  CHECK_THAT(text, Catch::Contains("embedding, loss and multi-token prediction counted as layers"));
  const auto j = report_to_json(r);
  CHECK(j["model"]["mtp_layers"] == 2);
  CHECK(j["model"]["mtp_parameters"] == 2 * (33554432LL + 218103808LL));
  CHECK(j["layout"]["pipeline_split"]["mtp"] == true);
  s.layout.split = PipelineSplit{false, true, false, {}};
  CHECK_THAT(format_report(make_report(simulate(s, {"", true}))),
             Catch::Contains("loss counted as a layer"));
  // Four modules alone take four slots (36 over pp 4).
  s.model->mtp_layers = 4;
  s.layout.split = PipelineSplit{false, false, true, {}};
  CHECK_THAT(format_report(make_report(simulate(s, {"", true}))),
             Catch::Contains("· multi-token prediction counted as layers ·"));
}

TEST_CASE("run: layers given per stage in the layout line, the JSON and the stages' times",
          "[report][partition]") {
  // Llama-3.1-8B's 32 layers over pp 4 as 10/8/8/6: the head's stage (LM head 4096 × 128,256,
  // about 2.4 layers of 218 M parameters) holds two fewer, the first two more. Its stages' busy
  // times follow: the first now the busiest, the last lighter than evenly split.
  Scenario s = llama8b();
  const StepReport even = make_report(simulate(s, {"", true}));
  s.layout.split.layers = {10, 8, 8, 6};
  const StepReport r = make_report(simulate(s, {"", true}));
  CHECK_THAT(format_report(r), Catch::Contains("· pp 4 · layers per stage 10/8/8/6 ·"));
  const auto j = report_to_json(r);
  CHECK(j["layout"]["pipeline_split"]["layers"] == nlohmann::json({10, 8, 8, 6}));
  CHECK(report_to_json(even)["layout"]["pipeline_split"]["layers"].is_null());
  CHECK(r.stages[0].compute_busy_s > even.stages[0].compute_busy_s);
  CHECK(r.stages[3].compute_busy_s < even.stages[3].compute_busy_s);
  // Stage 1 keeps its 8 layers: the same busy time within 0.1 % (its compute meets the
  // others' transfers at other times, so contention moves it a little).
  CHECK(r.stages[1].compute_busy_s == Approx(even.stages[1].compute_busy_s).epsilon(1e-3));
}

TEST_CASE("report: an edited preset says so beside its name", "[report]") {
  // Llama-3.1-8B cut to 8 layers on the command line: 8 × 218,112,000 + 2 × 525,336,576 (the
  // untied embedding and head) + 4,096 = 2,795,573,248, shown 2.80 B: not the preset's 8.03 B,
  // and the line says why.
  const Scenario edited = parse_scenario(
      "model: llama-3.1-8b\ncluster: {gpu: h100-sxm, gpus_per_node: 8}\n"
      "parallelism: {pp: 4, dp: 2}\ntraining: {seq_len: 4096, global_batch_size: "
      "64}\n",
      "test.yaml", {"model.layers=8"});
  const Timeline tl = simulate(edited, {"1f1b", true});
  CHECK_THAT(format_report(make_report(tl)),
             Catch::Contains("model      llama-3.1-8b (--set model.layers=8) · 2.80 B parameters"));
  CHECK_THAT(format_memory(make_memory_report(tl)),
             Catch::Contains("model llama-3.1-8b (--set model.layers=8) · 2.80 B parameters"));
  // The file's own model, and a whole preset swapped in, name no edit.
  CHECK_THAT(format_report(make_report(simulate(llama8b(), {"1f1b", true}))),
             Catch::Contains("model      llama-3.1-8b · 8.03 B parameters"));
}
