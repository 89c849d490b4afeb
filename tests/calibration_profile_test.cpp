#include "cost/calibration_profile.h"

#include <cstdio>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/error.h"

using namespace trainsim;

TEST_CASE("calibration profile: write and read back the same numbers", "[calibration]") {
  CalibrationProfile p;
  p.provenance = {"NVIDIA H100 80GB HBM3", "580.65", "13.0", "13.0.1", "2.27.7",
                  "2026-11-21T10:00:00Z",  "node-a"};
  p.gemms.push_back({4096, 4096, 4096, "bf16", 190e-6, 3e-6, "measured", ""});
  p.memory.push_back({"copy", 1 << 30, 400e-6, 2e-6, "measured", ""});
  p.collectives.push_back(
      {"all_reduce", 8, "intra_node", 4194304, 100e-6, 41.94e9, 73.4e9, "nccl-tests", "a.log:23"});
  p.attention.push_back(
      {"backward", 4096, 128, 32, true, 1.55e-3, 2e-4, "torch-trace", "t.json.gz rank 0"});
  const std::string path = "calibration_profile_test.json";
  save_profile(p, path);
  const CalibrationProfile q = load_profile(path);
  std::remove(path.c_str());
  CHECK(q.provenance.device == p.provenance.device);
  CHECK(q.provenance.nccl == "2.27.7");
  REQUIRE(q.gemms.size() == 1);
  CHECK(q.gemms[0].m == 4096);
  CHECK(q.gemms[0].time_s == p.gemms[0].time_s);
  REQUIRE(q.memory.size() == 1);
  CHECK(q.memory[0].bytes == 1 << 30);
  CHECK(q.memory[0].spread_s == 2e-6);
  REQUIRE(q.collectives.size() == 1);
  CHECK(q.collectives[0].busbw == p.collectives[0].busbw);
  CHECK(q.collectives[0].source == "a.log:23");
  REQUIRE(q.attention.size() == 1);
  CHECK(q.attention[0].pass == "backward");
  CHECK(q.attention[0].heads == 32);
  // 2.5 × 4·4096²·128·32·½ = 343.6 GFLOP
  CHECK(q.attention[0].flops() == Approx(2.5 * 2.0 * 4096.0 * 4096 * 128 * 32));
  CHECK(profile_to_json(q) == profile_to_json(p));
}

TEST_CASE("calibration profile: bad fields are named with what is allowed", "[calibration]") {
  using nlohmann::json;
  const json base = {{"format", "trainsim-calibration"}, {"version", 1}};
  CHECK_THROWS_WITH(profile_from_json(json::object(), "p.json"),
                    Catch::Contains("p.json: format: not a trainsim calibration profile"));
  json v = base;
  v["version"] = 7;
  CHECK_THROWS_WITH(profile_from_json(v, "p.json"), Catch::Contains("version"));
  json c = base;
  c["collectives"] = {{{"op", "broadcast"}, {"group_size", 8}, {"bytes", 1}, {"time_s", 1}}};
  CHECK_THROWS_WITH(profile_from_json(c, "p.json"),
                    Catch::Contains("collectives[0].op") && Catch::Contains("all_reduce"));
  json g = base;
  g["gemm"] = {{{"m", 1}, {"n", 2}, {"k", -3}, {"time_s", 1}}};
  CHECK_THROWS_WITH(profile_from_json(g, "p.json"),
                    Catch::Contains("gemm[0].k: expected a positive number"));
  json m = base;
  m["memory"] = {{{"kernel", "copy"}, {"bytes", 1024}, {"time_s", 0}}};
  CHECK_THROWS_WITH(profile_from_json(m, "p.json"),
                    Catch::Contains("memory[0].time_s: expected a positive number"));
  m["memory"] = {{{"kernel", "triad"}, {"bytes", 1024}, {"time_s", 1}}};
  CHECK_THROWS_WITH(profile_from_json(m, "p.json"),
                    Catch::Contains("memory[0].kernel: expected copy"));
  json a = base;
  a["attention"] = {
      {{"pass", "sideways"}, {"seq", 8}, {"head_dim", 8}, {"heads", 1}, {"time_s", 1}}};
  CHECK_THROWS_WITH(profile_from_json(a, "p.json"),
                    Catch::Contains("attention[0].pass: expected forward or backward"));
  a["attention"] = {{{"seq", 8}, {"head_dim", 8}, {"heads", 1}, {"causal", "yes"}, {"time_s", 1}}};
  CHECK_THROWS_WITH(profile_from_json(a, "p.json"),
                    Catch::Contains("attention[0].causal: expected true or false"));
  CHECK_THROWS_WITH(load_profile("/no/such/profile.json"), Catch::Contains("cannot open"));
}

