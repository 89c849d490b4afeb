#include "search/layout_search.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/quantity.h"
#include "cost/explicit_costs.h"
#include "memory/footprint.h"
#include "memory/schedule_memory.h"
#include "report/accuracy.h"
#include "report/memory_report.h"
#include "report/report_format.h"
#include "report/validation.h"
#include "run/simulate.h"
#include "run/variants.h"
#include "scenario/partition.h"
#include "scenario/validate_scenario.h"
#include "schedules/registry.h"

namespace trainsim {
namespace {

void require_positive(const std::vector<int>& values, const char* what) {
  for (int v : values)
    if (v < 1) throw InputError(fmt::format("search: {} must be 1 or more, got {}", what, v));
}

std::string layouts(std::size_t n) {
  return fmt::format("{} layout{}", n, n == 1 ? "" : "s");
}

// A value list, or `fallback` when empty; with `only_first`, only its first value (a dimension
// that changes nothing for this layout, e.g. ZeRO at dp 1).
template <typename T>
std::vector<T> values_or(const std::vector<T>& given, std::vector<T> fallback, bool only_first) {
  std::vector<T> v = given.empty() ? std::move(fallback) : given;
  if (only_first && v.size() > 1) v.resize(1);
  return v;
}

// 0 for ran and fits, 1 out of memory, 2 ruled out by static memory, 3 cannot run.
int group_of(const SearchResult& r) {
  if (!r.error.empty()) return 3;
  if (r.ruled_out) return 2;
  return r.out_of_memory ? 1 : 0;
}

}  // namespace

double memory_limit(const Scenario& base, const SearchOptions& o) {
  return base.cluster.gpu.memory * (1.0 - o.headroom);
}

const SearchResult* fastest_with_room(const std::vector<SearchResult>& results) {
  const auto it = std::find_if(results.begin(), results.end(), [](const SearchResult& r) {
    return r.ran() && !r.out_of_memory && !r.tight;
  });
  return it == results.end() ? nullptr : &*it;
}

double usable_limit(const Scenario& base, const SearchOptions& o) {
  return std::min(memory_limit(base, o), usable_memory(base.cluster.gpu.memory, base.memory));
}

std::string LayoutCandidate::words(bool say_unsharded) const {
  const LayoutCandidate& c = *this;
  std::string s = fmt::format("dp {} · tp {} · pp {}", c.dp, c.tp, c.pp);
  if (c.vpp > 1) s += fmt::format(" · vpp {}", c.vpp);
  if (c.ep > 1) s += fmt::format(" · ep {}", c.ep);
  if (c.etp == 1 && c.tp > 1) s += " · etp 1";
  if (c.cp > 1) s += fmt::format(" · cp {}", c.cp);
  s += fmt::format(" · b {}", c.micro_batch_size);
  if (c.zero > 0)
    s += fmt::format(" · ZeRO-{}", c.zero);
  else if (say_unsharded && c.dp > 1)
    s += " · no ZeRO";
  if (c.sequence_parallel)
    s += " · SP";
  else if (say_unsharded && c.tp > 1)  // beside a table whose tp > 1 rows differ by it alone
    s += " · no SP";
  if (c.recompute_layers > 0)
    s += fmt::format(" · recompute {} layers/stage", c.recompute_layers);
  else if (c.recompute != Recompute::None)
    s += fmt::format(" · {} recompute", recompute_name(c.recompute));
  if (c.tp_overlap) s += " · TP overlap";
  if (c.precision != Precision::BF16) s += std::string(" · ") + precision_name(c.precision);
  if (c.offload == Offload::Optimizer) s += " · optimizer offload";
  if (c.offload_activations > 0)
    s += fmt::format(" · activation offload {} layers/stage", c.offload_activations);
  if (!c.schedule.empty()) s += " · " + c.schedule;
  return s;
}

void LayoutCandidate::apply(Scenario& s) const {
  s.layout.dp = dp;
  s.layout.tp = tp;
  s.layout.pp = pp;
  s.layout.vpp = vpp;
  s.training.micro_batch_size = micro_batch_size;
  s.layout.zero = zero;
  // How a framework issues ZeRO-3's gathers and reductions (DeepSpeed's buckets) has no
  // meaning for another stage: dropped, so a DeepSpeed ZeRO-3 scenario's search can try 0–2.
  if (zero != 3) s.layout.fsdp.gather_bucket = s.layout.fsdp.reduce_bucket = std::nullopt;
  // Gathering the parameters with the next forward is ZeRO-1/2's: other stages drop it.
  if (zero != 1 && zero != 2) s.layout.param_gather_with_forward = false;
  s.layout.sequence_parallel = sequence_parallel;
  s.training.recompute = recompute;
  s.training.recompute_layers = recompute_layers;
  // The scenario's selective modules hold where the search tries selective recompute; the other
  // modes have none.
  if (recompute != Recompute::Selective) s.training.recompute_modules.reset();
  s.layout.tp_overlap = tp_overlap;
  s.layout.ep = ep;
  // Expert TP: whole experts (1), or each split over the TP ranks (0: follows tp).
  s.layout.etp = etp == 1 ? 1 : 0;
  s.layout.cp = cp;
  s.training.precision = precision;
  // FP8's own keys mean nothing in 16-bit: a 16-bit candidate drops them (overrides() too).
  if (precision != Precision::FP8) {
    s.training.fp8_params = false;
    s.training.fp8_recipe = Fp8Recipe::Delayed;
    s.training.fp8_standalone_casts.reset();
    s.training.fp8_attention = false;
    s.training.fp8_output_proj = false;
    s.training.fp8_dispatch = false;
    s.training.fused_expert_mlp = false;
    s.training.nvfp4_hadamard = true;
    s.training.nvfp4_stochastic_rounding = true;
  }
  s.training.offload = offload;
  s.training.offload_activation_layers = offload_activations;
  if (drop_split_layers) s.layout.split.layers.clear();
  // The keys set are those overrides() names; the search is their origin.
  const std::string by = "trainsim search: " + words();
  for (const std::string& set : overrides()) s.set_origin(set.substr(0, set.find('=')), by);
  s.canonical_yaml += "\n# " + by + "\n";
}

std::string LayoutCandidate::recompute_text() const {
  return recompute_layers > 0 ? fmt::format("{} layers", recompute_layers)
                              : recompute_name(recompute);
}

std::vector<std::string> LayoutCandidate::overrides() const {
  std::vector<std::string> out = {
      fmt::format("parallelism.dp={}", dp),
      fmt::format("parallelism.tp={}", tp),
      fmt::format("parallelism.pp={}", pp),
      fmt::format("parallelism.vpp={}", vpp),
      fmt::format("training.micro_batch_size={}", micro_batch_size),
      fmt::format("parallelism.zero={}", zero),
      fmt::format("parallelism.sequence_parallel={}", sequence_parallel),
      fmt::format("training.recompute={}", recompute_name(recompute)),
      fmt::format("training.recompute_layers={}", recompute_layers),
      fmt::format("parallelism.tp_overlap={}", tp_overlap),
      fmt::format("parallelism.ep={}", ep),
      etp == 1 ? std::string("parallelism.etp=1") : std::string("parallelism.etp=null"),
      fmt::format("parallelism.cp={}", cp),
      fmt::format("training.precision={}", precision_name(precision)),
      fmt::format("training.offload={}", offload_name(offload)),
      fmt::format("training.offload_activations={}", offload_activations)};
  // What apply() drops, dropped by key too, so the overrides reproduce the layout on a scenario
  // that sets them (`trainsim-gui` opens a search result this way).
  if (zero != 3) {
    out.push_back("parallelism.fsdp.gather_bucket=null");
    out.push_back("parallelism.fsdp.reduce_bucket=null");
  }
  if (recompute != Recompute::Selective) out.push_back("training.recompute_modules=null");
  if (drop_split_layers) out.push_back("parallelism.pipeline_split.layers=null");
  if (zero != 1 && zero != 2) out.push_back("parallelism.param_gather=after-optimizer");
  if (precision != Precision::FP8) {
    out.push_back("training.fp8_params=false");
    out.push_back("training.fp8_recipe=delayed");
    out.push_back("training.fp8_standalone_casts=none");
    out.push_back("training.fp8_attention=false");
    out.push_back("training.fp8_output_proj=false");
    out.push_back("training.fp8_dispatch=false");
    out.push_back("training.fused_expert_mlp=false");
  }
  return out;
}

namespace {

// The chunk counts each registered schedule takes, for messages: "1f1b 1, interleaved-1f1b 2 or
// more, zb-v 2, …".
std::string chunk_rules() {
  std::string out;
  for (const ScheduleEntry& e : schedule_entries()) {
    if (!out.empty()) out += ", ";
    out += e.max_chunks == e.min_chunks ? fmt::format("{} {}", e.name, e.min_chunks)
           : e.max_chunks == kAnyChunks
               ? fmt::format("{} {} or more", e.name, e.min_chunks)
               : fmt::format("{} {} to {}", e.name, e.min_chunks, e.max_chunks);
  }
  return out;
}

}  // namespace

void fill_gpus_with_dp(Scenario& s) {
  const int gpus = s.cluster.gpus(), sequences = s.training.micro_batch_size;
  const auto splits_batch = [&](int dp) {
    return sequences > 0 && s.training.global_batch_size % (dp * sequences) == 0;
  };
  const auto set = [&](const char* key, int& value, int to) {
    value = to;
    s.set_origin(key, fmt::format("trainsim search: filling the {} GPUs", gpus));
  };
  if (const std::optional<int> dp = dp_filling_gpus(s); dp && splits_batch(*dp)) {
    set("parallelism.dp", s.layout.dp, *dp);
    return;
  }
  // Where that dp does not divide the batch, the largest that does, pp taking the rest: the
  // base only has to be a layout the GPUs can run; the search replaces it.
  const int others = s.layout.tp * s.layout.cp;
  if (!s.has_cluster || others <= 0 || gpus % others != 0) return;
  if (s.layout.world() == gpus && splits_batch(s.layout.dp)) return;  // the file's own layout
  const int rest = gpus / others;
  for (int dp = rest; dp >= 1; --dp)
    if (rest % dp == 0 && splits_batch(dp)) {
      set("parallelism.dp", s.layout.dp, dp);
      set("parallelism.pp", s.layout.pp, rest / dp);
      return;
    }
}

std::vector<LayoutCandidate> layout_candidates(const Scenario& base, const SearchSpace& space) {
  if (!base.model)
    throw InputError(
        "search needs a model: a costs-only scenario's durations do not change with the layout");
  if (!base.has_cluster)
    throw InputError(
        "search needs a cluster: the GPUs to lay out come from cluster.nodes × "
        "cluster.gpus_per_node");
  require_positive(space.tp, "--tp");
  require_positive(space.pp, "--pp");
  require_positive(space.vpp, "--vpp");
  require_positive(space.ep, "--ep");
  require_positive(space.cp, "--cp");
  for (int n : space.offload_activations)
    if (n < 0)
      throw InputError(
          fmt::format("search: --offload-activations takes layer counts ≥ 0, got {}", n));
  require_positive(space.micro_batch_sizes, "--micro-batch-sizes");
  for (const auto& name : space.schedules) find_schedule(name);  // unknown names fail here
  for (int z : space.zero)
    if (z < 0 || z > 3) throw InputError(fmt::format("search: --zero takes 0 to 3, got {}", z));
  for (int e : space.etp)
    if (e != 0 && e != 1)
      throw InputError(fmt::format(
          "search: --etp takes tp (experts split over the TP ranks) or 1 (whole on each), got {}",
          e));

  const int gpus = base.cluster.gpus();
  std::vector<int> tps = space.tp;
  if (tps.empty())
    for (int t = 1; t <= base.cluster.gpus_per_node; t *= 2)
      if (gpus % t == 0) tps.push_back(t);
  const std::vector<int> vpps = space.vpp.empty() ? std::vector<int>{base.layout.vpp} : space.vpp;
  const std::vector<int> eps = space.ep.empty() ? std::vector<int>{base.layout.ep} : space.ep;
  const std::vector<int> cps = space.cp.empty() ? std::vector<int>{base.layout.cp} : space.cp;
  const std::vector<Precision> precisions =
      space.precision.empty() ? std::vector<Precision>{base.training.precision} : space.precision;
  const std::vector<Offload> offloads =
      space.offload.empty() ? std::vector<Offload>{base.training.offload} : space.offload;
  const std::vector<int> offload_acts =
      space.offload_activations.empty() ? std::vector<int>{base.training.offload_activation_layers}
                                        : space.offload_activations;
  const std::vector<int> mbs = space.micro_batch_sizes.empty()
                                   ? std::vector<int>{base.training.micro_batch_size}
                                   : space.micro_batch_sizes;
  const std::vector<std::string> schedules =
      space.schedules.empty() ? std::vector<std::string>{""} : space.schedules;

  // Layers of the fullest of `stages` stages.
  const int slots = layer_slots(*base.model, base.layout.split);
  auto fullest_of = [&](int pp, int vpp) {
    // The given layers per stage for the scenario's own pp and vpp, else the even split
    // (apply(): the same count of stages placed otherwise is another pipeline).
    const int stages = pp * vpp;
    PipelineSplit split = base.layout.split;
    if (pp != base.layout.pp || vpp != base.layout.vpp) split.layers.clear();
    // Refused by validate (too many stages, an uneven split): any count serves.
    if (stages > slots || !partition_fits(*base.model, split, stages)) return 1;
    int most = 0;
    for (const StageContent& st : partition_model(*base.model, stages, split))
      most = std::max(most, st.layers);
    return most;
  };
  // Recompute choices: the modes, then full recompute of N layers per stage for each N below the
  // fullest stage's layers (at or past it, it is plain full recompute).
  const bool default_recompute = space.recompute.empty() && space.recompute_layers.empty();
  auto recomputes = [&](int pp, int vpp) {
    std::vector<std::pair<Recompute, int>> out;
    for (Recompute r :
         default_recompute
             ? std::vector<Recompute>{Recompute::None, Recompute::Selective, Recompute::Full}
             : space.recompute)
      out.emplace_back(r, 0);
    const int fullest = fullest_of(pp, vpp);
    for (int n : space.recompute_layers)
      if (n < fullest) out.emplace_back(Recompute::Full, n);
    return out;
  };
  // Activation offload choices: past the fullest stage's layers every count means all of them,
  // and the smallest such count stands for the others.
  auto offload_counts = [&](int pp, int vpp) {
    const int fullest = fullest_of(pp, vpp);
    std::vector<int> kept;
    for (int n : offload_acts)
      if (n <= fullest || std::none_of(offload_acts.begin(), offload_acts.end(),
                                       [&](int m) { return m >= fullest && m < n; }))
        kept.push_back(n);
    return kept;
  };
  // The registry entry of a candidate's schedule ("" the scenario's own; none for a CSV).
  auto schedule_entry = [&](const std::string& name) -> const ScheduleEntry* {
    if (name.empty() && !base.schedule.csv.empty()) return nullptr;
    return &find_schedule(name.empty() ? base.schedule.name : name);
  };
  int skipped_pairs = 0;  // --vpp × --schedules pairs a schedule does not take
  // Why candidates were left out, to name the cause when none is left: (tp, pp, cp) groups that
  // divide the GPUs; (…, micro-batch size) whose dp · b divides the batch; the first refusals
  // of the expert and context parallelism; whether any recompute choice was left.
  int dividing_groups = 0, dividing_batches = 0, chunked = 0, with_recompute = 0;
  std::string ep_refusal, cp_refusal;
  std::vector<LayoutCandidate> out;
  for (int tp : tps) {
    if (gpus % tp != 0) continue;
    std::vector<int> pps = space.pp;
    if (pps.empty())
      for (int p = 1; p <= gpus / tp; ++p)
        if ((gpus / tp) % p == 0) pps.push_back(p);
    for (int pp : pps)
      for (int cp : cps) {
        if (gpus % (tp * pp * cp) != 0) continue;
        ++dividing_groups;
        const int dp = gpus / (tp * pp * cp);
        for (int asked_vpp : vpps)
          for (int b : mbs) {
            // The global batch stays what the scenario says: dp · b must divide it.
            if (base.training.global_batch_size % (dp * b) != 0) continue;
            ++dividing_batches;
            for (const auto& sched : schedules) {
              // Each schedule at the chunk counts it takes (registry.h): without --vpp the
              // nearest to the scenario's (zb-v's 2 for a scenario at 1, as compare does);
              // with --vpp only the listed ones it takes (1f1b skips 2, interleaved 1).
              int vpp = asked_vpp;
              if (const ScheduleEntry* e = schedule_entry(sched)) {
                if (space.vpp.empty())
                  vpp = e->nearest_chunks(base.layout.vpp);
                else if (!e->accepts_chunks(asked_vpp)) {
                  ++skipped_pairs;
                  continue;
                }
              }
              // Chunks per rank interleave a pipeline's stages: at pp 1 there is none, and
              // no framework runs such a layout (Megatron-core takes a virtual pipeline only
              // with pipeline parallelism); `run` still simulates one asked for.
              if (pp == 1 && vpp > 1) continue;
              ++chunked;
              if (!recomputes(pp, vpp).empty()) ++with_recompute;
              for (int z : values_or(space.zero, {0, 1, 2, 3}, dp * cp == 1))
                for (int sp : values_or(space.sequence_parallel, {0, 1}, tp == 1))
                  for (const auto& [rc, layers] : recomputes(pp, vpp))
                    for (int ov :
                         values_or(space.tp_overlap, {base.layout.tp_overlap ? 1 : 0}, tp == 1))
                      for (int ep : eps)
                        for (int asked_etp : values_or(space.etp, {base.layout.etp == 1 ? 1 : 0},
                                                       tp == 1 || !base.model->is_moe()))
                          for (Precision precision : precisions)
                            for (Offload offload : offloads)
                              for (int acts : offload_counts(pp, vpp)) {
                                // Offload needs a ZeRO stage and Adam's states (validate()): not
                                // tried at ZeRO-0 nor under plain SGD.
                                if (offload != Offload::None &&
                                    ((dp * cp == 1 ? 0 : z) == 0 ||
                                     base.training.optimizer == Optimizer::Sgd))
                                  continue;
                                // Experts split over DP ranks as validate() allows it.
                                Layout l = base.layout;
                                l.dp = dp;
                                l.tp = tp;
                                l.sequence_parallel = tp > 1 && sp != 0;
                                // Whole experts mean something only for experts under TP: at tp 1
                                // and for a dense model every width is the same (0).
                                const int etp = tp > 1 && base.model->is_moe() ? asked_etp : 0;
                                l.etp = etp;  // as apply() sets it
                                l.ep = ep;
                                l.cp = cp;
                                l.tp_overlap = tp > 1 && ov != 0;
                                l.zero = dp * cp == 1 ? 0 : z;
                                if (const auto why = expert_parallel_refusal(l, &*base.model)) {
                                  if (ep_refusal.empty())
                                    ep_refusal = fmt::format("--ep {}: {}", ep, *why);
                                  continue;
                                }
                                if (const auto why = expert_tp_refusal(l, &*base.model)) {
                                  if (ep_refusal.empty())
                                    ep_refusal = fmt::format("parallelism.etp {}: {}", l.etp, *why);
                                  continue;
                                }
                                if (const auto why = context_parallel_refusal(l, base.training)) {
                                  if (cp_refusal.empty())
                                    cp_refusal = fmt::format("--cp {}: {}", cp, why->second);
                                  continue;
                                }
                                LayoutCandidate c{dp, tp, pp, vpp, b, sched};
                                c.drop_split_layers =
                                    !base.layout.split.layers.empty() &&
                                    (pp != base.layout.pp || vpp != base.layout.vpp);
                                c.zero = dp * cp == 1 ? 0 : z;
                                c.sequence_parallel = tp > 1 && sp != 0;
                                c.recompute = rc;
                                c.recompute_layers = layers;
                                c.tp_overlap = tp > 1 && ov != 0;
                                c.ep = ep;
                                c.etp = etp;
                                c.cp = cp;
                                c.precision = precision;
                                c.offload = offload;
                                c.offload_activations = acts;
                                out.push_back(std::move(c));
                              }
            }
          }
      }
  }
  if (out.empty()) {
    // The first filter that left nothing, in the order they apply.
    std::string why;
    if (dividing_groups == 0)
      why = fmt::format("no tp × pp × cp divides the cluster's {} GPUs (tp {}, pp {}, cp {})", gpus,
                        fmt::join(tps, ","),
                        space.pp.empty() ? "any" : fmt::format("{}", fmt::join(space.pp, ",")),
                        fmt::join(cps, ","));
    else if (dividing_batches == 0)
      why = fmt::format(
          "dp × micro-batch size must divide the global batch of {} sequences, and no dp "
          "these GPUs leave does with micro-batch size {}",
          base.training.global_batch_size, fmt::join(mbs, ","));
    else if (chunked == 0)
      why = skipped_pairs > 0
                ? "each schedule needs a --vpp it takes (" + chunk_rules() + ")"
                : std::string("chunks per rank (--vpp above 1) need a pipeline: pp 1 has none");
    else if (with_recompute == 0)
      why = fmt::format(
          "--recompute {}: full recompute of N layers needs N below a stage's layers (at or "
          "past them it is --recompute full)",
          fmt::join(space.recompute_layers, ","));
    else if (!ep_refusal.empty() && cp_refusal.empty())
      why = ep_refusal;
    else if (!cp_refusal.empty() && ep_refusal.empty())
      why = cp_refusal;
    else
      why = fmt::format(
          "tp × pp (× cp) must divide the cluster's {} GPUs and dp × micro-batch size must "
          "divide the global batch of {} sequences{}{}{}",
          gpus, base.training.global_batch_size,
          skipped_pairs > 0 ? ", and each schedule needs a --vpp it takes (" + chunk_rules() + ")"
                            : "",
          ep_refusal.empty() ? "" : "; " + ep_refusal, cp_refusal.empty() ? "" : "; " + cp_refusal);
    throw InputError("search: no layout to try: " + why);
  }
  return out;
}

namespace {

// One candidate, its layout set on the base scenario and validated (map_variants): ruled out
// on static memory, or simulated.
SearchResult evaluate(const Scenario& sc, const LayoutCandidate& c, double limit, double usable) {
  SearchResult r;
  r.layout = c;
  try {
    // A schedule that does not take this chunk count (registry.h) fails at once, with the
    // generator's own message, before any memory or cost work.
    const bool from_csv = c.schedule.empty() && !sc.schedule.csv.empty();
    if (!from_csv && !find_schedule(c.schedule.empty() ? sc.schedule.name : c.schedule)
                          .accepts_chunks(sc.layout.vpp))
      schedule_for(sc, c.schedule);
    // Weights, gradients, optimizer states and the buffers that grow with them (FP8 weight
    // copies, DDP's copied buckets) of all stages over the pp ranks: the average rank's, a lower
    // bound of the fullest rank's, plus one GPU's fixed buffers (DualPipe's ranks hold a copy
    // of the model per pipeline). Every stage's FP8 copy on one GPU had ruled out FP8 layouts
    // with pp > 1 that fit.
    std::vector<int> all(static_cast<std::size_t>(sc.layout.pp * sc.layout.vpp));
    std::iota(all.begin(), all.end(), 0);
    const StaticMemory st = static_memory(sc, all);
    const int copies =
        from_csv ? 1 : find_schedule(c.schedule.empty() ? sc.schedule.name : c.schedule).chains;
    r.static_memory =
        copies * (st.weights + st.gradients + st.optimizer + st.buffers - st.fixed_buffers) /
            sc.layout.pp +
        st.fixed_buffers;
    if (r.static_memory > limit) {
      r.ruled_out = true;
      return r;
    }
    // The schedule's action order fixes each rank's in-flight activations: over the limit with
    // them (the simulated peak, less ZeRO-3's gathered parameters), it is ruled out unsimulated.
    const auto cost = make_cost_model(sc);
    Schedule schedule = schedule_for(sc, c.schedule, cost.get());
    const auto peaks = schedule_memory_peaks(sc, schedule);
    r.memory_bound = *std::max_element(peaks.begin(), peaks.end());
    if (r.memory_bound > limit) {
      r.ruled_out = true;
      return r;
    }
    const Timeline tl = simulate(sc, std::move(schedule), *cost, {c.schedule, true});
    r.report = make_report(tl);
    r.peak_memory = make_memory_report(tl).largest_peak();
    r.out_of_memory = r.peak_memory > limit;
    // Past the GPU's usable memory (its memory less the caching allocator's fragmentation) a
    // layout that fits may still run out, or slow down flushing its cache.
    r.tight = !r.out_of_memory && r.peak_memory > usable;
  } catch (const InputError& e) {
    r.error = e.what();
  }
  return r;
}

}  // namespace

std::vector<SearchResult> evaluate_candidates(
    const Scenario& base, const std::vector<LayoutCandidate>& candidates,
    const std::vector<std::size_t>& indices, const SearchOptions& options,
    const std::function<void(std::size_t, std::size_t)>& progress) {
  if (!(options.headroom >= 0 && options.headroom <= 0.9))
    throw InputError(
        fmt::format("search: --headroom must be 0 to 90 %, got {:g} %", options.headroom * 100));
  if (options.jobs < 0)
    throw InputError(
        fmt::format("search: --jobs must be 0 (all cores) or more, got {}", options.jobs));
  for (std::size_t i : indices)
    TRAINSIM_CHECK(i < candidates.size(), "evaluate_candidates: an index past the candidates");
  const double limit = memory_limit(base, options), usable = usable_limit(base, options);
  // Each candidate a variant of the base scenario: its layout set by code (LayoutCandidate::
  // apply), validated, then evaluated; one the layout rules refuse is a row with their message.
  std::vector<Variant> variants(indices.size());
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const LayoutCandidate& c = candidates[indices[i]];
    variants[i].edit = [&c](Scenario& s) { c.apply(s); };
  }
  return map_variants<SearchResult>(
      base, variants, options.jobs,
      [&](std::size_t i, const Scenario& sc) {
        return evaluate(sc, candidates[indices[i]], limit, usable);
      },
      [&](std::size_t i, const InputError& e) {
        SearchResult r;
        r.layout = candidates[indices[i]];
        r.error = e.what();
        return r;
      },
      progress);
}

