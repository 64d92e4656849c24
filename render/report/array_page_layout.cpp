// The array page's geometry. Cells are square and, where the page allows, a whole number of
// pixels; several planes or frames are laid out in the number of columns that makes cells
// largest.
#include <algorithm>
#include <cmath>

#include "render/report/array_page.hpp"

namespace memlog::render {

namespace {

// `count` panels of `unitWidth` x `unitHeight` cells (plus `labelHeight` pixels above each)
// in `area`, `gap` pixels apart: the panels' rects, cells as large as fit.
std::vector<Rect> panels(const Rect& area, size_t count, double unitWidth, double unitHeight, double labelHeight,
                         double gap) {
    double bestCell = 0;
    size_t bestColumns = 1;
    for (size_t columns = 1; columns <= count; ++columns) {
        const size_t rows = (count + columns - 1) / columns;
        const double cell = std::min((area.m_width - gap * (columns - 1)) / (columns * unitWidth),
                                     (area.m_height - (labelHeight + gap) * rows) / (rows * unitHeight));
        if (cell > bestCell) bestCell = cell, bestColumns = columns;
    }
    const double cell = bestCell >= 1 ? std::floor(bestCell) : bestCell;
    const double width = std::max(1.0, std::floor(cell * unitWidth)),
                 height = std::max(1.0, std::floor(cell * unitHeight));
    std::vector<Rect> rects;
    for (size_t i = 0; i < count; ++i) {
        const size_t column = i % bestColumns, row = i / bestColumns;
        rects.push_back({std::round(area.m_x + column * (width + gap)),
                         std::round(area.m_y + labelHeight + row * (height + labelHeight + gap)), width, height});
    }
    return rects;
}

// The notes move left to the panels when the panels leave room: the key beside the picture.
void besideThePanels(ArrayPageLayout& layout, double gap) {
    double right = 0;
    for (const Rect& panel : layout.m_planes) right = std::max(right, panel.right());
    layout.m_notes.m_x = std::min(layout.m_notes.m_x, std::round(right + 3 * gap));
}

}  // namespace

ArrayPageLayout arrayPageLayout(const ArrayPageOptions& options) {
    ArrayPageLayout layout;
    const double s = std::clamp(std::min(options.m_width / 1600.0, options.m_height / 1000.0), 0.55, 2.5);
    const double font = layout.m_fontSize = std::round(11 * s * 2) / 2;
    const double margin = std::round(14 * s), gap = std::round(12 * s);
    layout.m_header = {margin, margin, options.m_width - 2 * margin, std::round(64 * s)};
    const double top = layout.m_header.bottom() + gap;
    const double notesWidth = std::round(std::clamp(options.m_width * 0.22, 200 * s, 360 * s));
    layout.m_notes = {options.m_width - margin - notesWidth, top, notesWidth, options.m_height - margin - top};
    const Rect area{margin, top, layout.m_notes.m_x - 2 * gap - margin, options.m_height - margin - top};
    const timeline::ArrayShape& shape = options.m_shape;
    const double columns = static_cast<double>(std::max<uint64_t>(shape.m_columns, 1)),
                 rows = static_cast<double>(std::max<uint64_t>(shape.m_rows, 1));
    const size_t depth = static_cast<size_t>(std::max<uint64_t>(shape.m_depth, 1));
    const double label = std::round(font * 1.6);
    if (options.m_frames > 0) {
        // A frame shows every plane side by side, a cell's width apart.
        const double unitWidth = columns * depth + (depth - 1) * std::max(1.0, columns / 16);
        for (const Rect& frame : panels(area, options.m_frames, unitWidth, rows, label, gap))
            layout.m_planes.push_back(frame);
        besideThePanels(layout, gap);
        return layout;
    }
    if (depth == 1) {
        layout.m_planes = panels(area, 1, columns, rows, label, gap);
        besideThePanels(layout, gap);
        return layout;
    }
    Rect slices = area, stack = area;
    slices.m_width = std::floor(area.m_width * 0.6);
    stack.m_x = slices.right() + 2 * gap;
    stack.m_width = area.right() - stack.m_x;
    stack.m_y += label;
    stack.m_height -= label;
    layout.m_planes = panels(slices, depth, columns, rows, label, gap);
    layout.m_isometric = stack;
    return layout;
}

}  // namespace memlog::render
