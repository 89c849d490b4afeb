// validate(): the cross-key rules hold for values edited in code, not only for parsed YAML, and
// each error names the key and where its value came from.
#include <catch2/catch.hpp>

#include "cost/analytic.h"
#include "scenario/validate_scenario.h"
#include "test_util.h"

using namespace trainsim;
using Catch::Contains;

namespace {

// Llama-3.1-8B (32 layers, 32 heads, 8 KV heads) on 8 GPUs as dp 2 · pp 4, 64 sequences.
const char* const kBase =
    "model: llama-3.1-8b\n"                                                    // line 1
    "training: {seq_len: 4096, micro_batch_size: 1, global_batch_size: 64}\n"  // line 2
    "cluster: {gpu: h100-sxm, gpus_per_node: 8, nodes: 1}\n"                   // line 3
    "parallelism:\n"                                                           // line 4
    "  dp: 2\n"                                                                // line 5
    "  pp: 4\n";                                                               // line 6

// A 4-layer MoE of 8 experts on 8 GPUs as dp 8 (the parallelism map starts on line 6).
const char* const kMoe =
    "model: {layers: 4, hidden: 1024, ffn_hidden: 2048, heads: 8, vocab: 1000,\n"  // line 1
    "        moe: {experts: 8, top_k: 2}}\n"                                       // line 2
    "training: {seq_len: 512, micro_batch_size: 1, global_batch_size: 8}\n"        // line 3
    "cluster: {gpu: h100-sxm, gpus_per_node: 8}\n"                                 // line 4
    "parallelism:\n"                                                               // line 5
    "  dp: 8\n";                                                                   // line 6

}  // namespace

TEST_CASE("validate: a parsed scenario passes, and so does a consistent edit") {
  Scenario s = test::yaml(kBase);
  CHECK_NOTHROW(validate(s));
  s.layout.dp = 4;  // 4 × 1 × 2 = 8 GPUs, 64 sequences a multiple of 4 × 1
  s.layout.pp = 2;
  CHECK_NOTHROW(validate(s));
  CHECK(s.microbatches() == 16);  // 64 / (4 × 1)
}

TEST_CASE("validate: an edit that breaks a rule names the key and the file line it came from") {
  Scenario s = test::yaml(kBase);
  SECTION("GPUs: 4 × 1 × 4 = 16 is not the cluster's 8") {
    s.layout.dp = 4;  // the parallelism map starts on line 5
    CHECK_THROWS_WITH(validate(s), Contains("test.yaml:5: parallelism: dp × tp × pp = 4 × 1 × 4 = "
                                            "16 must equal the GPU count gpus_per_node × nodes "
                                            "= 8 × 1 = 8; parallelism.dp: 2 fits"));
  }
  SECTION("dp 3: the GPU count is named, not the batch that 3 does not divide") {
    // 3 × 1 × 4 = 12 GPUs of 8, and 64 sequences no multiple of 3 × 1: the layout is what is
    // wrong (the batch error had come first, and with dp 2 restored it goes away).
    s.layout.dp = 3;
    CHECK_THROWS_WITH(validate(s), Contains("dp × tp × pp = 3 × 1 × 4 = 12 must equal the GPU "
                                            "count") &&
                                       !Contains("global_batch_size"));
  }
  SECTION("tp 3 divides neither the 32 heads nor the 8 KV heads") {
    s.layout.dp = 1;
    s.layout.tp = 2;
    s.layout.pp = 4;
    CHECK_NOTHROW(validate(s));  // 1 × 2 × 4 = 8
    s.layout.tp = 3;
    s.cluster.gpus_per_node = 12;  // 1 × 3 × 4
    CHECK_THROWS_WITH(validate(s), Contains("test.yaml:5: parallelism.tp: tp = 3 must divide the "
                                            "model's attention heads (32)"));
  }
  SECTION("pp × vpp = 4 × 16 = 64 stages for 32 layers: pp is named, the file gave no vpp") {
    s.layout.vpp = 16;
    CHECK_THROWS_WITH(validate(s), Contains("test.yaml:6: parallelism.pp: pp × vpp = 4 × 16 = 64 "
                                            "stages exceed the model's 32 layers"));
  }
  SECTION("a pipeline split that counts the embedding and the loss gives two more slots") {
    // dp 4 · pp 2 · vpp 17 = 34 chunks: more than the 32 layers, as many as 32 + 2 slots.
    s.layout.dp = 4;
    s.layout.pp = 2;
    s.layout.vpp = 17;
    CHECK_THROWS_WITH(validate(s), Contains("stages exceed the model's 32 layers"));
    s.layout.split = PipelineSplit{true, true, false, {}};
    CHECK_NOTHROW(validate(s));
    // Megatron-core gives every stage as many slots: 34 is no multiple of 2 × 16 = 32.
    s.layout.vpp = 16;
    CHECK_THROWS_WITH(validate(s), Contains("the model's 32 layers and the 2 the split counts "
                                            "besides them, 34, must be a multiple of pp × vpp = "
                                            "2 × 16 = 32"));
  }
  SECTION("a split that counts multi-token prediction needs the modules and room for them") {
    // pp 4 · 32 layers: with the module counted, 33 slots are no multiple of 4; with the
    // embedding and the loss too, 35 neither; one module more, 36 = 4 × 9: valid.
    s.layout.split.mtp = true;
    CHECK_THROWS_WITH(validate(s), Contains("parallelism.pipeline_split.mtp: counts multi-token "
                                            "prediction modules in the split, but "
                                            "model.mtp_layers is 0"));
    s.model->mtp_layers = 1;
    CHECK_THROWS_WITH(validate(s), Contains("the model's 32 layers and the 1 the split counts "
                                            "besides them, 33, must be a multiple of pp × vpp = "
                                            "4 × 1 = 4"));
    s.layout.split.embedding = s.layout.split.loss = true;
    CHECK_THROWS_WITH(validate(s), Contains("35, must be a multiple"));
    s.model->mtp_layers = 2;
    CHECK_NOTHROW(validate(s));
    // 32 chunks of pp 4 · vpp 8: 36 slots are no multiple of 32; 64 modules (96 + 2 = 98 no);
    // with 30 modules, 64 slots, 2 a chunk: the last chunk's one slot beside the loss cannot
    // hold 30 modules.
    s.model->mtp_layers = 30;
    s.layout.vpp = 8;
    CHECK_THROWS_WITH(validate(s), Contains("the last stage has 1 layer slot(s) left beside the "
                                            "loss, too few for the 30 multi-token prediction "
                                            "module(s)"));
  }
  SECTION("64 sequences are not a multiple of dp × b = 2 × 3") {
    s.training.micro_batch_size = 3;
    CHECK_THROWS_WITH(validate(s), Contains("test.yaml:2: training.global_batch_size") &&
                                       Contains("must be a multiple of dp × micro_batch_size = "
                                                "2 × 3 = 6"));
  }
  SECTION("ranges: zero 4, dp 0") {
    s.layout.zero = 4;
    CHECK_THROWS_WITH(validate(s), Contains("parallelism.zero: expected an integer in [0, 3], "
                                            "got 4"));
    s.layout.zero = 0;
    s.layout.dp = 0;
    CHECK_THROWS_WITH(validate(s), Contains("parallelism.dp: expected an integer in [1, "));
  }
  SECTION("prefetching the parameters with the next forward needs ZeRO-1 or -2") {
    s.layout.zero = 1;
    s.layout.param_gather_with_forward = true;
    CHECK_NOTHROW(validate(s));
    s.layout.zero = 3;
    CHECK_THROWS_WITH(validate(s), Contains("parallelism.param_gather: only applies to zero: 1 "
                                            "or 2"));
  }
  SECTION("ZeRO-3's gather and reduce buckets need ZeRO-3") {
    s.layout.zero = 3;
    s.layout.fsdp.gather_bucket = 50e6;
    s.layout.fsdp.reduce_bucket = 20e6;
    CHECK_NOTHROW(validate(s));
    s.layout.zero = 2;
    CHECK_THROWS_WITH(validate(s), Contains("parallelism.fsdp.gather_bucket: only applies to "
                                            "zero: 3"));
    s.layout.fsdp.gather_bucket.reset();
    CHECK_THROWS_WITH(validate(s), Contains("parallelism.fsdp.reduce_bucket: only applies to "
                                            "zero: 3 (the units ZeRO-3 gathers and "
                                            "reduce-scatters), got zero: 2 (remove it, or --set "
                                            "parallelism.fsdp.reduce_bucket=null)"));
  }
}

