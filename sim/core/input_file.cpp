#include "core/input_file.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
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

void write_output(const std::string& path, const std::string& what,
                  const std::function<void(std::ostream&)>& body) {
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    throw InputError(fmt::format("{} {}: is a directory, expected a file name", what, path));
  // A regular file is replaced whole (written beside it, then renamed), so a failed write
  // never leaves half a file; a device or a FIFO (/dev/stdout, a pipe) is written in place.
  const bool in_place = exists && !S_ISREG(st.st_mode);
  const std::string target = in_place ? path : path + ".tmp";
  auto fail = [&](const char* doing, int err) {
    if (!in_place) std::remove(target.c_str());
    return InputError(fmt::format("{} {}: {}: {}", what, path, doing, std::strerror(err)));
  };
  errno = 0;
  std::ofstream out(target, std::ios::binary | std::ios::trunc);
  if (!out && exists && !in_place) {
    // The file is there but its folder takes no new file (/proc, a read-only mount): say so,
    // rather than give the temporary file's reason as the file's own.
    const std::string reason = std::strerror(errno ? errno : EACCES);
    throw InputError(fmt::format("{} {}: cannot write a new file beside it ({}: {})", what, path,
                                 target, reason));
  }
  if (!out) throw fail("cannot write", errno ? errno : EACCES);
  body(out);
  out.flush();
  const int err = errno;
  if (!out) throw fail("write failed", err ? err : EIO);
  out.close();
  if (!out) throw fail("write failed", errno ? errno : EIO);
  if (!in_place && std::rename(target.c_str(), path.c_str()) != 0)
    throw fail("cannot replace", errno);
}

std::string file_name_component(const std::string& name) {
  std::string out;
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    const bool keep = std::isalnum(c) || c == '-' || c == '_' || c == '.';
    if (keep)
      out += static_cast<char>(c);
    else if (out.empty() || out.back() != '_')
      out += '_';  // a run of other characters becomes one '_'
  }
  const std::size_t first = out.find_first_not_of("._");  // no ".", "..", or hidden file
  out = first == std::string::npos ? std::string() : out.substr(first, 100);
  return out.empty() ? "unnamed" : out;
}

void write_output_file(const std::string& path, const std::string& content,
                       const std::string& what) {
  write_output(path, what, [&](std::ostream& out) { out << content; });
}

}  // namespace trainsim
