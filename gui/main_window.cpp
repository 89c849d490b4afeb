#include "main_window.h"

#include <algorithm>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QProgressBar>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QSvgGenerator>
#include <QTabWidget>
#include <QTextEdit>
#include <QTreeView>
#include <QVBoxLayout>

#include "compare_view.h"
#include "core/error.h"
#include "core/quantity.h"
#include "gantt_painter.h"
#include "gantt_view.h"
#include "knob_panel.h"
#include "measured/step_breakdown.h"
#include "memory_view.h"
#include "report/chrome_trace.h"
#include "report/measured_diff.h"
#include "report/memory_report.h"
#include "report/report_format.h"
#include "scenario/scenario_loader.h"
#include "search_view.h"
#include "timeline_model.h"

#ifndef TRAINSIM_SCENARIOS_DIR
#define TRAINSIM_SCENARIOS_DIR "scenarios"
#endif

namespace trainsim::gui {

QString bundled_scenarios_dir() {
  const QByteArray env = qgetenv("TRAINSIM_SCENARIOS");
  if (!env.isEmpty()) return QString::fromLocal8Bit(env);
#ifdef TRAINSIM_INSTALLED_SCENARIOS
  // Installed (the .deb): <prefix>/bin/trainsim-gui finds <prefix>/share/trainsim/scenarios.
  if (!QDir(QStringLiteral(TRAINSIM_SCENARIOS_DIR)).exists()) {
    const QString installed = QCoreApplication::applicationDirPath() +
                              QStringLiteral("/../" TRAINSIM_INSTALLED_SCENARIOS);
    if (QDir(installed).exists()) return QDir(installed).canonicalPath();
  }
#endif
  return QStringLiteral(TRAINSIM_SCENARIOS_DIR);
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(QStringLiteral("trainsim"));
  setAcceptDrops(true);
  resize(1500, 900);
  worker_ = new SimWorker(this);

  tabs_ = new QTabWidget;
  auto* split = new QSplitter(Qt::Vertical);
  split->setObjectName(QStringLiteral("timeline-split"));
  gantt_ = new GanttView;
  memory_ = new MemoryView;
  memory_->set_label_width(gantt_->style().label_width);
  auto* top = new QWidget;
  auto* top_layout = new QVBoxLayout(top);
  top_layout->setContentsMargins(0, 0, 0, 0);
  top_layout->setSpacing(2);
  legend_ = new QLabel;
  legend_->setContentsMargins(6, 2, 6, 0);
  legend_->setWordWrap(true);
  update_legend();
  top_layout->addWidget(legend_);
  top_layout->addWidget(gantt_, 1);
  split->addWidget(top);
  split->addWidget(memory_);
  split->setStretchFactor(0, 4);
  split->setStretchFactor(1, 1);
  tabs_->addTab(split, tr("Timeline"));
  timeline_tab_ = split;
  compare_ = new CompareView;
  tabs_->addTab(compare_, tr("Compare"));
  search_ = new SearchView;
  tabs_->addTab(search_, tr("Search"));
  setCentralWidget(tabs_);
  connect(gantt_, &GanttView::view_changed, this,
          [this] { memory_->set_mapper(gantt_->mapper()); });

  knobs_ = new KnobPanel;
  auto* knob_dock = new QDockWidget(tr("Scenario"), this);
  knob_dock->setObjectName(QStringLiteral("knobs"));
  // Scrolled: the knobs' column is taller than a laptop screen leaves (the window could not be
  // made shorter than 844 pixels).
  auto* knob_scroll = new QScrollArea;
  knob_scroll->setWidget(knobs_);
  knob_scroll->setWidgetResizable(true);
  knob_scroll->setFrameShape(QFrame::NoFrame);
  knob_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  knob_dock->setWidget(knob_scroll);
  addDockWidget(Qt::LeftDockWidgetArea, knob_dock);
  connect(knobs_, &KnobPanel::edited, this, &MainWindow::simulate);
  // A layout opened from the search: the knobs take it, the Timeline shows it.
  connect(search_, &SearchView::open_layout, this, [this](std::vector<std::string> sets) {
    knobs_->apply_layout(sets);
    tabs_->setCurrentWidget(timeline_tab_);
    simulate();
  });
  connect(knobs_, &KnobPanel::compare_edited, this, [this] {
    simulate();
    tabs_->setCurrentWidget(compare_);
  });

  browser_ = new QListWidget;
  const QDir dir(bundled_scenarios_dir());
  for (const QString& f : dir.entryList({QStringLiteral("*.yaml")}, QDir::Files, QDir::Name)) {
    auto* item = new QListWidgetItem(f, browser_);
    item->setData(Qt::UserRole, dir.filePath(f));
  }
  connect(browser_, &QListWidget::itemActivated, this,
          [this](QListWidgetItem* it) { open_scenario(it->data(Qt::UserRole).toString()); });
  auto* browse_dock = new QDockWidget(tr("Bundled scenarios"), this);
  browse_dock->setObjectName(QStringLiteral("scenarios"));
  browse_dock->setWidget(browser_);
  addDockWidget(Qt::LeftDockWidgetArea, browse_dock);

  report_ = new QTextEdit;
  report_->setReadOnly(true);
  report_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  // Read without scrolling sideways: the summary's long lines wrap at the panel's edge (the
  // tables below it keep their columns), and the panel starts wide enough for its label-value
  // lines (a saved layout overrides, restore_layout).
  report_->setLineWrapMode(QTextEdit::WidgetWidth);
  const int column = QFontMetrics(report_->font()).horizontalAdvance(QLatin1Char('0'));
  report_->setMinimumWidth(36 * column);
  auto* report_dock = new QDockWidget(tr("Report"), this);
  report_dock->setObjectName(QStringLiteral("report"));
  report_dock->setWidget(report_);
  addDockWidget(Qt::RightDockWidgetArea, report_dock);

  model_ = new TimelineModel(this);
  ranks_ = new QTreeView;
  ranks_->setModel(model_);
  ranks_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  auto* ranks_dock = new QDockWidget(tr("Ranks"), this);
  ranks_dock->setObjectName(QStringLiteral("ranks"));
  ranks_dock->setWidget(ranks_);
  addDockWidget(Qt::RightDockWidgetArea, ranks_dock);
  tabifyDockWidget(report_dock, ranks_dock);
  report_dock->raise();
  resizeDocks({report_dock}, {48 * column}, Qt::Horizontal);

  status_ = new QLabel(tr("Open a scenario: File ▸ Open, the bundled list, or drop a .yaml"));
  busy_ = new QProgressBar;
  busy_->setRange(0, 0);  // indeterminate: the engine does not know its end in advance
  busy_->setMaximumWidth(140);
  busy_->hide();
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(busy_);
  connect(worker_, &SimWorker::started, this, [this] {
    busy_->show();
    show_status(tr("simulating…"));
  });
  connect(worker_, &SimWorker::finished, this, &MainWindow::on_finished);
  connect(worker_, &SimWorker::failed, this, &MainWindow::on_failed);
  build_menus();
}

// The colour legend above the Gantt (box kinds as gantt_painter colours them); the measured
// kernels' kinds only while a trace is loaded.
void MainWindow::update_legend() {
  legend_->setText(box_legend_html(measured_ != nullptr));
}

bool MainWindow::load_measured(const QString& path, const QString& step) {
  if (path.isEmpty()) {
    measured_.reset();
    measured_step_ = -1;
  } else {
    try {
      QApplication::setOverrideCursor(Qt::WaitCursor);
      auto traces = std::make_shared<std::vector<TorchTrace>>();
      traces->push_back(read_torch_trace(path.toStdString()));
      measured_step_ = pick_step(traces->front(), step.toStdString());
      measured_ = std::move(traces);
      QApplication::restoreOverrideCursor();
    } catch (const InputError& e) {
      QApplication::restoreOverrideCursor();
      last_error_ = QString::fromUtf8(e.what());
      show_status(last_error_);
      return false;
    }
  }
  update_legend();
  show_outcome_with_measured();
  return true;
}

void MainWindow::show_outcome_with_measured() {
  if (!outcome_) return;
  const auto& o = outcome_;
  const std::string text = format_report(o->report) + "\n" + format_memory(memory_->report());
  std::string diff;
  if (!measured_) {
    gantt_->set_data(o->gantt);
  } else {
    auto g = std::make_shared<GanttData>(*o->gantt);
    add_measured_lanes(*g, std::shared_ptr<const TorchTrace>(measured_, &measured_->front()),
                       measured_step_);
    gantt_->set_data(std::move(g));
    try {
      diff = format_measured_diff(
                 make_measured_diff(*o->timeline, o->report, *measured_, {measured_step_})) +
             "\n";
    } catch (const InputError& e) {
      diff = std::string("measured vs simulated: ") + e.what() + "\n\n";
    }
  }
  set_report_text(QString::fromStdString(text), QString::fromStdString(diff));
}

namespace {

// A row of a table: after its indentation, two or more gaps of two spaces or more, as
// aligned columns have ("  step   213.533 ms   3.884 s  +1719.1%"); a note or a label and its
// value has one at most.
bool table_row(const QString& line) {
  static const QRegularExpression gap(QStringLiteral("\\S {2,}\\S"));
  auto it = gap.globalMatch(line);
  int gaps = 0;
  while (it.hasNext() && gaps < 2) {
    it.next();
    ++gaps;
  }
  return gaps >= 2;
}

QString pre(const QString& text, bool wrap) {
  return (wrap ? QStringLiteral("<pre style='white-space: pre-wrap'>%1</pre>")
               : QStringLiteral("<pre>%1</pre>"))
      .arg(text.toHtmlEscaped());
}

// The report's "label   value" lines as a two-column table, so a wrapped value continues under
// itself ("throughput   67,487 tokens/s (8,436 ⏎ per GPU)"), not at column 0; a line without
// a label spans both columns. `column` is the width of one character of the report's font.
QString hanging(const QString& text, int column) {
  static const QRegularExpression label(QStringLiteral("^ *\\S[^ ]*(?: [^ ]+)* {2,}(?=\\S)"));
  int width = 0;  // the label column: the widest label's, at most 40 characters
  for (const QString& line : text.split(QLatin1Char('\n')))
    if (const auto m = label.match(line); m.hasMatch())
      width = std::max(width, static_cast<int>(std::min<qsizetype>(m.capturedLength(), 40)));
  const auto cell = [](const QString& t) {  // spaces kept where they align, wrapping at single ones
    QString html = t.toHtmlEscaped();
    html.replace(QStringLiteral("  "), QStringLiteral("&nbsp;&nbsp;"));
    if (html.startsWith(QLatin1Char(' '))) html.replace(0, 1, QStringLiteral("&nbsp;"));
    return html.isEmpty() ? QStringLiteral("&nbsp;") : html;
  };
  QString out = QStringLiteral(
      "<table cellspacing='0' cellpadding='0' style='font-family: "
      "monospace'>");
  for (const QString& line : text.split(QLatin1Char('\n'))) {
    const auto m = label.match(line);
    qsizetype lead = 0;
    while (lead < line.size() && line[lead] == QLatin1Char(' ')) ++lead;
    if (m.hasMatch() && m.capturedLength() <= width)
      out += QStringLiteral("<tr><td width='%1' style='white-space: pre'>%2</td><td>%3</td></tr>")
                 .arg(width * column)
                 .arg(line.left(m.capturedLength()).toHtmlEscaped())
                 .arg(cell(line.mid(m.capturedLength())));
    else if (width > 0 && lead >= width)  // a value's own further line: in the value column
      out += QStringLiteral("<tr><td></td><td>%1</td></tr>").arg(cell(line.mid(lead)));
    else
      out += QStringLiteral("<tr><td colspan='2'>%1</td></tr>").arg(cell(line));
  }
  return out + QStringLiteral("</table>");
}

}  // namespace

void MainWindow::set_report_text(const QString& text, const QString& diff) {
  // Read without scrolling sideways where that keeps the text readable: the diff's notes and
  // the summary (up to the dashed line closing "OUTPUT BREAKDOWN") wrap; tables (the diff's
  // rows, those after the summary) do not, so their columns stay aligned.
  QString html;
  QString run;
  bool run_wraps = true;
  for (const QString& line : diff.split(QLatin1Char('\n'))) {
    const bool wraps = !table_row(line);
    if (!run.isEmpty() && wraps != run_wraps) {
      html += pre(run, run_wraps);
      run.clear();
    }
    run_wraps = wraps;
    run += (run.isEmpty() ? QString() : QStringLiteral("\n")) + line;
  }
  if (!diff.isEmpty() && !run.isEmpty()) html += pre(run, run_wraps);
  const QString rule = QStringLiteral("\n------------------------------------\n");
  const auto head = text.indexOf(QStringLiteral("OUTPUT BREAKDOWN"));
  const auto cut = head < 0 ? -1 : text.indexOf(rule, head);
  const QString wrapped = cut < 0 ? text : text.left(cut + rule.size());
  const QString kept = cut < 0 ? QString() : text.mid(cut + rule.size());
  const int column = QFontMetrics(report_->font()).horizontalAdvance(QLatin1Char('0'));
  report_->setHtml(html + hanging(wrapped, column) + pre(kept, false));
}

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open…"), QKeySequence::Open, this, [this] {
    const QString p = QFileDialog::getOpenFileName(
        this, tr("Open scenario"), bundled_scenarios_dir(), tr("Scenarios (*.yaml *.yml)"));
    if (!p.isEmpty()) open_scenario(p);
  });
  recent_ = file->addMenu(tr("Open &Recent"));
  refresh_recent();
  file->addSeparator();
  file->addAction(tr("Compare &with scenario file…"),
                  QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this, [this] {
                    const QString p = QFileDialog::getOpenFileName(
                        this, tr("Compare with scenario"), bundled_scenarios_dir(),
                        tr("Scenarios (*.yaml *.yml)"));
                    if (p.isEmpty()) return;
                    std::vector<std::string> paths = beside_;
                    paths.push_back(p.toStdString());
                    compare_with(paths);
                  });
  stop_beside_ =
      file->addAction(tr("&Stop comparing with files"), this, [this] { compare_with({}); });
  stop_beside_->setEnabled(false);
  file->addSeparator();
  file->addAction(tr("Load &measured trace…"), this, [this] {
    const QString p = QFileDialog::getOpenFileName(
        this, tr("Load a PyTorch profiler trace"), QString(),
        tr("PyTorch profiler traces (*.json *.json.gz *.gz);;All files (*)"));
    if (!p.isEmpty()) load_measured(p);
  });
  file->addAction(tr("&Clear measured trace"), this, [this] { load_measured({}); });
  file->addSeparator();
  file->addAction(tr("Export Chrome &trace…"), this, [this] {
    const QString p = QFileDialog::getSaveFileName(
        this, tr("Export Chrome trace"), QStringLiteral("trace.json"), tr("Chrome trace (*.json)"));
    if (!p.isEmpty()) export_trace(p);
  });
  file->addAction(tr("Export view as &PNG or SVG…"), this, [this] {
    const QString p = QFileDialog::getSaveFileName(
        this, tr("Export view"), QStringLiteral("timeline.png"), tr("Images (*.png *.svg)"));
    if (!p.isEmpty()) export_view(p);
  });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(tr("&Fit to window"), QKeySequence(Qt::Key_F), gantt_, &GanttView::fit);
  view->addAction(tr("Zoom &in"), QKeySequence::ZoomIn, gantt_, &GanttView::zoom_in);
  view->addAction(tr("Zoom &out"), QKeySequence::ZoomOut, gantt_, &GanttView::zoom_out);
  view->addSeparator();
  QAction* streams = view->addAction(tr("Show communication &streams"));
  streams->setCheckable(true);
  streams->setChecked(gantt_->show_streams());
  connect(streams, &QAction::toggled, gantt_, &GanttView::set_show_streams);
  QAction* peers = view->addAction(tr("Show DP/TP &peers"));
  peers->setCheckable(true);
  peers->setChecked(gantt_->show_peers());
  connect(peers, &QAction::toggled, gantt_, &GanttView::set_show_peers);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&Keys and mouse"), this, [this] {
    QMessageBox::information(
        this, tr("Keys and mouse"),
        tr("Ctrl+wheel or pinch: zoom at the cursor\n+ / −: zoom, F or 0: fit\n"
           "drag: pan, Shift+wheel or ←/→: pan in time, wheel: scroll ranks\n"
           "Shift-drag or right-drag: zoom into a range\n"
           "click a box: highlight its micro-batch and its p2p arrows, Esc: clear"));
  });
}

