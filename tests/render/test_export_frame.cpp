// Exports are drawn by the tile renderer from the blocks one walk sorted into tiles
// (FlatBlocks, drawExport): each block is filed under exactly the tiles it meets, and the
// picture is the reference walk's (block_view's drawBlocks) to the bit.
#include <catch2/catch.hpp>

#include "frame_views.hpp"
#include "render/frame/export_frame.hpp"
#include "render/frame/tile_renderer.hpp"
#include "render/raster/flat_blocks.hpp"

using namespace memlog;
using render::ColourBy;
using render::FlatBlocks;
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
    const auto plans = render::drawExport(model, colouring, {render::ViewRequest{spec, target, false, false, false, {}}});
    REQUIRE(plans.size() == 1);
    CHECK(plans.front().m_foldPixels == 0);
    CHECK_FALSE(plans.front().m_draft);
    return {reference, exported};
}

}  // namespace

TEST_CASE("an export files each block under exactly the tiles its rectangle meets") {
    const timeline::BlockModel model = test::randomHeap(4000, 150);
    render::FrameContext frame(model, nullptr);
    frame.prepare(XAxis::Time, ColourBy::Size);
    const test::FrameView view(frame, XAxis::Time, model.extent(XAxis::Time), 0, UINT64_MAX, 700, 450);
    const std::vector<Tile> tiles = render::tilesOf(700, 450, false, 64 << 10);  // small tiles: many edges
    REQUIRE(tiles.size() > 20);
    const FlatBlocks flat(model, view.m_spec, 700, tiles);
    const render::XScale scale(view.m_spec.m_window, 700);
    size_t filed = 0, straddling = 0;
    for (size_t b = 0; b < model.size(); ++b) {
        render::PixelRect rect;
        const bool shown = render::blockRect(model[b], view.m_spec, scale, rect);
        size_t meets = 0;
        for (const Tile& tile : tiles) {
            const bool inside = shown && rect.m_x1 > tile.m_left && rect.m_x0 < tile.m_left + tile.m_columns &&
                                rect.m_y1 > tile.m_top && rect.m_y0 < tile.m_top + tile.m_rows;
            const auto listed = flat.blocksOf(tile.m_id);
            const bool filedHere = std::binary_search(listed.begin(), listed.end(), static_cast<uint32_t>(b));
            INFO("block " << b << " tile " << tile.m_id);
            CHECK(filedHere == inside);
            meets += inside;
        }
        filed += meets > 0;
        straddling += meets > 1;
    }
    CHECK(filed > model.size() / 2);
    CHECK(straddling > 10);  // the edges between tiles were exercised
}

TEST_CASE("an export's picture is the reference walk's, for quantities, categories, bins, cushions and a zoomed window") {
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
        const timeline::XWindow tenth{extent.m_from + extent.width() / 2, extent.m_from + extent.width() / 2 + extent.width() / 10};
        const test::FrameView zoomed(frame, XAxis::Time, tenth, 0, UINT64_MAX, 900, 560);
        const auto [reference, exported] = referenceAndExport(model, zoomed.m_spec, sized, 900);
        CHECK(exported.m_pixels == reference.m_pixels);
    }
}
