#include "render/raster/flat_blocks.hpp"

#include <algorithm>
#include <cmath>

#include "render/raster/x_scale.hpp"

namespace memlog::render {

std::vector<Tile> tilesOf(int width, int height, bool categorical, size_t tileBytes) {
    // Square: taller or wider tiles cut more leaves of the index in two.
    const int pixelBytes = static_cast<int>(2 * (categorical ? 5 : 3) * sizeof(uint64_t));
    const double side = std::max(16.0, std::sqrt(static_cast<double>(tileBytes) / pixelBytes));
    // Tiles of equal size (to a pixel), none a sliver left over.
    const int across = std::max(1, static_cast<int>(std::lround(width / side)));
    const int down = std::max(1, static_cast<int>(std::lround(height / side)));
    std::vector<Tile> tiles;
    for (int i = 0; i < across; ++i)
        for (int j = 0; j < down; ++j) {
            const int left = width * i / across, top = height * j / down;
            tiles.push_back({left, width * (i + 1) / across - left, top, height * (j + 1) / down - top, tiles.size()});
        }
    return tiles;
}

namespace {

// The tiles' columns (or rows) as their first pixels and sizes, and which of them
// [from, to) meets.
struct Strips {
    std::vector<int> m_starts, m_sizes;
    // [first, last] of the strips that [from, to) meets; first > last: none.
    std::pair<int, int> meeting(double from, double to) const {
        auto first = static_cast<int>(std::upper_bound(m_starts.begin(), m_starts.end(), from) - m_starts.begin()) - 1;
        const auto last = static_cast<int>(std::lower_bound(m_starts.begin(), m_starts.end(), to) - m_starts.begin()) - 1;
        first = std::max(first, 0);
        if (first <= last && from >= m_starts[static_cast<size_t>(first)] + m_sizes[static_cast<size_t>(first)]) ++first;
        return {first, last};
    }
};

}  // namespace

FlatBlocks::FlatBlocks(const timeline::BlockModel& model, const ViewSpec& spec, int width, std::span<const Tile> tiles)
    : m_model(model) {
    Strips columns, rows;
    for (const Tile& tile : tiles) {
        if (tile.m_left == tiles.front().m_left) rows.m_starts.push_back(tile.m_top), rows.m_sizes.push_back(tile.m_rows);
        if (tile.m_top == tiles.front().m_top) columns.m_starts.push_back(tile.m_left), columns.m_sizes.push_back(tile.m_columns);
    }
    const int down = static_cast<int>(rows.m_starts.size());
    const XScale scale(spec.m_window, width);
    // Each block's tiles, told to `visit` as ids: counted first, then filed.
    auto eachTile = [&](auto&& visit) {
        size_t next = 0;
        model.forEach([&](const timeline::Block& block) {
            const size_t index = next++;
            if (spec.m_bins && spec.m_bins->binOf(block) != spec.m_bin) return;
            PixelRect rect;
            if (!blockRect(block, spec, scale, rect)) return;
            const auto [left, right] = columns.meeting(rect.m_x0, rect.m_x1);
            const auto [top, bottom] = rows.meeting(rect.m_y0, rect.m_y1);
            for (int i = left; i <= right; ++i)
                for (int j = top; j <= bottom; ++j) visit(static_cast<size_t>(i * down + j), static_cast<uint32_t>(index));
        });
    };
    m_starts.assign(tiles.size() + 1, 0);
    eachTile([&](size_t id, uint32_t) { ++m_starts[id + 1]; });
    for (size_t id = 0; id < tiles.size(); ++id) m_starts[id + 1] += m_starts[id];
    m_blocks.resize(m_starts.back());
    std::vector<size_t> next(m_starts.begin(), m_starts.end() - 1);
    eachTile([&](size_t id, uint32_t block) { m_blocks[next[id]++] = block; });
}

}  // namespace memlog::render
