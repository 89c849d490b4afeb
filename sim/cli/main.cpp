// trainsim: the command line. Maps errors to exit codes (0 ok, 2 bad input, 1 internal) here
// and only here.
#include <unistd.h>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/input_file.h"
#include "core/json_text.h"
#include "core/mpi_job.h"
#include "core/quantity.h"
#include "core/suggest.h"
#include "cost/explicit_costs.h"
#include "report/ascii_gantt.h"
#include "report/chrome_trace.h"
#include "report/kernel_report.h"
#include "report/measured_diff.h"
#include "report/memory_report.h"
#include "report/ranking.h"
#include "report/report_format.h"
#include "report/setting_changes.h"
#include "run/simulate.h"
#include "run/variants.h"
#include "scenario/scenario_loader.h"
#include "scenario/scenario_schema.h"
#include "schedules/csv.h"
#include "schedules/registry.h"
#include "schedules/validate.h"
#include "search/distributed_search.h"
#include "search/layout_search.h"
#include "search/search_plot.h"
#ifdef TRAINSIM_WITH_PNG
#include "svg_png.h"  // gui/: Qt Svg renders the plot
#endif

#ifndef TRAINSIM_VERSION
#define TRAINSIM_VERSION "0.0.0"
#endif

namespace {

// `text` without the blanks around it.
std::string_view trimmed(std::string_view t) {
  const auto b = t.find_first_not_of(" \t"), e = t.find_last_not_of(" \t");
  return b == std::string_view::npos ? t.substr(0, 0) : t.substr(b, e - b + 1);
}

// A finite number spelling all of `v`, or nullopt.
std::optional<double> finite_number(std::string_view v) {
  double x = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || ptr != v.data() + v.size() || v.empty() || !std::isfinite(x))
    return std::nullopt;
  return x;
}

// Range checks with plain messages (CLI11's PositiveNumber prints the double range up to
// 1.8e308 in full): a number, or for an integer option a whole number, at least `low`.
CLI::Validator at_least(double low, bool whole = false) {
  return CLI::Validator(
      [low, whole](std::string& text) -> std::string {
        const std::string_view v = trimmed(text);
        const std::string want = whole ? "a whole number" : "a number";
        std::optional<double> x;
        if (whole) {
          long long n = 0;
          const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
          if (ec == std::errc() && ptr == v.data() + v.size() && !v.empty())
            x = static_cast<double>(n);
        } else {
          x = finite_number(v);
        }
        if (!x) return fmt::format("expected {} ≥ {:g}, got {}", want, low, text);
        if (!(*x >= low)) return fmt::format("must be {:g} or more, got {}", low, text);
        text = std::string(v);
        return {};
      },
      fmt::format("at least {:g}", low), fmt::format("at least {:g}", low));
}

// A name that may not be empty ("--schedule ''" had meant the scenario's own, silently).
const CLI::Validator kNotEmpty(
    [](std::string& text) -> std::string {
      return text.empty() ? "expected a schedule name, got nothing" : "";
    },
    "", "not empty");

// A step that may not be empty ("--step ''" had meant the default step, silently).
const CLI::Validator kStep(
    [](std::string& text) -> std::string {
      return text.empty() ? "expected a step (12 or ProfilerStep#12) or a window (1.2s..1.9s), "
                            "got nothing"
                          : "";
    },
    "", "a step");

// An output path that may not be empty ("--trace ''" wrote nothing and said nothing) nor "-"
// (written as a file of that name, where a user meant the standard output, which carries the
// report).
const CLI::Validator kPath(
    [](std::string& text) -> std::string {
      return text.empty()  ? "expected a file path, got nothing"
             : text == "-" ? "expected a file path, got - (the standard output carries the "
                             "report: name a file)"
                           : "";
    },
    "", "a file path");

// A percentage from 0 to `most` (100 unless an error's bound), written 5 or 5%: the option
// reads the number (CLI11's Range lets "nan" through: every comparison with it is false).
CLI::Validator percentage(double most = 100) {
  return CLI::Validator(
      [most](std::string& text) -> std::string {
        std::string_view v = trimmed(text);
        if (!v.empty() && v.back() == '%') v = trimmed(v.substr(0, v.size() - 1));
        const std::optional<double> x = finite_number(v);
        if (!x || !(*x >= 0 && *x <= most))
          return std::isinf(most)
                     ? fmt::format("expected a percentage ≥ 0 (5 or 5% for 5 %), got {}", text)
                     : fmt::format("expected a percentage from 0 to {:g}, got {}", most, text);
        text = std::string(v);
        return {};
      },
      std::isinf(most) ? "≥ 0 %" : fmt::format("0–{:g} %", most), "a percentage");
}

using namespace trainsim;

struct RunArgs {
  std::string scenario;
  std::string schedule;
  std::vector<std::string> sets;
  bool json = false;
  std::string trace;
  bool no_fold = false;
};

struct CompareArgs {
  std::vector<std::string> scenarios;  ///< one, or several side by side (A/B)
  std::string schedules = "all";
  std::vector<std::string> sets;
  bool json = false;
  std::string trace_dir;
  bool no_fold = false;
  std::vector<std::string> vary;  ///< --vary KEY=V1,V2: edits of the one scenario
};

struct SearchArgs {
  std::string scenario;
  std::vector<std::string> sets;
  std::vector<int> tp, pp, vpp, micro_batch_sizes, zero, ep, cp, offload_activations;
  std::vector<std::string> sp, recompute, tp_overlap;  ///< off/on; none/selective/full
  std::vector<std::string> etp;                        ///< tp/1
  std::vector<std::string> precision;                  ///< bf16/fp16/fp8
  std::vector<std::string> offload;                    ///< none/optimizer
  std::string schedules;                               ///< "" = the scenario's, or names, or all
  std::string headroom;  ///< percent of device memory kept free, "10" or "10%"
  std::string plot;      ///< an .svg file: step time against memory
  int jobs = 0;
  std::size_t top = 10;
  bool json = false, csv = false;
};

struct CheckArgs {
  std::vector<std::string> scenarios;
  std::vector<std::string> sets;  ///< --set, applied to every scenario
  bool json = false, markdown = false, validation_inc = false;
  double max_mean_error = -1, max_error = -1;  ///< percent; negative: no bound
  double max_mean_memory_error = -1;  ///< percent, over the logged memory peaks; negative: no bound
  double min_ordered_pairs = -1;      ///< percent; negative: no bound
  double max_mean_change_error = -1;  ///< points of cost per token; negative: no bound
};

struct KernelsArgs {
  std::string scenario;
  std::vector<std::string> sets;
  int stage = 0;
  bool json = false;
};

struct DiffArgs {
  std::string scenario;
  std::vector<std::string> sets;
  std::vector<std::string> traces;
  std::string step;  ///< ProfilerStep name or number; "" picks one
  std::string trace_out;
  bool json = false;
  bool kernels = false;  ///< list each compute category's kernels, measured and predicted
  std::size_t most = 8;
};

