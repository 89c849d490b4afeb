#include "knob_panel.h"

#include <algorithm>
#include <cassert>

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QListWidget>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

#include "scenario/scenario_schema.h"
#include "schedules/registry.h"

namespace trainsim::gui {
namespace {

const char* kSchedule = "schedule.name";
const char* kMicrobatches = "training.microbatches";
const char* kMicroBatchSize = "training.micro_batch_size";
const char* kDp = "parallelism.dp";
const char* kEp = "parallelism.ep";
const char* kEtp = "parallelism.etp";
const char* kTp = "parallelism.tp";
// The expert TP knob's two widths: the scenario key takes 1 or the tp degree itself (unset:
// follows tp), so the knob names them and overrides() writes `1` or removes the key.
const char* kEtpFollowsTp = "tp";
const char* kEtpWhole = "1";

}  // namespace

std::vector<std::string> KnobPanel::keys() {
  return {kSchedule,
          "parallelism.pp",
          "parallelism.vpp",
          kMicrobatches,
          kDp,
          kTp,
          "parallelism.sequence_parallel",
          kEp,
          kEtp,
          "parallelism.cp",
          "parallelism.cp_comm",
          "parallelism.tp_overlap",
          "parallelism.zero",
          "parallelism.overlap_grad_reduce",
          "training.recompute",
          "training.precision",
          "training.offload",
          "training.offload_activations",
          "training.lora_rank",
          kMicroBatchSize};
}

KnobPanel::KnobPanel(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  auto* box = new QGroupBox(tr("Layout and schedule"));
  new QFormLayout(box);
  outer->addWidget(box);
  QStringList names;
  for (const auto& n : schedule_names()) names << QString::fromStdString(n);
  add_combo(kSchedule, tr("schedule"), names);
  // Ranges and choices are the scenario schema's (a spin box stops at a size a window can
  // still draw: the schema's limits are far beyond any real run).
  add_spin("parallelism.pp", tr("pp (pipeline ranks)"), 4096);
  add_spin("parallelism.vpp", tr("vpp (chunks per rank)"), 64);
  add_spin(kMicrobatches, tr("m (micro-batches)"), 1 << 20);
  add_spin(kDp, tr("dp (replicas)"), 1 << 20);
  add_spin(kTp, tr("tp"), 512);
  add_choice("parallelism.sequence_parallel", tr("sequence parallel (SP)"));
  add_spin(kEp, tr("ep (experts split over)"), 4096);
  add_combo(kEtp, tr("etp (each expert split over)"),
            {QString::fromLatin1(kEtpFollowsTp), QString::fromLatin1(kEtpWhole)});
  add_spin("parallelism.cp", tr("cp (sequence split over)"), 4096);
  add_choice("parallelism.cp_comm", tr("cp exchange"));
  add_choice("parallelism.tp_overlap", tr("TP overlap (comm-GEMM)"));
  add_choice("parallelism.zero", tr("ZeRO stage"));
  add_choice("parallelism.overlap_grad_reduce", tr("ZeRO-1 reduce in the backward"));
  add_choice("training.recompute", tr("recompute"));
  add_choice("training.precision", tr("precision (fp8: Hopper, Blackwell)"));
  add_choice("training.offload", tr("optimizer offload (ZeRO ≥ 1)"));
  add_spin("training.offload_activations", tr("activation offload (layers)"), 4096);
  add_spin("training.lora_rank", tr("LoRA rank (0: off)"), 4096);
  add_spin(kMicroBatchSize, tr("micro-batch size b"), 4096);
  general_error_ = new QLabel;
  general_error_->setWordWrap(true);
  general_error_->setStyleSheet(QStringLiteral("color: #c62828"));
  general_error_->hide();
  outer->addWidget(general_error_);
  auto* cmp = new QGroupBox(tr("Compare schedules"));
  auto* cl = new QVBoxLayout(cmp);
  compare_ = new QListWidget;
  for (const QString& n : names) {
    auto* item = new QListWidgetItem(n, compare_);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Unchecked);
  }
  connect(compare_, &QListWidget::itemChanged, this, [this] {
    if (!loading_) emit compare_edited();
  });
  cl->addWidget(compare_);
  outer->addWidget(cmp, 1);
}

namespace {

// A knob's tooltip from the scenario's key table: the key, its type and default, and what it
// means (the README's words; `code` spans become <code>).
QString key_tooltip(const std::string& key) {
  const SchemaKey* k = find_key(key);
  if (!k) return QString::fromStdString(key);
  QString doc =
      QString::fromUtf8(k->doc.data(), static_cast<qsizetype>(k->doc.size())).toHtmlEscaped();
  doc.replace(QRegularExpression(QStringLiteral("`([^`]+)`")), QStringLiteral("<code>\\1</code>"));
  return QStringLiteral("<b>%1</b> — %2, default %3<br>%4")
      .arg(
          QString::fromStdString(key),
          QString::fromUtf8(k->type.data(), static_cast<qsizetype>(k->type.size())).toHtmlEscaped(),
          QString::fromUtf8(k->default_value.data(),
                            static_cast<qsizetype>(k->default_value.size()))
              .toHtmlEscaped(),
          doc);
}

}  // namespace

