// Cushions: a luminance profile across a block so that neighbours of the same colour stay
// apart (van Wijk's parabolic cushion, and the plateau: flat inside, a bevel at the edges).
// The light comes from the viewer, so a cushion is symmetric: brightest on its flat top,
// darkest at its edges. Also the profile of cushion cursors and of quiet stretches of the
// occupancy bar.
#pragma once

#include <string>

namespace memlog::render {

enum class CushionStyle { None, Parabolic, Plateau };
bool parseCushionStyle(const std::string& name, CushionStyle& style);  // "none", "parabolic", "plateau"
const char* cushionName(CushionStyle style);

inline constexpr double kCushionHeight = 0.4;  // h: the slope at a cushion's edge is 4h
inline constexpr double kPlateauBevelPixels = 3;  // width of the plateau's bevel
inline constexpr double kMinCushionPixels = 4;  // blocks smaller on either axis get none
inline constexpr double kAmbientLight = 0.3;

// The slope of the cushion surface across an extent of `extent` pixels, `position` pixels in.
double cushionSlope(CushionStyle style, double position, double extent);

// Lambert luminance of a surface with slopes (slopeX, slopeY) under a light from the viewer,
// scaled so that flat ground is exactly 1 (a plateau's top shows the colour map's colour).
double cushionLuminance(double slopeX, double slopeY);

}  // namespace memlog::render
