#pragma once
// The checks that relate a Scenario's values to one another (the layout's GPUs and the cluster's,
// the batch and dp × micro-batch, tp and the heads, stages and layers, per-stage costs and pp,
// straggler ranks and the world) and the ranges of the values code edits. The loader runs it
// after parsing; code that edits a Scenario value (compare's retry at another vpp, the layout
// search) runs it again, so an edited value is held to the same rules as a parsed one.
#include <optional>  // std::optional
#include <string>    // std::string
#include <utility>   // std::pair

#include "scenario/scenario.h"

namespace trainsim {

/// Throws ScenarioError naming the key at fault and where its value came from
/// (Scenario::where: the file and line, the `--set`, or the code that set it).
void validate(const Scenario& s);

/// The data-parallel degree that makes the layout cover the cluster's GPUs when it does not
/// (a changed node count, a left-out dp): the GPUs over cp · tp · pp where that divides; nullopt
/// when the layout already covers them, there is no cluster, or no dp fits.
std::optional<int> dp_filling_gpus(const Scenario& s);

/// Why `l`'s expert-parallel degree cannot run model `m` (null: a costs-only study), or nothing
/// when it can (ep 1 always can): ep must divide dp · cp and the experts of a mixture of experts,
/// and neither ZeRO-3 nor gathering the parameters with the next forward is modelled with it.
/// validate() reports it on parallelism.ep; the layout search leaves such layouts out.
std::optional<std::string> expert_parallel_refusal(const Layout& l, const ModelSpec* m);
/// Why `l`'s expert tensor parallelism cannot run model `m`, or nothing: etp must be tp (its
/// default, 0) or 1, and experts whole on each TP rank (etp 1, tp > 1) need sequence parallelism
/// (each TP rank routes its own shard of the tokens) and neither ZeRO-3 nor gathering the
/// parameters with the next forward. validate() reports it on parallelism.etp; the layout
/// search leaves such layouts out.
std::optional<std::string> expert_tp_refusal(const Layout& l, const ModelSpec* m);
/// Why `l`'s context parallelism cannot run with `t` (the key to blame and the reason), or
/// nullopt (also without CP).
std::optional<std::pair<std::string, std::string>> context_parallel_refusal(const Layout& l,
                                                                            const TrainingSpec& t);

}  // namespace trainsim
