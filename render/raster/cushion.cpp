// Cushion profiles. Parabola: z(u) = 4h u (1 - u) across the extent, slope 4h (1 - 2u).
// Plateau: the same slope at the edge falling linearly to 0 over the bevel, so the surface
// is C1 and flat beyond; with a bevel of half the extent it is the parabola again.
#include "render/raster/cushion.hpp"

#include <algorithm>
#include <cmath>

namespace memlog::render {

bool parseCushionStyle(const std::string& name, CushionStyle& style) {
    if (name == "none")
        style = CushionStyle::None;
    else if (name == "parabolic")
        style = CushionStyle::Parabolic;
    else if (name == "plateau")
        style = CushionStyle::Plateau;
    else
        return false;
    return true;
}

const char* cushionName(CushionStyle style) {
    switch (style) {
        case CushionStyle::None:
            return "none";
        case CushionStyle::Parabolic:
            return "parabolic";
        case CushionStyle::Plateau:
            return "plateau";
    }
    return "?";
}

double cushionSlope(CushionStyle style, double position, double extent) {
    if (style == CushionStyle::None || !(extent > 0)) return 0;
    const double u = std::clamp(position / extent, 0.0, 1.0);
    const double edgeSlope = 4 * kCushionHeight;
    if (style == CushionStyle::Parabolic) return edgeSlope * (1 - 2 * u);
    const double bevel = std::min(extent / 2, kPlateauBevelPixels);
    const double fromEdge = std::min(position, extent - position);
    if (fromEdge >= bevel) return 0;
    const double slope = edgeSlope * (1 - std::max(fromEdge, 0.0) / bevel);
    return u < 0.5 ? slope : -slope;
}

double cushionLuminance(double slopeX, double slopeY) {
    return kAmbientLight + (1 - kAmbientLight) / std::sqrt(1 + slopeX * slopeX + slopeY * slopeY);
}

}  // namespace memlog::render
