#include "cost/gpu_spread.h"

#include <cmath>
#include <numbers>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cost/constants.h"
#include "cost/explicit_costs.h"
#include "lower/task_types.h"
#include "report/report_format.h"
#include "report/step_report.h"
#include "test_util.h"

using namespace trainsim;

TEST_CASE("gpu spread: the expected largest of n standard normal draws", "[cost][gpu_spread]") {
  const double sqrt_pi = std::sqrt(std::numbers::pi);
  CHECK(expected_max_standard_normal(1) == 0);
  // Closed forms: E[max of 2] = 1/√π, of 3 = 3/(2√π), of 4 = 3/(2√π)·(1 + (2/π)·asin(1/3)).
  CHECK(expected_max_standard_normal(2) == Approx(1 / sqrt_pi).epsilon(1e-9));
  CHECK(expected_max_standard_normal(3) == Approx(1.5 / sqrt_pi).epsilon(1e-9));
  CHECK(expected_max_standard_normal(4) ==
        Approx(1.5 / sqrt_pi * (1 + 2 / std::numbers::pi * std::asin(1.0 / 3))).epsilon(1e-9));
  // Tabulated (Teichroew 1956; Harter 1961): 1.53875 at 10, 2.50759 at 100, 3.24144 at 1,000.
  CHECK(expected_max_standard_normal(10) == Approx(1.53875).epsilon(1e-5));
  CHECK(expected_max_standard_normal(100) == Approx(2.50759).epsilon(1e-5));
  CHECK(expected_max_standard_normal(1000) == Approx(3.24144).epsilon(1e-5));
  // More GPUs, a slower slowest one; the integration holds up to the largest jobs.
  double last = 0;
  for (int n : {2, 8, 64, 512, 4096, 32768, 1 << 20, 1 << 30}) {
    const double e = expected_max_standard_normal(n);
    CHECK(e > last);
    last = e;
  }
  CHECK(last < 6.5);  // the largest of 2^30 draws lies near 6.1
}

TEST_CASE("gpu spread: the pace of the slowest GPU", "[cost][gpu_spread]") {
  // 1 + spread · E[max of n]: 8 GPUs at 1 % → 1 + 0.01 · 1.42360.
  CHECK(slowest_gpu_factor(0.01, 8) == Approx(1.0142360).epsilon(1e-7));
  CHECK(slowest_gpu_factor(0.02, 2) == Approx(1 + 0.02 / std::sqrt(std::numbers::pi)));
  CHECK(slowest_gpu_factor(0, 1024) == 1.0);
  CHECK(slowest_gpu_factor(0.05, 1) == 1.0);
}

namespace {
Scenario dp8(const std::string& extra) {
  return test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 16}
cluster: {gpu: h100-sxm, gpus_per_node: 8)" +
                    extra + R"(}
parallelism: {dp: 8}
contention: {compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}
)");
}
}  // namespace

TEST_CASE("gpu spread: every GPU computes at the slowest of the job's GPUs' pace",
          "[cost][gpu_spread][report]") {
  const Scenario even = dp8(", gpu_speed_spread: 0");
  const Scenario spread = dp8(", gpu_speed_spread: 0.02");
  const Scenario defaulted = dp8("");
  CHECK(make_cost_model(even)->compute_pace() == 1.0);
  // The default: constants.h's spread over the layout's 8 GPUs.
  CHECK(make_cost_model(defaulted)->compute_pace() ==
        Approx(1 + constants::kGpuSpeedSpread * 1.4236003));
  // 8 GPUs spreading 2 %: the slowest computes 1 + 0.02 · 1.42360 = 1.028472 times as long.
  const double pace = 1 + 0.02 * 1.4236003;
  REQUIRE(make_cost_model(spread)->compute_pace() == Approx(pace));
  const StepReport a = make_report(simulate(even)), b = make_report(simulate(spread));
  // Two micro-batches of F and B on each GPU, each task's duration × the pace (rounded to a ns).
  CHECK(b.stages[0].compute_busy_s == Approx(a.stages[0].compute_busy_s * pace).epsilon(1e-6));
  CHECK(b.step_time_s > a.step_time_s);
  CHECK(a.compute_pace == 1.0);
  CHECK(a.gpu_speed_spread == 0);
  CHECK(make_report(simulate(defaulted)).gpu_speed_spread == constants::kGpuSpeedSpread);
  CHECK(b.compute_pace == Approx(pace));
  CHECK(b.gpu_speed_spread == 0.02);
  CHECK_THAT(format_report(b),
             Catch::Contains("slowest GPU          modelled compute +2.8%: the step runs at the "
                             "pace of the slowest of its 8 GPUs, whose speeds spread 2.0%"));
  CHECK_THAT(format_report(a), !Catch::Contains("slowest GPU"));
  const auto j = report_to_json(b);
  CHECK(j["compute_pace"].get<double>() == Approx(pace));
  CHECK(j["gpu_speed_spread"].get<double>() == 0.02);
}