void KnobPanel::add_row(const std::string& key, const QString& label, QWidget* field) {
  field->setObjectName(QString::fromStdString(key));
  field->setToolTip(key_tooltip(key));
  auto* err = new QLabel;
  err->setWordWrap(true);
  err->setStyleSheet(QStringLiteral("color: #c62828; font-size: small"));
  err->hide();
  auto* form = static_cast<QFormLayout*>(findChild<QGroupBox*>()->layout());
  form->addRow(label, field);
  form->addRow(err);
  knobs_[key] = {field, err, {}};
}

void KnobPanel::knob_edited(const std::string& key) {
  if (loading_) return;
  if (key == kMicrobatches) microbatches_touched_ = true;
  last_edited_ = key;
  emit edited();
}

void KnobPanel::add_spin(const std::string& key, const QString& label, int most) {
  const ValueRule& rule = find_key(key)->rule;
  assert(rule.kind == ValueRule::Kind::Integer);
  auto* spin = new QSpinBox;
  spin->setRange(static_cast<int>(rule.min), static_cast<int>(std::min<double>(rule.max, most)));
  spin->setKeyboardTracking(false);  // simulate on Enter or arrows, not on every digit
  connect(spin, &QSpinBox::valueChanged, this, [this, key] { knob_edited(key); });
  add_row(key, label, spin);
}

void KnobPanel::add_combo(const std::string& key, const QString& label, const QStringList& items) {
  auto* combo = new QComboBox;
  combo->addItems(items);
  connect(combo, &QComboBox::currentTextChanged, this, [this, key] { knob_edited(key); });
  add_row(key, label, combo);
}

void KnobPanel::add_choice(const std::string& key, const QString& label) {
  const ValueRule& rule = find_key(key)->rule;
  QStringList items;
  if (rule.kind == ValueRule::Kind::Choice)
    for (std::string_view c : rule.choices)
      items << QString::fromUtf8(c.data(), static_cast<qsizetype>(c.size()));
  else if (rule.kind == ValueRule::Kind::Bool)
    items << QStringLiteral("false") << QStringLiteral("true");
  else  // a small integer range ("0–3")
    for (auto i = static_cast<int>(rule.min); i <= static_cast<int>(rule.max); ++i)
      items << QString::number(i);
  add_combo(key, label, items);
}

void KnobPanel::set_value(const std::string& key, const QString& v) {
  QWidget* w = knobs_.at(key).field;
  if (auto* s = qobject_cast<QSpinBox*>(w))
    s->setValue(v.toInt());
  else if (auto* c = qobject_cast<QComboBox*>(w))
    c->setCurrentText(v);
}

QString KnobPanel::value(const std::string& key) const {
  QWidget* w = knobs_.at(key).field;
  if (auto* s = qobject_cast<QSpinBox*>(w)) return QString::number(s->value());
  return static_cast<QComboBox*>(w)->currentText();
}

namespace {
// Each knob's value in the scenario, as the schema shows it; m is the batch's micro-batches,
// etp `1` only where the scenario gives 1 (unset, or the tp degree itself, follows tp).
std::map<std::string, QString> values_of(const Scenario& sc) {
  std::map<std::string, QString> out{{kMicrobatches, QString::number(sc.microbatches())}};
  for (const std::string& key : KnobPanel::keys())
    if (const auto v = show_value(*find_key(key), sc)) out[key] = QString::fromStdString(*v);
  out[kEtp] = QString::fromLatin1(sc.layout.etp == 1 ? kEtpWhole : kEtpFollowsTp);
  return out;
}

// Knobs only a mixture of experts has.
bool experts_only(const std::string& key) {
  return key == kEp || key == kEtp;
}
}  // namespace

// Knobs that change nothing without a model: a costs-only study gives its durations per stage
// and has no GPUs to lay out, no parameters to shard and no activations to recompute.
bool KnobPanel::needs_model(const std::string& key) {
  return key == kDp || key == kTp || key == "parallelism.sequence_parallel" || experts_only(key) ||
         key == "parallelism.cp" || key == "parallelism.cp_comm" ||
         key == "parallelism.tp_overlap" || key == "parallelism.zero" ||
         key == "parallelism.overlap_grad_reduce" || key == "training.recompute" ||
         key == "training.precision" || key == "training.offload" ||
         key == "training.offload_activations" || key == "training.lora_rank" ||
         key == kMicroBatchSize;
}

