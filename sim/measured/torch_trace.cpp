#include "measured/torch_trace.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <istream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <streambuf>
#include <unordered_map>

#include <fmt/format.h>
#include <zlib.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/quantity.h"

namespace trainsim {
namespace {

using json = nlohmann::json;

// A std::streambuf over zlib's gzread, which reads gzip and plain files alike. Refuses a gzip
// stream that expands past opt.max_gzip_ratio once opt.gzip_check_after bytes are out.
class GzBuf : public std::streambuf {
 public:
  GzBuf(const std::string& path, const TraceReadOptions& opt) : path_(path), opt_(opt) {
    f_ = gzopen(path.c_str(), "rb");
    if (!f_) throw InputError(fmt::format("{}: cannot open the trace file", path));
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    size_ = ec ? 0 : static_cast<std::int64_t>(size);
    gzbuffer(f_, 1 << 17);
  }
  /// Whether the file is gzip (zlib reads plain files too); known once the first bytes are read.
  bool compressed() const { return gzdirect(f_) == 0; }
  std::int64_t file_size() const { return size_; }
  ~GzBuf() override {
    if (f_) gzclose(f_);
  }
  GzBuf(const GzBuf&) = delete;
  GzBuf& operator=(const GzBuf&) = delete;

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    const int n = gzread(f_, buf_, sizeof buf_);
    if (n < 0) {
      int code = 0;
      const char* msg = gzerror(f_, &code);
      throw InputError(
          fmt::format("{}: cannot read the trace ({}): a damaged or truncated gzip "
                      "file?",
                      path_, msg ? msg : "zlib error"));
    }
    if (n == 0) return traits_type::eof();
    out_ += n;
    if (opt_.progress && out_ >= next_progress_) {
      next_progress_ = out_ + (16ll << 20);
      opt_.progress(gzdirect(f_) ? out_ : static_cast<std::int64_t>(gzoffset(f_)), size_);
    }
    if (!gzdirect(f_) && out_ > opt_.gzip_check_after) {
      const auto in = static_cast<double>(gzoffset(f_));
      if (in > 0 && static_cast<double>(out_) / in > opt_.max_gzip_ratio)
        throw InputError(fmt::format(
            "{}: refused: {} MB of JSON from {} kB of gzip (ratio over {:g}) looks like a gzip "
            "bomb, not a profiler trace",
            path_, out_ >> 20, static_cast<std::int64_t>(in) >> 10, opt_.max_gzip_ratio));
    }
    setg(buf_, buf_, buf_ + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::string path_;
  TraceReadOptions opt_;
  gzFile f_ = nullptr;
  std::int64_t out_ = 0, size_ = 0, next_progress_ = 0;
  char buf_[1 << 16];
};

// Kineto writes ts/dur in microseconds (with ns fractions); pid/tid/ids are numbers or strings.
double number(const json& j, double fallback = 0) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    try {
      return std::stod(j.get<std::string>());
    } catch (const std::exception&) {
      return fallback;
    }
  }
  return fallback;
}

// A JSON number as an integer, clamped to [lo, hi] (a cast of an out-of-range double is
// undefined behaviour; ids and stream numbers that large are nonsense anyway).
std::int64_t clamped(double v, double lo, double hi) {
  if (!(v >= lo)) return static_cast<std::int64_t>(lo);  // also NaN
  if (v > hi) return static_cast<std::int64_t>(hi);
  return static_cast<std::int64_t>(v);
}

int to_int(double v) {
  return static_cast<int>(clamped(v, -2e9, 2e9));
}

const json* field(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::int64_t id_of(const json& args, const char* key) {
  const json* v = field(args, key);
  return v ? clamped(number(*v, -1), -1, 9e18) : -1;
}

// Timestamps and durations beyond ±4·10^15 µs (127 years) are refused: twice that still fits
// int64 nanoseconds, so start + duration cannot overflow.
constexpr double kMaxUs = 4e15;

// µs to integer ns without losing the ns digits: older Kineto writes absolute µs since the
// epoch as integers (1.7e15, past a double's 2^53 once × 1000), newer ones relative µs with a
// fraction. nullopt past kMaxUs.
// A number, or a string holding just one (some exporters quote their times).
bool is_time(const json& j) {
  if (j.is_number()) return true;
  if (!j.is_string()) return false;
  const std::string& s = j.get_ref<const std::string&>();
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && ec == std::errc() && ptr == s.data() + s.size();
}

std::optional<TimeNs> us_to_ns(const json& j) {
  const double us = number(j);
  if (!(std::abs(us) <= kMaxUs)) return std::nullopt;
  if (j.is_number_integer()) return static_cast<TimeNs>(us) * 1000;
  const double whole = std::floor(us);
  return static_cast<TimeNs>(whole) * 1000 +
         static_cast<TimeNs>(std::llround((us - whole) * 1000.0));
}

std::string dtype_name(const std::string& t) {
  if (t == "c10::BFloat16" || t == "BFloat16") return "bf16";
  if (t == "c10::Half" || t == "Half") return "fp16";
  if (t == "float" || t == "Float") return "fp32";
  if (t.find("Float8") != std::string::npos) return "fp8";
  return "";
}

double dtype_bytes(const std::string& t) {
  if (t == "Float" || t == "Int" || t == "float" || t == "int") return 4;
  if (t == "BFloat16" || t == "Half" || t == "Short") return 2;
  if (t == "Double" || t == "Long") return 8;
  if (t == "Byte" || t == "Char" || t == "Bool" || t.find("Float8") != std::string::npos) return 1;
  return 0;
}

std::vector<std::int64_t> dims(const json& d) {
  std::vector<std::int64_t> out;
  if (!d.is_array()) return out;
  // A tensor dimension past 2^31 is not a real GEMM's: -1 (the shape is then dropped).
  for (const auto& x : d) {
    const double v = number(x, -1);
    out.push_back(v >= 0 && v <= 2147483648.0 ? static_cast<std::int64_t>(v) : -1);
  }
  return out;
}

// The GEMM operators whose Input Dims give (m, n, k): aten::mm [[m,k],[k,n]], aten::addmm
// [[bias],[m,k],[k,n],…], aten::_scaled_mm like mm, aten::bmm [[b,m,k],[b,k,n]], aten::baddbmm
// [[bias],[b,m,k],[b,k,n]], aten::linear [[…,k],[n,k],[n]] (m the product of leading dims).
bool gemm_shape(const std::string& op, const json& args, TraceGemmShape& g) {
  const json* d = field(args, "Input Dims");
  if (!d || !d->is_array()) return false;
  auto at = [&](std::size_t i) {
    return i < d->size() ? dims((*d)[i]) : std::vector<std::int64_t>{};
  };
  std::vector<std::int64_t> a, b;
  if (op == "aten::mm" || op == "aten::_scaled_mm")
    a = at(0), b = at(1);
  else if (op == "aten::addmm")
    a = at(1), b = at(2);
  else if (op == "aten::bmm")
    a = at(0), b = at(1);
  else if (op == "aten::baddbmm")
    a = at(1), b = at(2);
  else if (op == "aten::linear") {
    a = at(0), b = at(1);
    if (a.size() < 2 || b.size() != 2) return false;
    std::int64_t m = 1;
    for (std::size_t i = 0; i + 1 < a.size(); ++i) {
      if (a[i] < 0 || (a[i] > 0 && m > (std::int64_t{1} << 40) / a[i])) return false;
      m *= a[i];
    }
    g.m = m, g.k = a.back(), g.n = b[0];
  } else {
    return false;
  }
  if (op != "aten::linear") {
    if (a.size() == 2 && b.size() == 2)
      g.m = a[0], g.k = a[1], g.n = b[1];
    else if (a.size() == 3 && b.size() == 3)
      g.batch = a[0], g.m = a[1], g.k = a[2], g.n = b[2];
    else
      return false;
  }
  if (g.m <= 0 || g.n <= 0 || g.k <= 0 || g.batch <= 0) return false;
  if (const json* t = field(args, "Input type"); t && t->is_array()) {
    const std::size_t i = (op == "aten::addmm" || op == "aten::baddbmm") ? 1 : 0;
    if (i < t->size() && (*t)[i].is_string()) g.dtype = dtype_name((*t)[i].get<std::string>());
  }
  return true;
}

// Collective metadata (PyTorch ≥ 2.2), on an NCCL kernel or its record_param_comms operator.
bool collective_info(const json& args, std::string& op, CollectiveInfo& c) {
  const json* name = field(args, "Collective name");
  if (!name || !name->is_string()) return false;
  std::string n;
  for (char ch : name->get<std::string>())
    if (ch != '_') n += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (n.find("allreduce") != std::string::npos)
    op = "all_reduce";
  else if (n.find("allgather") != std::string::npos)
    op = "all_gather";
  else if (n.find("reducescatter") != std::string::npos)
    op = "reduce_scatter";
  else if (n.find("alltoall") != std::string::npos)
    op = "alltoall";
  else if (n == "send" || n == "recv" || n.find("sendrecv") != std::string::npos)
    op = "sendrecv";
  else if (n.find("broadcast") != std::string::npos)
    op = "broadcast";
  else if (n.find("reduce") != std::string::npos)
    op = "reduce";
  else
    return false;  // barrier, …
  const json* dt = field(args, "dtype");
  const double size = dt && dt->is_string() ? dtype_bytes(dt->get<std::string>()) : 0;
  const double in = number(field(args, "In msg nelems") ? args["In msg nelems"] : json(), 0);
  const double out = number(field(args, "Out msg nelems") ? args["Out msg nelems"] : json(), 0);
  c.bytes = size * (op == "all_gather" ? out : in);
  c.group_size = to_int(number(field(args, "Group size") ? args["Group size"] : json(), 0));
  if (const json* d = field(args, "Process Group Description"); d && d->is_string())
    c.process_group = d->get<std::string>();
  return true;
}

struct Span {
  std::int64_t tid = 0;
  TimeNs begin = 0, end = 0;
};

struct GemmOp {
  TimeNs begin = 0, end = 0;
  TraceGemmShape shape;
};

struct Launch {
  std::int64_t tid = 0;
  TimeNs ts = 0;
};

struct AttentionOp {
  TimeNs begin = 0, end = 0;
  TraceAttentionShape shape;
};

// The SDPA operators whose Input Dims give an attention call's shape ([b, heads, seq, d] layout),
// with the index of is_causal among their Concrete Inputs (PyTorch's native_functions.yaml
// signatures).
struct AttentionOpKind {
  std::string_view name;
  bool backward;
  std::size_t key, causal;  // Input Dims index of the key, Concrete Inputs index of is_causal
};
constexpr AttentionOpKind kAttentionOps[] = {
    {"aten::scaled_dot_product_attention", false, 1, 5},
    {"aten::_scaled_dot_product_flash_attention", false, 1, 4},
    {"aten::_scaled_dot_product_efficient_attention", false, 1, 6},
    {"aten::_scaled_dot_product_cudnn_attention", false, 1, 6},
    {"aten::_scaled_dot_product_flash_attention_backward", true, 2, 11},
    {"aten::_scaled_dot_product_efficient_attention_backward", true, 2, 11},
    {"aten::_scaled_dot_product_cudnn_attention_backward", true, 2, 14},
};

bool attention_shape(const std::string& op, const json& args, TraceAttentionShape& a) {
  const AttentionOpKind* kind = nullptr;
  for (const auto& k : kAttentionOps)
    if (op == k.name) kind = &k;
  const json* d = field(args, "Input Dims");
  if (!kind || !d || !d->is_array() || d->size() <= kind->key) return false;
  const auto q = dims((*d)[0]), k = dims((*d)[kind->key]);
  // Self-attention only (keys as long and as wide as the queries): the FLOP convention's.
  if (q.size() != 4 || k.size() != 4 || q[2] != k[2] || q[3] != k[3]) return false;
  for (auto v : q)
    if (v <= 0 || v > (std::int64_t{1} << 31)) return false;
  if (q[0] * q[1] > (std::int64_t{1} << 31)) return false;  // sequences × heads, as profiles allow
  a.backward = kind->backward;
  a.batch = q[0], a.heads = q[1], a.seq = q[2], a.head_dim = q[3], a.kv_heads = k[1];
  if (const json* c = field(args, "Concrete Inputs");
      c && c->is_array() && kind->causal < c->size() && (*c)[kind->causal].is_string()) {
    const std::string& v = (*c)[kind->causal].get_ref<const std::string&>();
    a.causal = v == "True" ? 1 : v == "False" ? 0 : -1;
  }
  return true;
}

// A kernel's links, kept beside TraceKernel until finish() resolves them.
struct KernelIds {
  std::int64_t correlation = -1, external = -1;
};

// Everything one pass over the events keeps.
struct Reader {
  TorchTrace t;
  std::unordered_map<std::string, std::uint32_t> name_ids;
  std::vector<KernelIds> ids;  // parallel to t.kernels until finish()
  // Collective metadata on the kernel itself, by kernel index (few kernels carry it).
  std::unordered_map<std::size_t, std::pair<std::string, CollectiveInfo>> kernel_comms;
  std::unordered_map<std::int64_t, Launch> launches;        // by correlation id
  std::unordered_map<std::int64_t, TraceGemmShape> shapes;  // by External id
  // The same operators by CPU thread and span, for traces whose kernels' External id is the
  // correlation id (older Kineto): the innermost one around the launch is the kernel's.
  std::map<std::int64_t, std::vector<GemmOp>> gemm_ops;
  std::map<std::int64_t, std::vector<AttentionOp>> attention_ops;                  // by CPU thread
  std::unordered_map<std::int64_t, std::pair<std::string, CollectiveInfo>> comms;  // by External id
  std::vector<Span> optimizer;
  std::vector<std::pair<std::string, Span>> steps;

  std::uint32_t intern(const std::string& n) {
    const auto [it, added] = name_ids.emplace(n, static_cast<std::uint32_t>(t.names.size()));
    if (added) t.names.push_back(n);
    return it->second;
  }

  void event(const json& e) {
    ++t.events;
    const json* ph = field(e, "ph");
    if (!ph || !ph->is_string() || ph->get_ref<const std::string&>() != "X") return;
    const json* cat_j = field(e, "cat");
    const json* name_j = field(e, "name");
    if (!cat_j || !cat_j->is_string() || !name_j || !name_j->is_string()) return;
    const std::string& cat = cat_j->get_ref<const std::string&>();
    const std::string& name = name_j->get_ref<const std::string&>();
    const json* ts_j = field(e, "ts");
    const json* dur_j = field(e, "dur");
    if (!ts_j || !dur_j) return;
    // A time is a number of microseconds (or one written as a string); null, a list or a word
    // would read as 0 and shift the event to the trace's origin.
    for (const auto& [key, j] : {std::pair{"ts", ts_j}, std::pair{"dur", dur_j}})
      if (!is_time(*j))
        throw InputError(fmt::format("{}: event {}: {} is {}: expected a time in µs", t.file,
                                     t.events, key, j->dump()));
    const auto ts_ns = us_to_ns(*ts_j), dur_ns = us_to_ns(*dur_j);
    if (!ts_ns || !dur_ns)
      throw InputError(
          fmt::format("{}: event {}: ts or dur beyond ±{:g} µs: not a profiler "
                      "trace's time",
                      t.file, t.events, kMaxUs));
    const TimeNs ts = *ts_ns, dur = std::max<TimeNs>(0, *dur_ns);
    static const json kEmpty = json::object();
    const json* args_p = field(e, "args");
    const json& args = args_p && args_p->is_object() ? *args_p : kEmpty;
    const std::int64_t tid = field(e, "tid") ? clamped(number(e["tid"], 0), -9e18, 9e18) : 0;
    if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
      // The GPU's own timestamps (CUPTI) never run backwards: a kernel that ends before it
      // starts is a damaged trace, whose GPU time would be miscounted.
      if (*dur_ns < 0)
        throw InputError(
            fmt::format("{}: event {} ({} \"{}\"): dur is {}: a GPU event lasts 0 µs "
                        "or more",
                        t.file, t.events, cat, name, dur_j->dump()));
      TraceKernel k;
      k.name = intern(name);
      k.copy = cat != "kernel";
      k.kind = k.copy ? KernelClass{KernelCategory::MemoryBound, ""} : classify_kernel(name);
      k.stream =
          to_int(number(field(args, "stream") ? args["stream"] : json(), static_cast<double>(tid)));
      k.start = ts;
      k.dur = dur;
      if (k.copy) k.copy_bytes = number(field(args, "bytes") ? args["bytes"] : json(), 0);
      std::string op;
      CollectiveInfo info;
      if (collective_info(args, op, info)) kernel_comms[t.kernels.size()] = {op, info};
      ids.push_back({id_of(args, "correlation"), id_of(args, "External id")});
      t.kernels.push_back(std::move(k));
    } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
      const auto c = id_of(args, "correlation");
      if (c >= 0) launches[c] = {tid, ts};
    } else if (cat == "cpu_op" || cat == "user_annotation") {
      if (name.rfind("ProfilerStep#", 0) == 0) {
        steps.push_back({name, {tid, ts, ts + dur}});
      } else if (name.rfind("Optimizer.step#", 0) == 0) {
        optimizer.push_back({tid, ts, ts + dur});
      } else if (name.rfind("aten::", 0) == 0) {
        TraceGemmShape g;
        TraceAttentionShape a;
        if (gemm_shape(name, args, g)) {
          const auto x = id_of(args, "External id");
          if (x >= 0) shapes[x] = g;
          gemm_ops[tid].push_back({ts, ts + dur, g});
        } else if (attention_shape(name, args, a)) {
          attention_ops[tid].push_back({ts, ts + dur, a});
        }
      } else if (name == "record_param_comms") {
        std::string op;
        CollectiveInfo c;
        const auto x = id_of(args, "External id");
        if (x >= 0 && collective_info(args, op, c)) comms[x] = {op, c};
      }
    }
  }

