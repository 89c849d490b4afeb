#include "lower/program.h"

#include <cmath>

#include "core/error.h"
#include "scenario/partition.h"

namespace trainsim {

Program::Program(const Scenario& sc, const Schedule& sch, const CostModel& cm, RankSet rs)
    : scenario(sc), schedule(sch), cost(cm), ranks(std::move(rs)) {
  task_index_.assign(static_cast<std::size_t>(ranks.replicas) *
                         static_cast<std::size_t>(sch.stages) * 3 *
                         static_cast<std::size_t>(sch.microbatches),
                     kNone);
  stages_by_rank_ = sch.stages_by_rank();
  chunk_of_.assign(static_cast<std::size_t>(sch.stages), 0);
  for (const auto& held : stages_by_rank_)
    for (std::size_t c = 0; c < held.size(); ++c)
      chunk_of_[static_cast<std::size_t>(held[c])] = static_cast<int>(c);
  if (sc.model && sch.chain_stages() <= layer_slots(*sc.model, sc.layout.split))
    stage_content_ = partition_model(*sc.model, sch.chain_stages(), sc.layout.split);
  for (int r = 0; r < static_cast<int>(ranks.ranks.size()); ++r)
    compute_stream.push_back(stream(r, StreamType::Compute));
  // Room for the usual graph: per action its compute task, a send and a receive, and with TP a
  // collective; about two dependencies per task. (An estimate: vectors still grow past it.)
  std::size_t actions = 0;
  for (const SimRank& r : ranks.ranks)
    actions += sch.actions[static_cast<std::size_t>(r.coord.pp)].size();
  const std::size_t tasks = actions * (sc.layout.tp > 1 ? 4 : 3);
  builder.reserve(tasks, 2 * tasks);
}

TaskId& Program::task_of(int replica, int stage, Op op, int mb) {
  const std::size_t i =
      ((static_cast<std::size_t>(replica) * schedule.stages + stage) * 3 + kind_of(op)) *
          schedule.microbatches +
      mb;
  return task_index_.at(i);
}

TaskId Program::end_of(int replica, int stage, Op op, int mb) {
  const TaskId first = task_of(replica, stage, op, mb);
  auto it = parts_.find(first);
  return it == parts_.end() ? first : it->second.back();
}

void Program::set_parts(std::vector<TaskId> parts) {
  TRAINSIM_CHECK(parts.size() > 1, "a divided action has two parts or more");
  const TaskId first = parts.front();
  parts_[first] = std::move(parts);
}

const std::vector<TaskId>* Program::parts_of(TaskId first) const {
  auto it = parts_.find(first);
  return it == parts_.end() ? nullptr : &it->second;
}

Cost Program::bucketed(Collective c, int n, LinkClass link, double bytes, int per_node,
                       const std::optional<double>& bucket) const {
  if (!bucket || bytes <= *bucket) return cost.collective(c, n, link, bytes, per_node);
  TRAINSIM_CHECK(*bucket > 0, "validate() requires a positive bucket");
  const double k = std::ceil(bytes / *bucket);
  const Cost one = cost.collective(c, n, link, bytes / k, per_node);
  return {one.duration * static_cast<TimeNs>(k), one.flops * k, one.bytes * k};
}

int Program::buckets(int stage) const {
  const Layout& l = scenario.layout;
  if (l.dp_ranks() <= 1 || !cost.models_hardware()) return 1;
  if (l.zero == 3) return gather_units(stage);  // each unit's gradients reduce-scattered
  // Bucketed reduction overlapping the backward: ZeRO-0 all-reduce, ZeRO-2 reduce-scatter and,
  // with Megatron's overlap_grad_reduce, ZeRO-1's reduce-scatter in the last backward.
  const bool bucketed = l.zero == 0 || l.zero == 2 || l.grad_reduce_with_backward;
  return bucketed ? gradient_buckets(stage) : 1;
}

int Program::gradient_buckets(int stage) const {
  return gradient_buckets(stage, cost.gradient_bytes(model_stage(stage)));
}

bool Program::splits_gradients(int stage) const {
  switch (scenario.layout.grad_buckets) {
    case GradBuckets::All:
      return true;
    case GradBuckets::FirstChunk:  // the first pipeline rank's first model chunk alone
      return model_stage(stage) == 0;
    case GradBuckets::None:
      return false;
  }
  return true;
}

int Program::gradient_buckets(int stage, double bytes) const {
  if (!splits_gradients(stage)) return 1;
  const double rest = bytes - last_bucket_gradient_bytes(stage, bytes);
  return std::max(1, static_cast<int>(std::ceil(rest / scenario.memory.bucket_size)));
}

double Program::last_bucket_params(int stage) const {
  // (No stage content: a model the pipeline is not split over, as costs-only studies run.)
  if (!scenario.model || stage_content_.empty() || scenario.training.lora_rank > 0 ||
      scenario.layout.zero == 3)
    return 0;
  const int ms = model_stage(stage);
  TRAINSIM_CHECK(static_cast<std::size_t>(ms) < stage_content_.size(), "stage out of range");
  const StageContent& c = stage_content_[static_cast<std::size_t>(ms)];
  const ModelSpec& m = *scenario.model;
  const Layout& l = scenario.layout;
  if (scenario.training.fp8_params) {  // the 16-bit buffer: embedding, head (norms as layers')
    // A tied head (or multi-token prediction's lookup) on the embedding's own rank uses its
    // table: stage_params counts it again here, the DP pass does not (tied_table_counted_twice).
    std::vector<int> here;
    for (int s : stages_on(schedule.stage_rank[static_cast<std::size_t>(stage)]))
      here.push_back(model_stage(s));
    const double twice =
        c.head && !c.embedding
            ? static_cast<double>(tied_table_counted_twice(m, stage_content_, here, l.tp))
            : 0.0;
    return std::max(0.0, cost.stage_params(ms) - twice -
                             static_cast<double>(stage_layer_params(m, c, l.tp, l.ep, l.etp)));
  }
  return c.embedding ? static_cast<double>(m.embedding_params()) / l.tp +
                           static_cast<double>(learned_position_params(scenario))
                     : 0.0;
}

double Program::last_bucket_gradient_bytes(int stage, double bytes) const {
  const int ms = model_stage(stage);
  const double trained = cost.trainable_params(ms);
  if (trained <= 0) return 0;
  return std::min(bytes, last_bucket_params(stage) * cost.gradient_bytes(ms) / trained);
}

double Program::bucket_bytes(int stage, int part, int parts, double bytes) const {
  TRAINSIM_CHECK(parts >= 1 && part >= 0 && part < parts, "a bucket of the stage's buckets");
  const double last = parts > 1 ? last_bucket_gradient_bytes(stage, bytes) : 0.0;
  return (bytes - last) / parts + (part + 1 == parts ? last : 0.0);
}

int Program::gather_units(int stage) const {
  const Layout& l = scenario.layout;
  if (l.dp_ranks() <= 1 || !cost.models_hardware()) return 0;
  if (l.zero == 3) {
    TRAINSIM_CHECK(!stage_content_.empty(), "ZeRO-3 needs a model with layers");
    const int layers =
        std::max(1, stage_content_[static_cast<std::size_t>(model_stage(stage))].layers);
    return (layers + l.fsdp.unit_layers - 1) / l.fsdp.unit_layers;
  }
  // The gradient buckets' groups, all-gathered in reverse (Megatron-core gathers the buckets it
  // reduces: param_and_grad_buffer.py; overlap_param_gather needs overlap_grad_reduce).
  if (l.param_gather_with_forward && (l.zero == 1 || l.zero == 2)) return gradient_buckets(stage);
  return 0;
}

double Program::first_gather_bytes(int stage) const {
  // The last bucket's own parameters, 16-bit (the embedding, the head): at most what is gathered.
  return std::min(param_gather_bytes(stage), 2.0 * last_bucket_params(stage));
}

double Program::gather_unit_bytes(int stage, int unit) const {
  const int u = gather_units(stage);
  if (u <= 0) return 0.0;
  TRAINSIM_CHECK(unit >= 0 && unit < u, "a unit of the stage's units");
  const double all = param_gather_bytes(stage);
  if (scenario.layout.zero == 3 || u == 1) return all / u;
  const double first = first_gather_bytes(stage);
  return (all - first) / u + (unit == 0 ? first : 0.0);
}

double Program::param_gather_bytes(int stage) const {
  const int ms = model_stage(stage);
  // ZeRO-1/2 gather what the optimizer updated: under LoRA only the adapters (16-bit); ZeRO-3
  // gathers every weight it uses, frozen or not.
  if (scenario.training.lora_rank > 0 && scenario.layout.zero != 3)
    return 2.0 * cost.trainable_params(ms);
  const double all = 2.0 * cost.stage_params(ms);
  if (!scenario.training.fp8_params || !scenario.model) return all;
  // MXFP8 parameters gathered through the gradient buffer, in its dtype (scenario.h).
  if (mxfp8_params_gathered_16bit(scenario))
    return grad_reduce_bytes(scenario.training) * cost.stage_params(ms);
  TRAINSIM_CHECK(static_cast<std::size_t>(ms) < stage_content_.size(), "stage out of range");
  const Layout& l = scenario.layout;
  // The layer weights in FP8: one byte each fewer (the embedding and head stay 16-bit).
  return all -
         static_cast<double>(stage_layer_params(
             *scenario.model, stage_content_[static_cast<std::size_t>(ms)], l.tp, l.ep, l.etp));
}

bool Program::needs_gather(const Action& a, bool first_use) const {
  if (gather_units(a.stage) == 0) return false;
  const Layout& l = scenario.layout;
  if (l.zero == 3 && l.fsdp.reshard_after_forward) return a.op != Op::W;  // W needs no weights
  return first_use && a.op == Op::F;
}

double Program::compute_scale(int r) const {
  return scenario.compute_factor(ranks.ranks[static_cast<std::size_t>(r)].global);
}

double Program::link_scale(const std::vector<int>& members) const {
  double f = 1.0;
  for (int g : members) f = std::max(f, scenario.link_factor(g));
  return f;
}

namespace {
// (stage, a small value, another small value) as one key: stage < 2^31, a, b < 2^16.
std::uint64_t cost_key(int stage, int a, int b) {
  return static_cast<std::uint64_t>(static_cast<std::uint32_t>(stage)) << 32 |
         static_cast<std::uint64_t>(static_cast<std::uint16_t>(a)) << 16 |
         static_cast<std::uint16_t>(b);
}
}  // namespace

const Cost& Program::compute_cost(Op op, int stage, int pp) {
  TRAINSIM_CHECK(pp >= 0 && pp < 65536, "pipeline ranks are below 2^16");
  stage = model_stage(stage);
  const auto key = cost_key(stage, pp, static_cast<int>(op));
  auto it = compute_costs_.find(key);
  if (it == compute_costs_.end())
    it = compute_costs_.emplace(key, cost.compute(op, stage, pp)).first;
  return it->second;
}

const Cost& Program::layer_comm_cost(LayerComm kind, Op op, int stage, LinkClass link,
                                     int per_node) {
  TRAINSIM_CHECK(per_node >= 1 && per_node < 4096, "a group has 1 to 4095 members per node");
  stage = model_stage(stage);
  const int how = (per_node * 2 + static_cast<int>(link)) * 8 + static_cast<int>(kind);  // < 2^16
  const auto key = cost_key(stage, how, static_cast<int>(op));
  auto it = layer_comm_costs_.find(key);
  if (it == layer_comm_costs_.end()) {
    Cost c;
    switch (kind) {
      case LayerComm::TP:
        c = cost.tp_communication(op, stage, link, per_node);
        break;
      case LayerComm::TPHidden:
        c = cost.tp_hidden_communication(op, stage, link, per_node);
        break;
      case LayerComm::EP:
        c = cost.ep_communication(op, stage, link, per_node);
        break;
      case LayerComm::CP:
        c = cost.cp_communication(op, stage, link, per_node);
        break;
      case LayerComm::CPHidden:
        c = cost.cp_hidden_communication(op, stage, link, per_node);
        break;
    }
    it = layer_comm_costs_.emplace(key, c).first;
  }
  return it->second;
}

WorkId Program::work(TaskType type, int stage, int chunk, const Cost& c, int variant, int stage2,
                     double scale, int part, int parts) {
  const long long ppm = std::llround(scale * 1e6);
  // The cost is part of the key: two works alike in every other way but their size (a DP
  // bucket's reduction and a whole backward's) are different works.
  const auto key = std::make_tuple(static_cast<int>(type), stage, variant, chunk, stage2, ppm, part,
                                   parts, c.duration, std::llround(c.bytes));
  auto it = works_.find(key);
  if (it != works_.end()) return it->second;
  const TimeNs duration =
      scale == 1.0 ? c.duration
                   : static_cast<TimeNs>(std::llround(static_cast<double>(c.duration) * scale));
  Work w;
  w.duration = duration;
  w.flops = c.flops;
  w.bytes = c.bytes;
  w.type = static_cast<std::uint8_t>(type);
  w.stage = stage;
  w.chunk = chunk;
  w.stage2 = stage2;
  w.part = part;
  w.parts = parts;
  const WorkId id = builder.add_work(w);
  works_.emplace(key, id);
  return id;
}

StreamId Program::stream(int owner, StreamType type, int peer) {
  const auto key = std::make_tuple(owner, static_cast<int>(type), peer);
  auto it = streams_.find(key);
  if (it != streams_.end()) return it->second;
  const StreamId id = builder.add_stream(
      {static_cast<std::uint32_t>(owner), static_cast<std::uint8_t>(type), peer});
  streams_.emplace(key, id);
  return id;
}

}  // namespace trainsim
