#include "scenario/scenario_loader.h"

#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "core/error.h"
#include "report/step_report.h"
#include "run/simulate.h"
#include "scenario/validate_scenario.h"

using namespace trainsim;

namespace {

const char* kGood = R"(model: llama-3.2-1b
training:
  seq_len: 1024
  micro_batch_size: 1
  global_batch_size: 16
cluster:
  gpu: h100-sxm
  gpus_per_node: 4
parallelism:
  dp: 2
  pp: 2
)";

std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  try {
    parse_scenario(text, "s.yaml", sets);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("scenario: a valid file loads with presets and derived values", "[scenario]") {
  const Scenario s = parse_scenario(kGood, "s.yaml");
  REQUIRE(s.model);
  CHECK(s.model->hidden == 2048);
  CHECK(s.cluster.gpu.peak_flops == Approx(989e12));
  CHECK(s.layout.world() == 4);
  CHECK(s.microbatches() == 8);  // 16 / (dp 2 × mbs 1)
  CHECK(s.tokens_per_step() == Approx(16.0 * 1024));
}

TEST_CASE("scenario: unknown key names file, line, key and the allowed keys", "[scenario]") {
  const std::string e = error_of(std::string(kGood) + "paralelism: {pp: 2}\n");
  CHECK_THAT(e, Catch::StartsWith("ScenarioError: s.yaml:12: paralelism: unknown key"));
  CHECK_THAT(e, Catch::Contains("parallelism"));
  // A slip of the keyboard names the key meant; a key of another section names that section's.
  CHECK_THAT(e, Catch::Contains("unknown key \"paralelism\" (did you mean parallelism?)"));
  Scenario s = parse_scenario(kGood, "s.yaml");
  CHECK_THROWS_WITH(set_value(s, "training.seq_lenn=4", "--set training.seq_lenn=4"),
                    Catch::Contains("unknown key \"seq_lenn\" (did you mean training.seq_len?)"));
  CHECK_THROWS_WITH(set_value(s, "training.tp=2", "--set training.tp=2"),
                    Catch::Contains("unknown key \"tp\" (did you mean parallelism.tp?)"));
  // A misspelt value of a key with a list of values, the same way.
  CHECK_THROWS_WITH(
      set_value(s, "training.recompute=selectve", "--set training.recompute=selectve"),
      Catch::Contains("expected one of none, selective, full, got \"selectve\" "
                      "(did you mean selective?)"));
  // Nothing near: no guess.
  CHECK_THROWS_WITH(set_value(s, "training.frobnicate=2", "here"),
                    !Catch::Contains("did you mean"));
  // Another tool's name for a value is refused, and answered with ours: Megatron-core's p2p
  // is ring here, Hugging Face's bfloat16 is bf16, "cuda_graphs" is the compiled runtime; the
  // case does not matter ("FA2").
  for (const auto& [edit, answer] : std::vector<std::pair<std::string, std::string>>{
           {"parallelism.cp_comm=p2p", "got \"p2p\" (did you mean ring?)"},
           {"training.precision=bfloat16", "(did you mean bf16?)"},
           {"training.runtime=cuda_graphs", "(did you mean compiled?)"},
           {"training.attention=FA2", "(did you mean flash2?)"},
           {"training.attention=sdpa",
            "(did you mean flash2 or cudnn, the kernels PyTorch SDPA runs?)"}})
    CHECK_THROWS_WITH(set_value(s, edit, "here"), Catch::Contains(answer));
}

TEST_CASE("scenario: a share is a number or a percentage", "[scenario]") {
  Scenario s = parse_scenario(kGood, "s.yaml");
  set_value(s, "memory.fragmentation=11.5%", "--set memory.fragmentation=11.5%");
  CHECK(s.memory.fragmentation == Approx(0.115));
  set_value(s, "contention.compute_slowdown=0.3", "here");
  CHECK(s.contention.compute_slowdown == Approx(0.3));
  set_value(s, "training.dropout=10%", "here");
  CHECK(s.training.dropout == Approx(0.1));
  // The range holds in either form: 60 % of the device is past fragmentation's 0.5.
  CHECK_THROWS_WITH(set_value(s, "memory.fragmentation=60%", "here"),
                    Catch::Contains("expected a number in [0, 0.5] or a percentage, 0–50%, got "
                                    "\"60%\""));
  CHECK_THROWS_WITH(set_value(s, "memory.fragmentation=abc%", "here"),
                    Catch::Contains("got \"abc%\""));
  // A count is no share: a percentage of layers is refused as any other text.
  CHECK_THROWS_WITH(set_value(s, "model.layers=50%", "here"), !Catch::Contains("percentage"));
}

TEST_CASE("scenario: a rule an edit breaks names the file's key and the edits", "[scenario]") {
  // global_batch_size 16 over dp 2 × micro_batch_size 3 = 6: the rule names the batch's line in
  // the file, and the --set that broke it.
  const std::string e = error_of(kGood, {"training.micro_batch_size=3"});
  CHECK_THAT(e, Catch::StartsWith("ScenarioError: s.yaml:5: training.global_batch_size: "));
  CHECK_THAT(e, Catch::EndsWith("(the scenario as edited by --set training.micro_batch_size=3)"));
  // Without edits, or where the error names the edit itself, no note.
  CHECK_THAT(error_of(std::string(kGood) + "schedule: nope\n"), !Catch::Contains("as edited by"));
  CHECK_THAT(error_of(kGood, {"parallelism.pp=0"}),
             Catch::StartsWith("ScenarioError: --set parallelism.pp=0:") &&
                 !Catch::Contains("as edited by"));
}

TEST_CASE("scenario: aliases are checked once, not once per use", "[scenario]") {
  // An alias is its anchor's node: twelve lines of lists of ten aliases of the line before
  // stand for 10^12 nodes. The key check walks each anchored list once (a walk of the expanded
  // tree would not end), then names the unknown key as usual.
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 12; ++i) {
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) bomb += (j ? ", *a" : "*a") + std::to_string(i - 1);
    bomb += "]\n";
  }
  CHECK_THAT(error_of(bomb + kGood), Catch::StartsWith("ScenarioError: s.yaml:1: a0: unknown key"));
  // A map behind an alias is still checked: its duplicated key is found where it was written.
  CHECK_THAT(error_of(std::string(kGood) + "slowdown:\n  - &s {rank: 0, rank: 1}\n  - *s\n"),
             Catch::Contains("s.yaml:13: duplicate key \"rank\" (first on line 13)"));
}

