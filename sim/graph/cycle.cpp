#include "graph/cycle.h"

#include <algorithm>

#include <boost/graph/depth_first_search.hpp>

namespace trainsim {
namespace {

// Node of the contracted graph: a rendezvous collapses onto its first member.
std::uint32_t node_of(const TaskGraph& g, TaskId t) {
  const RendezvousId r = g.tasks[t].rendezvous;
  return r == kNone ? t : g.rendezvous(r).front();
}

struct CycleFinder : boost::default_dfs_visitor {
  std::vector<std::uint32_t>* parent;
  std::vector<std::uint32_t>* cycle;
  template <class Edge, class Graph>
  void tree_edge(Edge e, const Graph& gr) {
    (*parent)[boost::target(e, gr)] = static_cast<std::uint32_t>(boost::source(e, gr));
  }
  template <class Edge, class Graph>
  void back_edge(Edge e, const Graph& gr) {
    if (!cycle->empty()) return;
    const auto from = static_cast<std::uint32_t>(boost::source(e, gr));
    const auto to = static_cast<std::uint32_t>(boost::target(e, gr));
    // Walk the DFS tree from `from` back up to `to`.
    for (std::uint32_t v = from; v != to; v = (*parent)[v]) cycle->push_back(v);
    cycle->push_back(to);
    std::reverse(cycle->begin(), cycle->end());
  }
};

}  // namespace

std::vector<TaskId> find_wait_cycle(const TaskGraph& g) {
  const auto n = static_cast<std::uint32_t>(g.size());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  edges.reserve(boost::num_edges(g.deps) + n);
  for (std::uint32_t t = 0; t < n; ++t)
    for (auto v : g.successors(t)) {
      const auto a = node_of(g, t), b = node_of(g, static_cast<TaskId>(v));
      if (a != b) edges.emplace_back(a, b);
    }
  for (std::uint32_t s = 0; s + 1 < g.stream_offsets.size(); ++s) {
    auto tasks = g.stream(s);
    for (std::size_t i = 1; i < tasks.size(); ++i) {
      const auto a = node_of(g, tasks[i - 1]), b = node_of(g, tasks[i]);
      if (a != b) edges.emplace_back(a, b);
    }
  }
  DependencyGraph wait(boost::edges_are_unsorted_multi_pass, edges.begin(), edges.end(), n);
  std::vector<std::uint32_t> parent(n, kNone), cycle;
  CycleFinder vis;
  vis.parent = &parent;
  vis.cycle = &cycle;
  std::vector<boost::default_color_type> colors(n);
  boost::depth_first_search(wait, boost::visitor(vis).color_map(boost::make_iterator_property_map(
                                      colors.begin(), boost::get(boost::vertex_index, wait))));
  return cycle;
}

}  // namespace trainsim
