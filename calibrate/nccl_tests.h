#pragma once
// Reading nccl-tests output (NVIDIA/nccl-tests: all_reduce_perf, all_gather_perf, …) into
// calibration-profile samples, so a user with one GPU, or with logs from their cluster, still
// gets measured collective times. No CUDA here: this part of trainsim-calibrate is plain C++.
#include <string>  // std::string
#include <vector>  // std::vector

#include "cost/calibration_profile.h"

namespace trainsim {

/// The samples in one nccl-tests log. Accepts the text output (with or without the `root`
/// column of older versions, lines prefixed by mpirun's `[1,0]<stdout>:`, several tests in one
/// log) and the `-J` JSON file. The operation comes from the "# Collective test starting:"
/// header (JSON: the program in `args`), else from `source`'s file name (e.g.
/// all_gather_perf.log). The group size is the number of ranks listed under "Using devices";
/// the link is inter_node when they span more than one host. Times are the out-of-place ones.
/// Throws InputError naming `source` and the line for anything it cannot read.
std::vector<CollectiveSample> parse_nccl_tests(const std::string& text, const std::string& source);

/// What the user states when the log does not say (`import-nccl-tests --op/--ranks`).
struct NcclTestsOptions {
  std::string op;    ///< all_reduce, all_gather, … ("" = from the log)
  int ranks = 0;     ///< group size (0 = count the log's Rank lines)
  std::string link;  ///< intra_node or inter_node ("" = from the Rank lines' hosts)
};

/// One log read: its samples and what it says about the machine.
struct NcclTestsLog {
  std::vector<CollectiveSample> samples;
  std::string gpu;   ///< the device name on the Rank lines, e.g. "NVIDIA H100 80GB HBM3"
  std::string nccl;  ///< "2.21.5" from "nccl-library=22105" or "NCCL version 2.9.9+cuda11.2"
  std::string tests_version;       ///< "2.13.11" from "# nccl-tests version 2.13.11 …"
  std::vector<std::string> hosts;  ///< from the Rank lines, in order of appearance
  /// How the operation was known: "header" ("program in args" for a -J file), "file name",
  /// "--op", or "bus factor" (busbw/algbw = 2(n−1)/n all-reduce, (n−1)/n with redop sum
  /// reduce-scatter, 1 with root −1 send/recv).
  std::string op_from;
};

/// As parse_nccl_tests, for logs as they really are: when neither a "# Collective test
/// starting:" line nor the file name says the operation, `opt.op` does, else the bus factor
/// (busbw / algbw, median over rows with algbw ≥ 1 GB/s) with the redop and root columns; the
/// group size is `opt.ranks` or the count of Rank lines. Columns are read from the right (out-
/// of-place time, algbw, busbw, #wrong, then the in-place four), so logs with or without the
/// root column, with an empty redop, an `error` column or `N/A` all read. Line prefixes of
/// mpirun (`[1,0]<stdout>:`) and srun -l (` 0: `) are dropped; NCCL INFO lines are skipped.
/// Throws InputError naming `source` and the line when the operation or the group size cannot
/// be known ("give --op" / "give --ranks"), a result line cannot be read, its #wrong is above
/// 0, its algbw is not size / time, or the bus factor busbw / algbw is not that of an operation
/// named by --op or the file name at the group size; and when no line has a size and a time.
NcclTestsLog read_nccl_tests(const std::string& text, const std::string& source,
                             const NcclTestsOptions& opt = {});

/// Samples of the same (op, group size, link, bytes) from several logs as one: the median time
/// (algbw and busbw of that time), `spread_s` = max − min, sources joined. Order: as first seen.
std::vector<CollectiveSample> merge_collective_samples(const std::vector<CollectiveSample>& in);

}  // namespace trainsim
