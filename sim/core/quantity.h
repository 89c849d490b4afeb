#pragma once
// Quantities with units as users write them in scenarios: "450GB/s", "25MB", "18.5ms", "10us",
// "989TFLOPS". Decimal prefixes (k, M, G, T, P) are powers of 1000; binary ones (Ki, Mi, Gi, Ti)
// powers of 1024. A bare number is rejected: a unit is required.
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view

namespace trainsim {

enum class Dimension { Time, Bytes, Bandwidth, Flops, Money };

/// Parses `text` as a quantity of `dim` and returns it in base units (seconds, bytes, bytes/s,
/// FLOP/s, dollars). Returns nullopt with `error` set to what is wrong and what is allowed.
std::optional<double> parse_quantity(std::string_view text, Dimension dim, std::string* error);

/// The units accepted for `dim`, for error messages ("ns, us, ms, s").
std::string allowed_units(Dimension dim);

/// Human formatting for reports: 1.234 ms, 25.0 MB, 450 GB/s.
std::string format_time(double seconds);
std::string format_bytes(double bytes);
/// A count to 3 significant digits with a short-scale suffix: "8.03 B", "46.7 B", "124 M",
/// "1.01 T" (model parameters).
std::string format_count(double n);
/// 1234567 -> "1,234,567" (rounded to an integer).
std::string thousands(double v);
/// A count and its noun, singular for 1: counted(1, "rank") = "1 rank", counted(4, "rank") =
/// "4 ranks", counted(2, "micro-batch") = "2 micro-batches", the number with thousands' commas.
std::string counted(double n, std::string_view noun);

}  // namespace trainsim
