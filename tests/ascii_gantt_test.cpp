#include "report/ascii_gantt.h"

#include <catch2/catch.hpp>

#include "test_util.h"

using namespace trainsim;

TEST_CASE("gantt: 1F1B p = 2, m = 2 drawn two columns per millisecond", "[gantt]") {
  // F = 1, B = 2 ms. Rank 0: F0 0–1, F1 1–2, B0 4–6 (after rank 1's B0 2–4), B1 7–9.
  // Rank 1: F0 1–2, B0 2–4, F1 4–5, B1 5–7. Step (m+p−1)(F+B) = 9 ms in 18 columns.
  const std::string g = format_gantt(simulate(test::pipeline(2, 2, 1, 2)), 18);
  CHECK_THAT(g, Catch::Contains("rank   0 |F0F1....B0--..B1--|"));
  CHECK_THAT(g, Catch::Contains("rank   1 |..F0B0--F1B1--....|"));
  CHECK_THAT(g, Catch::StartsWith("1f1b — step 9.000 ms"));
}

TEST_CASE("gantt: odd chunks are lower case", "[gantt]") {
  Scenario s = test::pipeline(2, 2, 4, 8);
  s.layout.vpp = 2;
  const std::string g = format_gantt(simulate(s, {"interleaved-1f1b", true}), 60);
  CHECK_THAT(g, Catch::Contains("f0"));
  CHECK_THAT(g, Catch::Contains("F0"));
}

TEST_CASE("gantt: the default width fits every label - a narrow one says what it cut", "[gantt]") {
  // 1F1B p = 8, m = 16, F = 1, B = 2 ms: step (m + p − 1)(F + B) = 69 ms. The narrowest task
  // (F, 1 ms) must hold "F15" and one '-' before the next label: 4 columns per ms, 4 · 69 = 276
  // columns.
  const Timeline tl = simulate(test::pipeline(8, 16, 1, 2));
  CHECK(gantt_width_for_labels(tl) == 276);
  const std::string g = format_gantt(tl);
  CHECK_THAT(g, Catch::Contains("F10-B3------F11-"));  // rank 0's steady state, labels apart
  CHECK_THAT(g, !Catch::Contains("narrower"));
  CHECK_THAT(g, Catch::Contains("legend: B backward, F forward;"));
  CHECK_THAT(g, !Catch::Contains("lower case"));  // one chunk: no lower case to explain
  // 60 columns: an F covers 60/69 = 0.87 of a column, so all 8 × 16 = 128 cut to "F"; a B covers
  // 1.74 (1 or 2 columns by rounding), so its 8 × 6 three-character labels B10–B15 are cut, and
  // the two-character ones where it rounds to 1 column: between 176 and all 256 tasks.
  const std::string narrow = format_gantt(tl, 60);
  const auto at = narrow.find(" tasks narrower than their labels show the letter alone");
  REQUIRE(at != std::string::npos);
  const int cut = std::stoi(narrow.substr(narrow.rfind('\n', at) + 1));
  CHECK(cut >= 176);
  CHECK(cut <= 256);
}
