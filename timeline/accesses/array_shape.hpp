// The shape of an array guessed from its samples, with how sure the guess is and why: never
// silently assumed. The element size from the sizes and alignment of the accesses (or the
// sizeof on the allocating line); the row length from instructions that walk columns: between
// two of their samples they move by many whole rows plus about the same few columns.
#pragma once

#include <string>
#include <vector>

#include "timeline/accesses/sampled_arrays.hpp"

namespace memlog::timeline {

// A row length the samples support: the steps between consecutive samples of one instruction,
// taken modulo the row length, agree on one column offset (the columns the walk advanced), while
// the whole rows they cross vary.
struct RowCandidate {
    uint64_t m_columns = 0;  // the row length, in elements
    double m_support = 0;  // 0..1: how closely the steps agree (1: all on one offset; about 0 by chance)
    uint64_t m_steps = 0;  // the steps of the instruction that gave it
    uint64_t m_offset = 0;  // the offset they agree on, in elements (0 to m_columns - 1)
};

struct ShapeGuess {
    ArrayShape m_shape;  // m_rows and m_columns 0 when no row length could be told
    double m_elementConfidence = 0;  // 0..1: the share of samples that agree with the element size
    double m_rowConfidence = 0;  // 0..1: the chosen candidate's support (0 when assumed or unknown)
    // The row lengths the samples support, the chosen one (m_shape's) first, then the others by
    // support; never a divisor of another (a walk by rows of 640 fits rows of 320 as well).
    std::vector<RowCandidate> m_candidates;
    std::string m_how;  // one sentence for the user
};

ShapeGuess inferShape(const SampledArray& array);

}  // namespace memlog::timeline