TEST_CASE("gpu spread: one GPU, or durations given by `costs:`, keep their pace",
          "[cost][gpu_spread]") {
  const Scenario one = test::yaml(R"(model: llama-3.2-1b
training: {seq_len: 1024, micro_batch_size: 1, global_batch_size: 2}
cluster: {gpu: h100-sxm, gpus_per_node: 1, gpu_speed_spread: 0.05}
)");
  CHECK(make_cost_model(one)->compute_pace() == 1.0);
  // A costs-only pipeline study has no GPUs to differ.
  CHECK(make_cost_model(test::pipeline(4, 8, 1, 2))->compute_pace() == 1.0);
  // 8 GPUs spreading 5 %: 1 + 0.05 · 1.42360 = 1.071180 for what the model times; the forward
  // and backward `costs:` gives are what the job's steps took and keep their durations.
  auto given = [](const char* costs) {
    return test::yaml(fmt::format(R"(model: llama-3.2-1b
training: {{seq_len: 1024, micro_batch_size: 1, global_batch_size: 16}}
cluster: {{gpu: h100-sxm, gpus_per_node: 8, gpu_speed_spread: 0.05}}
parallelism: {{dp: 8}}
costs: {}
)",
                                  costs));
  };
  const double pace = 1 + 0.05 * 1.4236003;
  const Scenario both = given("{forward: 1ms, backward: 2ms}");
  const auto model = make_cost_model(both);
  CHECK(model->compute_pace() == Approx(pace));
  CHECK(model->pace_of(Op::F, 0, 0) == 1.0);
  CHECK(model->pace_of(Op::B, 0, 0) == 1.0);
  CHECK(model->overlapped_pace(0, 0, 0) == 1.0);
  const Timeline tl = simulate(both);
  int forwards = 0;
  for (TaskId t = 0; t < tl.graph->size(); ++t) {
    const Work& w = tl.graph->work(t);
    switch (static_cast<TaskType>(w.type)) {
      case TaskType::Forward:
        ++forwards;
        CHECK(w.duration == kNsPerMs);
        break;
      case TaskType::Backward:
        CHECK(w.duration <= 2 * kNsPerMs);  // (in parts where buckets complete)
        break;
      case TaskType::Optimizer: {
        // The optimizer the model times runs at the pace (rounded to a nanosecond).
        const double o = static_cast<double>(model->optimizer(model->stage_params(0)).duration);
        CHECK(w.duration == std::llround(o * pace));
        break;
      }
      default:
        break;
    }
  }
  CHECK(forwards == 2);
  // Only the forward given: the modelled backward takes the pace, and an F&B pair (F + B) each
  // part's, weighted by its duration.
  const auto half = make_cost_model(given("{forward: 1ms}"));
  CHECK(half->pace_of(Op::F, 0, 0) == 1.0);
  CHECK(half->pace_of(Op::B, 0, 0) == Approx(pace));
  const double b = static_cast<double>(half->compute(Op::B, 0, 0).duration);
  CHECK(half->overlapped_pace(0, 0, 0) == Approx((1e6 + b * pace) / (1e6 + b)));
}

TEST_CASE("gpu spread: the pace lengthens every compute task once, and nothing else",
          "[cost][gpu_spread]") {
  // The same step at spread 0 and 2 %, task by task (the graphs are built alike): compute
  // (forward, backward, its input and weight halves, DualPipe's F&B pairs, the optimizer) ×
  // the pace to the nanosecond; collectives, transfers and the CPU's launches unchanged.
  struct Case {
    const char* name;
    int gpus;
    const char* rest;
  };
  const Case cases[] = {
      {"dualpipe-v, MoE, dp = ep = 2", 4,
       "model: {layers: 8, hidden: 1024, ffn_hidden: 2048, heads: 8, vocab: 1000, moe: {experts: "
       "8, top_k: 2, ffn_hidden: 512}}\ntraining: {seq_len: 512, micro_batch_size: 1, "
       "global_batch_size: 16}\nparallelism: {dp: 2, pp: 2, vpp: 2, ep: 2}\nschedule: "
       "dualpipe-v\n"},
      {"zb-h1 (split backward), tp 2, ZeRO-1", 8,
       "model: llama-3.2-1b\ntraining: {seq_len: 1024, micro_batch_size: 1, global_batch_size: "
       "8}\nparallelism: {dp: 2, tp: 2, pp: 2, zero: 1}\nschedule: zb-h1\n"},
      {"eager, the CPU issuing kernels, ZeRO-3", 2,
       "model: llama-3.2-1b\ntraining: {seq_len: 256, micro_batch_size: 1, global_batch_size: 4, "
       "runtime: eager}\nparallelism: {dp: 2, zero: 3}\n"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    auto at = [&](double spread) {
      return test::yaml(fmt::format(
          "{}cluster: {{gpu: h100-sxm, gpus_per_node: {}, gpu_speed_spread: {}}}\ncontention: "
          "{{compute_slowdown: 0, comm_slowdown: 0, link_sharing: false}}\n",
          c.rest, c.gpus, spread));
    };
    const Scenario even = at(0), spread = at(0.02);
    const double pace = make_cost_model(spread)->compute_pace();
    REQUIRE(pace == Approx(1 + 0.02 * expected_max_standard_normal(c.gpus)));
    const Timeline a = simulate(even), b = simulate(spread);
    REQUIRE(a.graph->size() == b.graph->size());
    int paced = 0, kept = 0, launches = 0;
    for (TaskId t = 0; t < a.graph->size(); ++t) {
      const Work& wa = a.graph->work(t);
      const Work& wb = b.graph->work(t);
      REQUIRE(wa.type == wb.type);
      switch (static_cast<TaskType>(wa.type)) {
        case TaskType::Forward:
        case TaskType::Backward:
        case TaskType::BackwardInput:
        case TaskType::BackwardWeight:
        case TaskType::ForwardBackward:
        case TaskType::Optimizer:
          ++paced;
          CHECK(static_cast<double>(wb.duration) ==
                Approx(static_cast<double>(wa.duration) * pace).margin(1));
          break;
        default:
          ++kept;
          if (static_cast<TaskType>(wa.type) == TaskType::Launch) ++launches;
          CHECK(wb.duration == wa.duration);
      }
    }
    CHECK(paced > 0);
    CHECK(kept > 0);
    if (std::string(c.name).starts_with("eager")) CHECK(launches > 0);
  }
}
