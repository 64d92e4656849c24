// The address axis of a view: compacted ranges stacked from the bottom (low addresses) to the
// top, separated by a few pixels where a gap was removed. Each range gets a few pixels at
// least, the rest of the height in proportion to its bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "timeline/address_ranges.hpp"

namespace memlog::render {

class AddressScale {
public:
    static constexpr double kSeparatorPixels = 4;
    static constexpr double kMinRangePixels = 8;

    struct Band {
        double m_top = 0, m_bottom = 0;  // pixel rows, m_top < m_bottom
        timeline::AddressRange m_range;
    };

    AddressScale() = default;
    AddressScale(timeline::AddressRanges ranges, double height);

    // How many ranges fit a view of `height` pixels: what to ask AddressRanges::Builder for.
    static size_t maxRanges(double height);

    const timeline::AddressRanges& ranges() const { return m_ranges; }
    const std::vector<Band>& bands() const { return m_bands; }  // bands()[i] shows ranges()[i]
    double height() const { return m_height; }

    // The rows of [lo, hi) clipped to the range that holds lo (blocks never straddle ranges):
    // false when none of it is shown.
    bool span(uint64_t lo, uint64_t hi, double& top, double& bottom) const;
    // The rows of any [lo, hi), across gaps and ranges (an index node's box): false when none
    // of it is shown. `oneBand`: all of it lies inside one band, where rows are linear in bytes.
    bool rowsOf(uint64_t lo, uint64_t hi, double& top, double& bottom, bool& oneBand) const;
    // The row of an address, or nullopt for one in a gap or outside.
    std::optional<double> y(uint64_t addr) const;
    // The address shown at a row, or nullopt on a separator (for brushing).
    std::optional<uint64_t> addressAt(double row) const;
    // The row where `addr` would be, for an address in a gap too: the nearest band edge.
    double nearestY(uint64_t addr) const;

private:
    double rowIn(const Band& band, uint64_t addr) const;
    timeline::AddressRanges m_ranges;
    std::vector<Band> m_bands;
    double m_height = 0;
};

}  // namespace memlog::render
