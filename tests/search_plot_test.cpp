#include "search/search_plot.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include <catch2/catch.hpp>

#include "test_util.h"

using namespace trainsim;

namespace {
std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("search plot: a point per layout that ran, the front joined, the limit drawn",
          "[search][plot]") {
  const Scenario base = test::yaml(
      "name: plot & <check>\nmodel: llama-3.1-8b\ncluster: {gpu: h100-sxm, gpus_per_node: 8}\n"
      "parallelism: {pp: 4, dp: 2}\ntraining: {seq_len: 4096, global_batch_size: 64}\n");
  SearchSpace space;
  space.recompute = {Recompute::None};
  const auto results = search_layouts(base, space, {0, 2});
  std::size_t ran = 0, front = 0;
  for (const auto& r : results) {
    ran += r.ran() ? 1 : 0;
    front += r.pareto ? 1 : 0;
  }
  REQUIRE(ran > 2);
  const std::string svg = search_plot_svg(base, results);
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.find("</svg>\n") == svg.size() - 7);
  // Legend circles (3, and a 4th when some layout is tight) besides one circle per layout that
  // ran; each tight layout ringed red (default.yaml's layout space has some past the usable
  // 76 GB: dp 8 at 77–84 GB).
  const auto tight =
      std::count_if(results.begin(), results.end(), [](const auto& r) { return r.tight; });
  REQUIRE(tight > 0);
  CHECK(count(svg, "<circle") == ran + 4);
  CHECK(count(svg, "stroke=\"#c00\" stroke-width=\"1.5\"/>") ==
        static_cast<std::size_t>(tight) + 1);
  CHECK(svg.find("tight: past the usable memory") != std::string::npos);
  CHECK(count(svg, "<polyline") == (front > 1 ? 1u : 0u));
  CHECK(svg.find("memory limit 85.02 GB") != std::string::npos);
  // Layouts ruled out before simulating have no step time to draw: the legend counts them.
  const auto unsimulated =
      std::count_if(results.begin(), results.end(), [](const auto& r) { return r.ruled_out; });
  CHECK(svg.find(unsimulated > 0
                     ? fmt::format("out of memory (+{} not simulated, not drawn)", unsimulated)
                     : std::string(">out of memory<")) != std::string::npos);
  // The scenario's name is escaped, not markup.
  CHECK(svg.find("plot &amp; &lt;check&gt;") != std::string::npos);
  CHECK(svg.find("<check>") == std::string::npos);
  // With nothing that ran, the page says so.
  std::vector<SearchResult> none(1);
  none[0].error = "cannot run";
  CHECK(search_plot_svg(base, none).find("no layout ran") != std::string::npos);
}

TEST_CASE("search plot: a long label stays inside the plot", "[search][plot]") {
  // The fastest layout's label is about 5.6 pixels a character at 11 points (the plot's estimate,
  // "·" one character): one of a MoE with expert and TP widths and a tight note is some 400
  // pixels, wider than the gap right of its point. Its white band ends at or before the plot's
  // right edge (900 wide less a 24-pixel margin: 876) and starts inside its left one (80).
  const Scenario base = test::yaml(
      "model: {preset: mixtral-8x7b, layers: 8}\ncluster: {gpu: h100-sxm, gpus_per_node: 8}\n"
      "parallelism: {tp: 2, dp: 4, etp: 1, sequence_parallel: true, zero: 1}\n"
      "training: {seq_len: 4096, global_batch_size: 64}\n");
  SearchSpace space;
  space.tp = {2};
  space.pp = {1};
  space.ep = {4};
  space.zero = {1};
  space.sequence_parallel = {1};
  space.recompute = {Recompute::None};
  const auto results = search_layouts(base, space);
  REQUIRE(!results.empty());
  REQUIRE(results.front().ran());
  const std::string svg = search_plot_svg(base, results);
  const auto at = svg.find(">fastest: ");
  REQUIRE(at != std::string::npos);
  CHECK(svg.find("etp 1", at) != std::string::npos);
  // The band is the <rect> written just before the label's <text>.
  const auto rect = svg.rfind("<rect x=\"", at);
  REQUIRE(rect != std::string::npos);
  double x = 0, w = 0;
  REQUIRE(std::sscanf(svg.c_str() + rect, "<rect x=\"%lf\" y=\"%*f\" width=\"%lf\"", &x, &w) == 2);
  CHECK(w > 300);
  CHECK(x >= 80);
  CHECK(x + w <= 876 + 2);  // the band reaches 2 pixels left of the text's own start
}