struct ScheduleArgs {
  int pp = 4;
  int microbatches = 8;
  int vpp = 1;
  std::string schedule = "1f1b";
  std::vector<std::string> options;  ///< --option KEY=VALUE
  bool list = false;
  std::string export_csv;
  std::string csv;
  bool timeline = false;
  int width = 0;  // 0: wide enough for the labels
  std::string forward = "1ms", backward = "2ms", backward_input, backward_weight, p2p = "0ms";
  std::string overlap;           ///< forward_backward_overlap (DualPipe's F&B), empty: F + B
  bool post_validation = false;  ///< training.optimizer_post_validation: steps overlap
  std::string scenario;          ///< a scenario's own schedule, layout and (--timeline) costs
  std::vector<std::string> sets;
  bool schedule_given = false;           ///< -s on the command line
  std::vector<std::string> flags_given;  ///< the flags that describe a pipeline without a scenario
};

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// A simulation's progress on a terminal (stderr): each phase as it starts (a quick run's are
// erased before they are seen), and the simulation's share of tasks done from the first second
// on; pipes and CI logs get the result alone. clear() erases the line before the report. Its
// callback refers to it: one object per command, not copied.
class TerminalProgress {
 public:
  TerminalProgress()
      : tty_(isatty(fileno(stderr)) != 0), start_(std::chrono::steady_clock::now()) {}
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;
  ~TerminalProgress() { clear(); }
  std::function<void(const char*, double)> callback() {
    if (!tty_) return nullptr;
    return [this](const char* name, double done) {
      if (done == 0)
        phase(name);
      else if (std::chrono::steady_clock::now() - start_ >= std::chrono::seconds(1))
        show(fmt::format("{}: {:.0f}%", name, 100 * done));
    };
  }
  void phase(const char* name) { show(fmt::format("{}…", name)); }
  void clear() {
    if (shown_) std::cerr << "\r\033[K" << std::flush;
    shown_ = false;
  }

 private:
  void show(const std::string& line) {
    if (!tty_ || line == last_) return;
    shown_ = true;
    last_ = line;
    std::cerr << "\r" << line << "\033[K" << std::flush;
  }
  bool tty_;
  bool shown_ = false;
  std::string last_;
  std::chrono::steady_clock::time_point start_;
};

// "trace written to PATH (12.3 MB)", and a word when it is large to open in a browser.
std::string trace_written(const std::string& path) {
  std::error_code ec;
  const auto bytes = static_cast<double>(std::filesystem::file_size(path, ec));
  if (ec) return fmt::format("trace written to {}\n", path);
  return fmt::format(
      "trace written to {} ({}){}\n", path, format_bytes(bytes),
      bytes > 256e6 ? ": large for ui.perfetto.dev, which may take minutes or run out of memory "
                      "on it (without --no-fold identical TP/DP peers are drawn once)"
                    : "");
}

int cmd_run(const RunArgs& a) {
  Scenario sc = load_scenario(a.scenario, a.sets);
  TerminalProgress progress;
  Timeline tl = simulate(sc, {a.schedule, !a.no_fold, nullptr, progress.callback()});
  std::optional<double> without_slowdown;
  if (!sc.slowdowns.empty()) {  // how far the stragglers move the step
    Scenario even = sc;
    even.slowdowns.clear();
    without_slowdown =
        to_seconds(simulate(even, {a.schedule, !a.no_fold, nullptr, progress.callback()}).makespan);
  }
  progress.phase("reporting");
  StepReport r = make_report(tl);
  r.step_time_without_slowdown_s = without_slowdown;
  const MemoryReport mem = make_memory_report(tl);
  if (!a.trace.empty()) write_chrome_trace_file(tl, a.trace);
  progress.clear();
  if (a.json) {
    auto j = report_to_json(r);
    j["memory"] = memory_to_json(mem);
    std::cout << json_text(j, 2) << "\n";
  } else {
    std::cout << format_report(r) << "------------------------------------\n" << format_memory(mem);
  }
  if (!a.trace.empty() && !a.json) std::cout << trace_written(a.trace);
  return 0;
}

// `trainsim kernels`: where one micro-batch's compute time goes on a stage.
int cmd_kernels(const KernelsArgs& a) {
  const Scenario sc = load_scenario(a.scenario, a.sets);
  if (!sc.model) throw InputError(a.scenario + ": trainsim kernels needs a model: section");
  const std::unique_ptr<CostModel> model = make_cost_model(sc);
  // The list needs no schedule, but the file's must still be one: a scenario that `run`
  // refuses is refused here too.
  (void)schedule_for(sc, "", model.get());
  const KernelReport r = make_kernel_report(sc, *model, a.stage);
  std::cout << (a.json ? json_text(kernel_report_to_json(r), 2) + "\n" : format_kernel_report(r));
  return 0;
}

// `trainsim diff`: a measured step (PyTorch profiler traces, one per rank) beside the
// simulated one, per category.
int cmd_diff(const DiffArgs& a) {
  // The arguments swapped: a trace where the scenario belongs (its bytes would read as a
  // scenario that is not UTF-8 text).
  const auto is_trace = [](const std::string& p) {
    return p.ends_with(".json") || p.ends_with(".json.gz");
  };
  if (is_trace(a.scenario))
    throw InputError(fmt::format(
        "{}: a trace where the scenario belongs: trainsim diff takes the scenario first, then "
        "the traces (trainsim diff SCENARIO.yaml TRACE.json[.gz] …)",
        a.scenario));
  const Scenario sc = load_scenario(a.scenario, a.sets);
  if (!sc.model) throw InputError(a.scenario + ": trainsim diff needs a model: section");
  // Progress on a terminal only (a large trace takes seconds to tens of seconds).
  TraceReadOptions ro;
  if (isatty(fileno(stderr)) != 0)
    ro.progress = [](std::int64_t done, std::int64_t total) {
      if (total > 0)
        std::cerr << fmt::format("\rreading traces: {:.0f}%\033[K", 100.0 * done / total)
                  << std::flush;
    };
  std::vector<TorchTrace> traces = read_torch_traces(a.traces, ro);
  if (ro.progress) std::cerr << "\r\033[K" << std::flush;
  std::vector<int> picked;
  for (auto& t : traces) picked.push_back(pick_step(t, a.step));
  const Timeline tl = simulate(sc);
  const StepReport r = make_report(tl);
  const MeasuredDiff d = make_measured_diff(tl, r, traces, picked);
  if (!a.trace_out.empty()) write_measured_trace_file(tl, traces, picked, a.trace_out);
  std::cout << (a.json ? json_text(measured_diff_to_json(d), 2) + "\n"
                       : format_measured_diff(d, a.kernels, a.most));
  if (!a.trace_out.empty() && !a.json) std::cout << trace_written(a.trace_out);
  return 0;
}

