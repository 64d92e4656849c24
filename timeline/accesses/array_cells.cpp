// Row-major: the last index runs fastest (C); column-major: the first (Fortran). A 3-D array is
// `depth` planes of rows x columns, the plane the slowest index in both orders.
#include "timeline/accesses/array_cells.hpp"

#include <algorithm>
#include <vector>

namespace memlog::timeline {

CellPlace placeOf(uint64_t index, const ArrayShape& shape, ArrayOrder order) {
    const uint64_t perPlane = shape.m_rows * shape.m_columns;
    CellPlace place;
    place.m_plane = index / perPlane;
    const uint64_t within = index % perPlane;
    if (order == ArrayOrder::RowMajor) {
        place.m_row = within / shape.m_columns;
        place.m_column = within % shape.m_columns;
    } else {
        place.m_column = within / shape.m_rows;
        place.m_row = within % shape.m_rows;
    }
    return place;
}

std::optional<uint64_t> cellOfOffset(uint64_t offset, const ArrayShape& shape, ArrayOrder order) {
    if (shape.m_elementSize == 0) return std::nullopt;
    const uint64_t index = offset / shape.m_elementSize;
    if (index >= shape.cells()) return std::nullopt;
    const CellPlace place = placeOf(index, shape, order);
    return (place.m_plane * shape.m_rows + place.m_row) * shape.m_columns + place.m_column;
}

bool passes(format::AccessKind kind, AccessFilter filter) {
    switch (filter) {
        case AccessFilter::Reads:
            return format::reads(kind);
        case AccessFilter::Writes:
            return format::writes(kind);
        case AccessFilter::Both:
            break;
    }
    return true;
}

ArrayCells arrayCells(const SampledArray& array, const ArrayShape& shape, ArrayOrder order, uint64_t untilNs,
                      AccessFilter filter) {
    ArrayCells cells;
    cells.m_shape = shape;
    cells.m_order = order;
    cells.m_cells.resize(shape.cells());
    if (shape.m_elementSize == 0 || shape.cells() == 0) return cells;
    bool first = true;
    for (const ArraySample& sample : array.m_samples) {
        if (sample.m_timeNs > untilNs) break;
        if (!passes(sample.m_kind, filter)) continue;
        const std::optional<uint64_t> at = cellOfOffset(sample.m_offset, shape, order);
        if (!at) {
            ++cells.m_outside;
            continue;
        }
        ArrayCell& cell = cells.m_cells[*at];
        if (!cell.sampled()) cell.m_firstNs = sample.m_timeNs;
        cell.m_lastNs = sample.m_timeNs;
        if (format::reads(sample.m_kind) && filter != AccessFilter::Writes) ++cell.m_reads;
        if (format::writes(sample.m_kind) && filter != AccessFilter::Reads) ++cell.m_writes;
        cells.m_mostTouched = std::max(cells.m_mostTouched, cell.m_reads + cell.m_writes);
        if (first) cells.m_firstNs = sample.m_timeNs;
        cells.m_lastNs = sample.m_timeNs;
        first = false;
        ++cells.m_samples;
    }
    return cells;
}

ArrayCells tiledCells(const ArrayCells& cells, uint64_t tile) {
    const ArrayShape& shape = cells.m_shape;
    tile = std::max<uint64_t>(tile, 1);
    ArrayCells tiles;
    tiles.m_shape = shape;
    tiles.m_shape.m_rows = (shape.m_rows + tile - 1) / tile;
    tiles.m_shape.m_columns = (shape.m_columns + tile - 1) / tile;
    tiles.m_order = cells.m_order;
    tiles.m_samples = cells.m_samples;
    tiles.m_outside = cells.m_outside;
    tiles.m_firstNs = cells.m_firstNs;
    tiles.m_lastNs = cells.m_lastNs;
    tiles.m_cells.resize(tiles.m_shape.cells());
    const uint64_t depth = std::max<uint64_t>(shape.m_depth, 1);
    for (uint64_t k = 0; k < depth; ++k)
        for (uint64_t i = 0; i < shape.m_rows; ++i)
            for (uint64_t j = 0; j < shape.m_columns; ++j) {
                const ArrayCell& cell = cells.cellAt(k, i, j);
                if (!cell.sampled()) continue;
                ArrayCell& into = tiles.m_cells[(k * tiles.m_shape.m_rows + i / tile) * tiles.m_shape.m_columns + j / tile];
                into.m_firstNs = into.sampled() ? std::min(into.m_firstNs, cell.m_firstNs) : cell.m_firstNs;
                into.m_lastNs = into.sampled() ? std::max(into.m_lastNs, cell.m_lastNs) : cell.m_lastNs;
                into.m_reads += cell.m_reads;
                into.m_writes += cell.m_writes;
                tiles.m_mostTouched = std::max(tiles.m_mostTouched, into.m_reads + into.m_writes);
            }
    return tiles;
}

namespace {

// The median samples of the tiles of side `tile` that hold any (0 for none).
uint32_t medianSampledTile(const ArrayCells& cells, uint64_t tile) {
    const ArrayCells tiles = tiledCells(cells, tile);
    std::vector<uint32_t> counts;
    for (const ArrayCell& cell : tiles.m_cells)
        if (cell.sampled()) counts.push_back(cell.m_reads + cell.m_writes);
    if (counts.empty()) return 0;
    std::nth_element(counts.begin(), counts.begin() + static_cast<ptrdiff_t>(counts.size() / 2), counts.end());
    return counts[counts.size() / 2];
}

}  // namespace

uint64_t tileForSamples(const ArrayCells& cells) {
    if (cells.m_samples == 0 || medianSampledTile(cells, 1) >= kFewSamples) return 1;
    // The median grows with the tile, not strictly (tiles fall differently on the samples): the
    // search finds a side that holds, near the smallest.
    uint64_t low = 1, high = std::max<uint64_t>(std::max(cells.m_shape.m_rows, cells.m_shape.m_columns), 1);
    if (medianSampledTile(cells, high) < kFewSamples) return high;
    while (high - low > 1) {
        const uint64_t middle = low + (high - low) / 2;
        (medianSampledTile(cells, middle) >= kFewSamples ? high : low) = middle;
    }
    return high;
}

}  // namespace memlog::timeline
