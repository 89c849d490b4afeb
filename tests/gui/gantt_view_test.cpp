#include "gantt_view.h"

#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>

#include "gui_test.h"

using namespace trainsim;
using namespace trainsim::gui;

namespace {
std::shared_ptr<const GanttData> data() {
  return std::make_shared<const GanttData>(
      make_gantt_data(test_gui::simulate_yaml(test_gui::pipeline_yaml(4, 8, 1, 2, 0))));
}
}  // namespace

class GanttViewTest : public QObject {
  Q_OBJECT
 private slots:
  void few_lanes_grow_to_fill_the_pane() {
    // 1F1B p = 4, compute lanes only: 4 lanes of 20 px, 3 stage gaps of 4, 1 px after each:
    // 4 · 21 + 3 · 4 = 96 px. In an 800 px pane they grow to 2.5 × (50 px): 4 · 51 + 12 = 216.
    GanttView v;
    v.set_show_streams(false);
    v.resize(1000, 800);
    v.set_data(data());
    QCOMPARE(v.layout().total_height, 216);
    QCOMPARE(v.layout().height.front(), 50);
    // Sized to their lanes (the compare view's stacked Gantts): no growth.
    v.set_fill_height(false);
    QCOMPARE(v.layout().total_height, 96);
    // A pane just taller than the lanes: they grow only as far as it lets them.
    v.resize(1000, 96 + 25 + 48);  // a plot of 169 − (22 + 3) = 144 px: 1.5 × the lanes
    v.set_fill_height(true);
    QVERIFY(v.layout().total_height <= v.plot_rect().height());
    QVERIFY(v.layout().total_height > 96);
  }
  void fits_zooms_and_pans() {
    GanttView v;
    v.resize(1000 + v.style().label_width, 300);
    v.set_data(data());
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    // Fitted: 1F1B p = 4, m = 8, F = 1, B = 2: (m + p − 1)(F + B) = 33 ms across 1000 px.
    QCOMPARE(v.mapper().t0(), 0.0);
    QCOMPARE(v.mapper().t1(), 33e6);
    const double fitted = v.mapper().ns_per_pixel();
    QTest::keyClick(&v, Qt::Key_Plus);  // ×1.5 about the middle
    QCOMPARE(v.mapper().ns_per_pixel(), fitted / 1.5);
    QTest::keyClick(&v, Qt::Key_F);
    QCOMPARE(v.mapper().ns_per_pixel(), fitted);
    // Ctrl+wheel one notch at x = 200 in the plot: ×1.25, the time under the cursor stays.
    const QRect plot = v.plot_rect();
    const QPointF at(plot.left() + 200, plot.top() + 5);
    const double t_before = v.mapper().t_of(200);
    QWheelEvent wheel(at, v.mapToGlobal(at), {}, {0, 120}, Qt::NoButton, Qt::ControlModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(&v, &wheel);
    QCOMPARE(v.mapper().ns_per_pixel(), fitted / 1.25);
    QCOMPARE(v.mapper().t_of(200), t_before);
    // Dragging 100 px to the left shows 100 px later.
    const double t0 = v.mapper().t0(), npp = v.mapper().ns_per_pixel();
    const QPoint from(plot.left() + 500, plot.top() + 5);
    QTest::mousePress(&v, Qt::LeftButton, {}, from);
    QMouseEvent move(QEvent::MouseMove, from - QPoint(100, 0), v.mapToGlobal(from - QPoint(100, 0)),
                     Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&v, &move);
    QTest::mouseRelease(&v, Qt::LeftButton, {}, from - QPoint(100, 0));
    QCOMPARE(v.mapper().t0(), t0 + 100 * npp);
  }
  void range_drag_zooms_into_it() {
    GanttView v;
    v.resize(1000 + v.style().label_width, 300);
    v.set_data(data());
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    // Right-drag from x = 100 to 300: shows [3.3, 9.9] ms (33 µs per pixel).
    const QRect plot = v.plot_rect();
    const QPoint a(plot.left() + 100, plot.top() + 5), b(plot.left() + 300, plot.top() + 5);
    QTest::mousePress(&v, Qt::RightButton, {}, a);
    QMouseEvent move(QEvent::MouseMove, b, v.mapToGlobal(b), Qt::NoButton, Qt::RightButton,
                     Qt::NoModifier);
    QApplication::sendEvent(&v, &move);
    QTest::mouseRelease(&v, Qt::RightButton, {}, b);
    QCOMPARE(v.mapper().t0(), 3.3e6);
    QCOMPARE(v.mapper().t1(), 9.9e6);
  }
  void click_selects_the_micro_batch_and_tooltips_describe() {
    GanttView v;
    v.resize(1000 + v.style().label_width, 300);
    v.set_data(data());
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    QSignalSpy spy(&v, &GanttView::microbatch_selected);
    // Stage 0's lane at 2.5 ms: F2 (forwards 0, 1, 2 back to back from 0).
    const QRect plot = v.plot_rect();
    const QPoint p(plot.left() + static_cast<int>(v.mapper().x_of(2.5e6)), plot.top() + 8);
    const TaskId t = v.task_at(p);
    QVERIFY(t != kNone);
    QVERIFY(v.describe(t).contains("forward"));
    QVERIFY(v.describe(t).contains("micro-batch 2"));
    QTest::mouseClick(&v, Qt::LeftButton, {}, p);
    QCOMPARE(v.selected_microbatch(), 2);
    QCOMPARE(spy.count(), 1);
    QTest::keyClick(&v, Qt::Key_Escape);
    QCOMPARE(v.selected_microbatch(), -1);
    // Stage 0 idles from F3's end (4 ms) until B0 comes back at 1 + 3 + 3 · 2 = 10 ms.
    QCOMPARE(
        v.task_at(QPoint(plot.left() + static_cast<int>(v.mapper().x_of(8e6)), plot.top() + 8)),
        kNone);
  }
};
TRAINSIM_GUI_TEST(GanttViewTest);

#include "gantt_view_test.moc"
