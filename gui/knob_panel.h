#pragma once
// The side panel's main knobs (schedule, pp, vpp, m, dp, tp, SP, ep, etp, cp, ZeRO, recompute,
// precision, micro-batch size, …; a costs-only scenario shows only the first four, a dense model
// all but ep and etp) and the schedules to compare. It turns edits
// into `--set` overrides for the sim library, which validates them; a rejected value's message
// appears under its field.
#include <map>     // std::map
#include <string>  // std::string
#include <vector>  // std::vector

#include <QWidget>

#include "scenario/scenario.h"

class QComboBox;
class QSpinBox;
class QLabel;
class QListWidget;

namespace trainsim::gui {

class KnobPanel : public QWidget {
  Q_OBJECT
 public:
  explicit KnobPanel(QWidget* parent = nullptr);
  /// Shows the values of a freshly loaded scenario; clears every override and error.
  void set_scenario(const Scenario& sc);
  /// Shows the values the last run used (m follows dp and b when the global batch is fixed)
  /// without changing the overrides.
  void show_values(const Scenario& sc);
  /// The knobs the user changed, as "dotted.key=value", then the layout keys without a knob
  /// that apply_layout set.
  std::vector<std::string> overrides() const;
  /// Sets a whole layout ("dotted.key=value" each, as LayoutCandidate::overrides): knobs show
  /// their values, other keys (sequence parallelism, recompute layers, …) are kept as overrides
  /// until the next scenario is loaded. Emits nothing; the caller simulates.
  void apply_layout(const std::vector<std::string>& sets);
  /// Schedules checked for comparison.
  std::vector<std::string> compare_schedules() const;
  void set_compare_schedules(const std::vector<std::string>& names);
  /// Shows `message` under the field for `key`; a key that covers several knobs
  /// ("parallelism": dp × tp × pp must equal the GPUs) goes under the knob edited last when it
  /// is one of them, anything else at the bottom. An empty message clears all.
  void show_error(const QString& key, const QString& message);
  /// The scenario key each knob sets, for tests and error routing.
  static std::vector<std::string> keys();
  /// True for the knobs hidden while a costs-only scenario (no model) is loaded: dp, tp, SP, ep,
  /// etp, ZeRO, recompute and micro-batch size change nothing there. (ep and etp are shown for
  /// a mixture of experts only.)
  static bool needs_model(const std::string& key);
  QWidget* field(const std::string& key) const;
  QLabel* error_label(const std::string& key) const;

 signals:
  void edited();          ///< a knob changed: simulate again
  void compare_edited();  ///< the set of compared schedules changed

 private:
  void add_row(const std::string& key, const QString& label, QWidget* field);
  void knob_edited(const std::string& key);
  /// A spin box over the key's integer range in the schema, up to `most`.
  void add_spin(const std::string& key, const QString& label, int most);
  /// A combo box of the key's choices (or small integer range) in the schema.
  void add_choice(const std::string& key, const QString& label);
  void add_combo(const std::string& key, const QString& label, const QStringList& items);
  void set_value(const std::string& key, const QString& v);
  QString value(const std::string& key) const;

  struct Knob {
    QWidget* field = nullptr;
    QLabel* error = nullptr;
    QString original;  ///< the scenario's own value
  };
  std::map<std::string, Knob> knobs_;
  std::map<std::string, std::string> extra_;  ///< apply_layout's keys that have no knob
  QLabel* general_error_ = nullptr;
  QListWidget* compare_ = nullptr;
  bool loading_ = false;
  bool microbatches_touched_ = false;
  bool etp_given_as_tp_ = false;  ///< the scenario gives parallelism.etp as its tp degree
  std::string last_edited_;
};

}  // namespace trainsim::gui
