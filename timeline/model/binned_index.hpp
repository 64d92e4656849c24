// The correlated views' bins laid over the model's index: the bin of each block in the index's
// order, which index nodes hold which bins, and each bin's sorted ends and node hulls, so that a
// bin's view, its address ranges and its occupancy cost what is in view, not a pass over the
// log. Made once per index and kind (1.8 s for ten million blocks; about 30 bytes a block).
#pragma once

#include <cstdint>
#include <functional>

#include "timeline/base/huge_pages.hpp"
#include "timeline/model/bins.hpp"
#include "timeline/model/model_index.hpp"

namespace memlog::timeline {

class BinnedIndex {
public:
    static constexpr uint8_t kNoBin = UINT8_MAX;  // a position whose block is in no bin
    static_assert(Bins::kMaxBins <= 8, "a bin's bit in a byte of ModelIndex::Membership");

    BinnedIndex() = default;
    // `index` must outlive it; `sites` as Bins::make takes them. `progress` hears 0..0.8 as it
    // is made (a caller's own work after it fills the bar).
    BinnedIndex(const ModelIndex& index, BinKind kind, const SiteIndex* sites,
                const std::function<void(double)>& progress = {});

    const ModelIndex& index() const { return *m_index; }
    const Bins& bins() const { return m_bins; }
    // The bin of the block at each position of index().index().order() (kNoBin: none).
    const HugeVector<uint8_t>& binOfPosition() const { return m_binOfPosition; }
    const ModelIndex::Membership& membership() const { return m_membership; }
    const ModelIndex::Groups& groups() const { return m_groups; }

private:
    const ModelIndex* m_index = nullptr;
    Bins m_bins;
    HugeVector<uint8_t> m_binOfPosition;
    ModelIndex::Membership m_membership;  // a group a bin
    ModelIndex::Groups m_groups;  // a group a bin
};

}  // namespace memlog::timeline
