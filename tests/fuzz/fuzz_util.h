#pragma once
// Shared by the libFuzzer harnesses: what counts as a finding, and small scratch files.
//
// A harness feeds its input to a reader and, when the input is accepted and small, to the
// simulation behind it. An InputError (exit 2 in the CLI) is the expected answer to bad input;
// any other exception escapes LLVMFuzzerTestOneInput and libFuzzer reports it as a crash, as it
// does a signal, a sanitizer report or a run past -timeout.
#include <unistd.h>

#include <cstdint>     // std::uint8_t
#include <cstdio>      // std::fprintf
#include <cstdlib>     // std::abort
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ofstream
#include <string>      // std::string

#include "run/simulate.h"
#include "scenario/scenario.h"

namespace trainsim::fuzz {

inline std::string text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// A file in this process's scratch folder holding `content` (rewritten on every call).
inline std::string scratch_file(const std::string& name, const std::string& content) {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() /
             ("trainsim-fuzz-" + std::to_string(static_cast<long>(::getpid())));
    std::filesystem::create_directories(d);
    return d;
  }();
  const auto path = (dir / name).string();
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
  return path;
}

/// Small enough to simulate many times a second: a finding in the simulation behind a reader
/// counts as much as one in the reader, but a valid 10⁵-GPU layout is not a finding.
inline bool small(const Scenario& sc) {
  const Layout& l = sc.layout;
  const long long gpus = 1LL * l.dp * l.tp * l.pp;
  const long long stages = 1LL * l.pp * l.vpp;
  return gpus <= 64 && stages <= 32 && sc.microbatches() <= 32 &&
         (!sc.model || sc.model->layers <= 64);
}

/// A property the code promises, broken: report and abort (libFuzzer saves the input).
[[noreturn]] inline void broken(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz finding: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace trainsim::fuzz
