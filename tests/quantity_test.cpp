#include "core/quantity.h"

#include <catch2/catch.hpp>

using namespace trainsim;

TEST_CASE("quantity: units scale to base units", "[quantity]") {
  std::string err;
  CHECK(*parse_quantity("450GB/s", Dimension::Bandwidth, &err) == Approx(450e9));
  CHECK(*parse_quantity("400Gbit/s", Dimension::Bandwidth, &err) == Approx(50e9));  // 400/8
  CHECK(*parse_quantity("25MB", Dimension::Bytes, &err) == Approx(25e6));
  CHECK(*parse_quantity("1GiB", Dimension::Bytes, &err) == Approx(1073741824.0));
  CHECK(*parse_quantity("18.5ms", Dimension::Time, &err) == Approx(0.0185));
  CHECK(*parse_quantity("10us", Dimension::Time, &err) == Approx(10e-6));
  CHECK(*parse_quantity("989TFLOPS", Dimension::Flops, &err) == Approx(989e12));
  CHECK(*parse_quantity(" 2 s ", Dimension::Time, &err) == Approx(2.0));
}

TEST_CASE("quantity: a bare number is rejected and the message lists the units", "[quantity]") {
  std::string err;
  CHECK_FALSE(parse_quantity("450", Dimension::Bandwidth, &err));
  CHECK_THAT(err, Catch::Contains("has no unit") && Catch::Contains("GB/s"));
}

TEST_CASE("quantity: wrong-dimension and unknown units are rejected", "[quantity]") {
  std::string err;
  CHECK_FALSE(parse_quantity("10ms", Dimension::Bytes, &err));
  CHECK_THAT(err, Catch::Contains("unknown unit \"ms\""));
  CHECK_FALSE(parse_quantity("fast", Dimension::Time, &err));
  CHECK_FALSE(parse_quantity("-1ms", Dimension::Time, &err));
}

TEST_CASE("quantity: counts print to 3 significant digits with a short-scale suffix",
          "[quantity]") {
  CHECK(format_count(8'030'261'248.0) == "8.03 B");
  CHECK(format_count(46'702'526'464.0) == "46.7 B");
  CHECK(format_count(123'532'032.0) == "124 M");
  CHECK(format_count(999'600'000.0) == "1.00 B");  // rounds up into the next scale
  CHECK(format_count(1.01e12) == "1.01 T");
  CHECK(format_count(769'693e12) == "769,693 T");  // past the largest scale: grouped
  CHECK(format_count(512) == "512");
}

TEST_CASE("quantity: a count and its noun, singular for one", "[quantity]") {
  CHECK(counted(1, "rank") == "1 rank");
  CHECK(counted(4, "rank") == "4 ranks");
  CHECK(counted(0, "case") == "0 cases");
  CHECK(counted(16384, "GPU") == "16,384 GPUs");
  CHECK(counted(1, "micro-batch") == "1 micro-batch");
  CHECK(counted(32, "micro-batch") == "32 micro-batches");
}
