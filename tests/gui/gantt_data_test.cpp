#include "gantt_data.h"

#include <QTest>

#include <algorithm>
#include <vector>

#include "gui_test.h"
#include "lower/task_types.h"
#include "measured/step_breakdown.h"

using namespace trainsim;
using namespace trainsim::gui;

class GanttDataTest : public QObject {
  Q_OBJECT
 private slots:
  void lanes_hold_every_task_once() {
    // 1F1B, p = 4, m = 8: each compute lane holds m forwards and m backwards.
    auto tl = test_gui::simulate_yaml(test_gui::pipeline_yaml(4, 8, 1, 2, 0.5));
    const GanttData d = make_gantt_data(tl);
    std::size_t boxes = 0, compute = 0;
    for (const Lane& l : d.lanes) {
      boxes += l.boxes.size();
      for (std::size_t i = 1; i < l.boxes.size(); ++i)  // sorted, never overlapping
        QVERIFY(l.boxes[i - 1].end <= l.boxes[i].start);
      if (!l.compute) continue;
      ++compute;
      int f = 0, b = 0;
      for (const Box& x : l.boxes) {
        f += x.kind == BoxKind::Forward;
        b += x.kind == BoxKind::Backward;
      }
      QCOMPARE(f, 8);
      QCOMPARE(b, 8);
    }
    QCOMPARE(compute, std::size_t{4});
    QCOMPARE(boxes, tl->graph->size());
    // Stages in order, each rank's compute lane first.
    QCOMPARE(d.lanes.front().stage, 0);
    QVERIFY(d.lanes.front().compute);
    QCOMPARE(d.lanes.back().stage, 3);
    QCOMPARE(visible_lanes(d, false, false).size(), std::size_t{4});
    QCOMPARE(visible_lanes(d, true, true).size(), d.lanes.size());
    // Each micro-batch crosses 3 boundaries forward and 3 back: 6 · 8 flows.
    QCOMPARE(d.flows.size(), std::size_t{48});
  }
  void send_and_receive_lanes_name_their_peer_stage() {
    // 1F1B, p = 4 with p2p time: stage 1 receives activations from 0 and gradients from 2, and
    // sends them on to 2 and back to 0; the first and last stages have one neighbour each.
    auto tl = test_gui::simulate_yaml(test_gui::pipeline_yaml(4, 8, 1, 2, 0.5));
    const GanttData d = make_gantt_data(tl);
    QStringList stage1, stage0;
    for (const Lane& l : d.lanes) {
      if (l.compute) continue;
      if (l.stage == 1) stage1 << QString::fromStdString(l.label).trimmed();
      if (l.stage == 0) stage0 << QString::fromStdString(l.label).trimmed();
    }
    stage1.sort();
    QCOMPARE(stage1, QStringList({"recv ← pp 0", "recv ← pp 2", "send → pp 0", "send → pp 2"}));
    stage0.sort();
    QCOMPARE(stage0, QStringList({"recv ← pp 1", "send → pp 1"}));
  }
  void box_at_finds_work_and_bubbles() {
    // Stage 0 runs F0 in [0, 1) ms; after F3 (3–4 ms) it waits for B0, which needs the
    // micro-batch to go down and back: F on stages 1–3 and B on 3–1 with 6 transfers of
    // 0.5 ms: B0 starts at 1 + 3·1 + 3·2 + 6·0.5 = 13 ms. At 8 ms stage 0 is idle.
    auto tl = test_gui::simulate_yaml(test_gui::pipeline_yaml(4, 8, 1, 2, 0.5));
    const GanttData d = make_gantt_data(tl);
    const Lane& lane = d.lanes.front();
    const Box* f0 = box_at(lane, 0.5e6);
    QVERIFY(f0);
    QCOMPARE(f0->kind, BoxKind::Forward);
    QCOMPARE(tl->graph->tasks[f0->task].microbatch, 0);
    QVERIFY(!box_at(lane, 8e6));
    const Box* b0 = box_at(lane, 13.5e6);
    QVERIFY(b0);
    QCOMPARE(b0->kind, BoxKind::Backward);
    QCOMPARE(b0->start, TimeNs{13'000'000});
  }
  void coverage_sums_each_kinds_time_in_a_range() {
    // The same pipeline's stage 0: F0–F3 in [0, 4) ms, idle until B0 at [13, 15) ms, then F4
    // at [15, 16) ms.
    auto tl = test_gui::simulate_yaml(test_gui::pipeline_yaml(4, 8, 1, 2, 0.5));
    const GanttData d = make_gantt_data(tl);
    const Lane& lane = d.lanes.front();
    QCOMPARE(lane.kinds.size(), std::size_t{2});
    const auto slot = [&](BoxKind k) {
      return static_cast<std::size_t>(std::find(lane.kinds.begin(), lane.kinds.end(), k) -
                                      lane.kinds.begin());
    };
    std::vector<double> busy;
    // [0.5, 2.5) ms: the second half of F0, F1, the first half of F2 = 2 ms forward.
    coverage(lane, 0.5e6, 2.5e6, busy);
    QCOMPARE(busy[slot(BoxKind::Forward)], 2e6);
    QCOMPARE(busy[slot(BoxKind::Backward)], 0.0);
    // [3.5, 15.5) ms: half of F3, all of B0, half of F4 = 1 ms forward, 2 ms backward; the 9 ms
    // of idle count for nothing.
    coverage(lane, 3.5e6, 15.5e6, busy);
    QCOMPARE(busy[slot(BoxKind::Forward)], 1e6);
    QCOMPARE(busy[slot(BoxKind::Backward)], 2e6);
    // Inside one box, and inside the bubble.
    coverage(lane, 13.2e6, 13.7e6, busy);
    QCOMPARE(busy[slot(BoxKind::Backward)], 0.5e6);
    coverage(lane, 6e6, 9e6, busy);
    QCOMPARE(busy[slot(BoxKind::Forward)] + busy[slot(BoxKind::Backward)], 0.0);
  }
  void a_measured_step_adds_a_lane_per_stream() {
    // tests/data/kineto/nccl_data.json.gz, ProfilerStep#5: 1,258 kernels (torch_trace_test),
    // 7 of them NCCL; shifted so the step's first kernel starts at 0.
    auto tl = test_gui::simulate_yaml(test_gui::pipeline_yaml(2, 4, 1, 2, 0.5));
    GanttData d = make_gantt_data(tl);
    const std::size_t simulated = d.lanes.size();
    auto t = std::make_shared<TorchTrace>(read_torch_trace(std::string(TRAINSIM_SOURCE_DIR) +
                                                           "/tests/data/kineto/nccl_data.json.gz"));
    const int step = pick_step(*t);
    add_measured_lanes(d, t, step);
    QVERIFY(d.lanes.size() > simulated);
    std::size_t boxes = 0, nccl = 0, compute = 0;
    TimeNs first = -1;
    for (std::size_t i = simulated; i < d.lanes.size(); ++i) {
      const Lane& l = d.lanes[i];
      QVERIFY(l.measured);
      compute += l.compute;
      boxes += l.boxes.size();
      for (std::size_t b = 1; b < l.boxes.size(); ++b)
        QVERIFY(l.boxes[b - 1].end <= l.boxes[b].start);
      for (const Box& b : l.boxes) {
        nccl += b.kind == BoxKind::Communication;
        if (first < 0 || b.start < first) first = b.start;
      }
    }
    QCOMPARE(boxes, std::size_t{1258});
    QCOMPARE(nccl, std::size_t{7});
    QCOMPARE(compute, std::size_t{1});  // the busiest stream; the others are thin lanes
    QVERIFY(d.lanes[simulated].compute);
    QCOMPARE(first, TimeNs{0});
    QCOMPARE(drawn_span(d), std::max(tl->makespan, measured_span(d)));
    // A second call replaces the lanes (the same count, not twice as many); a null trace
    // removes them.
    const std::size_t with = d.lanes.size();
    add_measured_lanes(d, t, step);
    QCOMPARE(d.lanes.size(), with);
    add_measured_lanes(d, nullptr, -1);
    QCOMPARE(d.lanes.size(), simulated);
    QCOMPARE(measured_span(d), TimeNs{0});
  }
  void kinds_cover_every_task_type() {
    Work w;
    w.type = static_cast<std::uint8_t>(TaskType::ParamGather);
    QCOMPARE(box_kind(w), BoxKind::DataParallel);
    w.type = static_cast<std::uint8_t>(TaskType::RecvGradient);
    QCOMPARE(box_kind(w), BoxKind::P2p);
    w.type = static_cast<std::uint8_t>(TaskType::TpCollective);
    QCOMPARE(box_kind(w), BoxKind::TensorParallel);
  }
};
TRAINSIM_GUI_TEST(GanttDataTest);

#include "gantt_data_test.moc"
