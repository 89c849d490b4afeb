// trainsim-calibrate: measured durations for trainsim's cost model. With gpu.cpp,
// device_info.cpp, gemm_bench.cpp and the *_command.cpp files (TRAINSIM_WITH_GPU), the only code
// that touches the CUDA runtime, cuBLASLt and NCCL; built without CUDA, with no_gpu.cpp instead:
// the importers only.
// Exit codes: 0 ok, 2 bad input or no usable GPU (one line on stderr), 1 a failed GPU call or
// an internal error.
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "commands.h"
#include "core/error.h"
#include "core/input_file.h"
#include "core/json_text.h"
#include "core/quantity.h"
#ifdef TRAINSIM_WITH_GPU
#include "core/mpi_job.h"
#include "device_info.h"
#include "gpu.h"
#endif
#include "nccl_tests.h"
#include "profile_update.h"
#include "scenario/scenario_loader.h"
#include "torch_trace_import.h"

namespace {

using namespace trainsim;

// `import-nccl-tests`: logs -> the profile's collectives.
int cmd_import(const std::vector<std::string>& logs, const std::string& out,
               const NcclTestsOptions& opt) {
  CalibrationProfile p;
  p.provenance.date = now_iso8601();
  std::vector<CollectiveSample> all;
  std::set<std::string> gpus, hosts, ncls;
  for (const auto& path : logs) {
    NcclTestsLog log = read_nccl_tests(read_input_file(path, "nccl-tests log"), path, opt);
    std::cout << fmt::format(
        "{}: {} sizes of {} over {} ranks (operation from the {}){}{}\n", path, log.samples.size(),
        log.samples.front().op, log.samples.front().group_size, log.op_from,
        log.gpu.empty() ? "" : ", " + log.gpu, log.nccl.empty() ? "" : ", NCCL " + log.nccl);
    if (!log.gpu.empty()) gpus.insert(log.gpu);
    if (!log.nccl.empty()) ncls.insert(log.nccl);
    hosts.insert(log.hosts.begin(), log.hosts.end());
    all.insert(all.end(), log.samples.begin(), log.samples.end());
  }
  // Logs of two GPUs (models, form factors or memory sizes) are two GPUs' timings: one profile
  // prices one.
  for (const auto& a : gpus)
    for (const auto& b : gpus)
      if (const std::string why = gpu_mismatch(a, b); !why.empty())
        throw InputError(fmt::format(
            "the logs were measured on different GPUs ({}: {}): a profile prices one GPU; "
            "import each GPU's logs into its own profile (--out)",
            fmt::join(gpus, ", "), why));
  p.collectives = merge_collective_samples(all);
  auto joined = [](const std::set<std::string>& v) {
    return fmt::format("{}", fmt::join(v, ", "));
  };
  p.provenance.device = joined(gpus);
  p.provenance.nccl = joined(ncls);
  p.provenance.host = joined(hosts);
  std::map<std::string, int> per_op;
  for (const auto& c : p.collectives) ++per_op[fmt::format("{}×{} {}", c.op, c.group_size, c.link)];
  const ProfileUpdate update = update_profile(out, p, ProfileSection::Collectives);
  std::cout << fmt::format("imported {} sizes ({} rows) from {} log(s) into {}{}:\n",
                           p.collectives.size(), all.size(), logs.size(), out, describe(update));
  for (const auto& [what, n] : per_op) std::cout << fmt::format("  {:<32} {} sizes\n", what, n);
  if (all.size() > p.collectives.size())
    std::cout << fmt::format("  {} repeated sizes merged: median time, spread_s = max − min\n",
                             all.size() - p.collectives.size());
  return 0;
}

// `import-torch-trace`: a real step's kernels (PyTorch profiler traces) as profile samples.
int cmd_import_trace(const std::vector<std::string>& traces, const std::string& scenario,
                     const std::vector<std::string>& sets, const std::string& out,
                     const std::string& step) {
  const Scenario sc = load_scenario(scenario, sets);
  TraceReadOptions ro;  // progress on a terminal only
  if (isatty(fileno(stderr)) != 0)
    ro.progress = [](std::int64_t done, std::int64_t total) {
      if (total > 0)
        std::cerr << fmt::format("\rreading traces: {:.0f}%\033[K", 100.0 * done / total)
                  << std::flush;
    };
  TorchTraceImport imp = import_torch_traces(read_torch_traces(traces, ro), sc, step);
  if (ro.progress) std::cerr << "\r\033[K" << std::flush;
  auto& p = imp.profile;
  p.provenance.date = now_iso8601();  // when imported (a trace does not say when it ran)
  if (p.gemms.empty() && p.memory.empty() && p.collectives.empty() && p.attention.empty())
    throw InputError(fmt::format(
        "nothing to import from {} step(s): no bf16/fp16 GEMM with a shape (record with "
        "torch.profiler.profile(record_shapes=True)), no device-to-device copy, no NCCL kernel "
        "with collective metadata (PyTorch 2.2 or later), no SDPA attention call with its shape "
        "and is_causal",
        imp.steps));
  const ProfileUpdate update = update_profile(out, p, ProfileSection::Both);
  std::cout << fmt::format("imported from {} trace(s), {} step(s), into {}{}:\n", traces.size(),
                           imp.steps, out, describe(update));
  std::cout << fmt::format("  GEMMs        {} shapes from {} calls{}\n", p.gemms.size(),
                           imp.gemm_calls,
                           imp.gemm_batched + imp.gemm_fp32 + imp.gemm_no_shape > 0
                               ? fmt::format(" (skipped: {} batched, {} not bf16/fp16, {} kernels "
                                             "without a shape)",
                                             imp.gemm_batched, imp.gemm_fp32, imp.gemm_no_shape)
                               : "");
  std::cout << fmt::format("  copies       {} sizes from {} device-to-device copies\n",
                           p.memory.size(), imp.copies);
  std::cout << fmt::format("  collectives  {} sizes from {} NCCL kernels{}\n", p.collectives.size(),
                           imp.collective_calls,
                           imp.collective_skipped > 0
                               ? fmt::format(" (skipped: {} without metadata or not a collective "
                                             "trainsim uses)",
                                             imp.collective_skipped)
                               : "");
  std::cout << fmt::format(
      "  attention    {} shapes from {} calls{}\n", p.attention.size(), imp.attention_calls,
      imp.attention_kernels > 0
          ? fmt::format(" (skipped: {} kernels without an SDPA operator's shape and is_causal)",
                        imp.attention_kernels)
          : "");
  return 0;
}

}  // namespace

