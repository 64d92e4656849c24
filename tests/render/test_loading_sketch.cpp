// The heap as read so far under the loading bar: drawn from the bottom up as far across as the
// log was read, and made by the loader's walk (not when the model is read back from an index).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "../log_builder.hpp"
#include "render/raster/colour_map.hpp"
#include "render_helpers.hpp"
#include "render/window/loaded_log.hpp"
#include "render/window/loading_sketch.hpp"

using namespace memlog;
using timeline::OccupancySketch;
using timeline::XAxis;

namespace {

// Two regions of a page, four columns of 10: the low one full in the first two columns and
// empty after, the high one half full throughout; half the log read.
OccupancySketch::Picture twoRegions(double read) {
    OccupancySketch::Picture picture;
    picture.m_regions = {0x10000, 0x20000};
    picture.m_regionBytes = 4096;
    picture.m_columnWidth = 10;
    picture.m_columns = 4;
    picture.m_lastX = 39;
    picture.m_read = read;
    picture.m_bytes = {4096, 4096, 0, 0, 2048, 2048, 2048, 2048};
    return picture;
}

}  // namespace

TEST_CASE("the loading sketch is drawn from low addresses up, as far across as the log was read") {
    CHECK(render::sketchReach(twoRegions(0.5)) == Approx(0.5));
    CHECK(render::sketchReach(twoRegions(1)) == 1);
    CHECK(render::sketchReach(OccupancySketch::Picture{}) == 0);

    cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 400, 200);
    cairo_t* cr = cairo_create(surface);
    render::fillRect(cr, {0, 0, 400, 200}, render::kPageColour);
    const uint32_t page = test::imageOf(surface).at(300, 100);
    render::drawSketch(cr, {0, 0, 400, 200}, twoRegions(0.5));
    cairo_destroy(cr);
    const test::Image drawn = test::imageOf(surface);
    cairo_surface_destroy(surface);
    const render::Rgb full = render::fromArgb(drawn.at(20, 150)), emptied = render::fromArgb(drawn.at(180, 150)),
                      half = render::fromArgb(drawn.at(20, 50));
    // The low region at the bottom: blue where full, paler where half, no blue where empty.
    CHECK(full.m_b - full.m_r > 0.15);
    CHECK(half.m_b - half.m_r > 0.05);
    CHECK(half.m_b - half.m_r < full.m_b - full.m_r);
    CHECK(emptied.m_b - emptied.m_r < 0.02);
    // The log's second half, not read yet: the page as it was.
    CHECK(drawn.at(300, 100) == page);
}

TEST_CASE("the loader's walk draws the sketch, and a model read back from its index draws none") {
    const std::string folder =
        (std::filesystem::temp_directory_path() / ("memlog-loading-sketch-" + std::to_string(getpid()))).string();
    std::filesystem::create_directories(folder);
    const std::string path = folder + "/app.memlog";
    test::LogBuilder log;
    auto& thread = log.thread(1);
    // 1000 blocks of 64 bytes, every other one freed: 500 live at the end, 32,000 bytes.
    for (uint64_t i = 0; i < 1000; ++i) thread.malloc(2 * i + 1, 0x10000 + 64 * i, 64);
    for (uint64_t i = 0; i < 1000; i += 2) thread.free(2001 + i, 0x10000 + 64 * i);
    log.write(path);
    auto liveAtTheEnd = [](const OccupancySketch::Picture& picture) {
        uint64_t bytes = 0;
        for (size_t row = 0; row < picture.m_regions.size(); ++row) bytes += picture.bytes(row, picture.m_columns - 1);
        return bytes;
    };
    {
        OccupancySketch sketch(XAxis::Events);
        const auto loaded = render::loadLog(path, XAxis::Events, render::ColourBy::Site, {},
                                            render::DraftPolicy::kDraftAbove, timeline::IndexUse::Always, &sketch);
        REQUIRE(loaded->m_model.size() == 1000);
        const auto picture = sketch.picture();
        REQUIRE(picture);  // built with the index
        CHECK(picture->m_read == 1);
        CHECK(liveAtTheEnd(*picture) == 500 * 64);
    }
    {
        OccupancySketch sketch(XAxis::Events);
        const auto loaded = render::loadLog(path, XAxis::Events, render::ColourBy::Site, {},
                                            render::DraftPolicy::kDraftAbove, timeline::IndexUse::Always, &sketch);
        CHECK(loaded->m_model.size() == 1000);
        CHECK(sketch.picture() == nullptr);  // read back: no walk
    }
    // The window's loader hands its walk its own sketch.
    render::LogLoader loader(path, XAxis::Time, render::ColourBy::Site, render::DraftPolicy::kDraftAbove,
                             timeline::IndexUse::Off, {});
    for (int i = 0; i < 2000 && !loader.done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    REQUIRE(loader.done());
    const auto picture = loader.sketch();
    REQUIRE(picture);
    CHECK(liveAtTheEnd(*picture) == 500 * 64);
    REQUIRE(loader.take());
    // A followed log's first read, through the model that reads it on later, draws it too.
    timeline::GrowingModel growing(path, XAxis::Time, true);
    OccupancySketch followed(XAxis::Time);
    const auto loaded = render::loadLog(path, XAxis::Time, render::ColourBy::Site, {}, render::DraftPolicy::kDraftAbove,
                                        timeline::IndexUse::Off, &followed, &growing);
    CHECK(loaded->m_model.size() == 1000);
    CHECK(growing.readsAnew() == 1);
    REQUIRE(followed.picture());
    CHECK(followed.picture()->m_read == 1);
    CHECK(liveAtTheEnd(*followed.picture()) == 500 * 64);
    std::filesystem::remove_all(folder);
}
