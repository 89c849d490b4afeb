#include "graph/task_graph.h"

#include <algorithm>

#include "core/error.h"

namespace trainsim {

void TaskGraphBuilder::reserve(std::size_t tasks, std::size_t edges) {
  tasks_.reserve(tasks);
  edges_.reserve(edges);
}

StreamId TaskGraphBuilder::add_stream(const StreamInfo& s) {
  streams_.push_back(s);
  orders_.emplace_back();
  return static_cast<StreamId>(streams_.size() - 1);
}

WorkId TaskGraphBuilder::add_work(const Work& w) {
  TRAINSIM_CHECK(w.duration >= 0, "durations are non-negative");
  works_.push_back(w);
  return static_cast<WorkId>(works_.size() - 1);
}

TaskId TaskGraphBuilder::add_task(StreamId stream, WorkId work, std::int32_t microbatch) {
  TRAINSIM_CHECK(stream < streams_.size() && work < works_.size(), "unknown stream or work");
  TRAINSIM_CHECK(tasks_.size() < kNone - 1, "task graph exceeds 2^32 tasks");
  tasks_.push_back({work, stream, kNone, microbatch});
  const auto id = static_cast<TaskId>(tasks_.size() - 1);
  orders_[stream].push_back(id);
  return id;
}

void TaskGraphBuilder::set_stream_order(StreamId s, std::vector<TaskId> order) {
  TRAINSIM_CHECK(order.size() == orders_[s].size(), "a stream order must keep the stream's tasks");
  for (TaskId t : order) TRAINSIM_CHECK(tasks_[t].stream == s, "task belongs to another stream");
  orders_[s] = std::move(order);
}

void TaskGraphBuilder::add_dependency(TaskId before, TaskId after) {
  TRAINSIM_CHECK(before < tasks_.size() && after < tasks_.size() && before != after,
                 "dependency between unknown or identical tasks");
  edges_.emplace_back(before, after);
}

void TaskGraphBuilder::add_rendezvous(std::span<const TaskId> members,
                                      std::span<const TaskId> beside) {
  TRAINSIM_CHECK(!members.empty(), "a rendezvous needs members");
  // Until build(), a task's `rendezvous` holds the call it is a member of (kNone - 1: beside).
  const auto id = static_cast<RendezvousId>(rendezvous_offsets_.size() - 1);
  for (TaskId t : members) {
    TRAINSIM_CHECK(t < tasks_.size() && tasks_[t].rendezvous == kNone,
                   "a task is a member of at most one rendezvous, and not beside one");
    tasks_[t].rendezvous = id;
  }
  for (TaskId t : beside)
    TRAINSIM_CHECK(
        t < tasks_.size() && (tasks_[t].rendezvous == kNone || tasks_[t].rendezvous == kNone - 1),
        "a task beside a rendezvous is no member of one");
  for (TaskId t : beside) tasks_[t].rendezvous = kNone - 1;
  rendezvous_members_.insert(rendezvous_members_.end(), members.begin(), members.end());
  rendezvous_offsets_.push_back(static_cast<std::uint32_t>(rendezvous_members_.size()));
  beside_.insert(beside_.end(), beside.begin(), beside.end());
  beside_offsets_.push_back(static_cast<std::uint32_t>(beside_.size()));
}

ResourceId TaskGraphBuilder::add_resource(const Resource& r) {
  TRAINSIM_CHECK(r.factor >= 0, "a resource's slowdown is non-negative");
  resources_.push_back(r);
  return static_cast<ResourceId>(resources_.size() - 1);
}

void TaskGraphBuilder::use_resource(StreamId s, ResourceId r, ResourceRole role) {
  TRAINSIM_CHECK(s < streams_.size() && r < resources_.size(), "unknown stream or resource");
  TRAINSIM_CHECK(
      (resources_[r].policy == ResourcePolicy::FairShare) == (role == ResourceRole::Share),
      "FairShare resources have Share users, Interference ones Victims and Aggressors");
  uses_.push_back({s, {r, role}});
}

// Pace groups are the add_rendezvous calls' members. Start groups are the calls joined by the
// tasks beside them (union-find over calls), numbered by their first call; each holds its
// calls' members in call order, then their beside tasks once each, in order of first mention.
void TaskGraphBuilder::build_rendezvous(TaskGraph& g) {
  const auto calls = static_cast<std::uint32_t>(rendezvous_offsets_.size() - 1);
  const auto n = static_cast<std::uint32_t>(tasks_.size());
  g.pace_offsets = rendezvous_offsets_;
  g.pace_tasks = rendezvous_members_;
  g.pace.assign(n, kNone);
  for (std::uint32_t c = 0; c < calls; ++c)
    for (std::uint32_t i = rendezvous_offsets_[c]; i < rendezvous_offsets_[c + 1]; ++i)
      g.pace[rendezvous_members_[i]] = c;
  std::vector<std::uint32_t> parent(calls);
  for (std::uint32_t c = 0; c < calls; ++c) parent[c] = c;
  auto find = [&](std::uint32_t c) {
    while (parent[c] != c) c = parent[c] = parent[parent[c]];
    return c;
  };
  std::vector<std::uint32_t> first_call(n, kNone);  // per beside task
  for (std::uint32_t c = 0; c < calls; ++c)
    for (std::uint32_t i = beside_offsets_[c]; i < beside_offsets_[c + 1]; ++i) {
      const TaskId t = beside_[i];
      if (first_call[t] == kNone) {
        first_call[t] = c;
        continue;
      }
      const std::uint32_t a = find(first_call[t]), b = find(c);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);  // the root is the first call
    }
  std::vector<std::uint32_t> group_of(calls, kNone);
  std::vector<std::vector<std::uint32_t>> calls_of;
  for (std::uint32_t c = 0; c < calls; ++c) {
    const std::uint32_t root = find(c);
    if (group_of[root] == kNone) {
      group_of[root] = static_cast<std::uint32_t>(calls_of.size());
      calls_of.emplace_back();
    }
    calls_of[group_of[root]].push_back(c);
  }
  g.rendezvous_offsets.assign(1, 0);
  g.rendezvous_tasks.clear();
  g.rendezvous_tasks.reserve(rendezvous_members_.size() + beside_.size());
  for (std::uint32_t r = 0; r < calls_of.size(); ++r) {
    for (std::uint32_t c : calls_of[r])
      for (std::uint32_t i = rendezvous_offsets_[c]; i < rendezvous_offsets_[c + 1]; ++i) {
        g.rendezvous_tasks.push_back(rendezvous_members_[i]);
        tasks_[rendezvous_members_[i]].rendezvous = r;
      }
    for (std::uint32_t c : calls_of[r])
      for (std::uint32_t i = beside_offsets_[c]; i < beside_offsets_[c + 1]; ++i) {
        const TaskId t = beside_[i];
        if (tasks_[t].rendezvous == r) continue;  // beside two of this group's calls
        g.rendezvous_tasks.push_back(t);
        tasks_[t].rendezvous = r;
      }
    g.rendezvous_offsets.push_back(static_cast<std::uint32_t>(g.rendezvous_tasks.size()));
  }
  // Tasks that start together cannot share a stream (one would wait for the other forever).
  std::vector<std::uint32_t> seen(streams_.size(), kNone);
  for (std::uint32_t r = 0; r + 1 < g.rendezvous_offsets.size(); ++r)
    for (std::uint32_t i = g.rendezvous_offsets[r]; i < g.rendezvous_offsets[r + 1]; ++i) {
      const StreamId s = tasks_[g.rendezvous_tasks[i]].stream;
      TRAINSIM_CHECK(seen[s] != r, "tasks that start together are on different streams");
      seen[s] = r;
    }
}

