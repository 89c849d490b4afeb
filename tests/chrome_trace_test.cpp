#include "report/chrome_trace.h"
#include "memory/footprint.h"
#include "report/memory_report.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_util.h"

using namespace trainsim;
using nlohmann::json;

namespace {

std::string trace_of(const Scenario& s) {
  std::ostringstream out;
  write_chrome_trace(simulate(s), out);
  return out.str();
}

// Strict structural checks of the Trace Event Format. Returns the problems found (empty when
// valid).
std::vector<std::string> check_trace(const json& t) {
  std::vector<std::string> bad;
  if (!t.is_object() || !t.contains("traceEvents") || !t["traceEvents"].is_array())
    return {"not an object with a traceEvents array"};
  if (t.contains("displayTimeUnit")) bad.push_back("displayTimeUnit must be left out");
  std::set<long long> named_pids;
  std::set<std::pair<long long, long long>> named_threads;
  std::map<std::pair<long long, long long>, std::vector<std::pair<double, double>>> slices;
  std::map<std::tuple<long long, long long, std::string>, std::multiset<double>> slice_starts;
  std::map<long long, std::vector<json>> flows;
  for (const auto& e : t["traceEvents"]) {
    const std::string ph = e.value("ph", "");
    if (!e.contains("pid") || !e["pid"].is_number_integer() || !e.contains("tid") ||
        !e["tid"].is_number_integer()) {
      bad.push_back("event without integer pid/tid: " + e.dump());
      continue;
    }
    const long long pid = e["pid"], tid = e["tid"];
    if (ph == "M") {
      const std::string n = e.value("name", "");
      if (n != "process_name" && n != "thread_name" && n != "process_sort_index" &&
          n != "thread_sort_index")
        bad.push_back("unknown metadata " + n);
      if (!e.contains("args") || e["args"].empty()) bad.push_back("metadata without args");
      if (n == "process_name") named_pids.insert(pid);
      if (n == "thread_name") named_threads.insert({pid, tid});
    } else if (ph == "X") {
      const double ts = e["ts"], dur = e["dur"];
      if (!(ts > 0)) bad.push_back("slice does not start above 0");
      if (dur < 0) bad.push_back("negative duration");
      if (!e["name"].is_string() || !e["cat"].is_string() || !e["args"].is_object())
        bad.push_back("slice without name, cat or args");
      slices[{pid, tid}].push_back({ts, ts + dur});
      slice_starts[{pid, tid, e["cat"]}].insert(ts);
    } else if (ph == "s" || ph == "f") {
      flows[e["id"].get<long long>()].push_back(e);
    } else if (ph == "C") {  // a counter: named, timed, numeric series in args
      if (!e["name"].is_string() || !e.contains("ts") || !(e["ts"].get<double>() > 0))
        bad.push_back("counter without name or positive ts");
      if (!e.contains("args") || !e["args"].is_object() || e["args"].empty())
        bad.push_back("counter without series");
      else
        for (const auto& [k, v] : e["args"].items())
          if (!v.is_number()) bad.push_back("counter series " + k + " is not a number");
      if (!named_pids.count(pid)) bad.push_back("counter on an unnamed process");
    } else {
      bad.push_back("unexpected phase " + ph);
    }
  }
  for (auto& [key, list] : slices) {
    if (!named_pids.count(key.first)) bad.push_back("unnamed process " + std::to_string(key.first));
    if (!named_threads.count(key)) bad.push_back("unnamed thread");
    std::sort(list.begin(), list.end());
    for (std::size_t i = 1; i < list.size(); ++i)
      if (list[i].first < list[i - 1].second - 1e-9) bad.push_back("slices overlap on one thread");
  }
  for (const auto& [id, pair] : flows) {
    if (pair.size() != 2 || pair[0]["ph"] != "s" || pair[1]["ph"] != "f") {
      bad.push_back("flow " + std::to_string(id) + " is not one s then one f");
      continue;
    }
    if (pair[1].value("bp", "") != "e") bad.push_back("flow end without bp e");
    if (pair[0]["cat"] != pair[1]["cat"]) bad.push_back("flow events differ in cat");
    for (const auto& e : pair)
      if (!slice_starts[{e["pid"], e["tid"], e["cat"]}].count(e["ts"].get<double>()))
        bad.push_back("flow event not at the start of a slice of its cat");
  }
  return bad;
}

}  // namespace

