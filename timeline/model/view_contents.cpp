// The views' contents three ways: walks over the blocks, the index alone, the index with its bins
// (one pass over the blocks near the window serving every bin's ranges and occupancy at once).
#include "timeline/model/view_contents.hpp"

#include <atomic>
#include <memory>
#include <thread>

#include "timeline/base/other_core.hpp"

namespace memlog::timeline {

namespace {

AddressRanges finished(const AddressRanges::Builder& builder, size_t maxRanges, const ViewsQuery& query) {
    return builder.finish(AddressRanges::kKeepGapsBelow, maxRanges).clip(query.m_addrLo, query.m_addrHi);
}

AddressRanges indexRanges(const ModelIndex& index, size_t maxRanges, const ViewsQuery& query) {
    AddressRanges::Builder builder;
    index.addRanges(query.m_window, query.m_addrLo, query.m_addrHi, builder);
    return finished(builder, maxRanges, query);
}

// Every block whose leaf meets `box`, as visit(part, position in the index's order, model
// index), on two threads: part 0 gets the first half of the leaves, part 1 the rest. For what a
// node's summary cannot serve, such as one bin's occupancy; the caller tests each block.
template <typename Visit>
void forEachNear(const ModelIndex& index, const IndexBox& box, Visit&& visit) {
    const ModelIndex::Leaves leaves = index.leavesMeeting(box, [](const BlockIndex::Node&) { return false; });
    auto visitPart = [&](int part, size_t from, size_t to) {
        index.forEachInLeaves(leaves, from, to, [&](size_t position, uint32_t block) { visit(part, position, block); });
    };
    const size_t half = leaves.size() / 2;
    std::jthread second = startOnOtherCore(visitPart, 1, half, leaves.size());
    visitPart(0, 0, half);
}

}  // namespace

OccupancyQuery ViewsQuery::occupancyOf(size_t view) const {
    OccupancyQuery query;
    query.m_axis = m_axis;
    query.m_window = m_window;
    query.m_columns = m_columns[view];
    query.m_addrLo = m_addrLo;
    query.m_addrHi = m_addrHi;
    query.m_bins = m_bins;
    query.m_bin = m_bins ? static_cast<int>(view) : -1;
    return query;
}

std::vector<ViewContents> viewContents(const BlockModel& model, const ViewsQuery& query) {
    std::vector<ViewContents> views(query.views());
    auto rangesOf = [&](int bin, size_t maxRanges) {
        AddressRanges::Builder builder;
        model.forEachMeeting(query.m_axis, query.m_window, [&](const Block& b) {
            if (!b.meets(query.m_axis, query.m_window, query.m_addrLo, query.m_addrHi)) return;
            if (bin >= 0 && query.m_bins->binOf(b) != bin) return;
            builder.add(b.addr(), b.endAddr(), bin >= 0 ? 0 : 1);  // a bin's blocks uncounted, as the index's
        });
        return finished(builder, maxRanges, query);
    };
    if (query.m_ranges == ViewsQuery::Ranges::Shared) views.front().m_ranges = rangesOf(-1, query.m_maxRanges.front());
    for (size_t view = 0; view < views.size(); ++view) {
        if (query.m_ranges == ViewsQuery::Ranges::PerView)
            views[view].m_ranges = rangesOf(query.m_bins ? static_cast<int>(view) : -1, query.m_maxRanges[view]);
        views[view].m_occupancy = occupancy(model, query.occupancyOf(view));
    }
    return views;
}

std::vector<ViewContents> viewContents(const ModelIndex& index, const ViewsQuery& query) {
    std::vector<ViewContents> views(1);
    if (query.m_ranges != ViewsQuery::Ranges::None)
        views.front().m_ranges = indexRanges(index, query.m_maxRanges.front(), query);
    views.front().m_occupancy = index.occupancy(query.occupancyOf(0));
    return views;
}

std::vector<ViewContents> viewContents(const BinnedIndex& binned, const ViewsQuery& query) {
    const ModelIndex& index = binned.index();
    const BlockModel& model = index.model();
    const size_t count = query.views();
    const bool perView = query.m_ranges == ViewsQuery::Ranges::PerView;
    const uint64_t lo = query.m_addrLo, hi = query.m_addrHi;
    const XWindow window = query.m_window;
    const bool everyAddress = index.coversAddresses(query.occupancyOf(0));
    // What the pass gathers, a part for each thread, merged after: each bin's address ranges
    // and (over an address window only) its occupancy columns.
    struct Part {
        std::vector<OccupancyColumns> m_columns;  // by bin
        std::vector<std::unique_ptr<AddressRanges::Builder>> m_ranges;  // by bin
    } parts[2];
    for (Part& part : parts)
        for (size_t bin = 0; bin < count; ++bin) {
            if (!everyAddress) part.m_columns.emplace_back(query.occupancyOf(bin));
            part.m_ranges.push_back(std::make_unique<AddressRanges::Builder>());
        }
    // Over every address, ranges alone: from the index, where a node wholly inside gives each
    // bin its hull when that closes no gap the ranges would keep. Over an address window,
    // ranges and occupancy from the blocks near the window, as the walk would test each.
    if (everyAddress) {
        if (perView) {
            std::vector<AddressRanges::Builder*> builders;
            for (auto& ranges : parts[0].m_ranges) builders.push_back(ranges.get());
            index.addRanges(window, lo, hi, binned.groups(), builders);
        }
    } else {
        const HugeVector<uint8_t>& binOf = binned.binOfPosition();
        forEachNear(index, ModelIndex::occupancyReach(window, lo, hi), [&](int which, size_t position, uint32_t block) {
            const uint8_t bin = binOf[position];
            if (bin >= count) return;
            const Block& b = model[block];
            parts[which].m_columns[bin].add(b);
            if (perView && b.meets(query.m_axis, window, lo, hi))
                parts[which].m_ranges[bin]->add(b.addr(), b.endAddr(), 0);  // as the hulls: uncounted
        });
    }
    std::vector<ViewContents> views(count);
    for (size_t bin = 0; bin < count; ++bin) {
        if (!everyAddress) {
            parts[0].m_columns[bin].merge(parts[1].m_columns[bin]);
            views[bin].m_occupancy = parts[0].m_columns[bin].finish();
        }
        if (perView) {
            parts[0].m_ranges[bin]->add(*parts[1].m_ranges[bin]);
            views[bin].m_ranges = finished(*parts[0].m_ranges[bin], query.m_maxRanges[bin], query);
        }
    }
    if (query.m_ranges == ViewsQuery::Ranges::Shared)
        views.front().m_ranges = indexRanges(index, query.m_maxRanges.front(), query);
    if (everyAddress) {
        // Two threads, each taking the next bin: bins differ in size.
        std::atomic<size_t> next{0};
        auto occupancyOfNext = [&] {
            for (size_t bin; (bin = next.fetch_add(1)) < count;)
                views[bin].m_occupancy = index.occupancy(query.occupancyOf(bin), binned.groups(), bin);
        };
        std::jthread second = startOnOtherCore(occupancyOfNext);
        occupancyOfNext();
    }
    return views;
}

AddressRanges wholeRanges(const BlockModel& model, size_t maxRanges) {
    AddressRanges::Builder builder;
    if (const std::vector<AddressRange>* spans = model.wholeSpans())
        for (const AddressRange& span : *spans) builder.add(span.m_lo, span.m_hi, span.m_blocks);
    else
        model.forEach([&](const Block& b) { builder.add(b.addr(), b.endAddr()); });
    return builder.finish(AddressRanges::kKeepGapsBelow, maxRanges);
}

std::vector<AddressRange> wholeSpans(const BlockModel& model) {
    AddressRanges::Builder builder;
    model.forEach([&](const Block& b) { builder.add(b.addr(), b.endAddr()); });
    return builder.finish(0).ranges();  // no gap closed: the union itself
}

}  // namespace memlog::timeline
