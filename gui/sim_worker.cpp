#include "sim_worker.h"

#include <chrono>

#include <QCoreApplication>

#include "core/error.h"
#include "report/memory_report.h"
#include "run/simulate.h"
#include "run/variants.h"
#include "scenario/scenario_loader.h"

namespace trainsim::gui {

SimOutcome run_request(const SimRequest& r, const std::atomic<bool>* cancel) {
  const auto t0 = std::chrono::steady_clock::now();
  const Scenario sc = load_scenario(r.scenario, r.overrides);
  SimulateOptions opt;
  opt.fold = r.fold;
  opt.cancel = cancel;
  SimOutcome out;
  auto tl = std::make_shared<const Timeline>(simulate(sc, opt));
  out.report = make_report(*tl);
  out.report.scenario = r.scenario;
  if (tl->scenario.model) {
    auto mem = std::make_shared<const MemoryReport>(make_memory_report(*tl));
    out.memory_series = std::make_shared<const std::vector<MemorySeries>>(memory_series(*tl, *mem));
    out.peak_memory = mem->largest_peak();
    out.memory = std::move(mem);
  }
  out.gantt = std::make_shared<const GanttData>(make_gantt_data(tl));
  out.timeline = std::move(tl);
  // The CLI's compare calls: the same retry rule and the same rows (run/variants.h).
  std::vector<VariantResult> rows;
  std::vector<SimOutcome::Compared> unreadable;  // a file beside that does not load: its row
  if (r.beside.empty()) {
    rows = simulate_schedules(sc, r.compare, opt);
  } else {
    std::vector<Scenario> scenarios{sc};
    for (const std::string& path : r.beside) try {
        scenarios.push_back(load_scenario(path));
      } catch (const InputError& e) {
        SimOutcome::Compared c;
        c.schedule = path;
        c.error = e.what();
        unreadable.push_back(std::move(c));
      }
    rows = simulate_scenarios(scenarios, r.compare, opt);
  }
  for (VariantResult& v : rows) {
    SimOutcome::Compared c;
    c.schedule = v.label();
    c.error = v.error;
    if (v.ran()) {
      c.report = make_report(*v.timeline);
      if (v.timeline->scenario.model) {
        const MemoryReport m = make_memory_report(*v.timeline);
        c.peak_memory = m.largest_peak();
        c.out_of_memory = !m.out_of_memory.empty();
        c.tight = !m.tight.empty();
        c.device_memory = m.device_memory;
        c.usable_memory = m.usable_memory;
      }
      c.gantt = std::make_shared<const GanttData>(make_gantt_data(std::move(v.timeline)));
    }
    out.compared.push_back(std::move(c));
  }
  for (auto& c : unreadable) out.compared.push_back(std::move(c));
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

SimWorker::SimWorker(QObject* parent) : QObject(parent) {
  pool_.setMaxThreadCount(2);  // a new run starts while the cancelled one winds down
}

SimWorker::~SimWorker() {
  if (cancel_) *cancel_ = true;
  pool_.waitForDone();
}

void SimWorker::request(SimRequest r) {
  if (cancel_) *cancel_ = true;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  const std::uint64_t gen = ++generation_;
  ++in_flight_;
  emit started();
  pool_.start([this, r = std::move(r), cancel = cancel_, gen] {
    std::shared_ptr<const SimOutcome> outcome;
    QString message, key;
    bool cancelled = false;
    try {
      outcome = std::make_shared<const SimOutcome>(run_request(r, cancel.get()));
    } catch (const Cancelled&) {
      cancelled = true;
    } catch (const ScenarioError& e) {
      message = QString::fromStdString(e.what());
      key = QString::fromStdString(e.key());
    } catch (const ScheduleError& e) {
      message = QString::fromStdString(e.what());
      key = QStringLiteral("schedule");
    } catch (const std::exception& e) {  // InputError, or our own bug: shown, never a crash
      message = QString::fromStdString(e.what());
    }
    QMetaObject::invokeMethod(
        this,
        [this, gen, outcome, message, key, cancelled] {
          --in_flight_;
          if (gen != generation_ || cancelled) return;  // superseded
          if (outcome)
            emit finished(outcome);
          else
            emit failed(message, key);
        },
        Qt::QueuedConnection);
  });
}

void SimWorker::wait() {
  pool_.waitForDone();
  QCoreApplication::processEvents();  // deliver the queued results
}

}  // namespace trainsim::gui
