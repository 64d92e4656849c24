// The shape guessed from samples (timeline/accesses/array_shape): walks of non-square matrices by
// rows, by columns and by tiles, sampled as a tick sampler would (every so many accesses, give or
// take a little), with the row length known.
#include <catch2/catch.hpp>

#include <random>

#include "timeline/accesses/array_shape.hpp"

using namespace memlog::timeline;

namespace {

enum class Walk { Rows, Columns, Tiles };

// The element a walk of a rows x columns matrix (stored row by row) touches at its t-th access,
// pass after pass. Tiles: 32 x 32, tile after tile along the rows of tiles, each row by row.
uint64_t elementAt(Walk walk, uint64_t rows, uint64_t columns, uint64_t t) {
    t %= rows * columns;
    switch (walk) {
        case Walk::Rows:
            return t;
        case Walk::Columns:
            return (t % rows) * columns + t / rows;
        case Walk::Tiles: {
            const uint64_t tile = t / 1024, inside = t % 1024, tilesAcross = columns / 32;
            return ((tile / tilesAcross) * 32 + inside / 32) * columns + (tile % tilesAcross) * 32 + inside % 32;
        }
    }
    return 0;
}

constexpr uint64_t kWalker = 0x401000;

// `samples` samples of one instruction walking a matrix of doubles, one every `pace` accesses
// with up to 2 % either way (a tick is so much CPU time; the accesses in it vary), and one tick
// in 20 passed over (its sample was another instruction's, or dropped); `dwell`: the
// instruction reads each element that many times before the next (an operand of an inner loop).
SampledArray sampledWalk(Walk walk, uint64_t rows, uint64_t columns, uint64_t pace, size_t samples, uint64_t seed = 42,
                         uint64_t dwell = 1) {
    std::mt19937_64 random(seed);
    std::uniform_int_distribution<int64_t> jitter(-static_cast<int64_t>(pace / 50), static_cast<int64_t>(pace / 50));
    SampledArray array;
    array.m_size = rows * columns * 8;
    array.m_sourceElementSize = 8;
    array.m_sourceType = "double";
    std::bernoulli_distribution passedOver(0.05);
    uint64_t t = pace / 3;
    for (size_t i = 0; i < samples; ++i, t += (passedOver(random) ? 2 : 1) * pace + jitter(random)) {
        const uint64_t seq = i + 1;
        array.m_samples.push_back({seq, seq * 100'000, elementAt(walk, rows, columns, t / dwell) * 8, kWalker, 8, 1,
                                   memlog::format::AccessKind::Read});
    }
    return array;
}

// 384 x 640 doubles walked down its columns at 10,000 ticks a second: about 51,000 accesses a
// tick, 4,289 samples (scenarios/matrix_walk columns, measured).
constexpr uint64_t kTickPace = 51'437;

}  // namespace

TEST_CASE("a column walk of 384 x 640 sampled at 10,000 ticks a second: rows of 640, whatever the pace") {
    for (const uint64_t pace : {kTickPace, uint64_t{5'003}, uint64_t{517}, uint64_t{160'001}}) {
        INFO("accesses between samples: " << pace);
        const ShapeGuess guess = inferShape(sampledWalk(Walk::Columns, 384, 640, pace, 4289));
        CHECK(guess.m_shape.m_columns == 640);
        CHECK(guess.m_shape.m_rows == 384);
        REQUIRE_FALSE(guess.m_candidates.empty());
        CHECK(guess.m_candidates.front().m_columns == 640);
        CHECK(guess.m_rowConfidence == guess.m_candidates.front().m_support);
        CHECK(guess.m_rowConfidence > 0.9);
        // Rows of 320, 160, ... fit the walk as well: never listed beside the row they divide.
        for (const RowCandidate& candidate : guess.m_candidates)
            CHECK((candidate.m_columns == 640 || 640 % candidate.m_columns != 0));
        CHECK(guess.m_how.find("rows of 640 elements") != std::string::npos);
    }
}

TEST_CASE("the same walk of the transposed matrix, 640 x 384: rows of 384, not 640") {
    const ShapeGuess guess = inferShape(sampledWalk(Walk::Columns, 640, 384, kTickPace, 4289));
    CHECK(guess.m_shape.m_columns == 384);
    CHECK(guess.m_shape.m_rows == 640);
}

