#include "timeline_model.h"

#include <map>

#include "lower/task_types.h"
#include "time_mapper.h"

namespace trainsim::gui {

TimelineModel::TimelineModel(QObject* parent) : QAbstractItemModel(parent) {}

void TimelineModel::set_timeline(std::shared_ptr<const Timeline> tl) {
  beginResetModel();
  tl_ = std::move(tl);
  nodes_.clear();
  roots_.clear();
  if (tl_) {
    const TaskGraph& g = *tl_->graph;
    const auto& ranks = tl_->ranks.ranks;
    std::map<int, int> stage_node;
    std::vector<int> rank_node(ranks.size(), -1);
    const auto add = [&](int parent, QString name) {
      Node n;
      n.parent = parent;
      n.name = std::move(name);
      auto& siblings = parent < 0 ? roots_ : nodes_[static_cast<std::size_t>(parent)].children;
      n.row = static_cast<int>(siblings.size());
      nodes_.push_back(std::move(n));
      const int id = static_cast<int>(nodes_.size()) - 1;
      (parent < 0 ? roots_ : nodes_[static_cast<std::size_t>(parent)].children).push_back(id);
      return id;
    };
    for (int pp = 0; pp < tl_->scenario.layout.pp; ++pp)
      stage_node[pp] = add(-1, tr("pipeline rank %1").arg(pp));
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      const SimRank& rk = ranks[r];
      QString name = tr("rank %1 (tp %2, dp %3)").arg(rk.global).arg(rk.coord.tp).arg(rk.coord.dp);
      if (rk.multiplicity > 1) name += tr(" ×%1").arg(rk.multiplicity);
      rank_node[r] = add(stage_node[rk.coord.pp], name);
    }
    for (StreamId s = 0; s < g.streams.size(); ++s) {
      const auto tasks = g.stream(s);
      if (tasks.empty()) continue;
      const int rn = rank_node[g.streams[s].owner];
      const int sn =
          add(rn, QString::fromUtf8(stream_type_name(static_cast<StreamType>(g.streams[s].type))));
      Node& n = nodes_[static_cast<std::size_t>(sn)];
      n.tasks = tasks.size();
      for (TaskId t : tasks) n.busy += tl_->end[t] - tl_->start[t];
      // A rank's figures are its compute stream's; a stage's, its busiest rank's.
      if (static_cast<StreamType>(g.streams[s].type) == StreamType::Compute) {
        Node& rnode = nodes_[static_cast<std::size_t>(rn)];
        rnode.tasks = n.tasks;
        rnode.busy = n.busy;
        Node& st = nodes_[static_cast<std::size_t>(rnode.parent)];
        st.tasks = std::max(st.tasks, n.tasks);
        st.busy = std::max(st.busy, n.busy);
      }
    }
  }
  endResetModel();
}

QModelIndex TimelineModel::index(int row, int column, const QModelIndex& parent) const {
  if (column < 0 || column >= ColumnCount || row < 0) return {};
  const auto& list =
      parent.isValid() ? nodes_[static_cast<std::size_t>(parent.internalId())].children : roots_;
  if (row >= static_cast<int>(list.size())) return {};
  return createIndex(row, column, static_cast<quintptr>(list[static_cast<std::size_t>(row)]));
}

QModelIndex TimelineModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) return {};
  const int p = nodes_[static_cast<std::size_t>(child.internalId())].parent;
  if (p < 0) return {};
  return createIndex(nodes_[static_cast<std::size_t>(p)].row, 0, static_cast<quintptr>(p));
}

int TimelineModel::rowCount(const QModelIndex& parent) const {
  if (parent.column() > 0) return 0;
  return static_cast<int>(
      (parent.isValid() ? nodes_[static_cast<std::size_t>(parent.internalId())].children : roots_)
          .size());
}

int TimelineModel::columnCount(const QModelIndex&) const {
  return ColumnCount;
}

QVariant TimelineModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || role != Qt::DisplayRole) return {};
  const Node& n = nodes_[static_cast<std::size_t>(index.internalId())];
  switch (index.column()) {
    case Name:
      return n.name;
    case Tasks:
      return static_cast<qulonglong>(n.tasks);
    case Busy:
      return QString::fromStdString(format_duration(static_cast<double>(n.busy)));
    case Utilisation:
      return tl_->makespan > 0
                 ? QStringLiteral("%1 %").arg(100.0 * n.busy / tl_->makespan, 0, 'f', 1)
                 : QString();
    default:
      return {};
  }
}

QVariant TimelineModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Name:
      return tr("rank / stream");
    case Tasks:
      return tr("tasks");
    case Busy:
      return tr("busy");
    case Utilisation:
      return tr("of step");
    default:
      return {};
  }
}

}  // namespace trainsim::gui
