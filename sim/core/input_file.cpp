#include "core/input_file.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace trainsim {

namespace {

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::string read_input_file(const std::string& path, const std::string& what,
                            std::size_t max_bytes) {
  // stat before open: opening a FIFO for reading blocks until a writer comes.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw InputError(fmt::format("{} {}: cannot open: {}", what, path, std::strerror(errno)));
  if (!S_ISREG(st.st_mode))
    throw InputError(fmt::format("{} {}: is {}, expected a file", what, path, kind_of(st.st_mode)));
  if (static_cast<unsigned long long>(st.st_size) > max_bytes)
    throw InputError(fmt::format("{} {}: {} bytes is larger than the {} MiB allowed", what, path,
                                 st.st_size, max_bytes >> 20));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{} {}: cannot open", what, path));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(fmt::format("{} {}: read error", what, path));
  std::string text = ss.str();
  if (text.size() > max_bytes)  // it grew while we read
    throw InputError(
        fmt::format("{} {}: larger than the {} MiB allowed", what, path, max_bytes >> 20));
  return text;
}

void write_output_file(const std::string& path, const std::string& content,
                       const std::string& what) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f)
    throw InputError(fmt::format("{} {}: cannot write: {}", what, path, std::strerror(errno)));
  const std::size_t n = std::fwrite(content.data(), 1, content.size(), f);
  const int write_errno = errno;
  const bool flushed = std::fflush(f) == 0;
  const int flush_errno = errno;
  const bool closed = std::fclose(f) == 0;
  if (n != content.size() || !flushed || !closed)
    throw InputError(fmt::format("{} {}: write failed: {}", what, path,
                                 std::strerror(n != content.size() ? write_errno : flush_errno)));
}

}  // namespace trainsim
