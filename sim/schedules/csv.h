#pragma once
// Schedules in the CSV form of torch.distributed.pipelining (`_dump_csv` / `_load_csv`): one row
// per rank, one action per cell (`0F0`, `0I0`, `0W0`, `0B0`), empty cells for idle steps.
// Older PyTorch spelled input-backward `B` and full backward `BW`; both spellings load.
// Communication cells (SEND_F, RECV_B, …) are skipped: trainsim's passes add communication.
#include <string>  // std::string

#include "schedules/schedule.h"

namespace trainsim {

/// One row per rank, in execution order; throws ScheduleError for several chains (DualPipe).
std::string schedule_to_csv(const Schedule& s);

/// Parses CSV text; `source` names it in messages. Ranks = rows, stages and micro-batches from
/// the largest indices, stage placement from where each stage's actions appear. Throws
/// ScheduleError naming the line and cell of a malformed entry. Does not validate ordering
/// (validate_schedule does).
Schedule schedule_from_csv(const std::string& text, const std::string& source);

/// Reads and parses a file; throws ScheduleError when it cannot be read.
Schedule load_schedule_csv(const std::string& path);

}  // namespace trainsim
