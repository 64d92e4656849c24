// The window's view arithmetic: zoom about the pointer, pan, box zoom, and the limits.
#include <catch2/catch.hpp>

#include "render/window/viewport.hpp"

using memlog::render::Span;
using memlog::render::Viewport;
using Catch::Detail::Approx;

TEST_CASE("a new view shows the whole log, and reset returns to it") {
    Viewport view(100, 1100, 1 << 20);
    CHECK(view.x().m_from == 100);
    CHECK(view.x().m_to == 1100);
    CHECK(view.address().m_from == 0);
    CHECK(view.address().m_to == 1 << 20);
    view.zoomX(4, 0.5);
    view.panAddress(0.3);
    view.reset();
    CHECK(view.x().width() == 1000);
    CHECK(view.address().width() == 1 << 20);
}

TEST_CASE("zoom keeps the point under the pointer where it was") {
    Viewport view(0, 1000, 4096);
    view.zoomX(2, 0.25);  // the point at 250 stays a quarter of the way across
    CHECK(view.x().width() == Approx(500));
    CHECK(view.x().m_from + view.x().width() * 0.25 == Approx(250));
    view.zoomAddress(8, 0.5);
    CHECK(view.address().width() == Approx(512));
    CHECK(view.address().m_from == Approx(2048 - 256));
    // Out again past the whole: clamped to the log.
    view.zoomX(0.01, 0.5);
    CHECK(view.x().m_from == 0);
    CHECK(view.x().m_to == 1000);
}

TEST_CASE("deep zoom stops at one x unit and 16 bytes, far enough to see single bytes") {
    Viewport view(0, 1e9, 1e12);
    for (int i = 0; i < 200; ++i) {
        view.zoomX(2, 0.3);
        view.zoomAddress(2, 0.7);
    }
    CHECK(view.x().width() == Approx(Viewport::kMinXSpan));
    CHECK(view.address().width() == Approx(Viewport::kMinAddressSpan));
    CHECK(view.x().m_from >= 0);
    CHECK(view.address().m_to <= 1e12);
}

TEST_CASE("pan moves by fractions of the view and stops at the log's edges") {
    Viewport view(0, 1000, 1000);
    view.zoomX(4, 0);  // [0, 250)
    view.panX(0.5);
    CHECK(view.x().m_from == Approx(125));
    view.panX(100);
    CHECK(view.x().m_to == Approx(1000));
    CHECK(view.x().width() == Approx(250));
    view.panX(-100);
    CHECK(view.x().m_from == Approx(0));
}

TEST_CASE("a dragged box becomes the view, whichever corner the drag began at") {
    Viewport view(0, 1000, 2000);
    view.zoomToBox(0.6, 0.75, 0.2, 0.25);
    CHECK(view.x().m_from == Approx(200));
    CHECK(view.x().m_to == Approx(600));
    CHECK(view.address().m_from == Approx(500));
    CHECK(view.address().m_to == Approx(1500));
    view.show(Span{-50, 5000}, Span{10, 12});  // clamped: inside the log, at least 16 bytes
    CHECK(view.x().m_from == 0);
    CHECK(view.x().m_to == 1000);
    CHECK(view.address().width() == Approx(16));
}