TEST_CASE("scenario: wrong type names the value and what is expected", "[scenario]") {
  std::string text = kGood;
  text.replace(text.find("dp: 2"), 5, "dp: two");
  CHECK_THAT(error_of(text),
             Catch::Contains(
                 "s.yaml:10: parallelism.dp: expected an integer in [1, 1048576], got \"two\""));
}

TEST_CASE("scenario: an integer below its minimum is rejected", "[scenario]") {
  CHECK_THAT(
      error_of(kGood, {"parallelism.pp=0"}),
      Catch::Contains(
          "--set parallelism.pp=0: parallelism.pp: expected an integer in [1, 1048576], got 0"));
}

TEST_CASE("scenario: --set with no value is refused, not read as null", "[scenario]") {
  // `--set parallelism.zero= 3` (a shell slip) once dropped the key and ran at its default.
  CHECK_THAT(error_of(kGood, {"parallelism.pp="}),
             Catch::Contains("--set parallelism.pp=: parallelism.pp: no value after '='; give one, "
                             "or --set parallelism.pp=null to remove the key"));
  CHECK_THAT(error_of(kGood, {"parallelism.pp=  "}), Catch::Contains("no value after '='"));
  // An explicit null still removes a key: pp falls back to its default, 1, and dp × pp no
  // longer covers the file's GPUs.
  CHECK_THAT(error_of(kGood, {"parallelism.pp=null"}),
             Catch::Contains("must equal") && !Catch::Contains("no value after"));
}

TEST_CASE("scenario: a quantity without unit is rejected", "[scenario]") {
  const std::string e = error_of(std::string(kGood) + "pricing: {gpu_hour: 2}\n",
                                 {"cluster.intra_node.bandwidth=450"});
  CHECK_THAT(e, Catch::Contains("cluster.intra_node.bandwidth") && Catch::Contains("has no unit"));
}

TEST_CASE("scenario: a GPU count mismatch shows the arithmetic", "[scenario]") {
  CHECK_THAT(error_of(kGood, {"parallelism.dp=4"}),
             Catch::Contains("dp × tp × pp = 4 × 1 × 2 = 8 must equal the GPU count") &&
                 Catch::Contains("4 × 1 = 4"));
}

TEST_CASE("scenario: batch not divisible by dp × micro-batch", "[scenario]") {
  CHECK_THAT(error_of(kGood, {"training.global_batch_size=15"}),
             Catch::Contains("training.global_batch_size: global_batch_size 15 must be a multiple "
                             "of dp × micro_batch_size"));
}

TEST_CASE("scenario: unknown presets list the presets", "[scenario]") {
  CHECK_THAT(error_of(kGood, {"model=llama-9"}),
             Catch::Contains("model: unknown model preset") && Catch::Contains("llama-3.1-70b"));
  CHECK_THAT(error_of(kGood, {"cluster.gpu=mi300x"}),
             Catch::Contains("cluster.gpu: unknown GPU preset") && Catch::Contains("h100-pcie"));
}