  // Joins launches, operators and spans onto the kernels; sorts; fills the steps.
  void finish() {
    std::sort(steps.begin(), steps.end(),
              [](const auto& a, const auto& b) { return a.second.begin < b.second.begin; });
    for (const auto& [n, s] : steps) t.steps.push_back({n, s.begin, s.end, 0, 0, 0});
    t.optimizer_spans = static_cast<int>(optimizer.size());
    auto step_at = [&](TimeNs ts) {
      // The last step starting at or before ts, if ts lies inside it.
      auto it = std::upper_bound(t.steps.begin(), t.steps.end(), ts,
                                 [](TimeNs x, const TraceStep& s) { return x < s.cpu_begin; });
      if (it == t.steps.begin()) return -1;
      --it;
      return ts < it->cpu_end ? static_cast<int>(it - t.steps.begin()) : -1;
    };
    for (auto& [tid, ops] : gemm_ops)
      std::sort(ops.begin(), ops.end(),
                [](const GemmOp& a, const GemmOp& b) { return a.begin < b.begin; });
    auto enclosing = [&](const Launch& l) -> const GemmOp* {
      const auto it = gemm_ops.find(l.tid);
      if (it == gemm_ops.end()) return nullptr;
      const auto& ops = it->second;
      auto at = std::upper_bound(ops.begin(), ops.end(), l.ts,
                                 [](TimeNs x, const GemmOp& o) { return x < o.begin; });
      for (int tries = 0; at != ops.begin() && tries < 16; ++tries) {
        --at;
        if (at->begin <= l.ts && l.ts < at->end) return &*at;
      }
      return nullptr;
    };
    // An attention kernel's call: the innermost SDPA operator around its launch.
    for (auto& [tid, ops] : attention_ops)
      std::sort(ops.begin(), ops.end(),
                [](const AttentionOp& a, const AttentionOp& b) { return a.begin < b.begin; });
    std::map<const AttentionOp*, int> attention_ids;
    auto attention_of = [&](const Launch& l) -> int {
      const auto it = attention_ops.find(l.tid);
      if (it == attention_ops.end()) return -1;
      const auto& ops = it->second;
      auto at = std::upper_bound(ops.begin(), ops.end(), l.ts,
                                 [](TimeNs x, const AttentionOp& o) { return x < o.begin; });
      for (int tries = 0; at != ops.begin() && tries < 16; ++tries) {
        --at;
        if (at->begin <= l.ts && l.ts < at->end) {
          const auto [id, added] =
              attention_ids.emplace(&*at, static_cast<int>(t.attention_shapes.size()));
          if (added) t.attention_shapes.push_back(at->shape);
          return id->second;
        }
      }
      return -1;
    };
    std::unordered_map<std::int64_t, int> shape_ids;  // by External id
    std::map<const GemmOp*, int> op_shape_ids;
    for (std::size_t i = 0; i < t.kernels.size(); ++i) {
      TraceKernel& k = t.kernels[i];
      const KernelIds& r = ids[i];
      const auto l = launches.find(r.correlation);
      const TimeNs when = l != launches.end() ? l->second.ts : k.start;
      if (l != launches.end()) k.launch = l->second.ts;
      k.step = step_at(when);
      if (l != launches.end() && !k.copy && k.kind.category != KernelCategory::Communication)
        for (const auto& s : optimizer)
          if (s.tid == l->second.tid && s.begin <= when && when < s.end) {
            k.kind = {KernelCategory::Optimizer, ""};
            break;
          }
      if (k.kind.category == KernelCategory::Attention && l != launches.end())
        k.attention = attention_of(l->second);
      if (k.kind.category == KernelCategory::Gemm && r.external >= 0) {
        const auto sh = shapes.find(r.external);
        if (sh != shapes.end()) {
          const auto [it, added] =
              shape_ids.emplace(r.external, static_cast<int>(t.gemm_shapes.size()));
          if (added) t.gemm_shapes.push_back(sh->second);
          k.shape = it->second;
        } else if (l != launches.end()) {
          if (const GemmOp* op = enclosing(l->second)) {
            const auto [it, added] =
                op_shape_ids.emplace(op, static_cast<int>(t.gemm_shapes.size()));
            if (added) t.gemm_shapes.push_back(op->shape);
            k.shape = it->second;
          }
        }
      }
      if (k.kind.category == KernelCategory::Communication) {
        std::string op;
        CollectiveInfo info;
        bool have = false;
        if (const auto own = kernel_comms.find(i); own != kernel_comms.end())
          op = own->second.first, info = own->second.second, have = true;
        if (!have && r.external >= 0) {
          const auto c = comms.find(r.external);
          if (c != comms.end()) op = c->second.first, info = c->second.second, have = true;
        }
        if (have) {
          if (!op.empty()) k.kind.collective = op;
          k.collective = static_cast<int>(t.collectives.size());
          t.collectives.push_back(info);
        }
      }
    }
    // Free the links before sorting (the sort's buffer is the peak otherwise).
    std::vector<KernelIds>().swap(ids);
    decltype(launches)().swap(launches);
    std::stable_sort(t.kernels.begin(), t.kernels.end(),
                     [](const TraceKernel& a, const TraceKernel& b) { return a.start < b.start; });
    for (const auto& k : t.kernels) {
      if (k.step < 0) continue;
      auto& s = t.steps[static_cast<std::size_t>(k.step)];
      s.gpu_begin = s.kernels == 0 ? k.start : std::min(s.gpu_begin, k.start);
      s.gpu_end = std::max(s.gpu_end, k.start + k.dur);
      ++s.kernels;
    }
  }
};

}  // namespace

