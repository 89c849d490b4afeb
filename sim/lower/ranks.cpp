#include "lower/ranks.h"

#include <algorithm>  // std::max, std::min

namespace trainsim {

std::vector<int> group_members(const Layout& l, const Coord& c, Axis axis) {
  std::vector<int> out;
  const int n = l.size(axis);
  for (int i = 0; i < n; ++i) {
    Coord m = c;
    (axis == Axis::TP ? m.tp : axis == Axis::DP ? m.dp : m.pp) = i;
    out.push_back(l.rank_of(m));
  }
  return out;
}

std::vector<int> expert_group_members(const Layout& l, const Coord& c) {
  std::vector<int> out;
  const int first = l.expert_slot(c) / l.ep * l.ep;
  for (int i = 0; i < l.ep; ++i) out.push_back(l.rank_of(l.expert_coord(first + i, c.tp, c.pp)));
  return out;
}

std::vector<int> expert_dp_members(const Layout& l, const Coord& c) {
  std::vector<int> out;
  for (int x = l.expert_slot(c) % l.ep; x < l.expert_ranks(); x += l.ep)
    out.push_back(l.rank_of(l.expert_coord(x, c.tp, c.pp)));
  return out;
}

std::vector<int> context_group_members(const Layout& l, const Coord& c) {
  std::vector<int> out;
  const int first = c.dp / l.cp * l.cp;
  for (int i = 0; i < l.cp; ++i) out.push_back(l.rank_of({first + i, c.tp, c.pp}));
  return out;
}

LinkClass group_link(const std::vector<int>& global_ranks, const Scenario& s) {
  if (!s.has_cluster || global_ranks.empty()) return LinkClass::IntraNode;
  const int node = global_ranks.front() / s.cluster.gpus_per_node;
  for (int r : global_ranks)
    if (r / s.cluster.gpus_per_node != node) return LinkClass::InterNode;
  return LinkClass::IntraNode;
}

int members_per_node(const std::vector<int>& global_ranks, const Scenario& s) {
  if (!s.has_cluster || global_ranks.empty()) return 1;
  const int node = global_ranks.front() / s.cluster.gpus_per_node;
  int k = 0;
  for (int r : global_ranks) k += r / s.cluster.gpus_per_node == node;
  return k;
}

bool fold_is_exact(const Scenario& s) {
  // Each group is checked once, from one of its members (its peers would find the same link):
  // the work is the world's size times pp, not times a group's size (a 131,072-GPU run's DP
  // groups of 32,768 had made this quadratic).
  const Layout& l = s.layout;
  const int ranks = l.dp_ranks(), ep = std::max(1, l.ep), cp = std::max(1, l.cp);
  for (int pp = 0; pp < l.pp; ++pp) {
    const Coord rep{0, 0, pp};
    const LinkClass tp = group_link(group_members(l, rep, Axis::TP), s);
    const LinkClass dp = group_link(group_members(l, rep, Axis::DP), s);
    const std::vector<int> rep_ep = expert_group_members(l, rep);
    const LinkClass ep_link = group_link(rep_ep, s);
    const int ep_per_node = members_per_node(rep_ep, s);
    const LinkClass edp = group_link(expert_dp_members(l, rep), s);
    const std::vector<int> rep_cp = context_group_members(l, rep);
    const LinkClass cp_link = group_link(rep_cp, s);
    const int cp_per_node = members_per_node(rep_cp, s);
    // TP groups: one per DP coordinate.
    for (int d = 0; d < ranks; ++d)
      if (group_link(group_members(l, {d, 0, pp}, Axis::TP), s) != tp) return false;
    for (int t = 0; t < l.tp; ++t) {
      // The DP group of this TP coordinate, its expert groups (blocks of ep), its expert-data
      // groups (one per position in a block) and its context groups (blocks of cp).
      if (group_link(group_members(l, {0, t, pp}, Axis::DP), s) != dp) return false;
      // Expert groups spanning TP are checked once, from the first TP coordinate.
      if (!l.experts_span_tp() || t == 0) {
        const int slots = l.expert_ranks();
        for (int x = 0; x < slots; x += ep) {
          const std::vector<int> m = expert_group_members(l, l.expert_coord(x, t, pp));
          if (group_link(m, s) != ep_link || members_per_node(m, s) != ep_per_node) return false;
        }
        for (int x = 0; x < std::min(ep, slots); ++x)
          if (group_link(expert_dp_members(l, l.expert_coord(x, t, pp)), s) != edp) return false;
      }
      for (int d = 0; d < ranks; d += cp) {
        const std::vector<int> m = context_group_members(l, {d, t, pp});
        if (group_link(m, s) != cp_link || members_per_node(m, s) != cp_per_node) return false;
      }
      // Every pipeline neighbour pair of this stage uses the representative's link.
      for (int d = 0; d < ranks; ++d) {
        const Coord c{d, t, pp};
        for (int q = 0; q < l.pp; ++q) {
          const Coord other{d, t, q}, rep_other{0, 0, q};
          if (group_link({l.rank_of(c), l.rank_of(other)}, s) !=
              group_link({l.rank_of(rep), l.rank_of(rep_other)}, s))
            return false;
        }
      }
    }
  }
  return true;
}

RankSet make_rank_set(const Scenario& s, bool fold) {
  const Layout& l = s.layout;
  RankSet rs;
  rs.tp_size = l.tp;
  // Stragglers make peers differ: every rank is simulated (folding would hide them).
  rs.folded = fold && s.slowdowns.empty() && (l.tp * l.dp_ranks() == 1 || fold_is_exact(s));
  rs.index_of_global.assign(static_cast<std::size_t>(l.world()), -1);
  for (int g = 0; g < l.world(); ++g) {
    const Coord c = l.coord_of(g);
    if (rs.folded && (c.tp != 0 || c.dp != 0)) continue;
    rs.index_of_global[static_cast<std::size_t>(g)] = static_cast<int>(rs.ranks.size());
    rs.ranks.push_back({g, c, rs.folded ? l.tp * l.dp_ranks() : 1});
  }
  rs.replicas = rs.folded ? 1 : l.tp * l.dp_ranks();
  return rs;
}

}  // namespace trainsim