TEST_CASE("scenario: an enum value outside its choices lists them", "[scenario]") {
  CHECK_THAT(error_of(kGood, {"training.recompute=some"}),
             Catch::Contains("expected one of none, selective, full"));
  CHECK_THAT(error_of(kGood, {"cluster.host_cpu=arm"}),
             Catch::Contains("cluster.host_cpu: expected one of preset, x86, grace, got \"arm\""));
  // The preset's host unless named: Grace on gb200 and gb300, x86 elsewhere.
  CHECK(parse_scenario(kGood, "s.yaml", {}).cluster.host() == HostCpu::X86);
  CHECK(parse_scenario(kGood, "s.yaml", {"cluster.host_cpu=grace"}).cluster.host() ==
        HostCpu::Grace);
}

TEST_CASE("scenario: training.eager_ops takes a subset of the ops it names", "[scenario]") {
  const Scenario s = parse_scenario(kGood, "s.yaml", {"training.eager_ops=swiglu, rope"});
  REQUIRE(s.training.eager_ops);
  CHECK(*s.training.eager_ops == EagerOps{.swiglu = true, .rope = true});
  CHECK(*parse_scenario(kGood, "s.yaml", {"training.eager_ops=bias,swiglu"}).training.eager_ops ==
        EagerOps{.swiglu = true, .bias = true});
  CHECK(*parse_scenario(kGood, "s.yaml", {"training.eager_ops=qkv_split"}).training.eager_ops ==
        EagerOps{.qkv_split = true});
  CHECK(*parse_scenario(kGood, "s.yaml", {"training.eager_ops=rope,rope_interleave"})
             .training.eager_ops == EagerOps{.rope = true, .rope_interleave = true});
  CHECK(*parse_scenario(kGood, "s.yaml", {"training.eager_ops=norm,qkv_cat"}).training.eager_ops ==
        EagerOps{.norm = true, .qkv_cat = true});
  CHECK(*parse_scenario(kGood, "s.yaml", {"training.eager_ops=swiglu,gate_up_split"})
             .training.eager_ops == EagerOps{.swiglu = true, .gate_up_split = true});
  // Unset, it follows the runtime.
  // (A linear layer's bias only when named: torch.nn.Linear adds it in cuBLASLt's epilogue.)
  CHECK(eager_ops(parse_scenario(kGood, "s.yaml", {"training.runtime=eager"}).training) ==
        EagerOps{.norm = true, .swiglu = true, .rope = true});
  CHECK(eager_ops(parse_scenario(kGood, "s.yaml", {}).training) == EagerOps{});
  for (const char* bad :
       {"training.eager_ops=gelu", "training.eager_ops=rope,rope", "training.eager_ops=none,norm",
        "training.eager_ops=bias,", "training.eager_ops=qkv", "training.eager_ops=qkv_cat,qkv_cat"})
    CHECK_THAT(error_of(kGood, {bad}),
               Catch::Contains("training.eager_ops: expected `none` or a comma-separated subset "
                               "of norm, swiglu, rope, bias, qkv_split, qkv_cat, rope_interleave, "
                               "qkv_layout, gate_up_split"));
}

TEST_CASE("scenario: training.recompute_modules names Megatron-core's selective modules",
          "[scenario][recompute]") {
  const std::string sel = "training.recompute=selective";
  // Unset: the attention core alone under selective recompute, nothing otherwise.
  CHECK(recompute_modules(parse_scenario(kGood, "s.yaml", {sel}).training) == RecomputeModules{});
  CHECK(recompute_modules(parse_scenario(kGood, "s.yaml", {}).training) ==
        RecomputeModules{.core_attn = false});
  const Scenario s =
      parse_scenario(kGood, "s.yaml", {sel, "training.recompute_modules=layernorm, mlp"});
  CHECK(recompute_modules(s.training) ==
        RecomputeModules{.core_attn = false, .layernorm = true, .mlp = true});
  CHECK(recompute_modules(
            parse_scenario(kGood, "s.yaml", {sel, "training.recompute_modules=none"}).training) ==
        RecomputeModules{.core_attn = false});
  for (const char* bad :
       {"training.recompute_modules=attention", "training.recompute_modules=mlp,mlp",
        "training.recompute_modules=none,mlp", "training.recompute_modules=mlp,"})
    CHECK_THAT(error_of(kGood, {sel, bad}),
               Catch::Contains("training.recompute_modules: expected `none` or a comma-separated "
                               "subset of core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, "
                               "shared_experts"));
}

TEST_CASE("scenario: training.expert_gemms names how the experts' GEMMs run", "[scenario]") {
  CHECK(parse_scenario(kGood, "s.yaml", {}).training.expert_gemms == ExpertGemms::MultiStream);
  CHECK(
      parse_scenario(kGood, "s.yaml", {"training.expert_gemms=sequential"}).training.expert_gemms ==
      ExpertGemms::Sequential);
  CHECK(parse_scenario(kGood, "s.yaml", {"training.expert_gemms=grouped"}).training.expert_gemms ==
        ExpertGemms::Grouped);
  CHECK_THAT(error_of(kGood, {"training.expert_gemms=fused"}),
             Catch::Contains("training.expert_gemms") && Catch::Contains("multi_stream") &&
                 Catch::Contains("grouped") && Catch::Contains("sequential"));
}

