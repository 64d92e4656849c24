// An array's samples played back (MAPA): the samples' time span cut into equal slices, and for
// each slice the cells its samples fell in and whether they were read or written. The frames
// of a playback strip draw them, fading each touch over the slices that follow.
#pragma once

#include <cstdint>
#include <vector>

#include "timeline/accesses/array_cells.hpp"

namespace memlog::timeline {

struct CellTouch {
    uint64_t m_cell = 0;  // an index into ArrayCells::m_cells
    bool m_read = false, m_written = false;
};

struct Playback {
    uint64_t m_firstNs = 0, m_lastNs = 0;  // the samples' span
    std::vector<uint64_t> m_sliceEndNs;  // slice s covers up to and including m_sliceEndNs[s]
    std::vector<std::vector<CellTouch>> m_touches;  // per slice, in time order
};

// `slices` (at least 1) equal slices of the span of the samples that pass `filter` and fall in
// a cell of `shape`.
Playback playback(const SampledArray& array, const ArrayShape& shape, ArrayOrder order, uint32_t slices,
                  AccessFilter filter = AccessFilter::Both);

}  // namespace memlog::timeline
