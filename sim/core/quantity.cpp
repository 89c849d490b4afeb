#include "core/quantity.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace trainsim {
namespace {

struct Unit {
  std::string_view name;
  double scale;
};

// Time units.
constexpr std::array kTimeUnits{Unit{"ns", 1e-9}, Unit{"us", 1e-6}, Unit{"µs", 1e-6},
                                Unit{"ms", 1e-3}, Unit{"s", 1.0},   Unit{"min", 60.0}};

constexpr std::array kPrefixes{Unit{"", 1.0},
                               Unit{"k", 1e3},
                               Unit{"K", 1e3},
                               Unit{"M", 1e6},
                               Unit{"G", 1e9},
                               Unit{"T", 1e12},
                               Unit{"P", 1e15},
                               Unit{"Ki", 1024.0},
                               Unit{"Mi", 1048576.0},
                               Unit{"Gi", 1073741824.0},
                               Unit{"Ti", 1099511627776.0}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Scale of `unit` (the text after the number) for `dim`, or nullopt.
std::optional<double> unit_scale(std::string_view unit, Dimension dim) {
  switch (dim) {
    case Dimension::Time:
      for (const auto& u : kTimeUnits)
        if (u.name == unit) return u.scale;
      return std::nullopt;
    case Dimension::Money:
      if (unit == "$" || unit == "USD" || unit == "usd") return 1.0;
      return std::nullopt;
    default:
      break;
  }
  std::string_view base;
  std::array<std::string_view, 4> suffixes{};
  double bit = 1.0;
  if (dim == Dimension::Bytes) {
    suffixes = {"B", "", "", ""};
  } else if (dim == Dimension::Bandwidth) {
    suffixes = {"B/s", "Bps", "bit/s", "b/s"};
  } else {
    suffixes = {"FLOPS", "FLOP/s", "flops", "FLOPs"};
  }
  for (const auto& suffix : suffixes) {
    if (suffix.empty() || unit.size() < suffix.size()) continue;
    if (unit.substr(unit.size() - suffix.size()) != suffix) continue;
    base = unit.substr(0, unit.size() - suffix.size());
    bit = (suffix == "bit/s" || suffix == "b/s") ? 1.0 / 8.0 : 1.0;
    for (const auto& p : kPrefixes)
      if (p.name == base) return p.scale * bit;
  }
  return std::nullopt;
}

}  // namespace

std::string allowed_units(Dimension dim) {
  switch (dim) {
    case Dimension::Time:
      return "ns, us, ms, s, min (e.g. \"18.5ms\")";
    case Dimension::Bytes:
      return "B, kB, MB, GB, TB, KiB, MiB, GiB, TiB (e.g. \"25MB\")";
    case Dimension::Bandwidth:
      return "B/s, MB/s, GB/s, TB/s, GiB/s, Gbit/s (e.g. \"450GB/s\")";
    case Dimension::Flops:
      return "FLOPS, GFLOPS, TFLOPS, PFLOPS or FLOP/s forms (e.g. \"989TFLOPS\")";
    case Dimension::Money:
      return "an amount in dollars, optionally with \"$\" (e.g. \"2.5\")";
  }
  return "";
}

std::optional<double> parse_quantity(std::string_view text, Dimension dim, std::string* error) {
  std::string_view s = trim(text);
  if (dim == Dimension::Money && !s.empty() && s.front() == '$') s.remove_prefix(1);
  double value = 0;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr == begin) {
    if (error)
      *error = dim == Dimension::Money
                   ? fmt::format("expected {}, got \"{}\"", allowed_units(dim), text)
                   : fmt::format("expected a quantity in {}, got \"{}\"", allowed_units(dim), text);
    return std::nullopt;
  }
  std::string_view unit = trim(std::string_view(ptr, static_cast<std::size_t>(end - ptr)));
  if (!std::isfinite(value) || value < 0) {
    if (error) *error = fmt::format("expected a finite, non-negative quantity, got \"{}\"", text);
    return std::nullopt;
  }
  if (unit.empty()) {
    if (dim == Dimension::Money) return value;
    if (error)
      *error = fmt::format("\"{}\" has no unit; write it with one of {}", text, allowed_units(dim));
    return std::nullopt;
  }
  auto scale = unit_scale(unit, dim);
  if (!scale) {
    if (error)
      *error =
          fmt::format("unknown unit \"{}\" in \"{}\"; allowed: {}", unit, text, allowed_units(dim));
    return std::nullopt;
  }
  return value * *scale;
}

std::string format_time(double seconds) {
  const double a = std::fabs(seconds);
  if (a >= 1.0) return fmt::format("{:.3f} s", seconds);
  if (a >= 1e-3) return fmt::format("{:.3f} ms", seconds * 1e3);
  if (a >= 1e-6) return fmt::format("{:.3f} us", seconds * 1e6);
  return fmt::format("{:.0f} ns", seconds * 1e9);
}

std::string format_bytes(double bytes) {
  const double a = std::fabs(bytes);
  if (a >= 1e12) return fmt::format("{:.2f} TB", bytes / 1e12);
  if (a >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (a >= 1e6) return fmt::format("{:.2f} MB", bytes / 1e6);
  if (a >= 1e3) return fmt::format("{:.2f} kB", bytes / 1e3);
  return fmt::format("{:.0f} B", bytes);
}

std::string format_count(double n) {
  static constexpr std::array<std::pair<double, const char*>, 4> kScales{
      {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "k"}}};
  for (const auto& [scale, suffix] : kScales)
    if (std::fabs(n) >= scale * 0.9995) {
      const double v = n / scale;
      // Past the largest scale, the whole number grouped: "769,693 T", not "769693 T".
      if (scale == kScales.front().first && std::fabs(v) >= 999.5)
        return thousands(v) + " " + suffix;
      // 3 significant digits: 1.23, 12.3, 123.
      const int decimals = std::fabs(v) >= 99.95 ? 0 : std::fabs(v) >= 9.995 ? 1 : 2;
      return fmt::format("{:.{}f} {}", v, decimals, suffix);
    }
  return fmt::format("{:.0f}", n);
}

std::string thousands(double v) {
  std::string digits = fmt::format("{:.0f}", v), out;
  const int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    out += digits[static_cast<std::size_t>(i)];
    if ((n - i - 1) % 3 == 0 && i + 1 < n && digits[static_cast<std::size_t>(i)] != '-') out += ',';
  }
  return out;
}

std::string counted(double n, std::string_view noun) {
  const bool es = noun.ends_with("ch") || noun.ends_with("sh") || noun.ends_with('s') ||
                  noun.ends_with('x');  // "micro-batches"
  return fmt::format("{} {}{}", thousands(n), noun, n == 1 ? "" : es ? "es" : "s");
}

}  // namespace trainsim
