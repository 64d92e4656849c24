// Row-major: the last index runs fastest (C); column-major: the first (Fortran). A 3-D array is
// `depth` planes of rows x columns, the plane the slowest index in both orders.
#include "timeline/accesses/array_cells.hpp"

#include <algorithm>

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

}  // namespace memlog::timeline