// Every command's --out: a new file, or an existing profile of the same GPU model merged into.
constexpr const char* kOutHelp =
    "Profile to write, or to add to: a sample measured again replaces its old one, the others "
    "stay; a profile of another GPU model is refused";

int main(int argc, char** argv) {
  CLI::App app{
      "trainsim-calibrate: measured GPU and collective durations for trainsim.\n"
      "Profiles are JSON (calibrate/README.md); a scenario uses one with `calibration: P.json`.\n"
      "Every command adds to an existing --out profile of the same GPU (a sample measured again "
      "replaces its old one)."};
  app.set_version_flag("--version", "trainsim-calibrate " TRAINSIM_VERSION);
  app.require_subcommand(1);

  bool json = false;
  auto* dev = app.add_subcommand("device", "Describe the local GPUs and library versions");
  dev->add_flag("--json", json, "Print as JSON");

  GemmArgs ga;
  auto* gemm = app.add_subcommand(
      "gemm",
      "Time, on one GPU, the GEMM shapes a scenario runs (plus a sweep around them) and "
      "memory-bound copies from 256 KiB to 4 GiB");
  gemm->add_option("--scenario", ga.scenario, "Scenario YAML")
      ->required()
      ->check(CLI::ExistingFile);
  gemm->add_option("--set", ga.overrides, "Override a scenario key (key=value), repeatable");
  gemm->add_option("--out", ga.out, kOutHelp)->capture_default_str();
  gemm->add_option("--device", ga.device, "GPU index")->capture_default_str();
  gemm->add_option("--reps", ga.reps, "Timed runs per shape (median kept)")->capture_default_str();
  gemm->add_flag("--dry-run", ga.dry_run, "Print the shapes it would time; needs no GPU");

  CollectivesArgs ca;
  std::string max_bytes = "4GiB";
  auto* coll = app.add_subcommand(
      "collectives",
      std::string("Time NCCL all-reduce, all-gather, reduce-scatter, all-to-all and send/recv "
                  "over the local GPUs (one process, 2 or more GPUs), 1 KiB up to --max-bytes") +
#ifdef TRAINSIM_WITH_GPU
          (mpi::built_with_mpi()
               ? "; under mpirun (one process per GPU) across every GPU of the job, on one "
                 "node or many"
               : " (built without MPI: one node only)"));
#else
          " (this build has no CUDA: it cannot)");
