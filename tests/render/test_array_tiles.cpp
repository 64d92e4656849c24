// Sparse array pages: where samples are few for the cells, the picture gathers cells into tiles
// sized so that most hold a few samples, and the tiles show the order of the walk.
#include <catch2/catch.hpp>

#include <cairo.h>

#include <algorithm>
#include <vector>

#include "render/raster/array_grid.hpp"
#include "render/report/array_page.hpp"
#include "timeline/accesses/array_cells.hpp"

using namespace memlog::render;
using namespace memlog::timeline;

namespace {

constexpr uint64_t kRows = 512, kColumns = 384, kElement = 8;

// A column walk of a kRows x kColumns matrix of doubles sampled sparsely: `samples` reads, each
// later one further down the columns (column after column), as a tick sampler sees it.
SampledArray sparseColumnWalk(uint64_t samples) {
    SampledArray array;
    array.m_name = "b";
    array.m_nameFrom = "site";
    array.m_size = kRows * kColumns * kElement;
    const uint64_t elements = kRows * kColumns;
    for (uint64_t s = 0; s < samples; ++s) {
        const uint64_t step = s * elements / samples + (s * 7919) % (elements / samples);  // column-major index
        const uint64_t column = step / kRows, row = step % kRows;
        ArraySample sample;
        sample.m_seq = s;
        sample.m_timeNs = 1000 + s * 100;
        sample.m_offset = (row * kColumns + column) * kElement;
        sample.m_size = 8;
        array.m_samples.push_back(sample);
    }
    return array;
}

ArrayPageOptions pageOptions(uint64_t tile) {
    ArrayPageOptions options;
    options.m_shape = {kElement, kRows, kColumns, 1};
    options.m_tile = tile;
    return options;
}

// The page painted, and the brightness of the centre pixel of each (tile) cell it shows; -1 for
// "no sample".
std::vector<std::vector<double>> paintedCells(const ArrayPage& page) {
    const ArrayPageOptions& options = page.options();
    cairo_surface_t* image = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, options.m_width, options.m_height);
    cairo_t* cr = cairo_create(image);
    page.paint(cr);
    cairo_destroy(cr);
    cairo_surface_flush(image);
    const Rect& rect = page.layout().m_planes.at(0);
    const ArrayShape& shown = page.shown().m_shape;
    const int width = static_cast<int>(rect.m_width), height = static_cast<int>(rect.m_height);
    std::vector<std::vector<double>> cells(shown.m_rows, std::vector<double>(shown.m_columns));
    const uint32_t noSample = toArgb(kNoSampleColour) | 0xff000000u;
    for (uint64_t i = 0; i < shown.m_rows; ++i)
        for (uint64_t j = 0; j < shown.m_columns; ++j) {
            const int x = static_cast<int>(rect.m_x) + cellCentrePixel(j, width, shown.m_columns);
            const int y = static_cast<int>(rect.m_y) + cellCentrePixel(i, height, shown.m_rows);
            const auto* row = reinterpret_cast<const uint32_t*>(cairo_image_surface_get_data(image) +
                                                                 y * cairo_image_surface_get_stride(image));
            const uint32_t pixel = row[x] | 0xff000000u;
            cells[i][j] = pixel == noSample ? -1
                                            : 0.2126 * (pixel >> 16 & 0xff) + 0.7152 * (pixel >> 8 & 0xff) +
                                                  0.0722 * (pixel & 0xff);
        }
    cairo_surface_destroy(image);
    return cells;
}

}  // namespace