TEST_CASE("validate: recompute_layers needs full recompute") {
  Scenario s = parse_scenario(kBase, "test.yaml",
                              {"training.recompute=full", "training.recompute_layers=4"});
  CHECK(s.training.recompute_layers == 4);
  s.training.recompute = Recompute::Selective;
  CHECK_THROWS_WITH(validate(s), Contains("--set training.recompute_layers=4: "
                                          "training.recompute_layers: only applies to recompute: "
                                          "full") &&
                                     Contains("got recompute: selective"));
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", {"training.recompute_layers=4"}),
                    Contains("only applies to recompute: full") && Contains("got recompute: none"));
}

TEST_CASE("validate: recompute_modules needs selective recompute and the modules' layers") {
  Scenario s = parse_scenario(kBase, "test.yaml",
                              {"training.recompute=selective", "training.recompute_modules=mlp"});
  s.training.recompute = Recompute::Full;
  CHECK_THROWS_WITH(validate(s), Contains("--set training.recompute_modules=mlp: "
                                          "training.recompute_modules: only applies to recompute: "
                                          "selective") &&
                                     Contains("got recompute: full"));
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml", {"training.recompute_modules=mlp"}),
      Contains("only applies to recompute: selective") && Contains("got recompute: none"));
  // As Megatron-core: mla_up_proj needs latent attention, moe_act grouped expert GEMMs.
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml",
                     {"training.recompute=selective", "training.recompute_modules=mla_up_proj"}),
      Contains("mla_up_proj needs latent attention"));
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml",
                     {"training.recompute=selective", "training.recompute_modules=moe_act"}),
      Contains("moe_act needs a mixture of experts"));
  const std::vector<std::string> moe_act = {"model.moe.experts=8", "model.moe.top_k=2",
                                            "training.recompute=selective",
                                            "training.recompute_modules=moe_act"};
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml", moe_act));
  std::vector<std::string> sequential = moe_act;
  sequential.push_back("training.expert_gemms=sequential");
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", sequential),
                    Contains("moe_act needs grouped expert GEMMs") && Contains("got sequential"));
  // A module the model lacks elsewhere changes nothing and is accepted (Megatron-core too).
  CHECK_NOTHROW(parse_scenario(
      kBase, "test.yaml", {"training.recompute=selective", "training.recompute_modules=moe,mlp"}));
}

TEST_CASE("validate: fp8 needs a GPU with FP8 tensor cores") {
  // The base scenario's GPU is Hopper: fp8 is accepted; on A100 it is refused by key, with why.
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml", {"training.precision=fp8"}));
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml", {"training.precision=fp8", "cluster.gpu=h200"}));
  CHECK_NOTHROW(
      parse_scenario(kBase, "test.yaml",
                     {"training.precision=fp8", "cluster.gpu=b200", "training.attention=cudnn"}));
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml", {"training.precision=fp8", "cluster.gpu=a100-sxm-80gb"}),
      Contains("training.precision: fp8 needs a GPU with FP8 tensor cores (cluster.gpu: "
               "h100-sxm, h100-pcie, h200, b200, b300, gb200, gb300), got a100-sxm-80gb") &&
          Contains("Ampere has none"));
}

