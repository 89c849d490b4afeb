#pragma once
// An SVG page as PNG bytes, for command-line tools that draw SVG themselves (`trainsim search
// --plot F.png`): Qt Svg renders it offscreen at `scale` device pixels per SVG pixel. Built only
// with Qt (the CLI's TRAINSIM_WITH_PNG); the rest of trainsim needs no raster library.
#include <string>  // std::string

namespace trainsim {

/// The PNG file's bytes of `svg` (a whole document we wrote), on a white background. Starts an
/// offscreen Qt application when none runs (text needs one; a terminal has no display).
std::string svg_to_png(const std::string& svg, double scale = 2.0);

}  // namespace trainsim
