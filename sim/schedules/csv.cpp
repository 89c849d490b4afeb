#include "schedules/csv.h"

#include "core/input_file.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/error.h"
#include "schedules/validate.h"

namespace trainsim {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\"");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\"");
  return s.substr(b, e - b + 1);
}

// A cell as (stage, op text, micro-batch): "2BW13" -> {2, "BW", 13}.
struct Cell {
  int stage = -1;
  std::string op;
  int mb = -1;
};

// Stage and micro-batch numbers a CSV may use: the scenario limits (scenarios/README.md,
// "Limits": at most 100,000 stages and 65,536 micro-batches), so no count overflows.
constexpr long long kMaxCsvStage = 100'000 - 1;
constexpr long long kMaxCsvMicrobatch = (1LL << 16) - 1;

// Parses "STAGE OP MB"; false when the text is not of that form, or (with `why` set) when a
// number is past its limit.
bool split_cell(const std::string& text, Cell& c, std::string* why = nullptr) {
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  std::size_t j = i;
  while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
  if (i == 0 || j == i || j == text.size()) return false;
  for (std::size_t k = j; k < text.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(text[k]))) return false;
  auto number = [&](std::size_t from, std::size_t to, long long max, const char* what) {
    long long v = 0;
    for (std::size_t k = from; k < to; ++k) {
      v = v * 10 + (text[k] - '0');
      if (v > max) {
        if (why)
          *why =
              fmt::format("{} {} is past the limit of {}", what, text.substr(from, to - from), max);
        return -1LL;
      }
    }
    return v;
  };
  const long long stage = number(0, i, kMaxCsvStage, "stage");
  const long long mb = stage < 0 ? -1 : number(j, text.size(), kMaxCsvMicrobatch, "micro-batch");
  if (stage < 0 || mb < 0) return false;
  c.stage = static_cast<int>(stage);
  c.op = text.substr(i, j - i);
  c.mb = static_cast<int>(mb);
  return true;
}

}  // namespace

std::string schedule_to_csv(const Schedule& s) {
  // PyTorch's format has one chain of stages (every micro-batch through every stage).
  if (s.chains > 1)
    throw ScheduleError(fmt::format(
        "{} runs {} pipelines over a copy of the model each; torch.distributed.pipelining's CSV "
        "has one pipeline and cannot hold it",
        s.name, s.chains));
  std::string out;
  for (const auto& list : s.actions) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      out += i ? "," : "";
      if (list[i].overlapped_with_next && i + 1 < list.size()) {
        out += pair_to_string(list[i], list[i + 1]);
        ++i;
      } else {
        out += to_string(list[i]);
      }
    }
    out += "\n";
  }
  return out;
}

