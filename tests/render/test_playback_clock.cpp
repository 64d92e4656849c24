// The window's playback: the clock plays, pauses, steps and changes speed over the samples'
// span; the samples lit at its time are those of the last fade, strongest the newest.
#include <catch2/catch.hpp>

#include "render/window/playback_clock.hpp"

using Catch::Detail::Approx;
using memlog::render::LitSample;
using memlog::render::PlaybackClock;
using memlog::render::SampleTimes;

TEST_CASE("the clock starts paused at the start and plays the span in kWholeRunSeconds at speed 1") {
    PlaybackClock clock(1000, 21000);  // 20 us
    CHECK(clock.now() == 1000);
    CHECK_FALSE(clock.playing());
    clock.advance(1);  // paused: time stands
    CHECK(clock.now() == 1000);
    clock.togglePlaying();
    CHECK(clock.playing());
    clock.advance(PlaybackClock::kWholeRunSeconds / 4);
    CHECK(clock.now() == 6000);
    CHECK(clock.fraction() == Approx(0.25));
    clock.faster();
    CHECK(clock.speed() == 2);
    clock.advance(PlaybackClock::kWholeRunSeconds / 8);  // a quarter more, twice as fast
    CHECK(clock.now() == 11000);
    clock.slower();
    clock.slower();
    CHECK(clock.speed() == 0.5);
    clock.advance(PlaybackClock::kWholeRunSeconds);  // half the span, then the end: it stops
    CHECK(clock.now() == 21000);
    CHECK(clock.atEnd());
    CHECK_FALSE(clock.playing());
    clock.togglePlaying();  // at the end, play starts again
    CHECK(clock.playing());
    CHECK(clock.now() == 1000);
}

TEST_CASE("steps move a kSteps-th of the span, pause, and stop at the ends, and speed has limits") {
    PlaybackClock clock(0, 200000);
    CHECK(clock.stepNs() == 1000);
    CHECK(clock.fadeNs() == 1000 * PlaybackClock::kFadeSteps);
    clock.togglePlaying();
    clock.step(3);
    CHECK_FALSE(clock.playing());
    CHECK(clock.now() == 3000);
    clock.step(-1);
    CHECK(clock.now() == 2000);
    clock.step(-10);
    CHECK(clock.now() == 0);
    clock.step(1000);
    CHECK(clock.now() == 200000);
    for (int i = 0; i < 20; ++i) clock.faster();
    CHECK(clock.speed() == PlaybackClock::kFastest);
    for (int i = 0; i < 40; ++i) clock.slower();
    CHECK(clock.speed() == PlaybackClock::kSlowest);
    clock.restart();
    CHECK(clock.now() == 0);
}

TEST_CASE("a slow clock over a short span still moves, frame by frame") {
    PlaybackClock clock(0, 1000);
    for (int i = 0; i < 4; ++i) clock.slower();  // 1/16
    clock.togglePlaying();
    uint64_t last = clock.now();
    int moved = 0;
    for (int frame = 0; frame < 200; ++frame) {
        clock.advance(0.016);
        moved += clock.now() > last;
        last = clock.now();
    }
    CHECK(moved > 0);
    CHECK(clock.now() == 10);  // 200 x 16 ms x 1000 ns / 20 s / 16
}

TEST_CASE("the lit samples are those of the last fade, in time order, fading with their age") {
    // Given out of order: indexes refer to this order.
    const SampleTimes times({500, 100, 300, 300, 900});
    CHECK(times.size() == 5);
    CHECK(times.playedBy(99) == 0);
    CHECK(times.playedBy(300) == 3);
    CHECK(times.playedBy(10000) == 5);
    // At 500 with a fade of 400: times in (100, 500]: 300, 300, 500; 100 has just gone out.
    const std::vector<LitSample> lit = times.litAt(500, 400);
    REQUIRE(lit.size() == 3);
    CHECK(lit[0].m_index == 2);
    CHECK(lit[1].m_index == 3);
    CHECK(lit[2].m_index == 0);
    CHECK(lit[0].m_strength == Approx(0.5));
    CHECK(lit[2].m_strength == Approx(1.0));
    // Before every sample nothing is lit; a sample is lit at its own time in full.
    CHECK(times.litAt(50, 400).empty());
    const auto atFirst = times.litAt(100, 400);
    REQUIRE(atFirst.size() == 1);
    CHECK(atFirst[0] == LitSample{1, 1.0});
    // Long after the last, nothing.
    CHECK(times.litAt(2000, 400).empty());
    // No fade: only what is exactly at now.
    CHECK(times.litAt(300, 0).size() == 2);
}

TEST_CASE("playing a clock over samples lights each sample once on its way, and the count only grows") {
    std::vector<uint64_t> given;
    for (uint64_t i = 0; i < 1000; ++i) given.push_back((i * 7919) % 100000);  // spread, unordered
    const SampleTimes times(given);
    PlaybackClock clock(0, 100000);
    std::vector<int> seen(given.size(), 0);
    size_t played = 0;
    while (!clock.atEnd()) {
        for (const LitSample& sample : times.litAt(clock.now(), clock.stepNs())) {
            // One step's fade: each sample is lit in exactly one step's frame.
            ++seen[sample.m_index];
            CHECK(sample.m_strength > 0);
            CHECK(sample.m_strength <= 1);
        }
        CHECK(times.playedBy(clock.now()) >= played);
        played = times.playedBy(clock.now());
        clock.step(1);
    }
    for (const LitSample& sample : times.litAt(clock.now(), clock.stepNs())) ++seen[sample.m_index];
    // Every sample exactly once, those at time 0 included (lit in the first frame).
    for (size_t i = 0; i < given.size(); ++i) CHECK(seen[i] == 1);
}
