// Address scale: bands laid out bottom-up, a linear map inside each.
#include "render/raster/address_scale.hpp"

#include <algorithm>

namespace memlog::render {

AddressScale::AddressScale(timeline::AddressRanges ranges, double height)
    : m_ranges(std::move(ranges)), m_height(height) {
    const auto& list = m_ranges.ranges();
    const double count = static_cast<double>(list.size());
    if (list.empty()) return;
    const double separators = (count - 1) * kSeparatorPixels;
    const double available = std::max(height - separators, 0.0);
    const double minimum = std::min(kMinRangePixels, available / count / 2);
    const double proportional = available - minimum * count;
    const double totalBytes = static_cast<double>(std::max<uint64_t>(m_ranges.bytes(), 1));
    const double totalBlocks = static_cast<double>(m_ranges.blocks());
    double bottom = height;
    for (const timeline::AddressRange& range : list) {
        // Half the height by bytes, half by blocks: a mapping of 256 MiB beside 10 MiB of
        // malloc'd blocks leaves the blocks their half, not 4 % of it.
        double share = static_cast<double>(range.bytes()) / totalBytes;
        if (totalBlocks > 0) share = (share + static_cast<double>(range.m_blocks) / totalBlocks) / 2;
        const double extent = minimum + proportional * share;
        m_bands.push_back({bottom - extent, bottom, range, extent / static_cast<double>(range.bytes())});
        bottom -= extent + kSeparatorPixels;
    }
}

AddressScale AddressScale::windowed(double top, double height) const {
    AddressScale view;
    view.m_height = height;
    std::vector<timeline::AddressRange> shown;
    for (const Band& band : m_bands) {
        if (band.m_bottom <= top || band.m_top >= top + height) continue;
        view.m_bands.push_back({band.m_top - top, band.m_bottom - top, band.m_range, band.m_rowsPerByte});
        shown.push_back(band.m_range);
    }
    view.m_ranges = timeline::AddressRanges(std::move(shown));
    return view;
}

std::optional<std::pair<uint64_t, uint64_t>> AddressScale::shownAddresses() const {
    std::optional<uint64_t> lowest, highest;
    for (const Band& band : m_bands) {  // bottom (low addresses) up
        if (band.m_bottom <= 0 || band.m_top >= m_height) continue;
        if (!lowest) lowest = band.m_bottom <= m_height ? band.m_range.m_lo : addressAt(m_height - 0.5);
        highest = band.m_top >= 0 ? band.m_range.m_hi - 1 : addressAt(0);
    }
    if (!lowest || !highest) return std::nullopt;
    return std::pair{*lowest, *highest};
}

size_t AddressScale::maxRanges(double height) {
    return static_cast<size_t>(std::max(1.0, height / (2 * (kMinRangePixels + kSeparatorPixels))));
}

bool AddressScale::spanSearched(uint64_t lo, uint64_t hi, double& top, double& bottom) const {
    if (m_bands.empty()) return false;
    // The last band starting at or below lo; a block cut by an address window may start in a
    // gap before the next band.
    auto it = std::upper_bound(m_bands.begin(), m_bands.end(), lo,
                               [](uint64_t a, const Band& band) { return a < band.m_range.m_lo; });
    if (it != m_bands.begin() && lo < std::prev(it)->m_range.m_hi) --it;
    if (it == m_bands.end()) return false;
    return spanIn(*it, lo, hi, top, bottom);
}

bool AddressScale::rowsOf(uint64_t lo, uint64_t hi, double& top, double& bottom, bool& oneBand) const {
    // Bands go up in address: the first that ends above lo, the last that starts below hi.
    const auto first = std::upper_bound(m_bands.begin(), m_bands.end(), lo,
                                        [](uint64_t a, const Band& band) { return a < band.m_range.m_hi; });
    const auto end = std::lower_bound(m_bands.begin(), m_bands.end(), hi,
                                      [](const Band& band, uint64_t a) { return band.m_range.m_lo < a; });
    if (first >= end) return false;
    const Band& last = *std::prev(end);
    bottom = rowIn(*first, std::max(lo, first->m_range.m_lo));
    top = rowIn(last, std::min(hi, last.m_range.m_hi));
    oneBand = &*first == &last && lo >= first->m_range.m_lo && hi <= first->m_range.m_hi;
    return true;
}

std::optional<double> AddressScale::y(uint64_t addr) const {
    const auto range = m_ranges.rangeOf(addr);
    if (!range) return std::nullopt;
    return rowIn(m_bands[*range], addr);
}

std::optional<uint64_t> AddressScale::addressAt(double row) const {
    for (const Band& band : m_bands)
        if (row >= band.m_top && row < band.m_bottom) {
            const double fraction = (band.m_bottom - row) / (band.m_bottom - band.m_top);
            return band.m_range.m_lo + static_cast<uint64_t>(fraction * static_cast<double>(band.m_range.bytes()));
        }
    return std::nullopt;
}

double AddressScale::nearestY(uint64_t addr) const {
    if (m_bands.empty()) return m_height;
    if (const auto row = y(addr)) return *row;
    auto it = std::upper_bound(m_bands.begin(), m_bands.end(), addr,
                               [](uint64_t a, const Band& band) { return a < band.m_range.m_lo; });
    if (it == m_bands.begin()) return it->m_bottom;
    return std::prev(it)->m_top;  // past the end of the band below
}

}  // namespace memlog::render
