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

RendezvousId TaskGraphBuilder::add_rendezvous(std::span<const TaskId> members) {
  TRAINSIM_CHECK(!members.empty(), "a rendezvous needs members");
  const auto id = static_cast<RendezvousId>(rendezvous_offsets_.size() - 1);
  for (TaskId t : members) {
    TRAINSIM_CHECK(tasks_[t].rendezvous == kNone, "a task joins at most one rendezvous");
    tasks_[t].rendezvous = id;
  }
  rendezvous_members_.insert(rendezvous_members_.end(), members.begin(), members.end());
  rendezvous_offsets_.push_back(static_cast<std::uint32_t>(rendezvous_members_.size()));
  return id;
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
  g.rendezvous_offsets = std::move(rendezvous_offsets_);
  g.rendezvous_tasks = std::move(rendezvous_members_);
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
  orders_.clear();
  tasks_.clear();
  works_.clear();
  streams_.clear();
  return g;
}

}  // namespace trainsim