TEST_CASE("a column walk with few samples, or with another instruction sweeping rows beside it, still tells") {
    CHECK(inferShape(sampledWalk(Walk::Columns, 384, 640, kTickPace, 200)).m_shape.m_columns == 640);
    SampledArray both = sampledWalk(Walk::Columns, 384, 640, kTickPace, 2000);
    const SampledArray rows = sampledWalk(Walk::Rows, 384, 640, 61'027, 2000, 7);
    for (size_t i = 0; i < rows.m_samples.size(); ++i) {
        ArraySample sample = rows.m_samples[i];
        sample.m_ip = kWalker + 0x40;
        both.m_samples.insert(both.m_samples.begin() + static_cast<std::ptrdiff_t>(2 * i + 1), sample);
    }
    CHECK(inferShape(both).m_shape.m_columns == 640);
}

TEST_CASE("the column order multiply's b, 512 x 512: rows of 512, not a multiple the steady pace favours") {
    // b[k][j] is read 512 times (the inner loop over i) before k moves on, so between two samples
    // k advances by about the same count: modulo 8 rows the steps agree a little too.
    const ShapeGuess guess = inferShape(sampledWalk(Walk::Columns, 512, 512, kTickPace, 400, 3, 512));
    CHECK(guess.m_shape.m_columns == 512);
    REQUIRE(guess.m_candidates.size() == 1);
    CHECK(guess.m_candidates.front().m_support > 0.9);
}

TEST_CASE("too few steps tell nothing, however well they agree") {
    CHECK(inferShape(sampledWalk(Walk::Columns, 384, 640, kTickPace, 64)).m_candidates.empty());
}

TEST_CASE("a walk by 32 x 32 tiles of 384 x 640: rows of 640") {
    for (const uint64_t pace : {kTickPace, uint64_t{5'003}}) {
        INFO("accesses between samples: " << pace);
        const ShapeGuess guess = inferShape(sampledWalk(Walk::Tiles, 384, 640, pace, 4289));
        CHECK(guess.m_shape.m_columns == 640);
        CHECK(guess.m_shape.m_rows == 384);
    }
}

TEST_CASE("a walk along the rows tells no row length: its steps all cross about the same rows") {
    // Its steps agree modulo any length much longer than their jitter (the pace is steady); the
    // most common step is no row length.
    for (const uint64_t pace : {kTickPace, uint64_t{5'003}, uint64_t{517}, uint64_t{160'001}}) {
        INFO("accesses between samples: " << pace);
        const ShapeGuess guess = inferShape(sampledWalk(Walk::Rows, 384, 640, pace, 4289));
        CHECK(guess.m_candidates.empty());
        CHECK(guess.m_shape.m_columns == 0);  // 245,760 elements: not a square, so not assumed either
        CHECK(guess.m_rowConfidence == 0);
        CHECK(guess.m_how.find("no row length could be told") != std::string::npos);
    }
}

TEST_CASE("a column walk sampled at a steady step of whole rows is a row walk's twin: not told") {
    // Every step 7 rows of 60: the same steps as a walk along rows moving 420 elements a sample.
    SampledArray array;
    array.m_size = 100 * 60 * 8;
    for (uint64_t i = 0; i < 90; ++i)
        array.m_samples.push_back(
            {i + 1, (i + 1) * 1000, ((i * 7) % 100 * 60 + 7) * 8, kWalker, 8, 1, memlog::format::AccessKind::Read});
    CHECK(inferShape(array).m_shape.m_columns == 0);
}

namespace {

SampledArray arrayWith(uint64_t size, std::initializer_list<uint64_t> offsets) {
    SampledArray array;
    array.m_size = size;
    uint64_t seq = 1;
    for (const uint64_t offset : offsets)
        array.m_samples.push_back({seq, seq * 1000, offset, 1, 8, 1, memlog::format::AccessKind::Read}), ++seq;
    return array;
}

}  // namespace

TEST_CASE("no column walks: a square is assumed and said to be, anything else is left unknown") {
    const ShapeGuess assumed = inferShape(arrayWith(64 * 64 * 8, {0, 8, 16}));
    CHECK(assumed.m_shape.m_columns == 64);
    CHECK(assumed.m_rowConfidence == 0);
    CHECK(assumed.m_candidates.empty());
    CHECK(assumed.m_how.find("assumed") != std::string::npos);
    CHECK(inferShape(arrayWith(8 * 1000, {0, 8})).m_shape.m_columns == 0);
    // The sizeof on the allocating line wins over the accesses' sizes.
    SampledArray typed = arrayWith(4 * 100, {0});
    typed.m_sourceElementSize = 4;
    typed.m_sourceType = "int";
    CHECK(inferShape(typed).m_shape.m_elementSize == 4);
}

// A damaged size field: the divisors of the element count were searched one by one, 1.5 billion
// of them for 2^61 elements (and for 2^64 one-byte elements d * d overflows first: no end).
TEST_CASE("a block larger than the address space gets no shape, at once") {
    for (const uint64_t size : {UINT64_MAX, uint64_t{1} << 47}) {
        const ShapeGuess guess = inferShape(arrayWith(size, {0, 8}));
        CHECK(guess.m_shape.m_columns == 0);
        CHECK(guess.m_how == "no shape: the block's size is larger than a process's address space");
    }
    CHECK(inferShape(arrayWith((uint64_t{1} << 47) - 8, {0})).m_shape.m_elementSize == 8);
}
