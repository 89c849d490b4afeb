#pragma once
// The files a user names. Reading (scenarios, Hugging Face configs, calibration profiles,
// schedule CSVs, nccl-tests logs): only regular files, of bounded size, so a directory, a FIFO
// or /dev/zero is a clear error instead of a hang or an exception from the standard library.
// Writing (traces, profiles, CSVs): atomic replacement, every write error reported.
#include <cstddef>     // std::size_t
#include <functional>  // std::function
#include <ostream>     // std::ostream
#include <string>      // std::string

namespace trainsim {

/// Files larger than this are refused (far beyond any scenario, config, profile or log).
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{256} << 20;  // 256 MiB

/// The whole content of `path`. Throws InputError "<what> <path>: …" when it does not exist,
/// is not a regular file (a directory, a FIFO, a device), is larger than `max_bytes`, or
/// cannot be read.
std::string read_input_file(const std::string& path, const std::string& what,
                            std::size_t max_bytes = kMaxInputFileBytes);

/// Writes what `body` streams to `path`; throws InputError naming `what` and the path when the
/// file cannot be opened, written or closed (a full disk, a missing folder, a read-only place,
/// a directory). A regular file is replaced atomically (written to PATH.tmp, then renamed), so
/// a failure leaves the old file; a device or FIFO (/dev/stdout, a pipe) is written in place.
void write_output(const std::string& path, const std::string& what,
                  const std::function<void(std::ostream&)>& body);
/// `name` as one safe file-name component: ASCII letters, digits, '-', '_' and '.' kept, every
/// run of other characters (a '/', a space, a control byte) becomes one '_', leading dots and
/// '_' are dropped, at most 100 bytes; "unnamed" when nothing is left. A scenario named "../../x"
/// stays in its folder.
std::string file_name_component(const std::string& name);

/// write_output of a string.
void write_output_file(const std::string& path, const std::string& content,
                       const std::string& what);

}  // namespace trainsim
