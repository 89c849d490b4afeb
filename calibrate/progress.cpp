#include "progress.h"

#include <unistd.h>

#include <cmath>

#include <fmt/format.h>

namespace trainsim {

std::string progress_line(std::size_t done, std::size_t total, double eta_s,
                          const std::string& label, int width) {
  const double f = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(std::floor(f * width));
  std::string bar;
  for (int i = 0; i < width; ++i) bar += i < filled ? "#" : "·";
  std::string eta;
  if (eta_s >= 0) {
    const long s = std::lround(eta_s);
    eta = s >= 60 ? fmt::format("  eta {}m{:02}s", s / 60, s % 60) : fmt::format("  eta {}s", s);
  }
  const int digits = static_cast<int>(fmt::format("{}", total).size());
  return fmt::format("[{}] {:>{}}/{}  {:3.0f}%{}  {}", bar, done, digits, total, 100 * f, eta,
                     label);
}

Progress::Progress(std::size_t total, std::FILE* out)
    : total_(total),
      out_(out),
      tty_(out != nullptr && isatty(fileno(out)) != 0),
      start_(std::chrono::steady_clock::now()) {}

void Progress::step(std::size_t done, const std::string& label) {
  if (!out_) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta =
      done == 0 ? -1.0 : elapsed / static_cast<double>(done) * static_cast<double>(total_ - done);
  const std::string line = progress_line(done, total_, eta, label);
  if (tty_) {
    std::fprintf(out_, "\r\033[K%s", line.c_str());
    std::fflush(out_);
    return;
  }
  const int tenth = total_ == 0 ? 10 : static_cast<int>(10 * done / total_);
  if (tenth != last_tenth_) {
    last_tenth_ = tenth;
    std::fprintf(out_, "%s\n", line.c_str());
  }
}

void Progress::finish() {
  if (!out_) return;
  if (tty_) std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
}

}  // namespace trainsim
