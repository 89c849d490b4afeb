#include "memory_view.h"

#include <cstdlib>

#include <QImage>
#include <QTest>

#include "gui_test.h"
#include "report/memory_report.h"
#include "run/simulate.h"
#include "scenario/scenario_loader.h"

using namespace trainsim;
using namespace trainsim::gui;

class MemoryViewTest : public QObject {
  Q_OBJECT
 private slots:
  void the_y_axis_steps_by_one_two_five() {
    // At most 5 grid lines from 0 to the top: 93 GB → 20 (4.65 lines; 10 would draw 9),
    // 12 → 5, 0.3 → 0.1, 1000 → 200, 5 → 1.
    QCOMPARE(memory_tick_step(93), 20.0);
    QCOMPARE(memory_tick_step(12), 5.0);
    QVERIFY(qFuzzyCompare(memory_tick_step(0.3), 0.1));
    QCOMPARE(memory_tick_step(1000), 200.0);
    QCOMPARE(memory_tick_step(5), 1.0);
  }
  void the_device_line_is_its_own_colour_and_named() {
    // The default scenario (Llama-3.1-8B, pp 4, 85.0 GB H100s): stage 0's curve is red, the
    // device line dark grey (0x303030) with its name; a view without the line has none of it.
    const Scenario sc = load_scenario(TRAINSIM_SOURCE_DIR "/scenarios/default.yaml");
    auto tl = std::make_shared<const Timeline>(simulate(sc));
    auto report = std::make_shared<const MemoryReport>(make_memory_report(*tl));
    auto series = std::make_shared<const std::vector<MemorySeries>>(memory_series(*tl, *report));
    MemoryView v;
    v.resize(900, 240);
    TimeMapper m;
    m.fit(tl->makespan, 900 - 170);
    v.set_mapper(m);
    v.set_data(tl, report, series);
    // Dark grey pixels right of the legend column (x ≥ 180): the curves are coloured, the tick
    // labels a lighter grey (0x707070), so only the device line and its name are there.
    const auto dark = [](const QImage& img) {
      int n = 0;
      for (int y = 0; y < img.height(); ++y)
        for (int x = 180; x < img.width(); ++x) {
          const QColor c = img.pixelColor(x, y);
          n += c.red() < 0x58 && std::abs(c.red() - c.green()) < 8 &&
               std::abs(c.red() - c.blue()) < 8;
        }
      return n;
    };
    const int with_line = dark(v.grab().toImage());
    QVERIFY(with_line > 100);  // a dashed line across ~730 px, and its label
    auto no_device = std::make_shared<MemoryReport>(*report);
    no_device->device_memory = 0;
    v.set_data(tl, no_device, series);
    QCOMPARE(dark(v.grab().toImage()), 0);
  }
};
TRAINSIM_GUI_TEST(MemoryViewTest);

#include "memory_view_test.moc"
