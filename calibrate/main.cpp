// trainsim-calibrate: measured durations for trainsim's cost model. This file is the only
// place (with calibrate/CMakeLists.txt) that touches the CUDA runtime, cuBLASLt and NCCL.
// Exit codes: 0 ok, 2 bad input or no usable GPU (one line on stderr), 1 internal error.
#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nccl.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "cost/calibration_profile.h"
#include "nccl_tests.h"

namespace {

using namespace trainsim;

std::string now_iso8601() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string version_text(int v, int major_div, int minor_div, int minor_mod) {
  return fmt::format("{}.{}", v / major_div, (v / minor_div) % minor_mod);
}

// `device`: what the GPUs are, as text or JSON.
int cmd_device(bool json) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0)
    throw InputError(fmt::format("trainsim-calibrate: no CUDA device available ({})",
                                 err != cudaSuccess ? cudaGetErrorString(err) : "0 devices"));
  int driver = 0, runtime = 0, nccl = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  ncclGetVersion(&nccl);
  const std::size_t cublas = cublasLtGetVersion();
  nlohmann::json j;
  j["driver_cuda_version"] = version_text(driver, 1000, 10, 100);
  j["runtime_version"] = version_text(runtime, 1000, 10, 100);
  j["cublaslt_version"] =
      fmt::format("{}.{}.{}", cublas / 10000, (cublas / 100) % 100, cublas % 100);
  j["nccl_version"] = fmt::format("{}.{}.{}", nccl / 10000, (nccl / 100) % 100, nccl % 100);
  j["devices"] = nlohmann::json::array();
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, d);
    int clock_khz = 0, mem_clock_khz = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, d);
    cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, d);
    j["devices"].push_back({{"index", d},
                            {"name", p.name},
                            {"sms", p.multiProcessorCount},
                            {"memory_bytes", p.totalGlobalMem},
                            {"sm_clock_mhz", clock_khz / 1000},
                            {"memory_clock_mhz", mem_clock_khz / 1000},
                            {"compute_capability", fmt::format("{}.{}", p.major, p.minor)}});
  }
  if (json) {
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format(
      "driver (CUDA) {} · runtime {} · cuBLASLt {} · NCCL {}\n",
      j["driver_cuda_version"].get<std::string>(), j["runtime_version"].get<std::string>(),
      j["cublaslt_version"].get<std::string>(), j["nccl_version"].get<std::string>());
  for (const auto& d : j["devices"])
    std::cout << fmt::format(
        "GPU {}: {} · {} SMs · {:.1f} GiB · SM clock {} MHz · memory clock {} MHz · compute "
        "capability {}\n",
        d["index"].get<int>(), d["name"].get<std::string>(), d["sms"].get<int>(),
        d["memory_bytes"].get<double>() / (1024.0 * 1024 * 1024), d["sm_clock_mhz"].get<int>(),
        d["memory_clock_mhz"].get<int>(), d["compute_capability"].get<std::string>());
  return 0;
}

// `import-nccl-tests`: logs -> one profile.
int cmd_import(const std::vector<std::string>& logs, const std::string& out) {
  CalibrationProfile p;
  p.provenance.date = now_iso8601();
  std::map<std::string, int> per_op;
  for (const auto& path : logs) {
    std::ifstream in(path);
    if (!in) throw InputError("cannot open \"" + path + "\"");
    std::stringstream ss;
    ss << in.rdbuf();
    for (auto& s : parse_nccl_tests(ss.str(), path)) {
      ++per_op[fmt::format("{}×{} {}", s.op, s.group_size, s.link)];
      p.collectives.push_back(std::move(s));
    }
  }
  save_profile(p, out);
  std::cout << fmt::format("imported {} samples from {} log(s) into {}:\n", p.collectives.size(),
                           logs.size(), out);
  for (const auto& [what, n] : per_op) std::cout << fmt::format("  {:<32} {} sizes\n", what, n);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"trainsim-calibrate: measured GPU and collective durations for trainsim"};
  app.set_version_flag("--version", "trainsim-calibrate " TRAINSIM_VERSION);
  app.require_subcommand(1);
  bool json = false;
  auto* dev = app.add_subcommand("device", "Describe the local GPUs and library versions");
  dev->add_flag("--json", json, "Print as JSON");
  std::vector<std::string> logs;
  std::string out = "calibration.json";
  auto* imp = app.add_subcommand(
      "import-nccl-tests",
      "Read nccl-tests logs (text or -J JSON) into a calibration profile (no GPU needed)");
  imp->add_option("logs", logs, "nccl-tests output files")->required()->check(CLI::ExistingFile);
  imp->add_option("--out", out, "Profile to write")->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    if (*dev) return cmd_device(json);
    if (*imp) return cmd_import(logs, out);
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "trainsim-calibrate: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