TEST_CASE("validate: an FP8 recipe needs FP8 training, and is one Transformer Engine has") {
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml",
                               {"training.precision=fp8", "training.fp8_recipe=tensorwise"}));
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", {"training.fp8_recipe=tensorwise"}),
                    Contains("training.fp8_recipe: an FP8 recipe needs training.precision: fp8, "
                             "got bf16"));
  // 1×128 block scaling is not modelled: refused by name, with the values allowed.
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml",
                                   {"training.precision=fp8", "training.fp8_recipe=blockwise"}),
                    Contains("training.fp8_recipe") && Contains("delayed") &&
                        Contains("tensorwise") && Contains("mxfp8") && Contains("nvfp4"));
  // MXFP8 needs Blackwell's block-scaled tensor cores: refused on an H100, taken on a B200.
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml", {"training.precision=fp8", "training.fp8_recipe=mxfp8"}),
      Contains("training.fp8_recipe: MXFP8 runs on Blackwell") && Contains("got h100-sxm"));
  CHECK_NOTHROW(
      parse_scenario(kBase, "test.yaml",
                     {"training.precision=fp8", "training.fp8_recipe=mxfp8", "cluster.gpu=b200"}));
  // NVFP4 likewise, and without FP8 parameters (Megatron-core's fp4_param is not modelled).
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml", {"training.precision=fp8", "training.fp8_recipe=nvfp4"}),
      Contains("NVFP4 runs on Blackwell"));
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml",
                                   {"training.precision=fp8", "training.fp8_recipe=nvfp4",
                                    "cluster.gpu=gb300", "training.fp8_params=true"}),
                    Contains("training.fp8_params: NVFP4 parameters"));
  // NVFP4's options are taken with NVFP4 and refused off their default under another recipe.
  CHECK_NOTHROW(
      parse_scenario(kBase, "test.yaml",
                     {"training.precision=fp8", "training.fp8_recipe=nvfp4", "cluster.gpu=b300",
                      "training.attention=cudnn", "training.nvfp4_hadamard=false",
                      "training.nvfp4_stochastic_rounding=false"}));
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml", {"training.nvfp4_hadamard=true"}));
  for (const char* key : {"training.nvfp4_hadamard", "training.nvfp4_stochastic_rounding"})
    CHECK_THROWS_WITH(
        parse_scenario(kBase, "test.yaml",
                       {"training.precision=fp8", "training.fp8_recipe=mxfp8", "cluster.gpu=b200",
                        std::string(key) + "=false"}),
        Contains(std::string(key) + ": an NVFP4 option") && Contains("fp8_recipe: nvfp4"));
}

TEST_CASE("validate: FP8 casts need FP8 training, and their names are the table's") {
  CHECK_NOTHROW(
      parse_scenario(kBase, "test.yaml",
                     {"training.precision=fp8", "training.fp8_standalone_casts=norm,activation"}));
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml", {"training.fp8_standalone_casts=none"}));
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml", {"training.fp8_standalone_casts=activation"}),
      Contains("training.fp8_standalone_casts: FP8 casts need training.precision: fp8, got bf16"));
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml",
                     {"training.precision=fp8", "training.fp8_standalone_casts=gelu"}),
      Contains("training.fp8_standalone_casts") && Contains("norm, activation"));
}

TEST_CASE("validate: attention kernels the GPU runs and trainsim has figures for") {
  // FlashAttention-3 is Hopper's alone; on Blackwell cuDNN's is measured, and FlashAttention-2
  // on a B200 (NVIDIA's cudnn-frontend benchmark), not on a GB200.
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml", {"training.attention=flash3"}));
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml",
                                   {"training.attention=flash3", "cluster.gpu=a100-sxm-80gb"}),
                    Contains("training.attention: flash3 runs on Hopper GPUs only"));
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", {"cluster.gpu=gb200"}),
                    Contains("training.attention: flash2 (the default) has no measured "
                             "throughput on gb200") &&
                        Contains("set training.attention: cudnn (what Transformer Engine runs "
                                 "there), flash2 on a b200 or unfused"));
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml", {"cluster.gpu=b200"}));
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml", {"cluster.gpu=b200", "training.attention=flash1"}),
      Contains("flash1 has no measured throughput on b200") && !Contains("flash2 on a b200"));
  CHECK_NOTHROW(
      parse_scenario(kBase, "test.yaml", {"cluster.gpu=b200", "training.attention=cudnn"}));
  CHECK_NOTHROW(
      parse_scenario(kBase, "test.yaml", {"cluster.gpu=b200", "training.attention=unfused"}));
}

TEST_CASE("validate: FP8 parameters need FP8 training") {
  CHECK_NOTHROW(
      parse_scenario(kBase, "test.yaml", {"training.precision=fp8", "training.fp8_params=true"}));
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", {"training.fp8_params=true"}),
                    Contains("training.fp8_params: FP8 parameters need training.precision: fp8, "
                             "got bf16"));
}

TEST_CASE("validate: a send/receive bandwidth between nodes is a positive bandwidth") {
  CHECK(parse_scenario(kBase, "test.yaml", {"cluster.inter_node.p2p_bandwidth=40GB/s"})
            .cluster.inter_node.p2p_bandwidth == 40e9);
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", {"cluster.inter_node.p2p_bandwidth=0GB/s"}),
                    Contains("cluster.inter_node.p2p_bandwidth"));
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", {"cluster.inter_node.p2p_bandwidth=fast"}),
                    Contains("cluster.inter_node.p2p_bandwidth"));
}

TEST_CASE("validate: a node's NICs between nodes are a count of at least one") {
  CHECK(parse_scenario(kBase, "test.yaml", {"cluster.inter_node.nics=2"}).cluster.inter_node.nics ==
        2);
  // Not given: 0, one NIC per GPU.
  CHECK(parse_scenario(kBase, "test.yaml").cluster.inter_node.nics == 0);
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", {"cluster.inter_node.nics=0"}),
                    Contains("cluster.inter_node.nics: expected an integer in [1, "));
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml", {"cluster.inter_node.nics=two"}),
      Contains("cluster.inter_node.nics: expected an integer in [1, ") && Contains("got \"two\""));
}

TEST_CASE("validate: plain SGD has no state to offload and no FP8 masters") {
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml", {"training.optimizer=sgd"}));
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml",
                                   {"training.optimizer=sgd", "training.offload=optimizer",
                                    "parallelism.zero=1"}),
                    Contains("training.offload: optimizer offload moves Adam's master weights") &&
                        Contains("plain SGD (training.optimizer: sgd) has none"));
  CHECK_THROWS_WITH(
      parse_scenario(
          kBase, "test.yaml",
          {"training.optimizer=sgd", "training.precision=fp8", "training.fp8_params=true"}),
      Contains("training.optimizer: FP8 parameters are updated through fp32 master weights"));
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", {"training.optimizer=lion"}),
                    Contains("training.optimizer: expected one of adam, adamw, sgd"));
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", {"training.unfused_loss=pytorch16"}),
                    Contains("expected one of pytorch, vocab-parallel, pytorch-16bit, nanotron"));
}