TEST_CASE("tiles: sums and first and last times of their cells, the last row and column of tiles partial") {
    ArrayCells cells;
    cells.m_shape = {8, 5, 5, 1};
    cells.m_cells.resize(25);
    cells.m_cells[0] = {1, 0, 100, 100};  // (0, 0)
    cells.m_cells[6] = {0, 2, 50, 400};  // (1, 1)
    cells.m_cells[24] = {3, 0, 700, 900};  // (4, 4)
    cells.m_samples = 6;
    const ArrayCells tiles = tiledCells(cells, 2);
    REQUIRE(tiles.m_shape.m_rows == 3);
    REQUIRE(tiles.m_shape.m_columns == 3);
    CHECK(tiles.cellAt(0, 0, 0).m_reads == 1);
    CHECK(tiles.cellAt(0, 0, 0).m_writes == 2);
    CHECK(tiles.cellAt(0, 0, 0).m_firstNs == 50);
    CHECK(tiles.cellAt(0, 0, 0).m_lastNs == 400);
    CHECK(tiles.cellAt(0, 2, 2).m_reads == 3);
    CHECK_FALSE(tiles.cellAt(0, 1, 1).sampled());
    CHECK(tiles.m_mostTouched == 3);
    CHECK(tiles.m_samples == 6);
}

TEST_CASE("tiles: sized so that most tiles hold a few samples, single cells when cells do") {
    const SampledArray sparse = sparseColumnWalk(448);
    const ArrayCells cells = arrayCells(sparse, pageOptions(0).m_shape, ArrayOrder::RowMajor);
    const uint64_t tile = tileForSamples(cells);
    CHECK(tile > 1);
    // Most sampled tiles hold kFewSamples or more; half the side would not.
    auto share = [&](uint64_t side) {
        const ArrayCells tiles = tiledCells(cells, side);
        size_t sampled = 0, few = 0;
        for (const ArrayCell& cell : tiles.m_cells) {
            sampled += cell.sampled();
            few += cell.m_reads + cell.m_writes >= kFewSamples;
        }
        return static_cast<double>(few) / static_cast<double>(sampled);
    };
    CHECK(share(tile) >= 0.5);
    CHECK(share(tile / 2) < 0.5);
    // Dense samples (every cell three times): single cells.
    SampledArray dense;
    for (uint64_t pass = 0; pass < 3; ++pass)
        for (uint64_t e = 0; e < 64 * 64; ++e) dense.m_samples.push_back({e, pass * 10000 + e, e * 8, 0, 8, 0, memlog::format::AccessKind::Read});
    CHECK(tileForSamples(arrayCells(dense, {8, 64, 64, 1}, ArrayOrder::RowMajor)) == 1);
}

TEST_CASE("a sparsely sampled array page draws tiles whose first accesses show the column walk, and --tile 1 cells") {
    const SampledArray array = sparseColumnWalk(448);
    const ArrayPage tiled(array, pageOptions(0));
    REQUIRE(tiled.tile() > 1);
    CHECK(tiled.shown().m_shape.m_columns == (kColumns + tiled.tile() - 1) / tiled.tile());
    const auto tiles = paintedCells(tiled);
    // Column after column of tiles: every sampled tile is brighter (later) than every sampled
    // tile of an earlier tile column, and most tiles hold a sample.
    size_t sampled = 0, outOfOrder = 0;
    double brightestBefore = -1;
    for (uint64_t j = 0; j < tiles.front().size(); ++j) {
        double brightest = -1;
        for (const auto& row : tiles) {
            if (row[j] < 0) continue;
            ++sampled;
            outOfOrder += row[j] < brightestBefore;
            brightest = std::max(brightest, row[j]);
        }
        brightestBefore = std::max(brightestBefore, brightest);
    }
    CHECK(outOfOrder == 0);
    CHECK(sampled * 2 > tiles.size() * tiles.front().size());
    // The same samples as single cells: a grey page with scattered dots.
    const ArrayPage single(array, pageOptions(1));
    CHECK(single.tile() == 1);
    CHECK(single.tileForSamples() == tiled.tile());
    const auto cells = paintedCells(single);
    size_t dots = 0;
    for (const auto& row : cells) dots += static_cast<size_t>(std::count_if(row.begin(), row.end(), [](double b) { return b >= 0; }));
    CHECK(dots * 50 < cells.size() * cells.front().size());
}
