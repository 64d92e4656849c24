// The array page's shape from the inference's row lengths: the best by default, the others in
// turn (the window's r), each said on the page with its agreement.
#include <catch2/catch.hpp>

#include "render/report/array_page_shape.hpp"
#include "timeline/accesses/array_shape.hpp"

using namespace memlog::render;
using namespace memlog::timeline;

namespace {

// One instruction reading a rows x columns matrix of doubles down its columns, a sample every
// `pace` accesses give or take 2 % (a tick's accesses vary), so the steps cross varying rows.
void addColumnWalk(SampledArray& array, uint64_t rows, uint64_t columns, uint64_t pace, uint64_t ip, size_t samples) {
    uint64_t walked = pace / 3;
    for (size_t i = 0; i < samples; ++i, walked += pace - pace / 50 + (i * 7919) % (pace / 25)) {
        const uint64_t t = walked % (rows * columns);
        const uint64_t seq = array.m_samples.size() + 1;
        array.m_samples.push_back(
            {seq, seq * 1000, ((t % rows) * columns + t / rows) * 8, ip, 8, 1, memlog::format::AccessKind::Read});
    }
}

}  // namespace

TEST_CASE("an inferred shape takes the best row length by default and the others in turn, round") {
    // The same 384 x 640 block walked as rows of 640 by one instruction (more samples) and as
    // rows of 384 by another: two row lengths, neither a divisor of the other.
    SampledArray array;
    array.m_size = 384 * 640 * 8;
    array.m_sourceElementSize = 8;
    addColumnWalk(array, 384, 640, 51'437, 0x401000, 3000);
    addColumnWalk(array, 640, 384, 49'999, 0x402000, 1500);
    const ShapeGuess guess = inferShape(array);
    REQUIRE(guess.m_candidates.size() >= 2);
    ArrayPageOptions best;
    SettledShape how;
    size_t candidates = 0;
    REQUIRE(settleArrayShape({}, array, best, &how, 0, &candidates).empty());
    CHECK(candidates == guess.m_candidates.size());
    CHECK(how.m_source == ShapeSource::Inferred);
    CHECK(best.m_shape.m_columns == guess.m_candidates[0].m_columns);
    for (size_t k = 1; k < candidates; ++k) {
        ArrayPageOptions other;
        REQUIRE(settleArrayShape({}, array, other, &how, k).empty());
        INFO("candidate " << k);
        CHECK(other.m_shape.m_columns == guess.m_candidates[k].m_columns);
        CHECK(other.m_shape.m_rows == 384 * 640 / guess.m_candidates[k].m_columns);
        CHECK(how.m_confidence == guess.m_candidates[k].m_support);
        bool said = false;
        for (const std::string& line : other.m_shapeFrom)
            said = said || line.find("showing row length " + std::to_string(k + 1) + " of ") != std::string::npos;
        CHECK(said);
    }
    // Round: past the last, the best again.
    ArrayPageOptions round;
    REQUIRE(settleArrayShape({}, array, round, &how, candidates).empty());
    CHECK(round.m_shape.m_columns == best.m_shape.m_columns);
}
