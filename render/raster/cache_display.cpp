#include "render/raster/cache_display.hpp"

#include <algorithm>
#include <cmath>

namespace memlog::render {

namespace {

// The entries [first, last) that pixel `at` of `pixels` covers when `count` entries are spread
// over them: at least one.
std::pair<size_t, size_t> entriesOf(int at, int pixels, size_t count) {
    const size_t first = static_cast<size_t>(at) * count / static_cast<size_t>(pixels);
    const size_t last = static_cast<size_t>(at + 1) * count / static_cast<size_t>(pixels);
    return {std::min(first, count - 1), std::max(last, first + 1)};
}

// Whether pixel `at` is the last of its entry, with entries of at least 5 pixels.
bool seamAt(int at, int pixels, size_t count) {
    if (static_cast<size_t>(pixels) < 5 * count) return false;
    return entriesOf(at + 1, pixels, count).first != entriesOf(at, pixels, count).first || at + 1 == pixels;
}

}  // namespace

Rgb hitMissColour(const timeline::HitsMisses& counts, uint64_t most) {
    const uint64_t total = counts.total();
    if (total == 0) return kNoAccessColour;
    const Rgb hue =
        mixed(kCellHitColour, kCellMissColour, static_cast<double>(counts.m_misses) / static_cast<double>(total));
    const double strength = most <= 1 ? 1.0
                                      : kWeakestCell + (1 - kWeakestCell) *
                                                           std::log(static_cast<double>(std::min(total, most))) /
                                                           std::log(static_cast<double>(most));
    return mixed(kNoAccessColour, hue, strength);
}

void drawCountGrid(const timeline::CountGrid& grid, Rgb empty, PixelBuffer target) {
    if (target.m_width <= 0 || target.m_height <= 0) return;
    if (grid.m_rows == 0 || grid.m_columns == 0) {
        for (int y = 0; y < target.m_height; ++y) std::fill_n(target.row(y), target.m_width, toArgb(empty));
        return;
    }
    const auto width = static_cast<size_t>(target.m_width), height = static_cast<size_t>(target.m_height);
    std::vector<timeline::HitsMisses> sums(width * height);
    uint64_t most = 0;
    for (int y = 0; y < target.m_height; ++y) {
        const auto [row0, row1] = entriesOf(y, target.m_height, grid.m_rows);
        for (int x = 0; x < target.m_width; ++x) {
            const auto [column0, column1] = entriesOf(x, target.m_width, grid.m_columns);
            timeline::HitsMisses& sum = sums[static_cast<size_t>(y) * width + static_cast<size_t>(x)];
            for (size_t row = row0; row < row1; ++row)
                for (size_t column = column0; column < column1; ++column) {
                    sum.m_hits += grid.at(row, column).m_hits;
                    sum.m_misses += grid.at(row, column).m_misses;
                }
            most = std::max(most, sum.total());
        }
    }
    const uint32_t seam = toArgb(empty);
    for (int y = 0; y < target.m_height; ++y) {
        const bool seamRow = seamAt(y, target.m_height, grid.m_rows);
        uint32_t* row = target.row(y);
        for (int x = 0; x < target.m_width; ++x) {
            const timeline::HitsMisses& sum = sums[static_cast<size_t>(y) * width + static_cast<size_t>(x)];
            row[x] = seamRow || seamAt(x, target.m_width, grid.m_columns) ? seam
                     : sum.total() == 0                                   ? toArgb(empty)
                                                                          : toArgb(hitMissColour(sum, most));
        }
    }
}

void drawLitGrid(const timeline::CountGrid& grid, const std::vector<LitGridCell>& lit, PixelBuffer target) {
    drawCountGrid(grid, kNoAccessColour, target);
    if (grid.m_rows == 0 || grid.m_columns == 0 || target.m_width <= 0 || target.m_height <= 0) return;
    constexpr double kWashedOut = 0.8;  // the run's sums stay visible, faint, under what plays
    std::vector<float> strength(grid.m_rows * grid.m_columns, 0);
    std::vector<uint8_t> miss(strength.size(), 0);
    for (const LitGridCell& cell : lit) {
        if (cell.m_row >= grid.m_rows || cell.m_column >= grid.m_columns || cell.m_strength <= 0) continue;
        const size_t at = cell.m_row * grid.m_columns + cell.m_column;
        strength[at] = static_cast<float>(std::min(cell.m_strength, 1.0));
        miss[at] = cell.m_miss;
    }
    for (int y = 0; y < target.m_height; ++y) {
        const auto [row0, row1] = entriesOf(y, target.m_height, grid.m_rows);
        uint32_t* row = target.row(y);
        for (int x = 0; x < target.m_width; ++x) {
            const auto [column0, column1] = entriesOf(x, target.m_width, grid.m_columns);
            float strongest = 0;
            bool missed = false;
            for (size_t r = row0; r < row1; ++r)
                for (size_t c = column0; c < column1; ++c) {
                    const size_t at = r * grid.m_columns + c;
                    if (strength[at] > strongest || (strength[at] > 0 && strength[at] == strongest && miss[at])) {
                        missed = miss[at] || (strength[at] == strongest && missed);
                        strongest = strength[at];
                    }
                }
            const Rgb base = mixed(fromArgb(row[x]), kChartBackground, kWashedOut);
            row[x] = toArgb(strongest > 0 ? mixed(base, missed ? kCellMissColour : kCellHitColour, strongest) : base);
        }
    }
}

void drawCountBars(const std::vector<timeline::HitsMisses>& counts, bool upwards, PixelBuffer target) {
    for (int y = 0; y < target.m_height; ++y) std::fill_n(target.row(y), target.m_width, toArgb(kChartBackground));
    if (counts.empty() || target.m_width <= 0 || target.m_height <= 0) return;
    const int across = upwards ? target.m_width : target.m_height, along = upwards ? target.m_height : target.m_width;
    // A pixel across holds the sum of its entries, as in drawCountGrid.
    std::vector<timeline::HitsMisses> sums(static_cast<size_t>(across));
    uint64_t most = 0;
    for (int at = 0; at < across; ++at) {
        const auto [first, last] = entriesOf(at, across, counts.size());
        for (size_t i = first; i < last; ++i) {
            sums[static_cast<size_t>(at)].m_hits += counts[i].m_hits;
            sums[static_cast<size_t>(at)].m_misses += counts[i].m_misses;
        }
        most = std::max(most, sums[static_cast<size_t>(at)].total());
    }
    if (most == 0) return;
    const uint32_t hit = toArgb(kCellHitColour), miss = toArgb(kCellMissColour);
    for (int at = 0; at < across; ++at) {
        if (seamAt(at, across, counts.size())) continue;
        const timeline::HitsMisses& sum = sums[static_cast<size_t>(at)];
        const double scale = static_cast<double>(along) / static_cast<double>(most);
        // Rounded up: one access still shows as a pixel.
        const int total = static_cast<int>(std::ceil(static_cast<double>(sum.total()) * scale));
        const int misses = static_cast<int>(std::ceil(static_cast<double>(sum.m_misses) * scale));
        for (int length = 0; length < std::min(total, along); ++length) {
            const uint32_t colour = length < misses ? miss : hit;
            if (upwards)
                target.at(at, target.m_height - 1 - length) = colour;
            else
                target.at(length, at) = colour;
        }
    }
}

Rgb workingLineColour(const timeline::WorkingLine& line, uint32_t lineBytes) {
    const double used = std::min(1.0, static_cast<double>(line.m_bytesUsed) / std::max<uint32_t>(lineBytes, 1));
    return mixed(mixed(kFewBytesColour, kAllBytesColour, used), kChartBackground, kMostFade * line.m_idle);
}

double workingLineHeight(const timeline::WorkingSet& set, int height) {
    if (set.m_largest == 0) return 1;
    return std::min(8.0, static_cast<double>(height) / static_cast<double>(set.m_largest));
}

void drawWorkingSet(const timeline::WorkingSet& set, PixelBuffer target) {
    for (int y = 0; y < target.m_height; ++y) std::fill_n(target.row(y), target.m_width, toArgb(kChartBackground));
    if (set.m_columns.empty() || set.m_largest == 0) return;
    const double lineHeight = workingLineHeight(set, target.m_height);
    for (int x = 0; x < target.m_width; ++x) {
        const size_t column = static_cast<size_t>(x) * set.m_columns.size() / static_cast<size_t>(target.m_width);
        const auto& lines = set.m_columns[column];
        for (size_t rank = 0; rank < lines.size(); ++rank) {
            const uint32_t colour = toArgb(workingLineColour(lines[rank], set.m_lineBytes));
            // Ranks sharing a pixel row: the later (higher address) is drawn last.
            const int top = static_cast<int>(static_cast<double>(rank) * lineHeight);
            const int bottom = std::max(top + 1, static_cast<int>(static_cast<double>(rank + 1) * lineHeight));
            for (int y = top; y < std::min(bottom, target.m_height); ++y) target.at(x, y) = colour;
        }
    }
}

}  // namespace memlog::render
