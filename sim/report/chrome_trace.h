#pragma once
// Chrome trace JSON (Google's Trace Event Format) for Perfetto and chrome://tracing: one process
// per simulated rank ("rank 5 · pp 1 · tp 1 · dp 0"), one thread per stream, a slice per task with
// its micro-batch, chunk, op, FLOPs and bytes, a flow arrow per p2p transfer (from the producing
// compute slice to the consuming one on the other rank), and
// the scenario under "otherData". Timestamps are microseconds with nanosecond decimals,
// shifted by +1 µs so that the first event starts above 0.
#include <ostream>  // std::ostream
#include <string>   // std::string

#include "run/timeline.h"

namespace trainsim {

inline constexpr TimeNs kTraceOriginNs = 1000;

void write_chrome_trace(const Timeline& tl, std::ostream& out);
/// Writes to `path` through a temporary file and a rename, so a failure leaves no partial file.
/// Throws InputError when the file cannot be written.
void write_chrome_trace_file(const Timeline& tl, const std::string& path);

}  // namespace trainsim