TEST_CASE("trace: structure follows the Chrome trace rules", "[trace]") {
  for (const Scenario& s : {test::pipeline(4, 8, 1, 2, 0.1), test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 8}
cluster: {gpu: h100-sxm, gpus_per_node: 8}
parallelism: {dp: 2, tp: 2, pp: 2}
)")}) {
    const json t = json::parse(trace_of(s));
    const auto problems = check_trace(t);
    INFO((problems.empty() ? "" : problems.front()));
    CHECK(problems.empty());
    CHECK(t["otherData"]["generator"] == "trainsim");
  }
}

TEST_CASE("trace: ZeRO-Offload's host work on threads of its own", "[trace][offload]") {
  // Llama-3.2-1B, dp 2, ZeRO-1, offload: the shard down and back on "host-link", Adam on
  // "host-cpu", category "offload"; still a valid trace.
  const json t = json::parse(trace_of(test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 2, offload: optimizer}
cluster: {gpu: h100-sxm, gpus_per_node: 2}
parallelism: {dp: 2, zero: 1}
)")));
  CHECK(check_trace(t).empty());
  std::set<std::string> threads;
  int offload = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") threads.insert(e["args"]["name"]);
    offload += e["ph"] == "X" && e["cat"] == "offload";
  }
  CHECK(threads.count("host-link"));
  CHECK(threads.count("host-cpu"));
  // The two DP ranks are identical and simulated once (folded): down, Adam, up.
  CHECK(offload == 3);
}

TEST_CASE("trace: processes are named by rank and coordinates, p2p gets flow arrows", "[trace]") {
  const std::string text = trace_of(test::pipeline(2, 2, 1, 2, 0.5));
  CHECK_THAT(text, Catch::Contains("rank 1 · pp 1 · tp 0 · dp 0"));
  const json t = json::parse(text);
  int flows = 0, sends = 0;
  for (const auto& e : t["traceEvents"]) {
    flows += e["ph"] == "s";
    sends += e["ph"] == "X" && e["args"]["op"].get<std::string>().rfind("send", 0) == 0;
  }
  // p = 2, m = 2: 2 activations forward + 2 gradients back, each one arrow.
  CHECK(sends == 4);
  CHECK(flows == 4);
}

TEST_CASE("trace: golden file for a tiny pipeline", "[trace][golden]") {
  // Regenerate with TRAINSIM_UPDATE_GOLDEN=1 ctest -R golden (then review the diff).
  const Scenario s = parse_scenario(
      "name: tiny\nparallelism: {pp: 2}\ntraining: {microbatches: 2}\nschedule: afab\n"
      "costs: {forward: 1ms, backward: 2ms, p2p: 0.5ms}\n",
      "tiny.yaml");
  const std::string text = trace_of(s);
  const std::string path = std::string(TRAINSIM_TESTS_DIR) + "/golden/tiny_trace.json";
  if (std::getenv("TRAINSIM_UPDATE_GOLDEN")) {
    std::ofstream(path) << text;
    WARN("golden trace rewritten: " << path);
  }
  std::ifstream in(path);
  REQUIRE(in);
  std::stringstream golden;
  golden << in.rdbuf();
  CHECK(text == golden.str());
  // The golden run is the hand-derived AFAB case: step 10 ms, as numbers.
  const json other = json::parse(text)["otherData"];
  CHECK(other["step_time_us"] == 10000.0);
  CHECK(other["one_step_us"] == 10000.0);
  CHECK(other["folded"] == true);
  CHECK(other["time_origin_us"] == 1.0);
}

