#pragma once
// Runs the sim library off the GUI thread. Each request (scenario path, `--set` overrides,
// schedules to compare) supersedes the one before: the older run's cancel flag is raised, so
// the engine stops within a few thousand events, and a result that arrives for an older request
// is dropped. Results and errors come back as signals on the GUI thread.
#include <atomic>  // std::atomic
#include <memory>  // std::shared_ptr
#include <string>  // std::string
#include <vector>  // std::vector

#include <QObject>
#include <QThreadPool>

#include "gantt_data.h"
#include "memory_view.h"
#include "report/step_report.h"
#include "run/timeline.h"

namespace trainsim::gui {

struct SimRequest {
  std::string scenario;                ///< path of the YAML file
  std::vector<std::string> overrides;  ///< "dotted.key=value", as `trainsim --set`
  std::vector<std::string> compare;    ///< schedule names to simulate side by side
  bool fold = true;
  /// Other scenario files to compare with this one (A/B), each as its file says (no overrides):
  /// the Compare tab's rows are then this scenario and each of them, under their own schedules
  /// (or under each of `compare`), as `trainsim compare A.yaml B.yaml` prints them.
  std::vector<std::string> beside;
};

struct SimOutcome {
  std::shared_ptr<const Timeline> timeline;
  std::shared_ptr<const GanttData> gantt;
  StepReport report;
  /// The memory report and its per-stage series over time, computed on the worker thread
  /// (empty without a model), so the memory view only draws.
  std::shared_ptr<const MemoryReport> memory;
  std::shared_ptr<const std::vector<MemorySeries>> memory_series;
  double peak_memory = 0;  ///< bytes, the largest stage peak (0 without a model)
  struct Compared {
    /// VariantResult::label(): the name, "(vpp N)" when retried, after "SCENARIO · " when
    /// scenarios are compared (A/B); a file that cannot be read: its path.
    std::string schedule;
    std::shared_ptr<const GanttData> gantt;  ///< null when it failed
    StepReport report;
    double peak_memory = 0;
    bool out_of_memory = false;  ///< some stage's peak exceeds the device
    bool tight = false;          ///< MemoryReport::tight: within the device, over its usable part
    double device_memory = 0;    ///< bytes, 0 without a cluster
    double usable_memory = 0;    ///< MemoryReport::usable_memory
    std::string error;           ///< why this schedule cannot run here
  };
  std::vector<Compared> compared;
  double seconds = 0;  ///< wall time of the whole request
};

/// Simulates `r` on the calling thread. Throws what the sim library throws (InputError,
/// Cancelled) for the main schedule; a compared schedule's InputError is kept in its entry.
SimOutcome run_request(const SimRequest& r, const std::atomic<bool>* cancel = nullptr);

class SimWorker : public QObject {
  Q_OBJECT
 public:
  explicit SimWorker(QObject* parent = nullptr);
  ~SimWorker() override;
  /// Starts `r`, cancelling whatever ran before.
  void request(SimRequest r);
  /// Blocks until no run is in flight (headless screenshots, tests).
  void wait();
  bool busy() const { return in_flight_ > 0; }

 signals:
  void started();
  void finished(std::shared_ptr<const SimOutcome> outcome);
  /// `key` is the scenario field at fault ("parallelism.pp"), empty when none is known.
  void failed(QString message, QString key);

 private:
  QThreadPool pool_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  std::uint64_t generation_ = 0;
  int in_flight_ = 0;
};

}  // namespace trainsim::gui
