#include "search_view.h"

#include <algorithm>

#include <QTabWidget>
#include <QTableWidget>
#include <QTest>

#include "gui_test.h"
#include "main_window.h"
#include "report/validation.h"
#include "scenario/scenario_loader.h"

using namespace trainsim;
using namespace trainsim::gui;

class SearchViewTest : public QObject {
  Q_OBJECT
 private slots:
  void ranks_what_the_cli_ranks_and_opens_a_row() {
    // The default scenario (Llama-3.1-8B on 8 H100s): the library's search, the call behind
    // `trainsim search`, ranks 129 layouts; the view shows the same ones in the same order.
    const std::string path = TRAINSIM_SOURCE_DIR "/scenarios/default.yaml";
    const auto expected = search_layouts(load_scenario(path), {}, {0, 1});
    MainWindow w;
    w.resize(1400, 850);
    QVERIFY(w.open_scenario(QString::fromStdString(path)));
    w.wait_for_simulation();
    w.search_view()->run();
    w.search_view()->wait();
    const auto& got = w.search_view()->results();
    QCOMPARE(got.size(), expected.size());
    QCOMPARE(w.search_view()->table()->rowCount(), static_cast<int>(expected.size()));
    for (std::size_t i = 0; i < got.size(); ++i) {
      QCOMPARE(got[i].layout.words(), expected[i].layout.words());
      QCOMPARE(got[i].report.step_time_s, expected[i].report.step_time_s);
    }
    QVERIFY(w.search_view()->status().contains(QStringLiteral("129 layouts")));
    // Under the plot, the lines `trainsim search` prints under its ranking (report/validation.h).
    QVERIFY(w.search_view()->record().contains(
        QString::fromStdString("validation: " + validation_line("h100-sxm"))));
    QVERIFY(w.search_view()->record().contains(
        QString::fromStdString("layout order: " + ranking_line())));
    QVERIFY(w.search_view()->record().contains(
        QString::fromStdString("by TP degree: " + tp_record_line())));
    // The default scenario carries no measured: figure, so no pace.
    QVERIFY(!w.search_view()->record().contains(QStringLiteral("measured:")));
    // A tight layout's status cell says so in a word, its tooltip why (the column stays narrow).
    const auto tight =
        std::find_if(got.begin(), got.end(), [](const SearchResult& r) { return r.tight; });
    QVERIFY(tight != got.end());
    int shown = 0;
    for (int i = 0; i < w.search_view()->table()->rowCount(); ++i)
      if (w.search_view()->table()->item(i, 0)->data(Qt::UserRole).toInt() == tight - got.begin()) {
        const QTableWidgetItem* st = w.search_view()->table()->item(i, 5);
        QVERIFY2(st->text().endsWith(QStringLiteral("· tight")), qPrintable(st->text()));
        QVERIFY(st->toolTip().contains(QStringLiteral("caching allocator")));
        ++shown;
      }
    QCOMPARE(shown, 1);
    // Row 0 (the fastest that fits, dp 8 · ZeRO-2 here) opens in the Timeline: the knobs take
    // its layout and the simulated step is the search's.
    QVERIFY(expected[0].ran());
    QCOMPARE(w.search_view()->table()->item(0, 1)->text(),
             QString::fromStdString(expected[0].layout.words()));
    emit w.search_view()->table()->cellActivated(0, 1);
    w.wait_for_simulation();
    QVERIFY(w.last_error().isEmpty());
    QVERIFY(w.tabs()->currentIndex() == 0);
    const Layout& l = w.outcome()->timeline->scenario.layout;
    QCOMPARE(l.dp, expected[0].layout.dp);
    QCOMPARE(l.pp, expected[0].layout.pp);
    QCOMPARE(l.zero, expected[0].layout.zero);
    QCOMPARE(w.outcome()->report.step_time_s, expected[0].report.step_time_s);
    // A layout ruled out on memory (dp 8 without ZeRO: 130 GB of static memory) still opens:
    // the window simulates it and marks it out of memory.
    const auto ruled =
        std::find_if(got.begin(), got.end(), [](const SearchResult& r) { return r.ruled_out; });
    QVERIFY(ruled != got.end());
    int row = -1;
    for (int i = 0; i < w.search_view()->table()->rowCount(); ++i)
      if (w.search_view()->table()->item(i, 0)->data(Qt::UserRole).toInt() == ruled - got.begin())
        row = i;
    QVERIFY(row >= 0);
    emit w.search_view()->table()->cellActivated(row, 1);
    w.wait_for_simulation();
    QVERIFY(w.last_error().isEmpty());
    QCOMPARE(w.outcome()->timeline->scenario.layout.dp, ruled->layout.dp);
    QVERIFY(w.outcome()->memory && !w.outcome()->memory->out_of_memory.empty());
  }
  void quotes_a_measured_run_at_its_pace() {
    // A published run (MPT-125M on 8 A100s, measured 13.5 % slower than predicted): the line
    // `trainsim search` prints for it, above the record lines.
    const std::string path = TRAINSIM_SOURCE_DIR "/tests/published/mpt-125m-a100-8gpu-s2048.yaml";
    const Scenario sc = load_scenario(path);
    const std::string line = measured_pace_line(measured_pace(sc), search_layouts(sc, {}, {0, 1}));
    QVERIFY(line.rfind("measured: the scenario's own layout took", 0) == 0);
    SearchView v;
    v.set_scenario(path, {});
    v.run();
    v.wait();
    QVERIFY2(v.record().startsWith(QString::fromStdString(line)), qPrintable(v.record()));
  }
  void a_bad_scenario_is_reported_not_thrown() {
    SearchView v;
    v.set_scenario(TRAINSIM_SOURCE_DIR "/scenarios/default.yaml", {"parallelism.dp=3"});
    v.run();
    v.wait();
    // dp 3 on 8 GPUs at pp 4: the loader's message, in the status line.
    QVERIFY2(v.status().contains(QStringLiteral("dp × tp × pp = 3 × 1 × 4 = 12 must equal")),
             qPrintable(v.status()));
    QVERIFY(v.results().empty());
  }
};
TRAINSIM_GUI_TEST(SearchViewTest);

#include "search_view_test.moc"