TEST_CASE("scenario: model.linear_bias is a bool, off by default", "[scenario]") {
  CHECK_FALSE(parse_scenario(kGood, "s.yaml", {}).model->linear_bias);
  CHECK(parse_scenario(kGood, "s.yaml", {"model.linear_bias=true"}).model->linear_bias);
  CHECK_THAT(error_of(kGood, {"model.linear_bias=yes please"}),
             Catch::Contains("model.linear_bias"));
}

TEST_CASE("scenario: parallelism.rank_order takes a permutation of tp, dp, pp", "[scenario]") {
  CHECK(parse_scenario(kGood, "s.yaml", {"parallelism.rank_order=dp, tp, pp"}).layout.order ==
        std::array<Axis, 3>{Axis::DP, Axis::TP, Axis::PP});
  for (const char* bad : {"parallelism.rank_order=tp,dp", "parallelism.rank_order=tp,tp,pp",
                          "parallelism.rank_order=tp,dp,pp,"})
    CHECK_THAT(error_of(kGood, {bad}),
               Catch::Contains("parallelism.rank_order: expected a permutation of \"tp,dp,pp\""));
}

TEST_CASE("scenario: the kernel and optimizer keys", "[scenario]") {
  const Scenario s = parse_scenario(kGood, "s.yaml",
                                    {"training.attention=triton", "training.fused_optimizer=false",
                                     "training.grad_clipping=false", "training.runtime=eager",
                                     "training.optimizer_post_validation=true"});
  CHECK(s.training.attention == AttentionKernel::Triton);
  CHECK(s.training.runtime == Runtime::Eager);
  CHECK_FALSE(s.training.fused_optimizer);
  CHECK_FALSE(s.training.grad_clipping);
  CHECK(s.training.optimizer_post_validation);
  // Defaults: FlashAttention-2, a fused optimizer, clipping on.
  const Scenario d = parse_scenario(kGood, "s.yaml");
  CHECK(d.training.attention == AttentionKernel::Flash2);
  // Each name maps to its own kernel (a choice's index is its enum's value).
  CHECK(parse_scenario(kGood, "s.yaml", {"training.attention=cudnn"}).training.attention ==
        AttentionKernel::Cudnn);
  CHECK(parse_scenario(kGood, "s.yaml", {"training.attention=unfused"}).training.attention ==
        AttentionKernel::Unfused);
  CHECK(d.training.fused_optimizer);
  CHECK(d.training.grad_clipping);
  CHECK_FALSE(d.training.optimizer_post_validation);
  CHECK(d.training.runtime == Runtime::Compiled);
  CHECK(parse_scenario(kGood, "s.yaml", {"training.runtime=fused"}).training.runtime ==
        Runtime::Fused);
  CHECK_THAT(error_of(kGood, {"training.runtime=jit"}),
             Catch::Contains("training.runtime") && Catch::Contains("compiled, eager, fused"));
  CHECK_THAT(error_of(kGood, {"training.attention=flash4"}),
             Catch::Contains("training.attention") &&
                 Catch::Contains("flash1, flash2, flash3, triton, cudnn, unfused"));
  CHECK_THAT(error_of(kGood, {"training.fused_optimizer=maybe"}),
             Catch::Contains("training.fused_optimizer"));
  CHECK_THAT(error_of(kGood, {"training.optimizer_post_validation=1.5"}),
             Catch::Contains("training.optimizer_post_validation"));
}

TEST_CASE("scenario: training.grad_reduce_dtype takes fp32 or the training precision",
          "[scenario]") {
  CHECK(parse_scenario(kGood, "s.yaml").training.grad_reduce == GradReduce::Default);
  CHECK(parse_scenario(kGood, "s.yaml", {"training.grad_reduce_dtype=fp32"}).training.grad_reduce ==
        GradReduce::FP32);
  CHECK(parse_scenario(kGood, "s.yaml", {"training.grad_reduce_dtype=bf16"}).training.grad_reduce ==
        GradReduce::Half);
  // fp16 is not the training precision (bf16): a 16-bit reduction runs in bf16 here.
  CHECK_THAT(error_of(kGood, {"training.grad_reduce_dtype=fp16"}),
             Catch::Contains("training.grad_reduce_dtype") && Catch::Contains("fp32, bf16"));
  CHECK_THAT(error_of(kGood, {"training.grad_reduce_dtype=[fp32]"}),
             Catch::Contains("training.grad_reduce_dtype"));
}

