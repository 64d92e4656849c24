// The access layer: samples as a density over the blocks, reads blue and writes red, one sample
// plainly visible and a million still telling dense from sparse.
#include <catch2/catch.hpp>

#include "render/raster/access_layer.hpp"
#include "timeline/model/block_model.hpp"

#include <cmath>

using namespace memlog;
using render::AccessDensity;

namespace {

constexpr int kWidth = 100, kHeight = 50;
constexpr uint64_t kLo = 0x10000;  // one byte a row

struct View {
    render::AddressScale m_scale{timeline::AddressRanges({{kLo, kLo + kHeight}}), kHeight};
    render::ViewSpec m_spec;
    View() {
        m_spec.m_axis = timeline::XAxis::Events;
        m_spec.m_window = {0, kWidth};  // one event a column
        m_spec.m_scale = &m_scale;
    }
};

timeline::AccessMark mark(uint64_t seq, uint64_t addr, bool write) {
    timeline::AccessMark m;
    m.m_seq = seq;
    m.m_timeNs = seq;
    m.m_addr = addr;
    m.m_write = write;
    return m;
}

render::Rgb colourOf(uint32_t pixel) { return render::fromArgb(pixel); }

}  // namespace

TEST_CASE("a sample covers its own pixel whole and its neighbours by the area its square overlaps") {
    const View view;
    const AccessDensity density =
        render::accessDensity(std::vector{mark(10, kLo + 20, false)}, view.m_spec, kWidth, kHeight);
    CHECK(density.m_samples == 1);
    // Addresses grow upwards: byte 20 of 50 is at y = 30, and the sample at the left edge of
    // column 10. Its 2x2 square spans columns 9 and 10 and rows 29 and 30 exactly.
    REQUIRE(*view.m_scale.y(kLo + 20) == Approx(30));
    CHECK(density.total(10, 30) == Approx(1));
    CHECK(density.total(9, 29) == Approx(1));
    CHECK(density.total(11, 30) == Approx(0));
    CHECK(density.total(10, 31) == Approx(0));
    CHECK(density.total(10, 28) == Approx(0));
    double sum = 0;
    for (int yy = 0; yy < kHeight; ++yy)
        for (int x = 0; x < kWidth; ++x) sum += density.total(x, yy);
    CHECK(sum == Approx(4));
    CHECK(density.m_writes[30 * kWidth + 10] == 0);
}

TEST_CASE("samples outside the window, or of another bin, are left out") {
    View view;
    view.m_spec.m_window = {5, 50};
    const std::vector<timeline::AccessMark> marks = {mark(2, kLo + 3, false), mark(60, kLo + 3, true),
                                                     mark(7, kLo + 3, true)};
    CHECK(render::accessDensity(marks, view.m_spec, kWidth, kHeight).m_samples == 1);
    const std::vector<int> bins = {0, 0, 1};
    CHECK(render::accessDensity(marks, view.m_spec, kWidth, kHeight, &bins).m_samples == 0);
    view.m_spec.m_bin = 1;
    CHECK(render::accessDensity(marks, view.m_spec, kWidth, kHeight, &bins).m_samples == 1);
}