TorchTrace read_torch_trace(const std::string& path, const TraceReadOptions& opt) {
  GzBuf buf(path, opt);
  std::istream in(&buf);
  Reader r;
  r.t.file = path;
  // Events are handled as their object closes and then dropped (the callback returns false),
  // so only the small top-level fields (deviceProperties, distributedInfo, …) stay.
  std::string top_key;
  bool root_array = false, saw_events = false;
  const json::parser_callback_t cb = [&](int depth, json::parse_event_t ev, json& parsed) {
    if (depth == 0 && ev == json::parse_event_t::array_start) root_array = true;
    if (depth == 1 && ev == json::parse_event_t::key) top_key = parsed.get<std::string>();
    if (ev == json::parse_event_t::array_start && depth == 1 && top_key == "traceEvents")
      saw_events = true;
    const bool is_event =
        ev == json::parse_event_t::object_end &&
        ((root_array && depth == 1) || (!root_array && depth == 2 && top_key == "traceEvents"));
    if (is_event) {
      r.event(parsed);
      return false;
    }
    return true;
  };
  json root;
  try {
    root = json::parse(in, cb);
  } catch (const json::parse_error& e) {
    std::string why = e.byte > 1 && r.t.events > 0 ? "the file ends early (truncated?)"
                      : buf.file_size() == 0       ? "an empty file"
                      : path.ends_with(".gz") && !buf.compressed()
                          ? "not JSON, nor gzip-compressed JSON despite its .gz name"
                          : "not JSON";
    // A YAML scenario where a trace belongs (the arguments swapped).
    if (r.t.events == 0 && (path.ends_with(".yaml") || path.ends_with(".yml")))
      why += " (a scenario where a profiler trace belongs?)";
    throw InputError(
        fmt::format("{}: not a readable trace: JSON error at byte {} (after {} "
                    "events): {}",
                    path, e.byte, r.t.events, why));
  } catch (const json::exception& e) {
    throw InputError(fmt::format("{}: not a readable trace: {}", path, e.what()));
  }
  if (root_array) saw_events = true;
  if (!saw_events)
    throw InputError(
        fmt::format("{}: no traceEvents list: not a PyTorch profiler (Kineto) "
                    "trace",
                    path));
  if (const json* d = field(root, "deviceProperties"); d && d->is_array() && !d->empty())
    if (const json* n = field((*d)[0], "name"); n && n->is_string())
      r.t.device = n->get<std::string>();
  if (const json* d = field(root, "distributedInfo"); d && d->is_object()) {
    if (const json* v = field(*d, "rank")) r.t.rank = std::max(0, to_int(number(*v, 0)));
    if (const json* v = field(*d, "world_size"))
      r.t.world_size = std::max(1, to_int(number(*v, 1)));
    if (const json* v = field(*d, "nccl_version"); v && v->is_string())
      r.t.nccl_version = v->get<std::string>();
  }
  if (const json* v = field(root, "baseTimeNanoseconds"); v && v->is_number_integer())
    r.t.base_time_ns = v->get<std::int64_t>();
  r.finish();
  if (r.t.events == 0)
    throw InputError(
        fmt::format("{}: no trace events: JSON, but not a PyTorch profiler (Kineto) "
                    "trace, whose events are objects in its traceEvents list",
                    path));
  if (r.t.kernels.empty())
    throw InputError(fmt::format(
        "{}: no GPU kernels in {} events{}: record with "
        "torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])",
        path, r.t.events, r.t.device.empty() ? " (a CPU-only trace)" : ""));
  return r.t;
}