// `trainsim check`: each scenario's prediction against its `measured:` figure, then the mean
// and largest error. Exit 3 when a bound given on the command line is exceeded.
int cmd_check(const CheckArgs& a) {
  std::vector<CheckedCase> cases;
  std::size_t i = 0;
  for (const auto& path : a.scenarios) {
    ++i;
    Scenario sc = load_scenario(path, a.sets);
    if (!sc.measured)
      throw ScenarioError(path, "measured",
                          "check needs a measured: section (one figure and its source) in every "
                          "scenario it is given");
    if (!a.json && !a.markdown && !a.validation_inc && isatty(STDERR_FILENO))
      std::cerr << fmt::format("\r[{}/{}] {}\x1b[K", i, a.scenarios.size(), sc.name) << std::flush;
    const Timeline tl = simulate(sc);
    StepReport r = make_report(tl);
    auto acc = accuracy(r, *sc.measured);
    if (!acc)
      throw ScenarioError(path, "measured",
                          "the simulated step lacks what this metric needs (tokens or FLOPs)");
    cases.push_back({std::move(r), *acc,
                     sc.measured->peak_memory ? make_memory_report(tl).measured : std::nullopt,
                     setting_values(sc)});
  }
  if (!a.json && !a.markdown && !a.validation_inc && isatty(STDERR_FILENO))
    std::cerr << "\r\x1b[K" << std::flush;
  if (a.validation_inc)
    std::cout << validation_inc(cases);
  else if (a.json)
    std::cout << json_text(check_to_json(cases), 2) << "\n";
  else
    std::cout << format_check(cases, a.markdown);
  const AccuracySummary sum = summarize(cases);
  bool failed = false;
  if (a.max_mean_error >= 0 && sum.mean_abs_error * 100 > a.max_mean_error) {
    std::cerr << fmt::format("check: mean |error| {:.2f}% exceeds --max-mean-error {}%\n",
                             sum.mean_abs_error * 100, a.max_mean_error);
    failed = true;
  }
  if (a.max_mean_memory_error >= 0) {
    const AccuracySummary mem = summarize_memory(cases);
    if (mem.cases == 0) {
      std::cerr
          << "check: --max-mean-memory-error needs a case with measured.peak_memory (none here)\n";
      failed = true;
    } else if (mem.mean_abs_error * 100 > a.max_mean_memory_error) {
      std::cerr << fmt::format(
          "check: mean |memory error| {:.2f}% exceeds --max-mean-memory-error {}%\n",
          mem.mean_abs_error * 100, a.max_mean_memory_error);
      failed = true;
    }
  }
  if (a.max_error >= 0 && sum.max_abs_error * 100 > a.max_error) {
    std::cerr << fmt::format("check: max |error| {:.2f}% exceeds --max-error {}%\n",
                             sum.max_abs_error * 100, a.max_error);
    failed = true;
  }
  if (a.min_ordered_pairs >= 0) {
    const RankingSummary t = summarize(rank_series(cases));
    const double share = t.pairs ? 100.0 * t.ordered_right / t.pairs : 0.0;
    if (t.pairs == 0) {
      std::cerr << "check: --min-ordered-pairs needs a pair to order: two runs that share a "
                   "measured.series with different measured figures (none here)\n";
      failed = true;
    } else if (share < a.min_ordered_pairs) {
      std::cerr << fmt::format(
          "check: {} of {} pairs ordered right ({:.1f}%), below --min-ordered-pairs {}%\n",
          t.ordered_right, t.pairs, share, a.min_ordered_pairs);
      failed = true;
    }
  }
  if (a.max_mean_change_error >= 0) {
    const ChangeSummary c = summarize(setting_changes(cases));
    if (c.changes == 0) {
      std::cerr << "check: --max-mean-change-error needs a setting change: two runs that share a "
                   "measured.series, differ in one or two settings and were measured apart (none "
                   "here)\n";
      failed = true;
    } else if (c.mean_abs_error * 100 > a.max_mean_change_error) {
      std::cerr << fmt::format(
          "check: the predicted setting changes are off the measured ones by a mean {:.2f} "
          "points, past --max-mean-change-error {}\n",
          c.mean_abs_error * 100, a.max_mean_change_error);
      failed = true;
    }
  }
  return failed ? 3 : 0;
}

// `trainsim memory`: the static breakdown per stage and the peak from the simulated timeline.
int cmd_memory(const RunArgs& a) {
  Scenario sc = load_scenario(a.scenario, a.sets);
  if (!sc.model)
    throw ScenarioError(sc.source, "model",
                        "memory needs a model (bytes come from its layers); this scenario only "
                        "gives costs");
  TerminalProgress progress;
  const MemoryReport mem =
      make_memory_report(simulate(sc, {a.schedule, !a.no_fold, nullptr, progress.callback()}));
  progress.clear();
  if (a.json)
    std::cout << json_text(memory_to_json(mem), 2) << "\n";
  else
    std::cout << format_memory(mem);
  return 0;
}

int cmd_compare(const CompareArgs& a, bool schedules_given) {
  std::vector<Scenario> scenarios;
  for (const std::string& path : a.scenarios) scenarios.push_back(load_scenario(path, a.sets));
  // One scenario: every schedule by default. Several: each under its own schedule, unless
  // --schedules names some (then each scenario under each of them).
  const bool several = scenarios.size() > 1;
  std::vector<std::string> names;
  if ((!several && a.vary.empty()) || schedules_given) {
    names = a.schedules == "all" ? schedule_names() : split_names(a.schedules);
    if (names.empty()) throw InputError("--schedules: give at least one schedule name, or all");
  }
  // One retry rule and one row per schedule (run/variants.h), the GUI's Compare tab too.
  const SimulateOptions opt{"", !a.no_fold, nullptr};
  std::vector<VariantResult> variants;
  if (!a.vary.empty()) {  // edits of one scenario, each under its schedule (or --schedules)
    if (several) throw InputError("compare: --vary edits one scenario; give one file");
    variants = simulate_variants(scenarios[0], vary(a.vary, &scenarios[0]),
                                 schedules_given ? names : std::vector<std::string>{}, opt,
                                 /*jobs: every core*/ 0);
  } else {
    variants = several ? simulate_scenarios(scenarios, names, opt)
                       : simulate_schedules(scenarios[0], names, opt);
  }
  std::vector<ComparedSchedule> rows;
  std::vector<const Timeline*> timelines;
  std::vector<std::string> skipped;
  for (const auto& v : variants) {
    if (!v.ran()) {
      skipped.push_back(v.label() + ": " + v.error);
      continue;
    }
    timelines.push_back(v.timeline.get());
    rows.push_back(
        {make_report(*v.timeline), make_memory_report(*v.timeline), v.label(), v.retried});
  }
  if (rows.empty())
    throw ScheduleError(std::string(!a.vary.empty() ? "none of these variants can run:\n"
                                    : several       ? "none of these scenarios can run:\n"
                                                    : "no schedule can run this scenario:\n") +
                        fmt::format("{}", fmt::join(skipped, "\n")));
  std::vector<std::string> written;
  if (!a.trace_dir.empty())
    for (std::size_t i = 0; i < timelines.size(); ++i) {
      const Timeline* tl = timelines[i];
      // Several scenarios may share a name (two files called default.yaml): number the files.
      const std::string path =
          (std::filesystem::path(a.trace_dir) /
           ((several ? fmt::format("{}.", i + 1) : "") + file_name_component(tl->scenario.name) +
            "." + file_name_component(tl->schedule.name) + ".json"))
              .string();
      write_chrome_trace_file(*tl, path);
      written.push_back(path);
    }
  if (a.json) {
    auto j = comparison_to_json(rows);
    j["skipped"] = skipped;
    std::cout << json_text(j, 2) << "\n";
    return 0;
  }
  std::cout << format_comparison(rows);
  for (const auto& s : skipped) std::cout << "skipped " << s << "\n";
  for (const auto& w : written) std::cout << trace_written(w);
  return 0;
}

// "off"/"on" (or false/true, 0/1) flags of a search dimension, as 0/1.
std::vector<int> switches(const std::vector<std::string>& given, const char* flag) {
  std::vector<int> out;
  for (const auto& v : given) {
    if (v == "off" || v == "false" || v == "0")
      out.push_back(0);
    else if (v == "on" || v == "true" || v == "1")
      out.push_back(1);
    else
      throw InputError(fmt::format("search: {} takes off, on; got \"{}\"", flag, v));
  }
  return out;
}

