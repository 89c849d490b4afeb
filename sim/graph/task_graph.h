#pragma once
// The task graph the engine runs: compact task records (16 bytes, no per-task heap strings),
// dependency edges in a Boost.Graph compressed-sparse-row graph, in-order streams and
// rendezvous groups (tasks that must start together: collectives, matched send/recv; and
// work that starts with a collective it overlaps but keeps its own pace).
// It knows nothing of schedules or libraries: `type` fields are opaque codes that the layer
// which built the graph (lower/) interprets.
#include <cstdint>  // std::uint32_t, std::int32_t, std::uint8_t
#include <limits>   // std::numeric_limits
#include <span>     // std::span
#include <utility>  // std::pair
#include <vector>   // std::vector

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/range/iterator_range.hpp>

#include "core/time.h"

namespace trainsim {

using TaskId = std::uint32_t;
using StreamId = std::uint32_t;
using WorkId = std::uint32_t;
using RendezvousId = std::uint32_t;
inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

/// What a task costs; shared by every task doing the same work (e.g. F of stage 2 for every
/// micro-batch), so per-task records stay small.
struct Work {
  TimeNs duration = 0;
  double flops = 0;
  double bytes = 0;
  std::uint8_t type = 0;     ///< opaque to the engine
  std::uint8_t detail = 0;   ///< opaque to the engine (what the work is within its type)
  std::int32_t stage = -1;   ///< opaque to the engine
  std::int32_t chunk = -1;   ///< opaque to the engine
  std::int32_t stage2 = -1;  ///< opaque to the engine (a second stage the work covers)
  std::int32_t part = 0;     ///< opaque to the engine (which piece of a divided work)
  std::int32_t parts = 1;    ///< opaque to the engine (into how many pieces it was divided)
};

struct Task {
  WorkId work = 0;
  StreamId stream = 0;
  /// The start group (after TaskGraphBuilder::build; while building: the add_rendezvous call
  /// the task is a member of, kNone − 1 when only beside calls, kNone when in none).
  RendezvousId rendezvous = kNone;
  std::int32_t microbatch = -1;
};
static_assert(sizeof(Task) == 16, "task records must stay compact");

/// An in-order queue of tasks, like a CUDA stream: a task starts only after the previous one
/// in its stream has finished.
struct StreamInfo {
  std::uint32_t owner = 0;  ///< index of the simulated rank that owns the stream (opaque)
  std::uint8_t type = 0;    ///< opaque to the engine
  std::int32_t peer = -1;   ///< opaque to the engine (e.g. the other end of a channel)
};

using ResourceId = std::uint32_t;

/// A hardware resource that tasks running at once slow each other down on (opaque meaning:
/// the layer that built the graph decides what it stands for). While a task runs, its
/// progress rate is the lowest its stream's resources allow:
/// - FairShare: k tasks running on streams that share it progress at 1/k each (a link's
///   bandwidth split between flows);
/// - Interference: tasks on Victim streams progress at 1/(1 + factor) while any task runs on
///   one of its Aggressor streams (compute slowed by communication kernels taking SMs).
/// A collective's members (one pace group) progress together at the lowest of their rates;
/// tasks that only start with it (beside) keep their own.
enum class ResourcePolicy : std::uint8_t { FairShare, Interference };
enum class ResourceRole : std::uint8_t { Share, Victim, Aggressor };
struct Resource {
  ResourcePolicy policy = ResourcePolicy::FairShare;
  double factor = 0;  ///< Interference: the victims' slowdown
};
struct ResourceUse {
  ResourceId resource = 0;
  ResourceRole role = ResourceRole::Share;
};

using DependencyGraph =
    boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                       boost::no_property, std::uint32_t, std::uint32_t>;

struct TaskGraph {
  std::vector<Task> tasks;
  std::vector<Work> works;
  std::vector<StreamInfo> streams;
  DependencyGraph deps;                       ///< edge a -> b: b waits for a to finish
  std::vector<std::uint32_t> pred_count;      ///< in-degree of each task in `deps`
  std::vector<std::uint32_t> stream_offsets;  ///< CSR: stream -> its tasks in order
  std::vector<TaskId> stream_tasks;
  std::vector<std::uint32_t> rendezvous_offsets;  ///< CSR: rendezvous -> tasks starting together
  std::vector<TaskId> rendezvous_tasks;
  std::vector<std::uint32_t> pace_offsets;  ///< CSR: pace group -> tasks progressing together
  std::vector<TaskId> pace_tasks;
  std::vector<std::uint32_t> pace;  ///< per task: its pace group, kNone when it keeps its own
  std::vector<Resource> resources;  ///< empty: tasks never slow each other
  std::vector<std::uint32_t> use_offsets;  ///< CSR: stream -> its resource uses
  std::vector<ResourceUse> uses;
  std::vector<std::uint32_t> user_offsets;  ///< CSR: resource -> streams using it
  std::vector<std::pair<StreamId, ResourceRole>> users;

