#pragma once
// Which ranks are simulated. Folded: one per pipeline stage (tp = 0, dp = 0),
// standing for its tp × dp identical peers — exact when every TP group, every DP group and
// every stage boundary uses the same link class, which fold_is_exact checks. Expanded: all.
#include <vector>  // std::vector

#include "scenario/layout.h"
#include "scenario/scenario.h"

namespace trainsim {

struct SimRank {
  int global = 0;  ///< global rank
  Coord coord;
  int multiplicity = 1;  ///< how many real ranks this simulated rank stands for
};

struct RankSet {
  std::vector<SimRank> ranks;
  std::vector<int> index_of_global;  ///< global rank -> index in `ranks`, or -1
  bool folded = false;
  int replicas = 1;  ///< simulated pipeline replicas ((tp, dp) pairs)

  /// Index of the simulated rank at `c`, or -1 when it is folded away.
  int find(const Coord& c, const Layout& l) const {
    return index_of_global[static_cast<std::size_t>(l.rank_of(c))];
  }
  /// 0 .. replicas-1: which (tp, dp) pipeline replica a simulated rank belongs to.
  int replica(const SimRank& r) const { return folded ? 0 : r.coord.dp * tp_size + r.coord.tp; }
  int tp_size = 1;
};

/// The link class a group of global ranks talks over: intra-node when all share a node.
LinkClass group_link(const std::vector<int>& global_ranks, const Scenario& s);
/// How many of `global_ranks` share the first one's node (1 without a cluster).
int members_per_node(const std::vector<int>& global_ranks, const Scenario& s);
/// True when folding TP peers and DP replicas changes no duration (see above).
bool fold_is_exact(const Scenario& s);
/// Folded when `fold` is asked and exact, expanded otherwise.
RankSet make_rank_set(const Scenario& s, bool fold);

/// Global ranks of the group along `axis` that contains `c`.
std::vector<int> group_members(const Layout& l, const Coord& c, Axis axis);
/// Global ranks of the expert-parallel group that contains `c`: the ep ranks of its block of
/// Layout::expert_ranks (slots ⌊slot / ep⌋·ep … +ep−1: DP indices of the same tp, or with
/// etp 1 the TP-fastest positions of the stage; same pp).
std::vector<int> expert_group_members(const Layout& l, const Coord& c);
/// Global ranks of the context-parallel group that contains `c`: the cp DP-axis positions of
/// its block (⌊c.dp / cp⌋·cp … +cp−1, same tp and pp).
std::vector<int> context_group_members(const Layout& l, const Coord& c);
/// Global ranks holding the same experts as `c` (its expert-data-parallel group: the
/// Layout::expert_dp_ranks positions with c's slot mod ep), over which expert gradients are
/// reduced.
std::vector<int> expert_dp_members(const Layout& l, const Coord& c);

}  // namespace trainsim