TEST_CASE("validate: optimizer offload needs a ZeRO stage") {
  CHECK_NOTHROW(
      parse_scenario(kBase, "test.yaml", {"training.offload=optimizer", "parallelism.zero=1"}));
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", {"training.offload=optimizer"}),
                    Contains("training.offload: optimizer offload needs parallelism.zero 1, 2 "
                             "or 3") &&
                        Contains("got zero: 0"));
}

TEST_CASE("validate: a value code set is blamed on the code that set it") {
  Scenario s = test::yaml(kBase);
  s.set_origin("parallelism.vpp", "trainsim compare (retried at vpp 8192)");
  s.layout.vpp = 1 << 13;  // pp × vpp = 4 × 8192 = 32768 stages, past the limit of 16384
  CHECK_THROWS_WITH(validate(s), Contains("trainsim compare (retried at vpp 8192): "
                                          "parallelism.vpp: pp × vpp = 4 × 8192 stages exceed "
                                          "the limit of 16384"));
}

TEST_CASE("validate: GPUs that do not add up blame the size an override set") {
  // pp 3 from --set: 2 × 1 × 3 = 6 of the cluster's 8; the override is named, not the file.
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml", {"parallelism.pp=3"}),
      Contains("--set parallelism.pp=3: parallelism.pp: dp × tp × pp = 2 × 1 × 3 = "
               "6 must equal the GPU count") &&
          // 1 × 3 = 3 does not divide 8: no data-parallel degree fits.
          Contains("= 8; no dp fits: tp × pp = 1 × 3 = 3 does not divide the 8 GPUs"));
}

TEST_CASE("validate: the dp that fills the GPUs, where one does") {
  Scenario s = test::yaml(kBase);
  CHECK_FALSE(dp_filling_gpus(s));  // dp 2 · pp 4 already covers the 8 GPUs
  s.cluster.nodes = 2;
  CHECK(dp_filling_gpus(s) == 4);  // 16 GPUs / (tp 1 · pp 4)
  s.layout.cp = 2;
  CHECK_FALSE(dp_filling_gpus(s));  // dp 2 · cp 2 · pp 4 covers the 16
  s.cluster.nodes = 4;
  CHECK(dp_filling_gpus(s) == 4);  // 32 / (cp 2 · tp 1 · pp 4)
  s.layout.pp = 3;
  CHECK_FALSE(dp_filling_gpus(s));  // cp 2 · pp 3 = 6 does not divide 32
  s.has_cluster = false;
  s.layout.pp = 4;
  CHECK_FALSE(dp_filling_gpus(s));  // no cluster, no GPU count to fill
}

TEST_CASE("validate: --set values are blamed on the override") {
  Scenario s = parse_scenario(kBase, "test.yaml", {"parallelism.pp=2", "parallelism.dp=4"});
  s.layout.tp = 3;
  s.layout.dp = 1;
  s.layout.pp = 4;
  s.cluster.gpus_per_node = 12;
  CHECK_THROWS_WITH(validate(s), Contains("test.yaml:5: parallelism.tp: tp = 3"));
  s.cluster.gpus_per_node = 8;
  s.layout.tp = 2;
  s.layout.vpp = 8;  // 4 × 8 = 32 stages for 32 layers: fine
  CHECK_NOTHROW(validate(s));
  s.layout.vpp = 16;
  CHECK_THROWS_WITH(validate(s), Contains("--set parallelism.pp=2: parallelism.pp"));
}

TEST_CASE("validate: per-stage costs must follow an edited pp - stragglers the world") {
  Scenario s = test::pipeline(4, 8, 1, 2);  // costs: 4 stages, 1 ms forward, 2 ms backward
  CHECK_NOTHROW(validate(s));
  s.layout.pp = 2;
  CHECK_THROWS_WITH(validate(s), Contains("costs.forward: expected one duration per pipeline "
                                          "stage (2 stages, pp = 2), got 4"));
  Scenario t = test::yaml(std::string(kBase) + "slowdown: [{ranks: [1, 7], compute: 2}]\n");
  t.layout.dp = 1;
  t.layout.pp = 4;
  t.layout.tp = 2;
  CHECK_NOTHROW(validate(t));  // still 8 ranks
  t.cluster.nodes = 1;
  t.cluster.gpus_per_node = 4;
  t.layout.tp = 1;  // 1 × 1 × 4 = 4 ranks: rank 7 is gone
  CHECK_THROWS_WITH(validate(t), Contains("slowdown[0].ranks[1]: rank 7 does not exist: the "
                                          "layout has ranks 0..3"));
  // A rank slowed twice: the factors would multiply past the 0.01–100 each may take (twelve
  // entries of 100 overflow a duration), so one entry a rank.
  const std::string base = std::string(kBase) + "slowdown: ";
  CHECK_THROWS_WITH(test::yaml(base + "[{ranks: [1, 1], compute: 2}]\n"),
                    Contains("slowdown[0].ranks[1]: rank 1 is listed twice"));
  CHECK_THROWS_WITH(test::yaml(base + "[{rank: 0, compute: 100}, {ranks: [3, 0], link: 2}]\n"),
                    Contains("slowdown[1].ranks[1]: rank 0 is already slowed by slowdown[0]: give "
                             "one entry both its compute and its link factor"));
  CHECK_NOTHROW(
      validate(test::yaml(base + "[{rank: 0, compute: 100, link: 2}, {rank: 3, compute: 100}]\n")));
}

TEST_CASE("validate: a scenario built in code is placed as \"scenario\"") {
  Scenario s;
  s.training.global_batch_size = 4;
  s.layout.dp = 3;
  CHECK_THROWS_WITH(validate(s), Contains("scenario: training.global_batch_size: global_batch_size "
                                          "4 must be a multiple of dp × micro_batch_size = 3 × 1 "
                                          "= 3"));
}