TEST_CASE("reads are blue and writes red, washed under them alone, one sample plainly, many more so") {
    const View view;
    std::vector<timeline::AccessMark> marks;
    marks.push_back(mark(10, kLo + 40, false));  // one read
    marks.push_back(mark(30, kLo + 40, true));  // one write
    for (int i = 0; i < 1000; ++i) marks.push_back(mark(50, kLo + 40, false));  // a thousand reads on one spot
    for (int i = 0; i < 500; ++i) {  // reads and writes alike on one spot
        marks.push_back(mark(70, kLo + 40, false));
        marks.push_back(mark(70, kLo + 40, true));
    }
    const uint32_t block = render::toArgb(render::ordinalColour(0.1));  // a dark blue block
    std::vector<uint32_t> pixels(kWidth * kHeight, block);
    render::drawAccessDensity(render::accessDensity(marks, view.m_spec, kWidth, kHeight),
                              {pixels.data(), kWidth, kHeight, kWidth});
    auto at = [&](int x, int y) { return colourOf(pixels[static_cast<size_t>(y * kWidth + x)]); };

    // Away from the samples the block keeps its colour; under one, it is washed lighter first.
    const render::Rgb original = colourOf(block);
    CHECK(pixels[static_cast<size_t>(40 * kWidth + 90)] == block);
    CHECK(pixels[static_cast<size_t>(40 * kWidth + 10)] == block);  // the read's column, far below it
    const render::Rgb washed = render::mixed(original, {1, 1, 1}, render::kWashUnderSamples);

    const render::Rgb read = at(10, 10), write = at(30, 10), dense = at(50, 10), both = at(70, 10);
    CHECK(read.m_b > read.m_r + 0.4);
    CHECK(write.m_r > write.m_b + 0.4);
    CHECK(write.m_r > write.m_g + 0.4);
    // One sample is drawn at kOneSampleOpacity over the washed block; the densest spot opaque.
    const render::Rgb expectedRead = render::mixed(washed, render::kReadColour, render::kOneSampleOpacity);
    CHECK(read.m_r == Approx(expectedRead.m_r).margin(1.0 / 255));
    CHECK(read.m_b == Approx(expectedRead.m_b).margin(1.0 / 255));
    CHECK(dense.m_r == Approx(render::kReadColour.m_r).margin(1.0 / 255));
    CHECK(dense.m_b == Approx(render::kReadColour.m_b).margin(1.0 / 255));
    // Half reads, half writes: the mix of both colours.
    CHECK(both.m_r > 0.3);
    CHECK(both.m_b > 0.3);
}

