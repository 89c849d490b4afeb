#pragma once
// CUDA, cuBLASLt and NCCL plumbing for trainsim-calibrate: status checks that throw with the
// failing call named, RAII device buffers and events, and the "is there a GPU" guard every
// GPU command starts with. Only calibrate/ includes this.
#include <cstddef>    // std::size_t
#include <stdexcept>  // std::runtime_error
#include <string>     // std::string
#include <vector>     // std::vector

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include "stats.h"

namespace trainsim::gpu {

/// A CUDA, cuBLASLt or NCCL call failed (after the device was found): exit 1 with its name.
struct GpuError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(cudaError_t e, const char* call, const char* file, int line);
void check(cublasStatus_t s, const char* call, const char* file, int line);
void check(ncclResult_t r, const char* call, const char* file, int line);
#define TRAINSIM_GPU(call) ::trainsim::gpu::check((call), #call, __FILE__, __LINE__)

/// The number of visible CUDA devices; throws InputError (one line, exit 2) when there is no
/// driver or no device, and when fewer than `at_least` exist (saying `why`).
int require_devices(int at_least = 1, const std::string& why = "");

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return p_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Fills `buf` with random 16-bit floats in (−1, 1) (`fp16` or else bf16): zeros would make
/// GEMMs run faster than real data does.
void fill_random(DeviceBuffer& buf, bool fp16, unsigned seed);

/// A CUDA event of the device current when it is made (record it only on that device's
/// streams); since() waits for the later one.
class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(cudaStream_t s) { TRAINSIM_GPU(cudaEventRecord(e_, s)); }
  /// Seconds from `start` to this event.
  double since(const Event& start) const;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace trainsim::gpu