void rank_search_results(std::vector<SearchResult>& results) {
  // Fitting first, then out of memory, ruled out, cannot run; fastest first within each.
  std::stable_sort(results.begin(), results.end(),
                   [&](const SearchResult& a, const SearchResult& b) {
                     if (group_of(a) != group_of(b)) return group_of(a) < group_of(b);
                     return a.ran() && a.report.step_time_s < b.report.step_time_s;
                   });
  // The Pareto front of the fitting layouts, by step time then memory: walking them fastest
  // first, a layout is on it when it needs less memory than every faster one.
  double least = std::numeric_limits<double>::infinity();
  for (auto& r : results) {
    r.pareto = false;
    if (group_of(r) != 0) continue;
    if (r.peak_memory < least) {
      r.pareto = true;
      least = r.peak_memory;
    }
  }
}

std::vector<SearchResult> search_layouts(
    const Scenario& base, const SearchSpace& space, const SearchOptions& options,
    const std::function<void(std::size_t, std::size_t)>& progress) {
  const std::vector<LayoutCandidate> candidates = layout_candidates(base, space);
  std::vector<std::size_t> all(candidates.size());
  std::iota(all.begin(), all.end(), 0);
  std::vector<SearchResult> results = evaluate_candidates(base, candidates, all, options, progress);
  rank_search_results(results);
  return results;
}

