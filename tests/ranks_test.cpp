#include "lower/ranks.h"

#include <array>
#include <vector>

#include <catch2/catch.hpp>

using namespace trainsim;

namespace {
Scenario layout(int gpus_per_node, int dp, int tp, int pp, int cp, int ep,
                std::array<Axis, 3> order, int etp = 0) {
  Scenario s;
  s.has_cluster = true;
  s.cluster.gpus_per_node = gpus_per_node;
  s.layout.dp = dp;
  s.layout.tp = tp;
  s.layout.pp = pp;
  s.layout.cp = cp;
  s.layout.ep = ep;
  s.layout.etp = etp;
  s.layout.order = order;
  return s;
}

// The definition, member by member: every rank's own TP, DP, expert, expert-data and context
// groups and its pipeline pairs use the links (and GPUs per node) of its stage's tp = dp = 0
// rank's. fold_is_exact visits each group once; this visits it from every member.
bool every_member_agrees(const Scenario& s) {
  const Layout& l = s.layout;
  for (int pp = 0; pp < l.pp; ++pp) {
    const Coord rep{0, 0, pp};
    for (int d = 0; d < l.dp_ranks(); ++d)
      for (int t = 0; t < l.tp; ++t) {
        const Coord c{d, t, pp};
        for (Axis a : {Axis::TP, Axis::DP})
          if (group_link(group_members(l, c, a), s) != group_link(group_members(l, rep, a), s))
            return false;
        const auto same = [&](const std::vector<int>& mine, const std::vector<int>& theirs) {
          return group_link(mine, s) == group_link(theirs, s) &&
                 members_per_node(mine, s) == members_per_node(theirs, s);
        };
        if (!same(expert_group_members(l, c), expert_group_members(l, rep))) return false;
        if (group_link(expert_dp_members(l, c), s) != group_link(expert_dp_members(l, rep), s))
          return false;
        if (!same(context_group_members(l, c), context_group_members(l, rep))) return false;
        for (int q = 0; q < l.pp; ++q)
          if (group_link({l.rank_of(c), l.rank_of({d, t, q})}, s) !=
              group_link({l.rank_of(rep), l.rank_of({0, 0, q})}, s))
            return false;
      }
  }
  return true;
}
}  // namespace

TEST_CASE("ranks: a group's members along each axis", "[ranks]") {
  // dp 2 · tp 4 · pp 2, tp fastest, then dp, then pp: rank = tp + 4·dp + 8·pp.
  const Scenario s = layout(8, 2, 4, 2, 1, 1, {Axis::TP, Axis::DP, Axis::PP});
  const Coord c{1, 2, 1};  // rank 2 + 4 + 8 = 14
  CHECK(s.layout.rank_of(c) == 14);
  CHECK(group_members(s.layout, c, Axis::TP) == std::vector<int>{12, 13, 14, 15});
  CHECK(group_members(s.layout, c, Axis::DP) == std::vector<int>{10, 14});
  CHECK(group_members(s.layout, c, Axis::PP) == std::vector<int>{6, 14});
  // Nodes of 8: the TP group inside node 1, the DP pair too, the PP pair across nodes 0 and 1.
  CHECK(group_link(group_members(s.layout, c, Axis::TP), s) == LinkClass::IntraNode);
  CHECK(group_link(group_members(s.layout, c, Axis::PP), s) == LinkClass::InterNode);
  CHECK(members_per_node({6, 14, 15}, s) == 1);
}

TEST_CASE("ranks: folding is exact exactly when every member's groups agree with its stage's",
          "[ranks][fold]") {
  // Every layout of up to 48 GPUs from these degrees, on nodes of 2, 3, 4, 6 or 8 GPUs, in three
  // rank orders: the group-by-group check against the member-by-member definition. Nodes of 3
  // and 6 cut TP, context and expert groups unevenly, so both answers occur.
  const std::array<std::array<Axis, 3>, 3> orders{{{Axis::TP, Axis::DP, Axis::PP},
                                                   {Axis::DP, Axis::TP, Axis::PP},
                                                   {Axis::TP, Axis::PP, Axis::DP}}};
  int exact = 0, inexact = 0;
  for (int g : {2, 3, 4, 6, 8})
    for (int dp : {1, 2, 3, 4})
      for (int tp : {1, 2, 4})
        for (int pp : {1, 2, 3})
          for (int cp : {1, 2})
            for (int ep : {1, 2, 4})
              for (int etp : {0, 1})  // experts split over TP, or whole (groups spanning TP)
                for (const auto& order : orders) {
                  const Scenario s = layout(g, dp, tp, pp, cp, ep, order, etp);
                  if (s.layout.expert_ranks() % ep != 0 || dp * cp * tp * pp > 48) continue;
                  const bool expected = every_member_agrees(s);
                  INFO("gpus/node " << g << " dp " << dp << " tp " << tp << " pp " << pp << " cp "
                                    << cp << " ep " << ep << " etp " << etp);
                  CHECK(fold_is_exact(s) == expected);
                  (expected ? exact : inexact) += 1;
                }
  CHECK(exact > 0);
  CHECK(inexact > 0);
}

TEST_CASE("ranks: with experts whole on each TP rank (etp 1) EP groups span TP, TP fastest",
          "[ranks][ep]") {
  // dp 4 · tp 2 · pp 1, tp fastest: rank = tp + 2·dp. ep 4 over the stage's tp · dp = 8 ranks,
  // slot = 2·dp + tp = the rank (Megatron-core's expert order etp-ep-edp: ep fastest at etp 1).
  const Scenario whole = layout(8, 4, 2, 1, 1, 4, {Axis::TP, Axis::DP, Axis::PP}, 1);
  const Layout& l = whole.layout;
  CHECK(l.experts_span_tp());
  CHECK(l.expert_ranks() == 8);
  CHECK(l.expert_dp_ranks() == 2);
  // Rank 2 (dp 1, tp 0), slot 2: block 0 holds slots 0-3 = ranks 0-3; its expert-data peers
  // have slot 2 mod 4: slots 2 and 6.
  CHECK(expert_group_members(l, {1, 0, 0}) == std::vector<int>{0, 1, 2, 3});
  CHECK(expert_dp_members(l, {1, 0, 0}) == std::vector<int>{2, 6});
  // Rank 7 (dp 3, tp 1): block 1, slots 4-7; peers slots 3 and 7.
  CHECK(expert_group_members(l, {3, 1, 0}) == std::vector<int>{4, 5, 6, 7});
  CHECK(expert_dp_members(l, {3, 1, 0}) == std::vector<int>{3, 7});
  // Split over TP (etp = tp, the default) the same ep 4 takes the 4 DP ranks of one TP
  // coordinate: ranks 0, 2, 4, 6, and no expert-data peer (dp / ep = 1).
  const Scenario split = layout(8, 4, 2, 1, 1, 4, {Axis::TP, Axis::DP, Axis::PP});
  CHECK_FALSE(split.layout.experts_span_tp());
  CHECK(expert_group_members(split.layout, {1, 0, 0}) == std::vector<int>{0, 2, 4, 6});
  CHECK(expert_dp_members(split.layout, {1, 0, 0}) == std::vector<int>{2});
  // At tp 1 etp 1 changes nothing.
  const Scenario one = layout(8, 4, 1, 1, 1, 2, {Axis::TP, Axis::DP, Axis::PP}, 1);
  CHECK_FALSE(one.layout.experts_span_tp());
  CHECK(expert_group_members(one.layout, {3, 0, 0}) == std::vector<int>{2, 3});
}