TEST_CASE(
    "validate: expert parallelism needs experts it divides, DP ranks to carve from, and no "
    "ZeRO-3") {
  // A 4-layer MoE of 8 experts on 8 GPUs as dp 8 (the parallelism map starts on line 6).
  const char* const moe = kMoe;
  Scenario s = test::yaml(moe);
  for (int ep : {1, 2, 4, 8}) {
    s.layout.ep = ep;
    CHECK_NOTHROW(validate(s));
  }
  SECTION("ep 3 divides neither dp 8 nor the 8 experts") {
    s.layout.ep = 3;
    CHECK_THROWS_WITH(validate(s), Contains("parallelism.ep: ep = 3 must divide dp = 8: "
                                            "expert-parallel groups are carved out of the "
                                            "data-parallel ranks"));
  }
  SECTION("ep 16 over 8 experts (dp 16)") {
    s.layout.dp = 16;
    s.cluster.gpus_per_node = 16;
    s.training.global_batch_size = 16;
    s.layout.ep = 16;
    CHECK_THROWS_WITH(validate(s), Contains("parallelism.ep: ep = 16 must divide "
                                            "model.moe.experts (8)"));
  }
  SECTION("ZeRO-3 with experts split is not modelled") {
    s.layout.ep = 2;
    s.layout.zero = 3;
    CHECK_THROWS_WITH(validate(s), Contains("parallelism.ep: ep = 2 with zero 3 is not "
                                            "modelled"));
  }
  SECTION("gathering the parameters with the next forward is not modelled with experts split") {
    s.layout.ep = 2;
    s.layout.zero = 1;
    s.layout.param_gather_with_forward = true;
    CHECK_THROWS_WITH(validate(s), Contains("parallelism.ep: ep = 2 with parallelism.param_gather: "
                                            "with-next-forward is not modelled"));
  }
  SECTION("a capacity factor past experts / top_k = 8 / 2 = 4 is refused") {
    s.model->moe.capacity_factor = 4;
    CHECK_NOTHROW(validate(s));
    s.model->moe.capacity_factor = 4.5;
    CHECK_THROWS_WITH(validate(s), Contains("model.moe.capacity_factor: 4.5 exceeds experts / "
                                            "top_k = 8 / 2"));
  }
  SECTION("a dense model has no experts to split") {
    Scenario dense = test::yaml(kBase);
    dense.layout.ep = 2;
    CHECK_THROWS_WITH(validate(dense), Contains("parallelism.ep: ep = 2 needs a mixture of "
                                                "experts: give model.moe.experts"));
  }
}

TEST_CASE("validate: context parallelism splits sequences it divides, with a fused attention") {
  // kBase on 8 GPUs: dp 2 · pp 4. cp 2 needs dp 1 (1 × 2 × 1 × 4 = 8 GPUs), batch over dp 1.
  Scenario s = test::yaml(kBase);
  s.layout.dp = 1;
  s.layout.cp = 2;
  CHECK_NOTHROW(validate(s));
  SECTION("the GPUs count cp") {
    s.layout.dp = 2;
    CHECK_THROWS_WITH(validate(s), Contains("dp × cp × tp × pp = 2 × 2 × 1 × 4 = 16 must equal "
                                            "the GPU count gpus_per_node × nodes = 8 × 1 = 8"));
  }
  SECTION("seq_len a multiple of 2 · cp (two chunks per rank)") {
    s.training.seq_len = 4098;
    CHECK_THROWS_WITH(validate(s), Contains("parallelism.cp: cp = 2 needs training.seq_len a "
                                            "multiple of 2 × cp = 4 (each rank holds two of 2·cp "
                                            "equal chunks), got seq_len 4098"));
  }
  SECTION("unfused attention keeps no log-sum-exp to merge blocks by") {
    s.training.attention = AttentionKernel::Unfused;
    CHECK_THROWS_WITH(validate(s), Contains("parallelism.cp: cp = 2 needs a fused attention "
                                            "kernel"));
  }
  SECTION("ring CP and TP overlap together: both run beside the same compute") {
    s.layout.tp = 2;
    s.layout.pp = 2;
    s.layout.tp_overlap = true;
    CHECK_NOTHROW(validate(s));
  }
}

TEST_CASE("validate: with context parallelism ep divides dp · cp") {
  // dp 2 · cp 4 = 8 positions on the DP axis: ep 8 spans them all (ep need not divide dp);
  // ep 3 divides neither, and the message names both factors.
  auto moe = [](int ep) {
    return fmt::format(
        "model: {{layers: 4, hidden: 1024, ffn_hidden: 2048, heads: 8, vocab: 1000,\n"
        "        moe: {{experts: 24, top_k: 2}}}}\n"
        "training: {{seq_len: 512, micro_batch_size: 1, global_batch_size: 4}}\n"
        "cluster: {{gpu: h100-sxm, gpus_per_node: 8}}\n"
        "parallelism: {{dp: 2, cp: 4, ep: {}}}\n",
        ep);
  };
  CHECK_NOTHROW(test::yaml(moe(8)));
  CHECK_THROWS_WITH(test::yaml(moe(3)),
                    Contains("parallelism.ep: ep = 3 must divide dp · cp = 2 · 4 = 8"));
}

TEST_CASE("validate: expert TP is tp or 1, and whole experts need SP and carve EP out of tp · dp") {
  // 16 experts on tp 2 · dp 2 with SP: ep 4 divides tp · dp = 4 but not dp = 2.
  auto moe = [](const std::string& parallelism) {
    return fmt::format(
        "model: {{layers: 4, hidden: 1024, ffn_hidden: 2048, heads: 8, vocab: 1000,\n"
        "        moe: {{experts: 16, top_k: 2}}}}\n"
        "training: {{seq_len: 512, micro_batch_size: 1, global_batch_size: 4}}\n"
        "cluster: {{gpu: h100-sxm, gpus_per_node: 4}}\n"
        "parallelism: {{tp: 2, dp: 2, {}}}\n",
        parallelism);
  };
  CHECK_NOTHROW(test::yaml(moe("ep: 4, etp: 1, sequence_parallel: true")));
  CHECK_NOTHROW(test::yaml(moe("ep: 2, etp: 2, sequence_parallel: true")));
  CHECK(test::yaml(moe("ep: 1, etp: 1, sequence_parallel: true")).layout.experts_span_tp());
  CHECK_THROWS_WITH(test::yaml(moe("ep: 4, sequence_parallel: true")),
                    Contains("parallelism.ep: ep = 4 must divide dp = 2"));
  CHECK_THROWS_WITH(test::yaml(moe("ep: 8, etp: 1, sequence_parallel: true")),
                    Contains("parallelism.ep: ep = 8 must divide tp · dp · cp = 2 · 2 · 1 = 4"));
  CHECK_THROWS_WITH(test::yaml(moe("ep: 2, etp: 1")),
                    Contains("parallelism.etp: etp = 1 under tp = 2 needs "
                             "parallelism.sequence_parallel"));
  CHECK_THROWS_WITH(test::yaml(moe("ep: 1, etp: 1, sequence_parallel: true, zero: 3")),
                    Contains("parallelism.etp: etp = 1 under tp = 2 with zero 3 is not modelled"));
  Scenario wide = test::yaml(moe("ep: 2, sequence_parallel: true"));
  wide.cluster.gpus_per_node = 8;
  wide.layout.tp = 4;
  wide.layout.etp = 2;
  CHECK_THROWS_WITH(validate(wide), Contains("parallelism.etp: etp = 2 must be 1 or tp (4)"));
  CHECK_THROWS_WITH(test::yaml(moe("etp: 0")), Contains("parallelism.etp"));
}

