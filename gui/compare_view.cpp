#include "compare_view.h"

#include <algorithm>

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>
#include <QValueAxis>

#include "gantt_view.h"

namespace trainsim::gui {
namespace {

// Bars with their values written above them; `limit` > 0 draws a dashed horizontal line at that
// value across the chart (the device's memory), named in the legend.
QChartView* bar_chart(const QString& title, const QStringList& categories,
                      const std::vector<std::pair<QString, std::vector<double>>>& sets,
                      const QString& unit, double limit = 0, const QString& limit_name = {}) {
  auto* series = new QBarSeries;
  series->setLabelsVisible(true);
  series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
  series->setLabelsFormat(QStringLiteral("@value"));
  series->setLabelsPrecision(3);
  series->setLabelsAngle(-90);  // upright above narrow bars, so neighbours' values never overlap
  double top = limit;
  for (const auto& [name, values] : sets) {
    auto* set = new QBarSet(name);
    set->setLabelColor(Qt::black);  // above the bar (LabelsOutsideEnd), on the chart's white
    for (double v : values) {
      *set << v;
      top = std::max(top, v);
    }
    series->append(set);
  }
  auto* chart = new QChart;
  chart->addSeries(series);
  chart->setTitle(title);
  chart->setAnimationOptions(QChart::NoAnimation);
  auto* x = new QBarCategoryAxis;
  x->append(categories);
  chart->addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  auto* y = new QValueAxis;
  y->setRange(0, top > 0 ? top * 1.35 : 1);  // room for the upright value labels
  y->applyNiceNumbers();
  y->setTitleText(unit);
  y->setLabelFormat(QStringLiteral("%.3g"));
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(y);
  if (limit > 0) {
    auto* line = new QLineSeries;
    line->setName(limit_name);
    line->append(-0.5, limit);
    line->append(static_cast<double>(categories.size()) - 0.5, limit);
    QPen pen(QColor(0xc6, 0x28, 0x28));
    pen.setStyle(Qt::DashLine);
    pen.setWidthF(1.5);
    line->setPen(pen);
    chart->addSeries(line);
    auto* lx = new QValueAxis;  // the category axis spans −0.5 … n − 0.5
    lx->setRange(-0.5, static_cast<double>(categories.size()) - 0.5);
    lx->setVisible(false);
    chart->addAxis(lx, Qt::AlignBottom);
    line->attachAxis(lx);
    line->attachAxis(y);
  }
  // The widest chart names the colours (the limit line's value is on the axis title).
  chart->legend()->setVisible(categories.size() > 1);
  if (auto* markers = chart->legend(); limit > 0)
    for (auto* m : markers->markers(nullptr))
      if (m->series() != series) m->setVisible(false);
  chart->legend()->setAlignment(Qt::AlignBottom);
  auto* view = new QChartView(chart);
  view->setRenderHint(QPainter::Antialiasing);
  view->setMinimumHeight(220);
  view->setMinimumWidth(220);
  return view;
}

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  auto* split = new QSplitter(Qt::Vertical, this);
  auto* top = new QWidget;
  stack_ = new QVBoxLayout(top);
  stack_->setContentsMargins(0, 0, 0, 0);
  hint_ = new QLabel(tr("Pick schedules to compare in the side panel (Compare ▸ schedules)."));
  hint_->setAlignment(Qt::AlignCenter);
  stack_->addWidget(hint_);
  stack_->addStretch(1);
  auto* scroll = new QScrollArea;
  scroll->setWidget(top);
  scroll->setWidgetResizable(true);
  split->addWidget(scroll);
  auto* bottom = new QWidget;
  charts_ = new QHBoxLayout(bottom);
  charts_->setContentsMargins(0, 0, 0, 0);
  split->addWidget(bottom);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  outer->addWidget(split);
}

void CompareView::sync_from(GanttView* source) {
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
  const bool any = outcome_ && !outcome_->compared.empty();
  hint_->setVisible(!any);
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
      QString text =
          QStringLiteral("<b>%1</b> — step %2 s, bubble %3 % of step, idle from communication %4 %")
              .arg(QString::fromStdString(c.schedule))
              .arg(r.step_time_s, 0, 'f', 4)
              .arg(100 * r.bubble_fraction_of_step, 0, 'f', 1)
              .arg(100 * r.idle.communication_s / phase, 0, 'f', 1);
      if (c.out_of_memory)
        text += QStringLiteral(
                    " — <span style='color:#c62828'><b>out of memory</b>: peak %1 GB "
                    "per GPU, the device has %2 GB</span>")
                    .arg(c.peak_memory / 1e9, 0, 'f', 1)
                    .arg(c.device_memory / 1e9, 0, 'f', 1);
      auto* label = new QLabel(text);
      label->setObjectName(QStringLiteral("compare-title"));
      v->addWidget(label);
      auto* g = new GanttView;
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
  // One bar set per schedule (the legend names them), one category per measure.
  const auto per_schedule = [&](const std::vector<std::vector<double>>& measures) {
    std::vector<std::pair<QString, std::vector<double>>> sets;
    for (int i = 0; i < names.size(); ++i) {
      std::vector<double> v;
      for (const auto& m : measures) v.push_back(m[static_cast<std::size_t>(i)]);
      sets.emplace_back(names[i], std::move(v));
    }
    return sets;
  };
  charts_->addWidget(bar_chart(tr("step time"), {tr("step")}, per_schedule({step}), tr("s")), 1);
  charts_->addWidget(
      bar_chart(tr("pipeline bubble"), {tr("of step (ZB paper)"), tr("over ideal (Megatron)")},
                per_schedule({bubble_step, bubble_ideal}), tr("%")),
      2);
  double device = 0;
  for (const auto& c : outcome_->compared) device = std::max(device, c.device_memory);
  // The device's size goes on the axis: the chart's title has no room for it.
  const QString memory_unit =
      device > 0 ? tr("GB (device %1)").arg(device / 1e9, 0, 'f', 1) : tr("GB");
  if (std::any_of(peak.begin(), peak.end(), [](double p) { return p > 0; }))
    charts_->addWidget(bar_chart(tr("peak memory per GPU"), {tr("peak")}, per_schedule({peak}),
                                 memory_unit, device / 1e9, tr("device")),
                       1);
}

}  // namespace trainsim::gui
