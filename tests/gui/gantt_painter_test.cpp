#include "gantt_painter.h"

#include <QImage>
#include <QPainter>
#include <QSet>
#include <QTest>

#include "gui_test.h"

using namespace trainsim;
using namespace trainsim::gui;

namespace {
struct Rendered {
  QImage image;
  PaintStats stats;
  GanttLayout layout;
  GanttStyle style;
};
Rendered render(const GanttData& d, const TimeMapper& m, int w, int h, bool streams = false) {
  Rendered r{QImage(w, h, QImage::Format_RGB32), {}, {}, {}};
  r.layout = layout_lanes(d, visible_lanes(d, false, streams), r.style);
  QPainter p(&r.image);
  r.stats = paint_gantt(p, r.image.rect(), d, r.layout, m, r.style);
  return r;
}
// Pixel of time t (ns) near the top of visible lane i (above a micro-batch number).
QRgb at(const Rendered& r, const TimeMapper& m, double t, std::size_t i) {
  const int x = r.style.label_width + static_cast<int>(m.x_of(t));
  const int y = r.style.axis_height + 3 + r.layout.top[i] + 1;
  return r.image.pixel(x, y);
}
}  // namespace

class GanttPainterTest : public QObject {
  Q_OBJECT
 private slots:
  void boxes_where_the_timeline_has_tasks() {
    // 1F1B p = 4, m = 8, F = 1, B = 2, p2p 0.5 ms: stage 0 computes F0 in [0, 1) ms, idles at
    // 8 ms (bubble grey) and runs B0 in [13, 15) ms.
    auto tl = test_gui::simulate_yaml(test_gui::pipeline_yaml(4, 8, 1, 2, 0.5));
    const GanttData d = make_gantt_data(tl);
    TimeMapper m;
    m.fit(tl->makespan, 1000);
    const Rendered r = render(d, m, 1000 + GanttStyle{}.label_width, 200);
    QCOMPARE(QColor(at(r, m, 0.5e6, 0)), box_color(BoxKind::Forward));
    QCOMPARE(QColor(at(r, m, 8e6, 0)), QColor(0xe4, 0xe4, 0xe4));
    QCOMPARE(QColor(at(r, m, 14.2e6, 0)), box_color(BoxKind::Backward));
    // Every one of the 64 compute boxes is at least 1 px wide here: none merged.
    QCOMPARE(r.stats.boxes, std::size_t{64});
    QCOMPARE(r.stats.columns, std::size_t{0});
  }
  void sub_pixel_boxes_merge_into_columns() {
    // p = 2, m = 40, F = 1 ms, B = 0.05 ms: 80 boxes per lane in about 43 ms over 400 px; each
    // F is 9 px wide (a box), each B under a pixel (a blended column). A lane draws at most one
    // box or column per pixel.
    auto tl = test_gui::simulate_yaml(test_gui::pipeline_yaml(2, 40, 1, 0.05, 0));
    const GanttData d = make_gantt_data(tl);
    TimeMapper m;
    m.fit(tl->makespan, 400);
    const Rendered r = render(d, m, 400 + GanttStyle{}.label_width, 120);
    QVERIFY(r.stats.boxes >= 2 * 40);
    QVERIFY(r.stats.columns > 0);
    QVERIFY(r.stats.boxes + r.stats.columns <= 2 * 401);
  }
  void a_dense_pipeline_blends_instead_of_a_barcode() {
    // 1F1B p = 4, m = 128, F = 1 ms, B = 2 ms, no p2p: 256 boxes on each compute lane over 400
    // px (1.56 px each), so every lane is drawn blended, each pixel averaged over 4 boxes' width
    // (6.2 px, about 6.1 ms: two F/B periods). In the steady state every 3 ms holds one F and
    // one B: each pixel is 1/3 forward and 2/3 backward, one colour F·1/3 + B·2/3 (within the
    // 0.1 ms of a period the window holds beyond two), instead of alternating F and B columns.
    auto tl = test_gui::simulate_yaml(test_gui::pipeline_yaml(4, 128, 1, 2, 0));
    const GanttData d = make_gantt_data(tl);
    TimeMapper m;
    m.fit(tl->makespan, 400);
    const Rendered r = render(d, m, 400 + GanttStyle{}.label_width, 200);
    QCOMPARE(r.stats.boxes, std::size_t{0});
    QVERIFY(r.stats.columns >= 4 * 380);
    const QColor f = box_color(BoxKind::Forward), b = box_color(BoxKind::Backward);
    const QColor mix =
        QColor::fromRgbF((f.redF() + 2 * b.redF()) / 3, (f.greenF() + 2 * b.greenF()) / 3,
                         (f.blueF() + 2 * b.blueF()) / 3);
    // Stage 0's steady state: from 3·(p − 1) = 9 ms (after its warm-up forwards) to 128 ms less
    // the cool-down; take [40, 300) ms.
    for (double t = 40e6; t < 300e6; t += 1e6) {
      const QColor c(at(r, m, t, 0));
      QVERIFY2(
          std::abs(c.red() - mix.red()) <= 6 && std::abs(c.green() - mix.green()) <= 6 &&
              std::abs(c.blue() - mix.blue()) <= 6,
          qPrintable(
              QStringLiteral("at %1 ms: %2, expected %3").arg(t / 1e6).arg(c.name(), mix.name())));
    }
    // The last stage's warm-up bubble stays the idle grey: it starts at 3 ms (3 forwards of the
    // stages before it).
    const std::size_t last = r.layout.lanes.size() - 1;
    QCOMPARE(QColor(at(r, m, 1e6, last)), QColor(0xe4, 0xe4, 0xe4));
  }
  void lane_layout_stacks_without_gaps_inside_a_stage() {
    auto tl = test_gui::simulate_yaml(test_gui::pipeline_yaml(2, 2, 1, 2, 0.5));
    const GanttData d = make_gantt_data(tl);
    const GanttStyle st;
    const GanttLayout lay = layout_lanes(d, visible_lanes(d, false, true), st);
    // Stage 0: compute, then its stream lanes, 1 px apart; stage 1 starts after stage_gap.
    QCOMPARE(lay.top[0], 0);
    QCOMPARE(lay.top[1], st.lane_height + 1);
    QCOMPARE(lay.lane_at(lay.top[1]), 1);
    QCOMPARE(lay.lane_at(-1), -1);
  }
};
TRAINSIM_GUI_TEST(GanttPainterTest);

#include "gantt_painter_test.moc"
