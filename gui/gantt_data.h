#pragma once
// What a Gantt chart draws, read off a Timeline (never recomputed): one lane per simulated
// rank's compute stream and, optionally, one thin lane per communication stream, each holding
// its tasks as boxes sorted by time; the kind that picks a box's colour; the p2p flows that
// draw a micro-batch's path. No Qt here: lanes and boxes are plain data.
#include <cstdint>  // std::uint8_t
#include <memory>   // std::shared_ptr
#include <string>   // std::string
#include <vector>   // std::vector

#include "measured/torch_trace.h"
#include "report/p2p_flows.h"
#include "run/timeline.h"

namespace trainsim::gui {

/// Colour classes of the legend.
enum class BoxKind : std::uint8_t {
  Forward,
  Backward,  ///< fused backward (includes recomputation when the scenario recomputes)
  BackwardInput,
  BackwardWeight,
  ForwardBackward,  ///< DualPipe's overlapped F&B
  Optimizer,
  TensorParallel,
  ExpertParallel,   ///< the token all-to-alls of expert parallelism
  ContextParallel,  ///< context parallelism's key/value exchange
  HostLink,         ///< activation offload's copies to and from host memory
  DataParallel,     ///< gradient reduction and ZeRO parameter gathers
  P2p,
  Launch,  ///< the CPU issuing a compute task's kernels (efficiency.host_per_kernel)
  // Kernels of a measured step (a PyTorch profiler trace), by kernel_class.h's category; a
  // measured optimizer kernel is Optimizer.
  Gemm,
  Attention,
  MemoryBound,
  Communication,
  OtherKernel,
  Count
};
/// True for the kinds only measured lanes use.
bool is_measured_kind(BoxKind k);
const char* box_kind_name(BoxKind k);
BoxKind box_kind(const Work& w);

struct Box {
  TimeNs start = 0, end = 0;
  TaskId task = 0;  ///< a task of the Timeline, or on a measured lane an index into its kernels
  BoxKind kind = BoxKind::Forward;
};

struct Lane {
  std::string label;    ///< "rank 5 · pp 1" or "  dp" for a stream lane
  int rank = 0;         ///< index into Timeline::ranks
  int stage = 0;        ///< pipeline rank
  bool compute = true;  ///< the rank's compute lane (false: a communication stream)
  bool representative =
      true;               ///< its stage's (report/representative.h): shown when peers are collapsed
  bool measured = false;  ///< a CUDA stream of a measured trace (GanttData::measured)
  std::vector<Box> boxes;  ///< sorted by start; never overlapping (one stream)
  /// Coverage index (index_coverage): the kinds the lane holds, and per kind the summed
  /// durations of boxes [0, i) of that kind (boxes + 1 entries), so the time each kind runs in
  /// a range costs two binary searches however many boxes it holds.
  std::vector<BoxKind> kinds;
  std::vector<std::vector<TimeNs>> kind_time_before;
};

/// Builds `lane`'s coverage index from its boxes (make_gantt_data and add_measured_lanes do).
void index_coverage(Lane& lane);
/// The time (ns) each of `lane.kinds` runs within [t0, t1), into `out` (one entry per kind;
/// boxes cut by the range count their part inside). `from`, for a caller walking forward in
/// time: a box index at or before the range's first box, where the search starts (a galloping
/// search, cheap for a near one); set to the range's first box.
void coverage(const Lane& lane, double t0, double t1, std::vector<double>& out,
              std::size_t* from = nullptr);
/// The time (ns) each of `lane.kinds` has run before `t` (one entry per kind, into `out`):
/// coverage over [t0, t1) is busy_before(t1) − busy_before(t0). `from` as for coverage().
void busy_before(const Lane& lane, double t, std::vector<double>& out, std::size_t* from = nullptr);
/// The first box at index `from` or later that starts at or after `t` (boxes.size() when none),
/// by a galloping search: cheap when it is near `from`.
std::size_t first_starting_at(const Lane& lane, std::size_t from, double t);

struct GanttData {
  std::shared_ptr<const Timeline> timeline;
  std::vector<Lane> lanes;  ///< grouped by stage, then rank; each rank's compute lane first
  std::vector<P2pFlow> flows;
  std::size_t tasks = 0;
  bool recompute = false;  ///< B boxes include recomputation (drawn hatched)
  /// A measured step drawn below the simulated one (add_measured_lanes), or null.
  std::shared_ptr<const TorchTrace> measured;
  int measured_step = -1;  ///< index into measured->steps
};

/// Lanes for every simulated rank's non-empty streams, ranks ordered by (stage, dp, tp).
GanttData make_gantt_data(std::shared_ptr<const Timeline> tl);

/// Adds the lanes of step `step` of trace `t` after the simulated ones: one per CUDA stream
/// ("measured · rank R", then "stream S"), the busiest stream a full lane and the others thin ones
/// (shown with the communication streams), each kernel a box of its category, shifted so that the
/// step's first kernel starts at 0 like the simulated step. Replaces lanes a previous call added.
void add_measured_lanes(GanttData& d, std::shared_ptr<const TorchTrace> t, int step);
/// The measured step's span (first kernel start to last kernel end), 0 without one.
TimeNs measured_span(const GanttData& d);
/// What a fitted view shows: the simulated step or the measured one, whichever is longer.
TimeNs drawn_span(const GanttData& d);
/// Which lanes a view shows: DP/TP peers (non-representative ranks) and communication lanes
/// are optional. Returns indices into `d.lanes`.
std::vector<int> visible_lanes(const GanttData& d, bool show_peers, bool show_streams);

/// The box of `lane` under time `t` (ns), or nullptr. Binary search.
const Box* box_at(const Lane& lane, double t);

}  // namespace trainsim::gui
