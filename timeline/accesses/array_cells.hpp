// An array's samples as cells: for each element (i, j) or (i, j, k), how often it was read and
// written and when first and last. What the array views draw; a cell no sample fell in is "no
// sample", never "not accessed".
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "timeline/accesses/sampled_arrays.hpp"

namespace memlog::timeline {

enum class ArrayOrder { RowMajor, ColumnMajor };

struct ArrayCell {
    uint32_t m_reads = 0;
    uint32_t m_writes = 0;
    uint64_t m_firstNs = 0;  // valid when sampled()
    uint64_t m_lastNs = 0;
    bool sampled() const { return m_reads + m_writes > 0; }
};

struct ArrayCells {
    ArrayShape m_shape;
    ArrayOrder m_order = ArrayOrder::RowMajor;
    std::vector<ArrayCell> m_cells;  // plane by plane, row by row, as cellAt indexes them
    uint64_t m_samples = 0;  // that fell in a cell
    uint64_t m_outside = 0;  // past the shape's last element (a shape smaller than the block)
    uint64_t m_firstNs = 0, m_lastNs = 0;  // the samples' time span
    uint32_t m_mostTouched = 0;  // the largest reads + writes of a cell

    const ArrayCell& cellAt(uint64_t plane, uint64_t row, uint64_t column) const {
        return m_cells[(plane * m_shape.m_rows + row) * m_shape.m_columns + column];
    }
};

// Where an element index lies: (plane, row, column) in the given order.
struct CellPlace {
    uint64_t m_plane = 0, m_row = 0, m_column = 0;
};
CellPlace placeOf(uint64_t index, const ArrayShape& shape, ArrayOrder order);

// The cell a byte offset into the array falls in, as an index into ArrayCells::m_cells (planes,
// then rows, then columns); none past the shape's last element or for a shape with no element size.
std::optional<uint64_t> cellOfOffset(uint64_t offset, const ArrayShape& shape, ArrayOrder order);

// Which accesses a view counts: both, or only reads or only writes (a read-modify-write is both).
enum class AccessFilter { Both, Reads, Writes };
bool passes(format::AccessKind kind, AccessFilter filter);

// Where samples are few for the cells, a picture of single cells is mostly "no sample": tiles of
// tile x tile cells (per plane; the last row and column of tiles may hold fewer) gather them, so
// that the order of a walk shows. A tile's reads and writes are its cells' sums, its first and
// last times the earliest and latest of them. The result is cells of the tiles' grid, in the
// same layout, so anything that draws cells draws tiles.
ArrayCells tiledCells(const ArrayCells& cells, uint64_t tile);

// The tile side that makes most tiles hold a few samples: the smallest for which the median of
// the sampled tiles' samples is at least kFewSamples; 1 (single cells) when cells already do.
inline constexpr uint32_t kFewSamples = 3;
uint64_t tileForSamples(const ArrayCells& cells);

// The samples up to `untilNs` (all by default) placed in cells of `shape`.
ArrayCells arrayCells(const SampledArray& array, const ArrayShape& shape, ArrayOrder order,
                      uint64_t untilNs = UINT64_MAX, AccessFilter filter = AccessFilter::Both);

}  // namespace memlog::timeline