TEST_CASE("validate: the fused grouped MLP needs MXFP8 SwiGLU experts in one grouped kernel",
          "[moe]") {
  // A SwiGLU MoE on B200s in MXFP8 with grouped expert GEMMs takes it; each missing condition is
  // refused under training.fused_expert_mlp, and a dense model is left as it is (no experts).
  auto moe = [](const std::string& model_extra, const std::string& training) {
    return fmt::format(
        "model: {{layers: 4, hidden: 1024, ffn_hidden: 2048, heads: 8, vocab: 1000{},\n"
        "        moe: {{experts: 8, top_k: 2}}}}\n"
        "training: {{seq_len: 512, micro_batch_size: 1, global_batch_size: 8, "
        "fused_expert_mlp: true, {}}}\n"
        "cluster: {{gpu: b200, gpus_per_node: 8}}\n"
        "parallelism: {{dp: 8, ep: 8}}\n",
        model_extra, training);
  };
  const std::string ok = "precision: fp8, fp8_recipe: mxfp8, expert_gemms: grouped";
  CHECK(test::yaml(moe("", ok)).training.fused_expert_mlp);
  CHECK_THROWS_WITH(test::yaml(moe("", "precision: fp8, expert_gemms: grouped")),
                    Contains("training.fused_expert_mlp: Transformer Engine's fused grouped MLP "
                             "runs MXFP8 only"));
  CHECK_THROWS_WITH(test::yaml(moe("", "precision: bf16, expert_gemms: grouped")),
                    Contains("training.fused_expert_mlp"));
  CHECK_THROWS_WITH(test::yaml(moe(", mlp: gelu", ok)),
                    Contains("training.fused_expert_mlp: Transformer Engine's fused grouped MLP "
                             "fuses a gated activation"));
  CHECK_THROWS_WITH(test::yaml(moe("", "precision: fp8, fp8_recipe: mxfp8")),
                    Contains("give training.expert_gemms: grouped"));
  CHECK_THROWS_WITH(test::yaml(moe("", ok + ", recompute: selective, recompute_modules: moe_act")),
                    Contains("there is no moe_act to recompute"));
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml", {"training.fused_expert_mlp=true"}));
}

TEST_CASE("validate: delayed weight gradients need the combined 1F1B and no userbuffers overlap",
          "[moe]") {
  // Megatron-core asserts overlap_moe_expert_parallel_comm with delay_wgrad_compute
  // (transformer_config.py); Transformer Engine refuses it under userbuffers.
  auto scenario = [](const std::string& schedule, const std::string& parallelism) {
    return fmt::format(
        "model: {{layers: 4, hidden: 1024, ffn_hidden: 2048, heads: 8, vocab: 1000,\n"
        "        moe: {{experts: 8, top_k: 2}}}}\n"
        "training: {{seq_len: 512, micro_batch_size: 1, global_batch_size: 8, "
        "delay_wgrad: true}}\n"
        "cluster: {{gpu: b200, gpus_per_node: 8}}\n"
        "parallelism: {{dp: 4, tp: 2, ep: 4, sequence_parallel: true{}}}\n"
        "schedule: {}\n",
        parallelism, schedule);
  };
  CHECK(test::yaml(scenario("{name: 1f1b, overlap_f_b: true}", "")).training.delay_wgrad);
  CHECK_THROWS_WITH(test::yaml(scenario("1f1b", "")),
                    Contains("training.delay_wgrad: Megatron-core delays weight gradients only "
                             "with its combined 1F1B"));
  CHECK_THROWS_WITH(test::yaml(scenario("{name: 1f1b, overlap_f_b: false}", "")),
                    Contains("give schedule.overlap_f_b: true"));
  CHECK_THROWS_WITH(
      test::yaml(scenario("{name: 1f1b, overlap_f_b: true}", ", tp_overlap: true")),
      Contains("training.delay_wgrad: Transformer Engine does not delay weight gradients under "
               "userbuffers"));
}

TEST_CASE("validate: LoRA needs a rank, a target and a dense model, the transpose cache FP8 params",
          "[lora]") {
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml",
                               {"training.lora_rank=16", "training.lora_targets=qkv,attn_out",
                                "training.lora_dropout=0.1"}));
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", {"training.lora_targets=qkv"}),
                    Contains("training.lora_targets: applies to LoRA only: give "
                             "training.lora_rank > 0"));
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", {"training.lora_dropout=0.1"}),
                    Contains("training.lora_dropout: applies to LoRA only"));
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml", {"training.lora_rank=16", "training.lora_targets=none"}),
      Contains("training.lora_targets: LoRA with no target trains nothing"));
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml", {"training.lora_rank=16", "training.lora_targets=q"}),
      Contains("expected `none` or a comma-separated subset of qkv, attn_out, mlp_up, mlp_down"));
  // A mixture of experts: not modelled, said so by key.
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml",
                     {"model.moe.experts=8", "model.moe.top_k=2", "training.lora_rank=16"}),
      Contains("training.lora_rank: LoRA on a mixture of experts is not modelled"));
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml",
                     {"training.precision=fp8", "training.fp8_transpose_cache=false"}),
      Contains("training.fp8_transpose_cache: the transpose cache is FP8 parameters'"));
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml",
                               {"training.precision=fp8", "training.fp8_params=true",
                                "training.fp8_transpose_cache=false"}));
}