std::vector<TorchTrace> read_torch_traces(const std::vector<std::string>& paths,
                                          const TraceReadOptions& opt) {
  std::vector<TorchTrace> out;
  for (const auto& p : paths) out.push_back(read_torch_trace(p, opt));
  std::map<int, std::string> by_rank;
  for (const auto& t : out) {
    const auto [it, added] = by_rank.emplace(t.rank, t.file);
    if (!added)
      throw InputError(
          fmt::format("{} and {}: both are rank {}: traces of different runs, or "
                      "one file given twice?",
                      it->second, t.file, t.rank));
    if (!t.nccl_version.empty() && !out.front().nccl_version.empty() &&
        t.nccl_version != out.front().nccl_version)
      throw InputError(fmt::format("{} (NCCL {}) and {} (NCCL {}): traces of different runs",
                                   out.front().file, out.front().nccl_version, t.file,
                                   t.nccl_version));
    if (t.world_size != out.front().world_size)
      throw InputError(
          fmt::format("{} (world size {}) and {} (world size {}): traces of "
                      "different runs",
                      out.front().file, out.front().world_size, t.file, t.world_size));
  }
  if (out.size() > 1) {
    std::set<std::string> common;
    for (const auto& s : out.front().steps) common.insert(s.name);
    for (std::size_t i = 1; i < out.size(); ++i) {
      std::set<std::string> mine, both;
      for (const auto& s : out[i].steps) mine.insert(s.name);
      std::set_intersection(common.begin(), common.end(), mine.begin(), mine.end(),
                            std::inserter(both, both.begin()));
      if (both.empty())
        throw InputError(
            fmt::format("{} and {}: no ProfilerStep in common: traces of different "
                        "runs or windows",
                        out.front().file, out[i].file));
      common = both;
    }
    // The first shared step in Unix time on each rank: together within clock skew in one run.
    // Times before 2001 (1e18 ns) are not Unix times (relative clocks): nothing to compare.
    auto unix_start = [&](const TorchTrace& t) -> std::optional<TimeNs> {
      for (const auto& s : t.steps)
        if (s.name == *common.begin()) {
          const TimeNs at = s.cpu_begin + t.base_time_ns;
          if (at > 1'000'000'000'000'000'000) return at;
        }
      return std::nullopt;
    };
    const auto first = unix_start(out.front());
    for (std::size_t i = 1; i < out.size() && first; ++i)
      if (const auto at = unix_start(out[i]); at && std::abs(*at - *first) > kSameRunWindow)
        throw InputError(fmt::format(
            "{} and {}: their {} starts {} apart (more than {}): traces of different runs",
            out.front().file, out[i].file, *common.begin(),
            format_time(to_seconds(std::abs(*at - *first))),
            format_time(to_seconds(kSameRunWindow))));
  }
  return out;
}

}  // namespace trainsim
