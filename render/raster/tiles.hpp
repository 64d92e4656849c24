// How a view is cut into tiles, each drawn with its own accumulator by one thread.
#pragma once

#include <cstddef>
#include <vector>

namespace memlog::render {

// Columns [m_left, m_left + m_columns) and rows [m_top, m_top + m_rows) of a view.
struct Tile {
    int m_left, m_columns, m_top, m_rows;
};

// The window's tiles: about `tileBytes` of the accumulator's arrays each (a pixel costs 80 bytes
// with categories, 48 without), so that they stay in a core's cache; square, of equal size to
// a pixel, column after column.
std::vector<Tile> tilesOf(int width, int height, bool categorical, size_t tileBytes);

// An export's tiles: bands of whole rows, each drawn by one walk over every block (no index),
// as tall as keeps the arrays under 4 bytes a block (at least 4 MiB): a small log is drawn in a
// few walks with little memory, a big one in one or two, its arrays small beside the model.
std::vector<Tile> bandsOf(int width, int height, bool categorical, size_t blocks);

}  // namespace memlog::render