bool MainWindow::open_scenario(const QString& path, const std::vector<std::string>& sets) {
  try {
    const Scenario sc = load_scenario(path.toStdString(), sets);
    path_ = path;
    base_sets_ = sets;
    knobs_->set_scenario(sc);
    setWindowTitle(QStringLiteral("trainsim — %1").arg(QFileInfo(path).fileName()));
    remember(path);
    simulate();
    return true;
  } catch (const InputError& e) {
    on_failed(QString::fromUtf8(e.what()), {});
    return false;
  }
}

void MainWindow::compare_with(const std::vector<std::string>& paths) {
  beside_ = paths;
  stop_beside_->setEnabled(!beside_.empty());
  if (!beside_.empty()) tabs_->setCurrentWidget(compare_);
  simulate();
}

void MainWindow::compare(const std::vector<std::string>& schedules) {
  knobs_->set_compare_schedules(schedules);
  tabs_->setCurrentWidget(compare_);
  simulate();
}

void MainWindow::simulate() {
  if (path_.isEmpty()) return;
  SimRequest r;
  r.scenario = path_.toStdString();
  r.overrides = base_sets_;
  for (auto& o : knobs_->overrides()) r.overrides.push_back(std::move(o));
  r.compare = knobs_->compare_schedules();
  r.beside = beside_;
  search_->set_scenario(r.scenario, r.overrides);  // the next search starts from what is shown
  worker_->request(std::move(r));
}