TEST_CASE("validate: the FP8 activation store is a fused SwiGLU's", "[fp8]") {
  // Llama-3.1-8B's MLP is SwiGLU: accepted in any precision (Megatron-core casts regardless).
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml", {"training.fp8_activation_store=true"}));
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml", {"model.mlp=gelu", "training.fp8_activation_store=true"}),
      Contains("training.fp8_activation_store: Megatron-core stores a gated MLP's activation "
               "input in FP8") &&
          Contains("give model.mlp: swiglu"));
  // An eager runtime runs SwiGLU op by op by default: no fused kernel to store from.
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml",
                     {"training.runtime=eager", "training.fp8_activation_store=true"}),
      Contains("take swiglu out of training.eager_ops"));
  CHECK_NOTHROW(parse_scenario(
      kBase, "test.yaml",
      {"training.runtime=eager", "training.eager_ops=norm", "training.fp8_activation_store=true"}));
}

TEST_CASE("validate: gate_up_split is where an op-by-op SwiGLU takes its halves") {
  // Llama-3.1-8B's MLP is SwiGLU: accepted with swiglu named beside it.
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml", {"training.eager_ops=swiglu,gate_up_split"}));
  // Without swiglu among the eager ops (fused SwiGLU reads strided halves at full rate), or
  // without a SwiGLU at all, it describes nothing: a typed error naming the key.
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"training.eager_ops=norm,gate_up_split"},
        std::vector<std::string>{"training.eager_ops=gate_up_split"},
        std::vector<std::string>{"model.mlp=gelu", "training.eager_ops=swiglu,gate_up_split"}})
    CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", bad),
                      Contains("training.eager_ops: gate_up_split is where an op-by-op SwiGLU "
                               "takes its gate and up halves") &&
                          Contains("needs model.mlp: swiglu and swiglu in training.eager_ops"));
}

TEST_CASE("validate: kv_repeat needs grouped-query heads") {
  // Llama-3.1-8B: 32 query heads in 8 groups, accepted; with as many groups as heads (multi-head
  // attention) there is nothing to expand: a typed error naming the key and the two counts.
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml", {"training.eager_ops=rope,kv_repeat"}));
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml", {"model.kv_heads=32", "training.eager_ops=kv_repeat"}),
      Contains("training.eager_ops: kv_repeat expands grouped-query K and V to every query head") &&
          Contains("needs model.kv_heads below model.heads (got 32 of 32)"));
}

TEST_CASE("validate: the FP8 output projection needs FP8 training under the MXFP8 recipe",
          "[fp8]") {
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml",
                               {"training.precision=fp8", "cluster.gpu=b200",
                                "training.fp8_recipe=mxfp8", "training.fp8_output_proj=true"}));
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", {"training.fp8_output_proj=true"}),
                    Contains("training.fp8_output_proj: the MXFP8 output projection needs "
                             "training.precision: fp8, got bf16"));
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml",
                     {"training.precision=fp8", "training.fp8_output_proj=true"}),
      Contains("training.fp8_output_proj:") && Contains("give training.fp8_recipe: mxfp8"));
}

TEST_CASE("validate: FP8 attention is cuDNN's, in FP8 training, on B200", "[fp8]") {
  const std::vector<std::string> b200{"training.precision=fp8", "cluster.gpu=b200",
                                      "training.attention=cudnn"};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), b200.begin(), b200.end());
    return extra;
  };
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml", with({"training.fp8_attention=true"})));
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", {"training.fp8_attention=true"}),
                    Contains("training.fp8_attention: FP8 attention needs training.precision: "
                             "fp8, got bf16"));
  CHECK_THROWS_WITH(
      parse_scenario(
          kBase, "test.yaml",
          {"training.precision=fp8", "training.attention=cudnn", "training.fp8_attention=true"}),
      Contains("training.fp8_attention: FP8 attention has figures on Blackwell only (b200, "
               "gb200") &&
          Contains("got h100-sxm"));
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml",
                                   {"training.precision=fp8", "cluster.gpu=b200",
                                    "training.attention=unfused", "training.fp8_attention=true"}),
                    Contains("give training.attention: cudnn"));
}

TEST_CASE("validate: FP8 dispatch needs FP8 training, and is idle without expert parallelism",
          "[fp8][moe]") {
  const char* const moe = kMoe;  // 8 experts on 8 GPUs as dp 8
  CHECK_NOTHROW(
      parse_scenario(moe, "moe.yaml",
                     {"training.precision=fp8", "parallelism.ep=4", "training.fp8_dispatch=true"}));
  CHECK_THROWS_WITH(
      parse_scenario(moe, "moe.yaml", {"parallelism.ep=4", "training.fp8_dispatch=true"}),
      Contains("training.fp8_dispatch: FP8 dispatch needs training.precision: fp8, "
               "got bf16"));
  // ep 1 sends no tokens: accepted (a search over ep keeps the key), no all-to-all to price.
  const Scenario idle =
      parse_scenario(moe, "moe.yaml", {"training.precision=fp8", "training.fp8_dispatch=true"});
  CHECK(AnalyticCostModel(idle).ep_collectives(Op::F, 0).empty());
}

TEST_CASE("validate: training.cudnn_version is a cuDNN release, for cuDNN's attention", "[cudnn]") {
  const std::vector<std::string> cudnn{"cluster.gpu=b200", "training.attention=cudnn"};
  auto with = [&](std::string v) {
    std::vector<std::string> o = cudnn;
    o.push_back("training.cudnn_version=" + v);
    return o;
  };
  // MAJOR.MINOR, or with the patch and build (ignored).
  for (const char* v : {"9.13", "9.13.1", "9.13.1.26"})
    CHECK(parse_scenario(kBase, "test.yaml", with(v)).training.cudnn_version ==
          CudnnVersion{9, 13});
  // 9.9 is older than 9.13, not 9.90: compared as numbers, part by part.
  CHECK(*parse_scenario(kBase, "test.yaml", with("9.9")).training.cudnn_version <
        CudnnVersion{9, 13});
  // Without it: none (the newest measured).
  CHECK_FALSE(parse_scenario(kBase, "test.yaml", cudnn).training.cudnn_version);
  // Leading zeros, spaces and over-long parts are not a release's spelling either.
  for (const char* bad : {"9", "nine", "9.x", "9.13.1.26.0", "9..1", "-9.1", "9.13.", "09.4",
                          "9.04", "9 .4", "9.1000"})
    CHECK_THROWS_WITH(
        parse_scenario(kBase, "test.yaml", with(bad)),
        Contains("training.cudnn_version") && Contains("expected a cuDNN release as MAJOR.MINOR"));
  // From 8.9 (cuDNN's first fused flash attention) to 10.x; an NGC container's tag is refused
  // rather than read as a release.
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml", with("8.9")));
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml", with("10.2")));
  for (const char* out : {"8.6", "7.6", "25.09", "24.02", "11.0"})
    CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", with(out)),
                      Contains("training.cudnn_version: expected a cuDNN release from 8.9") &&
                          Contains("10.x, got \"" + std::string(out) + "\""));
  // Only cuDNN's attention reads it.
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml",
                     {"training.attention=flash2", "training.cudnn_version=9.13"}),
      Contains("training.cudnn_version: a cuDNN release prices cuDNN's fused attention only"));
}