TEST_CASE("a million samples: sparse and dense places stay apart, and the picture holds no sample outside its data") {
    const View view;
    std::vector<timeline::AccessMark> marks;
    marks.reserve(1'000'000);
    // 990,000 reads over the left half's lower addresses (the bottom rows), 10,000 writes over the
    // right half's higher ones (the top rows).
    for (int i = 0; i < 990'000; ++i)
        marks.push_back(mark(static_cast<uint64_t>(i % 50), kLo + static_cast<uint64_t>(i / 50 % 25), false));
    for (int i = 0; i < 10'000; ++i)
        marks.push_back(mark(50 + static_cast<uint64_t>(i % 50), kLo + 25 + static_cast<uint64_t>(i / 50 % 25), true));
    const AccessDensity density = render::accessDensity(marks, view.m_spec, kWidth, kHeight);
    CHECK(density.m_samples == 1'000'000);
    std::vector<uint32_t> pixels(kWidth * kHeight, 0xffffffffu);
    render::drawAccessDensity(density, {pixels.data(), kWidth, kHeight, kWidth});
    auto at = [&](int x, int y) { return colourOf(pixels[static_cast<size_t>(y * kWidth + x)]); };
    const render::Rgb dense = at(20, 40), sparse = at(75, 15);
    CHECK(dense.m_b > 0.9);
    CHECK(sparse.m_r > sparse.m_b + 0.3);
    // The sparse writes (4 a pixel) are drawn lighter than the dense reads (800 a pixel).
    CHECK(dense.m_r == Approx(render::kReadColour.m_r).margin(1.0 / 255));  // opaque
    CHECK(sparse.m_g > render::kWriteColour.m_g + 0.05);  // the white shows through
    // Far from both (top left, bottom right): the background as it was.
    CHECK(at(10, 5).m_r == Approx(1));
    CHECK(at(90, 40).m_b == Approx(1));
}

namespace {

double luminance(uint32_t pixel) {
    const render::Rgb c = render::fromArgb(pixel);
    return 0.3 * c.m_r + 0.59 * c.m_g + 0.11 * c.m_b;
}

}  // namespace

TEST_CASE("a watchpoint's trap is linked to the sample that armed it by a thin line along the word") {
    const View view;
    std::vector<timeline::AccessMark> marks = {mark(10, kLo + 25, false), mark(60, kLo + 25, true)};
    marks[1].m_source = format::AccessSource::Watchpoint;
    marks[1].m_armedBy = 10;
    marks.push_back(mark(70, kLo + 5, true));  // a trap whose arming sample is not in the log
    marks.back().m_armedBy = 999;
    std::vector<uint32_t> pixels(kWidth * kHeight, 0xffffffffu);
    const render::PixelBuffer target{pixels.data(), kWidth, kHeight, kWidth};
    render::drawWatchLinks(marks, timeline::tallyAccesses(marks), view.m_spec, target);
    auto at = [&](int x, int y) { return luminance(pixels[static_cast<size_t>(y * kWidth + x)]); };
    const int row = static_cast<int>(std::floor(*view.m_scale.y(kLo + 25)));  // the word's row
    int inked = 0;
    for (int x = 12; x < 58; ++x) inked += at(x, row) < 0.5;
    CHECK(inked == 46);  // all along, between the two samples
    CHECK(at(35, row - 3) == Approx(1));  // thin: nothing three rows away
    CHECK(at(35, row + 3) == Approx(1));
    CHECK(at(80, row) == Approx(1));  // nothing past the trap
    CHECK(at(5, row) == Approx(1));  // nor before the arming sample
    const int lonelyRow = static_cast<int>(std::floor(*view.m_scale.y(kLo + 5)));
    for (int x = 0; x < kWidth; ++x) CHECK(at(x, lonelyRow) == Approx(1));  // no line without its start
}

TEST_CASE("an access to a freed block is marked with a cross") {
    const View view;
    std::vector<timeline::AccessMark> marks = {mark(30, kLo + 25, false), mark(60, kLo + 25, false)};
    marks[1].m_useAfterFree = true;
    std::vector<uint32_t> pixels(kWidth * kHeight, 0xffffffffu);
    render::drawUsesAfterFree(marks, timeline::tallyAccesses(marks), view.m_spec,
                              {pixels.data(), kWidth, kHeight, kWidth});
    auto at = [&](int x, int y) { return luminance(pixels[static_cast<size_t>(y * kWidth + x)]); };
    const int y = static_cast<int>(std::floor(*view.m_scale.y(kLo + 25)));
    CHECK(at(60, y) < 0.5);  // its middle
    CHECK(at(63, y + 3) < 0.5);  // its arms, diagonally
    CHECK(at(57, y + 3) < 0.5);
    CHECK(at(63, y) > 0.9);  // not a square
    CHECK(at(60, y + 4) > 0.9);
    CHECK(at(30, y) == Approx(1));  // the sample of a live block: no cross
}

TEST_CASE("marks in x order: a window's density from the marks inside it alone is the density from all") {
    View view;
    std::vector<timeline::AccessMark> marks;
    std::vector<int> bins;
    for (uint64_t i = 0; i < 3000; ++i) {  // x in order, with runs of equal x
        marks.push_back(mark(i / 3, kLo + (i * 7919) % kHeight, i % 5 == 0));
        bins.push_back(static_cast<int>(i % 2));
    }
    size_t inWindows = 0;
    for (const timeline::XWindow window :
         {timeline::XWindow{0, 100}, timeline::XWindow{17, 18}, timeline::XWindow{250, 700},
          timeline::XWindow{990, 5000}, timeline::XWindow{2000, 3000}}) {
        const std::vector<int>* const everyBin = nullptr;
        for (const std::vector<int>* binOfMark : {everyBin, static_cast<const std::vector<int>*>(&bins)}) {
            view.m_spec.m_window = window;
            const AccessDensity all = render::accessDensity(marks, view.m_spec, kWidth, kHeight, binOfMark);
            const AccessDensity inside = render::accessDensity(marks, view.m_spec, kWidth, kHeight, binOfMark, nullptr,
                                                               timeline::axisBit(timeline::XAxis::Events));
            INFO("window " << window.m_from << ".." << window.m_to);
            CHECK(inside.m_samples == all.m_samples);
            CHECK(inside.m_reads == all.m_reads);
            CHECK(inside.m_writes == all.m_writes);
            inWindows += all.m_samples;
        }
    }
    CHECK(inWindows > 1000);
    // A list out of order says so, and is read whole.
    std::vector<timeline::AccessMark> shuffled = {mark(5, kLo, false), mark(3, kLo, false), mark(9, kLo, false)};
    timeline::BlockModel model;
    model.setAccessMarks(shuffled);
    CHECK_FALSE(model.accessMarksInOrder() & timeline::axisBit(timeline::XAxis::Events));
    model.setAccessMarks(std::vector{mark(3, kLo, false), mark(3, kLo, true), mark(9, kLo, false)});
    CHECK(model.accessMarksInOrder() & timeline::axisBit(timeline::XAxis::Events));
}

namespace {

// 1.5 million samples in x order over columns 2..97 of the view, at five addresses 9 bytes (rows)
// apart, a third of them writes: more than a frame draws one by one.
std::vector<timeline::AccessMark> manyMarksInOrder() {
    std::vector<timeline::AccessMark> marks;
    const size_t count = 1'500'000;
    marks.reserve(count);
    for (size_t i = 0; i < count; ++i)
        marks.push_back(mark(2 + i * 95 / count, kLo + 5 + 9 * ((i * 7) % 5), i % 3 == 0));
    return marks;
}

std::vector<int> rowsWithSamples(const AccessDensity& density) {
    std::vector<int> rows;
    for (int y = 0; y < density.m_height; ++y)
        for (int x = 0; x < density.m_width; ++x)
            if (density.total(x, y) > 0) {
                rows.push_back(y);
                break;
            }
    return rows;
}

double sum(const std::vector<float>& plane) {
    double total = 0;
    for (const float value : plane) total += value;
    return total;
}

std::vector<uint32_t> layerPixels(const render::AccessLayer& layer, const render::ViewSpec& spec) {
    std::vector<uint32_t> pixels(kWidth * kHeight, 0xffffffffu);
    layer.draw(spec, {pixels.data(), kWidth, kHeight, kWidth});
    return pixels;
}

}  // namespace

TEST_CASE("a draft of 1.5 million samples from their summary: their weight, reads and writes, on their rows") {
    const View view;
    const std::vector<timeline::AccessMark> marks = manyMarksInOrder();
    const timeline::HugeVector<timeline::AccessPoint> points = timeline::summariseAccesses(marks);
    const timeline::AccessSummary summary(points, marks.size());
    const AccessDensity exact = render::accessDensity(marks, view.m_spec, kWidth, kHeight);
    const AccessDensity draft = render::accessDensityDraft(marks, summary, view.m_spec, kWidth, kHeight);
    CHECK(draft.m_samples == marks.size());
    // Each group's weight spread over the pixels its samples' squares reach: nothing lost or
    // added, reads and writes apart.
    CHECK(sum(draft.m_reads) == Approx(sum(exact.m_reads)).epsilon(1e-4));
    CHECK(sum(draft.m_writes) == Approx(sum(exact.m_writes)).epsilon(1e-4));
    // On the rows of the samples' squares, no other.
    CHECK(rowsWithSamples(draft) == rowsWithSamples(exact));
    CHECK(rowsWithSamples(exact).size() == 10);  // two rows a square, five addresses
    // Each column's weight within a column of its place: groups span at most a pixel.
    for (int x = 1; x + 1 < kWidth; ++x) {
        double exactNear = 0, draftHere = 0;
        for (int y = 0; y < kHeight; ++y) {
            draftHere += draft.total(x, y);
            for (const int dx : {-1, 0, 1}) exactNear += exact.total(x + dx, y);
        }
        INFO("column " << x);
        CHECK(draftHere <= exactNear + 1);
    }
}

TEST_CASE("the access layer drafts a view of more samples than its limit, when allowed, and only then") {
    View view;
    const size_t kDraftAbove = 1'000'000;
    const std::vector<timeline::AccessMark> marks = manyMarksInOrder();
    const timeline::AccessTally tally = timeline::tallyAccesses(marks);
    const timeline::HugeVector<timeline::AccessPoint> points = timeline::summariseAccesses(marks);
    const uint8_t inOrder = timeline::axisBit(timeline::XAxis::Events);

    render::AccessLayer exact(marks, tally, nullptr, nullptr, inOrder);
    render::AccessLayer drafting(marks, tally, nullptr, nullptr, inOrder);
    drafting.mayDraft(timeline::AccessSummary(points, marks.size()), kDraftAbove);
    const std::vector<uint32_t> exactPixels = layerPixels(exact, view.m_spec);
    CHECK_FALSE(exact.drafted());
    const std::vector<uint32_t> draftPixels = layerPixels(drafting, view.m_spec);
    CHECK(drafting.drafted());
    CHECK(draftPixels != exactPixels);

    SECTION("a window of fewer samples than the limit is drawn exactly") {
        view.m_spec.m_window = {10, 40};  // about 470,000 samples: fewer than the limit
        render::AccessLayer zoomed(marks, tally, nullptr, nullptr, inOrder);
        zoomed.mayDraft(timeline::AccessSummary(points, marks.size()), kDraftAbove);
        CHECK(layerPixels(zoomed, view.m_spec) == layerPixels(exact, view.m_spec));
        CHECK_FALSE(zoomed.drafted());
    }
    SECTION("samples out of order on the view's axis are drawn exactly") {
        render::AccessLayer unordered(marks, tally, nullptr, nullptr, timeline::axisBit(timeline::XAxis::Time));
        view.m_spec.m_axis = timeline::XAxis::Events;
        unordered.mayDraft(timeline::AccessSummary(points, marks.size()), kDraftAbove);
        CHECK(layerPixels(unordered, view.m_spec) == exactPixels);
        CHECK_FALSE(unordered.drafted());
    }
}

TEST_CASE("the exact density gives way when asked, every 65,536 samples of its first half: nothing drawn, and false") {
    const View view;
    const std::vector<timeline::AccessMark> marks = manyMarksInOrder();
    const timeline::AccessTally tally = timeline::tallyAccesses(marks);
    const render::AccessLayer layer(marks, tally, nullptr, nullptr, timeline::axisBit(timeline::XAxis::Events));
    size_t asked = 0;
    std::vector<uint32_t> pixels(kWidth * kHeight, 0xffffffffu);
    const std::function<bool()> thirdTime = [&] { return ++asked == 3; };
    CHECK_FALSE(layer.drawGivingWay(view.m_spec, {pixels.data(), kWidth, kHeight, kWidth}, thirdTime));
    CHECK(asked == 3);
    CHECK(pixels == std::vector<uint32_t>(kWidth * kHeight, 0xffffffffu));
    asked = 0;
    const std::function<bool()> never = [&] { return ++asked == 0; };
    CHECK(layer.drawGivingWay(view.m_spec, {pixels.data(), kWidth, kHeight, kWidth}, never));
    CHECK(asked == marks.size() / 2 / render::kGiveWayEvery);  // by the first of two cores, for its half
    CHECK(pixels == layerPixels(layer, view.m_spec));
}

TEST_CASE("a million samples and more are counted on two cores: each half's density, added") {
    const View view;
    const std::vector<timeline::AccessMark> marks = manyMarksInOrder();
    REQUIRE(marks.size() >= render::kDensityOnTwoCoresFrom);
    const std::span<const timeline::AccessMark> all(marks);
    const size_t middle = marks.size() / 2;
    const AccessDensity whole = render::accessDensity(all, view.m_spec, kWidth, kHeight);
    const AccessDensity first = render::accessDensity(all.first(middle), view.m_spec, kWidth, kHeight);
    const AccessDensity second = render::accessDensity(all.subspan(middle), view.m_spec, kWidth, kHeight);
    CHECK(whole.m_samples == marks.size());
    CHECK(first.m_samples + second.m_samples == marks.size());
    size_t differing = 0;
    for (size_t i = 0; i < whole.m_reads.size(); ++i)
        differing += whole.m_reads[i] != first.m_reads[i] + second.m_reads[i] ||
                     whole.m_writes[i] != first.m_writes[i] + second.m_writes[i];
    CHECK(differing == 0);
    CHECK(sum(second.m_writes) > 0);  // the second half has samples of its own to add
}
