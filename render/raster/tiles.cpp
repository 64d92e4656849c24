#include "render/raster/tiles.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace memlog::render {

namespace {

// Sums a pixel holds: coverage, weight and one or three attributes.
size_t sums(bool categorical) { return categorical ? 5 : 3; }

}  // namespace

std::vector<Tile> tilesOf(int width, int height, bool categorical, size_t tileBytes) {
    // Square: taller or wider tiles cut more leaves of the index in two.
    // The pixels' sums and the difference arrays': two arrays of sums.
    const double pixelBytes = static_cast<double>(2 * sums(categorical) * sizeof(uint64_t));
    const double side = std::max(16.0, std::sqrt(static_cast<double>(tileBytes) / pixelBytes));
    // Tiles of equal size (to a pixel), none a sliver left over.
    const int across = std::max(1, static_cast<int>(std::lround(width / side)));
    const int down = std::max(1, static_cast<int>(std::lround(height / side)));
    std::vector<Tile> tiles;
    for (int i = 0; i < across; ++i)
        for (int j = 0; j < down; ++j) {
            const int left = width * i / across, top = height * j / down;
            tiles.push_back({left, width * (i + 1) / across - left, top, height * (j + 1) / down - top});
        }
    return tiles;
}

std::vector<Tile> bandsOf(int width, int height, bool categorical, size_t blocks) {
    const size_t rowBytes = static_cast<size_t>(width + 1) * sums(categorical) * sizeof(uint64_t);
    const size_t budget = std::max<size_t>(size_t{4} << 20, blocks * 4);
    const int band =
        static_cast<int>(std::clamp<size_t>(budget / rowBytes, 16, static_cast<size_t>(std::max(height, 1))));
    std::vector<Tile> bands;
    for (int top = 0; top < height; top += band) bands.push_back({0, width, top, std::min(band, height - top)});
    return bands;
}

}  // namespace memlog::render
