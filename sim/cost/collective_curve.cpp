#include "cost/collective_curve.h"

#include <algorithm>

#include "core/error.h"
#include "cost/interpolate.h"

namespace trainsim {
namespace {

constexpr CollectiveCurve::Row kA100[] = {
#include "cost/data/nccl_a100_sxm.inc"
};
constexpr CollectiveCurve::Row kH100[] = {
#include "cost/data/nccl_h100_sxm.inc"
};
constexpr CollectiveCurve::Row kH200[] = {
#include "cost/data/nccl_h200_sxm.inc"
};
constexpr CollectiveCurve::Row kB200[] = {
#include "cost/data/nccl_b200_sxm.inc"
};
constexpr const char* kSource = "nccl-tests sweep, NVIDIA aiconfigurator database";

int group_index(int gpus) {
  return gpus == 2 ? 0 : gpus == 4 ? 1 : 2;
}

}  // namespace

CollectiveCurve::CollectiveCurve(const char* source, const Row* rows, int count) : source_(source) {
  for (int i = 0; i < count; ++i) {
    const Row& r = rows[i];
    TRAINSIM_CHECK(r.op >= 0 && r.op < 4 && (r.gpus == 2 || r.gpus == 4 || r.gpus == 8) &&
                       r.bytes > 0 && r.microseconds > 0,
                   "a collective sweep row: operation 0–3, 2/4/8 GPUs, positive size and time");
    curves_[static_cast<std::size_t>(r.op)][static_cast<std::size_t>(group_index(r.gpus))]
        .push_back({r.bytes, r.microseconds * 1e-6});
  }
  for (auto& op : curves_)
    for (auto& c : op) {
      TRAINSIM_CHECK(c.size() >= 2, "each operation and group size has a sweep");
      std::sort(c.begin(), c.end());
    }
}

const CollectiveCurve* CollectiveCurve::for_preset(const std::string& preset) {
  static const CollectiveCurve a100(kSource, kA100, std::size(kA100)),
      h100(kSource, kH100, std::size(kH100)), h200(kSource, kH200, std::size(kH200)),
      b200(kSource, kB200, std::size(kB200));
  if (preset == "a100-sxm-80gb") return &a100;
  if (preset == "h100-sxm") return &h100;
  if (preset == "h200") return &h200;
  // GB200's and GB300's NVLink 5 is B200's (900 GB/s each way a GPU, through NVSwitch): the same
  // database's sweeps of theirs (data/gb200 and gb300/comm/nccl/2.29.2, one tray: 2 and 4 GPUs
  // only) lie within −1.4…+4.6 % (GB200) and −5.8…+2.6 % (GB300) of B200's rows from 16 MiB to
  // 512 MiB; below, GB200's latency floor runs a median 0.6 µs slower (GB300's level) and
  // mid-size rows scatter (0.66–1.09 of B200's; one B200 outlier at 128 KiB), GB300's smallest
  // up to 1.24. B200's sweep, which also has 8 GPUs, stands in. B300's (an HGX node of 8, the
  // database's data/b300_sxm/comm/nccl/2.29.2 rows: 2, 4 and 8 GPUs) lie within 0.89–1.00 of
  // B200's from 16 MiB up (all-gather, reduce-scatter and all-reduce 0.97–1.00, all-to-all
  // 0.89–0.98) and 0.86–1.5 below: B200's stands in for it too.
  if (preset == "b200" || preset == "gb200" || preset == "gb300" || preset == "b300") return &b200;
  return nullptr;
}

int CollectiveCurve::measured_group(int group_size) {
  TRAINSIM_CHECK(group_size >= 2 && group_size <= 8, "a one-node collective of 2–8 GPUs");
  return group_size <= 2 ? 2 : group_size <= 4 ? 4 : 8;
}

const std::vector<std::pair<double, double>>& CollectiveCurve::curve(Collective c,
                                                                     int measured) const {
  return curves_[static_cast<std::size_t>(c)][static_cast<std::size_t>(group_index(measured))];
}

double CollectiveCurve::floor_seconds(Collective c, int group_size) const {
  return curve(c, measured_group(group_size)).front().second;
}

double CollectiveCurve::seconds(Collective c, int group_size, double bytes) const {
  TRAINSIM_CHECK(bytes >= 0, "a collective moves a non-negative size");
  const int measured = measured_group(group_size);
  const auto& points = curve(c, measured);
  auto time_at = [&](double s) {
    if (s <= points.front().first) return points.front().second;  // the latency floor
    if (auto t = loglog_within(points, s)) return *t;
    // Past the largest size: the rest moves at the largest size's rate.
    const auto& [b, t] = points.back();
    return t * s / b;
  };
  if (measured == group_size) return time_at(bytes);
  // Another group size: the measured group's bus bandwidth at this size, nccl-tests' factor.
  const double busbw = busbw_factor(c, measured) * bytes / time_at(bytes);
  return std::max(points.front().second, busbw_factor(c, group_size) * bytes / busbw);
}

}  // namespace trainsim
