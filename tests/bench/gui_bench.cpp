// trainsim-gui's speed targets (issue: trainsim-gui): a full zoom-out repaint of 10⁶ tasks under
// 16 ms, and opening + simulating the default scenario to first paint under 1 s. Renders
// offscreen (QT_QPA_PLATFORM=offscreen unless set). Run: build-bench/tests/bench/gui_bench
#include <memory>

#include <QApplication>
#include <QImage>
#include <QPainter>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "gantt_data.h"
#include "gantt_painter.h"
#include "main_window.h"
#include "run/simulate.h"
#include "scenario/scenario_loader.h"

using namespace trainsim;
using namespace trainsim::gui;

namespace {

// 1F1B, p = 16, m = 16 000, costs only: 2·p·m = 512 000 compute tasks plus a send and a recv
// per micro-batch, boundary and direction (4 · 15 · 16 000 = 960 000): 1.47 M tasks.
std::shared_ptr<const GanttData> million_tasks() {
  static std::shared_ptr<const GanttData> d = [] {
    const std::string yaml =
        "name: bench\nparallelism: {pp: 16}\ntraining: {microbatches: 16000}\nschedule: 1f1b\n"
        "costs: {forward: 1ms, backward: 2ms, p2p: 0.1ms}\n";
    auto tl = std::make_shared<const Timeline>(simulate(parse_scenario(yaml, "bench")));
    return std::make_shared<const GanttData>(make_gantt_data(tl));
  }();
  return d;
}

void BM_gantt_repaint_full_zoom_out(benchmark::State& state) {
  const auto d = million_tasks();
  const GanttStyle st;
  const GanttLayout lay = layout_lanes(*d, visible_lanes(*d, false, true), st);
  QImage img(1920, 1080, QImage::Format_RGB32);
  TimeMapper m;
  m.fit(d->timeline->makespan, img.width() - st.label_width);
  PaintStats stats;
  for (auto _ : state) {
    QPainter p(&img);
    stats = paint_gantt(p, img.rect(), *d, lay, m, st);
  }
  state.counters["tasks"] = static_cast<double>(d->tasks);
  state.counters["boxes"] = static_cast<double>(stats.boxes);
  state.counters["columns"] = static_cast<double>(stats.columns);
}
BENCHMARK(BM_gantt_repaint_full_zoom_out)->Unit(benchmark::kMillisecond);

void BM_open_default_to_first_paint(benchmark::State& state) {
  for (auto _ : state) {
    MainWindow w;
    w.resize(1500, 900);
    w.open_scenario(QStringLiteral(TRAINSIM_SOURCE_DIR "/scenarios/default.yaml"));
    w.wait_for_simulation();
    const QImage first = w.grab().toImage();
    benchmark::DoNotOptimize(first.constBits());
  }
}
BENCHMARK(BM_open_default_to_first_paint)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
