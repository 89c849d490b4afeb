#include "core/parallel_for.h"

#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

using namespace trainsim;

TEST_CASE("parallel_for: every index once, results by index the same on any thread count",
          "[parallel_for]") {
  // i² for i < 1000 stored at i: the same vector on 1, 2 and 7 threads, and on "every core".
  for (int jobs : {1, 2, 7, 0}) {
    std::vector<long> squares(1000, -1);
    std::size_t last_done = 0, calls = 0;
    parallel_for(
        squares.size(), jobs, [&](std::size_t i) { squares[i] = static_cast<long>(i * i); },
        [&](std::size_t done, std::size_t total) {
          CHECK(total == 1000);
          CHECK(done == last_done + 1);  // one at a time, counting up
          last_done = done;
          ++calls;
        });
    for (std::size_t i = 0; i < squares.size(); ++i) CHECK(squares[i] == static_cast<long>(i * i));
    CHECK(calls == 1000);
  }
  // Nothing to do: no call at all.
  bool called = false;
  parallel_for(0, 2, [&](std::size_t) { called = true; });
  CHECK_FALSE(called);
}

TEST_CASE("parallel_for: an exception from one index stops the loop and reaches the caller",
          "[parallel_for]") {
  std::vector<int> ran(500, 0);
  CHECK_THROWS_AS(parallel_for(ran.size(), 2,
                               [&](std::size_t i) {
                                 if (i == 10) throw std::runtime_error("index 10");
                                 ran[i] = 1;
                               }),
                  std::runtime_error);
  CHECK(ran[10] == 0);
}
