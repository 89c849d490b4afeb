#pragma once
// Reading the files a user names (scenarios, Hugging Face configs, calibration profiles,
// schedule CSVs, nccl-tests logs): only regular files, of bounded size, so a directory, a FIFO
// or /dev/zero is a clear error instead of a hang or an exception from the standard library.
#include <cstddef>  // std::size_t
#include <string>   // std::string

namespace trainsim {

/// Files larger than this are refused (far beyond any scenario, config, profile or log).
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{256} << 20;  // 256 MiB

/// The whole content of `path`. Throws InputError "<what> <path>: …" when it does not exist,
/// is not a regular file (a directory, a FIFO, a device), is larger than `max_bytes`, or
/// cannot be read.
std::string read_input_file(const std::string& path, const std::string& what,
                            std::size_t max_bytes = kMaxInputFileBytes);

/// Writes `content` to `path` (replacing it); throws InputError naming the path when the file
/// cannot be opened, written or closed (a full disk, a missing folder, a read-only place).
void write_output_file(const std::string& path, const std::string& content,
                       const std::string& what);

}  // namespace trainsim