int cmd_search(const SearchArgs& a, const mpi::World* world) {
  const Scenario sc = load_scenario(a.scenario, a.sets, fill_gpus_with_dp);
  SearchSpace space;
  space.tp = a.tp;
  space.pp = a.pp;
  space.vpp = a.vpp;
  space.ep = a.ep;
  for (const auto& v : a.etp) {
    if (v != "tp" && v != "1")
      throw InputError(fmt::format(
          "search: --etp takes tp (each expert split over the TP ranks) or 1 (each expert whole "
          "on its rank), comma-separated; got \"{}\"",
          v));
    space.etp.push_back(v == "1" ? 1 : 0);
  }
  space.cp = a.cp;
  space.offload_activations = a.offload_activations;
  space.micro_batch_sizes = a.micro_batch_sizes;
  if (!a.schedules.empty())
    space.schedules = a.schedules == "all" ? schedule_names() : split_names(a.schedules);
  space.zero = a.zero;
  space.sequence_parallel = switches(a.sp, "--sp");
  space.tp_overlap = switches(a.tp_overlap, "--tp-overlap");
  for (const auto& v : a.recompute) {
    const auto modes = {Recompute::None, Recompute::Selective, Recompute::Full};
    const auto it = std::find_if(modes.begin(), modes.end(),
                                 [&](Recompute r) { return v == recompute_name(r); });
    int layers = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), layers);
    if (it != modes.end())
      space.recompute.push_back(*it);
    else if (!v.empty() && ec == std::errc() && end == v.data() + v.size() && layers >= 1)
      space.recompute_layers.push_back(layers);
    else
      throw InputError(fmt::format(
          "search: --recompute takes none, selective, full or a number of layers per stage "
          "(full recompute of the first N); got \"{}\"",
          v));
  }
  for (const auto& v : a.precision) {
    const auto all = {Precision::BF16, Precision::FP16, Precision::FP8};
    const auto it =
        std::find_if(all.begin(), all.end(), [&](Precision p) { return v == precision_name(p); });
    if (it == all.end())
      throw InputError(fmt::format(
          "search: --precision takes bf16, fp16 or fp8 (comma-separated); got \"{}\"", v));
    space.precision.push_back(*it);
  }
  for (const auto& v : a.offload) {
    const auto all = {Offload::None, Offload::Optimizer};
    const auto it =
        std::find_if(all.begin(), all.end(), [&](Offload o) { return v == offload_name(o); });
    if (it == all.end())
      throw InputError(fmt::format(
          "search: --offload takes none or optimizer (comma-separated); got \"{}\"", v));
    space.offload.push_back(*it);
  }
  const auto ends_with = [&](std::string_view ext) {
    return a.plot.size() > ext.size() && a.plot.substr(a.plot.size() - ext.size()) == ext;
  };
  const bool png = ends_with(".png");
  if (!a.plot.empty() && !png && !ends_with(".svg"))
    throw InputError(fmt::format(
        "search: --plot writes SVG or PNG by the file's extension: give a name ending in .svg "
        "or .png, got \"{}\"",
        a.plot));
#ifndef TRAINSIM_WITH_PNG
  if (png)
    throw InputError(fmt::format(
        "search: --plot {}: this trainsim was built without Qt6 (TRAINSIM_BUILD_GUI=OFF or Qt6 "
        "not found), which draws PNG; write .svg, or rebuild with Qt6",
        a.plot));
#endif
  SearchOptions options;
  options.jobs = a.jobs;
  if (!a.headroom.empty()) {
    std::string h = a.headroom;
    if (h.back() == '%') h.pop_back();
    double v = 0;
    const auto [end, ec] = std::from_chars(h.data(), h.data() + h.size(), v);
    if (h.empty() || ec != std::errc() || end != h.data() + h.size() || !(v >= 0 && v <= 90))
      throw InputError(fmt::format(
          "search: --headroom takes a percent of device memory from 0 to 90, e.g. 10%; got "
          "\"{}\"",
          a.headroom));
    // A percent, as check's bounds read; a bare number under 1 may have been meant as a share.
    if (a.headroom.back() != '%' && v > 0 && v < 1)
      fmt::print(stderr,
                 "search: --headroom {} keeps {:g} % of device memory free (a percent: 10 % is "
                 "--headroom 10 or 10%)\n",
                 a.headroom, v);
    options.headroom = v / 100;
  }
  // Progress on stderr: on a terminal one line, rewritten, with the time taken and left; in a
  // pipe or a CI log nothing for a quick search, and a line per tenth once one has taken 2 s.
  const bool tty = isatty(fileno(stderr)) != 0;
  const auto started = std::chrono::steady_clock::now();
  int printed_tenth = 0;
  const auto progress = [&](std::size_t done, std::size_t total) {
    if (done % 16 != 0 && done != total) return;  // a line per 16: cheap for big searches
    const double taken =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const double left = done > 0 ? taken * static_cast<double>(total - done) / done : 0;
    if (tty) {
      std::cerr << fmt::format("\rsearch: {}/{} layouts · {:.0f} s, about {:.0f} s left\033[K",
                               done, total, taken, left)
                << (done == total ? "\r\033[K" : "") << std::flush;
      return;
    }
    const int tenth = total > 0 ? static_cast<int>(10 * done / total) : 10;
    if (taken < 2 || tenth <= printed_tenth) return;
    printed_tenth = tenth;
    std::cerr << fmt::format("search: {}% ({}/{} layouts) in {:.0f} s{}\n", 10 * tenth, done, total,
                             taken, done < total ? fmt::format(", about {:.0f} s left", left) : "");
  };
  if (world && world->size() > 1 && world->rank() == 0)
    std::cerr << fmt::format("search: the layouts split over {} MPI processes on {} node{}\n",
                             world->size(), world->nodes(), world->nodes() == 1 ? "" : "s");
  const std::vector<SearchResult> results =
      world ? search_layouts(*world, sc, space, options,
                             world->rank() == 0
                                 ? std::function<void(std::size_t, std::size_t)>(progress)
                                 : nullptr)
            : search_layouts(sc, space, options, progress);
  if (world && world->rank() != 0) return 0;  // rank 0 has them all and writes
  if (!a.plot.empty()) {
    const std::string svg = search_plot_svg(sc, results, options);
#ifdef TRAINSIM_WITH_PNG
    if (png) {
      write_output_file(a.plot, svg_to_png(svg), "plot file");
    } else
#endif
      write_output_file(a.plot, svg, "plot file");
    std::cerr << "plot written to " << a.plot << "\n";
  }
  if (a.json)
    std::cout << json_text(search_to_json(sc, results, options), 2) << "\n";
  else if (a.csv)
    std::cout << search_to_csv(sc, results);
  else
    std::cout << format_search(sc, results, a.top, options);
  return 0;
}