#endif
  coll->add_option("--gpus", ca.gpus, "GPUs to use (0: all)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1 << 16));
  coll->add_option("--out", ca.out, kOutHelp)->capture_default_str();
  coll->add_option("--max-bytes", max_bytes, "Largest size S, e.g. 4GiB")->capture_default_str();
  coll->add_option("--iters", ca.iters, "Timed runs per size")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));

  std::vector<std::string> logs;
  std::string out = "calibration.json";
  auto* imp = app.add_subcommand(
      "import-nccl-tests",
      "Read nccl-tests logs (text or -J JSON, any version; mpirun or srun prefixes) into a "
      "calibration profile (no GPU needed); the same size in several logs is merged");
  imp->add_option("logs", logs, "nccl-tests output files")->required()->check(CLI::ExistingFile);
  imp->add_option("--out", out, kOutHelp)->capture_default_str();
  NcclTestsOptions nopt;
  imp->add_option("--op", nopt.op,
                  "The operation, when a log has no \"# Collective test starting:\" line, no "
                  "<op>_perf in its name and a bus factor that does not tell (all_reduce, "
                  "all_gather, reduce_scatter, alltoall, sendrecv)");
  imp->add_option("--ranks", nopt.ranks,
                  "The group size, when a log has no \"# Using devices\" Rank lines")
      ->check(CLI::Range(1, 1 << 24));
  imp->add_option("--link", nopt.link,
                  "intra_node or inter_node: where the ranks were, for a log whose Rank lines do "
                  "not name their hosts (default: inter_node when they name more than one)")
      ->check(CLI::IsMember({"intra_node", "inter_node"}));

  std::vector<std::string> trace_files, trace_sets;
  std::string trace_scenario, trace_out = "calibration.json", trace_step;
  auto* imt = app.add_subcommand(
      "import-torch-trace",
      "Read PyTorch profiler traces (Kineto JSON or JSON.gz, one per rank) into a calibration "
      "profile: bf16/fp16 GEMM times by shape, device-to-device copies, NCCL collective times "
      "by size (no GPU needed)");
  imt->add_option("traces", trace_files, "Kineto trace files")
      ->required()
      ->check(CLI::ExistingFile);
  imt->add_option("--scenario", trace_scenario,
                  "Scenario YAML (its GPUs per node decide whether a collective crossed nodes)")
      ->required()
      ->check(CLI::ExistingFile);
  imt->add_option("--set", trace_sets, "Override a scenario key (key=value), repeatable");
  imt->add_option("--out", trace_out, kOutHelp)->capture_default_str();
  imt->add_option("--step", trace_step,
                  "Read only this step of each trace: a ProfilerStep (e.g. 12 or ProfilerStep#12) "
                  "or a window of times from its first kernel (e.g. 1.2s..1.9s); default: every "
                  "step but the first of three or more");

  ValidateArgs va;
  auto* val = app.add_subcommand(
      "validate",
      "Run one pipeline stage's kernels for real, in schedule order (or, with --gpus N, the "
      "whole pipeline with NCCL send/recv between GPUs), and compare the measured time with "
      "trainsim's prediction from the same profile");
  val->add_option("--scenario", va.scenario, "Scenario YAML")->required()->check(CLI::ExistingFile);
  val->add_option("--profile", va.profile, "Calibration profile (from `gemm`)")
      ->required()
      ->check(CLI::ExistingFile);
  val->add_option("--set", va.overrides, "Override a scenario key (key=value), repeatable");
  val->add_option("--stage", va.stage, "Pipeline rank whose kernels run")->capture_default_str();
  val->add_option("--device", va.device, "GPU index (the first of --gpus)")->capture_default_str();
  val->add_option("--gpus", va.gpus,
                  "1: one stage on one GPU; N = parallelism.pp: the pipeline, one GPU per rank")
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    if (*dev) {
#ifdef TRAINSIM_WITH_GPU
      const auto j = describe_devices();
      std::cout << (json ? json_text(j, 2) + "\n" : describe_devices_text(j));
      return 0;
#else
      throw InputError(
          "trainsim-calibrate device: this build has no CUDA (CMake found no CUDA toolkit with "
          "NCCL); install one and rebuild to describe GPUs");
#endif
    }
    if (*gemm) return cmd_gemm(ga);
    if (*coll) {
      std::string why;
      const auto b = parse_quantity(max_bytes, Dimension::Bytes, &why);
      if (!b) throw InputError("--max-bytes: " + why);
      if (*b < 1024)  // the sweep starts at 1 KiB: checked before any GPU is touched
        throw InputError(fmt::format("--max-bytes {}: at least 1 KiB", max_bytes));
      ca.max_bytes = *b;
      return cmd_collectives(ca);
    }
    if (*imp) return cmd_import(logs, out, nopt);
    if (*imt) {
      if (imt->count("--step") > 0 && trace_step.empty())
        throw InputError(
            "--step: expected a step (12 or ProfilerStep#12) or a window (1.2s..1.9s), got "
            "nothing");
      return cmd_import_trace(trace_files, trace_scenario, trace_sets, trace_out, trace_step);
    }
    if (*val) return cmd_validate(va);
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
#ifdef TRAINSIM_WITH_GPU
  catch (const gpu::GpuError& e) {
    std::cerr << "trainsim-calibrate: " << e.what() << "\n";
    return 1;
  }
#endif
  catch (const std::exception& e) {
    std::cerr << "trainsim-calibrate: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
