#pragma once
// The Timeline as a Qt item model for the "Ranks" panel: pipeline stages → simulated ranks →
// their streams, with task count, busy time and utilisation over the step. Read-only; built
// from a Timeline and never recomputing it.
#include <memory>  // std::shared_ptr
#include <vector>  // std::vector

#include <QAbstractItemModel>

#include "run/timeline.h"

namespace trainsim::gui {

class TimelineModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  enum Column { Name, Tasks, Busy, Utilisation, ColumnCount };
  explicit TimelineModel(QObject* parent = nullptr);
  void set_timeline(std::shared_ptr<const Timeline> tl);

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  struct Node {
    int parent = -1;  ///< index into nodes_, -1 for a stage
    int row = 0;      ///< row under its parent
    std::vector<int> children;
    QString name;
    std::size_t tasks = 0;
    TimeNs busy = 0;
  };
  std::shared_ptr<const Timeline> tl_;
  std::vector<Node> nodes_;
  std::vector<int> roots_;
};

}  // namespace trainsim::gui
