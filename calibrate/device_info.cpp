#include "device_info.h"

#include <unistd.h>

#include <ctime>

#include <fmt/format.h>

#include "gpu.h"
#include "profile_update.h"

namespace trainsim {
namespace {

std::string version_text(int v, int major_div, int minor_div, int minor_mod) {
  return fmt::format("{}.{}", v / major_div, (v / minor_div) % minor_mod);
}

}  // namespace

nlohmann::json describe_devices() {
  const int count = gpu::require_devices();
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
    TRAINSIM_GPU(cudaGetDeviceProperties(&p, d));
    int clock_khz = 0, mem_clock_khz = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, d);
    cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, d);
    j["devices"].push_back({{"index", d},
                            {"name", p.name},
                            {"sms", p.multiProcessorCount},
                            {"memory_bytes", p.totalGlobalMem},
                            {"l2_bytes", p.l2CacheSize},
                            {"sm_clock_mhz", clock_khz / 1000},
                            {"memory_clock_mhz", mem_clock_khz / 1000},
                            {"compute_capability", fmt::format("{}.{}", p.major, p.minor)}});
  }
  return j;
}

std::string describe_devices_text(const nlohmann::json& j) {
  std::string s = fmt::format(
      "driver (CUDA) {} · runtime {} · cuBLASLt {} · NCCL {}\n",
      j["driver_cuda_version"].get<std::string>(), j["runtime_version"].get<std::string>(),
      j["cublaslt_version"].get<std::string>(), j["nccl_version"].get<std::string>());
  for (const auto& d : j["devices"])
    s += fmt::format(
        "GPU {}: {} · {} SMs · {:.1f} GiB · L2 {:.0f} MiB · SM clock {} MHz · memory clock {} "
        "MHz · compute capability {}\n",
        d["index"].get<int>(), d["name"].get<std::string>(), d["sms"].get<int>(),
        d["memory_bytes"].get<double>() / (1024.0 * 1024 * 1024),
        d["l2_bytes"].get<double>() / (1024.0 * 1024), d["sm_clock_mhz"].get<int>(),
        d["memory_clock_mhz"].get<int>(), d["compute_capability"].get<std::string>());
  return s;
}

Provenance provenance_of(int d) {
  const nlohmann::json j = describe_devices();
  Provenance p;
  p.device = j["devices"].at(static_cast<std::size_t>(d))["name"].get<std::string>();
  p.driver = "CUDA " + j["driver_cuda_version"].get<std::string>();
  p.cuda = j["runtime_version"].get<std::string>();
  p.cublas = j["cublaslt_version"].get<std::string>();
  p.nccl = j["nccl_version"].get<std::string>();
  p.date = now_iso8601();
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) p.host = host;
  return p;
}

}  // namespace trainsim
