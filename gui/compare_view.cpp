#include "compare_view.h"

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include "core/quantity.h"
#include "gantt_view.h"

namespace trainsim::gui {
namespace {

constexpr QRgb kOutOfMemory = 0xc62828;  // the memory view's out-of-memory red

// One horizontal bar per schedule, the schedules named on the left axis top to bottom (as the
// Gantts above are stacked), one bar set per measure (a legend names them when there are two).
struct BarChartSpec {
  BarChartSpec(QString t, QString u, QStringList n,
               std::vector<std::pair<QString, std::vector<double>>> s)
      : title(std::move(t)), unit(std::move(u)), names(std::move(n)), sets(std::move(s)) {}
  QString title, unit;
  QStringList names;  ///< one per schedule, top to bottom
  std::vector<std::pair<QString, std::vector<double>>> sets;
  double clip = 0;   ///< > 0: the axis ends here; longer bars stop at it, in red
  double limit = 0;  ///< > 0: a dashed vertical line (the device's memory)
  QString limit_name;
  std::vector<bool> flagged;  ///< per schedule: drawn in red (out of memory), its value shown
  /// Appended to the name of a schedule whose every bar is 0, which Qt Charts draws without a
  /// bar or a value (a pipeline of one stage has no bubble); empty: nothing appended.
  QString zero;
};

const QColor kBarLabel(25, 25, 25);

QChartView* bar_chart(const BarChartSpec& spec) {
  const auto n = static_cast<int>(spec.names.size());
  // Stacked, so that a clipped bar can be its own set: drawn in red, its (clipped) value hidden
  // (the real one is in its name). Each schedule has a value in one set only.
  auto* series = new QHorizontalStackedBarSeries;
  // Each bar's value at its base, in near-black: readable on the bar and, for a bar shorter
  // than its label (a 0.03 s step beside 5 s ones), on the white past its end.
  series->setLabelsVisible(true);
  series->setLabelsPosition(QAbstractBarSeries::LabelsInsideBase);
  series->setLabelsFormat(QStringLiteral("@value"));
  series->setLabelsPrecision(4);
  double top = spec.limit;
  std::vector<QBarSet*> overs;  // the clipped bars' sets: they end where the axis ends
  for (const auto& [name, values] : spec.sets) {
    auto* set = new QBarSet(name);
    set->setLabelColor(kBarLabel);
    auto* over = new QBarSet(QObject::tr("beyond the axis"));
    over->setColor(QColor(kOutOfMemory));
    over->setLabelColor(Qt::transparent);
    // A flagged schedule's bar within the axis: red, its value shown, so an out-of-memory
    // schedule never reads as one that fits.
    auto* red = new QBarSet(QObject::tr("out of memory"));
    red->setColor(QColor(kOutOfMemory));
    red->setLabelColor(kBarLabel);
    bool clipped = false, flagged = false;
    for (int i = n - 1; i >= 0; --i) {  // the first schedule on top
      const auto k = static_cast<std::size_t>(i);
      const double v = values[k];
      const bool clip = spec.clip > 0 && v > spec.clip;
      const bool flag = !clip && k < spec.flagged.size() && spec.flagged[k];
      clipped = clipped || clip;
      flagged = flagged || flag;
      *set << (clip || flag ? 0.0 : v);
      *over << (clip ? spec.clip : 0.0);
      *red << (flag ? v : 0.0);
      top = std::max(top, clip ? spec.clip : v);
    }
    series->append(set);
    if (flagged)
      series->append(red);
    else
      delete red;
    if (clipped) {
      series->append(over);
      overs.push_back(over);
    } else {
      delete over;
    }
  }
  auto* chart = new QChart;
  chart->addSeries(series);
  chart->setTitle(spec.title);
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->setMargins(QMargins(4, 4, 8, 4));  // the names need the width
  chart->setBackgroundRoundness(0);
  auto* y = new QBarCategoryAxis;
  // Long names on two lines, so they keep the bars room and are never cut (Qt Charts sizes the
  // axis short for a long one-line label; labels are rich text): "scenario<br>schedule" (A/B),
  // "name (vpp 2)<br>(252 GB)" (a clipped bar's value), else "name<br>(vpp 2)". Past 6 rows a
  // two-line label overlaps its neighbours, which Qt Charts then drops: one line each, without
  // "(vpp N)" (the Gantt titles and the table keep it), so that the line fits the axis.
  const bool many = n > 6;
  // A long scenario name elided in its middle ("llama8b-h…x8-pp4"): Qt Charts cuts a label
  // longer than the axis from its left, where the name begins.
  auto elide = [](QString part) {
    constexpr int kMax = 14;
    if (part.size() <= kMax) return part;
    return part.left(kMax / 2 - 1) + QStringLiteral("…") + part.right(kMax / 2 - 1);
  };
  QStringList reversed;
  for (auto it = spec.names.rbegin(); it != spec.names.rend(); ++it) {
    QString name = *it;
    const auto k = static_cast<std::size_t>(std::distance(it, spec.names.rend()) - 1);
    const bool zero =
        !spec.zero.isEmpty() && std::all_of(spec.sets.begin(), spec.sets.end(), [&](const auto& s) {
          return k < s.second.size() && s.second[k] == 0.0;
        });
    if (const qsizetype dot = name.indexOf(QStringLiteral(" · ")); dot > 0)
      name = elide(name.left(dot)) + name.mid(dot);
    name = name.toHtmlEscaped();
    if (many) {
      const qsizetype vpp = name.indexOf(QStringLiteral(" (vpp"));
      if (vpp > 0) name.remove(vpp, name.indexOf(QLatin1Char(')'), vpp) - vpp + 1);
      reversed << (zero ? name + spec.zero.toHtmlEscaped() : name);
      continue;
    }
    const qsizetype at = name.contains(QStringLiteral(" · ")) ? name.indexOf(QStringLiteral(" · "))
                         : name.endsWith(QStringLiteral(" GB)"))
                             ? name.lastIndexOf(QStringLiteral(" ("))
                             : name.indexOf(QStringLiteral(" (vpp"));
    if (name.size() > 12 && at > 0)
      name = name.left(at) + QStringLiteral("<br>") +
             name.mid(at + (name.mid(at, 3) == QStringLiteral(" · ") ? 3 : 1));
    reversed << (zero ? name + spec.zero.toHtmlEscaped() : name);
  }
  y->append(reversed);
  y->setTruncateLabels(false);  // a schedule's whole name, "(vpp 2)" and all
  QFont small = y->labelsFont();
  small.setPointSizeF(small.pointSizeF() * (many ? 0.75 : 0.85));
  y->setLabelsFont(small);
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(y);
  auto* x = new QValueAxis;
  // Room past the longest bar for its value label.
  x->setRange(0, top > 0 ? top * 1.05 : 1);
  // Round ticks (the device's line reads against them); a clipped bar runs to the axis' end.
  x->applyNiceNumbers();
  for (QBarSet* set : overs)
    for (int i = 0; i < set->count(); ++i)
      if (set->at(i) > 0) set->replace(i, x->max());
  x->setTitleText(spec.unit);
  x->setLabelFormat(QStringLiteral("%.3g"));
  chart->addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  if (spec.limit > 0) {
    auto* line = new QLineSeries;
    line->setName(spec.limit_name);
    line->append(spec.limit, -0.5);
    line->append(spec.limit, n - 0.5);
    QPen pen{QColor(kOutOfMemory)};
    pen.setStyle(Qt::DashLine);
    pen.setWidthF(1.5);
    line->setPen(pen);
    chart->addSeries(line);
    auto* ly = new QValueAxis;  // the category axis spans −0.5 … n − 0.5
    ly->setRange(-0.5, n - 0.5);
    ly->setVisible(false);
    chart->addAxis(ly, Qt::AlignLeft);
    line->attachAxis(x);
    line->attachAxis(ly);
  }
  // The title names what is not on the axes, the limit line (a legend would take the height the
  // bars' two-line names need).
  chart->legend()->setVisible(false);
  if (spec.limit > 0) chart->setTitle(QObject::tr("%1 · %2").arg(spec.title, spec.limit_name));
  auto* view = new QChartView(chart);
  view->setRenderHint(QPainter::Antialiasing);
  view->setMinimumSize(180, 160);  // three side by side in a 1,400-pixel window
  view->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Ignored);  // the Gantts come first
  return view;
}

// A table cell that sorts by its number, not its text.
class NumberItem : public QTableWidgetItem {
 public:
  NumberItem(double v, int decimals) : QTableWidgetItem(QString::number(v, 'f', decimals)) {
    setData(Qt::UserRole, v);
    setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  }
  bool operator<(const QTableWidgetItem& o) const override {
    return data(Qt::UserRole).toDouble() < o.data(Qt::UserRole).toDouble();
  }
};

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  auto* split = new QSplitter(Qt::Vertical, this);
  auto* top = new QWidget;
  stack_ = new QVBoxLayout(top);
  stack_->setContentsMargins(0, 0, 0, 0);
  // The Timeline's colour legend, for the stacked Gantts.
  legend_ = new QLabel(box_legend_html(false));
  legend_->setObjectName(QStringLiteral("compare-legend"));
  legend_->setWordWrap(true);
  legend_->setContentsMargins(6, 2, 6, 2);
  legend_->setVisible(false);
  stack_->addWidget(legend_);
  hint_ = new QLabel(tr("Pick schedules to compare in the side panel (Compare ▸ schedules)."));
  hint_->setAlignment(Qt::AlignCenter);
  stack_->addWidget(hint_);
  stack_->addStretch(1);
  auto* scroll = new QScrollArea;
  scroll->setWidget(top);
  scroll->setWidgetResizable(true);
  split->addWidget(scroll);
  // Below the Gantts: the measures as charts, or as a table to sort.
  details_ = new QTabWidget;
  // The charts keep their minimum width in a narrow window and scroll sideways instead.
  auto* charts = new QWidget;
  charts_ = new QHBoxLayout(charts);
  charts_->setContentsMargins(0, 0, 0, 0);
  auto* charts_scroll = new QScrollArea;
  charts_scroll->setWidget(charts);
  charts_scroll->setWidgetResizable(true);
  charts_scroll->setFrameShape(QFrame::NoFrame);
  charts_scroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  details_->addTab(charts_scroll, tr("Charts"));
  table_ = new QTableWidget;
  table_->setObjectName(QStringLiteral("compare-table"));
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->setVisible(false);
  details_->addTab(table_, tr("Table"));
  split->addWidget(details_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({600, 400});  // 3 : 2 from the start, not from the panes' size hints
  outer->addWidget(split);
}

void CompareView::sync_from(GanttView* source) {
  // A view fitting itself (a resize) is not a user's zoom: every view fits the same span on
  // its own, so handing the mapper over (which ends auto-fitting) would freeze the others at
  // whatever width the first one had.
  if (source->auto_fit()) return;
  for (GanttView* g : gantts_)
    if (g != source) g->set_mapper(source->mapper());
}

void CompareView::set_outcome(std::shared_ptr<const SimOutcome> o) {
  outcome_ = std::move(o);
  for (QWidget* w : rows_) w->deleteLater();
  rows_.clear();
  gantts_.clear();
  while (QLayoutItem* item = charts_->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  table_->setRowCount(0);
  const bool any = outcome_ && !outcome_->compared.empty();
  hint_->setVisible(!any);
  legend_->setVisible(any);
  if (!any) return;
  // One time axis: every Gantt shows [0, the longest step].
  TimeNs longest = 0;
  for (const auto& c : outcome_->compared)
    if (c.gantt) longest = std::max(longest, c.gantt->timeline->makespan);
  QStringList names;
  std::vector<double> step, bubble_step, bubble_ideal, peak;
  for (const auto& c : outcome_->compared) {
    auto* row = new QWidget;
    auto* v = new QVBoxLayout(row);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(0);
    if (!c.gantt) {
      auto* l = new QLabel(QStringLiteral("<b>%1</b>: %2")
                               .arg(QString::fromStdString(c.schedule),
                                    QString::fromStdString(c.error).toHtmlEscaped()));
      l->setWordWrap(true);
      v->addWidget(l);
    } else {
      const StepReport& r = c.report;
      const double phase = r.pipeline_time_s > 0 ? r.pipeline_time_s : 1.0;
      QString text = QStringLiteral(
                         "<b>%1</b> — step %2, bubble %3 % of a balanced pipeline, idle from "
                         "imbalance %4 %, "
                         "communication %5 %")
                         .arg(QString::fromStdString(c.schedule))
                         .arg(QString::fromStdString(format_time(r.step_time_s)))
                         .arg(100 * r.bubble_fraction_of_step, 0, 'f', 1)
                         .arg(100 * r.idle.imbalance_s / phase, 0, 'f', 1)
                         .arg(100 * r.idle.communication_s / phase, 0, 'f', 1);
      if (r.idle.launch_s > 0)
        text += QStringLiteral(", CPU launches %1 %").arg(100 * r.idle.launch_s / phase, 0, 'f', 1);
      // Another scenario (A/B) or another layout than the open one's: say which.
      const StepReport& open = outcome_->report;
      if (r.scenario != open.scenario || r.gpus != open.gpus || r.dp != open.dp ||
          r.tp != open.tp || r.pp != open.pp)
        text += QStringLiteral(" — %1 GPUs · dp %2 · tp %3 · pp %4 · %5 micro-batches")
                    .arg(r.gpus)
                    .arg(r.dp)
                    .arg(r.tp)
                    .arg(r.pp)
                    .arg(r.microbatches);
      if (c.out_of_memory)
        text += QStringLiteral(
                    " — <span style='color:#c62828'><b>out of memory</b>: peak %1 GB "
                    "per GPU, the device has %2 GB</span>")
                    .arg(c.peak_memory / 1e9, 0, 'f', 1)
                    .arg(c.device_memory / 1e9, 0, 'f', 1);
      else if (c.tight)
        text += QStringLiteral(
                    " — <span style='color:#b35900'><b>tight</b>: peak %1 GB per GPU, over the "
                    "%2 GB the caching allocator leaves usable of the device's %3 GB</span>")
                    .arg(c.peak_memory / 1e9, 0, 'f', 1)
                    .arg(c.usable_memory / 1e9, 0, 'f', 1)
                    .arg(c.device_memory / 1e9, 0, 'f', 1);
      auto* label = new QLabel(text);
      label->setObjectName(QStringLiteral("compare-title"));
      label->setWordWrap(true);  // a narrow window wraps it rather than widening the Gantts
      v->addWidget(label);
      auto* g = new GanttView;
      g->set_fill_height(false);  // sized to its lanes below
      g->set_show_streams(false);
      g->set_fit_span(longest);
      g->set_data(c.gantt);
      g->setFixedHeight(g->layout().total_height + g->style().axis_height + 8);
      connect(g, &GanttView::view_changed, this, [this, g] { sync_from(g); });
      gantts_.push_back(g);
      v->addWidget(g);
      names << QString::fromStdString(c.schedule);
      step.push_back(r.step_time_s);
      bubble_step.push_back(100 * r.bubble_fraction_of_step);
      bubble_ideal.push_back(100 * r.bubble_over_ideal);
      peak.push_back(c.peak_memory / 1e9);
    }
    stack_->insertWidget(stack_->count() - 1, row);  // above the closing stretch
    rows_.push_back(row);
  }
  double device = 0;
  for (const auto& c : outcome_->compared) device = std::max(device, c.device_memory);
  std::vector<bool> oom;
  for (const auto& c : outcome_->compared)
    if (c.gantt) oom.push_back(c.out_of_memory);
  // Steps under a second in ms (a 34.6 ms step read 0.0346 s), as the report prints them.
  const bool ms = !step.empty() && *std::max_element(step.begin(), step.end()) < 1;
  std::vector<double> shown = step;
  if (ms)
    for (double& v : shown) v *= 1e3;
  fill_table(names, shown, ms, bubble_step, bubble_ideal, peak, oom);
  charts_->addWidget(bar_chart(BarChartSpec(tr("step time"), ms ? tr("ms") : tr("s"), names,
                                            {{tr("step"), shown}})),
                     1);
  BarChartSpec bubble(tr("pipeline bubble"), tr("% of pipeline"), names,
                      {{tr("bubble"), bubble_step}});
  bubble.zero = tr(" (0 %)");  // no bar, no value: said in the name
  charts_->addWidget(bar_chart(bubble), 1);
  if (std::none_of(peak.begin(), peak.end(), [](double p) { return p > 0; })) return;
  // Memory: a schedule needing far more than the device stops at the axis' end, in red, so the
  // others stay legible; its real value goes beside its name (its clipped bar's would mislead).
  QStringList labelled;
  double fitting = device / 1e9;
  for (std::size_t i = 0; i < peak.size(); ++i) {
    if (!oom[i]) fitting = std::max(fitting, peak[i]);
  }
  const bool clip = *std::max_element(peak.begin(), peak.end()) > 1.5 * fitting;
  for (std::size_t i = 0; i < peak.size(); ++i)
    labelled << (clip && peak[i] > 1.3 * fitting
                     ? tr("%1 (%2 GB)").arg(names[static_cast<int>(i)]).arg(peak[i], 0, 'f', 0)
                 : peak[i] <= 0 ? tr("%1 (no model)").arg(names[static_cast<int>(i)])  // costs only
                                : names[static_cast<int>(i)]);
  BarChartSpec memory(tr("peak memory"), tr("GB per GPU"), labelled, {{tr("peak"), peak}});
  memory.flagged = oom;
  if (clip) memory.clip = 1.3 * fitting;
  if (device > 0) {
    memory.limit = device / 1e9;
    memory.limit_name = tr("device %1 GB").arg(device / 1e9, 0, 'f', 1);
  }
  charts_->addWidget(bar_chart(memory), 1);
}

void CompareView::fill_table(const QStringList& names, const std::vector<double>& step, bool ms,
                             const std::vector<double>& bubble_step,
                             const std::vector<double>& bubble_ideal,
                             const std::vector<double>& peak, const std::vector<bool>& oom) {
  table_->setSortingEnabled(false);
  table_->clear();
  table_->setColumnCount(6);
  table_->setHorizontalHeaderLabels(
      {tr("schedule"), ms ? tr("step time (ms)") : tr("step time (s)"),
       tr("bubble, % of balanced pipeline"), tr("bubble over ideal, %"),
       tr("peak memory / GPU (GB)"), tr("fits")});
  table_->setRowCount(static_cast<int>(names.size()));
  for (int i = 0; i < names.size(); ++i) {
    const auto k = static_cast<std::size_t>(i);
    table_->setItem(i, 0, new QTableWidgetItem(names[i]));
    table_->setItem(i, 1, new NumberItem(step[k], ms ? 2 : 4));
    table_->setItem(i, 2, new NumberItem(bubble_step[k], 1));
    table_->setItem(i, 3, new NumberItem(bubble_ideal[k], 1));
    table_->setItem(i, 4, new NumberItem(peak[k], 1));
    auto* fits = new QTableWidgetItem(oom[k] ? tr("out of memory") : tr("yes"));
    if (oom[k]) fits->setForeground(QColor(kOutOfMemory));
    table_->setItem(i, 5, fits);
  }
  table_->resizeColumnsToContents();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setSortingEnabled(true);
}

}  // namespace trainsim::gui
