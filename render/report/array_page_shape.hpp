// The shape an array page draws with: what the user gave (--elem, --dims, or the window's
// prompt), else memlog_array() in the program, else the inference from the samples; and the
// page told which, with the inference's confidence (never silently assumed).
#pragma once

#include <cstdint>
#include <string>

#include "render/report/array_page.hpp"
#include "timeline/accesses/sampled_arrays.hpp"

namespace memlog::render {

struct GivenShape {
    uint64_t m_elementSize = 0;  // 0: not given
    uint64_t m_rows = 0, m_columns = 0, m_depth = 0;  // m_rows 0: not given
};

// Where the dimensions came from, in one word (the window's --trace names it).
enum class ShapeSource { Given, Annotated, Inferred, Assumed, InOrder };
const char* shapeSourceName(ShapeSource source);

struct SettledShape {
    ShapeSource m_source = ShapeSource::Given;
    double m_confidence = 1;  // of an inferred row length (0: assumed), else 1
};

// Fills `page`'s m_shape, m_shapeGiven and m_shapeFrom. "" when settled, else why not (no
// element size to draw with, or more than 16M cells), as a sentence without the array's name.
// `candidate`: which of the inference's row lengths (ShapeGuess::m_candidates, the best first)
// an inferred shape takes, counted round; `candidates` hears how many there are.
std::string settleArrayShape(const GivenShape& given, const timeline::SampledArray& array, ArrayPageOptions& page,
                             SettledShape* settled = nullptr, size_t candidate = 0, size_t* candidates = nullptr);

// "256x256", "64x32x16" (sides 1 to 16M): false when the text is not dimensions.
bool parseArrayDims(const std::string& text, GivenShape& shape);

}  // namespace memlog::render