bool paced_by_eager_cpu(const SearchResult& r) {
  return r.ran() && r.report.cpu_headroom_s > 0 &&
         r.report.cpu_headroom_s < r.report.eager_host_per_kernel_s;
}

std::optional<MeasuredPace> measured_pace(const Scenario& base) {
  if (!base.measured || !base.model) return std::nullopt;
  const StepReport r = make_report(simulate(base));
  const std::optional<Accuracy> a = accuracy(r, *base.measured);
  if (!a || r.step_time_s <= 0) return std::nullopt;
  // step_time_error = predicted / measured − 1, on step time, whatever the metric.
  return MeasuredPace{r.step_time_s / (1 + a->step_time_error), r.step_time_s,
                      base.measured->source};
}

std::string measured_pace_line(const std::optional<MeasuredPace>& pace,
                               const std::vector<SearchResult>& results) {
  if (!pace || results.empty() || !results.front().ran() || results.front().out_of_memory)
    return "";
  const double p = pace->pace(), fastest = results.front().report.step_time_s;
  return fmt::format(
      "measured: the scenario's own layout took {} a step against {} predicted (×{:.3f}, {}); at "
      "that pace the fastest here, #1, takes {} ({} predicted; the `layout order` line says how "
      "close the published runs came at their series' pace)",
      format_time(pace->measured_s), format_time(pace->predicted_s), p, pace->source,
      format_time(fastest * p), format_time(fastest));
}

