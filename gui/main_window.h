#pragma once
// trainsim-gui's window: the Timeline tab (Gantt over memory), the Compare tab, the knobs and
// bundled-scenario browser on the left, the report and ranks panels on the right; File ▸ Open,
// recent files, drag-and-drop, exports (Chrome trace with the CLI's writer, PNG, SVG). Every
// number it shows comes from the sim library through SimWorker.
#include <memory>  // std::shared_ptr
#include <string>  // std::string
#include <vector>  // std::vector

#include <QMainWindow>

#include "measured/torch_trace.h"

#include "sim_worker.h"

class QAction;
class QLabel;
class QListWidget;
class QMenu;
class QTextEdit;
class QProgressBar;
class QTabWidget;
class QTreeView;

namespace trainsim::gui {

class CompareView;
class SearchView;
class GanttView;
class KnobPanel;
class MemoryView;
class TimelineModel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  /// Loads a scenario with `sets` ("dotted.key=value", as the CLI's --set: the knobs start
  /// from their values) and simulates it. Returns false (and shows why) when it cannot be read.
  bool open_scenario(const QString& path, const std::vector<std::string>& sets = {});
  /// Checks these schedules for comparison and shows the Compare tab.
  void compare(const std::vector<std::string>& schedules);
  /// Compares the open scenario with these scenario files (A/B: each under its own schedule,
  /// as `trainsim compare A.yaml B.yaml`) and shows the Compare tab; empty stops comparing.
  void compare_with(const std::vector<std::string>& paths);
  /// Waits for the simulation in flight (headless use).
  void wait_for_simulation();
  /// Saves the current tab as PNG or SVG by the file's extension.
  bool export_view(const QString& path);
  bool export_trace(const QString& path);
  /// Reads a PyTorch profiler trace (Kineto JSON or JSON.gz) and draws step `step` ("" = as
  /// `trainsim diff` picks) below the simulated step, with measured-vs-simulated in the report.
  /// Returns false (and shows why) when it cannot be read. An empty path clears it.
  bool load_measured(const QString& path, const QString& step = {});
  /// Restores the window's size, docks and the Timeline's Gantt/memory split as the user last
  /// left them (QSettings); saved on close. Interactive runs only: headless screenshots and
  /// tests keep the built-in layout.
  void restore_layout();
  /// The last error message ("" after a successful run).
  QString last_error() const { return last_error_; }
  std::shared_ptr<const SimOutcome> outcome() const { return outcome_; }

  GanttView* gantt() const { return gantt_; }
  MemoryView* memory() const { return memory_; }
  CompareView* compare_view() const { return compare_; }
  SearchView* search_view() const { return search_; }
  KnobPanel* knobs() const { return knobs_; }
  SimWorker* worker() const { return worker_; }
  QTabWidget* tabs() const { return tabs_; }

 protected:
  void dragEnterEvent(QDragEnterEvent*) override;
  void closeEvent(QCloseEvent*) override;
  void dropEvent(QDropEvent*) override;

 private:
  /// The report pane: `text` (the report and memory tables) under `diff` (a measured trace
  /// beside the simulation, or empty); prose wraps, tables keep their columns.
  void set_report_text(const QString& text, const QString& diff);
  /// A status-bar message in the plain style (not an out-of-memory step's red).
  void show_status(const QString& text);
  void build_menus();
  void simulate();
  void on_finished(std::shared_ptr<const SimOutcome> o);
  void on_failed(const QString& message, const QString& key);
  void remember(const QString& path);
  void refresh_recent();
  QWidget* current_view() const;
  void update_legend();
  /// The outcome's Gantt with the measured lanes, and the report with the diff (on_finished and
  /// load_measured).
  void show_outcome_with_measured();

  SimWorker* worker_ = nullptr;
  GanttView* gantt_ = nullptr;
  MemoryView* memory_ = nullptr;
  CompareView* compare_ = nullptr;
  SearchView* search_ = nullptr;
  std::vector<std::string> base_sets_;  ///< open_scenario's --set overrides, before the knobs
  std::vector<std::string> beside_;     ///< scenario files compared with the open one (A/B)
  QWidget* timeline_tab_ = nullptr;
  KnobPanel* knobs_ = nullptr;
  TimelineModel* model_ = nullptr;
  QTreeView* ranks_ = nullptr;
  QTextEdit* report_ = nullptr;
  QListWidget* browser_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QMenu* recent_ = nullptr;
  QAction* stop_beside_ = nullptr;  ///< File ▸ Stop comparing with files
  QLabel* status_ = nullptr;
  QProgressBar* busy_ = nullptr;
  QString path_;
  QString last_error_;
  std::shared_ptr<const SimOutcome> outcome_;
  QLabel* legend_ = nullptr;
  bool save_layout_ = false;  ///< restore_layout was called: closing saves the layout
  std::shared_ptr<const std::vector<TorchTrace>> measured_;  ///< one trace, or null
  int measured_step_ = -1;
};

/// Where the bundled scenarios are: $TRAINSIM_SCENARIOS, else the source tree's scenarios/.
QString bundled_scenarios_dir();

}  // namespace trainsim::gui