TEST_CASE("trace: a divided backward numbers its pieces, and args hold no -1 placeholders",
          "[trace]") {
  // Llama-3.2-1B, pp 2 · dp 4, gradients reduced by bucket during the last backward: that
  // backward is cut at its buckets, one slice a piece on the same track.
  const json t = json::parse(trace_of(test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 2048, global_batch_size: 16}
cluster: {gpu: h100-sxm, gpus_per_node: 8}
parallelism: {pp: 2, dp: 4, overlap_grad_reduce: true}
)")));
  std::map<std::tuple<long long, long long, std::string>, std::vector<int>> pieces;
  std::map<std::tuple<long long, long long, std::string>, int> of;
  int dp = 0, optimizer = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const json& a = e["args"];
    for (const char* key : {"microbatch", "stage", "chunk"})
      if (a.contains(key)) CHECK(a[key].get<int>() >= 0);
    dp += a["op"] == "dp-collective" && !a.contains("microbatch");
    optimizer += a["op"] == "optimizer";
    if (!a.contains("parts")) continue;
    const auto key = std::make_tuple(e["pid"].get<long long>(), e["tid"].get<long long>(),
                                     e["name"].get<std::string>());
    pieces[key].push_back(a["part"].get<int>());
    of[key] = a["parts"].get<int>();
  }
  CHECK(dp > 0);  // the buckets' reductions, which belong to no micro-batch
  CHECK(optimizer > 0);
  REQUIRE(!pieces.empty());
  for (const auto& [key, parts] : pieces) {
    INFO(std::get<2>(key));
    CHECK(std::get<2>(key).rfind("B", 0) == 0);  // a backward's pieces
    // Pieces 1 … parts, each once, in order along the track.
    REQUIRE(static_cast<int>(parts.size()) == of[key]);
    for (std::size_t i = 0; i < parts.size(); ++i) CHECK(parts[i] == static_cast<int>(i) + 1);
  }
}

TEST_CASE("trace: where steps overlap, the report's step time and one step's", "[trace]") {
  // ZB-H2, p = 4, m = 8, F = I = W = 1 ms, optimizer post-validation: period 24 ms, one step
  // alone 27 ms (report_format_test's case): the trace draws the 27 ms step, and its metadata
  // says both, the report's 24 ms as step_time_us.
  const json t = json::parse(trace_of(test::yaml(
      "parallelism: {pp: 4}\ntraining: {microbatches: 8, optimizer_post_validation: true}\n"
      "schedule: zb-h2\ncosts: {forward: 1ms, backward_input: 1ms, backward_weight: 1ms}\n")));
  CHECK(t["otherData"]["step_time_us"] == 24000.0);
  CHECK(t["otherData"]["one_step_us"] == 27000.0);
}

TEST_CASE("trace: memory counters follow the activations the memory report counts", "[trace]") {
  // Llama-3.2-1B, pp 2, 1F1B, m = 4: stage 0 peaks at 2 micro-batches of its activations,
  // stage 1 at 1; every micro-batch is freed by the end of the step.
  const Scenario s = test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 4}
cluster: {gpu: h100-sxm, gpus_per_node: 2}
parallelism: {pp: 2}
)");
  const Timeline tl = simulate(s);
  const MemoryReport mem = make_memory_report(tl);
  std::ostringstream out;
  write_chrome_trace(tl, out);
  const json t = json::parse(out.str());
  std::map<long long, double> peak, last, fixed;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] != "C") continue;
    const long long pid = e["pid"];
    const double act = e["args"]["activations"];
    peak[pid] = std::max(peak[pid], act);
    last[pid] = act;
    fixed[pid] = e["args"]["static"];
  }
  REQUIRE(peak.size() == 2);  // one track per stage (ranks 0 and 1)
  for (int st = 0; st < 2; ++st) {
    const StageMemory& sm = mem.stages[static_cast<std::size_t>(st)];
    CHECK(peak[st] == Approx(sm.activations / 1e9).epsilon(1e-5));
    CHECK(last[st] == Approx(0).margin(1e-9));
    CHECK(fixed[st] ==
          Approx((sm.weights + sm.gradients + sm.optimizer + sm.buffers) / 1e9).epsilon(1e-5));
  }
  CHECK(mem.stages[0].activations == Approx(2 * stage_activation_bytes(s, 0)));
  // The head's stage: one micro-batch, and at its forward's end the loss's 16-bit logits.
  CHECK(mem.stages[1].activations ==
        Approx(1 * stage_activation_bytes(s, 1) + loss_transient_bytes(s, 1)));
}

