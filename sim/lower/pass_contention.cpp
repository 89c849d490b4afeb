#include <fmt/format.h>

#include "cost/constants.h"
#include "lower/program.h"

namespace trainsim {

std::string add_contention_pass(Program& p) {
  std::string words;
  if (!p.cost.models_hardware()) return words;  // a costs-only study has no hardware to share
  const Scenario& sc = p.scenario;
  const Layout& l = sc.layout;
  const double slowdown =
      sc.contention.compute_slowdown.value_or(constants::kOverlapComputeSlowdown);
  const double comm_slowdown =
      sc.contention.comm_slowdown.value_or(constants::kOverlapCommSlowdown);
  const bool share = sc.contention.link_sharing;
  if (slowdown <= 0 && comm_slowdown <= 0 && !share) return words;
  auto say = [&](const std::string& what) { words += (words.empty() ? "" : " · ") + what; };
  if (slowdown > 0) say(fmt::format("compute +{:.1f}% beside communication", slowdown * 100));
  if (comm_slowdown > 0)
    say(fmt::format("communication +{:.1f}% beside compute", comm_slowdown * 100));
  if (share) say("links fair-shared");
  TaskGraphBuilder& b = p.builder;
  // Streams by owner, in creation order.
  std::vector<std::vector<StreamId>> owned(p.ranks.ranks.size());
  for (StreamId s = 0; s < b.stream_count(); ++s) owned[b.stream_info(s).owner].push_back(s);
  for (std::size_t r = 0; r < owned.size(); ++r) {
    const SimRank& rank = p.ranks.ranks[r];
    ResourceId sm = kNone;       // communication kernels slow the compute
    ResourceId sm_comm = kNone;  // compute slows the communication kernels
    // By LinkClass (intra-node, inter-node) and direction (out of the GPU, into it): NVLink,
    // InfiniBand and RoCE carry their full rate each way at once, so a send and a receive do
    // not share (Megatron's 1F1B steady state posts one of each together:
    // send_forward_recv_backward). A collective (ring, tree, all-to-all) moves data both ways.
    ResourceId link[2][2] = {{kNone, kNone}, {kNone, kNone}};
    auto link_of = [&](LinkClass c, int direction) {
      ResourceId& id = link[static_cast<int>(c)][direction];
      if (id == kNone) id = b.add_resource({ResourcePolicy::FairShare, 0});
      return id;
    };
    for (StreamId s : owned[r]) {
      const StreamInfo& si = b.stream_info(s);
      const auto type = static_cast<StreamType>(si.type);
      // The host CPU (its optimizer step, its kernel launches) and the host link's copy engines
      // take no SMs and cross neither NVLink nor the network.
      if (type == StreamType::Host || type == StreamType::HostLink ||
          type == StreamType::HostLinkIn || type == StreamType::Launch)
        continue;
      const bool compute = type == StreamType::Compute;
      if (slowdown > 0) {
        if (sm == kNone) sm = b.add_resource({ResourcePolicy::Interference, slowdown});
        b.use_resource(s, sm, compute ? ResourceRole::Victim : ResourceRole::Aggressor);
      }
      if (comm_slowdown > 0) {
        if (sm_comm == kNone)
          sm_comm = b.add_resource({ResourcePolicy::Interference, comm_slowdown});
        b.use_resource(s, sm_comm, compute ? ResourceRole::Aggressor : ResourceRole::Victim);
      }
      if (!share || type == StreamType::Compute) continue;
      // The link this stream's traffic crosses: towards its peer, or its group's.
      LinkClass c = LinkClass::IntraNode;
      if (type == StreamType::Send || type == StreamType::Recv)
        c = group_link({rank.global, p.ranks.ranks[static_cast<std::size_t>(si.peer)].global}, sc);
      else if (type == StreamType::ExpertParallel)
        c = group_link(expert_group_members(l, rank.coord), sc);
      else if (type == StreamType::ContextParallel)
        c = group_link(context_group_members(l, rank.coord), sc);
      else
        c = group_link(
            group_members(l, rank.coord, type == StreamType::TensorParallel ? Axis::TP : Axis::DP),
            sc);
      if (type != StreamType::Recv) b.use_resource(s, link_of(c, 0), ResourceRole::Share);
      if (type != StreamType::Send) b.use_resource(s, link_of(c, 1), ResourceRole::Share);
    }
  }
  return words;
}

}  // namespace trainsim
