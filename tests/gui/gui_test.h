#pragma once
// QtTest classes register themselves here; gui_test_main runs one class (by name, for CTest)
// or all of them. Shared helpers: temporary scenario files and a Timeline fixture.
#include <functional>  // std::function
#include <memory>      // std::shared_ptr
#include <string>      // std::string
#include <vector>      // std::vector

#include <QObject>

#include "run/timeline.h"

namespace test_gui {

struct Entry {
  const char* name;
  std::function<QObject*()> make;
};
std::vector<Entry>& registry();
struct Register {
  Register(const char* name, std::function<QObject*()> make);
};

/// Writes `yaml` to a fresh file in the test's temporary folder and returns its path.
std::string write_scenario(const std::string& yaml);
/// A costs-only pipeline (p stages, m micro-batches, F, B and p2p in ms) as YAML.
std::string pipeline_yaml(int p, int m, double f_ms, double b_ms, double p2p_ms,
                          const std::string& schedule = "1f1b");
/// Simulates `yaml`.
std::shared_ptr<const trainsim::Timeline> simulate_yaml(const std::string& yaml);

}  // namespace test_gui

#define TRAINSIM_GUI_TEST(Class) \
  static test_gui::Register register_##Class(#Class, [] { return new Class; })