TEST_CASE("validate: LoRA's rank splits over TP, and its all-to-all needs SP", "[lora]") {
  // dp 1 · tp 2 · pp 4 = 8 GPUs.
  const std::vector<std::string> tp2{"parallelism.dp=1", "parallelism.tp=2"};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), tp2.begin(), tp2.end());
    return extra;
  };
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml", with({"training.lora_rank=16"})));
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", with({"training.lora_rank=15"})),
                    Contains("training.lora_rank: rank 15 must be a multiple of tp = 2"));
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml",
                     with({"training.lora_rank=16", "training.lora_all_to_all=true"})),
      Contains("training.lora_all_to_all: the adapters' all-to-all exchanges sequence-parallel "
               "shards"));
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml",
                               with({"training.lora_rank=16", "training.lora_all_to_all=true",
                                     "parallelism.sequence_parallel=true"})));
  // Transformer Engine's fused LoRA linear: only with LoRA; at tp 2 accepted (NeMo's unfused
  // adapter runs there, so a search over tp keeps it).
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml",
                               with({"training.lora_rank=16", "training.lora_fused=true"})));
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", {"training.lora_fused=true"}),
                    Contains("training.lora_fused: applies to LoRA only"));
}

TEST_CASE("validate: context parallelism by all-to-all needs heads that divide by cp", "[cp]") {
  // Llama-3.1-8B: 32 query and 8 key-value heads. dp 1 · cp 2 · pp 4 splits them; cp 16 (with
  // 16 × 4 = 64 GPUs) leaves 8 key-value heads for 16 ranks.
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml",
                               {"parallelism.dp=1", "parallelism.cp=2",
                                "parallelism.cp_comm=all_to_all", "training.attention=flash2"}));
  CHECK_THROWS_WITH(
      parse_scenario(kBase, "test.yaml",
                     {"parallelism.dp=1", "parallelism.cp=16", "cluster.nodes=8",
                      "parallelism.cp_comm=all_to_all", "training.attention=flash2"}),
      Contains("parallelism.cp_comm: all_to_all splits each TP rank's 32 query and 8 key-value "
               "heads over cp = 16"));
}

TEST_CASE("validate: a GB200 or GB300 node is at most one NVL72 rack's 72 GPUs", "[gb200][gb300]") {
  const std::vector<std::string> rack{"cluster.gpu=gb200",
                                      "training.attention=cudnn",
                                      "cluster.gpus_per_node=72",
                                      "parallelism.dp=72",
                                      "parallelism.tp=1",
                                      "parallelism.pp=1",
                                      "training.global_batch_size=72"};
  CHECK_NOTHROW(parse_scenario(kBase, "test.yaml", rack));
  std::vector<std::string> two = rack;
  two[2] = "cluster.gpus_per_node=144";
  two[3] = "parallelism.dp=144";
  two[6] = "training.global_batch_size=144";
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", two),
                    Contains("cluster.gpus_per_node: a gb200 node is the NVL72 rack's NVLink "
                             "domain: at most 72 GPUs, got 144"));
  two[0] = "cluster.gpu=gb300";
  CHECK_THROWS_WITH(parse_scenario(kBase, "test.yaml", two), Contains("a gb300 node"));
}

TEST_CASE("validate: layers given per stage, one count a stage summing to the model's") {
  // Llama-3.1-8B's 32 layers over pp 4 (line 7 gives them); pp 2 in code: four counts for two
  // stages, named at the key's line.
  const auto with = [](const std::string& list) {
    return std::string(kBase) + "  pipeline_split: {layers: " + list + "}\n";
  };
  Scenario s = test::yaml(with("[10, 8, 8, 6]"));
  CHECK_NOTHROW(validate(s));
  s.layout.pp = 2;
  s.layout.dp = 4;
  CHECK_THROWS_WITH(validate(s), Contains("test.yaml:7: parallelism.pipeline_split.layers: 4 "
                                          "entries, but the layout has pp × vpp = 2 × 1 = 2 "
                                          "stages"));
  CHECK_THROWS_WITH(test::yaml(with("[10, 8, 8, 7]")),
                    Contains("the stages' layers sum to 33, the model has 32"));
  CHECK_THROWS_WITH(test::yaml(with("[16, 0, 8, 8]")),
                    Contains("stage 1 holds no layer: only the first (with the embedding) and "
                             "the last (with the head) may"));
  CHECK_NOTHROW(test::yaml(with("[0, 16, 16, 0]")));
  CHECK_THROWS_WITH(test::yaml(with("[10, 8, 8, 6], loss: true")),
                    Contains("the embedding, loss and modules are not counted then"));
  CHECK_THROWS_WITH(test::yaml(with("[10, -8, 8, 6]")),
                    Contains("parallelism.pipeline_split.layers[1]: expected an integer in [0, "));
}

TEST_CASE("validate: a sliding window shorter than the sequence is refused, not priced whole") {
  // A 4,096-token window at seq_len 4,096 binds nowhere: accepted. At 8,192 each query sees
  // 4,096 keys where causal attention averages 4,096 too but computes 8,192²/2 = 33.6 M pairs
  // against 8,192·4,096 − 4,096²/2 = 25.2 M: full attention would be 1.33 times the work.
  Scenario s = parse_scenario(kBase, "test.yaml", {"model.sliding_window=4096"});
  CHECK(s.model->sliding_window == 4096);
  CHECK_NOTHROW(validate(s));
  s.training.seq_len = 8192;  // an edit in code: the window now binds
  CHECK_THROWS_WITH(validate(s), Contains("--set model.sliding_window=4096: model.sliding_window: "
                                          "a 4096-token attention window is shorter than "
                                          "training.seq_len (8192)") &&
                                     Contains("1.33 times"));
  s.model->sliding_window = 0;  // full attention, as the message offers
  CHECK_NOTHROW(validate(s));
}
