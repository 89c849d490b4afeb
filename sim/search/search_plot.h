#pragma once
// The search's picture: step time against peak memory for every candidate that ran, as an SVG
// page (no library: SVG is text). Fitting layouts are filled, those out of memory hollow, the
// Pareto front joined by a line, the memory limit drawn as a vertical line.
#include <string>  // std::string
#include <vector>  // std::vector

#include "scenario/scenario.h"
#include "search/layout_search.h"

namespace trainsim {

/// An SVG document (width × height pixels) of `results` as ranked by search_layouts. With
/// nothing that ran, the page says so instead of drawing axes.
std::string search_plot_svg(const Scenario& base, const std::vector<SearchResult>& results,
                            const SearchOptions& options = {}, int width = 900, int height = 560);

}  // namespace trainsim