TaskGraph TaskGraphBuilder::build() {
  TaskGraph g;
  const auto n = static_cast<std::uint32_t>(tasks_.size());
  // Dependencies: CSR via Boost (sorts the unsorted edge list once).
  g.deps = DependencyGraph(boost::edges_are_unsorted_multi_pass, edges_.begin(), edges_.end(), n);
  g.pred_count.assign(n, 0);
  for (const auto& [from, to] : edges_) ++g.pred_count[to];
  std::vector<std::pair<std::uint32_t, std::uint32_t>>().swap(edges_);
  // Streams: concatenate the per-stream orders.
  g.stream_offsets.assign(1, 0);
  g.stream_tasks.reserve(n);
  for (auto& order : orders_) {
    g.stream_tasks.insert(g.stream_tasks.end(), order.begin(), order.end());
    g.stream_offsets.push_back(static_cast<std::uint32_t>(g.stream_tasks.size()));
    std::vector<TaskId>().swap(order);
  }
  TRAINSIM_CHECK(g.stream_tasks.size() == n, "every task is on exactly one stream");
  build_rendezvous(g);
  if (!resources_.empty()) {
    // Both directions as CSR: stream -> uses, resource -> users.
    std::stable_sort(uses_.begin(), uses_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    g.use_offsets.assign(streams_.size() + 1, 0);
    for (const auto& [s, u] : uses_) ++g.use_offsets[s + 1];
    for (std::size_t s = 0; s < streams_.size(); ++s) g.use_offsets[s + 1] += g.use_offsets[s];
    for (const auto& [s, u] : uses_) g.uses.push_back(u);
    g.user_offsets.assign(resources_.size() + 1, 0);
    for (const auto& [s, u] : uses_) ++g.user_offsets[u.resource + 1];
    for (std::size_t r = 0; r < resources_.size(); ++r) g.user_offsets[r + 1] += g.user_offsets[r];
    g.users.resize(uses_.size());
    std::vector<std::uint32_t> fill(g.user_offsets.begin(), g.user_offsets.end() - 1);
    for (const auto& [s, u] : uses_) g.users[fill[u.resource]++] = {s, u.role};
    g.resources = std::move(resources_);
  }
  resources_.clear();
  uses_.clear();
  g.tasks = std::move(tasks_);
  g.works = std::move(works_);
  g.streams = std::move(streams_);
  rendezvous_members_.clear();
  rendezvous_offsets_.assign(1, 0);
  beside_.clear();
  beside_offsets_.assign(1, 0);
  orders_.clear();
  tasks_.clear();
  works_.clear();
  streams_.clear();
  return g;
}

}  // namespace trainsim