  std::size_t size() const { return tasks.size(); }
  /// Tasks that wait for `t`.
  auto successors(TaskId t) const {
    return boost::make_iterator_range(boost::adjacent_vertices(t, deps));
  }
  TimeNs duration(TaskId t) const { return works[tasks[t].work].duration; }
  const Work& work(TaskId t) const { return works[tasks[t].work]; }
  std::span<const TaskId> stream(StreamId s) const {
    return {stream_tasks.data() + stream_offsets[s], stream_offsets[s + 1] - stream_offsets[s]};
  }
  std::span<const TaskId> rendezvous(RendezvousId r) const {
    return {rendezvous_tasks.data() + rendezvous_offsets[r],
            rendezvous_offsets[r + 1] - rendezvous_offsets[r]};
  }
  std::size_t rendezvous_count() const {
    return rendezvous_offsets.empty() ? 0 : rendezvous_offsets.size() - 1;
  }
  std::span<const TaskId> pace_group(std::uint32_t p) const {
    return {pace_tasks.data() + pace_offsets[p], pace_offsets[p + 1] - pace_offsets[p]};
  }
  std::size_t pace_count() const { return pace_offsets.empty() ? 0 : pace_offsets.size() - 1; }
  std::span<const ResourceUse> uses_of(StreamId s) const {
    if (use_offsets.empty()) return {};
    return {uses.data() + use_offsets[s], use_offsets[s + 1] - use_offsets[s]};
  }
  std::span<const std::pair<StreamId, ResourceRole>> users_of(ResourceId r) const {
    return {users.data() + user_offsets[r], user_offsets[r + 1] - user_offsets[r]};
  }
};

/// Builds a TaskGraph. Tasks join the end of their stream when added; a lowering pass may
/// rewrite a stream's order (e.g. to put a collective right after the compute it follows).
class TaskGraphBuilder {
 public:
  /// Capacity for about `tasks` tasks and `edges` dependencies (no effect on the result).
  void reserve(std::size_t tasks, std::size_t edges);
  StreamId add_stream(const StreamInfo& s);
  std::size_t stream_count() const { return streams_.size(); }
  const StreamInfo& stream_info(StreamId s) const { return streams_[s]; }
  const std::vector<TaskId>& stream_order(StreamId s) const { return orders_[s]; }
  /// Replaces the order of stream `s`; `order` must hold exactly the stream's tasks.
  void set_stream_order(StreamId s, std::vector<TaskId> order);
  const Task& task(TaskId t) const { return tasks_[t]; }
  WorkId add_work(const Work& w);
  TaskId add_task(StreamId stream, WorkId work, std::int32_t microbatch = -1);
  /// `after` waits for `before` to finish.
  void add_dependency(TaskId before, TaskId after);
  /// The dependencies added so far, (before, after), in the order they were added.
  const std::vector<std::pair<std::uint32_t, std::uint32_t>>& dependencies() const {
    return edges_;
  }
  /// `members` start together once all of them (and every `beside` task) are ready, and progress
  /// together at the slowest one's rate (a collective, a matched send/recv). `beside` tasks start
  /// with them but keep their own pace (the compute a collective overlaps). A task is a member of
  /// at most one call; a beside task may be beside several, whose tasks then all start together.
  void add_rendezvous(std::span<const TaskId> members, std::span<const TaskId> beside = {});
  ResourceId add_resource(const Resource& r);
  /// Stream `s` uses resource `r` in `role` (Share for FairShare; Victim or Aggressor for
  /// Interference).
  void use_resource(StreamId s, ResourceId r, ResourceRole role);

  std::size_t task_count() const { return tasks_.size(); }
  const Work& work(WorkId w) const { return works_[w]; }
  Work& work(WorkId w) { return works_[w]; }

  /// Freezes the graph into compressed form. The builder is left empty.
  TaskGraph build();

 private:
  std::vector<Task> tasks_;
  std::vector<Work> works_;
  std::vector<StreamInfo> streams_;
  std::vector<std::vector<TaskId>> orders_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges_;
  // add_rendezvous calls, flat: call i's members are [offsets_[i], offsets_[i + 1]) of
  // members_, its beside tasks [beside_offsets_[i], beside_offsets_[i + 1]) of beside_.
  std::vector<TaskId> rendezvous_members_;
  std::vector<std::uint32_t> rendezvous_offsets_{0};
  std::vector<TaskId> beside_;
  std::vector<std::uint32_t> beside_offsets_{0};
  std::vector<Resource> resources_;
  std::vector<std::pair<StreamId, ResourceUse>> uses_;

  void build_rendezvous(TaskGraph& g);
};

}  // namespace trainsim