TEST_CASE("scenario: invalid YAML reports the line", "[scenario]") {
  CHECK_THAT(error_of("model: [unclosed\ntraining: {}\n"), Catch::Contains("s.yaml:") &&
                                                               Catch::Contains("invalid YAML") &&
                                                               !Catch::Contains("tab"));
  // A tab before a key reads to yaml-cpp as "illegal map value": the tab is named.
  CHECK_THAT(error_of("model: llama-3.2-1b\ntraining:\n\tseq_len: 8\n  global_batch_size: 1\n"),
             Catch::Contains("s.yaml:3: invalid YAML: illegal map value (line 3 indents with a "
                             "tab: YAML indents with spaces)"));
}

TEST_CASE("scenario: a model needs a cluster, and no model needs costs", "[scenario]") {
  CHECK_THAT(error_of("model: llama-3.2-1b\ntraining: {seq_len: 8, global_batch_size: 1}\n"),
             Catch::Contains("cluster: required when a model is given"));
  CHECK_THAT(error_of("training: {microbatches: 4}\n"), Catch::Contains("model: required"));
}

TEST_CASE("scenario: a model too small for the pipeline is rejected", "[scenario]") {
  CHECK_THAT(error_of(kGood, {"parallelism.pp=4", "parallelism.dp=1", "parallelism.vpp=8"}),
             Catch::Contains("pp × vpp = 4 × 8 = 32 stages exceed the model's 16 layers"));
}

TEST_CASE("scenario: a malformed --set is rejected", "[scenario]") {
  CHECK_THAT(error_of(kGood, {"parallelism.pp"}), Catch::Contains("expected key.path=value"));
  CHECK_THAT(error_of(kGood, {"training.seq_len.x=4"}),
             Catch::Contains("\"seq_len\" is \"1024\", not a map"));
}

TEST_CASE("scenario: --set widens preset shorthands to override one key", "[scenario]") {
  // `model: llama-3.2-1b` becomes {preset: llama-3.2-1b, layers: 8}; same for cluster.gpu.
  const Scenario s = parse_scenario(kGood, "s.yaml", {"model.layers=8", "cluster.gpu.memory=40GB"});
  CHECK(s.model->layers == 8);
  CHECK(s.model->hidden == 2048);
  CHECK(s.cluster.gpu.memory == Approx(40e9));
  CHECK(s.cluster.gpu.peak_flops == Approx(989e12));
}

TEST_CASE("scenario: a schedule that cannot run with p, m, v names the schedule key",
          "[scenario]") {
  const Scenario s = parse_scenario(kGood, "s.yaml", {"parallelism.vpp=2"});
  // No schedule key in the file: the message names the file and the key.
  CHECK_THROWS_WITH(simulate(s),
                    Catch::Contains("s.yaml: schedule: 1f1b runs one chunk per rank") &&
                        Catch::Contains("got vpp = 2"));
  const Scenario t =
      parse_scenario(std::string(kGood) + "schedule: afab\n", "s.yaml", {"parallelism.vpp=2"});
  CHECK_THROWS_WITH(simulate(t), Catch::Contains("s.yaml:12: schedule: afab runs one chunk"));
  const Scenario u = parse_scenario(kGood, "s.yaml", {"schedule=zigzag"});
  CHECK_THROWS_WITH(simulate(u), Catch::Contains("unknown schedule \"zigzag\""));
  // An option's error at the option's own line (13: kGood has 11), or at its --set; an override
  // of the schedule's name is named as the place of what the name gets wrong.
  const std::string zb = std::string(kGood) + "schedule:\n  name: zb-auto\n  memory_limit: 0.5\n";
  CHECK_THROWS_WITH(simulate(parse_scenario(zb, "s.yaml")),
                    Catch::Contains("s.yaml:14: schedule.memory_limit: zb-auto needs "
                                    "memory_limit >= 1"));
  CHECK_THROWS_WITH(
      simulate(parse_scenario(zb, "s.yaml", {"schedule.memory_limit=2", "schedule.input_frees=2"})),
      Catch::Contains("--set schedule.input_frees=2: schedule.input_frees: zb-auto "
                      "needs 0 <= input_frees <= 1"));
  CHECK_THROWS_WITH(
      simulate(parse_scenario(std::string(kGood) + "schedule: 1f1b\n", "s.yaml",
                              {"schedule.name=zigzag"})),
      Catch::Contains("--set schedule.name=zigzag: schedule: unknown schedule \"zigzag\""));
  // Two overrides over the option: the nearer one, the option's own, is named.
  CHECK_THROWS_WITH(
      simulate(parse_scenario(zb, "s.yaml", {"schedule=zb-auto", "schedule.memory_limit=0.5"})),
      Catch::Contains("--set schedule.memory_limit=0.5: schedule.memory_limit:"));
}

