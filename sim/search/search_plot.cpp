#include "search/search_plot.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/quantity.h"

namespace trainsim {
namespace {

// Characters of UTF-8 text ("·" is two bytes, one character): every byte but continuation bytes.
std::size_t utf8_chars(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// Text for an SVG element or attribute.
std::string xml(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        // Control bytes are not allowed in XML 1.0 text.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n')
          o += ' ';
        else
          o += c;
    }
  }
  return o;
}

// A 1-2-5 tick step giving about `count` ticks over `range`.
double tick_step(double range, int count) {
  const double raw = range / count;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

// The layout in words, with the schedule it ran.
std::string words(const LayoutCandidate& c, const std::string& schedule) {
  return c.schedule.empty() ? c.words() + " · " + schedule : c.words();
}

}  // namespace

std::string search_plot_svg(const Scenario& base, const std::vector<SearchResult>& results,
                            const SearchOptions& options, int width, int height) {
  const double limit = base.cluster.gpu.memory * (1.0 - options.headroom);
  const std::string title =
      fmt::format("trainsim search {} · {} GPUs × {}: step time against peak memory per GPU",
                  base.name, base.cluster.gpus(), base.cluster.gpu.name);
  std::string o = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"white\"/>\n<text x=\"{2}\" y=\"22\" font-size=\"14\">{3}</text>\n",
      width, height, 16, xml(title));
  std::vector<const SearchResult*> ran;
  for (const auto& r : results)
    if (r.ran()) ran.push_back(&r);
  if (ran.empty()) {
    o += fmt::format("<text x=\"16\" y=\"60\">no layout ran: nothing to plot</text>\n</svg>\n");
    return o;
  }
  // Axes: memory in GB from 0, step time in seconds around the points.
  double xmax = limit, ymin = ran.front()->report.step_time_s, ymax = ymin;
  for (const auto* r : ran) {
    xmax = std::max(xmax, r->peak_memory);
    ymin = std::min(ymin, r->report.step_time_s);
    ymax = std::max(ymax, r->report.step_time_s);
  }
  xmax *= 1.05 / 1e9;
  if (ymax <= ymin) ymax = ymin * 1.1 + 1e-9;
  const double ypad = (ymax - ymin) * 0.08;
  ymin = std::max(0.0, ymin - ypad);
  ymax += ypad;
  const double left = 80, right = 24, top = 52, bottom = 56;
  const double pw = width - left - right, ph = height - top - bottom;
  auto px = [&](double gb) { return left + gb / xmax * pw; };
  auto py = [&](double s) { return top + (ymax - s) / (ymax - ymin) * ph; };
  o += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333\"/>\n", left,
      top, pw, ph);
  const double xs = tick_step(xmax, 8);
  for (double v = 0; v <= xmax + 1e-9; v += xs)
    o += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#eee\"/>\n"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4:g}</text>\n",
        px(v), top, top + ph, top + ph + 16, v);
  const double ys = tick_step(ymax - ymin, 6);
  for (double v = std::ceil(ymin / ys) * ys; v <= ymax + 1e-12; v += ys)
    o += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#eee\"/>\n"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
        left, py(v), left + pw, left - 6, py(v) + 4, fmt::format("{:g} s", v));
  o += fmt::format(
      "<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\">peak memory of the fullest GPU "
      "(GB)</text>\n"
      "<text x=\"{2}\" y=\"{3}\" text-anchor=\"end\">step time</text>\n",
      left + pw / 2, height - 14, left - 6, top - 6);
  // The memory limit.
  o += fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#c00\" "
      "stroke-dasharray=\"6 4\"/>\n<text x=\"{3:.1f}\" y=\"{4}\" fill=\"#c00\" "
      "text-anchor=\"end\">memory limit {5}</text>\n",
      px(limit / 1e9), top, top + ph, px(limit / 1e9) - 4, top + 14, xml(format_bytes(limit)));
  // The usable memory (the GPU's less the caching allocator's fragmentation, at most the limit):
  // past it a layout is tight.
  const double usable = usable_limit(base, options);
  if (usable < limit)
    o += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#c00\" "
        "stroke-opacity=\"0.5\" stroke-dasharray=\"2 3\"/>\n<text x=\"{3:.1f}\" y=\"{4}\" "
        "fill=\"#c00\" fill-opacity=\"0.7\" text-anchor=\"end\">usable {5}</text>\n",
        px(usable / 1e9), top, top + ph, px(usable / 1e9) - 4, top + ph - 8,
        xml(format_bytes(usable)));
  // The Pareto front, by memory.
  std::vector<const SearchResult*> front;
  for (const auto* r : ran)
    if (r->pareto) front.push_back(r);
  std::sort(front.begin(), front.end(), [](const SearchResult* a, const SearchResult* b) {
    return a->peak_memory < b->peak_memory;
  });
  if (front.size() > 1) {
    o += "<polyline fill=\"none\" stroke=\"#e67e22\" stroke-width=\"1.5\" points=\"";
    for (const auto* r : front)
      o += fmt::format("{:.1f},{:.1f} ", px(r->peak_memory / 1e9), py(r->report.step_time_s));
    o += "\"/>\n";
  }
  // Points, slowest first so the fastest are drawn on top; a tooltip names each layout.
  for (auto it = ran.rbegin(); it != ran.rend(); ++it) {
    const SearchResult& r = **it;
    // The fill says front or not; a tight layout (past the usable memory, within the device)
    // is ringed red.
    const std::string style =
        r.out_of_memory
            ? "fill=\"none\" stroke=\"#999\""
            : std::string(r.pareto ? "fill=\"#e67e22\"" : "fill=\"#1f77b4\" fill-opacity=\"0.6\"") +
                  (r.tight    ? " stroke=\"#c00\" stroke-width=\"1.5\""
                   : r.pareto ? " stroke=\"#a04000\""
                              : " stroke=\"none\"");
    o += fmt::format(
        "<g><title>{}: {}, {}</title><circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" {}/></g>\n",
        xml(words(r.layout, r.report.schedule)), xml(format_time(r.report.step_time_s)),
        xml(format_bytes(r.peak_memory)), px(r.peak_memory / 1e9), py(r.report.step_time_s), style);
  }
  // A label over the points, on a white band so that the points under it do not garble it
  // (about 5.6 pixels a character at 11 points; SVG Tiny, which Qt renders, has no halo). It
  // starts right of its point, or as far right as keeps its whole width inside the plot.
  auto label = [&](double x, double y, const std::string& text) {
    const double w = 5.6 * static_cast<double>(utf8_chars(text)) + 4;
    x = std::max(left + 4.0, std::min(x, left + pw - w));
    o += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"14\" fill=\"white\" "
        "fill-opacity=\"0.85\"/>\n<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\">{}</text>\n",
        x - 2, y - 11, w, x, y, xml(text));
  };
  // The fastest fitting layout, labelled.
  if (!ran.front()->out_of_memory) {
    const SearchResult& best = *ran.front();
    label(px(best.peak_memory / 1e9) + 8, std::max(py(best.report.step_time_s) - 8, top + 28),
          "fastest: " + words(best.layout, best.report.schedule) + (best.tight ? " (tight)" : ""));
    // A tight fastest: the fastest that leaves the caching allocator its room, labelled below.
    const SearchResult* roomy = fastest_with_room(results);
    if (best.tight && roomy)
      label(px(roomy->peak_memory / 1e9) + 8,
            std::min(py(roomy->report.step_time_s) + 16, top + ph - 22),
            "fastest with room: " + words(roomy->layout, roomy->report.schedule));
  }
  // Legend. Layouts ruled out before simulating have no step time: counted, not drawn.
  const auto unsimulated = std::count_if(results.begin(), results.end(),
                                         [](const SearchResult& r) { return r.ruled_out; });
  const std::string oom =
      unsimulated > 0 ? fmt::format("out of memory (+{} not simulated, not drawn)", unsimulated)
                      : std::string("out of memory");
  const double lx = left + pw - 340, ly = top + 34;  // top right: slow and large, mostly empty
  const bool any_tight =
      std::any_of(ran.begin(), ran.end(), [](const SearchResult* r) { return r->tight; });
  // On a white band: the usable line and points there do not run through the words.
  o += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"336\" height=\"{}\" fill=\"white\" "
      "fill-opacity=\"0.9\"/>\n",
      lx - 8, ly - 10, any_tight ? 62 : 48);
  o += fmt::format(
      "<circle cx=\"{0}\" cy=\"{1}\" r=\"4\" fill=\"#e67e22\" stroke=\"#a04000\"/><text x=\"{2}\" "
      "y=\"{3}\">Pareto front (fits; nothing else both faster and smaller)</text>\n"
      "<circle cx=\"{0}\" cy=\"{4}\" r=\"4\" fill=\"#1f77b4\" fill-opacity=\"0.6\"/><text "
      "x=\"{2}\" "
      "y=\"{5}\">fits</text>\n<circle cx=\"{0}\" cy=\"{6}\" r=\"4\" fill=\"none\" "
      "stroke=\"#999\"/><text x=\"{2}\" y=\"{7}\">{8}</text>\n",
      lx, ly, lx + 10, ly + 4, ly + 18, ly + 22, ly + 36, ly + 40, oom);
  if (any_tight)
    o += fmt::format(
        "<circle cx=\"{0}\" cy=\"{1}\" r=\"4\" fill=\"#1f77b4\" fill-opacity=\"0.6\" "
        "stroke=\"#c00\" stroke-width=\"1.5\"/><text x=\"{2}\" y=\"{3}\">tight: past the "
        "usable memory (may run out)</text>\n",
        lx, ly + 54, lx + 10, ly + 58);
  o += "</svg>\n";
  return o;
}

}  // namespace trainsim