std::map<std::string, std::string> option_map(const std::vector<std::string>& kvs) {
  std::map<std::string, std::string> out;
  for (const auto& kv : kvs) {
    const auto eq = kv.find('=');
    out[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return out;
}

// The largest step × rank grid or Gantt `schedule` prints; past it, a summary.
constexpr int kMaxGridRanks = 256;
constexpr int kMaxGridSteps = 2000;

void print_grid(const Schedule& s);
int schedule_of_scenario(const ScheduleArgs& a);

// A simulated step's ASCII Gantt, or a line saying its ranks are too many to draw.
void print_gantt(const Timeline& tl, int width) {
  if (tl.schedule.ranks <= kMaxGridRanks)
    std::cout << format_gantt(tl, width);
  else
    std::cout << fmt::format("{}: {} ranks are too many rows to draw (at most {}); the step:\n",
                             tl.schedule.name, tl.schedule.ranks, kMaxGridRanks);
}

int cmd_schedule(const ScheduleArgs& a) {
  if (a.list) {
    for (const auto& e : schedule_entries()) {
      std::string aliases;
      for (const auto& al : e.aliases) aliases += (aliases.empty() ? " (alias " : ", ") + al;
      if (!aliases.empty()) aliases += ")";
      std::cout << fmt::format("{:<18} {}{}\n", e.name, e.summary, aliases);
    }
    return 0;
  }
  if (!a.scenario.empty()) return schedule_of_scenario(a);
  if (!a.csv.empty()) {
    // A CSV schedule has its own ranks, micro-batches and chunks: flags that would change them
    // are not silently dropped.
    std::vector<std::string> ignored;
    for (const std::string& f : a.flags_given)
      if (f == "--pp" || f == "--microbatches" || f == "--vpp" || f == "--option")
        ignored.push_back(f);
    if (a.schedule_given) ignored.push_back("--schedule");
    if (!ignored.empty())
      throw InputError(fmt::format(
          "{}: --csv {} is a whole schedule, its ranks, micro-batches and chunks its own: leave "
          "{} out",
          fmt::join(ignored, ", "), a.csv, ignored.size() > 1 ? "them" : "it"));
  }
  Schedule s;
  if (!a.csv.empty()) {
    s = load_schedule_csv(a.csv);
    validate_schedule(s);
  } else {
    s = make_schedule(a.schedule, {a.pp, a.microbatches, a.vpp, option_map(a.options), {}});
  }
  if (!a.export_csv.empty()) {
    write_output_file(a.export_csv, schedule_to_csv(s), "schedule CSV");
    std::cout << "wrote " << a.export_csv << " (torch.distributed.pipelining CSV)\n";
    return 0;
  }
  if (a.timeline) {
    // Simulate the schedule as a costs-only pipeline study with the given per-stage costs. The
    // times are the user's options, each read by its scenario key's rule but named by the flag
    // ("--forward 1e300s: … too large"), not by --set lines the user did not type.
    std::vector<std::pair<std::string, std::string>> costs;  // (key=value, flag value)
    const auto cost = [&](const char* key, const char* flag, const std::string& value) {
      costs.emplace_back(fmt::format("costs.{}={}", key, value), fmt::format("{} {}", flag, value));
    };
    for (const auto& [flag, text] :
         {std::pair<const char*, const std::string&>{"--forward", a.forward},
          {"--backward", a.backward},
          {"--backward-input", a.backward_input},
          {"--backward-weight", a.backward_weight}}) {
      std::string why;
      const auto v =
          text.empty() ? std::optional<double>() : parse_quantity(text, Dimension::Time, &why);
      if (!text.empty() && !v) throw InputError(fmt::format("{} {}: {}", flag, text, why));
      if (v && *v <= 0)
        throw InputError(fmt::format("{} {}: a pass takes time: give more than 0", flag, text));
    }
    cost("forward", "--forward", a.forward);
    cost("p2p", "--p2p", a.p2p);
    if (!a.overlap.empty()) cost("forward_backward_overlap", "--overlap", a.overlap);
    const std::vector<std::string> sets{
        fmt::format("parallelism.pp={}", s.ranks), fmt::format("parallelism.vpp={}", s.vpp()),
        fmt::format("training.microbatches={}", s.microbatches),
        fmt::format("training.optimizer_post_validation={}", a.post_validation)};
    // A schedule that splits the backward into I and W, given only --backward: each half of it
    // (said below the chart), rather than an error about keys the user did not type.
    const bool splits = std::any_of(s.actions.begin(), s.actions.end(), [](const auto& list) {
      return std::any_of(list.begin(), list.end(),
                         [](const Action& x) { return x.op == Op::I || x.op == Op::W; });
    });
    std::string split_note;
    if (!a.backward_input.empty() || !a.backward_weight.empty()) {
      if (a.backward_input.empty() || a.backward_weight.empty())
        throw InputError("--backward-input and --backward-weight go together: give both");
      cost("backward_input", "--backward-input", a.backward_input);
      cost("backward_weight", "--backward-weight", a.backward_weight);
    } else if (splits) {
      std::string why;
      const auto b = parse_quantity(a.backward, Dimension::Time, &why);
      if (!b) throw InputError(fmt::format("--backward {}: {}", a.backward, why));
      const std::string half = format_time(*b / 2);
      costs.emplace_back(fmt::format("costs.backward_input={}s", *b / 2),
                         fmt::format("--backward {}", a.backward));
      costs.emplace_back(fmt::format("costs.backward_weight={}s", *b / 2),
                         fmt::format("--backward {}", a.backward));
      split_note = fmt::format(
          "{} splits the backward: input and weight gradients {} each, half of --backward {} "
          "(--backward-input, --backward-weight to set them)\n",
          s.name, half, a.backward);
    } else {
      cost("backward", "--backward", a.backward);
    }
    // The flags' values, as --set edits of the costs: an error in one names the flag.
    std::vector<std::string> all = sets;
    for (const auto& [edit, by] : costs) all.push_back(edit);
    Scenario sc;
    try {
      sc = parse_scenario("name: schedule\n", "trainsim schedule", all);
    } catch (const ScenarioError& e) {
      for (const auto& [edit, by] : costs)
        if (e.where() == "--set " + edit) throw e.relocated(by);
      throw;
    }
    sc.schedule.name = s.name;
    if (!a.csv.empty())
      sc.schedule.csv = a.csv;
    else
      sc.schedule.options = option_map(a.options);
    const Timeline tl = simulate(sc, {a.csv.empty() ? s.name : "", true});
    print_gantt(tl, a.width);
    const StepReport r = make_report(tl);
    std::cout << split_note;
    std::cout << fmt::format(
        "bubble {:.4f} of a balanced pipeline's time, {:.4f} over ideal compute{}\n",
        r.bubble_fraction_of_step, r.bubble_over_ideal,
        r.overlapped_steps ? fmt::format(" (steps overlap: period {}, one step alone {})",
                                         format_time(r.step_time_s), format_time(r.one_step_s))
                           : "");
    return 0;
  }
  print_grid(s);
  return 0;
}

// The action grid of `s`, each action one time unit, and the busiest rank's count.
void print_grid(const Schedule& s) {
  const UnitRun run = run_unit_steps(s);
  std::cout << fmt::format("{}: pp = {}, m = {}, vpp = {} (each action one time unit)\n", s.name,
                           s.ranks, s.microbatches, s.vpp());
  if (s.ranks <= kMaxGridRanks && run.makespan <= kMaxGridSteps) {
    std::cout << format_grid(s, run);
    std::cout << fmt::format(
        "cells: F forward, B backward or its halves I (input gradient) and W (weight gradient), "
        "then the micro-batch{}; A&B: two run as one overlapped action; .: idle\n",
        s.stages == s.ranks ? ""
        : s.chains == 2
            // DualPipe: its second pipeline's stages are copies of the model's, numbered on.
            ? fmt::format(" ({} stages on {} ranks, the stage first: {} pipelines of the model's "
                          "{} stages, each with its micro-batches; stages {}–{} are the second "
                          "pipeline's copies of model stages 0–{} (stage s runs model stage s − "
                          "{}), micro-batches {}–{})",
                          s.stages, s.ranks, s.chains, s.chain_stages(), s.chain_stages(),
                          2 * s.chain_stages() - 1, s.chain_stages() - 1, s.chain_stages(),
                          s.microbatches / s.chains, 2 * s.microbatches / s.chains - 1)
            : fmt::format(" ({} model stages on {} ranks: the stage first, 0F3 is stage 0's "
                          "forward of micro-batch 3)",
                          s.stages, s.ranks));
  } else
    std::cout << fmt::format(
        "(a grid of {} ranks × {} steps is too large to print: at most {} × {}; "
        "--export-csv FILE writes the schedule)\n",
        s.ranks, run.makespan, kMaxGridRanks, kMaxGridSteps);
  std::size_t busiest = 0;
  for (const auto& list : s.actions) busiest = std::max(busiest, list.size());
  std::cout << fmt::format("{} time units; the busiest rank runs {} actions\n", run.makespan,
                           busiest);
}

// `schedule SCENARIO`: the scenario's own schedule (its name and options, pp, vpp, micro-batch
// count; -s for another), as a grid, a CSV, or with --timeline its simulated step's Gantt.
int schedule_of_scenario(const ScheduleArgs& a) {
  if (!a.flags_given.empty())
    throw InputError(fmt::format(
        "{}: with a scenario, the pipeline is the scenario's: change it with --set (e.g. "
        "--set parallelism.pp=8, --set training.microbatches=16, --set parallelism.vpp=2, "
        "--set schedule.csv=FILE, --set costs.forward=2ms for a costs-only scenario), or leave "
        "the scenario out to describe a pipeline by flags",
        fmt::join(a.flags_given, ", ")));
  const Scenario sc = load_scenario(a.scenario, a.sets);
  const std::string name = a.schedule_given ? a.schedule : "";
  const auto cost = make_cost_model(sc);
  const Schedule s = schedule_for(sc, name, cost.get());
  if (!a.export_csv.empty()) {
    write_output_file(a.export_csv, schedule_to_csv(s), "schedule CSV");
    std::cout << "wrote " << a.export_csv << " (torch.distributed.pipelining CSV)\n";
    return 0;
  }
  if (!a.timeline) {
    std::cout << fmt::format("{}: {}\n", sc.source.empty() ? sc.name : sc.source,
                             a.schedule_given ? "its pipeline under -s" : "its schedule");
    print_grid(s);
    return 0;
  }
  const Timeline tl = simulate(sc, s, *cost, {name, true});
  print_gantt(tl, a.width);
  const StepReport r = make_report(tl);
  std::cout << fmt::format(
      "{}: step {}, bubble {:.4f} of a balanced pipeline's time (trainsim run for the report)\n",
      sc.source.empty() ? sc.name : sc.source, format_time(r.step_time_s),
      r.bubble_fraction_of_step);
  return 0;
}

// A subcommand that reads a scenario: its positional file and the repeatable --set.
// `scenario` is one path (std::string) or several (std::vector<std::string>).
template <typename Paths>
CLI::App* scenario_command(CLI::App& app, const std::string& name, const std::string& help,
                           Paths& scenario, std::vector<std::string>& sets,
                           const std::string& file_help = "Scenario YAML file") {
  CLI::App* sub = app.add_subcommand(name, help);
  sub->add_option("scenario", scenario, file_help)->required()->check(CLI::ExistingFile);
  // The sections come from the scenario's key table (scenario/scenario_schema.h).
  std::string sections;
  for (const std::string& k : keys_under(""))
    sections += (sections.empty() ? "" : ", ") + k + (is_section(k) ? ".*" : "");
  // One value each time (allow_extra_args false): scenario files after it stay positional.
  sub->add_option(
         "--set", sets,
         "Override a scenario key, e.g. --set parallelism.pp=4 (repeatable; KEY=null removes "
         "it, its default then holds); keys: " +
             sections + " (scenarios/README.md)")
      ->allow_extra_args(false);
  return sub;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"trainsim: simulate one distributed LLM training step — schedules, bubbles, MFU"};
  app.set_version_flag("--version", std::string("trainsim ") + TRAINSIM_VERSION);
  app.require_subcommand(1);

  RunArgs ra;
  auto* run = scenario_command(app, "run", "Simulate one step of a scenario and print its report",
                               ra.scenario, ra.sets);
  run->add_option("--schedule", ra.schedule, "Use this schedule instead of the scenario's")
      ->check(kNotEmpty);
  run->add_flag("--json", ra.json, "Print the report as JSON");
  run->add_option("--trace", ra.trace,
                  "Write a Chrome trace JSON (Perfetto) to this path (missing folders are created)")
      ->check(kPath);
  run->add_flag("--no-fold", ra.no_fold,
                "Simulate every rank (no folding of identical TP/DP peers)");

  RunArgs ma;
  auto* mem = scenario_command(
      app, "memory",
      "Print each stage's memory per GPU: weights, gradients, optimizer, activations, "
      "buffers, and the peak over the simulated step",
      ma.scenario, ma.sets);
  mem->add_option("--schedule", ma.schedule, "Use this schedule instead of the scenario's")
      ->check(kNotEmpty);
  mem->add_flag("--json", ma.json, "Print as JSON");

  CompareArgs ca;
  auto* cmp = scenario_command(
      app, "compare",
      "Simulate a scenario under several schedules, or several scenarios (A/B: each under its "
      "own schedule), side by side",
      ca.scenarios, ca.sets, "Scenario YAML file, or several to compare (--set applies to each)");
  auto* cmp_schedules =
      cmp->add_option("--schedules,--schedule", ca.schedules,
                      "Comma-separated schedule names, or all (the default for one scenario; "
                      "several scenarios run their own unless this is given). Each runs at the "
                      "scenario's vpp or, if it cannot, at the nearest it takes (the row says "
                      "so); one that still cannot run is listed as skipped")
          ->capture_default_str();
  cmp->add_option(
         "--vary", ca.vary,
         "KEY=V1,V2,… : compare edits of the scenario instead, one row per value (each "
         "under the scenario's schedule, or each of --schedules); repeat it for every "
         "combination, e.g. --vary parallelism.zero=0,1,3 --vary training.recompute="
         "none,full (each key once). Each value is read by the key's rule, as in the file, "
         "before anything runs (one it refuses is an error); an edit that reads but "
         "cannot run is listed as skipped. Unless dp is varied too, a variant of tp, pp, cp "
         "or the GPU count takes dp = GPUs / (tp · pp · cp) where that divides (its row says "
         "'(dp N)'). A YAML list keeps commas inside values: "
         "parallelism.rank_order='[\"tp,dp,pp\", \"dp,tp,pp\"]'. Keys that rebuild "
         "the scenario (model, cluster.gpu, the schedule) and list values do not vary: "
         "compare one file for each model or GPU, --schedules for schedules")
      ->type_name("KEY=V1,V2");
  cmp->add_flag("--json", ca.json, "Print the comparison as JSON");
  cmp->add_option("--trace-dir", ca.trace_dir,
                  "Write one Chrome trace per schedule into this folder (created if missing)")
      ->check(kPath);
  cmp->add_flag("--no-fold", ca.no_fold, "Simulate every rank");

  SearchArgs xa;
  auto* srch = scenario_command(
      app, "search",
      "Try every parallel layout (tp, pp, dp, ZeRO stage, sequence parallelism, recompute; "
      "optionally vpp, micro-batch size, schedules, TP overlap, expert and context "
      "parallelism, precision, optimizer and activation offload) of the scenario's GPUs and "
      "global batch, and rank those that fit by step time" +
          std::string(mpi::built_with_mpi()
                          ? "; under mpirun -np N the layouts are split over the N processes "
                            "(rank 0 prints)"
                          : ""),
      xa.scenario, xa.sets,
      "Scenario YAML file (needs a model and a cluster; a layout it gives for another GPU "
      "count, as after --set cluster.nodes=N, is refitted: dp fills the GPUs)");
  srch->add_option("--tp", xa.tp, "TP sizes to try (default: powers of two up to a node)")
      ->delimiter(',');
  srch->add_option("--pp", xa.pp, "PP sizes to try (default: every divisor of GPUs / tp)")
      ->delimiter(',');
  srch->add_option("--vpp", xa.vpp,
                   "Chunks per rank to try, each with the schedules that take it (default: the "
                   "scenario's, or the nearest a schedule takes: zb-v and dualpipe-v 2)")
      ->delimiter(',');
  srch->add_option(
          "--ep", xa.ep,
          "Expert-parallel degrees to try for a mixture of experts (default: the "
          "scenario's; those not dividing dp · cp, or tp · dp · cp with parallelism.etp 1, and the "
          "experts are left out)")
      ->delimiter(',');
  srch->add_option("--etp", xa.etp,
                   "Expert tensor parallelism to try for a mixture of experts under TP: tp (each "
                   "expert split over the TP ranks), 1 (each whole on its rank, routing its own "
                   "sequence-parallel tokens; needs --sp on), or tp,1 (default: the scenario's "
                   "parallelism.etp)")
      ->delimiter(',');
  srch->add_option("--offload-activations", xa.offload_activations,
                   "Activation offload to try, layers per stage (0 = off; default: the "
                   "scenario's), e.g. 0,4,100")
      ->delimiter(',');
  srch->add_option("--cp", xa.cp,
                   "Context-parallel degrees to try (default: the scenario's; dp = GPUs / (tp × "
                   "pp × cp); those whose 2 × cp does not divide the sequence are left out)")
      ->delimiter(',');
  srch->add_option("--micro-batch-sizes,-b", xa.micro_batch_sizes,
                   "Micro-batch sizes to try (default: the scenario's)")
      ->delimiter(',');
  srch->add_option("--schedules", xa.schedules,
                   "Comma-separated schedules to try, or all (default: the scenario's)")
      ->check(kNotEmpty);
  srch->add_option("--zero", xa.zero, "ZeRO stages to try (default: 0,1,2,3; only 0 at dp 1)")
      ->delimiter(',');
  srch->add_option("--sp", xa.sp, "Sequence parallelism: off,on (default: both; only off at tp 1)")
      ->delimiter(',');
  srch->add_option("--recompute", xa.recompute,
                   "Recompute modes to try: none,selective,full, or N: full recompute of the "
                   "first N layers of each stage (default: none,selective,full); selective "
                   "recomputes the scenario's training.recompute_modules (default: the "
                   "attention core)")
      ->delimiter(',');
  srch->add_option("--tp-overlap", xa.tp_overlap,
                   "TP comm-GEMM overlap: off,on (default: the scenario's; only off at tp 1)")
      ->delimiter(',');
  srch->add_option("--offload", xa.offload,
                   "Optimizer offload to try: none,optimizer (default: the scenario's; needs ZeRO "
                   "1-3, not tried at ZeRO-0 nor with training.optimizer: sgd)")
      ->delimiter(',');
  srch->add_option("--precision", xa.precision,
                   "Training precisions to try: bf16,fp16,fp8 (default: the scenario's; fp8 "
                   "needs a Hopper or Blackwell GPU)")
      ->delimiter(',');
  srch->add_option("--headroom", xa.headroom,
                   "Percent of device memory to keep free, e.g. 10 or 10% (default: 0)");
  srch->add_option("--jobs,-j", xa.jobs,
                   "Threads simulating candidates, 0 = all cores (default: 0; under mpirun, the "
                   "node's cores over its processes)")
      ->check(CLI::Range(0, 1024));
  srch->add_flag("--csv", xa.csv, "Print every candidate, ranked, as CSV");
  srch->add_option("--plot", xa.plot,
                   "Also write step time against peak memory of every candidate to this .svg or "
                   ".png file")
      ->check(kPath);
  srch->add_option("--top", xa.top, "Rows of the ranked table")
      ->capture_default_str()
      ->transform(at_least(1, true));
  srch->add_flag("--json", xa.json, "Print every candidate, ranked, as JSON")->excludes("--csv");

  CheckArgs ka;
  auto* chk = app.add_subcommand(
      "check",
      "Simulate scenarios that carry a measured: figure (a published or measured run) and "
      "print predicted against measured, with the mean and largest step-time error, overall, "
      "per GPU, per training.runtime and per tensor-parallel degree, how well runs "
      "measured together (measured.series) are ranked, how far each is off at the pace "
      "its series' other runs measured, and what each change of one or two settings between "
      "two of a series' runs did to the cost per token, measured and predicted");
  chk->add_option("scenarios", ka.scenarios, "Scenario YAML files, each with a measured: section")
      ->required()
      ->check(CLI::ExistingFile);
  chk->add_option("--set", ka.sets,
                  "Override a scenario key in every scenario, e.g. --set "
                  "cluster.gpu_speed_spread=0 (repeatable; scenarios/README.md): what one "
                  "assumption does to every case")
      ->allow_extra_args(false);
  chk->add_flag("--json", ka.json, "Print the cases and the summary as JSON");
  chk->add_flag("--markdown", ka.markdown, "Print the table as Markdown (for a README)");
  chk->add_flag("--validation-inc", ka.validation_inc,
                "Print the per-GPU summary as sim/report/data/validation.inc, the record every "
                "report quotes (run over the whole suite: tests/published/README.md)")
      ->excludes("--json")
      ->excludes("--markdown")
      ->excludes("--set");
  chk->add_option("--max-mean-error", ka.max_mean_error,
                  "Exit 3 when the mean |step-time error| exceeds this many percent (5 or 5%)")
      ->transform(percentage(std::numeric_limits<double>::infinity()));
  chk->add_option("--max-error", ka.max_error,
                  "Exit 3 when any case's |step-time error| exceeds this many percent")
      ->transform(percentage(std::numeric_limits<double>::infinity()));
  chk->add_option("--max-mean-memory-error", ka.max_mean_memory_error,
                  "Exit 3 when the mean |error| of the memory peaks logged (measured.peak_memory) "
                  "exceeds this many percent")
      ->transform(percentage(std::numeric_limits<double>::infinity()));
  chk->add_option("--min-ordered-pairs", ka.min_ordered_pairs,
                  "Exit 3 when fewer than this many percent of the series' pairs of runs are "
                  "ordered right (fastest first, as measured)")
      ->transform(percentage());
  chk->add_option("--max-mean-change-error", ka.max_mean_change_error,
                  "Exit 3 when the setting changes (two runs of a series one or two settings "
                  "apart: the second's cost per token over the first's) are predicted off the "
                  "measured ones by a mean of more than this many points (4 or 4%)")
      ->transform(percentage(std::numeric_limits<double>::infinity()));

  KernelsArgs na;
  auto* krn = scenario_command(
      app, "kernels",
      "List the kernels of one micro-batch's forward and backward on a pipeline stage: time, "
      "share, achieved TFLOP/s or TB/s, and where each duration comes from",
      na.scenario, na.sets, "Scenario YAML file (needs a model)");
  krn->add_option("--stage", na.stage,
                  "Pipeline stage to list; with vpp > 1 a model chunk, 0 … pp·vpp − 1 (the "
                  "header names the rank that holds it)")
      ->capture_default_str();
  krn->add_flag("--json", na.json, "Print as JSON");

  DiffArgs da;
  auto* dif = scenario_command(
      app, "diff",
      "Put a measured step (PyTorch profiler traces, one JSON or JSON.gz file per rank, as "
      "torch.profiler writes them) beside the simulated one: GEMM, attention, memory-bound, "
      "optimizer, communication (exposed; by TP, DP, PP and EP where the trace gives group sizes), "
      "idle, per rank, with the error",
      da.scenario, da.sets, "Scenario YAML file (needs a model)");
  dif->add_option("traces", da.traces, "Kineto trace files (.json or .json.gz), one per rank")
      ->required()
      ->check(CLI::ExistingFile);
  dif->add_option("--step", da.step,
                  "ProfilerStep to compare (e.g. 12 or ProfilerStep#12), or a window of times "
                  "from each trace's first kernel (e.g. 1.2s..1.9s: the kernels starting in it); "
                  "default: the median-length step, skipping the first")
      ->check(kStep);
  dif->add_option("--trace", da.trace_out,
                  "Write one Chrome trace (Perfetto) with the simulated and the measured step")
      ->check(kPath);
  dif->add_flag("--json", da.json, "Print as JSON");
  auto* kernels_flag =
      dif->add_flag("--kernels", da.kernels,
                    "Also list, per compute category (GEMM, attention, memory-bound), the measured "
                    "kernels by family and the predicted kernels, longest first (JSON: always)");
  dif->add_option("--top", da.most, "With --kernels: how many of each list to show")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000))
      ->needs(kernels_flag);

  ScheduleArgs sa;
  auto* sch = app.add_subcommand(
      "schedule",
      "Print a schedule's action grid (one row per rank): a scenario's own, or one described by "
      "--pp, -m, --vpp and -s");
  sch->add_option("scenario", sa.scenario,
                  "Scenario YAML: its schedule (or -s), pp, vpp and micro-batches; with "
                  "--timeline its simulated step")
      ->check(CLI::ExistingFile);
  sch->add_option("--set", sa.sets, "With a scenario: override one of its keys (repeatable)")
      ->type_name("KEY=VALUE");
  sch->add_option("--pp", sa.pp, "Pipeline ranks")
      ->capture_default_str()
      ->transform(at_least(1, true));
  sch->add_option("--microbatches,-m", sa.microbatches, "Micro-batches")
      ->capture_default_str()
      ->transform(at_least(1, true));
  sch->add_option("--vpp", sa.vpp, "Model chunks per rank")
      ->capture_default_str()
      ->transform(at_least(1, true));
  sch->add_option("--schedule,-s", sa.schedule, "Schedule name (the names: --list)")
      ->capture_default_str();
  sch->add_flag("--list", sa.list, "List the registered schedules");
  sch->add_option("--option,-o", sa.options,
                  "A schedule option KEY=VALUE, repeatable (e.g. memory_limit=6 for zb-auto, "
                  "group_size=8 for interleaved-1f1b)")
      ->delimiter(',')
      ->check([](const std::string& kv) {
        return kv.find('=') == std::string::npos || kv.front() == '='
                   ? std::string("expected KEY=VALUE, e.g. memory_limit=6")
                   : std::string();
      });
  sch->add_option("--export-csv", sa.export_csv,
                  "Write the schedule as a torch.distributed.pipelining CSV instead of printing it")
      ->check(kPath);
  sch->add_flag("--timeline", sa.timeline,
                "Simulate the schedule with the costs below and draw an ASCII Gantt");
  sch->add_option("--width", sa.width,
                  "Gantt width in columns (default: wide enough for every task's label, 100 to "
                  "1000)")
      ->check(CLI::Range(10, kMaxGanttWidth));
  sch->add_option("--forward", sa.forward, "--timeline: forward time per stage")
      ->capture_default_str();
  sch->add_option("--backward", sa.backward, "--timeline: fused backward per stage")
      ->capture_default_str();
  sch->add_option("--backward-input", sa.backward_input,
                  "--timeline: input-gradient time (split backward)");
  sch->add_option("--backward-weight", sa.backward_weight,
                  "--timeline: weight-gradient time (split backward)");
  sch->add_option("--overlap", sa.overlap,
                  "--timeline: overlapped forward+backward time (dualpipe-v's F&B; default F + B)");
  sch->add_option("--p2p", sa.p2p, "--timeline: stage-to-stage transfer time")
      ->capture_default_str();
  sch->add_flag("--post-validation", sa.post_validation,
                "--timeline: steps overlap (Zero Bubble's optimizer post-validation): the step "
                "and the bubble are the longest stage's span, as the Zero Bubble paper counts "
                "them, and zb-auto minimises it");
  sch->add_option("--csv", sa.csv,
                  "Load a PyTorch CSV schedule (validated) instead of generating one")
      ->check(CLI::ExistingFile);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A misspelled command (`trainsim runn …`) reads to CLI11 as no command at all: name it.
    if (argc > 1 && argv[1][0] != '-' && app.get_subcommands().empty()) {
      std::vector<std::string> names;
      for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
      std::string hint;
      if (const auto n = nearest_name(argv[1], names))
        hint = fmt::format(" (did you mean `{}`?)", *n);
      fmt::print(stderr, "trainsim: unknown command \"{}\"{}; commands: {} (trainsim --help)\n",
                 argv[1], hint, fmt::join(names, ", "));
      return 2;
    }
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  // Started by mpirun: `search` splits its layouts over the processes and rank 0 alone prints;
  // every other command would only run N times over.
  std::optional<mpi::World> world;
  if (mpi::launched([](const char* v) { return std::getenv(v); })) world.emplace();
  const bool quiet = world && world->rank() != 0;
  try {
    if (world && !mpi::built_with_mpi())
      throw InputError(
          "trainsim: started by mpirun, but this trainsim was built without MPI (install an MPI, "
          "e.g. Debian's libopenmpi-dev, and rebuild); without mpirun, search uses every core");
    if (world && !*srch)
      throw InputError(
          "trainsim: under mpirun only `trainsim search` splits its work over the processes; "
          "start the other commands without mpirun");
    if (*run) return cmd_run(ra);
    if (*mem) return cmd_memory(ma);
    if (*cmp) return cmd_compare(ca, cmp_schedules->count() > 0);
    if (*srch) return cmd_search(xa, world ? &*world : nullptr);
    if (*sch) {
      sa.schedule_given = sch->count("--schedule") > 0;
      for (const char* flag :
           {"--pp", "--microbatches", "--vpp", "--option", "--csv", "--forward", "--backward",
            "--backward-input", "--backward-weight", "--overlap", "--p2p", "--post-validation"})
        if (sch->count(flag) > 0) sa.flags_given.push_back(flag);
      if (!sa.sets.empty() && sa.scenario.empty())
        throw InputError("--set edits a scenario's keys: give the scenario file first");
      return cmd_schedule(sa);
    }
    if (*chk) return cmd_check(ka);
    if (*krn) return cmd_kernels(na);
    if (*dif) return cmd_diff(da);
  } catch (const InputError& e) {  // the same on every process of an MPI job: rank 0 says it
    if (!quiet) std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "trainsim: internal error: " << e.what() << "\n";
    if (world) world->abort_job(1);  // the others would wait for this one's results
    return 1;
  }
  return 0;
}