void MainWindow::wait_for_simulation() {
  worker_->wait();
}

void MainWindow::on_finished(std::shared_ptr<const SimOutcome> o) {
  outcome_ = o;
  last_error_.clear();
  busy_->setVisible(worker_->busy());
  knobs_->show_error({}, {});
  knobs_->show_values(o->timeline->scenario);
  memory_->set_data(o->timeline, o->memory, o->memory_series);
  memory_->set_mapper(gantt_->mapper());
  // A costs-only study has no memory to draw: the Gantt takes the whole pane.
  memory_->setVisible(o->timeline->scenario.model.has_value());
  model_->set_timeline(o->timeline);
  ranks_->expandToDepth(0);
  compare_->set_outcome(o);
  show_outcome_with_measured();
  const double phase = o->report.pipeline_time_s > 0 ? o->report.pipeline_time_s : 1.0;
  // The stage's own CPU's launches, where the step simulates them (efficiency.host_per_kernel).
  const QString cpu =
      o->report.idle.launch_s > 0
          ? tr(", CPU launches %1 %").arg(100 * o->report.idle.launch_s / phase, 0, 'f', 1)
          : QString();
  // Out of memory or tight first: the memory pane's markers are not the only word of it.
  QString memory;
  const auto worst = [](const std::vector<OutOfMemory>& list) {
    return QString::fromStdString(worst_excess_words(list));
  };
  if (o->memory && !o->memory->out_of_memory.empty())
    memory = tr("OUT OF MEMORY: %1 over the device · ").arg(worst(o->memory->out_of_memory));
  else if (o->memory && !o->memory->tight.empty())
    memory = tr("tight: %1 over the usable memory · ").arg(worst(o->memory->tight));
  status_->setStyleSheet(o->memory && !o->memory->out_of_memory.empty()
                             ? QStringLiteral("color: #b01010")
                             : QString());
  status_->setText(memory +
                   tr("%1 · step %2 · bubble %3 % · idle from imbalance %4 %, communication "
                      "%5 %%6 · %7 tasks · simulated in %8 ms")
                       .arg(QString::fromStdString(o->report.schedule))
                       .arg(QString::fromStdString(format_time(o->report.step_time_s)))
                       .arg(100 * o->report.bubble_fraction_of_step, 0, 'f', 1)
                       .arg(100 * o->report.idle.imbalance_s / phase, 0, 'f', 1)
                       .arg(100 * o->report.idle.communication_s / phase, 0, 'f', 1)
                       .arg(cpu)
                       .arg(o->report.tasks)
                       .arg(o->seconds * 1e3, 0, 'f', 0));
}

