#include "core/suggest.h"

#include <algorithm>  // std::min, std::find
#include <cctype>     // std::tolower

namespace trainsim {

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // d[i][j]: a's first i characters against b's first j (optimal string alignment).
  const std::size_t w = b.size() + 1;
  std::vector<std::size_t> d((a.size() + 1) * w);
  auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * w + j]; };
  for (std::size_t i = 0; i <= a.size(); ++i) at(i, 0) = i;
  for (std::size_t j = 0; j <= b.size(); ++j) at(0, j) = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      at(i, j) = std::min(
          {at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);  // two neighbours swapped
    }
  return at(a.size(), b.size());
}

std::optional<std::string> nearest_name(std::string_view name,
                                        const std::vector<std::string>& known) {
  if (std::find(known.begin(), known.end(), name) != known.end()) return std::nullopt;
  // Case is no slip worth counting ("1F1B" is 1f1b).
  const std::string lowered = lowercase(name);
  std::optional<std::string> best;
  std::size_t best_distance = 3;  // at most 2 edits
  for (const std::string& k : known) {
    const std::size_t d = edit_distance(lowered, lowercase(k));
    if (d < best_distance && 2 * d < name.size()) {
      best = k;
      best_distance = d;
    }
  }
  // A name spelt out or cut short ("seq_length" for seq_len, "global_batch" for
  // global_batch_size): one the prefix of the other, the shorter 5 characters or more and at
  // least half the longer.
  if (!best)
    for (const std::string& k : known) {
      const std::string lk = lowercase(k);
      const std::string& shorter = lk.size() < lowered.size() ? lk : lowered;
      const std::string& longer = lk.size() < lowered.size() ? lowered : lk;
      if (shorter.size() >= 5 && 2 * shorter.size() >= longer.size() &&
          longer.compare(0, shorter.size(), shorter) == 0)
        return k;
    }
  return best;
}

}  // namespace trainsim
