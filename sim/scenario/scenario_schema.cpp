#include "scenario/scenario_schema.h"

#include <cassert>      // assert
#include <filesystem>   // std::filesystem::status
#include <type_traits>  // std::is_enum_v, …

#include <fmt/format.h>

#include "scenario/limits.h"

namespace trainsim {
namespace {

using namespace limits;
using Kind = ValueRule::Kind;
/// An integer key with no limit of its own (a count far beyond any real one).
constexpr long long kMaxCount = 1LL << 30;

ValueRule rule(Kind kind, double min = 0, double max = 0) {
  ValueRule r;
  r.kind = kind;
  r.min = min;
  r.max = max;
  return r;
}
ValueRule none() {
  return rule(Kind::None);
}
ValueRule map() {
  return rule(Kind::Map);
}
ValueRule list() {
  return rule(Kind::List);
}
ValueRule text() {
  return rule(Kind::Text);
}
ValueRule path() {
  return rule(Kind::Path);
}
ValueRule boolean() {
  return rule(Kind::Bool);
}
ValueRule times() {
  return rule(Kind::Times);
}
ValueRule integer(long long min, long long max) {
  return rule(Kind::Integer, static_cast<double>(min), static_cast<double>(max));
}
ValueRule ranks(long long min, long long max) {
  return rule(Kind::Ranks, static_cast<double>(min), static_cast<double>(max));
}
ValueRule integers(long long min, long long max) {
  return rule(Kind::Integers, static_cast<double>(min), static_cast<double>(max));
}
ValueRule number(double min, double max) {
  return rule(Kind::Number, min, max);
}
// A share or a ratio: a number, or the same as a percentage ("11.5%" is 0.115).
ValueRule fraction(double min, double max) {
  ValueRule r = rule(Kind::Number, min, max);
  r.percent = true;
  return r;
}
ValueRule choice(std::vector<std::string_view> names,
                 std::vector<std::pair<std::string_view, std::string_view>> known_as = {}) {
  ValueRule r = rule(Kind::Choice);
  r.choices = std::move(names);
  r.known_as = std::move(known_as);
  return r;
}
ValueRule quantity(Dimension dim, bool positive) {
  ValueRule r = rule(Kind::Quantity);
  r.dim = dim;
  r.positive = positive;
  return r;
}

// A member reached through a chain of member pointers. Putting a value fills an optional on the
// way (a `costs:` key creates the costs) and goes into a list's last entry (the one the loader
// is reading); getting one stops at an empty optional.
template <class T>
T* put_step(T& x) {
  return &x;
}
template <class T>
T* put_step(std::optional<T>& x) {
  if (!x) x.emplace();
  return &*x;
}
template <class T>
T* put_step(std::vector<T>& v) {
  assert(!v.empty() && "a list entry's key before its entry");
  return &v.back();
}
template <class T>
const T* get_step(const T& x) {
  return &x;
}
template <class T>
const T* get_step(const std::optional<T>& x) {
  return x ? &*x : nullptr;
}

template <auto M, auto... Ms, class Obj>
auto* put_path(Obj& o) {
  auto* next = put_step(o.*M);
  if constexpr (sizeof...(Ms) == 0)
    return next;
  else
    return put_path<Ms...>(*next);
}
template <auto M, auto... Ms, class Obj>
auto get_path(const Obj& o) {
  const auto* next = get_step(o.*M);
  if constexpr (sizeof...(Ms) == 0) {
    return next;
  } else {
    using Result = decltype(get_path<Ms...>(*next));
    return next ? get_path<Ms...>(*next) : Result(nullptr);
  }
}

template <class T>
void put_leaf(T& out, const KeyValue& v) {
  if constexpr (std::is_same_v<T, bool>)
    out = v.flag;
  else if constexpr (std::is_enum_v<T> || std::is_integral_v<T>)
    out = static_cast<T>(v.integer);  // a choice's index is its enum's value
  else if constexpr (std::is_floating_point_v<T>)
    out = v.number;
  else
    out = v.text;
}
template <class T>
KeyValue get_leaf(const T& x) {
  KeyValue v;
  if constexpr (std::is_same_v<T, bool>)
    v.flag = x;
  else if constexpr (std::is_enum_v<T> || std::is_integral_v<T>)
    v.integer = static_cast<long long>(x);
  else if constexpr (std::is_floating_point_v<T>)
    v.number = x;
  else
    v.text = x;
  return v;
}

template <auto... Ms>
std::string put(Scenario& s, const KeyValue& v) {
  put_leaf(*put_path<Ms...>(s), v);
  return {};
}
template <auto... Ms>
std::optional<KeyValue> get(const Scenario& s) {
  const auto* p = get_path<Ms...>(s);
  if (!p) return std::nullopt;
  return get_leaf(*p);
}
/// A plain member: put and get.
template <auto... Ms>
KeyAccess field() {
  return {put<Ms...>, get<Ms...>};
}
/// A time held as integer nanoseconds (the value's `integer`); its `number` is in seconds.
template <auto... Ms>
KeyAccess time_field() {
  return {[](Scenario& s, const KeyValue& v) {
            *put_path<Ms...>(s) = v.integer;
            return std::string();
          },
          [](const Scenario& s) -> std::optional<KeyValue> {
            const auto* p = get_path<Ms...>(s);
            if (!p) return std::nullopt;
            KeyValue v;
            v.integer = *p;
            v.number = to_seconds(*p);
            return v;
          }};
}
/// Read and checked, but changes nothing (`description`).
KeyAccess ignore() {
  return {[](Scenario&, const KeyValue&) { return std::string(); }, nullptr};
}

// A quantity's base unit, as parse_quantity reads it back.
const char* unit_symbol(Dimension dim) {
  switch (dim) {
    case Dimension::Time:
      return "s";
    case Dimension::Bytes:
      return "B";
    case Dimension::Bandwidth:
      return "B/s";
    case Dimension::Flops:
      return "FLOPS";
    case Dimension::Money:
      return "";
  }
  return "";
}

// The keys whose value needs more than a member.

std::optional<KeyValue> get_seq_len(const Scenario& s) {  // a costs-only study has none
  if (!s.model) return std::nullopt;
  return get<&Scenario::training, &TrainingSpec::seq_len>(s);
}

// 0 is "one NIC per GPU": the node's GPUs (`--json` echoes the count in effect).
std::optional<KeyValue> get_nics(const Scenario& s) {
  KeyValue v;
  v.integer = s.cluster.inter_node.nics == 0 ? s.cluster.gpus_per_node : s.cluster.inter_node.nics;
  return v;
}

// 0 is "every layer": no number of layers (`--json` echoes null).
std::optional<KeyValue> get_recompute_layers(const Scenario& s) {
  if (s.training.recompute_layers == 0) return std::nullopt;
  return get<&Scenario::training, &TrainingSpec::recompute_layers>(s);
}

// The routed experts' TP degree where a scenario gives it; none where it follows tp (so a change
// of tp is one setting's, not two).
std::optional<KeyValue> get_etp(const Scenario& s) {
  if (s.layout.etp <= 0) return std::nullopt;
  return get_leaf(s.layout.etp);
}

// The model's head size d: the given one, else h / a (shown so, and given back explicitly).
std::optional<KeyValue> get_head_dim(const Scenario& s) {
  if (!s.model) return std::nullopt;
  KeyValue v;
  v.integer = s.model->head_dim();
  return v;
}

// A dense model has no top-k (nor a MoE one that has not given it: validate() says it is
// required); an expert's width 0 (the default) is "the model's ffn_hidden".
std::optional<KeyValue> get_top_k(const Scenario& s) {
  if (!s.model || !s.model->is_moe() || s.model->moe.top_k == 0) return std::nullopt;
  return get<&Scenario::model, &ModelSpec::moe, &MoeSpec::top_k>(s);
}
std::optional<KeyValue> get_expert_ffn(const Scenario& s) {
  if (!s.model || !s.model->is_moe()) return std::nullopt;
  KeyValue v;
  v.integer = s.model->expert_ffn();
  return v;
}

// Latent attention's head widths: none for other attention (nor before they are given:
// validate() says they are required).
template <auto M>
std::optional<KeyValue> get_mla_width(const Scenario& s) {
  if (!s.model || !s.model->is_mla() || s.model->mla.*M == 0) return std::nullopt;
  KeyValue v;
  v.integer = s.model->mla.*M;
  return v;
}

// 16-bit reductions run in the training precision, so only its name is accepted.
std::string put_grad_reduce(Scenario& s, const KeyValue& v) {
  const std::string half = s.training.precision == Precision::FP16 ? "fp16" : "bf16";
  if (v.text != "fp32" && v.text != half)
    return fmt::format("expected one of fp32, {}, got {}", half, v.text);
  s.training.grad_reduce = v.text == "fp32" ? GradReduce::FP32 : GradReduce::Half;
  return {};
}
std::optional<KeyValue> get_grad_reduce(const Scenario& s) {
  KeyValue v;
  v.text = grad_reduce_bytes(s.training) == 4.0      ? "fp32"
           : s.training.precision == Precision::FP16 ? "fp16"
                                                     : "bf16";
  v.integer = v.text == "fp32" ? 0 : v.text == "bf16" ? 1 : 2;
  return v;
}

// The comma-separated items of a text value, spaces removed; an empty item (",x", "x,,y",
// "x,") stays, so the caller refuses it.
std::vector<std::string> comma_items(const std::string& text) {
  std::vector<std::string> items(1);
  for (char ch : text)
    if (ch == ',')
      items.emplace_back();
    else if (ch != ' ')
      items.back() += ch;
  return items;
}

// training.`*Field`, a subset of the named flags of `Names` (training.eager_ops,
// training.recompute_modules): `none`, or names each at most once, comma-separated; anything else
// (an unknown or empty name, `none` among others, a repeat) is refused with the names allowed.
template <auto Field, const auto& Names>
std::string put_flags(Scenario& s, const KeyValue& v) {
  typename std::remove_reference_t<decltype(s.training.*Field)>::value_type value{};
  std::string allowed;
  for (const auto& [member, name] : Names) {
    value.*member = false;
    allowed += (allowed.empty() ? "" : ", ") + std::string(name);
  }
  const std::string bad =
      "expected `none` or a comma-separated subset of " + allowed + ", got \"" + v.text + "\"";
  const std::vector<std::string> items = comma_items(v.text);
  if (items.size() != 1 || items[0] != "none")
    for (const std::string& item : items) {
      bool* flag = nullptr;
      for (const auto& [member, name] : Names)
        if (item == name) flag = &(value.*member);
      if (!flag || *flag) return bad;
      *flag = true;
    }
  s.training.*Field = value;
  return {};
}

std::optional<KeyValue> get_eager_ops(const Scenario& s) {
  KeyValue v;
  v.text = flag_names(eager_ops(s.training), kEagerOpNames);
  return v;
}

std::optional<KeyValue> get_fp8_casts(const Scenario& s) {
  KeyValue v;
  v.text = flag_names(s.training.fp8_standalone_casts.value_or(Fp8Casts{}), kFp8CastNames);
  return v;
}

std::optional<KeyValue> get_lora_targets(const Scenario& s) {
  if (s.training.lora_rank <= 0) return std::nullopt;
  KeyValue v;
  v.text = flag_names(lora_targets(s.training), kLoraTargetNames);
  return v;
}

std::optional<KeyValue> get_recompute_modules(const Scenario& s) {
  if (s.training.recompute != Recompute::Selective) return std::nullopt;
  KeyValue v;
  v.text = flag_names(recompute_modules(s.training), kRecomputeModuleNames);
  return v;
}

// training.cudnn_version: MAJOR.MINOR, optionally with the patch and build (which change nothing
// here), e.g. "9.13", "9.13.1" or "9.13.1.26" (as NGC's release notes and the logs spell it).
std::string put_cudnn_version(Scenario& s, const KeyValue& v) {
  const std::string bad =
      "expected a cuDNN release as MAJOR.MINOR (e.g. 9.13), got \"" + v.text + "\"";
  std::vector<int> parts;
  std::string digits;
  bool leading_zero = false;
  for (std::size_t i = 0; i <= v.text.size(); ++i) {
    if (i == v.text.size() || v.text[i] == '.') {
      if (digits.empty() || digits.size() > 3) return bad;
      leading_zero = leading_zero || (digits.size() > 1 && digits[0] == '0');
      parts.push_back(std::stoi(digits));
      digits.clear();
    } else if (v.text[i] >= '0' && v.text[i] <= '9') {
      digits += v.text[i];
    } else {
      return bad;
    }
  }
  if (parts.size() < 2 || parts.size() > 4) return bad;
  const CudnnVersion release{parts[0], parts[1]};
  // From 8.9, cuDNN's first fused flash attention, to 10.x; an NGC container's tag (25.09) is not
  // a release and is not read as one.
  if (release < CudnnVersion{8, 9} || release.major > 10)
    return "expected a cuDNN release from 8.9 (its first fused flash attention) to 10.x, got \"" +
           v.text +
           "\" (an NGC container's tag such as 25.09 is not one: its release notes name the "
           "cuDNN it ships)";
  if (leading_zero) return bad;  // 9.04 is no release's spelling
  s.training.cudnn_version = release;
  return {};
}
std::optional<KeyValue> get_cudnn_version(const Scenario& s) {
  if (!s.training.cudnn_version) return std::nullopt;
  KeyValue v;
  v.text = fmt::format("{}.{}", s.training.cudnn_version->major, s.training.cudnn_version->minor);
  return v;
}

std::string put_rank_order(Scenario& s, const KeyValue& v) {
  const std::string bad =
      "expected a permutation of \"tp,dp,pp\" (fastest first), got \"" + v.text + "\"";
  const std::vector<std::string> parts = comma_items(v.text);
  if (parts.size() != 3) return bad;
  std::array<Axis, 3> order{};
  bool seen[3] = {false, false, false};
  for (std::size_t i = 0; i < 3; ++i) {
    const int a = parts[i] == "tp" ? 0 : parts[i] == "dp" ? 1 : parts[i] == "pp" ? 2 : -1;
    if (a < 0 || seen[a]) return bad;
    seen[a] = true;
    order[i] = static_cast<Axis>(a);
  }
  s.layout.order = order;
  return {};
}
std::optional<KeyValue> get_rank_order(const Scenario& s) {
  KeyValue v;
  v.text = order_to_string(s.layout.order);
  return v;
}

// A two-way choice held as a layout bool: the choice at index `on` sets it
// (parallelism.param_gather: 1, "with-next-forward").
template <bool Layout::*M, int on>
std::string put_layout_flag(Scenario& s, const KeyValue& v) {
  s.layout.*M = v.integer == on;
  return {};
}
template <bool Layout::*M, int on>
std::optional<KeyValue> get_layout_flag(const Scenario& s) {
  KeyValue v;
  v.integer = s.layout.*M ? on : 1 - on;
  return v;
}

std::string put_schedule_csv(Scenario& s, const KeyValue& v) {
  s.schedule.csv = v.text;
  s.schedule.name = "csv";
  return {};
}

/// A stage-time list of the costs; one time stands for every stage.
template <auto M>
std::string put_times(Scenario& s, const KeyValue& v) {
  std::vector<TimeNs>& out = (*put_path<&Scenario::costs>(s)).*M;
  if (v.one_item)
    out.assign(static_cast<std::size_t>(s.layout.pp), v.items.front());
  else
    out.assign(v.items.begin(), v.items.end());
  return {};
}

std::string put_calibration(Scenario& s, const KeyValue& v) {
  std::error_code ec;
  const auto kind = std::filesystem::status(v.text, ec).type();
  if (kind == std::filesystem::file_type::not_found || ec)
    return fmt::format("\"{}\" does not exist (a JSON profile from trainsim-calibrate)", v.text);
  if (kind != std::filesystem::file_type::regular)
    return fmt::format(
        "\"{}\" is {}, expected a JSON profile file from trainsim-calibrate", v.text,
        kind == std::filesystem::file_type::directory ? "a directory" : "not a regular file");
  if (!s.model) return "needs a model: the profile replaces analytic durations";
  s.calibration = v.text;
  return {};
}

std::string put_slowdown_entry(Scenario& s, const KeyValue&) {
  s.slowdowns.emplace_back();
  return {};
}
std::string put_slowdown_rank(Scenario& s, const KeyValue& v) {
  put_step(s.slowdowns)->ranks.push_back(static_cast<int>(v.integer));
  return {};
}
std::string put_slowdown_ranks(Scenario& s, const KeyValue& v) {
  for (long long r : v.items) put_step(s.slowdowns)->ranks.push_back(static_cast<int>(r));
  return {};
}

std::string put_split_layers(Scenario& s, const KeyValue& v) {
  s.layout.split.layers.assign(v.items.begin(), v.items.end());
  return {};
}
std::optional<KeyValue> get_split_layers(const Scenario& s) {
  if (s.layout.split.layers.empty()) return std::nullopt;  // the even split
  KeyValue v;
  v.items.assign(s.layout.split.layers.begin(), s.layout.split.layers.end());
  return v;
}

std::string put_measured_series(Scenario& s, const KeyValue& v) {
  if (v.text.empty()) return "give the series a name (the runs measured together share it)";
  put_step(s.measured)->series = v.text;
  return {};
}

std::string put_measured_memory(Scenario& s, const KeyValue& v) {
  put_step(s.measured)->peak_memory = v.number;
  return {};
}

template <Measured::Metric M>
std::string put_measured(Scenario& s, const KeyValue& v) {
  Measured& m = *put_step(s.measured);
  m.metric = M;
  m.value = M == Measured::Metric::TflopsPerGpu ? v.number / 1e12 : v.number;
  return {};
}

}  // namespace

const std::vector<SchemaKey>& scenario_keys() {
  static const std::vector<SchemaKey> kKeys{
      {"name", "text", "file name", "label in reports and trace file names", text(),
       field<&Scenario::name>()},
      {"description", "text", "—", "free text, ignored", text(), ignore()},
      {"model", "preset name or map", "required unless `costs`", "the transformer", none(), {}},
      {"model.preset",
       "preset name",
       "—",
       "start from a preset, override single keys (`--set model.layers=8` widens `model: <preset>` "
       "to this)",
       none(),
       {}},
      {"model.hf_config",
       "path",
       "—",
       "a Hugging Face `config.json` (relative to the scenario file), read by its `model_type` "
       "(llama, mistral, qwen2, qwen3, gemma, gemma2, phi3, olmo2, gpt_neox, gptj, phi, gpt2, opt, "
       "bloom, falcon, mpt, and the mixtures of experts mixtral, qwen2_moe, qwen3_moe, olmoe, "
       "deepseek_v2, deepseek_v3: gated or plain MLP, tied head, positions, norm, experts and "
       "latent attention as the family defines them) or, without one, by Llama's key names; "
       "`head_dim` is read; other mixtures of experts, MoE layer patterns and modules not "
       "modelled are refused by the field's name (`sim/scenario/hf_config.h`)",
       path(),
       {}},
      {"model.name", "text", "the preset's or config's", "the model's label in reports", text(),
       field<&Scenario::model, &ModelSpec::name>()},
      {"model.layers", "integer ≥ 1", "preset", "decoder layers L", integer(1, kMaxLayers),
       field<&Scenario::model, &ModelSpec::layers>()},
      {"model.hidden", "integer ≥ 1", "preset", "hidden size h", integer(1, kMaxWidth),
       field<&Scenario::model, &ModelSpec::hidden>()},
      {"model.ffn_hidden", "integer ≥ 1", "preset", "MLP inner size f", integer(1, kMaxWidth),
       field<&Scenario::model, &ModelSpec::ffn_hidden>()},
      {"model.heads", "integer ≥ 1", "preset",
       "attention heads a (must divide h unless `head_dim` is given)", integer(1, kMaxHeads),
       field<&Scenario::model, &ModelSpec::heads>()},
      {"model.kv_heads", "integer ≥ 1", "`heads`", "key/value heads k (GQA; must divide a)",
       integer(1, kMaxHeads), field<&Scenario::model, &ModelSpec::kv_heads>()},
      {"model.vocab", "integer ≥ 1", "preset", "vocabulary V", integer(1, kMaxVocab),
       field<&Scenario::model, &ModelSpec::vocab>()},
      {"model.tied_embeddings", "bool", "preset / false",
       "LM head shares the embedding; over a pipeline (the two on different ranks) the first and "
       "last stage all-reduce its gradient before the optimizer step (Megatron-core's embedding "
       "group); on one stage autograd sums the lookup's and the head's gradients of the table "
       "every micro-batch (6 bytes per element), unless Megatron's fused fp32 main gradient "
       "(`fp32_grad_accumulation` without `runtime: eager`) takes each",
       boolean(), field<&Scenario::model, &ModelSpec::tied_embeddings>()},
      {"model.linear_bias", "bool", "false",
       "biases on the attention's and the MLP's projections (GPT-2/3, OPT, BLOOM, Megatron's "
       "default `--add-bias-linear`). Free where a framework fuses them into its GEMMs' "
       "epilogues and fused kernels (Transformer Engine, Megatron-core); with `training.eager_ops` "
       "`bias` (legacy Megatron-LM and Megatron-DeepSpeed) the forward adds the QKV projection's "
       "bias and, with SwiGLU, the MLP's up projection's as kernels of their own (4 bytes per "
       "output element; the others join the fused bias-GELU and bias-dropout-add) and the "
       "backward sums every bias's gradient over the tokens (`grad_output.sum(0)`: 2 bytes per "
       "output element), `bias.add` and `bias.grad` in `trainsim kernels`. Their parameters "
       "(under 0.05 % of a layer's) are not counted",
       boolean(), field<&Scenario::model, &ModelSpec::linear_bias>()},
      {"model.mlp", "`swiglu` or `gelu`", "`swiglu`", "3 or 2 MLP matrices",
       choice({"swiglu", "gelu"}), field<&Scenario::model, &ModelSpec::mlp>()},
      {"model.position_embedding", "`rope`, `learned`, `alibi`", "`rope`",
       "rotary costs a kernel on q and k per layer; learned (GPT-2/3) and ALiBi (MPT, BLOOM) cost "
       "nothing measurable in time. A learned table holds a row of `hidden` per position up to "
       "`training.seq_len` on the embedding's stage, whole on every TP rank: in the memory, the "
       "data-parallel traffic and the optimizer, not in the papers' parameter count",
       choice({"rope", "learned", "alibi"}), field<&Scenario::model, &ModelSpec::position>()},
      {"model.norm", "`rmsnorm`, `layernorm`",
       "`rmsnorm` (a Hugging Face config with `layer_norm_eps` and no `rms_norm_eps`: `layernorm`)",
       "the layer's normalization; the same bytes as one fused kernel, but an eager runtime runs "
       "RMSNorm as separate PyTorch ops (LayerNorm stays one kernel)",
       choice({"rmsnorm", "layernorm"}), field<&Scenario::model, &ModelSpec::norm>()},
      {"model.head_dim",
       "integer ≥ 1",
       "h / a",
       "attention head size d, when the model's differs from hidden / heads (Gemma, Qwen3): Q "
       "and the attention output are a·d wide, K and V k·d",
       integer(1, kMaxWidth),
       {put<&Scenario::model, &ModelSpec::head_size>, get_head_dim}},
      {"model.mtp_layers", "integer ≥ 0", "preset (deepseek-v3: 1) / 0",
       "multi-token prediction modules (DeepSeek-V3 §2.2; Megatron-core's `--mtp-num-layers`; a "
       "Hugging Face config's `num_nextn_predict_layers`), on the head's pipeline stage after the "
       "last layer (Megatron-core's placement; the layer split does not count them). Each runs "
       "the embedding lookup of the tokens one further ahead, two norms, their concatenation, a "
       "column-parallel 2h → h projection, a Transformer layer of the model's last kind (with "
       "its TP, EP and CP traffic), the final norm and the shared head and loss (`mtp.*` kernels "
       "and `lm_head` run 1 + N times in `trainsim kernels`). Full recompute replays the block "
       "from the norms to the final norm; `training.recompute_layers` (Megatron-core's block "
       "method) skips it. An untied model's last stage holds a copy of the embedding, whose "
       "gradient it all-reduces with the first stage's as a tied head's (on a DualPipe or "
       "V-shaped rank that also holds the embedding, it shares that one, DeepSeek-V3 §3.2.3). "
       "Its FLOPs count as model FLOPs; its parameters are not in `parameters` (the papers' "
       "count) but in `mtp_parameters`. Not expressible: Megatron-core's layouts (core_v0.13+) "
       "that give the modules a stage of their own",
       integer(0, kMaxLayers), field<&Scenario::model, &ModelSpec::mtp_layers>()},
      {"model.sliding_window", "integer ≥ 0 (tokens)",
       "0 (a Hugging Face config's `sliding_window`)",
       "sliding-window attention (Mistral 7B v0.1, Gemma 2, Phi-3): each token attends to the "
       "last N tokens only. Not modelled: a window at least `training.seq_len` long changes "
       "nothing and is accepted; a shorter one is refused rather than priced as full causal "
       "attention (at twice the window's length that would be 1.33 times the attention's work). "
       "0: none. A config's window with `use_sliding_window: false` (Qwen2) is not read",
       integer(0, kMaxSeqLen), field<&Scenario::model, &ModelSpec::sliding_window>()},
      {"model.moe",
       "map",
       "— (a dense model)",
       "mixture of experts in place of the MLP: a router sends each token to `top_k` of "
       "`experts` MLPs; every GPU holds every expert unless `parallelism.ep` splits them",
       map(),
       {}},
      {"model.moe.experts", "integer ≥ 0", "0", "routed experts E per MoE layer (0: dense)",
       integer(0, kMaxExperts), field<&Scenario::model, &ModelSpec::moe, &MoeSpec::experts>()},
      {"model.moe.top_k",
       "integer ≥ 1",
       "required with `experts`",
       "experts each token is sent to (at most `experts`)",
       integer(1, kMaxExperts),
       {put<&Scenario::model, &ModelSpec::moe, &MoeSpec::top_k>, get_top_k}},
      {"model.moe.ffn_hidden",
       "integer ≥ 1",
       "the model's `ffn_hidden`",
       "one routed expert's MLP inner size",
       integer(1, kMaxWidth),
       {put<&Scenario::model, &ModelSpec::moe, &MoeSpec::ffn_hidden>, get_expert_ffn}},
      {"model.moe.shared_ffn_hidden", "integer ≥ 0", "0",
       "inner size of the shared experts every token also passes (all of them together; "
       "DeepSeek, Qwen-MoE)",
       integer(0, kMaxWidth),
       field<&Scenario::model, &ModelSpec::moe, &MoeSpec::shared_ffn_hidden>()},
      {"model.moe.dense_layers", "integer ≥ 0", "0",
       "the first N layers keep the dense MLP of `ffn_hidden` (DeepSeek's first_k_dense_replace)",
       integer(0, kMaxLayers), field<&Scenario::model, &ModelSpec::moe, &MoeSpec::dense_layers>()},
      {"model.moe.capacity_factor", "1–1024", "1",
       "the busiest expert's tokens over the average (at most experts / top_k): a capacity factor "
       "pads every expert to it (Megatron's --moe-expert-capacity-factor), or dropless routing's "
       "load imbalance, which every rank of an EP group waits for; the expert GEMMs, their "
       "activations and the all-to-all buffers grow by it, the model FLOPs do not, at any "
       "`parallelism.ep`. Without expert parallelism (ep 1) only padding costs (every GPU runs "
       "its tokens' expert rows whatever the routing): leave it 1 there for dropless routing",
       number(1, 1024), field<&Scenario::model, &ModelSpec::moe, &MoeSpec::capacity_factor>()},
      {"model.moe.node_limit", "integer ≥ 0", "0 (deepseek-v3: 4)",
       "node-limited routing (DeepSeek-V3): each token's experts on at most N nodes, so between "
       "nodes of an EP group a token crosses the network once per node and is forwarded to its "
       "experts there over NVLink (at most top_k); its nodes are at most N and no more than its "
       "top_k experts, spread evenly, reach (so a limit past that prices as that); 0: every "
       "routed copy travels on its own. A Hugging Face config's `n_group` / `topk_group` do not "
       "say whether a group is a node or "
       "a GPU: give it here",
       integer(0, kMaxExperts), field<&Scenario::model, &ModelSpec::moe, &MoeSpec::node_limit>()},
      {"model.mla",
       "map",
       "— (grouped-query attention)",
       "DeepSeek's multi-head latent attention (arXiv 2405.04434): K and V projected up from a "
       "`kv_rank`-wide latent, Q from a `q_rank`-wide one; `kv_heads` and `head_dim` do not apply. "
       "Under TP the up projections and the output are split, the down projections to the latents "
       "not (each rank runs them whole, as Megatron-core's MLA does); with "
       "`parallelism.sequence_parallel` they take the rank's own 1/tp of the tokens and the up "
       "projections all-gather the latents (and the shared rotary key), not the hidden state",
       map(),
       {}},
      {"model.mla.q_rank", "integer ≥ 0", "0", "Q's latent width (0: Q projected directly)",
       integer(0, kMaxWidth), field<&Scenario::model, &ModelSpec::mla, &LatentAttention::q_rank>()},
      {"model.mla.kv_rank", "integer ≥ 0", "0", "K and V's latent width (0: not latent attention)",
       integer(0, kMaxWidth),
       field<&Scenario::model, &ModelSpec::mla, &LatentAttention::kv_rank>()},
      {"model.mla.rope_head_dim",
       "integer ≥ 1",
       "required with `kv_rank`",
       "each head's rotary part of q and k (one rotary key shared by the heads)",
       integer(1, kMaxWidth),
       {put<&Scenario::model, &ModelSpec::mla, &LatentAttention::rope_dim>,
        get_mla_width<&LatentAttention::rope_dim>}},
      {"model.mla.nope_head_dim",
       "integer ≥ 1",
       "required with `kv_rank`",
       "each head's part of q and k without rotary embedding",
       integer(1, kMaxWidth),
       {put<&Scenario::model, &ModelSpec::mla, &LatentAttention::nope_dim>,
        get_mla_width<&LatentAttention::nope_dim>}},
      {"model.mla.v_head_dim",
       "integer ≥ 1",
       "required with `kv_rank`",
       "each head's value width",
       integer(1, kMaxWidth),
       {put<&Scenario::model, &ModelSpec::mla, &LatentAttention::v_dim>,
        get_mla_width<&LatentAttention::v_dim>}},
      {"training", "map", "required", "", map(), {}},
      {"training.seq_len",
       "integer ≥ 1",
       "required with a model",
       "tokens per sequence s",
       integer(1, kMaxSeqLen),
       {put<&Scenario::training, &TrainingSpec::seq_len>, get_seq_len}},
      {"training.micro_batch_size", "integer ≥ 1", "1", "sequences per micro-batch b",
       integer(1, kMaxMicroBatch), field<&Scenario::training, &TrainingSpec::micro_batch_size>()},
      {"training.global_batch_size",
       "integer ≥ 1",
       "required (or `microbatches`)",
       "sequences per optimizer step; multiple of dp × b",
       integer(1, kMaxGlobalBatch),
       {nullptr, get<&Scenario::training, &TrainingSpec::global_batch_size>}},
      {"training.microbatches",
       "integer ≥ 1",
       "global / (dp × b)",
       "micro-batches m per pipeline, instead of `global_batch_size`",
       integer(1, kMaxMicrobatches),
       {}},
      {"training.precision", "`bf16`, `fp16`, `fp8`", "`bf16`",
       "2-byte activations and weights. `fp8` (Hopper and Blackwell only), Transformer Engine's "
       "recipe: "
       "the layers' linear GEMMs (not the attention core, the LM head or the router) in FP8 with "
       "per-tensor scaling, at the FP8/bf16 time ratio measured shape by shape on an H100 (also on "
       "Blackwell; on a "
       "preset with a GEMM sweep no faster than FP8 sustains at the power limit; "
       "`sim/cost/fp8_gemm.h`), their operands quantized by cast-transpose kernels (the weights "
       "once per step), an FP8 copy of those weights kept, everything else bf16",
       choice({"bf16", "fp16", "fp8"},
              {{"bfloat16", "bf16"}, {"float16", "fp16"}, {"half", "fp16"}}),
       field<&Scenario::training, &TrainingSpec::precision>()},
      {"training.fp8_params", "bool", "false",
       "with `precision: fp8`, the layers' linear weights kept only in FP8 (Transformer Engine's "
       "FP8 parameters: NeMo's "
       "`fp8_params`, Megatron's `--fp8-param-gather`): their 16-bit copy is gone (2 bytes per "
       "such weight less; the FP8 copy and its transpose stay), the per-step cast of the weights "
       "becomes their transpose on Hopper (2 bytes per element) and nothing on Blackwell, and the "
       "data-parallel parameter "
       "all-gathers (the distributed optimizer's, ZeRO-3's) move 1 byte per such weight instead "
       "of 2, but under `fp8_recipe: mxfp8` with ZeRO-1/2, where Megatron-core gathers them "
       "through its gradient buffer, in its dtype (`grad_reduce_dtype`), and quantizes them after "
       "(`--reuse-grad-buf-for-mxfp8-param-ag`: each weight's MXFP8 cast once a step). The "
       "embedding, the head and the norms stay 16-bit",
       boolean(), field<&Scenario::training, &TrainingSpec::fp8_params>()},
      {"training.fp8_transpose_cache", "bool", "true",
       "with FP8 parameters on Hopper (whose FP8 GEMMs need the weights' transposes for the "
       "input gradients), each weight's FP8 transpose kept between uses (Transformer Engine's "
       "parameter transpose cache: 1 byte per such weight in memory, made once a step); false "
       "(NeMo's `disable_parameter_transpose_cache: True` with Transformer Engine up to 1.10, "
       "whose FP8 parameters then cache no transpose; from 1.11 the flag leaves FP8 parameters' "
       "transposes cached): not held, made again in every micro-batch's backward (2 bytes per "
       "element each time). No effect on Blackwell",
       boolean(), field<&Scenario::training, &TrainingSpec::fp8_transpose_cache>()},
      {"training.fp8_recipe", "`delayed`, `tensorwise`, `mxfp8`, `nvfp4`", "`delayed`",
       "with `precision: fp8`, how Transformer Engine scales each FP8 tensor (Megatron-core's "
       "`--fp8-recipe`, NeMo's `fp8_recipe`): `delayed`, from the amax history of earlier "
       "steps, so the norms and activations before the GEMMs write their outputs in FP8 and a "
       "standalone cast (the attention output, the gradients) reads 16-bit and writes FP8 row- "
       "and, on Hopper, column-wise: 4 bytes per element, 3 on Blackwell, whose FP8 GEMMs need no "
       "transposed copy (`fp8.cast`); `tensorwise`, per-tensor current scaling (TE 2.x's "
       "Float8CurrentScaling), from each tensor's own amax: the norm or activation writes its "
       "output in 16-bit with the amax and a cast follows (4 bytes per element more), and a "
       "standalone cast first reads the tensor for its amax (2 more); under sequence "
       "parallelism the casts whose outputs are all-gathered (QKV's and the MLP's inputs, the "
       "row-parallel layers' output gradients) first all-reduce their amax over the TP group "
       "(4 bytes, 2 a layer each way). Blackwell only (b200, gb200, gb300, b300): `mxfp8`, TE's "
       "MXFP8BlockScaling, one power-of-two scale per 32 values along the GEMM's reduction, so "
       "every operand is quantized row- and column-wise (the forward and the weight gradient "
       "reduce over different dimensions): a cast reads 2 bytes and writes 2 × (1 + 1/32), the "
       "norms' outputs cast apart (TE's PyTorch norms quantize after a 16-bit norm unless "
       "NVTE_NORM_FWD_USE_CUDNN=1, not modelled), a fused activation writing its own, no amax "
       "reduced, both weight layouts held, the GEMMs at 1.051 times the per-tensor FP8 time "
       "(Transformer Engine's pre-quantized GEMM benchmark on a B300); `nvfp4`, TE's "
       "NVFP4BlockScaling (4-bit "
       "values, an E4M3 scale per 16 and an fp32 one per tensor; Megatron-core's `--fp4-format "
       "e2m1 --fp4-recipe nvfp4`, which takes the place of FP8): every operand cast apart as "
       "Transformer Engine 2.14 runs it (an amax pass, then the row-wise and Hadamard-rotated "
       "column-wise casts: 7.25 bytes' time an element, the same benchmark's; a gradient's, "
       "stochastically rounded, 9.11), amax all-reduced under sequence parallelism as "
       "`tensorwise`, 0.5625 bytes per element kept and per weight layout, the GEMMs at NVFP4's "
       "time over per-tensor FP8's as measured (B300 and GB300 0.553: the same benchmark; B200 "
       "0.485 and GB200 0.483: cuBLASLt's NVFP4/bf16 on a B200, 0.265, over the model's "
       "FP8/bf16; `sim/cost/fp8_gemm.h`); without `fp8_params`. DeepSeek-style 1×128 "
       "`blockwise` scaling is not modelled",
       choice({"delayed", "tensorwise", "mxfp8", "nvfp4"}),
       field<&Scenario::training, &TrainingSpec::fp8_recipe>()},
      {"training.fp8_standalone_casts",
       "`none` or a comma-separated subset of `norm`, `activation`",
       "`none`",
       "with `precision: fp8`, the quantizations that run as casts of their own (`fp8.cast`: 4 "
       "bytes per element, 3 on Blackwell, 2 more under `fp8_recipe: tensorwise`, 4.06 under "
       "`mxfp8`, 9.2 under `nvfp4`, whose casts are all apart) where "
       "Transformer "
       "Engine's fused modules have the kernel before them write FP8: `norm`, the norms' outputs "
       "before QKV and the MLP (TE's cuDNN norms, NVTE_NORM_FWD_USE_CUDNN=1, take its unfused "
       "path; under sequence parallelism each rank's n / tp tokens); `activation`, the MLP's "
       "activation output and its backward's (Megatron-core's MLP runs the activation outside "
       "TE, `bias_swiglu_impl` or `bias_gelu_impl`, unless TE's op fuser does, "
       "`--use-transformer-engine-op-fuser`; TE's own LayerNormMLP fuses it). `none`: both "
       "fused",
       text(),
       {put_flags<&TrainingSpec::fp8_standalone_casts, kFp8CastNames>, get_fp8_casts}},
      {"training.optimizer", "`adam`, `adamw`, `sgd`", "`adam`",
       "`adam`, `adamw`: mixed-precision Adam over fp32 master weights, momentum and variance "
       "(fused: 28 bytes of traffic per parameter, 40 with the fp32 master copies' gradient cast "
       "and weight copy; cost/constants.h; 12 bytes of optimizer memory per trained parameter). "
       "`sgd`: plain SGD without momentum on the model's own 16-bit parameters "
       "(`torch.optim.SGD(params, lr)` over a bf16 model): one pass reading each weight and its "
       "gradient and writing the weight (2 + 2 + 2 bytes; the gradient 4 when accumulated in "
       "fp32; clipping's passes 3 × the gradient's bytes), no master weights and no optimizer "
       "memory (under ZeRO-3 the shards are 16-bit "
       "too: no casts around FSDP's gathers); `fused_optimizer` changes nothing there. SGD with "
       "momentum or over fp32 master weights (Megatron's `--optimizer sgd`) is not modelled. "
       "Refused with `offload: optimizer` (no state to offload) and with `fp8_params`",
       choice({"adam", "adamw", "sgd"}), field<&Scenario::training, &TrainingSpec::optimizer>()},
      {"training.recompute", "`none`, `selective`, `full`", "`none`",
       "activation recomputation before the backward (memory: `sim/memory/footprint.h`): "
       "`selective` redoes the modules of `training.recompute_modules`, by default the attention "
       "core (under context parallelism its key and value exchange too), `full` each layer's "
       "whole forward, its TP, EP and CP collectives included",
       choice({"none", "selective", "full"},
              {{"full_recompute", "full"}, {"selective_recompute", "selective"}}),
       field<&Scenario::training, &TrainingSpec::recompute>()},
      {"training.recompute_layers",
       "integer ≥ 0, with `recompute: full`",
       "`0` (every layer)",
       "full recompute of only the first N layers of each pipeline stage (model chunk); the others "
       "keep all their activations (Megatron's `--recompute-method block --recompute-num-layers "
       "N`); N at or past a stage's layers recomputes all of them; `--json` echoes it (`null` for "
       "every layer)",
       integer(0, kMaxLayers),
       {put<&Scenario::training, &TrainingSpec::recompute_layers>, get_recompute_layers}},
      {"training.recompute_modules",
       "`none` or a comma-separated subset of `core_attn`, `moe_act`, `layernorm`, "
       "`mla_up_proj`, `mlp`, `moe`, `shared_experts`, with `recompute: selective`",
       "`core_attn`",
       "what selective recompute runs again before the backward, as Megatron-core's "
       "`--recompute-modules` (core_v0.12+; `shared_experts` from core_v0.14) names it: "
       "`core_attn` the attention core (its scores and attention dropout; under context "
       "parallelism its key and value exchange); `layernorm` the norms that run apart from a "
       "GEMM (Megatron-core's Transformer Engine layers fuse the others: a MoE layer's pre-MLP "
       "norm, latent attention's input norm), their outputs not kept; `mla_up_proj` latent "
       "attention's Q and KV up-projections and their rotary embedding, the per-head Q, K and V "
       "not kept; `mlp` a dense layer's MLP, its TP collectives replayed, only its input kept; "
       "`moe` a MoE layer's MLP, router, dispatch and combine all-to-alls, experts and their FP8 "
       "input casts included, only its input kept (a `moe_act` or `shared_experts` inside it "
       "runs once more, as nested checkpoints do); `moe_act` the routed experts' activation, "
       "its output not kept (needs grouped expert GEMMs: `training.expert_gemms` not "
       "`sequential`); `shared_experts` the shared experts' MLP. A module a layer lacks changes "
       "nothing there (`moe` on a dense layer); the bias-dropout-adds between the modules keep "
       "their masks. Megatron-core refuses `layernorm` and `moe_act` under FP8 before core_v0.14 "
       "and with its default delayed scaling after (trainsim does not model the FP8 recipe). "
       "`--json` echoes it (`null` without selective recompute)",
       text(),
       {put_flags<&TrainingSpec::recompute_modules, kRecomputeModuleNames>, get_recompute_modules}},
      {"training.fp32_grad_accumulation", "bool", "false",
       "fp32 gradient buffer (Megatron's default) in place of the 16-bit gradients: 4 bytes per "
       "parameter instead of 2 (Megatron-LM README, distributed optimizer: bf16 parameters with "
       "fp32 gradients, 18 bytes per parameter, 6 + 12/d distributed). The weight-gradient GEMMs "
       "add into it (Megatron's gradient-accumulation fusion, `grad_accumulation_fusion`): 6 "
       "bytes more per weight element "
       "every micro-batch, `wgrad.main_grad` in `trainsim kernels`, and Megatron's hook adds the "
       "embedding's gradient into it (`embedding.main_grad`); under `runtime: eager`, PyTorch's "
       "AccumulateGrad pass instead",
       boolean(), field<&Scenario::training, &TrainingSpec::fp32_grad_accumulation>()},
      {"training.grad_accumulation_fusion",
       "bool",
       "`true` with `fp32_grad_accumulation` (but under `runtime: eager`), else `false`",
       "each weight-gradient GEMM adds its product into the gradient buffer (beta = 1): "
       "Megatron's and NeMo's `gradient_accumulation_fusion` (Transformer Engine's "
       "`fuse_wgrad_accumulation`), on by default in both. Every micro-batch the GEMM's epilogue "
       "reads the buffer where a plain one only writes its output: 6 bytes more per weight "
       "element into fp32 gradients (`fp32_grad_accumulation`), 2 into 16-bit ones (a "
       "contiguous buffer in the reduction's 16 bits: apex's DistributedFusedAdam with "
       "`grad_sync_dtype: bf16` under NeMo 1, Megatron-core's DDP without "
       "`grad_reduce_in_fp32`), `wgrad.main_grad` in `trainsim kernels`, at the share of its "
       "time the GEMM shows; the embedding's gradient, no GEMM's, is added by Megatron's hook "
       "(`embedding.main_grad`: 10 or 6 bytes an element). `false` with fp32 gradients "
       "(`--no-gradient-accumulation-fusion`): the hook adds every weight's 16-bit gradient "
       "into them, a kernel a weight (`wgrad.main_grad_add`, 10 bytes an element). Not under "
       "`runtime: eager`, where PyTorch's AccumulateGrad adds the gradients",
       boolean(),
       {[](Scenario& s, const KeyValue& v) {
          s.training.grad_accumulation_fusion = v.flag;
          return std::string();
        },
        [](const Scenario& s) -> std::optional<KeyValue> {
          KeyValue v;
          v.flag = grad_accumulation_fusion(s.training);
          return v;
        }}},
      {"training.loss_metrics", "0–8", "0",
       "cross-entropy evaluations over the logits after each micro-batch's backward, for "
       "training metrics: Composer's trainer runs its `train_metrics` on the kept logits under "
       "no_grad (llm-foundry's MPT and its Hugging Face wrappers log LanguageCrossEntropy and "
       "LanguagePerplexity: 2, each torch's CrossEntropyLoss). Each a PyTorch cross_entropy "
       "forward under the training's autocast: the upcast and a three-pass log-softmax, 22 "
       "bytes a logit, 7 kernels (`loss_metrics` in `trainsim kernels`), with the last stage's "
       "weight-gradient pass. Their transient fp32 copies (8 bytes a logit, after the backward "
       "has freed the micro-batch's activations) are not in the memory figures",
       integer(0, 8), field<&Scenario::training, &TrainingSpec::loss_metrics>()},
      {"training.zero_grad_buffer", "bool", "false",
       "the gradients this GPU holds (`gradients` in `trainsim memory`) written to zero once a "
       "step, before the first backward adds into them: Megatron-core's DDP and Megatron-FSDP "
       "call zero_grad_buffer at every iteration's start, `grad_data.zero_()` over the whole "
       "contiguous buffer (megatron/training/training.py train_step; "
       "megatron/core/distributed/param_and_grad_buffer.py, from core 0.6 on), as does "
       "PyTorch's `zero_grad(set_to_none=False)`. One memory-bound pass on the compute stream, "
       "counted in the optimizer's time (reports and traces). false: the gradients are set to "
       "None (PyTorch's `zero_grad()` default since 2.0, FSDP, DeepSpeed): nothing runs",
       boolean(), field<&Scenario::training, &TrainingSpec::zero_grad_buffer>()},
      {"training.grad_reduce_dtype",
       "`fp32`, `bf16`, `fp16` (16-bit: the training precision)",
       "`fp32` with `fp32_grad_accumulation`, else the training precision",
       "the precision the data-parallel gradient reduction (all-reduce or reduce-scatter) sends: 4 "
       "or 2 bytes per parameter. PyTorch FSDP's `MixedPrecision(reduce_dtype=…)` (Composer's "
       "`mixed_precision: DEFAULT` reduces in fp32, `PURE` in 16-bit), Megatron's "
       "`grad_reduce_in_fp32`. Under ZeRO-3 (PyTorch FSDP) the cast of each unit's flat gradient "
       "to "
       "fp32 before its reduce-scatter is a kernel on the timeline (`fsdp.grad_cast`); the "
       "transient fp32 copy it makes is not in the memory figures",
       choice({"fp32", "bf16", "fp16"}),
       {put_grad_reduce, get_grad_reduce}},
      {"training.attention", "`flash1`, `flash2`, `flash3`, `triton`, `cudnn`, `unfused`",
       "`flash2`",
       "the attention kernels: FlashAttention-1, -2 or -3; `triton`, llm-foundry's `attn_impl: "
       "triton` (T. Dao's `flash_attn_triton.py` on pre-MLIR Triton; no chart times it: "
       "FlashAttention-1's bars stand in, beside which its sources place it; on Hopper both "
       "scaled as FlashAttention-2 measures against the same chart on an H100); `cudnn`, cuDNN's "
       "fused attention (what Transformer Engine runs on Hopper and Blackwell when it may choose; "
       "measured on H100 for Hopper, NVIDIA's benchmarks for Blackwell (by `cudnn_version`), where "
       "it is the only kernel with data but FlashAttention-2 on a b200 (NVIDIA's benchmark of "
       "PyTorch's SDPA): another is refused there); each "
       "timed by its published or measured throughput at the sequence "
       "length and head dimension (`sim/cost/kernel_data.cpp`). Or unfused (\"standard\": QKᵀ and "
       "PV as batched GEMMs around "
       "a fused softmax and a dropout; stores the s² scores, Korthikanti's 5·a·s/h term; selective "
       "recompute recomputes them)",
       choice({"flash1", "flash2", "flash3", "triton", "cudnn", "unfused"},
              {{"sdpa", "flash2 or cudnn, the kernels PyTorch SDPA runs"},
               {"flash", "flash2, or flash1 or flash3"},
               {"fa1", "flash1"},
               {"fa2", "flash2"},
               {"fa3", "flash3"},
               {"flash_attn", "flash2"},
               {"flash_attention_2", "flash2"},
               {"flash_attention_3", "flash3"},
               {"fused_attn", "cudnn"},
               {"math", "unfused"},
               {"eager", "unfused"}}),
       field<&Scenario::training, &TrainingSpec::attention>()},
      {"training.fp8_attention", "bool", "false",
       "with `precision: fp8` and `attention: cudnn` on Blackwell, the attention core in FP8 "
       "(Transformer Engine's FP8 dot-product attention: NVTE_FP8_DPA, NeMo's "
       "`fp8_dot_product_attention`): each pass at cuDNN's FP8-over-bf16 time as NVIDIA measured "
       "it, by sequence length, for the run's `cudnn_version`: before 9.17 cuDNN 9.13's on a B200 "
       "and a GB300 (8,192 tokens: forward 0.92, backward 0.79 on B200; GB300's own), from 9.17 "
       "(and without a release) cuDNN 9.22's on a GB200 (B200 and GB200) and a GB300 (GB300 and "
       "B300), one scale a tensor (forward 0.77, backward 0.92 on GB200; 0.64 and 0.81 on GB300 at "
       "8,192), MXFP8's under `fp8_recipe: mxfp8` from 9.21 on (Transformer Engine 2.15's MXFP8 "
       "attention), heads over 128 (`model.mla`) at DeepSeek-V3's heads' figures "
       "(`sim/cost/kernel_data.cpp`), plus the casts around it, 3 bytes per element of Q, K, V "
       "and the output forward and of their gradients backward (`attention.fp8_cast`; MXFP8 "
       "attention casts Q, K and V forward and the output's gradient backward, both layouts, at "
       "MXFP8's cast rate, and takes the rest in 16 bits). Refused on other GPUs (no figures)",
       boolean(), field<&Scenario::training, &TrainingSpec::fp8_attention>()},
      {"training.nvfp4_hadamard", "bool", "true",
       "with `fp8_recipe: nvfp4`: Transformer Engine's random Hadamard transform of the "
       "weight-gradient GEMMs' operands (NVFP4BlockScaling's default; `false` as "
       "NVTE_NVFP4_DISABLE_RHT=1 sets it). With it every cast first reads its tensor for the "
       "amax of it and of its rotation (`fp8.cast`: 2 + 3.125 ideal bytes an element); without it "
       "a norm's or the activation's output cast takes the amax its kernel computed "
       "(Transformer Engine's FUSED_NORM_AMAX_NVFP4 and FUSED_ACTIVATION_AMAX_NVFP4) and moves "
       "3.125, unless `fp8_standalone_casts` names that kernel (`sim/cost/constants.h`)",
       boolean(), field<&Scenario::training, &TrainingSpec::nvfp4_hadamard>()},
      {"training.nvfp4_stochastic_rounding", "bool", "true",
       "with `fp8_recipe: nvfp4`: the gradients' casts round stochastically (the recipe's "
       "default; `false` as NVTE_NVFP4_DISABLE_STOCHASTIC_ROUNDING=1 sets it, rounding to "
       "nearest): their cast pass 1.42 times as long (Transformer Engine PR #2412's B300 cast "
       "kernel, 6.4 against 4.5 TB/s)",
       boolean(), field<&Scenario::training, &TrainingSpec::nvfp4_stochastic_rounding>()},
      {"training.fp8_output_proj", "bool", "false",
       "with `precision: fp8` and `fp8_recipe: mxfp8` (Megatron-core's `fp8_output_proj`, which "
       "refuses other recipes; MLPerf's FP8_OUTPUT_PROJ): the output layer as a Transformer Engine "
       "MXFP8 linear (TELMHeadColumnParallelLinear), multi-token prediction's heads too, which "
       "share it: its three GEMMs at the MXFP8 time, its input and its logits' gradient cast apart "
       "(`lm_head.fp8.cast`, the recipe's bytes per element). The embedding and the loss stay "
       "16-bit and fp32",
       boolean(), field<&Scenario::training, &TrainingSpec::fp8_output_proj>()},
      {"training.fp8_activation_store", "bool", "false",
       "a gated MLP's activation input (the up projections' output, 2·ffn wide) kept for the "
       "backward in FP8, 1 byte an element instead of 2 (Megatron-core's "
       "`activation_func_fp8_input_store`: NeMo's FP8_ACTIVATION, MLPerf's FP8_ACT; in any "
       "precision): activation memory down by ffn bytes a token and layer over TP, the fused "
       "SwiGLU's input cast to FP8 forward and back backward, 3 bytes an element each "
       "(`mlp.act_fp8_store`). Needs `model.mlp: swiglu` run fused (not `eager_ops: swiglu`)",
       boolean(), field<&Scenario::training, &TrainingSpec::fp8_activation_store>()},
      {"training.cudnn_version",
       "text",
       "the newest measured",
       "with `attention: cudnn`, the cuDNN release the run links, MAJOR.MINOR (e.g. `9.13`; "
       "NGC's PyTorch containers list theirs: 24.02 9.0, 24.09 9.4, 25.01 9.7, 25.09 9.13): its "
       "fused attention's speed changed from release to release, as NVIDIA's own benchmarks "
       "time it. Each release takes the newest measurement at or before it (an older one the "
       "oldest): on Hopper 9.1's and 9.4's (their backward at 0.84–0.94 of 9.19's) scale the "
       "curve measured with 9.19; on B200 and GB200 releases up to 9.16 take the B200 "
       "measurement of 9.13.1, later ones the GB200 benchmark of 9.22, on GB300 its own "
       "measurements, of 9.13 up to 9.16 and of 9.22 later (`sim/cost/kernel_data.cpp`), and "
       "`fp8_attention`'s FP8-over-bf16 figures with them (MXFP8's from 9.21); a GPU without "
       "cuDNN figures (A100, a custom GPU) prices cuDNN's attention the same whatever the "
       "release",
       text(),
       {put_cudnn_version, get_cudnn_version}},
      {"training.dropout", "0–0.99", "0",
       "hidden and attention dropout probability (GPT-3 style 0.1): above 0 the dropout kernels "
       "run (fused bias-dropout-add) and their masks are stored; a fused attention kernel draws "
       "its random numbers inside: 1.24 times as long forward, 1.11 backward (measured on H100 "
       "and H200, `sim/cost/constants.h`)",
       fraction(0, 0.99), field<&Scenario::training, &TrainingSpec::dropout>()},
      {"training.fused_optimizer", "bool", "true",
       "the optimizer step as one fused multi-tensor Adam (Megatron, apex, `AdamW(fused=True)`: 28 "
       "bytes moved per parameter), or one pass per operation (`torch.optim.AdamW`'s default "
       "foreach path, Composer's `DecoupledAdamW`: 84 bytes); Adam's only, no effect with "
       "`optimizer: sgd`",
       boolean(), field<&Scenario::training, &TrainingSpec::fused_optimizer>()},
      {"training.fused_loss", "bool", "false",
       "the cross-entropy loss as one fused kernel over the 16-bit logits (apex's `xentropy`, "
       "flash-attn's `CrossEntropyLoss`, Transformer Engine's, Megatron-core's "
       "`cross_entropy_fusion_impl: te`): forward two passes over each logit (the row's maximum, "
       "then its sum of exponentials: 4 bytes), backward one read and the gradient written in "
       "place (4 bytes). Unfused: the logits upcast to fp32 and the loss computed on the copy as "
       "`unfused_loss` says (`cross_entropy` in `trainsim kernels`; on the 16-bit logits "
       "themselves under `pytorch-16bit`). Memory: the logits the backward needs, 2 bytes each "
       "fused, 4 unfused (the fp32 tensor the loss keeps), and unfused, for the instant the loss "
       "runs, the 16-bit logits and their fp32 upcast beside it, 6 bytes a logit more "
       "(`trainsim memory`'s peak); under `pytorch-16bit` 2 and 2; under `vocab-parallel` 4 "
       "and 2 (its upcast is the tensor kept)",
       boolean(), field<&Scenario::training, &TrainingSpec::fused_loss>()},
      {"training.unfused_loss", "`pytorch`, `vocab-parallel`, `pytorch-16bit`, `nanotron`",
       "`pytorch`",
       "without `fused_loss`, the kernels that compute the loss: `pytorch`, "
       "PyTorch's `cross_entropy` (Hugging Face models, torchtitan, FSDP recipes): the upcast "
       "(read 2, write 4 bytes a logit) and a three-pass log-softmax (read 4 three times, write "
       "4), 22 bytes forward; the NLL gradient written (4), the log-softmax backward (16) and the "
       "cast back to 16 bits (6), 26 backward. `vocab-parallel`, Megatron's "
       "`vocab_parallel_cross_entropy` on `logits.float()` (Megatron-core, Megatron-LM and "
       "-DeepSpeed, NeMo, FlagScale): upcast (6), the row's maximum (4), its subtraction (8), exp "
       "(8), the sum of exponentials (4) and the division into the softmax kept for the "
       "backward (8), 38 bytes forward, each in place on the upcast, which becomes the fp32 "
       "tensor kept (while the loss runs the 16-bit logits beside it, 2 bytes a logit more); "
       "the gradient scaled in place (8) and cast back (6), 14 backward. `nanotron`, nanotron's "
       "`sharded_cross_entropy` (the Ultra-Scale Playbook's runs): `vocab-parallel`'s kernels, "
       "its subtraction into a new tensor beside the upcast (the same bytes; while the loss "
       "runs 6 bytes a logit beside the kept one, as `pytorch`). `pytorch-16bit`, PyTorch's "
       "`cross_entropy` straight over the 16-bit logits, no upcast (a training loop's own loss "
       "on what Hugging Face's causal-LM models return without labels, transformers 4.46 on): a "
       "three-pass log-softmax (read 2 three times, write 2), 8 bytes forward; the NLL gradient "
       "written (2) and the log-softmax backward (the gradient's row sum, then gradient and output "
       "read again, write 2: 8), 10 backward; the 16-bit log-probabilities kept for the backward "
       "(2 bytes a logit) and the logits beside them while the loss runs (2 more)",
       choice({"pytorch", "vocab-parallel", "pytorch-16bit", "nanotron"}),
       field<&Scenario::training, &TrainingSpec::unfused_loss>()},
      {"training.grad_clipping", "bool", "true",
       "gradient-norm clipping before the step (12 bytes per parameter: the norm, then the "
       "rescale, over fp32 gradients; 6 over `optimizer: sgd`'s 16-bit ones)",
       boolean(), field<&Scenario::training, &TrainingSpec::grad_clipping>()},
      {"training.optimizer_post_validation", "bool", "false",
       "Zero Bubble's optimizer post-validation (Qi et al., ICLR 2024, §4): the step runs without "
       "the all-stage synchronisation before the optimizer (global gradient norm, NaN/Inf check) "
       "and validates afterwards, so each pipeline stage starts the next step when its own ends. "
       "The step time is then the steady-state period, the longest stage's span (its first task's "
       "start to its last task's end), as the paper counts it; `zb-auto` minimises that span "
       "instead of one step's makespan",
       boolean(), field<&Scenario::training, &TrainingSpec::optimizer_post_validation>()},
      {"training.runtime", "`compiled`, `eager`, `fused`", "`compiled`",
       "how the step's kernels are made and launched. `compiled`: the memory-bound ops fused, one "
       "kernel each (torch.compile, Megatron's or Transformer Engine's fused kernels), the CPU "
       "assumed ahead of the GPU (CUDA graphs, or kernels longer than their launch). `eager`: one "
       "PyTorch op at a time as the Hugging "
       "Face reference code writes them: RMSNorm 8 kernels and 36 bytes per element forward (fp32 "
       "upcast; 0.64 of HBM bandwidth forward, 0.73 backward, as its kernels ran in an H100 "
       "trace), SwiGLU 2 kernels, rotary embeddings 5 per tensor, LayerNorm as PyTorch's own "
       "kernels: forward one kernel, 4 bytes per element, backward two, 10 bytes, at the 0.60 "
       "and 0.53 of HBM bandwidth they reached in an H100 trace at hidden 5,120, scaled by row "
       "width as an H200 timed them (768: about half that rate; `sim/cost/constants.h`). GELU "
       "and attention are single kernels either way; autograd adds each micro-batch's weight "
       "gradients into the accumulated ones. `fused`: `compiled`'s kernels, Megatron's fused "
       "gradient accumulation, but each kernel launched by the CPU without CUDA graphs, as "
       "Megatron-core, NeMo and Transformer Engine run unless told to capture graphs (Megatron's "
       "`--enable-cuda-graph`, NeMo's `enable_cuda_graph`). Eager and fused, the CPU's time to "
       "issue each kernel and collective is simulated (`efficiency.host_per_kernel`, "
       "`host_per_collective`; fused at eager's measured figures, as no Transformer Engine step "
       "was timed here: its Linear module took 2.7 times PyTorch's Linear's CPU time a call on a "
       "GB200 in mid-2025, TransformerEngine issue #2053), so a step of short kernels runs at its "
       "CPU's pace",
       choice({"compiled", "eager", "fused"}, {{"cuda_graphs", "compiled"},
                                               {"cuda_graph", "compiled"},
                                               {"graphs", "compiled"},
                                               {"torch_compile", "compiled"},
                                               {"inductor", "compiled"}}),
       field<&Scenario::training, &TrainingSpec::runtime>()},
      {"training.eager_ops",
       "`none` or a comma-separated subset of `norm`, `swiglu`, `rope`, `bias`, `qkv_split`, "
       "`qkv_cat`, `rope_interleave`, `qkv_layout`, `gate_up_split`, `kv_repeat`",
       "`norm,swiglu,rope` with `runtime: eager`, `none` with `compiled` or `fused`",
       "which of those ops run op by op (a LayerNorm: as PyTorch's own kernels), the others "
       "fused, for frameworks that fuse some: Megatron-LM's legacy model fuses its RMSNorm "
       "(apex) but runs SwiGLU and rotary embeddings as PyTorch ops and its linear layers' "
       "biases (`model.linear_bias`) as adds and gradient sums of their own "
       "(`swiglu,rope,bias`); Megatron-DeepSpeed also slices QKV's output into Q, K and V, "
       "whose backward fills a zeroed full-width gradient per slice and sums the three "
       "(`qkv_split`: 22 bytes per element of QKV's output backward, 4 of them strided copies at "
       "0.31 of an H100's HBM bandwidth as an H200 ran them, V copied contiguous forward at 0.28; "
       "`qkv.split`, `qkv.split_grad` and `qkv.split_sum` in `trainsim kernels`; "
       "Megatron-DeepSpeed before 2024-07, which then moved to `torch.split`); Megatron-core, "
       "Megatron-LM, FlagScale and "
       "llm-foundry split it by `torch.split`, whose backward concatenates the three gradients "
       "(`qkv_cat`: 4 bytes per element of QKV's output, `qkv.cat_grad`; not where Transformer "
       "Engine before 2.3 leaves them side by side: multi-head attention without a rotary "
       "embedding); "
       "FlagScale's `--rotary-interleaved-patch` "
       "copies Q, K and V after the rotary embedding to re-interleave their head dimensions, "
       "and their gradients back (`rope_interleave`: 4 bytes per element each way, "
       "`qkv.interleave`); nanotron copies QKV's output into flash-attn's layout, K and V twice "
       "more for its rotary kernel and the attention output back (`qkv_layout`: permuted copies, "
       "per element of QKV's output 4 bytes forward and 8 backward, of K and V 4 each way, of "
       "the output 4 each way with two or more sequences a micro-batch, at the 0.42 and 0.36 of "
       "an H100's HBM bandwidth they ran at in an H200's step, `qkv.layout`; K and V stacked "
       "forward at the usual rate, 4 bytes, `qkv.layout_stack`); where one GEMM computes "
       "SwiGLU's gate and up projections and its output is split in two before the op-by-op "
       "SwiGLU (Megatron's and "
       "Megatron-DeepSpeed's `torch.chunk`, nanotron's and ChatGLM's split; not Hugging Face's "
       "LlamaMLP, whose two GEMMs give contiguous tensors), silu, the product and their "
       "gradients run PyTorch's generic elementwise kernel on the strided halves and the "
       "backward concatenates the two gradients (`gate_up_split`, with `swiglu`: 10 bytes per "
       "element of the f-wide product forward at 0.49 of an H100's HBM bandwidth, 12 backward at "
       "0.54 and 14 at the usual rate, as a real step's kernels ran on an H100 and, per SM, an "
       "H200; `swiglu` and `swiglu.cat_grad` in `trainsim kernels`); "
       "legacy Megatron-LM's attention (FlagScale's) expands grouped-query K and V to every "
       "query head by `repeat_interleave` before the rotary embedding, which then rotates the "
       "expanded K (`kv_repeat`: 2 bytes per element of the expanded K and V and 2 per grouped "
       "one, a gather forward and the sum of their gradients over the repeats backward; `rope` "
       "counts the "
       "expanded K; `kv.repeat` in `trainsim kernels`; needs `model.kv_heads` below "
       "`model.heads`); "
       "llm-foundry's MPT calls `torch.nn.functional.layer_norm` (`norm`); eager gradient "
       "accumulation still follows `runtime`. Memory: an eager SwiGLU keeps silu's output for the "
       "backward (one more f-wide tensor a layer), an eager RMSNorm its fp32 input and normalized "
       "value (2·h 16-bit words more per norm, h under LoRA); PyTorch's LayerNorm keeps what a "
       "fused one does",
       text(),
       {put_flags<&TrainingSpec::eager_ops, kEagerOpNames>, get_eager_ops}},
      {"training.expert_gemms", "`multi_stream`, `grouped`, `sequential`", "`multi_stream`",
       "how a mixture-of-experts layer runs its local experts' GEMMs: `multi_stream`, one cuBLAS "
       "GEMM per expert spread over 4 CUDA streams (Transformer Engine's GroupedLinear, from TE "
       "1.9: Megatron-core's TEGroupedMLP under `--moe-grouped-gemm` from core 0.8; on Hopper also "
       "its legacy GroupedMLP, whose grouped_gemm package, fanshiqing's v1.0, runs 4 streams), "
       "up to 4 experts at once, timed as one GEMM of their rows together and no slower than one "
       "after another; `grouped`, one kernel over every expert's tiles, timed as one GEMM of all "
       "their rows (CUTLASS's grouped GEMM, TE 2.8's opt-in NVTE_USE_CUTLASS_GROUPED_GEMM on "
       "Hopper, DeepGEMM, torch._grouped_mm); `sequential`, one expert's GEMM after another, each "
       "timed by its own shape (Megatron-core's SequentialMLP without `--moe-grouped-gemm`, "
       "tgale96/grouped_gemm's default cuBLAS mode). Small experts (few rows each, narrow) run "
       "well below the GPU's rate one at a time; `trainsim kernels` says which. No effect "
       "without experts",
       choice({"multi_stream", "grouped", "sequential"}),
       field<&Scenario::training, &TrainingSpec::expert_gemms>()},
      {"training.moe_permute", "`kernels`, `in_dispatch`", "`kernels`",
       "where a mixture-of-experts layer sorts its routed tokens into expert order and back: "
       "`kernels`, kernels of their own on the compute stream, forward and backward "
       "(Megatron-core's "
       "permute and unpermute, or Transformer Engine's fused ones under `--moe-permute-fusion` "
       "with the all-to-all dispatcher: one pass over the n·k routed rows each way, `moe.permute` "
       "and `moe.unpermute` in `trainsim kernels`); `in_dispatch`, inside the dispatcher's "
       "communication kernels, which write the tokens they receive in expert order and read them "
       "back from it (Megatron-core's flex dispatcher with the HybridEP backend and "
       "`--moe-permute-fusion`: token_dispatcher.py's _HybridEPManager, fused_a2a.py's "
       "fuse_permute_dispatch), so no permutation kernel runs beside the experts. No effect "
       "without experts",
       choice({"kernels", "in_dispatch"}),
       field<&Scenario::training, &TrainingSpec::moe_permute>()},
      {"training.fused_expert_mlp", "bool", "false",
       "Transformer Engine's fused grouped MLP for the routed experts (Megatron-core's "
       "--use-transformer-engine-op-fuser with NVTE_CUTEDSL_FUSED_GROUPED_MLP=1: TE's "
       "ForwardGroupedMLP_CuTeGEMMSwiGLU_MXFP8 and BackwardGroupedMLP_CuTeGEMMDSwiGLU_MXFP8, "
       "cuDNN frontend's CuTe DSL kernels): forward, the up projection's grouped GEMM also applies "
       "the router-scaled SwiGLU and writes the down projection's MXFP8 input; backward, the down "
       "projection's input gradient also runs the SwiGLU's backward and casts the up projection's "
       "output gradient. So the routed experts' SwiGLU and those two casts run no kernels of "
       "their own (the shared experts' stay). Needs `precision: fp8` with `fp8_recipe: mxfp8`, a "
       "SwiGLU MLP, `expert_gemms: grouped`, and no `moe_act` in `recompute_modules` (the "
       "activation runs inside the GEMM). No effect without experts",
       boolean(), field<&Scenario::training, &TrainingSpec::fused_expert_mlp>()},
      {"training.delay_wgrad", "bool", "false",
       "Megatron-core's `--delay-wgrad-compute` (Megatron-Bridge's `delay_wgrad_compute`), which "
       "needs the combined 1F1B (`schedule.overlap_f_b`): Transformer Engine's linear layers put "
       "their weight-gradient GEMMs off (its WeightGradStore) and run them later in the same "
       "backward, so under TP a column-parallel layer's input-gradient reduce-scatter (all-reduce "
       "without SP), issued asynchronously, is waited for right after its input-gradient GEMM "
       "instead of hiding under its weight gradient (transformer_engine/pytorch/module/linear.py, "
       "v2.15: `wgrad_store.put`, then `dgrad_work.wait()`): exposed. The re-gather of its input "
       "still hides under the input-gradient GEMM; Megatron-core's own output layer does not "
       "delay. Not with `parallelism.tp_overlap` (TE refuses it with userbuffers). No effect at "
       "tp 1",
       boolean(), field<&Scenario::training, &TrainingSpec::delay_wgrad>()},
      {"training.fp8_dispatch", "bool", "false",
       "with `precision: fp8` and expert parallelism (`parallelism.ep` > 1), the tokens sent to "
       "their experts in FP8, as DeepSeek-V3 trained (arXiv:2412.19437, §3.3.2: the activations "
       "quantized before the experts' up projections and then dispatched, the same for the "
       "gradient before their down projections; both combines kept in BF16): the forward "
       "dispatch all-to-all and, in the backward, the one that carries the experts' output "
       "gradient to them move 1 byte per value plus a 4-byte scale per 128 values (§3.3.1's 1×128 "
       "tiles: 1.03 bytes, against 2); the combine all-to-alls and the one returning the experts' "
       "input gradient stay 16-bit. A recomputed forward's dispatch is FP8 too, and each token is "
       "quantized once before it is sent (not each of its top_k routed rows after). No effect "
       "without "
       "expert parallelism",
       boolean(), field<&Scenario::training, &TrainingSpec::fp8_dispatch>()},
      {"training.offload", "`none`, `optimizer`", "`none`",
       "ZeRO-Offload (Ren et al., USENIX ATC 2021; DeepSpeed's offload_optimizer): the fp32 master "
       "weights and Adam states live in host memory, not on the GPU; after the backward each "
       "GPU's gradient shard goes to the host over its link (`cluster.host_link`), the CPU runs "
       "Adam on it (`cluster.host_adam_rate`) and the updated 16-bit weights come back. Needs "
       "`parallelism.zero` 1, 2 or 3",
       choice({"none", "optimizer"}), field<&Scenario::training, &TrainingSpec::offload>()},
      {"training.offload_activations", "integer ≥ 0", "0",
       "activation offload: the activations the first N layers of each stage (model chunk) keep "
       "for the backward go to host memory over the GPU's host link (`cluster.host_link`) after "
       "each forward and come back before its backward, the reload issued when the compute "
       "before that backward starts (PyTorch's `save_on_cpu`, Megatron's "
       "`--cpu-offloading-num-layers`); the `host-link` rows of the timeline. A forward whose "
       "backward is the next compute on its GPU (1F1B's last stage, every forward at pp 1) "
       "keeps them: a micro-batch moves whole after its forward, not layer by layer during it "
       "as Megatron's does. The copies queue on the link and the compute does not wait for "
       "them, a micro-batch's memory freed when its copy ends: where the link cannot keep up, "
       "more layers cost time and save nothing (`trainsim memory` shows it). N at or past a "
       "stage's layers moves all of them; 0 off. Not with the overlapped F&B pairs of `dualpipe-v` "
       "and `dualpipe`",
       integer(0, kMaxLayers),
       field<&Scenario::training, &TrainingSpec::offload_activation_layers>()},
      {"training.lora_rank", "integer ≥ 0", "0",
       "LoRA fine-tuning (Hu et al. 2021, arXiv:2106.09685): the rank r of the adapters, a "
       "multiple of tp; 0 trains every weight. Above 0 the model's own weights are frozen: no "
       "weight-gradient GEMM, no gradient, optimizer state, gradient reduction or parameter "
       "all-gather but the adapters' (ZeRO-3 still gathers the frozen weights; its reduction of "
       "the adapters' gradients alone assumes frozen and trained weights in separate flat "
       "parameters, as FSDP2 and DeepSpeed keep them); the embedding has no backward; a frozen "
       "layer keeps no GEMM input for a weight gradient, and under sequence parallelism neither "
       "re-gathers its input nor has a weight gradient to hide its input gradient's "
       "reduce-scatter under (Transformer Engine: `backward_needs_input`, `ln_out_needs_gather`). "
       "Each target of `lora_targets` adds, as NeMo's ParallelLinearAdapter runs it, x·A and "
       "its output ·B in 16-bit, both split over the TP ranks, their scale and add into the "
       "layer's output (10 bytes per output element, `lora.add`), and backward both GEMMs' input "
       "and weight gradients and the add of the adapter's input gradient (6 bytes per input "
       "element); under TP a column-parallel target's r-wide output is all-gathered and a "
       "row-parallel one's all-reduced, each B's input gradient all-reduced, a row-parallel "
       "target's output brought to the layer's (`lora_all_to_all`) and, without sequence "
       "parallelism, a column-parallel adapter's input gradient all-reduced. With an adapter "
       "beside a norm, Transformer Engine returns that norm's output and gathers its GEMM's input "
       "outside the userbuffers (`tp_overlap`). The adapter keeps its input (a column-parallel "
       "one the whole sequence under SP). Dense models without latent attention or multi-token "
       "prediction",
       integer(0, kMaxWidth), field<&Scenario::training, &TrainingSpec::lora_rank>()},
      {"training.lora_targets",
       "`none` or a comma-separated subset of `qkv`, `attn_out`, `mlp_up`, `mlp_down`, with "
       "`lora_rank`",
       "all four (NeMo 2's `target_modules`)",
       "the linear layers that carry adapters: QKV, the attention output, the MLP's up (gate and "
       "up) and down projections (NeMo's `linear_qkv`, `linear_proj`, `linear_fc1`, "
       "`linear_fc2`; its `attention` is `qkv,attn_out`); `--json` echoes them (`null` without "
       "LoRA)",
       text(),
       {put_flags<&TrainingSpec::lora_targets, kLoraTargetNames>, get_lora_targets}},
      {"training.lora_all_to_all", "bool", "false",
       "with LoRA under tensor and sequence parallelism: a row-parallel target's adapter output "
       "(n × h / tp on each rank) reaches the layer's sequence-parallel output by an all-to-all "
       "each way (NeMo's `a2a_experimental`, MLPerf's `LORA_A2A=1`), not an all-gather of n × h "
       "(whose backward, under sequence parallelism, gathers again)",
       boolean(), field<&Scenario::training, &TrainingSpec::lora_all_to_all>()},
      {"training.lora_fused", "bool", "false",
       "with LoRA: Transformer Engine's fused LoRA linear (NeMo 25.09's TEFusedLoRALinear under "
       "TE's op fuser, `USE_TE_OPS=1`): B's GEMM scales its product and accumulates it into the "
       "layer's output, the backward's scale rides B's input-gradient GEMM and the layer's "
       "input-gradient GEMM accumulates into the adapter's, so the passes of their own "
       "(`lora.add`, `lora.add.backward`, `lora.input_grad_add`) give way to those GEMMs' reads "
       "of what they accumulate into (2 bytes per element, no launch). NeMo builds it at tp 1 "
       "only: at tp > 1 its unfused adapter runs, as without this key",
       boolean(), field<&Scenario::training, &TrainingSpec::lora_fused>()},
      {"training.lora_dropout", "0–0.99, with `lora_rank`", "0",
       "dropout on each adapter's input (NeMo's `adapter_dropout`, position `pre`): its mask "
       "drawn and applied forward, applied backward, 5 bytes per input element each way "
       "(`lora.dropout`)",
       fraction(0, 0.99), field<&Scenario::training, &TrainingSpec::lora_dropout>()},
      {"cluster", "map", "required with a model", "", none(), {}},
      {"cluster.gpu",
       "preset or map",
       "required",
       "`a100-sxm-80gb`, `h100-sxm`, `h100-pcie`, `h200`, `b200`, `gb200`, `gb300`, `b300` (table "
       "below)",
       none(),
       {}},
      {"cluster.gpu.preset",
       "preset name",
       "—",
       "start from a preset, override single keys",
       none(),
       {}},
      {"cluster.gpu.name", "text", "the preset's", "the GPU's label in reports", text(),
       field<&Scenario::cluster, &ClusterSpec::gpu, &DeviceSpec::name>()},
      {"cluster.gpu.peak_flops", "FLOPS", "preset", "dense bf16 peak",
       quantity(Dimension::Flops, true),
       field<&Scenario::cluster, &ClusterSpec::gpu, &DeviceSpec::peak_flops>()},
      {"cluster.gpu.hbm_bandwidth", "bandwidth", "preset", "HBM bandwidth",
       quantity(Dimension::Bandwidth, true),
       field<&Scenario::cluster, &ClusterSpec::gpu, &DeviceSpec::hbm_bandwidth>()},
      {"cluster.gpu.memory", "bytes", "preset", "device memory", quantity(Dimension::Bytes, true),
       field<&Scenario::cluster, &ClusterSpec::gpu, &DeviceSpec::memory>()},
      {"cluster.gpu.sms", "integer ≥ 0", "preset",
       "SM count (GEMM wave quantization and fused attention's launch parallelism; 0 = off)",
       integer(0, kMaxCount), field<&Scenario::cluster, &ClusterSpec::gpu, &DeviceSpec::sms>()},
      {"cluster.gpus_per_node", "integer ≥ 1", "8",
       "GPUs sharing the intra-node link; on `gb200` and `gb300`, the rack's NVLink domain the job "
       "uses (up to 72: NVLink spans the NVL72 rack, not one 4-GPU tray)",
       integer(1, kMaxParallel), field<&Scenario::cluster, &ClusterSpec::gpus_per_node>()},
      {"cluster.nodes", "integer ≥ 1", "1", "", integer(1, kMaxParallel),
       field<&Scenario::cluster, &ClusterSpec::nodes>()},
      {"cluster.host_link", "bandwidth",
       "preset: 55 GB/s (PCIe 5.0, measured on an H100 machine), A100 27.5 GB/s, GB200 and GB300 "
       "193 GB/s (NVLink-C2C, estimated: not measured)",
       "each GPU's pinned host↔device copy bandwidth, each way (`training.offload`)",
       quantity(Dimension::Bandwidth, true), field<&Scenario::cluster, &ClusterSpec::host_link>()},
      {"cluster.host_adam_rate", "number > 0", "4.2e9",
       "the host CPU's Adam step, parameters per second per GPU (`training.offload`; measured: "
       "fused AdamW on 16 cores of an H100 machine; fewer cores per GPU, slower)",
       number(1, 1e15), field<&Scenario::cluster, &ClusterSpec::host_adam_rate>()},
      {"cluster.gpu_speed_spread", "0–0.2", "0.010",
       "how much the GPUs' sustained compute speeds differ: their coefficient of variation. A "
       "synchronous step waits for its slowest GPU, so every GPU's modelled compute runs at the "
       "pace of the slowest of the job's n: × (1 + spread · E[largest of n standard normal "
       "draws]), +1.4 % at 8 GPUs, +2.3 % at 64, +3.2 % at 1,024 with the default (durations "
       "`costs:` gives keep theirs; an upper bound where pipeline stages are unequal, as a slow "
       "GPU in a stage that waits anyway costs less; `slowdown` factors apply on top). "
       "Default: 1.0 %, the "
       "spread of a bf16 cuBLAS GEMM's time over the A100s of NERSC's Perlmutter (Wei, Pradeep "
       "and Bhatele, IPDPS 2026; cost/constants.h); 0: all GPUs alike",
       fraction(0, 0.2), field<&Scenario::cluster, &ClusterSpec::gpu_speed_spread>()},
      {"cluster.intra_node", "", "", "", map(), {}},
      {"cluster.intra_node.bandwidth", "bandwidth", "preset",
       "nccl-tests bus bandwidth inside a node. On an A100/H100/H200/B200/GB200/GB300 preset, "
       "collectives inside a node follow the preset's measured nccl-tests sweep; another "
       "bandwidth (an A800's or "
       "H800's 400 GB/s NVLink) keeps the sweep's latency floor and stretches the rest by preset "
       "÷ this (the report's `durations` line gives the factor)",
       quantity(Dimension::Bandwidth, true),
       field<&Scenario::cluster, &ClusterSpec::intra_node, &LinkSpec::bandwidth>()},
      {"cluster.intra_node.latency", "time", "3.4us",
       "per ring hop; another latency than the preset's shifts its measured sweep by the "
       "difference on each ring step (a GPU without a sweep: α–β)",
       quantity(Dimension::Time, false),
       field<&Scenario::cluster, &ClusterSpec::intra_node, &LinkSpec::latency>()},
      {"cluster.inter_node", "", "", "", map(), {}},
      {"cluster.inter_node.bandwidth", "bandwidth", "preset",
       "bus bandwidth between nodes, per NIC. On an H100/H200/B200/GB200/GB300 preset (GB300's "
       "XDR NICs estimated), collectives between nodes follow NCCL's tuning model on the "
       "scenario's links scaled by message size as nccl-tests measured on 10 nodes of 8 H100s "
       "are over the model on those H100s' links (or the network `cluster.network` names), so "
       "the step moves smoothly with this value, the latency or an intra_node key",
       quantity(Dimension::Bandwidth, true),
       field<&Scenario::cluster, &ClusterSpec::inter_node, &LinkSpec::bandwidth>()},
      {"cluster.inter_node.latency", "time", "14us",
       "per ring hop, NCCL's Simple protocol (its LL128 and LL hops scale with it; between nodes "
       "each collective takes the quickest of the three, an all-reduce also of NCCL's tree, as "
       "NCCL's tuner does)",
       quantity(Dimension::Time, false),
       field<&Scenario::cluster, &ClusterSpec::inter_node, &LinkSpec::latency>()},
      {"cluster.inter_node.p2p_bandwidth", "bandwidth",
       "preset: 24.9 GB/s on H100/H200/B200/GB200/GB300, else `bandwidth`",
       "what one pair of GPUs moves between nodes by NCCL send/receive (pipeline transfers), each "
       "way, at most `bandwidth`. Default: nccl-tests sendrecv_perf between H100 nodes under "
       "NCCL's defaults, half of what a ring reaches on the same NICs; NCCL_P2P_NET_CHUNKSIZE "
       "or NCCL_NCHANNELS_PER_NET_PEER raise it",
       quantity(Dimension::Bandwidth, true),
       field<&Scenario::cluster, &ClusterSpec::inter_node, &LinkSpec::p2p_bandwidth>()},
      {"cluster.inter_node.nics",
       "integer ≥ 1",
       "one per GPU (`gpus_per_node`)",
       "the NICs each node has between nodes, each of `bandwidth`: fewer than its GPUs (two "
       "Ethernet ports for eight GPUs, a cloud instance's shared NICs) and a node's GPUs share "
       "them, each GPU's collectives and pipeline transfers between nodes at nics / gpus_per_node "
       "of one NIC's bandwidth (a ring of k GPUs a node at k times that); more than its GPUs "
       "(two NICs a GPU) and each GPU uses its share of them",
       integer(1, kMaxParallel),
       {put<&Scenario::cluster, &ClusterSpec::inter_node, &LinkSpec::nics>, get_nics}},
      {"cluster.network", "`preset`, `model`, `infiniband-ndr`, `efa-p5`, `efa-playbook`",
       "`preset`",
       "whose measured collectives between nodes shape NCCL's tuning model (collectives between "
       "nodes are priced by it, then scaled by measured ÷ model on the nearest measured layout, "
       "at the same size): `preset`, the GPU preset's network (`infiniband-ndr` on "
       "H100/H200/B200/GB200/GB300, the tuning model alone on the others); `model`, the tuning "
       "model "
       "alone; `infiniband-ndr`, nccl-tests on 10 nodes of 8 H100s with a 400 Gb/s NDR NIC each "
       "(1, 2, 4 and 8 GPUs of each node in the group, 32 MiB – 16 GiB); `efa-p5`, nccl-tests on "
       "2–32 AWS p5.48xlarge nodes over EFA (all-reduce, all-gather, all-to-all; 32 MiB – 8 GiB); "
       "`efa-playbook`, the Ultra-Scale Playbook's own cluster over EFA, where rings slow with the "
       "node count (all-reduce, all-gather, reduce-scatter of 256 MB on 2–64 nodes: all-reduce "
       "bus bandwidth 362 GB/s on 2 nodes, 100 on 8, 33 on 64). Each was measured on H100 "
       "nodes: its ratio is taken on the h100-sxm preset's links and scales the model on the "
       "scenario's; sources: `sim/cost/data/README.md`",
       choice({"preset", "model", "infiniband-ndr", "efa-p5", "efa-playbook"}),
       field<&Scenario::cluster, &ClusterSpec::network>()},
      {"cluster.host_cpu", "`preset`, `x86`, `grace`", "`preset`",
       "the CPU that issues each GPU's kernels: `preset`, the GPU preset's (`grace` on gb200 and "
       "gb300, `x86` on the others). Under `training.runtime: eager` or `fused` a Grace CPU takes "
       "2.75 times "
       "an x86 server CPU's time for each kernel and collective (`efficiency.host_per_kernel` "
       "132.9us, `host_per_collective` 624.4us): PyTorch's Linear forward took 37.08 µs of CPU "
       "on a GB200 against 13.48 on a DGX H100 (TransformerEngine issue #2053; "
       "`sim/cost/constants.h`)",
       choice({"preset", "x86", "grace"}), field<&Scenario::cluster, &ClusterSpec::host_cpu>()},
      {"parallelism", "map", "all 1", "dp × tp × pp must equal gpus_per_node × nodes", map(), {}},
      {"parallelism.dp", "integer ≥ 1", "1", "data-parallel replicas", integer(1, kMaxParallel),
       field<&Scenario::layout, &Layout::dp>()},
      {"parallelism.tp", "integer ≥ 1", "1",
       "tensor-parallel degree (must divide heads; tp and kv_heads must divide one another: past "
       "the key-value heads each rank holds and projects one of them, replicated, as "
       "Megatron-core's attention does)",
       integer(1, kMaxParallel), field<&Scenario::layout, &Layout::tp>()},
      {"parallelism.pp", "integer ≥ 1", "1", "pipeline ranks", integer(1, kMaxParallel),
       field<&Scenario::layout, &Layout::pp>()},
      {"parallelism.vpp", "integer ≥ 1", "1", "model chunks per pipeline rank (stages = pp × vpp)",
       integer(1, kMaxParallel), field<&Scenario::layout, &Layout::vpp>()},
      {"parallelism.ep", "integer ≥ 1", "1",
       "expert-parallel degree of a mixture of experts (must divide dp · cp and "
       "model.moe.experts): each GPU holds experts / ep of every MoE layer's experts, the ep "
       "consecutive DP ranks of a block (CP ranks first under context parallelism) exchange "
       "tokens by all-to-all before and after the experts (dispatch and combine, forward and "
       "backward), and expert gradients are reduced over the dp · cp / ep ranks holding the "
       "same experts (Megatron-Core's expert-data-parallel group). With tp > 1 and sequence "
       "parallelism the experts are split over the TP ranks too (Megatron's expert tensor "
       "parallelism, its default) and a MoE layer's MLP all-gathers the tokens dispatched to its "
       "experts over the TP group, top_k × capacity factor times a dense MLP's hidden states, "
       "and reduce-scatters their output (shared experts gather and scatter as a dense MLP); "
       "`etp: 1` keeps them whole instead",
       integer(1, kMaxParallel), field<&Scenario::layout, &Layout::ep>()},
      {"parallelism.etp",
       "integer ≥ 1 (`1` or `tp`)",
       "`tp`",
       "expert tensor parallelism (Megatron-core's --expert-tensor-parallel-size): the TP degree "
       "of the routed experts. `tp` (the default) splits each expert over the TP ranks like a "
       "dense MLP; `1` keeps every expert whole on its rank, as DeepSeek-V3's recipes run: each "
       "TP rank routes its own n / tp sequence-parallel tokens (needs `sequence_parallel`), its "
       "expert GEMMs are tp times shorter and wider, the dispatcher gathers nothing over TP, "
       "the ep ranks of an expert-parallel group are carved out of a stage's tp · dp · cp "
       "ranks, TP fastest (ep must divide tp · dp · cp), and expert gradients are reduced over "
       "the tp · dp · cp / ep ranks holding the same experts. Other widths are not modelled",
       integer(1, kMaxParallel),
       {put<&Scenario::layout, &Layout::etp>, get_etp}},
      {"parallelism.cp", "integer ≥ 1", "1",
       "context-parallel degree: each sequence is split over cp more ranks (world = dp × cp × tp "
       "× pp), zig-zag for causal balance (each rank holds chunks i and 2·cp − 1 − i of seq / "
       "(2·cp) tokens; seq_len must be a multiple of 2·cp); every layer's attention reaches the "
       "other chunks' keys and values over the cp ranks (`cp_comm`); activations shrink by cp; "
       "gradients are reduced, and ZeRO shards, over dp × cp ranks; the cp ranks are the "
       "innermost of the DP axis (next to TP: inside a node); with `ep` the expert groups span "
       "them first. Needs a fused attention kernel",
       integer(1, kMaxParallel), field<&Scenario::layout, &Layout::cp>()},
      {"parallelism.cp_comm", "`ring`, `all_gather`, `all_to_all`", "`ring`",
       "how context parallelism moves keys and values: `ring`, KV blocks passed around the cp "
       "ranks beside the attention blocks (cp − 1 steps; the backward sends KV and their "
       "gradients), hidden unless longer than the compute, each step's block merged into the "
       "running result by a memory-bound kernel (Megatron-core / Transformer Engine's `p2p`); "
       "`all_gather`, KV all-gathered before the attention and their gradients "
       "reduce-scattered after it, on the critical path (Transformer Engine's `all_gather`, "
       "Llama 3's choice); `all_to_all`, Q, K and V exchanged from sequence shards to head "
       "shards before the attention and its output back after it, each rank attending over "
       "the whole sequence with heads / cp (Transformer Engine's `a2a`, DeepSpeed-Ulysses; the "
       "backward exchanges the output's gradient and Q, K and V's), on the critical path, each "
       "tensor copied twice around its exchange as Transformer Engine lays it out (a permute and "
       "a reorder of the zig-zag chunks, `cp.a2a_layout`) and exchanged in FP8 under "
       "`fp8_attention`; its heads and key-value heads per TP rank must divide by cp",
       choice({"ring", "all_gather", "all_to_all"},
              {{"p2p", "ring"}, {"a2a", "all_to_all"}, {"ulysses", "all_to_all"}}),
       field<&Scenario::layout, &Layout::cp_comm>()},
      {"parallelism.zero", "0–3", "0",
       "ZeRO stage: 1 shards optimizer states (gradients reduce-scattered once, after the last "
       "micro-batch, or with `overlap_grad_reduce` by bucket during its backward), 2 also "
       "gradients (reduce-scattered per bucket after every micro-batch's "
       "backward), 3 also parameters (FSDP: all-gathered per unit before each use, gradients "
       "reduce-scattered per unit after every backward)",
       integer(0, 3), field<&Scenario::layout, &Layout::zero>()},
      {"parallelism.fsdp", "", "", "", map(), {}},
      {"parallelism.fsdp.unit_layers", "integer ≥ 1", "1",
       "ZeRO-3: layers per FSDP unit (one all-gather and one reduce-scatter each)",
       integer(1, kMaxCount), field<&Scenario::layout, &Layout::fsdp, &FsdpSpec::unit_layers>()},
      {"parallelism.fsdp.prefetch", "0–64", "1",
       "ZeRO-3 (and `param_gather` without model chunks): unit i+d is gathered while unit i "
       "computes; 0 = on demand",
       integer(0, 64), field<&Scenario::layout, &Layout::fsdp, &FsdpSpec::prefetch>()},
      {"parallelism.fsdp.reshard_after_forward", "bool", "true",
       "ZeRO-3: free gathered units after each use (gather again before every F, B, I); false = "
       "gather once per step and keep them across micro-batches",
       boolean(), field<&Scenario::layout, &Layout::fsdp, &FsdpSpec::reshard_after_forward>()},
      {"parallelism.fsdp.gather_bucket", "bytes", "— (the whole unit)",
       "each ZeRO-3 unit's all-gather as ⌈unit / bucket⌉ equal collectives one after another "
       "(smaller messages reach less of the link's bandwidth). DeepSpeed ZeRO-3 gathers module by "
       "module: about one weight matrix (a unit also carries its share of the embedding and head); "
       "PyTorch FSDP: the whole unit. Only with zero 3 (refused otherwise; a search drops it)",
       quantity(Dimension::Bytes, true),
       field<&Scenario::layout, &Layout::fsdp, &FsdpSpec::gather_bucket>()},
      {"parallelism.fsdp.reduce_bucket", "bytes", "— (the whole unit)",
       "each ZeRO-3 unit's reduce-scatter as ⌈unit / bucket⌉ equal collectives. DeepSpeed ZeRO-3: "
       "`reduce_bucket_size` elements × the reduce dtype's bytes; PyTorch FSDP: the whole unit. "
       "Only with zero 3",
       quantity(Dimension::Bytes, true),
       field<&Scenario::layout, &Layout::fsdp, &FsdpSpec::reduce_bucket>()},
      {"parallelism.param_gather",
       "`after-optimizer`, `with-next-forward`",
       "`after-optimizer`",
       "ZeRO-1/2: all-gather the updated parameters right after the optimizer, or bucket by bucket "
       "before the next step's first forward (Megatron's overlap_param_gather): `fsdp.prefetch` "
       "buckets ahead, or with model chunks (vpp > 1) a chunk ahead, all its buckets at once "
       "(chunks 0 and 1 at the step's start, chunk c + 1 when chunk c's first forward begins, on "
       "pipeline rank r r forwards earlier, as Megatron's interleaved schedule does)",
       choice({"after-optimizer", "with-next-forward"}),
       {put_layout_flag<&Layout::param_gather_with_forward, 1>,
        get_layout_flag<&Layout::param_gather_with_forward, 1>}},
      {"parallelism.overlap_grad_reduce", "bool", "false",
       "ZeRO-1: reduce-scatter the gradients bucket by bucket (`memory.bucket_size`) as the last "
       "micro-batch's backward completes them, beside the rest of it (Megatron's "
       "`overlap_grad_reduce` with its distributed optimizer, NeMo's `overlap_grad_sync`), "
       "instead of once after it. ZeRO-0 and ZeRO-2 always reduce by bucket during the backward "
       "and ZeRO-3 by unit: there it changes nothing",
       boolean(), field<&Scenario::layout, &Layout::grad_reduce_with_backward>()},
      {"parallelism.grad_buckets", "`all`, `first_chunk`, `none`", "`all`",
       "which model stages reduce their gradients bucket by bucket (`memory.bucket_size`), where "
       "buckets apply (ZeRO-0 and -2, ZeRO-1 with `overlap_grad_reduce`; with `param_gather: "
       "with-next-forward` the parameter gathers take the same buckets): `all`, every stage; "
       "`first_chunk`, only the first model chunk of the first pipeline rank, every other chunk "
       "and pipeline rank reducing (and gathering) its gradients in one bucket once its last "
       "backward is done, as Megatron-core's DDP does (distributed_data_parallel.py: bucket_size "
       "None where the pipeline rank is above 0 or `disable_bucketing`, which Megatron-LM's "
       "training.py sets for model chunks after the first; core 0.6 on, and NeMo's and "
       "Megatron-Bridge's wrappers the same); `none`, one bucket per chunk everywhere "
       "(Megatron-core with `overlap_param_gather_with_optimizer_step`, which disables bucketing "
       "for every chunk). Without a pipeline or model chunks `first_chunk` is `all`",
       choice({"all", "first_chunk", "none"}), field<&Scenario::layout, &Layout::grad_buckets>()},
      {"parallelism.grad_nan_check", "`off`, `norm`, `nan`, `nan-inf`", "`off`",
       "Megatron-core DDP's `check_for_nan_in_grad` (Megatron-LM's "
       "`--check-for-nan-in-loss-and-grad`, on by default there; NeMo's and Megatron-Bridge's "
       "recipes set it): before each gradient bucket's reduction, the bucket's norm (one pass "
       "reading its gradients, priced with the backward part that completes the bucket), then "
       "tested for NaN (`nan`: Megatron-core up to 0.9) or for NaN and then Inf (`nan-inf`: from "
       "0.12), each test's truth value read back by the CPU: the CPU waits for the GPU to reach "
       "the bucket, once or twice. `norm`: the norm alone, its test skipped (Megatron-core 0.10 "
       "and 0.11 with reruns disabled, their default: the rerun state machine returns before "
       "testing), so the CPU does not wait. Where the CPU is simulated (`training.runtime` "
       "`eager` or `fused`) it issues the norm and the test, and after a wait the rest of the "
       "check, the bucket's reduction (`efficiency.host_per_collective`) and the next kernels "
       "while the GPU waits (`efficiency.host_per_kernel` per operation and read-back): with "
       "`overlap_grad_reduce`, once per bucket inside the last backward. Without data parallelism "
       "it changes nothing",
       choice({"off", "norm", "nan", "nan-inf"}),
       field<&Scenario::layout, &Layout::grad_nan_check>()},
      {"parallelism.zero1_reduce",
       "`reduce-scatter`, `all-reduce`",
       "`reduce-scatter`",
       "ZeRO-1: the gradients' collective over the DP ranks: a reduce-scatter, each rank keeping "
       "the shard its optimizer steps (Megatron's distributed optimizer), or an all-reduce of "
       "them whole, twice the traffic (nanotron with `accumulate_grad_in_fp32`: its ZeRO-1 runs "
       "without DDP and all-reduces the fp32 gradient buffer once after the last backward, "
       "`trainer.py` `sync_gradients_across_dp`, `reduce_scatter=False`; `--json`: "
       "`layout.zero1_reduce`). ZeRO 0, 2 and 3: "
       "there it changes nothing",
       choice({"reduce-scatter", "all-reduce"}),
       {put_layout_flag<&Layout::zero1_all_reduce, 1>,
        get_layout_flag<&Layout::zero1_all_reduce, 1>}},
      {"parallelism.tp_async_allreduce", "bool", "true",
       "without sequence parallelism, each column-parallel layer's input-gradient all-reduce over "
       "TP (QKV's, the MLP's up projection's, the output layer's) issued asynchronously and hidden "
       "under that layer's weight-gradient GEMM, as Megatron's "
       "`async_tensor_model_parallel_allreduce` (its default) and Transformer Engine's layers run "
       "it; false: blocking, waited for right after the input-gradient GEMM, as Megatron-DeepSpeed "
       "runs it (megatron/arguments.py sets async_tensor_model_parallel_allreduce False whenever "
       "DeepSpeed runs the model, and the layers then all-reduce through "
       "copy_to_tensor_model_parallel_region's backward). Under sequence parallelism, whose "
       "reduce-scatters Megatron issues asynchronously either way, and at tp 1 it changes nothing",
       boolean(), field<&Scenario::layout, &Layout::tp_async_allreduce>()},
      {"parallelism.tp_overlap", "bool", "false",
       "comm-GEMM overlap. With sequence parallelism on a dense model, as Transformer Engine's "
       "userbuffers run it: each layer's TP collectives run inside the GEMMs they are fused with "
       "(the all-gathers before QKV's and the MLP's up projection's forward and before the "
       "row-parallel layers' input gradients, the reduce-scatters after the row-parallel "
       "forward), each hidden under its own GEMM's chunks as they pipeline, what outlasts them "
       "on the critical path: a ring-exchange all-gather under the first tp − 1 of the GEMM's tp "
       "chunks (the last one computes alone: half the GEMM at tp 2), a pipelined "
       "reduce-scatter's first 3 of 4 chunks under the GEMM's last 3 (its last chunk's quarter "
       "always exposed). Without "
       "SP, or with experts or latent attention, which Transformer Engine does not fuse, a "
       "generic overlap: every TP collective beside its whole pass. Off, they block, and only "
       "the backward's asynchronous ones (the column-parallel layers' input-gradient "
       "collectives and, under SP, their inputs' re-gathers, as Megatron-LM and Transformer "
       "Engine issue them) hide under their GEMMs. "
       "The overlapped GEMMs run in chunks of the tokens, as Transformer Engine's defaults "
       "decompose them: QKV's and the MLP's up projection's forward and the row-parallel "
       "layers' input gradients in tp chunks (ring exchange), the row-parallel forward in 4 "
       "(pipeline); each chunk timed as a GEMM of its rows (Transformer Engine's overlap only). "
       "The "
       "report's layout line says `TP overlap` at tp > 1 (`--json`: `layout.tp_overlap`)",
       boolean(), field<&Scenario::layout, &Layout::tp_overlap>()},
      {"parallelism.sequence_parallel", "bool", "false",
       "Megatron sequence parallelism with TP (the report's layout line says `SP` at tp > 1; "
       "`--json`: `layout.sequence_parallel`)",
       boolean(), field<&Scenario::layout, &Layout::sequence_parallel>()},
      {"parallelism.pipeline_split", "", "", "", map(), {}},
      {"parallelism.pipeline_split.embedding", "bool", "false",
       "count the input embedding as one layer when splitting layers over pipeline stages: the "
       "first stage holds one layer fewer (Megatron-core's "
       "`--account-for-embedding-in-pipeline-split`)",
       boolean(), field<&Scenario::layout, &Layout::split, &PipelineSplit::embedding>()},
      {"parallelism.pipeline_split.loss", "bool", "false",
       "count the output layer and loss as one layer: the last stage holds one layer fewer "
       "(`--account-for-loss-in-pipeline-split`); with either, the layers and the counted slots "
       "must be a multiple of pp × vpp, every stage as many, as Megatron-core requires (Llama 3 "
       "405B: 126 + 2 = 128 chunks of one)",
       boolean(), field<&Scenario::layout, &Layout::split, &PipelineSplit::loss>()},
      {"parallelism.pipeline_split.mtp", "bool", "false",
       "count the multi-token prediction modules (`model.mtp_layers`) in the split: the last "
       "stage holds as many of the model's layers fewer, where otherwise they come on top of its "
       "share (Megatron-core's pipeline layouts, core_v0.13+, can place them so); the same "
       "multiple rule (DeepSeek-V3: 61 layers + embedding + loss + 1 module = 64 slots, 4 per "
       "stage at pp 16)",
       boolean(), field<&Scenario::layout, &Layout::split, &PipelineSplit::mtp>()},
      {"parallelism.pipeline_split.layers",
       "list of integers ≥ 0, one per stage",
       "— (an even split; a remainder one layer each to stages 1, 2, …, named in the report's "
       "layout line)",
       "the Transformer layers of each pipeline stage, pp × vpp of them in the model's order (the "
       "schedule places the stages on ranks: interleaved, rank r holds stages r, r + pp, …), "
       "summing to `model.layers`: an uneven split as a "
       "framework makes it (Megatron-core's `--decoder-first-pipeline-num-layers` and "
       "`--decoder-last-pipeline-num-layers`, torchtitan's split points, nanotron's split by "
       "block cost, in which the LM head weighs vocabulary × hidden). The first stage also holds "
       "the embedding, the last the head and loss; only they may hold no layer. Not with "
       "`embedding`, `loss` or `mtp`. A layout search keeps it for layouts of the scenario's pp "
       "and "
       "vpp and splits the others evenly",
       integers(0, kMaxLayers),
       {put_split_layers, get_split_layers}},
      {"parallelism.rank_order",
       "`\"tp,dp,pp\"` permutation",
       "`tp,dp,pp`",
       "fastest-varying axis first (Megatron's default)",
       text(),
       {put_rank_order, get_rank_order}},
      {"contention", "map", "—", "how overlapping work slows down on one GPU", map(), {}},
      {"contention.compute_slowdown", "0–10", "0.189",
       "compute runs this much longer while communication kernels run beside it (SM sharing). "
       "Default: the 18.9% average Lee et al. measured over GPT/Llama training on "
       "A100/H100/MI250/MI210 (arXiv 2507.03114); 0 turns it off",
       fraction(0, 10), field<&Scenario::contention, &ContentionSpec::compute_slowdown>()},
      {"contention.comm_slowdown", "0–10", "0.129",
       "communication kernels (collectives, sends) run this much longer while compute runs beside "
       "them on the same GPU (SMs, caches and HBM shared). Default: 12.9%, the median slowdown of "
       "collective-like copies beside real training steps on an H100 "
       "(calibrate/reference/overlap_probe.py); 0 turns it off",
       fraction(0, 10), field<&Scenario::contention, &ContentionSpec::comm_slowdown>()},
      {"contention.link_sharing", "bool", "true",
       "transfers and collectives crossing the same link of a GPU (its NVLink, its NIC) split its "
       "bandwidth equally, each direction apart (a DP all-reduce beside a pipeline send each get "
       "half; a send beside a receive each keep their full rate: a link carries it each way at "
       "once)",
       boolean(), field<&Scenario::contention, &ContentionSpec::link_sharing>()},
      // A schedule map's other keys are the generator's options (schedules/registry.h).
      {"schedule",
       "name or map",
       "`1f1b`",
       "`afab` (alias `gpipe`), `1f1b`, `interleaved-1f1b` (vpp ≥ 2), `looped-bfs` (vpp ≥ 2; at 1 "
       "it is AFAB), `zb-h1`, `zb-h2`, `zb-v`, `dualpipe-v` (vpp = 2), `dualpipe` (vpp 1, even pp, "
       "even m ≥ 2·pp: two pipelines in opposite directions, a copy of the model each), `zb-auto` "
       "(vpp 1, or 2 in a V; split backward: costs need `backward_input` + `backward_weight`); "
       "`trainsim schedule --list`",
       none(),
       {}},
      {"schedule.name", "name", "`1f1b`", "other keys of the map are the schedule's options",
       text(), field<&Scenario::schedule, &ScheduleSpec::name>()},
      {"schedule.csv",
       "path",
       "—",
       "simulate a torch.distributed.pipelining CSV schedule (one row per rank; `trainsim schedule "
       "--export-csv` writes one); relative to the scenario file",
       path(),
       {put_schedule_csv, get<&Scenario::schedule, &ScheduleSpec::csv>}},
      {"costs",
       "map",
       "—",
       "explicit per-stage durations of one micro-batch; replace the model for those tasks",
       map(),
       {}},
      {"costs.forward",
       "time or list of pp times",
       "required without a model",
       "F per stage (÷ vpp per chunk)",
       times(),
       {put_times<&CostOverrides::forward>, nullptr}},
      {"costs.backward",
       "time or list",
       "—",
       "fused backward B",
       times(),
       {put_times<&CostOverrides::backward>, nullptr}},
      {"costs.backward_input",
       "time or list",
       "—",
       "input-gradient I (with `backward_weight`)",
       times(),
       {put_times<&CostOverrides::backward_input>, nullptr}},
      {"costs.backward_weight",
       "time or list",
       "—",
       "weight-gradient W",
       times(),
       {put_times<&CostOverrides::backward_weight>, nullptr}},
      {"costs.p2p", "time", "model's, or 0", "every stage-to-stage transfer",
       quantity(Dimension::Time, false), time_field<&Scenario::costs, &CostOverrides::p2p>()},
      {"costs.forward_backward_overlap",
       "time or list",
       "F + B",
       "`dualpipe-v`, `dualpipe`, `overlap_f_b`: one overlapped forward + backward (÷ vpp per "
       "chunk pair)",
       times(),
       {put_times<&CostOverrides::forward_backward_overlap>, nullptr}},
      {"efficiency", "map", "cost/constants.h", "analytic-model overrides", map(), {}},
      {"efficiency.gemm", "0.01–1", "the preset's measured sweep, else 0.80",
       "fraction of peak FLOP/s for large GEMMs (roofline with wave quantization); set, it "
       "replaces the A100/H100/H200/B200/GB200/GB300 presets' measured GEMM-by-shape sweeps "
       "(`sim/cost/gemm_efficiency.h`)",
       fraction(0.01, 1), field<&Scenario::efficiency, &EfficiencyOverrides::gemm>()},
      {"efficiency.memory", "0.01–1", "0.80", "fraction of HBM bandwidth for streaming kernels",
       fraction(0.01, 1), field<&Scenario::efficiency, &EfficiencyOverrides::memory>()},
      {"efficiency.kernel_launch", "time", "2us", "fixed cost per kernel",
       quantity(Dimension::Time, false),
       time_field<&Scenario::efficiency, &EfficiencyOverrides::kernel_launch>()},
      {"efficiency.host_per_kernel", "time",
       "48.3us with `training.runtime: eager` or `fused` (132.9us on a Grace host, "
       "`cluster.host_cpu`), "
       "else 0",
       "the CPU's time to issue one kernel (Python, dispatcher, launch call): each rank's CPU "
       "issues its compute's kernels in schedule order, running ahead of its GPU; a compute "
       "task starts once its first kernel is issued, and what needs its result (the next "
       "compute, its sends and collectives) once its last is, so kernels shorter than this "
       "leave the GPU waiting (the `launch` rows of the timeline; `CPU launches` in the "
       "report). Eager: measured on a recorded eager PyTorch step whose CPU never waited, "
       "under the profiler, an upper estimate (`sim/cost/constants.h`); fused: the same (a "
       "fused framework's own is not measured); compiled: 0 (its CPU assumed ahead; the "
       "report's `CPU launches` line then gives the GPU compute a step has per kernel, the most "
       "a CPU may spend issuing one). `0us` for a run under CUDA graphs. A pass's "
       "TP, CP and EP collectives are issued between its kernels (`efficiency.host_per_collective` "
       "each); the optimizer's and the data-parallel collectives' launches are not counted",
       quantity(Dimension::Time, false),
       time_field<&Scenario::efficiency, &EfficiencyOverrides::host_per_kernel>()},
      {"efficiency.host_per_collective", "time",
       "227us with `training.runtime: eager` or `fused` (624.4us on a Grace host; unless "
       "`host_per_kernel` "
       "is 0), else `host_per_kernel`'s",
       "the CPU's time to issue one of a pass's TP, CP or EP collectives (torch.distributed's "
       "call into NCCL: its checks, work object, events and stream waits, the launch), on the "
       "same CPU as its kernels. Eager: the `c10d::` operators' time in two real profiler traces "
       "(`sim/cost/constants.h`), about five kernels' worth, so at small micro-batches under "
       "tensor parallelism an eager step is the CPU's. Transformer Engine's userbuffers "
       "exchanges (`parallelism.tp_overlap`) are issued from C++ inside their GEMM's call, not "
       "through torch.distributed: `host_per_kernel` each",
       quantity(Dimension::Time, false),
       time_field<&Scenario::efficiency, &EfficiencyOverrides::host_per_collective>()},
      {"memory", "map", "", "what a GPU holds besides model state and activations", map(), {}},
      {"memory.runtime_overhead", "bytes", "1.5GB",
       "CUDA context, library workspaces, allocator slack (Playbook: 1–2 GB)",
       quantity(Dimension::Bytes, false),
       field<&Scenario::memory, &MemorySpec::runtime_overhead>()},
      {"memory.bucket_size", "bytes", "25MB",
       "DP gradient bucket (PyTorch DDP's `bucket_cap_mb`): a stage's gradients reduced bucket "
       "by bucket as the backward completes them (and under `parallelism.param_gather: with-"
       "next-forward` gathered so before the forward), filled as frameworks fill them, a "
       "parameter never split: the embedding's table, whose gradient completes last, rides with "
       "the last bucket and is gathered with the first, and under `training.fp8_params` so does "
       "the head (Megatron-core puts its 16-bit buffer in the last FP8 bucket's group); the rest"
       " in ⌈rest / bucket⌉ equal shares, the layers being alike. Under expert parallelism the "
       "routed experts' gradients fill buckets of their own, reduced over their "
       "expert-data-parallel group (Megatron-core's expert-parallel buffers)",
       quantity(Dimension::Bytes, true), field<&Scenario::memory, &MemorySpec::bucket_size>()},
      {"memory.dp_buckets", "`view`, `copy`", "`view`",
       "what the DP gradient buckets are, with dp > 1 under ZeRO 0 or 1: views of the gradients "
       "(Megatron's gradient buffer, PyTorch DDP's `gradient_as_bucket_view=True`; one bucket in "
       "flight counted in buffers), or storage of their own, every bucket kept beside the "
       "gradients (`copy`: PyTorch DDP's default, as nanotron and Accelerate run it; 2 bytes a "
       "trained parameter in buffers; `trainsim memory --json`: `dp_buckets`). ZeRO-2 and ZeRO-3 "
       "shard their gradients outside PyTorch "
       "DDP: there it changes nothing",
       choice({"view", "copy"}), field<&Scenario::memory, &MemorySpec::dp_buckets>()},
      {"memory.fragmentation", "0–0.5", "0.115",
       "the share of device memory the caching allocator's fragmentation leaves unusable: a GPU "
       "whose peak passes (1 − fragmentation) × `cluster.gpu.memory` (the reports' `usable`) is "
       "likely to run out, and `trainsim search` marks the layouts that fit the device but pass "
       "it as tight (`~` after the peak; ranked among those that fit, as 15 of the published "
       "runs trained so, with the fastest layout that keeps under it named beneath the table). "
       "Default: 11.5 %, "
       "the 9.2 GB of 80 that PyTorch's caching allocator held on average beyond GMLake's "
       "stitching over eight LLMs on A100 80GB (Guo et al., ASPLOS 2024); of the Ultra-Scale "
       "Playbook's measured layouts that crashed, 1,060 of 1,224 come out over it (980 over the "
       "whole device), of those that ran 1 of 1,551; Megatron and NeMo preallocate their buffers "
       "and fragment less: 15 of `tests/published/`'s runs, four configurations that trained, "
       "come out tight. 0: every byte usable, as for a run under PyTorch's "
       "`expandable_segments:True`, whose fragmentation no source measures",
       fraction(0, 0.5), field<&Scenario::memory, &MemorySpec::fragmentation>()},
      {"calibration",
       "path",
       "—",
       "a profile from `trainsim-calibrate` or its importers (format: `calibrate/README.md`), "
       "relative to the scenario file's folder (a `--set calibration=…` path that folder lacks is "
       "read from the current folder): GEMM shapes, copy sizes and attention calls from its "
       "samples where they match, collective and p2p times from its samples (log–log "
       "interpolation, α–β fit outside); what it lacks stays analytic; the report's `durations` "
       "line says which. Needs a model; a profile measured on another GPU than `cluster.gpu` "
       "names (its `provenance.device`: an H200's for H100s, an H100 PCIe's for H100 SXMs, an "
       "A100 40GB's for A100 80GBs) is refused",
       path(),
       {put_calibration, get<&Scenario::calibration>}},
      {"slowdown",
       "list",
       "—",
       "stragglers and heterogeneity: `[{rank: N or ranks: [..], compute: factor, link: factor}]`; "
       "compute durations on those GPUs and every transfer or collective they take part in (at the "
       "slowest member's pace) × factor (0.01–100). Disables folding; `run` prints the step time "
       "without them for comparison",
       list(),
       {put_slowdown_entry, nullptr}},
      {"slowdown[].rank",
       "a global rank / a list of them",
       "— (one of the two)",
       "the GPUs an entry slows; a GPU in one entry only (its compute and link factors "
       "together), as factors would multiply",
       integer(0, kMaxGpus),
       {put_slowdown_rank, nullptr}},
      {"slowdown[].ranks",
       "a global rank / a list of them",
       "— (one of the two)",
       "the GPUs an entry slows; a GPU in one entry only (its compute and link factors "
       "together), as factors would multiply",
       ranks(0, kMaxGpus),
       {put_slowdown_ranks, nullptr}},
      {"slowdown[].compute",
       "0.01–100",
       "1",
       "factor on those GPUs' compute durations (on top of the job's slowest-GPU pace, "
       "`cluster.gpu_speed_spread`) / on the transfers and collectives they take part in",
       number(0.01, 100),
       {put<&Scenario::slowdowns, &Slowdown::compute>, nullptr}},
      {"slowdown[].link",
       "0.01–100",
       "1",
       "factor on those GPUs' compute durations (on top of the job's slowest-GPU pace, "
       "`cluster.gpu_speed_spread`) / on the transfers and collectives they take part in",
       number(0.01, 100),
       {put<&Scenario::slowdowns, &Slowdown::link>, nullptr}},
      {"measured",
       "map",
       "—",
       "a published or measured figure of this very run, to check the prediction against "
       "(`trainsim run` prints the error, `trainsim check` tables many)",
       map(),
       {}},
      {"measured.step_time",
       "time / number / number / FLOPS / 0–1",
       "—",
       "exactly one; the error is on step time ((predicted − measured) / measured); TFLOP/s and "
       "MFU compare with trainsim's model FLOPs (causal attention counted half), so prefer a "
       "throughput or a time; `search` reads the fastest layout at the pace it sets for "
       "the scenario's own",
       quantity(Dimension::Time, true),
       {put_measured<Measured::Metric::StepTime>, nullptr}},
      {"measured.tokens_per_s",
       "time / number / number / FLOPS / 0–1",
       "—",
       "exactly one; the error is on step time ((predicted − measured) / measured); TFLOP/s and "
       "MFU compare with trainsim's model FLOPs (causal attention counted half), so prefer a "
       "throughput or a time; `search` reads the fastest layout at the pace it sets for "
       "the scenario's own",
       number(1e-9, 1e18),
       {put_measured<Measured::Metric::TokensPerS>, nullptr}},
      {"measured.tokens_per_s_per_gpu",
       "time / number / number / FLOPS / 0–1",
       "—",
       "exactly one; the error is on step time ((predicted − measured) / measured); TFLOP/s and "
       "MFU compare with trainsim's model FLOPs (causal attention counted half), so prefer a "
       "throughput or a time; `search` reads the fastest layout at the pace it sets for "
       "the scenario's own",
       number(1e-9, 1e18),
       {put_measured<Measured::Metric::TokensPerSPerGpu>, nullptr}},
      {"measured.tflops_per_gpu",
       "time / number / number / FLOPS / 0–1",
       "—",
       "exactly one; the error is on step time ((predicted − measured) / measured); TFLOP/s and "
       "MFU compare with trainsim's model FLOPs (causal attention counted half), so prefer a "
       "throughput or a time; `search` reads the fastest layout at the pace it sets for "
       "the scenario's own",
       quantity(Dimension::Flops, true),
       {put_measured<Measured::Metric::TflopsPerGpu>, nullptr}},
      {"measured.mfu",
       "time / number / number / FLOPS / 0–1",
       "—",
       "exactly one; the error is on step time ((predicted − measured) / measured); TFLOP/s and "
       "MFU compare with trainsim's model FLOPs (causal attention counted half), so prefer a "
       "throughput or a time; `search` reads the fastest layout at the pace it sets for "
       "the scenario's own",
       fraction(1e-6, 1),
       {put_measured<Measured::Metric::Mfu>, nullptr}},
      {"measured.source",
       "text",
       "required",
       "where the figure comes from (paper, table, row)",
       text(),
       {put<&Scenario::measured, &Measured::source>, nullptr}},
      {"measured.series",
       "text",
       "—",
       "runs measured together (one source, software and cluster) share a series name; "
       "`trainsim check` ranks each series' runs by GPU-seconds per token, predicted against "
       "measured (which layout is fastest), and prices each run at the pace its series' other "
       "runs measured (their median measured over predicted step time: how much of the error "
       "the site's runs share), and lists each two of its runs whose scenarios differ in one or "
       "two settings with what that change did to the cost per token, measured and predicted",
       text(),
       {put_measured_series, nullptr}},
      {"measured.peak_memory",
       "bytes",
       "—",
       "besides the step-time figure, the run's logged peak of the memory its allocator handed "
       "out on its first GPU (global rank 0, pipeline stage 0, where MLPerf's logger runs: "
       "`torch.cuda.max_memory_allocated`, which MLPerf's `max_memory_usage` logs in GiB); "
       "`trainsim memory`, `run` and `check` set stage 0's peak less `memory.runtime_overhead` "
       "(the CUDA context and library workspaces, outside the allocator's count) against it",
       quantity(Dimension::Bytes, true),
       {put_measured_memory, nullptr}},
      {"pricing", "map", "—", "", map(), {}},
      {"pricing.gpu_hour", "dollars", "—", "price per GPU-hour (enables cost per 1M tokens)",
       quantity(Dimension::Money, false), field<&Scenario::price_per_gpu_hour>()},
  };
  return kKeys;
}

namespace {
// The parent of `path` ("" at the top level): the part before its last '.'; a list entry's
// keys ("slowdown[].rank") have the entry ("slowdown[]") as parent.
std::string_view parent_of(std::string_view path) {
  const auto dot = path.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : path.substr(0, dot);
}
}  // namespace

std::vector<std::string> keys_under(std::string_view section) {
  std::vector<std::string> out;
  for (const SchemaKey& k : scenario_keys())
    if (parent_of(k.path) == section)
      out.emplace_back(k.path.substr(section.empty() ? 0 : section.size() + 1));
  return out;
}

bool is_section(std::string_view path) {
  for (const SchemaKey& k : scenario_keys())
    if (parent_of(k.path) == path) return true;
  return false;
}

const SchemaKey* find_key(std::string_view path) {
  for (const SchemaKey& k : scenario_keys())
    if (k.path == path) return &k;
  return nullptr;
}

std::vector<const SchemaKey*> rows_under(std::string_view section) {
  std::vector<const SchemaKey*> out;
  for (const SchemaKey& k : scenario_keys())
    if (parent_of(k.path) == section) out.push_back(&k);
  return out;
}

std::vector<std::pair<const SchemaKey*, std::optional<KeyValue>>> values_under(
    std::string_view section, const Scenario& s) {
  std::vector<std::pair<const SchemaKey*, std::optional<KeyValue>>> out;
  for (const SchemaKey* k : rows_under(section))
    if (k->access.get) out.emplace_back(k, k->access.get(s));
  return out;
}

std::optional<std::string> show_value(const SchemaKey& key, const Scenario& s) {
  if (!key.access.get) return std::nullopt;
  const std::optional<KeyValue> v = key.access.get(s);
  if (!v) return std::nullopt;
  switch (key.rule.kind) {
    case Kind::Integer:
      return std::to_string(v->integer);
    case Kind::Number:
      return fmt::format("{}", v->number);
    case Kind::Bool:
      return v->flag ? "true" : "false";
    case Kind::Choice:
      assert(v->integer >= 0 && static_cast<std::size_t>(v->integer) < key.rule.choices.size());
      return std::string(key.rule.choices[static_cast<std::size_t>(v->integer)]);
    case Kind::Quantity:
      return fmt::format("{}{}", v->number, unit_symbol(key.rule.dim));
    case Kind::Ranks:
    case Kind::Integers:
      return fmt::format("[{}]", fmt::join(v->items, ", "));
    default:
      return v->text;
  }
}

std::vector<std::pair<std::string, std::string>> setting_values(const Scenario& s) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const SchemaKey& k : scenario_keys())
    if (k.access.get) out.emplace_back(std::string(k.path), show_value(k, s).value_or("—"));
  return out;
}

}  // namespace trainsim
