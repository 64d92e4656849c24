// What a picture's views hold, asked three ways (walks; the index; the index with its bins): the
// same address ranges and occupancy, with and without bins, over every address or a window of
// them, ranges per view or shared; and the bins laid over the index agree with the bins.
#include <catch2/catch.hpp>

#include <algorithm>

#include "random_heap.hpp"
#include "timeline/model/binned_index.hpp"
#include "timeline/model/view_contents.hpp"

using namespace memlog;
using timeline::AddressRanges;
using timeline::BinKind;
using timeline::ViewContents;
using timeline::ViewsQuery;
using timeline::XAxis;

namespace {

void checkSame(const std::vector<ViewContents>& walked, const std::vector<ViewContents>& indexed) {
    REQUIRE(walked.size() == indexed.size());
    for (size_t view = 0; view < walked.size(); ++view) {
        INFO("view " << view);
        const auto& a = walked[view].m_ranges.ranges();
        const auto& b = indexed[view].m_ranges.ranges();
        REQUIRE(a.size() == b.size());
        for (size_t i = 0; i < a.size(); ++i) {
            CHECK(a[i].m_lo == b[i].m_lo);
            CHECK(a[i].m_hi == b[i].m_hi);
        }
        REQUIRE(walked[view].m_occupancy.size() == indexed[view].m_occupancy.size());
        // The walk sums in fixed point, the index from sorted ends: equal but for rounding
        // (tests/timeline/test_model_index.cpp).
        double fullest = 1;
        for (const auto& column : walked[view].m_occupancy) fullest = std::max(fullest, column.m_liveBytes);
        for (size_t column = 0; column < walked[view].m_occupancy.size(); ++column) {
            const auto& x = walked[view].m_occupancy[column];
            const auto& y = indexed[view].m_occupancy[column];
            CHECK(x.m_events == y.m_events);
            CHECK(y.m_liveBytes == Approx(x.m_liveBytes).margin(fullest * 1e-6));
        }
    }
}

ViewsQuery queryOf(const timeline::BlockModel& model, XAxis axis, size_t views, ViewsQuery::Ranges ranges) {
    ViewsQuery query;
    query.m_axis = axis;
    const timeline::XWindow whole = model.extent(axis);
    query.m_window = {whole.m_from + whole.width() / 5, whole.m_to - whole.width() / 4};
    query.m_ranges = ranges;
    for (size_t view = 0; view < views; ++view) {
        query.m_columns.push_back(300 + 7 * view);
        query.m_maxRanges.push_back(view % 2 ? 2 : 0);  // a limit that merges ranges, and none
    }
    return query;
}

}  // namespace

TEST_CASE("a view of every block holds the same ranges and occupancy by a walk as through the index") {
    const timeline::BlockModel model = test::randomHeap({.m_seed = 11, .m_events = 6000});
    for (const XAxis axis : {XAxis::Time, XAxis::Events}) {
        const timeline::ModelIndex index(model, axis);
        for (const auto ranges : {ViewsQuery::Ranges::None, ViewsQuery::Ranges::PerView}) {
            ViewsQuery query = queryOf(model, axis, 1, ranges);
            checkSame(timeline::viewContents(model, query), timeline::viewContents(index, query));
            query.m_addrLo = test::RandomHeap{}.m_base + 0x800;  // an address window: blocks cut
            query.m_addrHi = test::RandomHeap{}.m_base + (uint64_t{1} << 20) + 0x8000;
            const auto walked = timeline::viewContents(model, query);
            checkSame(walked, timeline::viewContents(index, query));
            if (ranges == ViewsQuery::Ranges::None) CHECK(walked.front().m_ranges.empty());
            for (const auto& range : walked.front().m_ranges.ranges()) {
                CHECK(range.m_lo >= query.m_addrLo);
                CHECK(range.m_hi <= query.m_addrHi);
            }
        }
    }
}

TEST_CASE("views of bins hold the same by walks as through the bins laid over the index") {
    const timeline::BlockModel model = test::randomHeap({.m_seed = 5, .m_events = 8000, .m_regions = 4});
    for (const BinKind kind : {BinKind::Size, BinKind::Thread, BinKind::Region}) {
        const timeline::ModelIndex index(model, XAxis::Time);
        const timeline::BinnedIndex binned(index, kind, nullptr);
        const timeline::Bins& bins = binned.bins();
        REQUIRE(bins.count() > 1);
        // Each position's bin is its block's, and each bin lists its own positions, in order.
        const auto& order = index.index().order();
        for (size_t k = 0; k < order.size(); ++k) REQUIRE(binned.binOfPosition()[k] == bins.binOf(model[order[k]]));
        size_t listed = 0;
        for (size_t bin = 0; bin < bins.count(); ++bin) {
            const auto positions = binned.membership().positionsOf(bin);
            CHECK(std::is_sorted(positions.begin(), positions.end()));
            for (const uint32_t position : positions) REQUIRE(binned.binOfPosition()[position] == bin);
            listed += positions.size();
        }
        CHECK(listed == order.size());
        for (const auto ranges : {ViewsQuery::Ranges::Shared, ViewsQuery::Ranges::PerView}) {
            INFO("kind " << static_cast<int>(kind) << ", ranges " << static_cast<int>(ranges));
            ViewsQuery query = queryOf(model, XAxis::Time, bins.count(), ranges);
            query.m_bins = &bins;
            const auto everyAddress = timeline::viewContents(model, query);
            checkSame(everyAddress, timeline::viewContents(binned, query));
            if (ranges == ViewsQuery::Ranges::Shared) {
                CHECK_FALSE(everyAddress.front().m_ranges.empty());
                for (size_t view = 1; view < everyAddress.size(); ++view) CHECK(everyAddress[view].m_ranges.empty());
            }
            query.m_addrLo = test::RandomHeap{}.m_base + 0x1000;  // the pass over the blocks near the window
            query.m_addrHi = test::RandomHeap{}.m_base + 2 * (uint64_t{1} << 20) + 0x4000;
            checkSame(timeline::viewContents(model, query), timeline::viewContents(binned, query));
        }
    }
}

TEST_CASE("the whole log's ranges are every block's, as many as asked for") {
    const timeline::BlockModel model = test::randomHeap({.m_seed = 3, .m_events = 3000, .m_regions = 5});
    const AddressRanges all = timeline::wholeRanges(model);
    CHECK(all.ranges().size() == 5);  // regions 1 MiB apart, slots dense inside each
    model.forEach([&](const timeline::Block& block) {
        if (block.size()) REQUIRE(all.rangeOf(block.addr()));
    });
    CHECK(timeline::wholeRanges(model, 2).ranges().size() == 2);
}
