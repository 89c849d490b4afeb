#include "core/input_file.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "core/error.h"

using namespace trainsim;
namespace fs = std::filesystem;

namespace {

// A fresh scratch folder per test case.
fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("trainsim_input_file_test_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("input_file: a regular file reads whole", "[input_file]") {
  const fs::path d = scratch("read");
  std::ofstream(d / "a.yaml", std::ios::binary) << "name: x\n";
  CHECK(read_input_file((d / "a.yaml").string(), "scenario") == "name: x\n");
}

TEST_CASE("input_file: missing files, directories, FIFOs and devices are refused by name",
          "[input_file]") {
  const fs::path d = scratch("refuse");
  CHECK_THROWS_WITH(read_input_file((d / "none.yaml").string(), "scenario"),
                    Catch::Contains("scenario " + (d / "none.yaml").string()));
  CHECK_THROWS_WITH(read_input_file(d.string(), "scenario"),
                    Catch::Contains("is a directory, expected a file"));
  // A FIFO would block open() forever; it is refused before opening.
  REQUIRE(::mkfifo((d / "pipe").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(read_input_file((d / "pipe").string(), "scenario"),
                    Catch::Contains("is a FIFO, expected a file"));
  // /dev/zero never ends.
  CHECK_THROWS_WITH(read_input_file("/dev/zero", "nccl-tests log"),
                    Catch::Contains("nccl-tests log /dev/zero: is a character device"));
  CHECK_THROWS_AS(read_input_file("/dev/zero", "x"), InputError);
}

TEST_CASE("input_file: a file over the size limit is refused", "[input_file]") {
  const fs::path d = scratch("size");
  std::ofstream(d / "big.csv") << std::string(1001, 'x');
  CHECK(read_input_file((d / "big.csv").string(), "schedule CSV", 1001).size() == 1001);
  CHECK_THROWS_AS(read_input_file((d / "big.csv").string(), "schedule CSV", 1000), InputError);
}

TEST_CASE("input_file: outputs replace a file whole, and errors name the path", "[input_file]") {
  const fs::path d = scratch("write");
  const std::string out = (d / "trace.json").string();
  write_output_file(out, "first", "trace file");
  write_output_file(out, "second", "trace file");
  CHECK(slurp(out) == "second");
  CHECK_FALSE(fs::exists(out + ".tmp"));  // the temporary was renamed, not left behind
  // A failing writer leaves the old file as it was.
  CHECK_THROWS(write_output(out, "trace file", [](std::ostream& o) {
    o << "half";
    throw InputError("interrupted");
  }));
  CHECK(slurp(out) == "second");
  CHECK_THROWS_WITH(write_output_file(d.string(), "x", "schedule CSV"),
                    Catch::Contains("is a directory, expected a file name"));
  CHECK_THROWS_WITH(write_output_file((d / "no" / "such" / "f.json").string(), "x", "profile"),
                    Catch::Contains("cannot write"));
  // /dev/full accepts open() and fails every write with ENOSPC; it is written in place (never
  // replaced by a regular file, which would need root and destroy the device node).
  if (fs::is_character_file("/dev/full")) {
    CHECK_THROWS_WITH(write_output_file("/dev/full", std::string(1 << 16, 'x'), "trace file"),
                      Catch::Contains("trace file /dev/full: write failed"));
    CHECK(fs::is_character_file("/dev/full"));
  }
  // /proc/version is a regular file in a folder that takes no new file, even for root: the
  // error names the temporary beside it, not "No such file" for a file that is there.
  if (fs::is_regular_file("/proc/version")) {
    CHECK_THROWS_WITH(write_output_file("/proc/version", "x", "trace file"),
                      Catch::Contains("trace file /proc/version: cannot write a new file beside "
                                      "it (/proc/version.tmp: "));
  }
}

TEST_CASE("input_file: names become one safe file-name component", "[input_file]") {
  CHECK(file_name_component("llama-3.1-8b_pp4") == "llama-3.1-8b_pp4");
  CHECK(file_name_component("../../escaped") == "escaped");  // ".._.._escaped", leading ._ dropped
  CHECK(file_name_component("my model / v2") == "my_model_v2");
  CHECK(file_name_component(".hidden") == "hidden");
  CHECK(file_name_component("..") == "unnamed");
  CHECK(file_name_component("") == "unnamed");
  CHECK(file_name_component("a\nb\x01"
                            "c") == "a_b_c");
  CHECK(file_name_component(std::string(300, 'a')).size() == 100);
}
