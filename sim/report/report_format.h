#pragma once
// A StepReport as text (the seeds' "OUTPUT BREAKDOWN") and as JSON (keys documented in
// sim/report/README.md), and several reports side by side for `trainsim compare`.
#include <string>  // std::string
#include <vector>  // std::vector

#include <nlohmann/json_fwd.hpp>

#include "report/step_report.h"

namespace trainsim {

std::string format_report(const StepReport& r);
nlohmann::json report_to_json(const StepReport& r);
std::string format_comparison(const std::vector<StepReport>& reports);
nlohmann::json comparison_to_json(const std::vector<StepReport>& reports);

}  // namespace trainsim
