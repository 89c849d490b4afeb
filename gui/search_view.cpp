#include "search_view.h"

#include <chrono>

#include <QCoreApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPointer>
#include <QPushButton>
#include <QSplitter>
#include <QSvgRenderer>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/error.h"
#include "core/quantity.h"
#include "report/validation.h"
#include "scenario/scenario_loader.h"
#include "search/search_plot.h"

namespace trainsim::gui {
namespace {

enum Column { kRank, kLayout, kStep, kMfu, kMemory, kStatus, kColumns };

constexpr int kSortRole = Qt::UserRole + 1;

// A cell that shows `text` and sorts by a number (QTableWidgetItem's display and edit data
// are one value, so the number lives in its own role).
class Cell : public QTableWidgetItem {
 public:
  Cell(const QString& text, double value) : QTableWidgetItem(text) {
    setData(kSortRole, value);
    setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  }
  bool operator<(const QTableWidgetItem& other) const override {
    const QVariant a = data(kSortRole), b = other.data(kSortRole);
    if (a.isValid() && b.isValid() && a.toDouble() != b.toDouble())
      return a.toDouble() < b.toDouble();
    return text() < other.text();
  }
};

QTableWidgetItem* cell(const QString& text, double value) {
  return new Cell(text, value);
}
QTableWidgetItem* text_cell(const QString& text) {
  auto* item = new Cell(text, 0);
  item->setData(kSortRole, QVariant());  // sorts by its text
  return item;
}

// `brief`: the table cell's words ("fits · tight"); the whole text is its tooltip.
QString status_of(const SearchResult& r, bool brief = false) {
  if (!r.error.empty()) return QStringLiteral("cannot run: ") + QString::fromStdString(r.error);
  if (r.ruled_out)
    return r.memory_bound > 0
               ? QStringLiteral(
                     "ruled out: static memory and in-flight activations over the device")
               : QStringLiteral("ruled out: static memory over the device");
  if (r.out_of_memory) return QStringLiteral("out of memory");
  QString fits = r.pareto ? QStringLiteral("fits · Pareto front") : QStringLiteral("fits");
  // The CLI table's "~": over what the caching allocator leaves usable (memory.fragmentation).
  if (r.tight)
    fits += brief ? QStringLiteral(" · tight")
                  : QStringLiteral(
                        " · tight: past the usable memory, the caching allocator may "
                        "run out or slow down");
  // The CLI table's "!" (search/layout_search.h): the CPU, not the GPU, without CUDA graphs.
  if (paced_by_eager_cpu(r) && brief)
    fits += QStringLiteral(" · ! CPU-paced");
  else if (paced_by_eager_cpu(r))
    fits += QStringLiteral(
                " · !: %1 of GPU compute a kernel, less than eager PyTorch's CPU "
                "takes to issue one: without CUDA graphs the CPU's")
                .arg(QString::fromStdString(format_time(r.report.cpu_headroom_s)));
  return fits;
}

}  // namespace

// The search's SVG plot, scaled into the widget with its aspect kept.
class SearchView::Plot : public QWidget {
 public:
  void load(const QByteArray& svg) {
    renderer_.load(svg);
    update();
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    if (!renderer_.isValid()) return;
    QPainter p(this);
    const QSizeF size = renderer_.defaultSize().scaled(this->size(), Qt::KeepAspectRatio);
    renderer_.render(&p, QRectF(QPointF(0, 0), size));
  }

