// The window's view arithmetic: zoom about the pointer, pan, box zoom, and the limits.
#include <catch2/catch.hpp>

#include "render/window/viewport.hpp"

using Catch::Detail::Approx;
using memlog::render::Viewport;
using memlog::timeline::AddressRanges;

namespace {

// A heap of 1 MiB at 0x10000000 and a 64 KiB mapping far above it, in a 1000-row view.
Viewport heapView() {
    return Viewport({100, 1100}, AddressRanges({{0x10000000, 0x10100000}, {0x7f0000000000, 0x7f0000010000}}), 1000);
}

}  // namespace

TEST_CASE("a new view shows the whole log, and reset returns to it") {
    Viewport view = heapView();
    CHECK(view.x().m_from == 100);
    CHECK(view.x().m_to == 1100);
    const auto shown = view.addressScale().shownAddresses();
    REQUIRE(shown);
    CHECK(shown->first == 0x10000000);
    CHECK(shown->second == 0x7f000000ffff);
    view.zoomX(4, 0.5);
    view.zoomAddress(8, 300);
    view.reset();
    CHECK(view.x().width() == 1000);
    CHECK(view.addressZoom() == 1);
    CHECK(view.addressScale().shownAddresses() == shown);
}

TEST_CASE("zoom keeps what is under the pointer where it was") {
    Viewport view = heapView();
    view.zoomX(2, 0.25);  // the point at 350 stays a quarter of the way across
    CHECK(view.x().width() == Approx(500));
    CHECK(view.x().m_from + view.x().width() * 0.25 == Approx(350));
    const uint64_t under = *view.addressScale().addressAt(700);
    view.zoomAddress(8, 700);
    CHECK(view.addressZoom() == 8);
    // The address under row 700 moved by less than a row's worth of bytes.
    const double bytesPerRow = 0x100000 / (8 * 1000.0);
    CHECK(std::abs(static_cast<double>(*view.addressScale().addressAt(700)) - static_cast<double>(under)) <
          2 * bytesPerRow);
    // Out again past the whole: clamped to the log.
    view.zoomX(0.01, 0.5);
    CHECK(view.x().m_from == 100);
    CHECK(view.x().m_to == 1100);
    view.zoomAddress(0.001, 500);
    CHECK(view.addressZoom() == 1);
}

TEST_CASE("deep zoom stops at one x unit and at 16 bytes down the view") {
    Viewport view = heapView();
    for (int i = 0; i < 200; ++i) {
        view.zoomX(2, 0.3);
        view.zoomAddress(2, 900);
    }
    CHECK(view.x().width() == Approx(Viewport::kMinXSpan));
    const auto shown = view.addressScale().shownAddresses();
    REQUIRE(shown);
    const uint64_t bytes = shown->second - shown->first + 1;
    CHECK(bytes >= Viewport::kMinAddressBytes);
    CHECK(bytes < 2 * Viewport::kMinAddressBytes);  // as deep as the limit allows
    CHECK(shown->first >= 0x10000000);
    CHECK(shown->second < 0x10100000);
}

TEST_CASE("pan moves by fractions of the width and by rows, and stops at the log's edges") {
    Viewport view = heapView();
    view.zoomX(4, 0);  // [100, 350)
    view.panX(0.5);
    CHECK(view.x().m_from == Approx(225));
    view.panX(100);
    CHECK(view.x().m_to == Approx(1100));
    CHECK(view.x().width() == Approx(250));
    view.zoomAddress(4, 0);
    const auto before = *view.addressScale().shownAddresses();
    view.panAddress(-1e9);  // up, past the top: the highest address stays on the first row
    const auto top = *view.addressScale().shownAddresses();
    CHECK(top.second == 0x7f000000ffff);
    view.panAddress(1e9);
    CHECK(view.addressScale().shownAddresses()->first == 0x10000000);
    CHECK(before.first != top.first);
}

TEST_CASE("a dragged box becomes the view, whichever corner the drag began at") {
    Viewport view = heapView();
    // The heap's band fills most of the view; take rows 600..800 of it.
    const uint64_t high = *view.addressScale().addressAt(600), low = *view.addressScale().addressAt(800);
    view.zoomToBox(0.6, 800, 0.2, 600);
    CHECK(view.x().m_from == Approx(300));
    CHECK(view.x().m_to == Approx(700));
    const auto shown = *view.addressScale().shownAddresses();
    const double wanted = static_cast<double>(high - low);
    CHECK(static_cast<double>(shown.second - shown.first) == Approx(wanted).epsilon(0.05));
    CHECK(shown.first <= (low + high) / 2);
    CHECK(shown.second >= (low + high) / 2);
}

TEST_CASE("showX shows a stretch of x, clamped to the log and one unit wide at least") {
    Viewport view = heapView();
    view.showX(300, 400);
    CHECK(view.x().m_from == 300);
    CHECK(view.x().m_to == 400);
    view.showX(1050, 1200);  // past the end: the same width, ending with the log
    CHECK(view.x().m_from == 950);
    CHECK(view.x().m_to == 1100);
    view.showX(500, 500);
    CHECK(view.x().width() == Approx(Viewport::kMinXSpan));
}

TEST_CASE("a taller view keeps its place and its zoom") {
    Viewport view = heapView();
    view.zoomAddress(10, 500);
    const uint64_t middle = *view.addressScale().addressAt(500);
    view.setViewHeight(2000);
    CHECK(view.addressScale().height() == 2000);
    CHECK(view.addressZoom() == 10);
    const double bytesPerRow = 0x100000 / (10 * 2000.0);
    CHECK(std::abs(static_cast<double>(*view.addressScale().addressAt(1000)) - static_cast<double>(middle)) <
          16 * bytesPerRow);
}
