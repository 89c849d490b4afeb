// The calibration progress bar's text (calibrate/progress.h).
#include "progress.h"

#include <catch2/catch.hpp>

using namespace trainsim;

TEST_CASE("progress: bar, count, percent, eta and label", "[calibration]") {
  // 37 of 182 = 20.3 %: floor(0.203 · 10) = 2 of 10 cells; 65 s left reads 1m05s.
  CHECK(progress_line(37, 182, 65, "qkv 1024×3072×2048", 10) ==
        "[##········]  37/182   20%  eta 1m05s  qkv 1024×3072×2048");
  // Nothing done yet: no eta; all done: a full bar.
  CHECK(progress_line(0, 4, -1, "start", 4) == "[····] 0/4    0%  start");
  CHECK(progress_line(4, 4, 0, "done", 4) == "[####] 4/4  100%  eta 0s  done");
}
