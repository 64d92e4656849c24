// Exports are drawn by the tile renderer in bands of rows, each from a walk over the blocks
// (drawExport): the bands cover the view within the memory budget, and the picture is the
// reference walk's (block_view's drawBlocks) to the bit.
#include <catch2/catch.hpp>

#include "frame_views.hpp"
#include "render/frame/export_frame.hpp"
#include "render/frame/tile_renderer.hpp"
#include "render/raster/tiles.hpp"

using namespace memlog;
using render::ColourBy;
using render::Tile;
using timeline::XAxis;

namespace {

// The reference walk's picture and the export's of one view of `model`.
std::pair<test::Image, test::Image> referenceAndExport(const timeline::BlockModel& model, const render::ViewSpec& spec,
                                                       const render::BlockColouring& colouring, int width) {
    const test::Image reference = test::viewImage(model, spec, colouring, width);
    test::Image exported = reference;
    std::fill(exported.m_pixels.begin(), exported.m_pixels.end(), 0);
    const render::PixelBuffer target{exported.m_pixels.data(), exported.m_width, exported.m_height, exported.m_width};
    const auto plans =
        render::drawExport(model, colouring, {render::ViewRequest{spec, target, false, false, false, {}}});
    REQUIRE(plans.size() == 1);
    CHECK(plans.front().m_foldPixels == 0);
    CHECK_FALSE(plans.front().m_draft);
    return {reference, exported};
}

}  // namespace

TEST_CASE("an export's bands cover every row once, and hold the arrays under 4 bytes a block (4 MiB at least)") {
    for (const size_t blocks : {size_t{1000}, size_t{2'000'000}, size_t{50'000'000}})
        for (const bool categorical : {false, true}) {
            const std::vector<Tile> bands = render::bandsOf(1920, 1080, categorical, blocks);
            int next = 0;
            for (const Tile& band : bands) {
                CHECK(band.m_left == 0);
                CHECK(band.m_columns == 1920);
                CHECK(band.m_top == next);
                next += band.m_rows;
                const size_t bytes = static_cast<size_t>(band.m_rows) * 1921 * (categorical ? 5 : 3) * 8;
                CHECK(bytes <= std::max<size_t>(size_t{4} << 20, blocks * 4));
            }
            CHECK(next == 1080);
            if (blocks == 1000) CHECK(bands.size() > 10);  // a small log: small arrays, more walks
            if (blocks == 50'000'000) CHECK(bands.size() == 1);  // a big one: one walk
        }
}

TEST_CASE(
    "an export's picture is the reference walk's, for quantities, categories, bins, cushions and a zoomed window") {
    const timeline::BlockModel model = test::randomHeap(20'000, 300);
    render::FrameContext frame(model, nullptr);
    frame.prepare(XAxis::Time, ColourBy::Size);
    const timeline::XWindow extent = model.extent(XAxis::Time);
    const test::FrameView whole(frame, XAxis::Time, extent, 0, UINT64_MAX, 900, 560);
    const auto sized = render::BlockColouring::make(ColourBy::Size, model, XAxis::Time, extent, nullptr);
    const auto threads = render::BlockColouring::make(ColourBy::Thread, model, XAxis::Time, extent, nullptr);
    SECTION("sizes") {
        const auto [reference, exported] = referenceAndExport(model, whole.m_spec, sized, 900);
        CHECK(exported.m_pixels == reference.m_pixels);
    }
    SECTION("threads, flat cushions") {
        render::ViewSpec spec = whole.m_spec;
        spec.m_cushion = render::CushionStyle::None;
        const auto [reference, exported] = referenceAndExport(model, spec, threads, 900);
        CHECK(exported.m_pixels == reference.m_pixels);
    }
    SECTION("one bin of sizes") {
        const timeline::Bins bins = timeline::Bins::make(timeline::BinKind::Size, model, XAxis::Time, nullptr);
        REQUIRE(bins.count() > 1);
        render::ViewSpec spec = whole.m_spec;
        spec.m_bins = &bins;
        spec.m_bin = 1;
        const auto [reference, exported] = referenceAndExport(model, spec, sized, 900);
        CHECK(exported.m_pixels == reference.m_pixels);
        CHECK(std::count(exported.m_pixels.begin(), exported.m_pixels.end(), test::kBackground) > 0);
    }
    SECTION("a tenth of the time, big blocks cushioned") {
        const timeline::XWindow tenth{extent.m_from + extent.width() / 2,
                                      extent.m_from + extent.width() / 2 + extent.width() / 10};
        const test::FrameView zoomed(frame, XAxis::Time, tenth, 0, UINT64_MAX, 900, 560);
        const auto [reference, exported] = referenceAndExport(model, zoomed.m_spec, sized, 900);
        CHECK(exported.m_pixels == reference.m_pixels);
    }
}
