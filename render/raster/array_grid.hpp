// An array's cells as pixels: one plane of rows x columns drawn into a buffer, each cell
// coloured by when it was first or last touched or by how often, or, in a playback frame, by the
// reads (blue) and writes (red) of the latest time slices, fading. A cell no sample fell in has
// its own colour, never one of the ramp's: it is "no sample", not "not accessed".
#pragma once

#include <cstdint>
#include <vector>

#include "render/raster/colour_map.hpp"
#include "render/raster/pixel_buffer.hpp"
#include "timeline/accesses/array_cells.hpp"
#include "timeline/accesses/array_playback.hpp"

namespace memlog::render {

enum class CellColouring { FirstTouch, LastTouch, Count };

// A neutral grey, lighter than the ramp's dark end and greyer than its bright end.
inline constexpr Rgb kNoSampleColour{0.80, 0.80, 0.80};
inline constexpr Rgb kCellSeparatorColour{0.965, 0.965, 0.96};  // the page's colour
inline constexpr Rgb kPlaybackIdleColour{0.93, 0.93, 0.92};  // sampled, but not lately: a shade off grey
inline constexpr Rgb kPlaybackReadColour{0.12, 0.35, 0.85};
inline constexpr Rgb kPlaybackWriteColour{0.85, 0.12, 0.10};

// t in [0, 1]: dark violet (early, rare) to pale yellow (late, often). Every channel grows with
// t, so brightness does too, and a later touch is never drawn darker than an earlier one.
Rgb touchRampColour(double t);

// A sampled cell's place on the ramp: its time within the samples' span, or its count over the
// most touched cell's.
double cellRampPosition(const timeline::ArrayCell& cell, const timeline::ArrayCells& cells, CellColouring colouring);

// Pixels and cells along one axis: `pixels` pixels show `cells` cells; pixel p shows the cell
// its centre falls in. The centre pixel of a cell is the one a reader of the picture should ask.
uint64_t cellAtPixel(int pixel, int pixels, uint64_t cells);
int cellCentrePixel(uint64_t cell, int pixels, uint64_t cells);

// Plane `plane` of `cells` into `target` (its rows down, its columns across). Cells of 8 pixels
// or more are separated by a line of the page's colour.
void drawCellPlane(const timeline::ArrayCells& cells, uint64_t plane, CellColouring colouring, PixelBuffer target);

// A cell lit in a playback: read or written, from full strength (1: now) fading towards 0.
struct FadingTouch {
    uint64_t m_cell = 0;  // an index into ArrayCells::m_cells
    bool m_written = false;
    double m_strength = 1;
};

// Plane `plane` of `cells` with `touches` lit over a pale grey (later touches of a cell over
// earlier ones; a pixel of several cells shows the strongest, a write before a read of the same
// strength), cells never sampled in kNoSampleColour: a playback frame, and the window's
// playback at one moment.
void drawFadingPlane(const timeline::ArrayCells& cells, const std::vector<FadingTouch>& touches, uint64_t plane,
                     PixelBuffer target);

// Frame `frame` of a playback of `cells`' array: touches of slices frame - fade + 1 .. frame, the
// latest over the others, drawn over a pale grey at an opacity falling with their age; cells never
// sampled in the playback in kNoSampleColour.
void drawPlaybackPlane(const timeline::ArrayCells& cells, const timeline::Playback& playback, uint32_t frame,
                       uint32_t fade, uint64_t plane, PixelBuffer target);

}  // namespace memlog::render