Schedule schedule_from_csv(const std::string& text, const std::string& source) {
  struct Placed {
    Cell cell;
    int line, column;
    bool overlapped_with_next = false;
  };
  std::vector<std::vector<Placed>> rows;
  std::istringstream in(text);
  std::string line;
  bool has_i = false, has_bw = false, has_w = false;
  for (int ln = 1; std::getline(in, line); ++ln) {
    if (trim(line).empty() && in.peek() == EOF) break;
    rows.emplace_back();
    std::istringstream cells(line);
    std::string raw;
    for (int col = 1; std::getline(cells, raw, ','); ++col) {
      std::string t = trim(raw);
      if (t.empty() || t == "None") continue;  // an idle step
      // An overlapped pair, "(2F5;5B1)OVERLAP_F_B": two actions that run as one task.
      const std::string overlap_suffix = ")OVERLAP_F_B";
      if (t.front() == '(' && t.size() > overlap_suffix.size() &&
          t.compare(t.size() - overlap_suffix.size(), overlap_suffix.size(), overlap_suffix) == 0) {
        const std::string inner = t.substr(1, t.size() - overlap_suffix.size() - 1);
        const auto semi = inner.find(';');
        Cell f, b;
        if (semi == std::string::npos || !split_cell(inner.substr(0, semi), f) ||
            !split_cell(inner.substr(semi + 1), b) || f.op != "F" || (b.op != "B" && b.op != "BW"))
          throw ScheduleError(
              fmt::format("{}:{}: cell {}: \"{}\" is not an overlapped pair; expected "
                          "(STAGE F MB;STAGE B MB)OVERLAP_F_B, e.g. (0F4;3B1)OVERLAP_F_B",
                          source, ln, col, t));
        b.op = "BW";  // the pair's backward is the full one in either spelling
        rows.back().push_back({f, ln, col, true});
        rows.back().push_back({b, ln, col});
        continue;
      }
      if (t.find('_') != std::string::npos || t.find("UNSHARD") != std::string::npos ||
          t.find("RESHARD") != std::string::npos)
        continue;  // communication or sharding: the passes add their own
      Cell c;
      std::string why;
      const bool parsed = split_cell(t, c, &why);
      if (!why.empty())
        throw ScheduleError(fmt::format("{}:{}: cell {}: \"{}\": {}", source, ln, col, t, why));
      if (!parsed || (c.op != "F" && c.op != "B" && c.op != "I" && c.op != "W" && c.op != "BW"))
        throw ScheduleError(fmt::format(
            "{}:{}: cell {}: \"{}\" is not an action; expected STAGE OP MICROBATCH with OP one of "
            "F, I, W, B, BW (e.g. 0F0)",
            source, ln, col, t));
      has_i = has_i || c.op == "I";
      has_bw = has_bw || c.op == "BW";
      has_w = has_w || c.op == "W";
      rows.back().push_back({c, ln, col});
    }
  }
  if (rows.empty()) throw ScheduleError(source + ": no rows (one row per rank expected)");
  if (rows.size() > static_cast<std::size_t>(kMaxCsvStage + 1))
    throw ScheduleError(
        fmt::format("{}: {} rows: at most {} ranks", source, rows.size(), kMaxCsvStage + 1));
  // Older PyTorch: B = input backward, BW = full backward. Recognised by BW, or by B next to W
  // with no I.
  const bool old_spelling = has_bw || (has_w && !has_i);
  Schedule s;
  s.name = "csv";
  s.ranks = static_cast<int>(rows.size());
  s.actions.resize(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (const auto& p : rows[r]) {
      Op op = Op::F;
      if (p.cell.op == "I" || (p.cell.op == "B" && old_spelling))
        op = Op::I;
      else if (p.cell.op == "W")
        op = Op::W;
      else if (p.cell.op == "B" || p.cell.op == "BW")
        op = Op::B;
      s.actions[r].push_back({p.cell.stage, op, p.cell.mb, p.overlapped_with_next});
      s.stages = std::max(s.stages, p.cell.stage + 1);
      s.microbatches = std::max(s.microbatches, p.cell.mb + 1);
    }
  if (s.stages == 0)
    throw ScheduleError(source + ": no actions (cells like 0F0, one row per rank, expected)");
  check_schedule_size(source, s.stages, s.microbatches);
  s.stage_rank.assign(static_cast<std::size_t>(s.stages), -1);
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (const auto& p : rows[r]) {
      int& owner = s.stage_rank[static_cast<std::size_t>(p.cell.stage)];
      if (owner >= 0 && owner != static_cast<int>(r))
        throw ScheduleError(
            fmt::format("{}:{}: cell {}: stage {} appears on rank {} and rank {}; "
                        "a stage lives on one rank",
                        source, p.line, p.column, p.cell.stage, owner, r));
      owner = static_cast<int>(r);
    }
  for (int st = 0; st < s.stages; ++st)
    if (s.stage_rank[static_cast<std::size_t>(st)] < 0)
      throw ScheduleError(fmt::format("{}: stage {} has no actions (stages 0..{} expected)", source,
                                      st, s.stages - 1));
  if (s.stages % s.ranks != 0)
    throw ScheduleError(
        fmt::format("{}: {} stages on {} ranks: every rank must hold the same "
                    "number of chunks",
                    source, s.stages, s.ranks));
  return s;
}

Schedule load_schedule_csv(const std::string& path) {
  return schedule_from_csv(read_input_file(path, "schedule CSV"), path);
}

}  // namespace trainsim
