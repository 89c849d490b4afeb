#include "nccl_tests.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_text.h"
#include "stats.h"

namespace trainsim {
namespace {

// "all_reduce_perf" (or a path or file name containing it) -> "all_reduce"; "" if none.
std::string op_from(const std::string& name) {
  for (const auto& op : collective_op_names())
    if (name.find(op + "_perf") != std::string::npos) return op;
  return "";
}

// mpirun --tag-output prefixes lines with "[1,0]<stdout>:", srun -l with " 0: ".
std::string strip_prefix(const std::string& line) {
  {
    std::size_t i = line.find_first_not_of(' ');
    const std::size_t digits = i == std::string::npos ? 0 : line.find_first_not_of("0123456789", i);
    // (a space after the colon: "12:00:01 done", a time stamp, is not one)
    if (i != std::string::npos && digits != std::string::npos && digits > i &&
        line[digits] == ':' && (digits + 1 == line.size() || line[digits + 1] == ' '))
      return line.substr(std::min(line.size(), digits + 2));
  }
  if (line.empty() || line[0] != '[') return line;
  const auto close = line.find("]<");
  if (close == std::string::npos) return line;
  const auto colon = line.find(">:", close);
  return colon == std::string::npos ? line : line.substr(colon + 2);
}

std::vector<std::string> tokens(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

bool number(const std::string& t, double& v) {
  char* end = nullptr;
  v = std::strtod(t.c_str(), &end);
  return end && *end == '\0' && !t.empty();
}

// "nccl-library=22105" → "2.21.5".
std::string nccl_from_code(const std::string& code) {
  const long v = std::atol(code.c_str());
  if (v < 10000) return code;
  return fmt::format("{}.{}.{}", v / 10000, (v % 10000) / 100, v % 100);
}

// A measured column must be a finite number ≥ 0 (nccl-tests prints "inf" or "nan" when a
// timer or a division failed; such a row would become an unreadable profile).
void check_measured(double v, const char* column, const std::string& where) {
  if (!std::isfinite(v) || v < 0)
    throw InputError(
        fmt::format("{}: {} is {}: expected a finite number ≥ 0 (a failed run? "
                    "rerun the test or delete the line)",
                    where, column, v));
}

// A sample the profile reader would refuse: a size or a time past any measurement (kMaxSample*,
// calibration_profile.h). Such a row is a unit slip or a damaged line: refused here, where its
// line is known, not in the profile written from it.
void check_range(double bytes, double time_s, const std::string& where) {
  if (bytes > kMaxSampleBytes)
    throw InputError(
        fmt::format("{}: size {:g} B is past any measurement (at most {:g}): an "
                    "edited or damaged line (delete it, or rerun the test)",
                    where, bytes, kMaxSampleBytes));
  if (time_s > kMaxSampleSeconds)
    throw InputError(
        fmt::format("{}: time {:g} s is past any measurement (at most {:g} s): an "
                    "edited or damaged line (delete it, or rerun the test)",
                    where, time_s, kMaxSampleSeconds));
}

// nccl-tests prints algbw = size / time (GB/s, two decimals): a row where they disagree was
// edited or damaged (a time of 1e308 µs, a size past any GPU's memory), not measured.
void check_algbw(double bytes, double time_us, double algbw, const std::string& where) {
  if (bytes <= 0 || time_us <= 0 || algbw < 0.1) return;  // too small to check at 2 decimals
  const double expected = bytes / (time_us * 1e3);
  if (std::abs(algbw - expected) > 0.05 * expected + 0.006)
    throw InputError(fmt::format(
        "{}: algbw {:g} GB/s is not size / time = {:g} B / {:g} us = {:.4g} GB/s, as nccl-tests "
        "prints it: an edited or damaged line (delete it, or rerun the test)",
        where, algbw, bytes, time_us, expected));
}

// A result whose #wrong is 1 or more moved wrong data: its time does not count. (Older
// nccl-tests print an "error" column there instead, the largest relative error, 2e-07 in a good
// fp32 sum: under 1 it is rounding, not a failure.)
void check_wrong(double wrong, const std::string& where) {
  if (wrong >= 1)
    throw InputError(fmt::format(
        "{}: #wrong is {:g}: the collective returned wrong results, so its time is not a "
        "measurement to price with (rerun the test, or delete the line)",
        where, wrong));
}

// busbw / algbw (median over rows of ≥ 1 GB/s) against the operation's bus factor at n ranks,
// when the operation comes from the user or the file name, which can be wrong.
void check_bus_factor(const std::vector<std::pair<double, double>>& algbw_busbw,
                      const std::string& op, int n, const std::string& from,
                      const std::string& where) {
  std::vector<double> ratios;
  for (const auto& [alg, bus] : algbw_busbw)
    if (alg >= 1 && bus > 0) ratios.push_back(bus / alg);
  if (ratios.empty() || n < 2) return;
  const double r = summarize(ratios).median, f = op_bus_factor(op, n);
  if (std::abs(r - f) <= 0.02 * f) return;
  std::vector<std::string> fits;
  for (const auto& other : collective_op_names())
    if (std::abs(r - op_bus_factor(other, n)) <= 0.02 * op_bus_factor(other, n))
      fits.push_back(other);
  throw InputError(fmt::format(
      "{}: busbw / algbw = {:.4g} at {} ranks, where {} (from the {}) has {:.4g}{}: the "
      "operation or the group size is wrong",
      where, r, n, op, from, f,
      fits.empty() ? std::string() : fmt::format("; it is {}'s factor", fmt::join(fits, " or "))));
}

// j[key] when j is an object holding key, else null (nlohmann's const operator[] on a missing
// key is undefined behaviour, not an exception).
const nlohmann::json* field(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::vector<CollectiveSample> parse_json(const nlohmann::json& j, const std::string& source,
                                         const NcclTestsOptions& opt, NcclTestsLog& log) {
  std::string op = opt.op;
  log.op_from = "--op";
  if (j.contains("args") && j["args"].is_array() && !j["args"].empty() && j["args"][0].is_string())
    if (const std::string named = op_from(j["args"][0].get<std::string>()); !named.empty()) {
      if (!opt.op.empty() && opt.op != named)
        throw InputError(
            fmt::format("{}: args: the log runs {}, --op says {}", source, named, opt.op));
      op = named;
      log.op_from = "program in args";
    }
  if (op.empty()) {
    op = op_from(std::filesystem::path(source).filename().string());
    log.op_from = "file name";
  }
  // "nccl_version": 22105 (NCCL_VERSION_CODE), as the text log's nccl-library=22105.
  if (const nlohmann::json* v = field(j, "nccl_version"); v && v->is_number_integer())
    log.nccl = nccl_from_code(std::to_string(v->get<long long>()));
  if (op.empty())
    throw InputError(
        fmt::format("{}: args: cannot tell which collective this is (expected one "
                    "of {} as <op>_perf)",
                    source, fmt::join(collective_op_names(), ", ")));
  std::set<std::string> hosts;
  int ranks = 0;
  if (j.contains("config") && j["config"].contains("devices")) {
    const auto& devices = j["config"]["devices"];
    if (!devices.is_array())
      throw InputError(fmt::format("{}: config.devices: expected a list of devices, got {}", source,
                                   json_text(devices)));
    for (const auto& d : devices) {
      ++ranks;
      const nlohmann::json* host = field(d, "hostname");
      const std::string name = host && host->is_string() ? host->get<std::string>() : "";
      if (hosts.insert(name).second && !name.empty()) log.hosts.push_back(name);
      const nlohmann::json* info = field(d, "device_info");  // "NVIDIA H100 80GB HBM3"
      if (log.gpu.empty() && info && info->is_string()) log.gpu = info->get<std::string>();
    }
  }
  if (opt.ranks > 0 && ranks > 0 && opt.ranks != ranks)
    throw InputError(fmt::format(
        "{}: config.devices: the log lists {} ranks, --ranks says {} (--ranks is for a log that "
        "lists none)",
        source, ranks, opt.ranks));
  if (opt.ranks > 0) ranks = opt.ranks;
  if (ranks == 0)
    throw InputError(
        source + ": config.devices: no ranks listed; cannot tell the group size (give --ranks)");
  if (!j.contains("results") || !j["results"].is_array())
    throw InputError(source + ": results: missing (not an nccl-tests -J file?)");
  std::vector<CollectiveSample> out;
  std::vector<std::pair<double, double>> rates;
  int zero = 0;
  for (std::size_t i = 0; i < j["results"].size(); ++i) {
    const auto& r = j["results"][i];
    const nlohmann::json* o = field(r, "out_of_place");
    if (!o || !o->is_object()) o = field(r, "in_place");
    const nlohmann::json* size = field(r, "size");
    const nlohmann::json* time = o ? field(*o, "time") : nullptr;
    if (!size || !size->is_number() || !time || !time->is_number())
      throw InputError(
          fmt::format("{}: results[{}]: expected size and out_of_place.time", source, i));
    auto rate = [&](const char* key) {  // GB/s; absent is 0
      const nlohmann::json* v = field(*o, key);
      return v && v->is_number() ? v->get<double>() : 0.0;
    };
    CollectiveSample s;
    s.op = op;
    s.group_size = ranks;
    s.link = !opt.link.empty() ? opt.link : hosts.size() > 1 ? "inter_node" : "intra_node";
    s.bytes = size->get<double>();
    s.time_s = time->get<double>() * 1e-6;
    s.algbw = rate("alg_bw") * 1e9;
    s.busbw = rate("bus_bw") * 1e9;
    s.method = "nccl-tests";
    s.source = fmt::format("{}:results[{}]", source, i);
    check_measured(s.bytes, "size", s.source);
    check_measured(s.time_s, "time", s.source);
    check_measured(s.algbw, "alg_bw", s.source);
    check_measured(s.busbw, "bus_bw", s.source);
    if (const nlohmann::json* w = field(*o, "nwrong"); w && w->is_number())
      check_wrong(w->get<double>(), s.source);
    check_algbw(s.bytes, time->get<double>(), rate("alg_bw"), s.source);
    check_range(s.bytes, s.time_s, s.source);
    rates.emplace_back(rate("alg_bw"), rate("bus_bw"));
    if (s.bytes > 0 && s.time_s > 0)
      out.push_back(s);
    else
      ++zero;
  }
  if (log.op_from != "program in args") check_bus_factor(rates, op, ranks, log.op_from, source);
  if (out.empty())
    throw InputError(fmt::format("{}: results: no result with a size and a time above 0{}", source,
                                 zero ? fmt::format(" ({} with 0)", zero) : std::string()));
  return out;
}

// One "# Collective test starting:" section of a text log (or the whole log without one).
struct Row {
  int line = 0;
  double size = 0, time = 0, algbw = 0, busbw = 0, wrong = 0;
  std::string redop, root;
};

struct Section {
  int header_line = 0;  // 0: no header
  std::string op;
  std::vector<int> ranks;
  std::vector<std::string> hosts;
  std::vector<Row> rows;
};

// The operation from the bus factor busbw / algbw at n ranks (nccl-tests' PERFORMANCE.md), the
// redop and root columns telling apart the ops that share a factor.
std::string infer_op(const Section& sec, int n, const std::string& source) {
  std::vector<double> ratios;
  for (const Row& r : sec.rows)
    if (r.algbw >= 1) ratios.push_back(r.busbw / r.algbw);
  const int at = sec.rows.empty() ? 0 : sec.rows.front().line;
  if (ratios.empty())
    throw InputError(
        fmt::format("{}:{}: no row reaches 1 GB/s algbw to tell the operation from "
                    "its bus factor: give --op",
                    source, at));
  const double r = summarize(ratios).median;
  const std::string redop = sec.rows.front().redop, root = sec.rows.front().root;
  auto near = [&](double f) { return std::abs(r - f) <= 0.02 * f; };
  const double all_reduce = op_bus_factor("all_reduce", n), gather = op_bus_factor("all_gather", n);
  const std::string ratio = fmt::format("busbw / algbw = {:.4g} at {} ranks", r, n);
  const bool rooted = !root.empty() && root != "-1";
  if (n > 2 && near(all_reduce)) return "all_reduce";
  if (n > 2 && near(gather)) {
    if (redop == "sum" || redop == "prod" || redop == "max" || redop == "min" || redop == "avg")
      return "reduce_scatter";
    throw InputError(
        fmt::format("{}:{}: {} = (n−1)/n with redop \"{}\": all_gather or alltoall; "
                    "give --op",
                    source, at, ratio, redop.empty() ? "(none)" : redop));
  }
  if (n > 2 && near(1.0)) {
    if (rooted)
      throw InputError(
          fmt::format("{}:{}: {} = 1 with root {}: broadcast or reduce, not a "
                      "collective trainsim uses ({})",
                      source, at, ratio, root, fmt::join(collective_op_names(), ", ")));
    return "sendrecv";
  }
  throw InputError(
      fmt::format("{}:{}: {} matches no single collective's bus factor (all_reduce "
                  "{:.4g}, all_gather/reduce_scatter/alltoall {:.4g}, sendrecv 1): "
                  "give --op",
                  source, at, ratio, all_reduce, gather));
}

}  // namespace

std::vector<CollectiveSample> parse_nccl_tests(const std::string& text, const std::string& source) {
  return read_nccl_tests(text, source).samples;
}

NcclTestsLog read_nccl_tests(const std::string& text, const std::string& source,
                             const NcclTestsOptions& opt) {
  if (!opt.op.empty()) {
    const auto& ops = collective_op_names();
    if (std::find(ops.begin(), ops.end(), opt.op) == ops.end())
      throw InputError(fmt::format("--op {}: expected one of {}", opt.op, fmt::join(ops, ", ")));
  }
  if (!opt.link.empty() && opt.link != "intra_node" && opt.link != "inter_node")
    throw InputError(fmt::format("--link {}: expected intra_node or inter_node", opt.link));
  NcclTestsLog log;
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {  // also a number past double (1e864)
      throw InputError(fmt::format("{}: not valid JSON: {}", source, e.what()));
    }
    try {
      log.samples = parse_json(j, source, opt, log);
    } catch (const nlohmann::json::exception& e) {  // a field of the wrong JSON type
      throw InputError(fmt::format("{}: a field has the wrong type: {}", source, e.what()));
    }
    return log;
  }
  const std::string file_op = op_from(std::filesystem::path(source).filename().string());
  std::vector<Section> sections(1);
  std::set<std::string> seen_hosts;
  std::istringstream in(text);
  std::string raw;
  for (int ln = 1; std::getline(in, raw); ++ln) {
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    const std::string line = strip_prefix(raw);
    const auto t = tokens(line);
    if (t.empty()) continue;
    if (t[0] == "#") {
      if (line.find("Collective test starting:") != std::string::npos) {
        const std::string op = op_from(line);
        if (op.empty())
          throw InputError(fmt::format("{}:{}: \"{}\": not a collective trainsim uses ({})", source,
                                       ln, t.back(), fmt::join(collective_op_names(), ", ")));
        if (!opt.op.empty() && opt.op != op)
          throw InputError(
              fmt::format("{}:{}: the log runs {}, --op says {}", source, ln, op, opt.op));
        // A header after an empty first section (the usual case) starts it; after results, a new
        // one.
        if (sections.back().header_line != 0 || !sections.back().rows.empty())
          sections.emplace_back();
        sections.back().header_line = ln;
        sections.back().op = op;
      }
      if (t.size() >= 4 && t[1] == "nccl-tests" && t[2] == "version") {
        log.tests_version = t[3];
        for (const auto& x : t)
          if (x.rfind("nccl-library=", 0) == 0) log.nccl = nccl_from_code(x.substr(13));
      }
      // "#  Rank  0 Group  0 Pid  1 on host device 0 [0000:18:00] NVIDIA H100 80GB HBM3"
      // (older versions have no Group).
      const auto on = std::find(t.begin(), t.end(), "on");
      if (t.size() >= 5 && t[1] == "Rank" && on != t.end() && on + 1 != t.end()) {
        Section& sec = sections.back();
        if (!sec.rows.empty()) sections.emplace_back();  // a new run without a header
        sections.back().ranks.push_back(std::atoi(t[2].c_str()));
        sections.back().hosts.push_back(*(on + 1));
        if (seen_hosts.insert(*(on + 1)).second) log.hosts.push_back(*(on + 1));
        const auto close = line.find(']');
        if (log.gpu.empty() && close != std::string::npos) {
          std::string gpu = line.substr(close + 1);
          gpu.erase(0, gpu.find_first_not_of(' '));
          while (!gpu.empty() && gpu.back() == ' ') gpu.pop_back();
          log.gpu = gpu;
        }
      }
      continue;
    }
    if (log.nccl.empty()) {  // "NCCL version 2.9.9+cuda11.2" (bare or in an INFO line)
      const auto v = line.find("NCCL version ");
      if (v != std::string::npos) {
        const auto w = tokens(line.substr(v + 13));
        if (!w.empty()) log.nccl = w[0].substr(0, w[0].find('+'));
      }
    }
    // A result line starts with its size, a number (a negative one is read, and refused below);
    // anything else is NCCL INFO, a warning or a time stamp.
    double first_number = 0;
    if (!number(t[0], first_number)) continue;
    // size count type [redop] [root]  time algbw busbw #wrong  time algbw busbw #wrong: read
    // from the right (two blocks of four); a line with one block from the left.
    Row r;
    r.line = ln;
    std::size_t at = 0, middle_end = 0;
    if (t.size() >= 11) {
      at = t.size() - 8;
      middle_end = at;
    } else {
      at = t.size() >= 9 ? 5 : 4;  // one block: 9 fields with root, 8 without
      middle_end = at;
    }
    if (t.size() < at + 3 || !number(t[0], r.size) || !number(t[at], r.time) ||
        !number(t[at + 1], r.algbw) || !number(t[at + 2], r.busbw))
      throw InputError(fmt::format(
          "{}:{}: cannot read this result line; expected size count type redop [root] time "
          "algbw busbw #wrong …, got \"{}\"",
          source, ln, line));
    if (middle_end > 3) r.redop = t[3];
    if (middle_end > 4) r.root = t[4];
    const std::string where = fmt::format("{}:{}", source, ln);
    check_measured(r.size, "size", where);
    check_measured(r.time, "time (us)", where);
    check_measured(r.algbw, "algbw", where);
    check_measured(r.busbw, "busbw", where);
    if (t.size() > at + 3) number(t[at + 3], r.wrong);  // "N/A" under -c 0: not checked
    check_wrong(r.wrong, where);
    check_algbw(r.size, r.time, r.algbw, where);
    check_range(r.size, r.time * 1e-6, where);
    sections.back().rows.push_back(r);
  }
  std::vector<std::string> how;
  int zero_rows = 0;
  for (Section& sec : sections) {
    if (sec.rows.empty()) continue;
    const int at = sec.rows.front().line;
    if (opt.ranks > 0 && !sec.ranks.empty() && opt.ranks != static_cast<int>(sec.ranks.size()))
      throw InputError(fmt::format(
          "{}:{}: the log lists {} ranks (its \"# Rank\" lines), --ranks says {} (--ranks is "
          "for a log that lists none)",
          source, at, sec.ranks.size(), opt.ranks));
    const int n = opt.ranks > 0 ? opt.ranks : static_cast<int>(sec.ranks.size());
    std::string op = sec.op, from = "header";
    if (op.empty() && !opt.op.empty()) op = opt.op, from = "--op";
    if (op.empty() && !file_op.empty()) op = file_op, from = "file name";
    if (op.empty() && n == 0)
      throw InputError(
          fmt::format("{}:{}: results before any \"# Collective test starting:\" "
                      "header, the file name names no <op>_perf, and no Rank lines "
                      "to tell it from the bus factor: give --op and --ranks",
                      source, at));
    if (n == 0)
      throw InputError(
          fmt::format("{}:{}: results before the \"# Using devices\" rank list: "
                      "cannot tell the group size (give --ranks)",
                      source, at));
    if (op.empty()) op = infer_op(sec, n, source), from = "bus factor";
    if (from == "--op" || from == "file name") {
      std::vector<std::pair<double, double>> rates;
      for (const Row& r : sec.rows) rates.emplace_back(r.algbw, r.busbw);
      check_bus_factor(rates, op, n, from, fmt::format("{}:{}", source, at));
    }
    how.push_back(from);
    const std::set<std::string> hosts(sec.hosts.begin(), sec.hosts.end());
    for (const Row& r : sec.rows) {
      if (r.size <= 0 || r.time <= 0) {
        ++zero_rows;
        continue;
      }
      CollectiveSample s;
      s.op = op;
      s.group_size = n;
      s.link = !opt.link.empty() ? opt.link : hosts.size() > 1 ? "inter_node" : "intra_node";
      s.bytes = r.size;
      s.time_s = r.time * 1e-6;
      s.algbw = r.algbw * 1e9;
      s.busbw = r.busbw * 1e9;
      s.method = "nccl-tests";
      s.source = fmt::format("{}:{}", source, r.line);
      log.samples.push_back(s);
    }
  }
  if (log.samples.empty())
    throw InputError(
        zero_rows > 0
            ? fmt::format("{}: every result line ({}) has a size or a time of 0", source, zero_rows)
            : source + ": no nccl-tests result lines found");
  std::sort(how.begin(), how.end());
  how.erase(std::unique(how.begin(), how.end()), how.end());
  log.op_from = fmt::format("{}", fmt::join(how, ", "));
  return log;
}

std::vector<CollectiveSample> merge_collective_samples(const std::vector<CollectiveSample>& in) {
  std::vector<CollectiveSample> out;
  std::vector<std::vector<double>> times;
  std::map<std::tuple<std::string, int, std::string, double>, std::size_t> index;
  for (const CollectiveSample& s : in) {
    const auto key = std::make_tuple(s.op, s.group_size, s.link, s.bytes);
    const auto [it, added] = index.emplace(key, out.size());
    if (added) {
      out.push_back(s);
      times.push_back({s.time_s});
    } else {
      out[it->second].source += ", " + s.source;
      times[it->second].push_back(s.time_s);
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (times[i].size() < 2) continue;
    CollectiveSample& s = out[i];
    const Timing tm = summarize(times[i]);
    const double t = tm.median;
    const double factor = s.algbw > 0 ? s.busbw / s.algbw : 0;
    s.time_s = t;
    s.spread_s = tm.spread;
    s.algbw = s.bytes / t;
    s.busbw = s.algbw * factor;
  }
  return out;
}

}  // namespace trainsim
