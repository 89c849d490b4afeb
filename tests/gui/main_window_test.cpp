#include "main_window.h"

#include <algorithm>

#include <QAbstractBarSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QSet>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextEdit>
#include <QTextLayout>
#include <QValueAxis>

#include "compare_view.h"
#include "gantt_painter.h"
#include "gantt_view.h"
#include "gui_test.h"
#include "knob_panel.h"
#include "memory_view.h"

using namespace trainsim;
using namespace trainsim::gui;

namespace {
const QString kDefault = QStringLiteral(TRAINSIM_SOURCE_DIR "/scenarios/default.yaml");

// `text` written to `name` in `dir`: the path, or "" when it cannot be written.
QString scenario_file(const QTemporaryDir& dir, const char* name, const char* text) {
  const QString path = dir.filePath(QString::fromUtf8(name));
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(text) < 0) return {};
  return path;
}

QSet<QRgb> colours(const QImage& img) {
  QSet<QRgb> out;
  for (int y = 0; y < img.height(); y += 2)
    for (int x = 0; x < img.width(); x += 2) out.insert(img.pixel(x, y));
  return out;
}
}  // namespace

class MainWindowTest : public QObject {
  Q_OBJECT
 private slots:
  void screenshot_is_not_blank() {
    MainWindow w;
    w.resize(1400, 850);
    w.show();
    QVERIFY(w.open_scenario(kDefault));
    w.wait_for_simulation();
    QVERIFY(w.last_error().isEmpty());
    QVERIFY(w.outcome());
    const QImage img = w.grab().toImage();
    const QSet<QRgb> c = colours(img);
    QVERIFY(c.size() >= 8);  // boxes, bubble, text, memory lines
    QVERIFY(c.contains(box_color(BoxKind::Forward).rgb()));
    QVERIFY(c.contains(box_color(BoxKind::Backward).rgb()));
    // Where the Timeline has stage 0's first forward (it starts at 0), the Gantt shows F.
    GanttView* g = w.gantt();
    const TaskId first = g->data()->lanes.front().boxes.front().task;
    const double mid = 0.5 * static_cast<double>(w.outcome()->timeline->start[first] +
                                                 w.outcome()->timeline->end[first]);
    const QPoint p(g->plot_rect().left() + static_cast<int>(g->mapper().x_of(mid)),
                   g->plot_rect().top() + 2);
    QCOMPARE(QColor(g->grab().toImage().pixel(p)), box_color(BoxKind::Forward));
  }
  void the_layout_is_restored_as_the_user_left_it() {
    QStandardPaths::setTestModeEnabled(true);  // settings under ~/.qttest, not the user's
    QSettings(QStringLiteral("trainsim"), QStringLiteral("trainsim-gui")).clear();
    QList<int> sizes;
    {
      MainWindow w;
      w.resize(1200, 800);
      w.restore_layout();  // nothing saved yet: the built-in layout
      w.show();
      auto* split = w.findChild<QSplitter*>(QStringLiteral("timeline-split"));
      QVERIFY(split);
      split->setSizes({300, 300});
      sizes = split->sizes();
      w.close();  // saves
    }
    MainWindow w;
    w.resize(1200, 800);
    w.restore_layout();
    w.show();
    QCOMPARE(w.findChild<QSplitter*>(QStringLiteral("timeline-split"))->sizes(), sizes);
    // A window that never restored (headless, tests) saves nothing on close.
    QSettings(QStringLiteral("trainsim"), QStringLiteral("trainsim-gui")).clear();
    {
      MainWindow quiet;
      quiet.show();
      quiet.close();
    }
    QVERIFY(!QSettings(QStringLiteral("trainsim"), QStringLiteral("trainsim-gui"))
                 .contains(QStringLiteral("layout/docks")));
  }
  void knob_tooltips_come_from_the_key_table() {
    // scenario_schema.cpp's row for parallelism.pp: "integer ≥ 1", default "1", "pipeline ranks".
    MainWindow w;
    auto* pp = w.findChild<QSpinBox*>(QStringLiteral("parallelism.pp"));
    QVERIFY(pp);
    QVERIFY(pp->toolTip().contains(QStringLiteral("pipeline ranks")));
    QVERIFY(pp->toolTip().contains(QStringLiteral("default 1")));
  }
  void a_measured_trace_is_drawn_and_compared() {
    MainWindow w;
    w.resize(1200, 800);
    QVERIFY(w.open_scenario(kDefault));
    w.wait_for_simulation();
    const QString trace =
        QStringLiteral(TRAINSIM_SOURCE_DIR "/tests/data/kineto/nccl_data.json.gz");
    QVERIFY(w.load_measured(trace));
    const GanttData* g = w.gantt()->data();
    QVERIFY(g && g->measured);
    QVERIFY(
        std::any_of(g->lanes.begin(), g->lanes.end(), [](const Lane& l) { return l.measured; }));
    auto* report = w.findChild<QTextEdit*>();
    QVERIFY(report);
    QVERIFY(report->toPlainText().contains("measured vs simulated"));
    QVERIFY(report->toPlainText().contains("ProfilerStep#5"));
    // The diff's table keeps its columns (a row on one line, however narrow the panel); its
    // notes wrap.
    w.show();
    QApplication::processEvents();
    const QTextDocument* doc = report->document();
    const QTextBlock row = doc->find(QStringLiteral("  memory-bound")).block();
    QVERIFY(row.isValid() && row.layout()->lineCount() == 1);
    const QTextBlock note = doc->find(QStringLiteral("the trace's world size")).block();
    QVERIFY(note.isValid() && note.layout()->lineCount() > 1);
    // A trace it cannot read: false, the reason kept, the loaded one still drawn.
    QVERIFY(!w.load_measured(
        QStringLiteral(TRAINSIM_SOURCE_DIR "/tests/data/kineto/cpu_only_rank-34.json.gz")));
    QVERIFY(w.last_error().contains("no GPU kernels"));
    QVERIFY(w.gantt()->data()->measured);
    QVERIFY(w.load_measured({}));  // cleared
    QVERIFY(!w.gantt()->data()->measured);
  }
  void the_report_reads_without_scrolling_sideways() {
    // At 1600×1000 the summary's MFU line is whole in the panel; longer summary lines wrap,
    // the stage table below does not (its columns stay aligned).
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    QVERIFY(w.open_scenario(kDefault));
    w.wait_for_simulation();
    auto* report = w.findChild<QTextEdit*>();
    QVERIFY(report);
    QString mfu;
    for (const QString& line : report->toPlainText().split(QLatin1Char('\n')))
      if (line.contains(QStringLiteral("MFU"))) mfu = line;
    QVERIFY(!mfu.isEmpty());
    QVERIFY(QFontMetrics(report->font()).horizontalAdvance(mfu) <= report->viewport()->width());
    const QTextDocument* doc = report->document();
    // The summary is a table of label and value: the durations line's value wraps in its own
    // column, under itself, its label on one line beside it.
    const QTextBlock durations = doc->find(QStringLiteral("durations")).block();
    QVERIFY(durations.isValid() && durations.layout()->lineCount() == 1);
    const QTextBlock value = doc->find(QStringLiteral("published kernel data")).block();
    QVERIFY(value.isValid() && value.layout()->lineCount() > 1);              // wrapped
    QVERIFY(value.layout()->lineAt(1).x() == value.layout()->lineAt(0).x());  // under itself
    const QTextBlock stage = doc->find(QStringLiteral("compute busy")).block();
    QVERIFY(stage.isValid() && stage.layout()->lineCount() == 1);  // kept on one line
  }
  void a_costs_only_scenario_shows_only_what_it_has() {
    // paper-1f1b.yaml gives per-stage costs and no model: dp, tp, ZeRO, recompute and b change
    // nothing there, so they are hidden; the default scenario (a model) shows them again.
    MainWindow w;
    w.show();
    QVERIFY(w.open_scenario(QStringLiteral(TRAINSIM_SOURCE_DIR "/scenarios/paper-1f1b.yaml")));
    w.wait_for_simulation();
    QVERIFY(w.last_error().isEmpty());
    for (const std::string& key : KnobPanel::keys())
      QCOMPARE(w.knobs()->field(key)->isVisible(), !KnobPanel::needs_model(key));
    // Nor is there memory to draw: the memory plot gives its space to the Gantt.
    QVERIFY(!w.findChild<MemoryView*>()->isVisible());
    QVERIFY(w.open_scenario(kDefault));
    w.wait_for_simulation();
    // A dense model: every knob but ep and etp (no experts to split).
    for (const std::string& key : KnobPanel::keys())
      QCOMPARE(w.knobs()->field(key)->isVisible(),
               key != "parallelism.ep" && key != "parallelism.etp");
    QVERIFY(w.findChild<MemoryView*>()->isVisible());
    // A mixture of experts shows them too.
    QVERIFY(w.open_scenario(QStringLiteral(TRAINSIM_SOURCE_DIR "/scenarios/mixtral-8x7b.yaml")));
    w.wait_for_simulation();
    QVERIFY(w.knobs()->field("parallelism.ep")->isVisible());
    QVERIFY(w.knobs()->field("parallelism.etp")->isVisible());
  }
  void the_etp_knob_keeps_experts_whole_on_each_tp_rank() {
    // mixtral-8x7b.yaml: tp 2 with SP, ep unset (1), etp unset (the experts split over TP).
    // Knob etp 1: each TP rank runs its own n / 2 tokens through whole experts, the library's
    // layout says etp 1 and the step changes (no dispatcher gather or scatter over TP; the
    // experts' gradients reduced over tp · dp = 8 ranks, not dp = 4). SP off under etp 1 is the
    // library's refusal, shown under the etp knob; SP back on and etp back to tp give the
    // file's step again.
    MainWindow w;
    QVERIFY(w.open_scenario(QStringLiteral(TRAINSIM_SOURCE_DIR "/scenarios/mixtral-8x7b.yaml")));
    w.wait_for_simulation();
    QVERIFY(w.last_error().isEmpty());
    auto* etp = static_cast<QComboBox*>(w.knobs()->field("parallelism.etp"));
    auto* sp = static_cast<QComboBox*>(w.knobs()->field("parallelism.sequence_parallel"));
    QCOMPARE(etp->currentText(), QStringLiteral("tp"));
    QCOMPARE(sp->currentText(), QStringLiteral("true"));
    QCOMPARE(w.outcome()->report.etp, 2);
    const double split = w.outcome()->report.step_time_s;
    QVERIFY(w.knobs()->overrides().empty());
    etp->setCurrentText(QStringLiteral("1"));
    w.wait_for_simulation();
    QVERIFY2(w.last_error().isEmpty(), qPrintable(w.last_error()));
    QCOMPARE(w.outcome()->report.etp, 1);
    QVERIFY(w.outcome()->report.step_time_s != split);
    QCOMPARE(w.knobs()->overrides(), (std::vector<std::string>{"parallelism.etp=1"}));
    // A searched layout's overrides set the knob: its etp removed (null) is `tp`, 1 is 1.
    w.knobs()->apply_layout({"parallelism.etp=null"});
    QCOMPARE(etp->currentText(), QStringLiteral("tp"));
    w.knobs()->apply_layout({"parallelism.etp=1"});
    QCOMPARE(etp->currentText(), QStringLiteral("1"));
    sp->setCurrentText(QStringLiteral("false"));
    w.wait_for_simulation();
    QVERIFY(!w.last_error().isEmpty());
    QLabel* err = w.knobs()->error_label("parallelism.etp");
    QVERIFY(!err->isHidden());
    QVERIFY(err->text().contains("sequence_parallel"));
    sp->setCurrentText(QStringLiteral("true"));
    etp->setCurrentText(QStringLiteral("tp"));
    w.wait_for_simulation();
    QVERIFY(w.last_error().isEmpty());
    QVERIFY(err->isHidden());
    QVERIFY(w.knobs()->overrides().empty());
    QCOMPARE(w.outcome()->report.step_time_s, split);
  }
  void an_etp_given_as_tp_follows_the_tp_knob() {
    // A file that writes etp as its tp degree (2): the knob shows `tp`, and at tp 4 the experts
    // follow (the key removed), where the file's 2 would be refused (neither 1 nor tp).
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path =
        scenario_file(dir, "etp.yaml",
                      "model: {preset: mixtral-8x7b, layers: 8}\n"
                      "training: {seq_len: 4096, micro_batch_size: 1, global_batch_size: 64}\n"
                      "cluster: {gpu: h100-sxm, gpus_per_node: 8}\n"
                      "parallelism: {tp: 2, etp: 2, pp: 2, dp: 2, zero: 1,\n"
                      "  sequence_parallel: true}\n");
    QVERIFY(!path.isEmpty());
    MainWindow w;
    QVERIFY(w.open_scenario(path));
    w.wait_for_simulation();
    QVERIFY(w.last_error().isEmpty());
    auto* etp = static_cast<QComboBox*>(w.knobs()->field("parallelism.etp"));
    QCOMPARE(etp->currentText(), QStringLiteral("tp"));
    QVERIFY(w.knobs()->overrides().empty());
    static_cast<QSpinBox*>(w.knobs()->field("parallelism.dp"))->setValue(1);
    static_cast<QSpinBox*>(w.knobs()->field("parallelism.tp"))->setValue(4);
    w.wait_for_simulation();
    QVERIFY2(w.last_error().isEmpty(), qPrintable(w.last_error()));
    QCOMPARE(w.outcome()->report.tp, 4);
    QCOMPARE(w.outcome()->report.etp, 4);
  }
  void a_bad_knob_shows_the_library_message_next_to_it() {
    // 8 GPUs: dp 2 × tp 3 × pp 4 = 24 is refused (key "parallelism"); the message goes under
    // the knob just edited.
    MainWindow w;
    QVERIFY(w.open_scenario(kDefault));
    w.wait_for_simulation();
    static_cast<QSpinBox*>(w.knobs()->field("parallelism.tp"))->setValue(3);
    w.wait_for_simulation();
    QVERIFY(!w.last_error().isEmpty());
    QLabel* err = w.knobs()->error_label("parallelism.tp");
    QVERIFY(!err->isHidden());
    QVERIFY(err->text().contains("dp × tp × pp = 2 × 3 × 4 = 24"));
    // tp 2 with pp 2 fits again (2 × 2 × 2 = 8): the error goes away.
    static_cast<QSpinBox*>(w.knobs()->field("parallelism.pp"))->setValue(2);
    static_cast<QSpinBox*>(w.knobs()->field("parallelism.tp"))->setValue(2);
    w.wait_for_simulation();
    QVERIFY(w.last_error().isEmpty());
    QVERIFY(err->isHidden());
    QCOMPARE(w.outcome()->report.tp, 2);
    QCOMPARE(w.outcome()->report.pp, 2);
  }
  void tp_overlap_and_cp_comm_are_knobs() {
    // llama3-8b-128k (tp 4 · cp 8, ring): TP's collectives follow their GEMMs, exposed. With the
    // TP-overlap knob on each layer's hides under the GEMM it is fused with, beside the ring's KV
    // blocks: a shorter step, less TP exposed (what outlasts its GEMM, and the vocabulary ends',
    // which are not fused). The all-gather variant puts the KV exchange on the critical path.
    MainWindow w;
    QVERIFY(w.open_scenario(QStringLiteral(TRAINSIM_SOURCE_DIR "/scenarios/llama3-8b-128k.yaml")));
    w.wait_for_simulation();
    QVERIFY(w.last_error().isEmpty());
    auto* overlap = static_cast<QComboBox*>(w.knobs()->field("parallelism.tp_overlap"));
    auto* kv = static_cast<QComboBox*>(w.knobs()->field("parallelism.cp_comm"));
    QCOMPARE(overlap->currentText(), QStringLiteral("false"));
    QCOMPARE(kv->currentText(), QStringLiteral("ring"));
    const double plain = w.outcome()->report.step_time_s;
    const double exposed = w.outcome()->report.stages[0].exposed_tp_s;
    QVERIFY(exposed > 0);
    overlap->setCurrentText(QStringLiteral("true"));
    w.wait_for_simulation();
    QVERIFY(w.last_error().isEmpty());
    QVERIFY(w.outcome()->report.step_time_s < plain);
    QVERIFY(w.outcome()->report.stages[0].exposed_tp_s < 0.5 * exposed);
    QCOMPARE(w.outcome()->report.stages[0].exposed_cp_s, 0.0);
    kv->setCurrentText(QStringLiteral("all_gather"));
    w.wait_for_simulation();
    QVERIFY(w.last_error().isEmpty());
    QVERIFY(w.outcome()->report.stages[0].exposed_cp_s > 0);
  }
  void the_recompute_knob_drops_selective_modules() {
    // A scenario recomputing Mixtral's MoE layers (training.recompute_modules: moe): the
    // recompute knob's other modes run without the modules (as `trainsim search` tries them),
    // and back on selective the file's modules hold again.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path =
        scenario_file(dir, "moe.yaml",
                      "model: {preset: mixtral-8x7b, layers: 8}\n"
                      "training: {seq_len: 4096, micro_batch_size: 1, global_batch_size: 64,\n"
                      "  recompute: selective, recompute_modules: moe}\n"
                      "cluster: {gpu: h100-sxm, gpus_per_node: 8}\n"
                      "parallelism: {tp: 2, pp: 2, dp: 2, zero: 1}\n");
    QVERIFY(!path.isEmpty());
    MainWindow w;
    QVERIFY(w.open_scenario(path));
    w.wait_for_simulation();
    QVERIFY(w.last_error().isEmpty());
    const double moe = w.outcome()->report.step_time_s;
    auto* recompute = static_cast<QComboBox*>(w.knobs()->field("training.recompute"));
    recompute->setCurrentText(QStringLiteral("none"));
    w.wait_for_simulation();
    QVERIFY2(w.last_error().isEmpty(), qPrintable(w.last_error()));
    QVERIFY(w.outcome()->report.step_time_s < moe);  // nothing replayed
    recompute->setCurrentText(QStringLiteral("full"));
    w.wait_for_simulation();
    QVERIFY2(w.last_error().isEmpty(), qPrintable(w.last_error()));
    recompute->setCurrentText(QStringLiteral("selective"));
    w.wait_for_simulation();
    QVERIFY(w.last_error().isEmpty());
    QCOMPARE(w.outcome()->report.step_time_s, moe);
  }
  void the_pp_knob_splits_evenly_where_layers_were_given_per_stage() {
    // Layers given for 4 stages (6/4/4/2 of Llama-3.2-1B's 16): pp 2 splits them evenly, as a
    // search's layouts of another stage count do; back at pp 4 the file's split holds again.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path =
        scenario_file(dir, "split.yaml",
                      "model: llama-3.2-1b\n"
                      "training: {seq_len: 4096, micro_batch_size: 1, global_batch_size: 64}\n"
                      "cluster: {gpu: h100-sxm, gpus_per_node: 8}\n"
                      "parallelism: {dp: 2, pp: 4, pipeline_split: {layers: [6, 4, 4, 2]}}\n");
    QVERIFY(!path.isEmpty());
    MainWindow w;
    QVERIFY(w.open_scenario(path));
    w.wait_for_simulation();
    QVERIFY(w.last_error().isEmpty());
    const double given = w.outcome()->report.step_time_s;
    QCOMPARE(w.outcome()->report.split.layers, (std::vector<int>{6, 4, 4, 2}));
    auto* pp = static_cast<QSpinBox*>(w.knobs()->field("parallelism.pp"));
    pp->setValue(2);
    w.wait_for_simulation();  // 4 GPUs of 8 until dp follows; the split is what is checked
    static_cast<QSpinBox*>(w.knobs()->field("parallelism.dp"))->setValue(4);
    w.wait_for_simulation();
    QVERIFY2(w.last_error().isEmpty(), qPrintable(w.last_error()));
    QVERIFY(w.outcome()->report.split.layers.empty());
    static_cast<QSpinBox*>(w.knobs()->field("parallelism.dp"))->setValue(2);
    pp->setValue(4);
    w.wait_for_simulation();
    QVERIFY2(w.last_error().isEmpty(), qPrintable(w.last_error()));
    QCOMPARE(w.outcome()->report.step_time_s, given);
  }
  void out_of_memory_is_marked() {
    // dp 8 × pp 1: every GPU holds all of Llama-3.1-8B's 8.03 B parameters with Adam,
    // 16 bytes each = 128 GB, over the H100's 79.18 GiB (85.0 GB).
    MainWindow w;
    QVERIFY(w.open_scenario(kDefault));
    w.wait_for_simulation();
    static_cast<QSpinBox*>(w.knobs()->field("parallelism.dp"))->setValue(8);
    w.wait_for_simulation();  // 64 GPUs asked of 8: refused until pp follows
    static_cast<QSpinBox*>(w.knobs()->field("parallelism.pp"))->setValue(1);
    w.wait_for_simulation();
    QVERIFY(w.last_error().isEmpty());
    QVERIFY(!w.memory()->report().out_of_memory.empty());
    QCOMPARE(&w.memory()->report(), w.outcome()->memory.get());  // the worker's, not rebuilt
    QVERIFY(w.memory()->series().front().peak > w.memory()->report().device_memory);
  }
  void compare_stacks_one_gantt_per_schedule() {
    MainWindow w;
    w.resize(1400, 850);
    w.show();
    QVERIFY(w.open_scenario(kDefault));
    w.compare({"1f1b", "zb-h1", "interleaved-1f1b"});
    w.wait_for_simulation();
    QCOMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(w.compare_view()));
    // interleaved needs vpp ≥ 2: it runs retried at vpp 2, as `trainsim compare` runs it.
    QCOMPARE(w.compare_view()->gantts().size(), std::size_t{3});
    QCOMPARE(w.outcome()->compared.size(), std::size_t{3});
    QVERIFY(std::any_of(w.outcome()->compared.begin(), w.outcome()->compared.end(),
                        [](const auto& c) { return c.schedule == "interleaved-1f1b (vpp 2)"; }));
    QVERIFY(colours(w.grab().toImage()).size() >= 8);
    // The box colours are named above the stacked Gantts, as on the Timeline tab.
    const auto* legend = w.compare_view()->findChild<QLabel*>("compare-legend");
    QVERIFY(legend != nullptr && legend->isVisible());
    QVERIFY(legend->text().contains("idle&nbsp;(bubble)"));
    // A swatch and its name stay on one line where the legend wraps: joined by non-breaking
    // spaces ("■ activation" had ended one line, "offload" begun the next).
    QVERIFY(legend->text().contains("&#9632;</span>&nbsp;activation&nbsp;offload"));
    // Each row names its bubble, imbalance and communication apart, as the status bar does.
    bool row_names_all_three = false;
    for (const QLabel* l : w.compare_view()->findChildren<QLabel*>())
      row_names_all_three =
          row_names_all_three || (l->text().contains("bubble") && l->text().contains("imbalance") &&
                                  l->text().contains("communication"));
    QVERIFY(row_names_all_three);
  }
  void compared_gantts_each_fit_the_step_in_a_narrow_window() {
    // At 1024 × 700 the first Gantt's fit used to hand its mapper to the others, which then
    // stopped fitting and kept a stale width (the axis read "-2 s … 0"). Each now fits [0, the
    // longest step] itself; a user's zoom on one is still followed by all.
    MainWindow w;
    w.resize(1024, 700);
    w.show();
    QVERIFY(w.open_scenario(kDefault));
    w.compare({"afab", "1f1b", "zb-h1"});
    w.wait_for_simulation();
    QApplication::processEvents();
    const auto& gantts = w.compare_view()->gantts();
    QCOMPARE(gantts.size(), std::size_t{3});
    const double longest = static_cast<double>(w.outcome()->compared[0].gantt->timeline->makespan);
    for (const GanttView* g : gantts) {
      QVERIFY(g->auto_fit());
      QCOMPARE(g->mapper().t0(), 0.0);
      QVERIFY(g->mapper().t1() >= longest * 0.999);
      QVERIFY(g->mapper().t1() <= longest * 1.001);
    }
    gantts[1]->zoom_in();
    for (const GanttView* g : gantts) {
      QVERIFY(!g->auto_fit());
      QCOMPARE(g->mapper().ns_per_pixel(), gantts[1]->mapper().ns_per_pixel());
    }
  }
  void a_second_scenario_file_is_compared_beside_the_first() {
    // A/B: the default scenario (Llama-3.1-8B, 1F1B, 8 GPUs) beside paper-1f1b.yaml (a costs-only
    // 4-stage 1F1B, 34.6 ms), each under its own schedule, as `trainsim compare A B` prints them.
    MainWindow w;
    w.resize(1400, 850);
    QVERIFY(w.open_scenario(kDefault));
    w.wait_for_simulation();
    w.compare_with({TRAINSIM_SOURCE_DIR "/scenarios/paper-1f1b.yaml", "/no/such.yaml"});
    w.wait_for_simulation();
    QCOMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(w.compare_view()));
    const auto& rows = w.outcome()->compared;
    QCOMPARE(rows.size(), std::size_t{3});
    QCOMPARE(QString::fromStdString(rows[0].schedule), QStringLiteral("llama8b-h100x8-pp4 · 1f1b"));
    QCOMPARE(QString::fromStdString(rows[1].schedule), QStringLiteral("paper-1f1b · 1f1b"));
    QCOMPARE(rows[1].report.step_time_s, 0.0346);
    // A file that cannot be read is a row saying why, not an abort of the others.
    QCOMPARE(QString::fromStdString(rows[2].schedule), QStringLiteral("/no/such.yaml"));
    QVERIFY(rows[2].error.find("No such file or directory") != std::string::npos);
    QCOMPARE(w.compare_view()->gantts().size(), std::size_t{2});
    // The other scenario's title says its layout (it is not the open one's).
    QStringList titles;
    for (const QLabel* l : w.compare_view()->findChildren<QLabel*>("compare-title"))
      titles << l->text();
    QCOMPARE(titles.size(), 2);
    QVERIFY(!titles[0].contains("GPUs"));
    QVERIFY(titles[1].contains("4 GPUs · dp 1 · tp 1 · pp 4 · 8 micro-batches"));
    // The charts name each row on two lines, scenario then schedule; a scenario name past 14
    // characters elided in its middle (Qt Charts would cut it from the left, its start).
    auto* names = qobject_cast<QBarCategoryAxis*>(
        w.compare_view()->findChildren<QChartView*>().front()->chart()->axes(Qt::Vertical).front());
    QVERIFY(names != nullptr);
    QCOMPARE(names->categories().back(), QStringLiteral("llama8\u2026x8-pp4<br>1f1b"));
    // Stopping the A/B leaves the compare empty again.
    w.compare_with({});
    w.wait_for_simulation();
    QVERIFY(w.outcome()->compared.empty());
  }
  void compare_marks_a_schedule_that_runs_out_of_memory() {
    // Default scenario: AFAB needs ~255 GB per GPU on stage 3, 1F1B ~56 GB (79.18 GiB device).
    MainWindow w;
    QVERIFY(w.open_scenario(kDefault));
    w.compare({"afab", "1f1b"});
    w.wait_for_simulation();
    QStringList titles;
    for (const QLabel* l : w.compare_view()->findChildren<QLabel*>("compare-title"))
      titles << l->text();
    QCOMPARE(titles.size(), 2);
    titles.sort();  // "<b>1f1b</b>…" before "<b>afab</b>…"
    QVERIFY(!titles[0].contains("out of memory"));
    QVERIFY(titles[1].contains("out of memory"));
    QVERIFY(titles[1].contains("the device has 85.0 GB"));
    // The table: one row per schedule, sortable by number; AFAB marked out of memory.
    QTableWidget* t = w.compare_view()->table();
    QCOMPARE(t->rowCount(), 2);
    t->sortItems(4, Qt::DescendingOrder);  // peak memory: AFAB's 255 GB first
    QCOMPARE(t->item(0, 0)->text(), QStringLiteral("afab"));
    QCOMPARE(t->item(0, 5)->text(), QStringLiteral("out of memory"));
    QCOMPARE(t->item(1, 5)->text(), QStringLiteral("yes"));
    QVERIFY(t->item(0, 4)->data(Qt::UserRole).toDouble() > 200);
    // The memory chart: the device as a named line, named in the title too; AFAB's bar, about
    // 4.5 × 1F1B's, is clipped past 1.3 × the device, 79.18 GiB (so 1F1B's stays legible): at the
    // axis' end, its round number above that, in a red set, its value in its name (a second
    // line: a long one-line name would be cut).
    QChart* memory = nullptr;
    for (const QChartView* v : w.compare_view()->findChildren<QChartView*>())
      if (v->chart()->title() == QStringLiteral("peak memory · device 85.0 GB"))
        memory = v->chart();
    QVERIFY(memory != nullptr);
    const auto lines = memory->series();
    QVERIFY(std::any_of(lines.begin(), lines.end(), [](const QAbstractSeries* s) {
      return s->name() == QStringLiteral("device 85.0 GB");
    }));
    const auto* bars = qobject_cast<QAbstractBarSeries*>(lines.front());
    QVERIFY(bars != nullptr);
    QCOMPARE(bars->count(), 2);  // fitting values, and the clipped one
    QBarSet* over = bars->barSets().at(1);
    QCOMPARE(over->color(), QColor(0xc62828));
    // Bars run bottom-up: AFAB, listed first, is the top bar (index 1).
    auto* x = qobject_cast<QValueAxis*>(memory->axes(Qt::Horizontal).front());
    QVERIFY(x != nullptr);
    QVERIFY(x->max() >= 1.3 * 79.18 * 1.073741824 * 1.05);  // 79.18 GiB in GB, and room past it
    QVERIFY(x->max() < 255);
    QCOMPARE(over->at(1), x->max());
    QCOMPARE(over->at(0), 0.0);
    auto* axis = qobject_cast<QBarCategoryAxis*>(memory->axes(Qt::Vertical).front());
    QVERIFY(axis != nullptr);
    QCOMPARE(axis->categories().back(), QStringLiteral("afab<br>(255 GB)"));
    QCOMPARE(axis->categories().front(), QStringLiteral("1f1b"));
  }
  void compare_draws_an_out_of_memory_bar_within_the_axis_in_red() {
    // DualPipe on the default scenario needs 102.3 GB of the 85.0: within the axis (AFAB's
    // 255 GB sets the clip, 1.3 × the device), yet out of memory, so red with its value shown,
    // never the colour of the schedules that fit.
    MainWindow w;
    QVERIFY(w.open_scenario(kDefault));
    w.compare({"afab", "1f1b", "dualpipe"});
    w.wait_for_simulation();
    QChart* memory = nullptr;
    for (const QChartView* v : w.compare_view()->findChildren<QChartView*>())
      if (v->chart()->title().startsWith(QStringLiteral("peak memory"))) memory = v->chart();
    QVERIFY(memory != nullptr);
    const auto* bars = qobject_cast<QAbstractBarSeries*>(memory->series().front());
    QVERIFY(bars != nullptr);
    QCOMPARE(bars->count(), 3);  // fitting, out of memory, clipped
    QBarSet* fits = bars->barSets().at(0);
    QBarSet* red = bars->barSets().at(1);
    QCOMPARE(red->label(), QStringLiteral("out of memory"));
    QCOMPARE(red->color(), QColor(0xc62828));
    // Values in near-black, readable on the bar and past the end of a bar shorter than its
    // value (they had been white, lost on the white beside a short bar).
    QCOMPARE(red->labelColor(), QColor(25, 25, 25));
    QCOMPARE(fits->labelColor(), QColor(25, 25, 25));
    // Bottom-up: dualpipe (index 0), 1f1b, afab.
    QVERIFY(red->at(0) > 100 && red->at(0) < 105);
    QCOMPARE(fits->at(0), 0.0);
    QVERIFY(fits->at(1) > 50 && fits->at(1) < 60);  // 1F1B's 56 GB fits
    QCOMPARE(red->at(1), 0.0);
  }
  void compare_names_a_bubble_of_zero() {
    // One pipeline stage (the 128K-token scenario: pp 1): no schedule has a bubble, and Qt Charts
    // draws a 0 with neither bar nor value, an empty chart; the names say "(0 %)". With a
    // pipeline (the default scenario, pp 4) every bubble is drawn and no name says so.
    for (const bool one_stage : {true, false}) {
      MainWindow w;
      QVERIFY(w.open_scenario(
          one_stage ? QStringLiteral(TRAINSIM_SOURCE_DIR "/scenarios/llama3-8b-128k.yaml")
                    : kDefault));
      w.compare({"afab", "1f1b"});
      w.wait_for_simulation();
      QChart* bubble = nullptr;
      for (const QChartView* v : w.compare_view()->findChildren<QChartView*>())
        if (v->chart()->title() == QStringLiteral("pipeline bubble")) bubble = v->chart();
      QVERIFY(bubble != nullptr);
      auto* axis = qobject_cast<QBarCategoryAxis*>(bubble->axes(Qt::Vertical).front());
      QVERIFY(axis != nullptr);
      // Bottom-up: 1f1b, then afab.
      const QStringList expected =
          one_stage ? QStringList{QStringLiteral("1f1b (0 %)"), QStringLiteral("afab (0 %)")}
                    : QStringList{QStringLiteral("1f1b"), QStringLiteral("afab")};
      QCOMPARE(axis->categories(), expected);
    }
  }
  void compare_of_many_schedules_labels_every_bar_on_one_line() {
    // Ten schedules: a two-line label would overlap its neighbours and Qt Charts would drop it,
    // so each name is one line, its "(vpp 2)" left to the titles and the table.
    MainWindow w;
    QVERIFY(w.open_scenario(kDefault));
    w.compare({"afab", "1f1b", "interleaved-1f1b", "zb-h1", "zb-h2", "zb-v", "dualpipe-v",
               "dualpipe", "zb-auto", "looped-bfs"});
    w.wait_for_simulation();
    for (const QChartView* v : w.compare_view()->findChildren<QChartView*>()) {
      auto* axis = qobject_cast<QBarCategoryAxis*>(v->chart()->axes(Qt::Vertical).front());
      QVERIFY(axis != nullptr);
      QCOMPARE(axis->count(), 10);
      for (const QString& c : axis->categories()) {
        QVERIFY2(!c.contains(QStringLiteral("<br>")), qPrintable(c));
        QVERIFY2(!c.contains(QStringLiteral("vpp")), qPrintable(c));
      }
      QVERIFY(axis->categories().contains(QStringLiteral("interleaved-1f1b")));
    }
  }
};
TRAINSIM_GUI_TEST(MainWindowTest);

#include "main_window_test.moc"