TEST_CASE("calibration profile: an unknown field, a repeated sample or a mistyped text is refused",
          "[calibration]") {
  using nlohmann::json;
  const json base = {{"format", "trainsim-calibration"}, {"version", 1}};
  const json gemm = {{"m", 1024}, {"n", 1024}, {"k", 1024}, {"time_s", 5e-6}};
  // A misspelt section would be skipped and the run priced without it: named, with the spelling
  // meant.
  json typo = base;
  typo["gem"] = json::array({gemm});
  CHECK_THROWS_WITH(profile_from_json(typo, "p.json"),
                    Catch::Contains("p.json: gem: unknown field (did you mean \"gemm\"?)") &&
                        Catch::Contains("expected format, version, provenance, gemm"));
  json field = base;
  field["gemm"] = json::array({gemm});
  field["gemm"][0]["time_ms"] = 0.005;
  CHECK_THROWS_WITH(profile_from_json(field, "p.json"),
                    Catch::Contains("gemm[0].time_ms: unknown field (did you mean \"time_s\"?)"));
  // A time past an hour (1e300 s would overflow the simulator's nanoseconds) or bytes past a
  // petabyte: a unit slip or a damaged file, refused where it is, not later in the run.
  field = base;
  field["gemm"] = json::array({gemm});
  field["gemm"][0]["time_s"] = 1e300;
  CHECK_THROWS_WITH(profile_from_json(field, "p.json"),
                    Catch::Contains("p.json: gemm[0].time_s: 1e+300 s: past any measurement"));
  field = base;
  field["collectives"] = json::array({{{"op", "all_reduce"},
                                       {"group_size", 8},
                                       {"link", "intra_node"},
                                       {"bytes", 1e23},
                                       {"time_s", 1e-3}}});
  CHECK_THROWS_WITH(profile_from_json(field, "p.json"),
                    Catch::Contains("collectives[0].bytes: 1e+23 bytes: past any measurement"));
  field["collectives"][0]["bytes"] = 1e9;  // 1 GB in 1 ms: fine
  CHECK(profile_from_json(field, "p.json").collectives.size() == 1);
  field = base;
  field["provenance"] = {{"devce", "NVIDIA H100 80GB HBM3"}};
  CHECK_THROWS_WITH(profile_from_json(field, "p.json"),
                    Catch::Contains("provenance.devce: unknown field (did you mean \"device\"?)"));
  // A number where a name belongs was read as the default ("dtype": 16 as bf16).
  json dtype = base;
  dtype["gemm"] = json::array({gemm});
  dtype["gemm"][0]["dtype"] = 16;
  CHECK_THROWS_WITH(profile_from_json(dtype, "p.json"),
                    Catch::Contains("gemm[0].dtype: expected a string, got 16"));
  // Two times for one key: which prices the kernel would be the file's order.
  json twice = base;
  twice["gemm"] = json::array({gemm, gemm});
  twice["gemm"][1]["time_s"] = 5e-4;
  CHECK_THROWS_WITH(profile_from_json(twice, "p.json"),
                    Catch::Contains("gemm[1]: the same shape (m, n, k, dtype) as gemm[0]"));
  twice["gemm"][1]["dtype"] = "fp16";  // another dtype is another sample
  CHECK(profile_from_json(twice, "p.json").gemms.size() == 2);
  json coll = base;
  const json ar = {{"op", "all_reduce"}, {"group_size", 8}, {"bytes", 1 << 20}, {"time_s", 2e-5}};
  coll["collectives"] = json::array({ar, ar});
  CHECK_THROWS_WITH(profile_from_json(coll, "p.json"),
                    Catch::Contains("collectives[1]: the same operation, group size, link and size "
                                    "as collectives[0]"));
  coll["collectives"][1]["link"] = "inter_node";
  CHECK(profile_from_json(coll, "p.json").collectives.size() == 2);
  json notobject = base;
  notobject["memory"] = json::array({3});
  CHECK_THROWS_WITH(profile_from_json(notobject, "p.json"),
                    Catch::Contains("memory[0]: expected an object"));
}

TEST_CASE("calibration profile: the GPU model a device name names", "[calibration]") {
  CHECK(gpu_model("NVIDIA H100 80GB HBM3") == "H100");
  CHECK(gpu_model("8× NVIDIA H100 80GB HBM3 over 2 nodes") == "H100");
  CHECK(gpu_model("A100-SXM4-40GB") == "A100");
  CHECK(gpu_model("NVIDIA GB200") == "GB200");  // not B200
  CHECK(gpu_model("h200") == "H200");           // a preset's name
  CHECK(gpu_model("my own accelerator") == "");
}

TEST_CASE("calibration profile: names of different GPUs, and of the same", "[calibration]") {
  // Another form factor of the model: the SXM card (named "… HBM3" by CUDA) is not the PCIe one.
  CHECK(gpu_mismatch("NVIDIA H100 80GB HBM3", "h100-pcie") == "H100 SXM against H100 PCIe");
  CHECK(gpu_mismatch("NVIDIA H100 NVL", "h100-sxm") == "H100 NVL against H100 SXM");
  // Another memory size: A100 40GB's HBM2 runs at 1.555 TB/s, the 80GB's HBM2e at 2.039.
  CHECK(gpu_mismatch("NVIDIA A100-SXM4-40GB", "a100-sxm-80gb") == "A100 40 GB against 80 GB");
  CHECK(gpu_mismatch("NVIDIA H200", "NVIDIA H100 80GB HBM3") == "H200 against H100");
  // The same GPU however named; what a name leaves out is not a difference.
  CHECK(gpu_mismatch("NVIDIA H100 80GB HBM3", "h100-sxm").empty());
  CHECK(gpu_mismatch("NVIDIA A100-SXM4-80GB", "a100-sxm-80gb").empty());
  CHECK(gpu_mismatch("NVIDIA H200", "h200").empty());
  CHECK(gpu_mismatch("NVIDIA A100-SXM4-40GB", "A100").empty());
  CHECK(gpu_mismatch("my own accelerator", "h100-sxm").empty());
  CHECK(gpu_mismatch("NVIDIA GB200", "gb200").empty());
}

TEST_CASE("profile operations' bus factors are nccl-tests'") {
  // n = 8: all_reduce 2·7/8 = 1.75; all_gather, reduce_scatter, alltoall 7/8; sendrecv 1.
  CHECK(op_bus_factor("all_reduce", 8) == Approx(1.75));
  CHECK(op_bus_factor("all_gather", 8) == Approx(0.875));
  CHECK(op_bus_factor("reduce_scatter", 8) == Approx(0.875));
  CHECK(op_bus_factor("alltoall", 8) == Approx(0.875));
  CHECK(op_bus_factor("sendrecv", 8) == 1.0);
}
