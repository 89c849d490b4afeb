#pragma once
// "Which layout is fastest and fits?" in the GUI: the sim library's layout search (the CLI's
// `trainsim search` call, default dimensions) on the scenario as the knobs have it, run off the
// GUI thread with its progress; the ranked candidates in a sortable table (fitting ones first,
// the Pareto front marked) beside the search's own step-time-against-memory plot. Activating a
// row that ran opens that layout: its overrides go to the knobs and the Timeline tab shows it.
#include <memory>  // std::shared_ptr
#include <string>  // std::string
#include <vector>  // std::vector

#include <QThreadPool>
#include <QWidget>

#include "search/layout_search.h"

class QLabel;
class QPushButton;
class QTableWidget;

namespace trainsim::gui {

class SearchView : public QWidget {
  Q_OBJECT
 public:
  explicit SearchView(QWidget* parent = nullptr);
  ~SearchView() override;
  /// The scenario the next search starts from: a file and the knobs' overrides.
  void set_scenario(const std::string& path, const std::vector<std::string>& overrides);
  /// Starts a search (the button does the same); ignored while one runs.
  void run();
  /// Blocks until no search is in flight and its result is shown (tests, headless use).
  void wait();
  const std::vector<SearchResult>& results() const { return results_; }
  QTableWidget* table() const { return table_; }
  QString status() const;
  /// Under the plot, after a search: the track record behind the ranking (the GPU's
  /// validation line and the layout-order line `trainsim search` prints); "" before.
  QString record() const;

 signals:
  /// A row was activated: the `--set` overrides (and schedule) of its layout.
  void open_layout(std::vector<std::string> overrides);

 private:
  /// `measured`: measured_pace_line of the scenario's own run, computed with the search.
  void show_results(std::shared_ptr<const Scenario> base, std::vector<SearchResult> results,
                    double seconds, const std::string& measured);
  void activate(int row);

  std::string path_;
  std::vector<std::string> overrides_;
  std::vector<SearchResult> results_;
  QPushButton* button_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* record_ = nullptr;
  QTableWidget* table_ = nullptr;
  class Plot;
  Plot* plot_ = nullptr;
  QThreadPool pool_;
  bool running_ = false;
};

}  // namespace trainsim::gui
