#include "time_mapper.h"

#include <QTest>

#include "gui_test.h"

using namespace trainsim::gui;

class TimeMapperTest : public QObject {
  Q_OBJECT
 private slots:
  void fit_maps_the_step_onto_the_width() {
    TimeMapper m;
    m.fit(2'000'000, 1000);  // 2 ms over 1000 px: 2000 ns per pixel
    QCOMPARE(m.ns_per_pixel(), 2000.0);
    QCOMPARE(m.x_of(1'000'000), 500.0);
    QCOMPARE(m.t_of(250), 500'000.0);
    QCOMPARE(m.t1(), 2'000'000.0);
  }
  void zoom_keeps_the_anchor_in_place() {
    TimeMapper m;
    m.fit(2'000'000, 1000);
    m.zoom(2, 250);  // the time under x = 250 (500 µs) stays there; 1000 ns per pixel
    QCOMPARE(m.ns_per_pixel(), 1000.0);
    QCOMPARE(m.x_of(500'000), 250.0);
    QCOMPARE(m.t0(), 250'000.0);  // 500 000 − 250 · 1000
    m.pan(100);                   // 100 px later: t0 + 100 · 1000
    QCOMPARE(m.t0(), 350'000.0);
  }
  void zoom_is_bounded() {
    TimeMapper m;
    m.fit(2'000'000, 1000);
    m.zoom(1e-6, 0);  // out: at most 4 whole steps per view, 4 · 2000 ns per pixel
    QCOMPARE(m.ns_per_pixel(), 8000.0);
    m.zoom(1e12, 0);  // in: at most kMinNsPerPixel
    QCOMPARE(m.ns_per_pixel(), TimeMapper::kMinNsPerPixel);
  }
  void show_range_and_pan_limits() {
    TimeMapper m;
    m.fit(2'000'000, 1000);
    m.show_range(1000, 3000);  // 2000 ns over 1000 px
    QCOMPARE(m.t0(), 1000.0);
    QCOMPARE(m.ns_per_pixel(), 2.0);
    m.show_range(5, 5);  // empty: ignored
    QCOMPARE(m.ns_per_pixel(), 2.0);
    m.fit(2'000'000, 1000);
    m.pan(-10'000);  // far left: the left edge stops at −half a view (−1 ms)
    QCOMPARE(m.t0(), -1'000'000.0);
    m.pan(10'000);  // far right: at the makespan minus half a view (1 ms)
    QCOMPARE(m.t0(), 1'000'000.0);
  }
  void ticks_step_one_two_five() {
    TimeMapper m;
    m.fit(10'000'000, 1000);  // 10 µs per pixel; 80 px ≥ 800 µs -> the next 1-2-5 step is 1 ms
    const auto t = m.ticks(80);
    QCOMPARE(t.size(), std::size_t{11});  // 0, 1, …, 10 ms
    QCOMPARE(t[0].label, std::string("0"));
    QCOMPARE(t[1].label, std::string("1 ms"));
    QCOMPARE(t[1].x, 100.0);
    QCOMPARE(t[10].label, std::string("10 ms"));
    m.fit(10'000'000, 100);  // 100 µs per pixel: 8 ms -> 10 ms steps
    QCOMPARE(m.ticks(80).size(), std::size_t{2});
  }
  void durations_in_their_unit() {
    QCOMPARE(format_duration(1'500'000), std::string("1.5 ms"));
    QCOMPARE(format_duration(250'000), std::string("250 µs"));
    QCOMPARE(format_duration(12), std::string("12 ns"));
    QCOMPARE(format_duration(3.2e9), std::string("3.2 s"));
    QCOMPARE(format_duration(2e6), std::string("2 ms"));
  }
};
TRAINSIM_GUI_TEST(TimeMapperTest);

#include "time_mapper_test.moc"
