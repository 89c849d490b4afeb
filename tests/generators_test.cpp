#include "schedules/generators.h"

#include <catch2/catch.hpp>

#include "core/error.h"
#include "schedules/validate.h"
#include "test_util.h"

using namespace trainsim;

TEST_CASE("generators: AFAB and 1F1B are valid over a grid of p and m", "[generators]") {
  for (int p = 1; p <= 8; ++p)
    for (int m : {1, 2, p, 2 * p - 1, 2 * p, 3 * p + 1}) {
      if (m < 1) continue;
      for (auto gen : {&generate_afab, &generate_1f1b}) {
        const Schedule s = gen({p, m, 1, {}});
        INFO("p = " << p << ", m = " << m << ", " << s.name);
        CHECK_NOTHROW(validate_schedule(s));
        // Unit F = B = 1: (m + p − 1) · 2 steps for both.
        CHECK(run_unit_steps(s).makespan == 2 * (m + p - 1));
      }
    }
}

TEST_CASE("generators: 1F1B keeps at most p − r micro-batches in flight on rank r",
          "[generators]") {
  const int p = 4, m = 8;
  const Schedule s = generate_1f1b({p, m, 1, {}});
  for (int r = 0; r < p; ++r) {
    int in_flight = 0, peak = 0;
    for (const Action& a : s.actions[static_cast<std::size_t>(r)]) {
      in_flight += a.op == Op::F ? 1 : -1;
      peak = std::max(peak, in_flight);
    }
    CHECK(peak == p - r);  // AFAB would hold all m = 8
  }
}

TEST_CASE("generators: AFAB and 1F1B reject chunks (vpp > 1)", "[generators]") {
  CHECK_THROWS_WITH(generate_1f1b({4, 8, 2, {}}),
                    Catch::Contains("vpp = 1") && Catch::Contains("interleaved-1f1b"));
  CHECK_THROWS_AS(generate_afab({4, 8, 2, {}}), ScheduleError);
}

TEST_CASE("1F1B: makespan is (m+p-1)(F+B) with uniform costs", "[generators][closed-form]") {
  // F = 1 ms, B = 2 ms, no p2p time: (m + p − 1) · 3 ms.
  for (int p : {1, 2, 4, 8})
    for (int m : {1, p, 2 * p, 4 * p + 3}) {
      INFO("p = " << p << ", m = " << m);
      const TimeNs expected = static_cast<TimeNs>(m + p - 1) * 3 * kNsPerMs;
      CHECK(test::makespan(test::pipeline(p, m, 1, 2), "1f1b") == expected);
      CHECK(test::makespan(test::pipeline(p, m, 1, 2), "afab") == expected);
    }
}