void MainWindow::show_status(const QString& text) {
  status_->setStyleSheet({});
  status_->setText(text);
}

void MainWindow::on_failed(const QString& message, const QString& key) {
  last_error_ = message;
  busy_->setVisible(worker_->busy());
  knobs_->show_error(key, message);
  show_status(message.section(QLatin1Char('\n'), 0, 0));
  statusBar()->setToolTip(message);
}

QWidget* MainWindow::current_view() const {
  return tabs_->currentWidget();
}

bool MainWindow::export_view(const QString& path) {
  QWidget* w = current_view();
  if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(w->size());
    svg.setViewBox(QRect(QPoint(0, 0), w->size()));
    svg.setTitle(windowTitle());
    QPainter p(&svg);
    w->render(&p);
    return p.end();
  }
  if (!w->grab().save(path)) {
    on_failed(tr("cannot write %1").arg(path), {});
    return false;
  }
  return true;
}

bool MainWindow::export_trace(const QString& path) {
  if (!outcome_) return false;
  try {
    write_chrome_trace_file(*outcome_->timeline, path.toStdString());
    show_status(tr("trace written to %1 (open it in ui.perfetto.dev)").arg(path));
    return true;
  } catch (const InputError& e) {
    on_failed(QString::fromUtf8(e.what()), {});
    return false;
  }
}