TEST_CASE("scenario: explicit model, hf_config and overrides", "[scenario]") {
  const Scenario s = parse_scenario(kGood, "s.yaml",
                                    {"model={layers: 4, hidden: 256, ffn_hidden: 1024, heads: 8, "
                                     "vocab: 1000, mlp: gelu}"});
  CHECK(s.model->kv_heads == 8);  // defaults to heads
  CHECK(s.model->mlp == MlpKind::GeLU);
  const Scenario h = parse_scenario(kGood, std::string(TRAINSIM_TESTS_DIR) + "/data/s.yaml",
                                    {"model={hf_config: tiny_config.json}"});
  CHECK(h.model->layers == 4);
  CHECK(h.model->kv_heads == 2);
  CHECK(h.model->tied_embeddings);
  CHECK(h.model->norm == NormKind::RMSNorm);  // no layer_norm_eps: Llama-style
  // One key of the model's source over a file's preset replaces it (it had been "give either
  // preset or hf_config, not both", blaming the file); and a preset over a config.
  const Scenario over = parse_scenario(kGood, std::string(TRAINSIM_TESTS_DIR) + "/data/s.yaml",
                                       {"model.hf_config=tiny_config.json"});
  CHECK(over.model->layers == 4);
  CHECK(over.model->hidden == 256);
  CHECK(parse_scenario(kGood, std::string(TRAINSIM_TESTS_DIR) + "/data/s.yaml",
                       {"model={hf_config: tiny_config.json}", "model.preset=llama-3.2-1b"})
            .model->hidden == 2048);
  // A --set path the scenario's folder lacks is read from the current folder, as a shell user
  // means it (the tests run in the build folder; the config is also in tests/data/).
  const std::string from_here =
      std::filesystem::relative(std::string(TRAINSIM_TESTS_DIR) + "/data/tiny_config.json")
          .string();
  const Scenario here =
      parse_scenario(kGood, "/nonexistent-folder/s.yaml", {"model.hf_config=" + from_here});
  CHECK(here.model->hidden == 256);
  // In a file, a relative path is the file folder's only.
  CHECK_THROWS_WITH(parse_scenario("model: {hf_config: " + from_here + "}\n" +
                                       std::string(kGood).substr(std::string(kGood).find('\n') + 1),
                                   "/nonexistent-folder/s.yaml"),
                    Catch::Contains("/nonexistent-folder/"));
  // A GPT-NeoX-style config names layer_norm_eps and no rms_norm_eps: LayerNorm, GELU.
  const Scenario g = parse_scenario(kGood, std::string(TRAINSIM_TESTS_DIR) + "/data/s.yaml",
                                    {"model={hf_config: neox_config.json}"});
  CHECK(g.model->norm == NormKind::LayerNorm);
  CHECK(g.model->mlp == MlpKind::GeLU);
  // Written out: model.norm, one of its two values.
  CHECK(parse_scenario(kGood, "s.yaml", {"model={preset: llama-3.2-1b, norm: layernorm}"})
            .model->norm == NormKind::LayerNorm);
  CHECK_THAT(error_of(kGood, {"model={preset: llama-3.2-1b, norm: batchnorm}"}),
             Catch::Contains("model.norm") && Catch::Contains("rmsnorm, layernorm"));
}