 private:
  QSvgRenderer renderer_;
};

SearchView::SearchView(QWidget* parent) : QWidget(parent) {
  pool_.setMaxThreadCount(1);
  auto* outer = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  button_ = new QPushButton(tr("Search layouts"));
  button_->setToolTip(
      tr("Every tp × pp × dp of the scenario's GPUs with ZeRO 0–3, sequence parallelism and "
         "recompute, as `trainsim search` tries them; the global batch is kept"));
  status_ =
      new QLabel(tr("Search every parallel layout of this scenario's GPUs and rank those "
                    "that fit by step time."));
  status_->setWordWrap(true);
  bar->addWidget(button_);
  bar->addWidget(status_, 1);
  outer->addLayout(bar);
  auto* split = new QSplitter(Qt::Vertical);  // the table keeps the whole width
  table_ = new QTableWidget(0, kColumns);
  table_->setHorizontalHeaderLabels(
      {tr("#"), tr("layout"), tr("step time"), tr("MFU"), tr("GPU memory"), tr("status")});
  table_->verticalHeader()->hide();
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setToolTip(
      tr("Double-click a layout to open its Gantt and memory (one ruled out on memory is "
         "simulated then)"));
  split->addWidget(table_);
  plot_ = new Plot;
  plot_->setMinimumSize(360, 240);
  split->addWidget(plot_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  outer->addWidget(split, 1);
  record_ = new QLabel;
  record_->setWordWrap(true);
  record_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  outer->addWidget(record_);
  connect(button_, &QPushButton::clicked, this, &SearchView::run);
  connect(table_, &QTableWidget::cellActivated, this, [this](int row, int) { activate(row); });
}

SearchView::~SearchView() {
  pool_.waitForDone();
}

void SearchView::set_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  path_ = path;
  overrides_ = overrides;
}

QString SearchView::status() const {
  return status_->text();
}

QString SearchView::record() const {
  return record_->text();
}

void SearchView::run() {
  if (running_ || path_.empty()) return;
  running_ = true;
  button_->setEnabled(false);
  status_->setText(tr("searching…"));
  QPointer<SearchView> self(this);
  pool_.start([self, path = path_, overrides = overrides_] {
    const auto t0 = std::chrono::steady_clock::now();
    std::shared_ptr<const Scenario> base;
    std::vector<SearchResult> results;
    std::string measured;  // the scenario's own run against its measured: figure
    QString error;
    try {
      base = std::make_shared<const Scenario>(load_scenario(path, overrides));
      // Progress from the pool's threads, shown on the GUI thread.
      results = search_layouts(*base, {}, {}, [self](std::size_t done, std::size_t total) {
        if (done % 16 != 0 && done != total) return;
        QMetaObject::invokeMethod(
            self,
            [self, done, total] {
              if (self)
                self->status_->setText(tr("searching… %1 of %2 layouts").arg(done).arg(total));
            },
            Qt::QueuedConnection);
      });
      measured = measured_pace_line(measured_pace(*base), results);
    } catch (const std::exception& e) {  // InputError: shown; our own bug: shown, never a crash
      error = QString::fromStdString(e.what());
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    QMetaObject::invokeMethod(
        self,
        [self, base, results = std::move(results), measured, error, seconds]() mutable {
          if (!self) return;
          self->running_ = false;
          self->button_->setEnabled(true);
          if (!error.isEmpty()) {
            self->status_->setText(error);
            return;
          }
          self->show_results(base, std::move(results), seconds, measured);
        },
        Qt::QueuedConnection);
  });
}

void SearchView::wait() {
  pool_.waitForDone();
  QCoreApplication::processEvents();  // deliver the queued result
}

void SearchView::show_results(std::shared_ptr<const Scenario> base,
                              std::vector<SearchResult> results, double seconds,
                              const std::string& measured) {
  results_ = std::move(results);
  std::size_t fit = 0;
  for (const auto& r : results_) fit += r.ran() && !r.out_of_memory;
  status_->setText(tr("%1 layouts in %2 s: %3 fit. Double-click one to open it.")
                       .arg(results_.size())
                       .arg(seconds, 0, 'f', 2)
                       .arg(fit));
  table_->setSortingEnabled(false);
  table_->setRowCount(static_cast<int>(results_.size()));
  for (std::size_t i = 0; i < results_.size(); ++i) {
    const SearchResult& r = results_[i];
    const int row = static_cast<int>(i);
    auto* rank = cell(QStringLiteral("%1%2%3")
                          .arg(r.pareto ? "*" : "")
                          .arg(i + 1)
                          .arg(paced_by_eager_cpu(r) ? "!" : ""),
                      static_cast<double>(i + 1));
    rank->setData(Qt::UserRole, static_cast<int>(i));  // the result behind the row, sorted or not
    table_->setItem(row, kRank, rank);
    table_->setItem(row, kLayout, text_cell(QString::fromStdString(r.layout.words())));
    const bool ran = r.ran();
    const double inf = 1e300;  // rows that did not run sort last
    table_->setItem(row, kStep,
                    cell(ran ? QString::fromStdString(format_time(r.report.step_time_s)) : "-",
                         ran ? r.report.step_time_s : inf));
    const double mfu = ran && r.report.mfu ? *r.report.mfu : -1;
    table_->setItem(row, kMfu,
                    cell(mfu >= 0 ? QStringLiteral("%1 %").arg(100 * mfu, 0, 'f', 1) : "-", mfu));
    const double mem = r.known_memory();
    table_->setItem(row, kMemory,
                    cell(mem > 0 ? QStringLiteral("%1 GB").arg(mem / 1e9, 0, 'f', 1) : "-", mem));
    auto* st = text_cell(status_of(r, true));
    st->setToolTip(status_of(r));
    table_->setItem(row, kStatus, st);
  }
  table_->setSortingEnabled(true);
  table_->sortItems(kRank);
  table_->resizeColumnsToContents();
  plot_->load(QByteArray::fromStdString(search_plot_svg(*base, results_)));
  // How far this GPU's step times and the suite's layout order have been off: the lines
  // `trainsim search` prints under its ranking (report/validation.h).
  record_->setText(QString::fromStdString((measured.empty() ? "" : measured + "\n") +
                                          search_record_lines(base->cluster.gpu.name))
                       .trimmed());
}

void SearchView::activate(int row) {
  const QTableWidgetItem* rank = table_->item(row, kRank);
  if (!rank) return;
  const SearchResult& r = results_.at(static_cast<std::size_t>(rank->data(Qt::UserRole).toInt()));
  if (!r.error.empty()) {  // one ruled out on memory can run: the window simulates it
    status_->setText(
        tr("%1 did not run: %2").arg(QString::fromStdString(r.layout.words()), status_of(r)));
    return;
  }
  std::vector<std::string> sets = r.layout.overrides();
  if (!r.layout.schedule.empty()) sets.push_back("schedule.name=" + r.layout.schedule);
  emit open_layout(std::move(sets));
}

}  // namespace trainsim::gui
