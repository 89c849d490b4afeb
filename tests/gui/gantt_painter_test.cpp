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
    // p = 2, m = 2000: 8000 compute boxes over 400 px. A lane can draw at most one merged
    // column per pixel, so boxes + columns stays within 2 lanes · 401 px, and the lanes are
    // still painted (not blank).
    auto tl = test_gui::simulate_yaml(test_gui::pipeline_yaml(2, 2000, 1, 2, 0));
    const GanttData d = make_gantt_data(tl);
    TimeMapper m;
    m.fit(tl->makespan, 400);
    const Rendered r = render(d, m, 400 + GanttStyle{}.label_width, 120);
    QVERIFY(r.stats.columns > 0);
    QVERIFY(r.stats.boxes + r.stats.columns <= 2 * 401);
    QSet<QRgb> colours;
    for (int x = 0; x < 400; ++x) colours.insert(at(r, m, m.t_of(x + 0.5), 0));
    QVERIFY(colours.contains(box_color(BoxKind::Forward).rgb()) ||
            colours.contains(box_color(BoxKind::Backward).rgb()));
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
