// The access-mark layer shows how a program walks its heap. The three loop orders of
// scenarios/matrix_multiply.c touch matrix A differently: the row order stays on one row of A
// for a long while, the column order sweeps all of A for every column, tiles stay in a band.
// The samples here are simulated from the loops themselves and given to the model as the
// sampler's would be (tests/scenario/ checks the real sampler on the real program).
#include <catch2/catch.hpp>

#include <set>

#include "heap_records.hpp"
#include "render/raster/access_layer.hpp"
#include "render_helpers.hpp"

using namespace memlog;
using memlog::test::LogBuilder;

namespace {

constexpr uint64_t kN = 32, kMatrixBytes = kN * kN * 8;
constexpr uint64_t kA = 0x10010, kB = 0x12020, kC = 0x14030;

// Every 5th access of C = A x B in the given order (5: a step that does not alias the loop body's 3
// accesses with the 32 iterations of a loop), spread over sequence numbers 4..999.
std::vector<timeline::AccessMark> sampledAccesses(const std::string& order) {
    struct Access {
        uint64_t m_addr;
        bool m_write;
    };
    std::vector<Access> all;
    auto product = [&](uint64_t i, uint64_t j, uint64_t k) {
        all.push_back({kA + (i * kN + k) * 8, false});
        all.push_back({kB + (k * kN + j) * 8, false});
    };
    if (order == "row") {  // i-k-j
        for (uint64_t i = 0; i < kN; ++i)
            for (uint64_t k = 0; k < kN; ++k)
                for (uint64_t j = 0; j < kN; ++j) {
                    product(i, j, k);
                    all.push_back({kC + (i * kN + j) * 8, true});
                }
    } else if (order == "col") {  // j-k-i
        for (uint64_t j = 0; j < kN; ++j)
            for (uint64_t k = 0; k < kN; ++k)
                for (uint64_t i = 0; i < kN; ++i) {
                    product(i, j, k);
                    all.push_back({kC + (i * kN + j) * 8, true});
                }
    } else {
        constexpr uint64_t tile = 8;
        for (uint64_t ii = 0; ii < kN; ii += tile)
            for (uint64_t kk = 0; kk < kN; kk += tile)
                for (uint64_t jj = 0; jj < kN; jj += tile)
                    for (uint64_t i = ii; i < ii + tile; ++i)
                        for (uint64_t k = kk; k < kk + tile; ++k)
                            for (uint64_t j = jj; j < jj + tile; ++j) {
                                product(i, j, k);
                                all.push_back({kC + (i * kN + j) * 8, true});
                            }
    }
    std::vector<timeline::AccessMark> marks;
    for (size_t i = 0; i < all.size(); i += 5) {
        const uint64_t seq = 4 + i * 995 / all.size();
        const uint64_t blockSeq = all[i].m_addr < kB ? 1 : all[i].m_addr < kC ? 2 : 3;
        marks.push_back({seq, seq * LogBuilder::kTicksPerSeq, all[i].m_addr, blockSeq, 1, all[i].m_write});
    }
    return marks;
}

// In how many pixel rows of matrix A's band read marks show, per eighth of the multiply, on
// average.
double rowsOfATouched(const std::string& order) {
    LogBuilder log;
    log.thread(1).malloc(1, kA, kMatrixBytes).malloc(2, kB, kMatrixBytes).malloc(3, kC, kMatrixBytes);
    log.thread(1).free(1000, kA).free(1001, kB).free(1002, kC);
    auto model = test::modelOf(log);
    model.setAccessMarks(sampledAccesses(order));
    render::ReportOptions options;
    options.m_axis = timeline::XAxis::Events;
    options.m_colourBy = render::ColourBy::Size;
    const render::Report report(model, nullptr, options);
    const test::Image image = test::imageOf(report);
    const render::Rect view = report.layout().m_cells[0].m_view;
    double top = 0, bottom = 0;
    REQUIRE(report.scale(0).span(kA, kA + kMatrixBytes, top, bottom));
    const render::XScale scale(report.window(), view.m_width);
    auto isRead = [](uint32_t pixel) {
        const render::Rgb colour = render::fromArgb(pixel);
        return colour.m_b > colour.m_r + 0.4;
    };
    double total = 0;
    for (int slice = 0; slice < 8; ++slice) {
        const int from = static_cast<int>(scale.x(4 + slice * 995 / 8.0)),
                  to = static_cast<int>(scale.x(4 + (slice + 1) * 995 / 8.0));
        std::set<int> rows;
        for (int y = static_cast<int>(top); y < static_cast<int>(bottom); ++y)
            for (int x = from; x < to; ++x)
                if (isRead(image.at(static_cast<int>(view.m_x) + x, static_cast<int>(view.m_y) + y))) rows.insert(y);
        total += static_cast<double>(rows.size()) / (bottom - top);
    }
    return total / 8;
}

}  // namespace

TEST_CASE("row, column and tiled multiplies leave different access marks on matrix A") {
    const double row = rowsOfATouched("row"), col = rowsOfATouched("col"), blocked = rowsOfATouched("blocked");
    INFO("share of A's rows marked per slice: row " << row << ", col " << col << ", blocked " << blocked);
    CHECK(col > 0.5);  // every column of C reads all of A (every 5th access is drawn)
    CHECK(row < 0.3 * col);  // the row order stays on a few rows of A at a time
    CHECK(blocked < 0.6 * col);  // tiles stay within a band of A
    CHECK(blocked > row);  // but a wider one than a single row
}