TEST_CASE("scenario: every bundled scenario loads and simulates", "[scenario]") {
  for (const char* name :
       {"default.yaml", "paper-1f1b.yaml", "llama3-405b-16k.yaml", "zero-bubble-2p.yaml",
        "mixtral-8x7b.yaml", "deepseek-v3-2048.yaml", "llama3-8b-128k.yaml", "llama2-70b-lora.yaml",
        "llama3-70b-gb200-nvl72.yaml"}) {
    INFO(name);
    const Scenario s = load_scenario(std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/" + name);
    CHECK(simulate(s).makespan > 0);
  }
  // The Zero Bubble paper's ZB-2p setting: at or below its Table 5 bubble of 0.0029, i.e. a
  // period of at most 24 × 79.089 ms / (1 − 0.0029) = 1903.656 ms.
  const Scenario zb =
      load_scenario(std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/zero-bubble-2p.yaml");
  CHECK(make_report(simulate(zb)).step_time_s <= 1.903656);
}

TEST_CASE("loader: integers past their limits are typed errors, never wrapped",
          "[scenario][limits]") {
  // The bad-input campaign's reproducers 01, 19, 24, 25, 29 and 14: each once crashed (SIGFPE),
  // wrapped silently (2^32 + 1 heads read as 1) or overflowed a product.
  auto err = [](const std::string& yaml) { return error_of(yaml); };
  const std::string train = "training: {seq_len: 512, global_batch_size: 8}\n";
  CHECK_THAT(err("model: {preset: llama-3.2-1b, heads: 4294967296}\n" + train +
                 "cluster: {gpu: h100-sxm, gpus_per_node: 8}\nparallelism: {dp: 8}\n"),
             Catch::Contains("model.heads: expected an integer in [1, 65536], got 4294967296"));
  CHECK_THAT(err("model: {preset: llama-3.2-1b, heads: 4294967297, kv_heads: 1}\n" + train +
                 "cluster: {gpu: h100-sxm, gpus_per_node: 8}\nparallelism: {dp: 8}\n"),
             Catch::Contains("model.heads"));
  CHECK_THAT(err("model: llama-3.1-8b\ntraining: {seq_len: 4096, micro_batch_size: 4, "
                 "microbatches: 1073741824}\ncluster: {gpu: h100-sxm, gpus_per_node: 8}\n"
                 "parallelism: {dp: 2, pp: 4}\n"),
             Catch::Contains("training.microbatches: expected an integer in [1, 65536]"));
  CHECK_THAT(err("model: {preset: llama-3.2-1b, hidden: 8388608, heads: 1, kv_heads: 1, "
                 "vocab: 1099511627776, layers: 2, ffn_hidden: 1}\n"
                 "training: {seq_len: 1, global_batch_size: 1}\n"
                 "cluster: {gpu: h100-sxm, gpus_per_node: 1}\n"),
             Catch::Contains("model.hidden: expected an integer in [1, 1048576]"));
  CHECK_THAT(err("parallelism: {pp: 4, vpp: 1073741824}\ntraining: {microbatches: 8}\n"
                 "schedule: interleaved-1f1b\ncosts: {forward: 1ms, backward: 2ms}\n"),
             Catch::Contains("parallelism.vpp: expected an integer in [1, 1048576]"));
  // A key whose upper limit is wide (2^30 sequences) says only ">= 1" for a value below it, but
  // names the upper end for a value past it ("expected >= 1, got 2147483647" contradicts itself).
  CHECK_THAT(err("model: llama-3.2-1b\ntraining: {seq_len: 512, global_batch_size: 2147483647}\n"
                 "cluster: {gpu: h100-sxm, gpus_per_node: 8}\nparallelism: {dp: 8}\n"),
             Catch::Contains("training.global_batch_size: expected an integer in [1, 1073741824], "
                             "got 2147483647"));
  CHECK_THAT(err("model: llama-3.2-1b\ntraining: {seq_len: 512, global_batch_size: 0}\n"
                 "cluster: {gpu: h100-sxm, gpus_per_node: 8}\nparallelism: {dp: 8}\n"),
             Catch::Contains("training.global_batch_size: expected an integer >= 1, got 0"));
  // 2^20 × 2^20 GPUs: each within its own limit, the product past the GPU limit.
  CHECK_THAT(err("parallelism: {pp: 1048576, dp: 1048576}\ntraining: {microbatches: 8}\n"
                 "costs: {forward: 1ms, backward: 2ms}\n"),
             Catch::Contains("exceeds the limit of 16777216 GPUs"));
  // dp × micro_batch_size × microbatches past 2^30 sequences: refused, not wrapped.
  CHECK_THAT(err("model: llama-3.1-8b\ntraining: {seq_len: 4096, micro_batch_size: 1048576, "
                 "microbatches: 65536}\ncluster: {gpu: h100-sxm, gpus_per_node: 8}\n"
                 "parallelism: {dp: 8}\n"),
             Catch::Contains("exceed the limit of 1073741824"));
}

TEST_CASE("scenario: set_value edits one key by its rule, naming the edit in errors") {
  Scenario s = load_scenario(std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/default.yaml");
  set_value(s, "parallelism.zero=1", "code: zero 1");
  set_value(s, "training.recompute=full", "code");
  set_value(s, "cluster.intra_node.latency=5us", "code");
  CHECK(s.layout.zero == 1);
  CHECK(s.training.recompute == Recompute::Full);
  CHECK(s.cluster.intra_node.latency == Approx(5e-6));
  CHECK(s.where("parallelism.zero") == "code: zero 1");
  // m = 16 with dp 2, b 1: the global batch becomes 16 · 2 · 1 = 32 sequences.
  set_value(s, "training.microbatches=16", "code");
  CHECK(s.training.global_batch_size == 32);
  CHECK(s.microbatches() == 16);
  validate(s);
  CHECK_THROWS_WITH(set_value(s, "parallelism.zero=4", "--vary parallelism.zero=4"),
                    "ScenarioError: --vary parallelism.zero=4: parallelism.zero: expected an "
                    "integer in [0, 3], got 4");
  CHECK_THROWS_WITH(
      set_value(s, "training.attention=flash9", "here"),
      Catch::Contains("here: training.attention: expected one of flash1, flash2, flash3, "
                      "triton, cudnn, unfused"));
  CHECK_THROWS_WITH(set_value(s, "model.preset=llama-3.1-70b", "here"),
                    Catch::Contains("model.preset: cannot be edited on a loaded scenario"));
  CHECK_THROWS_WITH(set_value(s, "slowdown=[]", "here"), Catch::Contains("cannot be edited"));
  CHECK_THROWS_WITH(set_value(s, "training.seqlen=4", "here"), Catch::Contains("unknown key"));
  CHECK_THROWS_WITH(set_value(s, "training.seq_len=", "here"), Catch::Contains("expected a value"));
  CHECK_THROWS_WITH(set_value(s, "zero", "here"), Catch::Contains("expected key.path=value"));
  // A rule between keys is validate()'s, run after the last edit.
  set_value(s, "parallelism.tp=3", "code");
  CHECK_THROWS_WITH(validate(s),
                    Catch::Contains("code: parallelism.tp: dp × tp × pp = 2 × 3 × 4 = 24 "
                                    "must equal the GPU count"));
}

TEST_CASE("scenario: a mixture of experts is whole, and refused by key when not",
          "[scenario][moe]") {
  const std::string model = R"(model:
  layers: 4
  hidden: 1024
  ffn_hidden: 4096
  heads: 8
  vocab: 32000
  moe: )";
  const std::string rest = R"(
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 8}
cluster: {gpu: h100-sxm, gpus_per_node: 8}
parallelism: {dp: 8}
)";
  const Scenario s = parse_scenario(model + "{experts: 8, top_k: 2}" + rest, "s.yaml");
  CHECK(s.model->moe.experts == 8);
  CHECK(s.model->expert_ffn() == 4096);  // the model's ffn_hidden by default
  CHECK_THAT(error_of(model + "{experts: 1, top_k: 1}" + rest),
             Catch::Contains("model.moe.experts") && Catch::Contains("dense"));
  CHECK_THAT(error_of(model + "{experts: 8}" + rest),
             Catch::Contains("model.moe.top_k") && Catch::Contains("required"));
  CHECK_THAT(error_of(model + "{experts: 8, top_k: 9}" + rest),
             Catch::Contains("top_k = 9 exceeds the 8 experts"));
  CHECK_THAT(error_of(model + "{top_k: 2}" + rest),
             Catch::Contains("model.moe.top_k") && Catch::Contains("mixture of experts only"));
  CHECK_THAT(error_of(model + "{experts: 8, top_k: 2, dense_layers: 4}" + rest),
             Catch::Contains("model.moe.dense_layers") && Catch::Contains("no MoE layer"));
  CHECK_THAT(error_of(model + "{experts: 8, top_k: 2, routing: dropless}" + rest),
             Catch::Contains("routing"));
  // A preset's experts switched off leave its other MoE values unused, not an error: Mixtral
  // as a dense model of the same sizes, 7.24 B (32 · 218,103,808 + 2 · 32000 · 4096).
  const Scenario dense = parse_scenario(R"(model: mixtral-8x7b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 8}
cluster: {gpu: h100-sxm, gpus_per_node: 8}
parallelism: {dp: 8}
)",
                                        "s.yaml", {"model.moe.experts=0"});
  CHECK_FALSE(dense.model->is_moe());
  CHECK(dense.model->total_params() == 32LL * 218'103'808 + 2LL * 32000 * 4096);
  // Edited on a loaded scenario, checked again.
  CHECK_THAT(error_of(model + "{experts: 8, top_k: 2}" + rest, {"model.moe.top_k=20"}),
             Catch::Contains("top_k = 20"));
}