void KnobPanel::set_scenario(const Scenario& sc) {
  loading_ = true;
  auto* form = static_cast<QFormLayout*>(findChild<QGroupBox*>()->layout());
  for (const auto& [key, knob] : knobs_)
    form->setRowVisible(knob.field,
                        sc.model ? !experts_only(key) || sc.model->is_moe() : !needs_model(key));
  for (const auto& [key, v] : values_of(sc)) {
    knobs_.at(key).original = v;
    set_value(key, v);
  }
  etp_given_as_tp_ = sc.layout.etp > 1;
  microbatches_touched_ = false;
  extra_.clear();
  loading_ = false;
  show_error({}, {});
}

void KnobPanel::apply_layout(const std::vector<std::string>& sets) {
  loading_ = true;
  for (const std::string& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = s.substr(0, eq), v = s.substr(eq + 1);
    if (key == kEtp)  // the key removed: the experts follow tp
      set_value(key, QString::fromLatin1(v == "1" ? kEtpWhole : kEtpFollowsTp));
    else if (knobs_.count(key))
      set_value(key, QString::fromStdString(v));
    else
      extra_[key] = v;
  }
  microbatches_touched_ = false;  // m follows dp and b: the layout keeps the global batch
  loading_ = false;
  show_error({}, {});
}

void KnobPanel::show_values(const Scenario& sc) {
  loading_ = true;
  if (!microbatches_touched_) set_value(kMicrobatches, QString::number(sc.microbatches()));
  loading_ = false;
}

std::vector<std::string> KnobPanel::overrides() const {
  std::vector<std::string> out;
  for (const std::string& key : keys()) {
    const QString v = value(key);
    if (key == kMicrobatches) {
      if (!microbatches_touched_) continue;
      // m is the knob; the global batch follows it (m · dp · b), as the scenario keys define.
      const int gbs = v.toInt() * value(kDp).toInt() * value(kMicroBatchSize).toInt();
      out.push_back(key + "=" + v.toStdString());
      out.push_back("training.global_batch_size=" + std::to_string(gbs));
      continue;
    }
    if (key == kEtp) {
      // `tp` removes the key (its default follows tp), also where the file gave the tp degree
      // itself and tp changed: the experts keep following it.
      const bool follows = v == QLatin1String(kEtpFollowsTp);
      const bool tp_changed = value(kTp) != knobs_.at(kTp).original;
      if (v != knobs_.at(key).original || (follows && etp_given_as_tp_ && tp_changed))
        out.push_back(key + (follows ? "=null" : std::string("=") + kEtpWhole));
      continue;
    }
    if (v != knobs_.at(key).original) {
      out.push_back(key + "=" + v.toStdString());
      // A scenario's selective modules mean nothing to the other modes: dropped with them, as
      // `trainsim search` drops them.
      if (key == "training.recompute" && v != QStringLiteral("selective"))
        out.push_back("training.recompute_modules=null");
      // Layers given per stage fit the scenario's stage count: another splits evenly, as a
      // search's layouts of another count do.
      if (key == "parallelism.pp" || key == "parallelism.vpp")
        out.push_back("parallelism.pipeline_split.layers=null");
    }
  }
  for (const auto& [key, v] : extra_) out.push_back(key + "=" + v);
  return out;
}

std::vector<std::string> KnobPanel::compare_schedules() const {
  std::vector<std::string> out;
  for (int i = 0; i < compare_->count(); ++i)
    if (compare_->item(i)->checkState() == Qt::Checked)
      out.push_back(compare_->item(i)->text().toStdString());
  return out;
}

void KnobPanel::set_compare_schedules(const std::vector<std::string>& names) {
  loading_ = true;
  for (int i = 0; i < compare_->count(); ++i) {
    const std::string n = compare_->item(i)->text().toStdString();
    compare_->item(i)->setCheckState(
        std::find(names.begin(), names.end(), n) != names.end() ? Qt::Checked : Qt::Unchecked);
  }
  loading_ = false;
}

void KnobPanel::show_error(const QString& key, const QString& message) {
  for (auto& [k, knob] : knobs_) knob.error->hide();
  general_error_->hide();
  if (message.isEmpty()) return;
  std::string k = key.toStdString();
  const auto covers = [&](const std::string& whole) {  // "parallelism" covers "parallelism.tp"
    return !whole.empty() && last_edited_.rfind(whole + ".", 0) == 0;
  };
  if (k == "training.global_batch_size")  // m · dp · b: under whichever of them changed
    k = last_edited_ == kDp || last_edited_ == kMicroBatchSize ? last_edited_ : kMicrobatches;
  else if (k == "schedule")
    k = last_edited_.empty() ? kSchedule : last_edited_;  // pp, vpp, m or the name itself
  else if (!knobs_.count(k) && covers(k))
    k = last_edited_;
  auto it = knobs_.find(k);
  QLabel* target = it != knobs_.end() ? it->second.error : general_error_;
  target->setText(message);
  target->show();
}

QWidget* KnobPanel::field(const std::string& key) const {
  return knobs_.at(key).field;
}
QLabel* KnobPanel::error_label(const std::string& key) const {
  return knobs_.at(key).error;
}

}  // namespace trainsim::gui
