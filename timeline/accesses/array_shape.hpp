// The shape of an array guessed from its samples, with how sure the guess is and why: never
// silently assumed. The element size from the sizes and alignment of the accesses (or the
// sizeof on the allocating line); the row length from instructions that walk columns: their
// consecutive samples move by whole rows.
#pragma once

#include <string>

#include "timeline/accesses/sampled_arrays.hpp"

namespace memlog::timeline {

struct ShapeGuess {
    ArrayShape m_shape;  // m_rows and m_columns 0 when no row length could be told
    double m_elementConfidence = 0;  // 0..1: the share of samples that agree with the element size
    double m_rowConfidence = 0;  // 0..1: the share of column steps that agree with the row length
    std::string m_how;  // one sentence for the user
};

ShapeGuess inferShape(const SampledArray& array);

}  // namespace memlog::timeline