namespace {

// Layouts under TP that keep experts whole, and that split them: (any whole, any split).
std::pair<bool, bool> expert_widths(const std::vector<SearchResult>& results) {
  bool whole = false, split = false;
  for (const SearchResult& r : results)
    if (r.layout.tp > 1) (r.layout.etp == 1 ? whole : split) = true;
  return {whole, split};
}

}  // namespace

std::string format_search(const Scenario& base, const std::vector<SearchResult>& results,
                          std::size_t top, const SearchOptions& options) {
  // Layouts under TP with experts whole (etp 1) and with experts split over TP: the header names
  // a single width, the table's etp column mixed ones, the untried line the flag.
  const auto [some_whole, some_split] = expert_widths(results);
  std::size_t count[4] = {0, 0, 0, 0};
  for (const auto& r : results) ++count[group_of(r)];
  const std::size_t fit = count[0], oom = count[1], ruled = count[2], failed = count[3];
  const auto tight = static_cast<std::size_t>(
      std::count_if(results.begin(), results.end(), [](const SearchResult& r) { return r.tight; }));
  const double limit = memory_limit(base, options);
  const std::string limit_words =
      options.headroom > 0
          ? fmt::format("{} ({:g} % of the GPU's {} kept free)", format_bytes(limit),
                        options.headroom * 100, format_bytes(base.cluster.gpu.memory))
          : fmt::format("the GPU's {}", format_bytes(limit));
  std::string o = fmt::format(
      "search {} · {} GPUs × {} · {} sequences of {} tokens per step{}\n{}: {} fit{}, {} out of "
      "memory ({} of them ruled out before simulating), {} cannot run\n\n",
      base.name, base.cluster.gpus(), base.cluster.gpu.name, base.training.global_batch_size,
      base.training.seq_len,
      some_whole && !some_split ? " · experts whole on each TP rank (etp 1)" : "",
      layouts(results.size()), fit, tight > 0 ? fmt::format(" ({} tight)", tight) : "", oom + ruled,
      ruled, failed);
  if (fit > 0) {
    std::size_t sw = 8;
    for (const auto& r : results)
      if (r.ran()) sw = std::max(sw, r.report.schedule.size());
    // An ep column when some layout splits experts (after vpp: the layout's axes together).
    bool with_ep = false, with_cp = false, with_precision = false, with_offload = false;
    for (const auto& r : results) {
      with_ep = with_ep || r.layout.ep > 1;
      with_cp = with_cp || r.layout.cp > 1;
      with_precision = with_precision || r.layout.precision != results.front().layout.precision;
      with_offload =
          with_offload || r.layout.offload != Offload::None || r.layout.offload_activations > 0;
    }
    auto ep_cell = [&](const auto& v) { return with_ep ? fmt::format(" {:>3}", v) : ""; };
    // An etp column when layouts under TP differ in it: "1" whole experts, "tp" split over TP.
    const bool with_etp = some_whole && some_split;
    auto etp_cell = [&](const auto& v) { return with_etp ? fmt::format(" {:>3}", v) : ""; };
    // A cp column when some layout splits sequences.
    auto cp_cell = [&](const auto& v) { return with_cp ? fmt::format(" {:>3}", v) : ""; };
    // A precision column when the layouts differ in it (after ovl).
    auto prec_cell = [&](const auto& v) { return with_precision ? fmt::format(" {:>4}", v) : ""; };
    // An offload column when some layout offloads its optimizer ("opt") or the activations of
    // N layers per stage ("aN").
    auto offl_cell = [&](const auto& v) { return with_offload ? fmt::format(" {:>6}", v) : ""; };
    auto offl_text = [](const LayoutCandidate& c) {
      std::string t = c.offload == Offload::Optimizer ? "opt" : "";
      if (c.offload_activations > 0)
        t += (t.empty() ? "a" : "+a") + std::to_string(c.offload_activations);
      return t.empty() ? std::string("-") : t;
    };
    const std::string line =
        "{:>4} {:>5} {:>3} {:>3} {:>3}{}{}{} {:>3} {:>5} {:>4} {:>3} {:>9} {:>3}{}{}  {:<{}} "
        "{:>10} "
        "{:>6} {:>11} {:>7} {:>7} {:>12}\n";
    o += fmt::format(fmt::runtime(line), "#", "dp", "tp", "pp", "vpp", ep_cell("ep"),
                     etp_cell("etp"), cp_cell("cp"), "b", "m", "zero", "sp", "recompute", "ovl",
                     prec_cell("prec"), offl_cell("offl"), "schedule", sw, "step time", "MFU",
                     "tokens/s", "bubble", "comm", "GPU memory");
    double eager_per_kernel = 0;  // the first flagged layout's eager figure (the scenario's host)
    for (std::size_t i = 0; i < std::min(fit, top); ++i) {
      const SearchResult& r = results[i];
      const LayoutCandidate& c = r.layout;
      if (paced_by_eager_cpu(r) && eager_per_kernel == 0)
        eager_per_kernel = r.report.eager_host_per_kernel_s;
      o += fmt::format(
          fmt::runtime(line),
          fmt::format("{}{}{}", r.pareto ? "*" : "", i + 1, paced_by_eager_cpu(r) ? "!" : ""), c.dp,
          c.tp, c.pp, c.vpp, ep_cell(c.ep),
          etp_cell(c.tp == 1    ? "-"
                   : c.etp == 1 ? "1"
                                : "tp"),
          cp_cell(c.cp), c.micro_batch_size, r.report.microbatches, c.zero,
          c.sequence_parallel ? "on" : "-", c.recompute_text(), c.tp_overlap ? "on" : "-",
          prec_cell(precision_name(c.precision)), offl_cell(offl_text(c)), r.report.schedule, sw,
          format_time(r.report.step_time_s),
          r.report.mfu ? fmt::format("{:.1f}%", *r.report.mfu * 100) : "-",
          thousands(r.report.tokens_per_s), fmt::format("{:.4f}", r.report.bubble_fraction_of_step),
          fmt::format("{:.4f}", r.report.pipeline_time_s > 0
                                    ? r.report.idle.communication_s / r.report.pipeline_time_s
                                    : 0.0),
          format_bytes(r.peak_memory) + (r.tight ? "~" : " "));
    }
    if (fit > top) o += fmt::format("… and {} more that fit (--top N shows more)\n", fit - top);
    // The "~" legend where a row shown is tight; when the fastest is, the fastest with room too.
    const std::string tight_legend = fmt::format(
        "~: tight, over {} usable (the GPU's {} less the caching allocator's fragmentation, "
        "memory.fragmentation {:g} %): PyTorch's default allocator may run out, or slow down "
        "flushing its cache",
        format_bytes(usable_limit(base, options)), format_bytes(base.cluster.gpu.memory),
        base.memory.fragmentation * 100);
    if (results.front().tight) {
      const SearchResult* roomy = fastest_with_room(results);
      o +=
          tight_legend +
          (!roomy
               ? std::string("; every layout that fits is tight")
               : fmt::format(
                     "; the fastest with room: #{}, {}, {} ({:+.1f} %)", roomy - results.data() + 1,
                     roomy->layout.words(true), format_time(roomy->report.step_time_s),
                     100 * (roomy->report.step_time_s / results.front().report.step_time_s - 1))) +
          "\n";
    } else if (std::any_of(results.begin(), results.begin() + static_cast<long>(std::min(fit, top)),
                           [](const SearchResult& r) { return r.tight; })) {
      o += tight_legend + "\n";
    }
    if (eager_per_kernel > 0)
      o += fmt::format(
          "!: its GPU has less compute per kernel than eager PyTorch's CPU takes to issue one "
          "({}): without CUDA graphs its CPU, not its GPU, would set the pace (the run report's "
          "`CPU launches` line; search with training.runtime: eager or fused to price it)\n",
          format_time(eager_per_kernel));
    std::size_t front = 0;
    for (const auto& r : results) front += r.pareto ? 1 : 0;
    o += fmt::format(
        "*: on the Pareto front of step time and memory ({} layout{}: none of the others is both "
        "faster and smaller); sp: sequence parallelism; ovl: TP comm-GEMM overlap; {}bubble: "
        "the schedule's own idle / a balanced pipeline's time; comm: stage idle waiting on "
        "communication / pipeline phase; GPU memory: the peak of the fullest GPU, within {}\n",
        front, front == 1 ? "" : "s",
        fmt::format(
            "{}{}",
            with_precision ? "prec: training precision (MFU against the 16-bit peak for fp8 too); "
                           : "",
            with_offload ? "offl: opt, optimizer offloaded to the host CPU (ZeRO-Offload); aN, "
                           "the activations of N layers per stage offloaded to host memory; "
                         : ""),
        limit_words);
    // The memory assumption a Megatron user's layouts turn on: its fp32 gradient buffer is 2 bytes
    // a parameter more than the default 16-bit gradients (the 70B's fastest fitting layout moves).
    if (base.model && !base.training.fp32_grad_accumulation)
      o += "gradients: 16-bit (training.fp32_grad_accumulation: false); Megatron keeps an fp32 "
           "buffer, 2 bytes a parameter more: --set training.fp32_grad_accumulation=true\n";
    // Dimensions the search held at the scenario's value that could make a fitting layout
    // faster: interleaved stages where a pipeline ran, TP comm-GEMM overlap where TP ran.
    {
      bool pipelines = false, tensor = false, vpp_varied = false, overlap_varied = false;
      bool ep_varied = false, cp_varied = false;
      const LayoutCandidate& first = results.front().layout;
      for (const SearchResult& r : results) {
        ep_varied = ep_varied || r.layout.ep != first.ep;
        cp_varied = cp_varied || r.layout.cp != first.cp;
        if (!r.ran()) continue;
        vpp_varied = vpp_varied || r.layout.vpp != first.vpp;
        overlap_varied = overlap_varied || r.layout.tp_overlap != first.tp_overlap;
        if (r.out_of_memory) continue;
        pipelines = pipelines || r.layout.pp > 1;
        tensor = tensor || r.layout.tp > 1;
      }
      std::vector<std::string> untried;
      if (pipelines && !vpp_varied && first.vpp == 1)
        untried.emplace_back("interleaved stages (--vpp 1,2,4 --schedules 1f1b,interleaved-1f1b)");
      if (tensor && !overlap_varied && !first.tp_overlap)
        untried.emplace_back("TP comm-GEMM overlap (--tp-overlap off,on)");
      // A mixture of experts searched at one expert-parallel degree (the scenario's), and a long
      // sequence at one context-parallel degree: the degrees that change its answer most.
      if (base.model && base.model->is_moe() && !ep_varied)
        untried.emplace_back(
            fmt::format("expert parallelism (--ep 1,2,4,8; held at {})", first.ep));
      // Experts under TP at one width: whole on each TP rank (Megatron-core's DeepSeek-V3
      // recipes) or split over them.
      if (base.model && base.model->is_moe() && tensor && !(some_whole && some_split))
        untried.emplace_back(fmt::format("whole experts under TP (--etp tp,1; held at {})",
                                         some_whole ? "1" : "tp"));
      if (base.model && base.training.seq_len >= 32768 && !cp_varied)
        untried.emplace_back(
            fmt::format("context parallelism (--cp 1,2,4,8; held at {})", first.cp));
      if (!untried.empty())
        o += fmt::format("not tried, and may be faster: {}\n", fmt::join(untried, "; "));
    }
    if (const std::string m = measured_pace_line(measured_pace(base), results); !m.empty())
      o += m + "\n";
    o += search_record_lines(base.cluster.gpu.name);
  } else if (oom > 0) {
    o += fmt::format("no layout fits in {}\n", limit_words);
  } else {
    o += "no layout can run (why below)\n";
  }
  // A layout named alone, apart from the table's columns: its ZeRO stage said even when 0 (the
  // layouts that fit may all shard, and one that does not is why it needs more).
  const auto named = [](const LayoutCandidate& c) { return c.words(true); };
  if (oom > 0) {
    const SearchResult& r = results[fit];
    o += fmt::format("out of memory: {}; the fastest, {}, takes {} but needs {} of {}\n",
                     layouts(oom), named(r.layout), format_time(r.report.step_time_s),
                     format_bytes(r.peak_memory), limit_words);
  }
  if (ruled > 0) {
    std::size_t by_static = 0;
    for (const auto& r : results) by_static += r.ruled_out && r.memory_bound == 0 ? 1 : 0;
    const auto it = std::min_element(results.begin(), results.end(),
                                     [](const SearchResult& a, const SearchResult& b) {
                                       return (a.ruled_out ? a.known_memory() : 1e300) <
                                              (b.ruled_out ? b.known_memory() : 1e300);
                                     });
    const std::size_t by_activations = ruled - by_static;
    const std::string why =
        by_activations == 0 ? "by weights, gradients, optimizer states and buffers alone"
        : by_static == 0    ? "with the activations their schedule keeps in flight"
                            : fmt::format(
                                  "{} by weights, gradients, optimizer states and buffers alone, "
                                     "{} with the activations their schedule keeps in flight",
                                  by_static, by_activations);
    o += fmt::format("ruled out before simulating: {} over {}, {} (the smallest, {}, needs {})\n",
                     layouts(ruled), limit_words, why, named(it->layout),
                     format_bytes(it->known_memory()));
  }
  if (failed > 0) {
    // Group the reasons: messages that differ only in their numbers are one reason.
    struct Reason {
      std::string shape;
      const SearchResult* first;
      std::size_t count;
    };
    std::vector<Reason> reasons;
    for (std::size_t i = fit + oom + ruled; i < results.size(); ++i) {
      std::string shape;
      for (char ch : results[i].error)
        if (!std::isdigit(static_cast<unsigned char>(ch)))
          shape += ch;
        else if (shape.empty() || shape.back() != '#')
          shape += '#';
      auto it = std::find_if(reasons.begin(), reasons.end(),
                             [&](const Reason& r) { return r.shape == shape; });
      if (it == reasons.end())
        reasons.push_back({shape, &results[i], 1});
      else
        ++it->count;
    }
    std::stable_sort(reasons.begin(), reasons.end(),
                     [](const Reason& a, const Reason& b) { return a.count > b.count; });
    o += fmt::format("cannot run: {} (all in --json), for {} reason{}:\n", layouts(failed),
                     reasons.size(), reasons.size() == 1 ? "" : "s");
    for (std::size_t i = 0; i < std::min<std::size_t>(reasons.size(), 3); ++i)
      o += fmt::format("  {} like {}: {}\n", layouts(reasons[i].count),
                       reasons[i].first->layout.words(), reasons[i].first->error);
    if (reasons.size() > 3) o += fmt::format("  … and {} more reasons\n", reasons.size() - 3);
  }
  return o;
}