TEST_CASE("trace: a data-parallel slice names the collective it runs", "[trace]") {
  // Llama-3.2-1B ties its embedding to its output layer: over pp 2 the two ends sum that
  // table's gradient after the DP reduction. ZeRO-0 reduces by all-reduce; ZeRO-1 (Megatron's
  // distributed optimizer) by reduce-scatter, then all-gathers the updated parameters.
  auto names = [](int zero) {
    const json t = json::parse(trace_of(test::yaml(fmt::format(R"(model: llama-3.2-1b
training: {{seq_len: 2048, global_batch_size: 16}}
cluster: {{gpu: h100-sxm, gpus_per_node: 8}}
parallelism: {{pp: 2, dp: 4, zero: {}}}
)",
                                                               zero))));
    std::map<std::string, int> n;
    for (const auto& e : t["traceEvents"])
      if (e["ph"] == "X" && e["cat"] == "dp") {
        const std::string c = e["args"].value("collective", "");
        CHECK(e["name"] == "dp " + c);  // the slice's name says it too
        ++n[c];
      }
    return n;
  };
  const auto z0 = names(0), z1 = names(1);
  // Each of the 8 ranks (folded or not) reduces once per stage it holds and, at either end of
  // the pipeline, sums the tied table once: both kinds on both ends.
  CHECK(z0.count("all-reduce") == 1);
  CHECK(z0.count("all-reduce of the tied embedding") == 1);
  CHECK(z0.count("reduce-scatter") == 0);
  CHECK(z1.count("reduce-scatter") == 1);
  CHECK(z1.count("all-gather") == 1);
  CHECK(z1.count("all-reduce of the tied embedding") == 1);
  CHECK(z1.count("all-reduce") == 0);
  CHECK(z0.count("") == 0);  // no DP slice without its collective
  CHECK(z1.count("") == 0);
}

TEST_CASE("trace: DualPipe's overlapped slice names its forward and its backward", "[trace]") {
  // DualPipeV at p = 4, m = 8: each rank holds chunks 0 and 1 (stages r and 7 − r) and, in its
  // steady phase, runs one chunk's forward of a new micro-batch beside the other chunk's
  // backward of an older one, as one task. Its slice names both halves.
  const Scenario s = test::yaml(
      "parallelism: {pp: 4, vpp: 2}\ntraining: {microbatches: 8}\n"
      "costs: {forward: 2ms, backward_input: 2ms, backward_weight: 2ms}\n");
  const Timeline tl = simulate(s, {"dualpipe-v", true});
  std::ostringstream out;
  write_chrome_trace(tl, out);
  const auto pairs = tl.schedule.overlapped_backwards();
  REQUIRE_FALSE(pairs.empty());
  const json trace = json::parse(out.str());
  int slices = 0, older = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X" || e["args"].value("op", "") != "forward+backward") continue;
    ++slices;
    const json& a = e["args"];
    const int fmb = a["microbatch"], bmb = a["backward_microbatch"];
    const int fstage = a["stage"], bstage = a["backward_stage"];
    const auto it = pairs.find({fstage, fmb});
    REQUIRE(it != pairs.end());
    CHECK(it->second.microbatch == bmb);
    CHECK(it->second.stage == bstage);
    CHECK(it->second.op == Op::B);
    // V-shape: the pair's halves are the rank's two chunks, one of each.
    CHECK(tl.schedule.chunk_of(fstage) + tl.schedule.chunk_of(bstage) == 1);
    CHECK(e["name"] == fmt::format("F{} c{} & B{} c{}", fmb, tl.schedule.chunk_of(fstage), bmb,
                                   tl.schedule.chunk_of(bstage)));
    if (bmb < fmb) ++older;
  }
  // One slice per pair on each of the p ranks (none folded: dp 1, tp 1).
  CHECK(slices == static_cast<int>(pairs.size()));
  CHECK(older > 0);  // the backward is an earlier micro-batch's, which the old name hid
}