void MainWindow::restore_layout() {
  QSettings s(QStringLiteral("trainsim"), QStringLiteral("trainsim-gui"));
  restoreGeometry(s.value(QStringLiteral("layout/geometry")).toByteArray());
  restoreState(s.value(QStringLiteral("layout/docks")).toByteArray());
  if (auto* split = findChild<QSplitter*>(QStringLiteral("timeline-split")))
    split->restoreState(s.value(QStringLiteral("layout/timeline-split")).toByteArray());
  save_layout_ = true;
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (save_layout_) {
    QSettings s(QStringLiteral("trainsim"), QStringLiteral("trainsim-gui"));
    s.setValue(QStringLiteral("layout/geometry"), saveGeometry());
    s.setValue(QStringLiteral("layout/docks"), saveState());
    if (auto* split = findChild<QSplitter*>(QStringLiteral("timeline-split")))
      s.setValue(QStringLiteral("layout/timeline-split"), split->saveState());
  }
  QMainWindow::closeEvent(e);
}

void MainWindow::remember(const QString& path) {
  QSettings s(QStringLiteral("trainsim"), QStringLiteral("trainsim-gui"));
  QStringList recent = s.value(QStringLiteral("recent")).toStringList();
  const QString abs = QFileInfo(path).absoluteFilePath();
  recent.removeAll(abs);
  recent.prepend(abs);
  while (recent.size() > 8) recent.removeLast();
  s.setValue(QStringLiteral("recent"), recent);
  refresh_recent();
}

void MainWindow::refresh_recent() {
  recent_->clear();
  QSettings s(QStringLiteral("trainsim"), QStringLiteral("trainsim-gui"));
  const QStringList recent = s.value(QStringLiteral("recent")).toStringList();
  for (const QString& p : recent) recent_->addAction(p, this, [this, p] { open_scenario(p); });
  recent_->setEnabled(!recent.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  for (const QUrl& u : e->mimeData()->urls())
    if (u.isLocalFile() &&
        (u.path().endsWith(QLatin1String(".yaml")) || u.path().endsWith(QLatin1String(".yml")))) {
      e->acceptProposedAction();
      return;
    }
}

void MainWindow::dropEvent(QDropEvent* e) {
  for (const QUrl& u : e->mimeData()->urls())
    if (u.isLocalFile()) {
      open_scenario(u.toLocalFile());
      return;
    }
}

}  // namespace trainsim::gui
