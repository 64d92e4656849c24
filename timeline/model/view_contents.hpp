// What the views of one picture hold over one x window: per view (every block, or one bin's), the
// address ranges its blocks held and the occupancy under it. Answered by a walk over the blocks
// (an export: one picture, no index worth building) or through the index (the window's frames:
// what is in view, not the size of the log); both give the same answer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "timeline/model/address_ranges.hpp"
#include "timeline/model/binned_index.hpp"
#include "timeline/model/bins.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/model/model_index.hpp"
#include "timeline/model/occupancy.hpp"

namespace memlog::timeline {

struct ViewsQuery {
    XAxis m_axis = XAxis::Time;
    XWindow m_window;
    uint64_t m_addrLo = 0, m_addrHi = UINT64_MAX;  // bytes outside do not count
    const Bins* m_bins = nullptr;  // null: one view of every block; else a view a bin, in order
    // Which address ranges to find: none (the caller has its rows), one set of every block's
    // that all views share (views side by side on one address axis), or each view's own.
    enum class Ranges { None, Shared, PerView };
    Ranges m_ranges = Ranges::PerView;
    // Per view: its occupancy columns, and how many ranges it has room for (0: no limit). The
    // shared ranges are finished with view 0's.
    std::vector<size_t> m_columns, m_maxRanges;

    size_t views() const { return m_bins ? m_bins->count() : 1; }
    OccupancyQuery occupancyOf(size_t view) const;
};

struct ViewContents {
    // The ranges of the view's blocks that meet the window, gaps below
    // AddressRanges::kKeepGapsBelow kept, at most its m_maxRanges, clipped to the address window;
    // with Ranges::Shared, view 0's serve all and the others' are empty.
    AddressRanges m_ranges;
    std::vector<OccupancyColumn> m_occupancy;
};

// By walks over every block: one for the ranges, one for each view's occupancy.
std::vector<ViewContents> viewContents(const BlockModel& model, const ViewsQuery& query);
// Through the index, for a query without bins.
std::vector<ViewContents> viewContents(const ModelIndex& index, const ViewsQuery& query);
// Through the index and its bins, for a query with bins of the same kind (query.m_bins may be a
// copy of binned.bins()). Over every address: ranges from the nodes' hulls and occupancy from
// each bin's sorted ends; over an address window, both from one pass over the blocks near the
// window, on two threads.
std::vector<ViewContents> viewContents(const BinnedIndex& binned, const ViewsQuery& query);

// Every block's ranges, as a view of the whole log shows them (at most `maxRanges`; 0: no
// limit): a walk, for a model without an index.
AddressRanges wholeRanges(const BlockModel& model, size_t maxRanges = 0);
// The union wholeRanges starts from, every span as the blocks made it (BlockModel::wholeSpans):
// what an index keeps, a walk of every block.
std::vector<AddressRange> wholeSpans(const BlockModel& model);

}  // namespace memlog::timeline