TEST_CASE("scenario: head_dim lets the heads' width differ from the hidden size",
          "[scenario][moe]") {
  // Qwen3-30B-A3B's preset: 32 heads of 128 on a 2048 hidden size.
  const Scenario q = parse_scenario(R"(model: qwen3-30b-a3b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 8}
cluster: {gpu: h100-sxm, gpus_per_node: 8}
parallelism: {dp: 8}
)",
                                    "s.yaml");
  CHECK(q.model->head_dim() == 128);
  CHECK(q.model->moe.experts == 128);
  // Without head_dim, heads must divide the hidden size.
  CHECK_THAT(error_of(std::string(kGood) + "", {"model.heads=24"}),
             Catch::Contains("or give model.head_dim"));
}

TEST_CASE("scenario: latent attention is whole, and refused by key when not", "[scenario][moe]") {
  const std::string model = R"(model:
  layers: 4
  hidden: 1024
  ffn_hidden: 4096
  heads: 8
  vocab: 32000
  mla: )";
  const std::string rest = R"(
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 8}
cluster: {gpu: h100-sxm, gpus_per_node: 8}
parallelism: {dp: 8}
)";
  const Scenario s = parse_scenario(
      model + "{kv_rank: 128, rope_head_dim: 32, nope_head_dim: 64, v_head_dim: 64}" + rest,
      "s.yaml");
  CHECK(s.model->is_mla());
  CHECK(s.model->qk_head_dim() == 96);
  CHECK_THAT(error_of(model + "{kv_rank: 128, rope_head_dim: 32, nope_head_dim: 64}" + rest),
             Catch::Contains("model.mla.v_head_dim") && Catch::Contains("required"));
  CHECK_THAT(error_of(model + "{q_rank: 128}" + rest),
             Catch::Contains("model.mla.q_rank") && Catch::Contains("latent attention only"));
}