nlohmann::json search_to_json(const Scenario& base, const std::vector<SearchResult>& results,
                              const SearchOptions& options) {
  nlohmann::json j;
  j["scenario"] = base.source.empty() ? base.name : base.source;
  j["gpus"] = base.cluster.gpus();
  j["memory_limit_bytes"] = memory_limit(base, options);
  j["usable_limit_bytes"] = usable_limit(base, options);
  if (const auto p = measured_pace(base))
    j["measured_pace"] = {{"measured_step_s", p->measured_s},
                          {"predicted_step_s", p->predicted_s},
                          {"pace", p->pace()},
                          {"source", p->source}};
  else
    j["measured_pace"] = nullptr;
  j["results"] = nlohmann::json::array();
  for (const auto& r : results) {
    const LayoutCandidate& c = r.layout;
    nlohmann::json one;
    one["layout"] = {
        {"dp", c.dp},
        {"tp", c.tp},
        {"pp", c.pp},
        {"vpp", c.vpp},
        {"micro_batch_size", c.micro_batch_size},
        {"schedule", c.schedule.empty() ? base.schedule.name : c.schedule},
        {"zero", c.zero},
        {"sequence_parallel", c.sequence_parallel},
        {"recompute", recompute_name(c.recompute)},
        {"recompute_layers",
         c.recompute_layers > 0 ? nlohmann::json(c.recompute_layers) : nlohmann::json(nullptr)},
        {"tp_overlap", c.tp_overlap},
        {"ep", c.ep},
        {"etp", c.etp == 1 ? 1 : c.tp},
        {"cp", c.cp},
        {"precision", precision_name(c.precision)},
        {"offload", offload_name(c.offload)},
        {"offload_activations", c.offload_activations}};
    one["ran"] = r.ran();
    one["error"] = r.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.error);
    one["out_of_memory"] = r.out_of_memory || r.ruled_out;
    one["tight"] = r.tight;
    one["ruled_out"] = r.ruled_out;
    one["static_memory_bytes"] = r.static_memory;
    one["memory_bound_bytes"] = r.memory_bound;
    one["pareto"] = r.pareto;
    // Not simulated (ruled out or refused): no peak, null rather than 0 (a sort by memory would
    // put the largest layouts first); static_memory_bytes and memory_bound_bytes say what is known.
    one["peak_memory_bytes"] = r.ran() ? nlohmann::json(r.peak_memory) : nlohmann::json(nullptr);
    one["report"] = r.ran() ? report_to_json(r.report) : nlohmann::json(nullptr);
    j["results"].push_back(std::move(one));
  }
  j["validation_ranking"] = ranking_summary_to_json(validation_ranking());
  j["validation_by_tp"] = validation_by_tp_to_json();
  return j;
}

