// The address axis of a view: compacted ranges stacked from the bottom (low addresses) to the
// top, separated by a few pixels where a gap was removed. Each range gets a few pixels at
// least, the rest of the height half in proportion to its bytes and half to its blocks (when the
// ranges counted them), so that neither a huge mapping nor a swarm of small blocks takes it all.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "timeline/model/address_ranges.hpp"

namespace memlog::render {

class AddressScale {
public:
    static constexpr double kSeparatorPixels = 4;
    static constexpr double kMinRangePixels = 8;

    struct Band {
        double m_top = 0, m_bottom = 0;  // pixel rows, m_top < m_bottom
        timeline::AddressRange m_range;
        double m_rowsPerByte = 0;  // (m_bottom - m_top) / bytes: a multiplication per block, not a division
        bool operator==(const Band&) const = default;
    };

    AddressScale() = default;
    AddressScale(timeline::AddressRanges ranges, double height);

    // How many ranges fit a view of `height` pixels: what to ask AddressRanges::Builder for.
    static size_t maxRanges(double height);

    // The rows [top, top + height) of this scale as a scale of its own, for a view scrolled
    // over a taller one (the window's zoom). Bands keep their whole ranges and their slope, so
    // a band cut by the view's edge reaches past it: rows may be negative or beyond `height`.
    AddressScale windowed(double top, double height) const;
    // The lowest and the highest address on rows [0, height), or nullopt when no band is.
    std::optional<std::pair<uint64_t, uint64_t>> shownAddresses() const;

    const timeline::AddressRanges& ranges() const { return m_ranges; }
    const std::vector<Band>& bands() const { return m_bands; }  // bands()[i] shows ranges()[i]
    double height() const { return m_height; }
    // Bands show the ranges one for one: equal bands, equal scales.
    bool operator==(const AddressScale& other) const { return m_bands == other.m_bands && m_height == other.m_height; }

    // The rows of [lo, hi) clipped to the range that holds lo (blocks never straddle ranges):
    // false when none of it is shown.
    bool span(uint64_t lo, uint64_t hi, double& top, double& bottom) const {
        // Every block of a frame asks: inline, and one band (the usual case) needs no search.
        if (m_bands.size() == 1) return spanIn(m_bands.front(), lo, hi, top, bottom);
        return spanSearched(lo, hi, top, bottom);
    }
    // The rows of any [lo, hi), across gaps and ranges (an index node's box): false when none
    // of it is shown. `oneBand`: all of it lies inside one band, where rows are linear in bytes.
    bool rowsOf(uint64_t lo, uint64_t hi, double& top, double& bottom, bool& oneBand) const;
    // The row of an address, or nullopt for one in a gap or outside.
    std::optional<double> y(uint64_t addr) const;
    // The same for addresses asked one after another, most often in the band of the one before:
    // `band` is that band's index (start with 0), tried before the search and moved to each
    // address's.
    std::optional<double> y(uint64_t addr, size_t& band) const {
        if (band < m_bands.size() && addr - m_bands[band].m_range.m_lo < m_bands[band].m_range.bytes())
            return rowIn(m_bands[band], addr);
        const auto range = m_ranges.rangeOf(addr);
        if (!range) return std::nullopt;
        band = *range;
        return rowIn(m_bands[band], addr);
    }
    // The address shown at a row, or nullopt on a separator (for brushing).
    std::optional<uint64_t> addressAt(double row) const;
    // The row where `addr` would be, for an address in a gap too: the nearest band edge.
    double nearestY(uint64_t addr) const;

private:
    bool spanIn(const Band& band, uint64_t lo, uint64_t hi, double& top, double& bottom) const {
        const uint64_t from = lo > band.m_range.m_lo ? lo : band.m_range.m_lo,
                       to = hi < band.m_range.m_hi ? hi : band.m_range.m_hi;
        if (from >= to) return false;
        bottom = rowIn(band, from);
        top = rowIn(band, to);
        return true;
    }
    bool spanSearched(uint64_t lo, uint64_t hi, double& top, double& bottom) const;
    double rowIn(const Band& band, uint64_t addr) const {
        // An offset inside one range, far below 2^63: converted as signed, one instruction.
        return band.m_bottom - static_cast<double>(static_cast<int64_t>(addr - band.m_range.m_lo)) * band.m_rowsPerByte;
    }
    timeline::AddressRanges m_ranges;
    std::vector<Band> m_bands;
    double m_height = 0;
};

}  // namespace memlog::render
