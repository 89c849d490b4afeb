#include "gpu.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "core/error.h"

namespace trainsim::gpu {

void check(cudaError_t e, const char* call, const char* file, int line) {
  if (e != cudaSuccess)
    throw GpuError(fmt::format("{} failed: {} ({}:{})", call, cudaGetErrorString(e), file, line));
}
void check(cublasStatus_t s, const char* call, const char* file, int line) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw GpuError(
        fmt::format("{} failed: {} ({}:{})", call, cublasLtGetStatusString(s), file, line));
}
void check(ncclResult_t r, const char* call, const char* file, int line) {
  if (r != ncclSuccess)
    throw GpuError(fmt::format("{} failed: {} ({}:{})", call, ncclGetErrorString(r), file, line));
}

int require_devices(int at_least, const std::string& why) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    // Without the kernel driver the runtime says "driver version is insufficient", which
    // sends one to upgrade a driver that is not there: say what is missing.
    const bool driver = std::filesystem::exists("/proc/driver/nvidia/version");
    throw InputError(fmt::format(
        "trainsim-calibrate: no CUDA device available ({}); without a GPU, import-nccl-tests, "
        "import-torch-trace and gemm --dry-run still work",
        !driver ? "no NVIDIA driver on this machine: /proc/driver/nvidia/version is missing"
        : err != cudaSuccess ? cudaGetErrorString(err)
                             : "the driver sees 0 devices"));
  }
  if (count < at_least)
    throw InputError(fmt::format("trainsim-calibrate: {} (this machine has {} GPU{})", why, count,
                                 count == 1 ? "" : "s"));
  return count;
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  TRAINSIM_GPU(cudaMalloc(&p_, std::max<std::size_t>(bytes, 1)));
}
DeviceBuffer::~DeviceBuffer() {
  if (p_) cudaFree(p_);
}
DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept : p_(o.p_), bytes_(o.bytes_) {
  o.p_ = nullptr;
  o.bytes_ = 0;
}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  std::swap(p_, o.p_);
  std::swap(bytes_, o.bytes_);
  return *this;
}

void fill_random(DeviceBuffer& buf, bool fp16, unsigned seed) {
  // A 16 MiB block of random values, tiled over the buffer. Bit patterns are built directly:
  // random sign and mantissa, exponent from 2^-5 to 2^-1 (|x| < 1, no zeros, no NaN).
  std::mt19937 rng(seed);
  std::vector<std::uint16_t> block(std::size_t{8} << 20);
  for (auto& v : block) {
    const std::uint32_t r = rng();
    const std::uint16_t sign = static_cast<std::uint16_t>((r >> 31) << 15);
    if (fp16)  // 5 exponent bits (bias 15), 10 mantissa bits
      v = sign | static_cast<std::uint16_t>((10 + (r >> 10) % 5) << 10) |
          static_cast<std::uint16_t>(r & 0x3FF);
    else  // bf16: 8 exponent bits (bias 127), 7 mantissa bits
      v = sign | static_cast<std::uint16_t>((122 + (r >> 10) % 5) << 7) |
          static_cast<std::uint16_t>(r & 0x7F);
  }
  const std::size_t block_bytes = block.size() * sizeof(std::uint16_t);
  auto* dst = static_cast<char*>(buf.get());
  for (std::size_t off = 0; off < buf.bytes(); off += block_bytes)
    TRAINSIM_GPU(cudaMemcpy(dst + off, block.data(), std::min(block_bytes, buf.bytes() - off),
                            cudaMemcpyHostToDevice));
}

Event::Event() {
  TRAINSIM_GPU(cudaEventCreate(&e_));
}
Event::~Event() {
  if (e_) cudaEventDestroy(e_);
}
double Event::since(const Event& start) const {
  TRAINSIM_GPU(cudaEventSynchronize(e_));
  float ms = 0;
  TRAINSIM_GPU(cudaEventElapsedTime(&ms, start.e_, e_));
  return ms * 1e-3;
}

}  // namespace trainsim::gpu
