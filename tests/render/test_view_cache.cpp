// The view cache keeps the blocks' pictures of the last two frames by their plans' keys: a key
// served by an equal one, or by one of another cushion style when no block showed a cushion,
// or (the context view while the alpha slider moves) by any alpha.
#include <catch2/catch.hpp>

#include "render/frame/view_cache.hpp"

using namespace memlog;
using render::PlanKey;
using render::ViewCache;

namespace {

PlanKey keyOf(double alpha, render::CushionStyle cushion = render::CushionStyle::Plateau) {
    PlanKey key;
    key.m_alpha = alpha;
    key.m_cushion = cushion;
    key.m_width = 4;
    key.m_height = 2;
    return key;
}

}  // namespace

TEST_CASE("the view cache serves equal keys for two frames, and the pixels it kept") {
    ViewCache cache;
    std::vector<uint32_t> pixels{1, 2, 3, 4, 5, 6, 7, 8};
    cache.keepRecent(keyOf(0.3), true, false, {pixels.data(), 4, 2, 4});
    pixels.assign(8, 0);
    REQUIRE(cache.recent(keyOf(0.3)));
    CHECK(cache.recent(keyOf(0.3))->m_pixels == std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 7, 8});
    CHECK_FALSE(cache.hasRecent(keyOf(0.4)));
    CHECK_FALSE(cache.hasRecent(keyOf(0.3, render::CushionStyle::None)));  // it showed cushions
    cache.newFrame();
    CHECK(cache.hasRecent(keyOf(0.3)));  // used in the frame before
    cache.newFrame();
    cache.newFrame();
    CHECK_FALSE(cache.hasRecent(keyOf(0.3)));  // unused for two frames: gone
}

TEST_CASE("a picture without cushions serves every cushion style, and a lagging look any alpha") {
    ViewCache cache;
    std::vector<uint32_t> pixels(8, 9);
    cache.keepRecent(keyOf(0.3), false, false, {pixels.data(), 4, 2, 4});
    CHECK(cache.hasRecent(keyOf(0.3, render::CushionStyle::None)));
    CHECK_FALSE(cache.hasRecent(keyOf(0.5)));
    ViewCache::Picture& whole = cache.whole(true);
    CHECK_FALSE(whole.serves(keyOf(0.3)));  // nothing drawn yet
    whole = {keyOf(0.3), true, false, 0, pixels};
    CHECK(whole.serves(keyOf(0.3)));
    CHECK_FALSE(whole.serves(keyOf(0.5)));
    CHECK(whole.serves(keyOf(0.5), true));
    CHECK_FALSE(cache.whole(false).serves(keyOf(0.3)));  // exact frames keep their own
}