std::string search_to_csv(const Scenario& base, const std::vector<SearchResult>& results) {
  // RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
  const auto field = [](const std::string& v) {
    if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
    std::string q = "\"";
    for (char ch : v) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  };
  std::string o =
      "rank,dp,tp,pp,vpp,micro_batch_size,microbatches,schedule,zero,sequence_parallel,"
      "recompute,recompute_layers,tp_overlap,ep,etp,cp,precision,offload,offload_activations,ran,"
      "fits,"
      "tight,ruled_out,pareto,"
      "step_time_s,mfu,tokens_per_s,"
      "bubble_fraction_of_step,peak_memory_bytes,static_memory_bytes,memory_bound_bytes,error\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const SearchResult& r = results[i];
    const LayoutCandidate& c = r.layout;
    const bool ran = r.ran();
    o += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},"
        "{},{}\n",
        i + 1, c.dp, c.tp, c.pp, c.vpp, c.micro_batch_size,
        ran ? std::to_string(r.report.microbatches) : std::string(),
        field(c.schedule.empty() ? base.schedule.name : c.schedule), c.zero, c.sequence_parallel,
        recompute_name(c.recompute),
        c.recompute_layers > 0 ? std::to_string(c.recompute_layers) : std::string(), c.tp_overlap,
        c.ep, c.etp == 1 ? 1 : c.tp, c.cp, precision_name(c.precision), offload_name(c.offload),
        c.offload_activations, ran, ran && !r.out_of_memory, r.tight, r.ruled_out, r.pareto,
        ran ? fmt::format("{:.9g}", r.report.step_time_s) : std::string(),
        ran && r.report.mfu ? fmt::format("{:.6g}", *r.report.mfu) : std::string(),
        ran ? fmt::format("{:.9g}", r.report.tokens_per_s) : std::string(),
        ran ? fmt::format("{:.6g}", r.report.bubble_fraction_of_step) : std::string(),
        ran ? fmt::format("{:.0f}", r.peak_memory) : std::string(),
        fmt::format("{:.0f}", r.static_memory), fmt::format("{:.0f}", r.memory_bound),
        field(r.error));
  }
  return o;
}

}  // namespace trainsim
