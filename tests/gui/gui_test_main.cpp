// Runs the GUI's QtTest classes: `trainsim_gui_tests CLASS [QtTest options]` runs one (each is
// its own CTest test), no argument runs all. Offscreen unless QT_QPA_PLATFORM says otherwise.
#include <cstring>
#include <fstream>
#include <iostream>

#include <QApplication>
#include <QTemporaryDir>
#include <QTest>

#include <fmt/format.h>

#include "gui_test.h"
#include "run/simulate.h"
#include "scenario/scenario_loader.h"

namespace test_gui {

std::vector<Entry>& registry() {
  static std::vector<Entry> r;
  return r;
}

Register::Register(const char* name, std::function<QObject*()> make) {
  registry().push_back({name, std::move(make)});
}

namespace {
QTemporaryDir& scratch() {
  static QTemporaryDir d;
  return d;
}
}  // namespace

std::string write_scenario(const std::string& yaml) {
  static int n = 0;
  const std::string path = scratch().filePath(QStringLiteral("s%1.yaml").arg(n++)).toStdString();
  std::ofstream(path) << yaml;
  return path;
}

std::string pipeline_yaml(int p, int m, double f_ms, double b_ms, double p2p_ms,
                          const std::string& schedule) {
  return fmt::format(
      "name: p{}m{}\nparallelism: {{pp: {}}}\ntraining: {{microbatches: {}}}\nschedule: {}\n"
      "costs: {{forward: {}ms, backward: {}ms, p2p: {}ms}}\n",
      p, m, p, m, schedule, f_ms, b_ms, p2p_ms);
}

std::shared_ptr<const trainsim::Timeline> simulate_yaml(const std::string& yaml) {
  return std::make_shared<const trainsim::Timeline>(
      trainsim::simulate(trainsim::parse_scenario(yaml, "test")));
}

}  // namespace test_gui

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const char* only = argc > 1 && argv[1][0] != '-' ? argv[1] : nullptr;
  int failed = 0, ran = 0;
  for (const auto& e : test_gui::registry()) {
    if (only && std::strcmp(only, e.name) != 0) continue;
    QObject* t = e.make();
    failed += QTest::qExec(t, only ? argc - 1 : 1, only ? argv + 1 : argv);
    delete t;
    ++ran;
  }
  if (ran == 0) {
    std::cerr << "no GUI test class named " << (only ? only : "") << "\n";
    return 2;
  }
  return failed == 0 ? 0 : 1;
}
