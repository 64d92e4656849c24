// Pixels of a block view, from logs written through the real format encoders: blocks cover
// exactly their pixels, thin blocks still show, equation 1 holds pixel by pixel, cushions
// shade symmetrically.
#include <catch2/catch.hpp>

#include <random>

#include "heap_records.hpp"
#include "render_helpers.hpp"

using namespace memlog;
using memlog::test::Image;
using memlog::test::LogBuilder;
using memlog::test::modelOf;
using render::AddressScale;
using render::BlockColouring;
using render::ColourBy;
using render::CushionStyle;
using render::ViewSpec;
using timeline::XAxis;

namespace {

constexpr uint64_t kLo = 0x10000;  // the one address range of these views
constexpr uint64_t kBytesPerRow = 16;

// A view of `width` x `height` pixels over one range of height * 16 bytes at kLo (low
// addresses at the bottom), `seqPerColumn` sequence numbers (LogBuilder: 1000 ns each) a column.
struct View {
    AddressScale m_scale;
    ViewSpec m_spec;
    int m_width;
    View(int width, int height, uint64_t seqPerColumn, double alpha, CushionStyle cushion)
        : m_scale(timeline::AddressRanges({{kLo, kLo + kBytesPerRow * static_cast<uint64_t>(height)}}), height),
          m_width(width) {
        m_spec.m_axis = XAxis::Time;
        m_spec.m_window = {0, static_cast<uint64_t>(width) * seqPerColumn * LogBuilder::kTicksPerSeq};
        m_spec.m_scale = &m_scale;
        m_spec.m_alpha = alpha;
        m_spec.m_cushion = cushion;
    }
    Image draw(const timeline::BlockModel& model, ColourBy by = ColourBy::Size) {
        const BlockColouring colouring = BlockColouring::make(by, model, m_spec.m_axis, m_spec.m_window, nullptr);
        return test::viewImage(model, m_spec, colouring, m_width);
    }
};

// The address whose bytes start `rowsUp` rows above the bottom of the view.
uint64_t rowAddress(int rowsUp) { return kLo + kBytesPerRow * static_cast<uint64_t>(rowsUp); }

const uint32_t kBackground = render::toArgb(render::kBackground);

}  // namespace

TEST_CASE("a block covers exactly its pixels") {
    LogBuilder log;
    // Columns [5, 12), rows [30 - 4 - 6, 30 - 4) = [20, 26) of a 40 x 30 view.
    log.thread(1).malloc(5, rowAddress(4), 6 * kBytesPerRow).free(12, rowAddress(4));
    const auto model = modelOf(log);
    for (double alpha : {1.0, 0.5, 0.2}) {
        View view(40, 30, 1, alpha, CushionStyle::None);
        const Image image = view.draw(model);
        const uint32_t colour = render::toArgb(render::ordinalColour(0.5));  // one block: the middle of the scale
        for (int y = 0; y < 30; ++y)
            for (int x = 0; x < 40; ++x) {
                const bool inside = x >= 5 && x < 12 && y >= 20 && y < 26;
                INFO("alpha " << alpha << " pixel " << x << "," << y);
                CHECK(image.at(x, y) == (inside ? colour : kBackground));
            }
    }
}

TEST_CASE("a block thinner and shorter than a pixel still changes its pixel, more with lower alpha") {
    LogBuilder log;
    // A quarter of a column long (10 sequence numbers a column) and 4 of a row's 16 bytes tall.
    log.thread(1).malloc(52, rowAddress(10) + 8, 4).free(54, rowAddress(10) + 8);
    log.thread(1).malloc(300, rowAddress(0), 1000).free(399, rowAddress(0));  // a big one: the scale's other end
    const auto model = modelOf(log);
    double previous = -1;
    for (double alpha : {1.0, 0.5, 0.25}) {
        View view(40, 30, 10, alpha, CushionStyle::None);
        const Image image = view.draw(model);
        const uint32_t pixel = image.at(5, 30 - 11);
        const int change = test::channelDistance(pixel, kBackground);
        INFO("alpha " << alpha << " change " << change);
        CHECK(change > 0);
        CHECK(change > previous);
        previous = change;
        // Only that pixel: its neighbours are untouched.
        CHECK(image.at(4, 30 - 11) == kBackground);
        CHECK(image.at(6, 30 - 11) == kBackground);
        CHECK(image.at(5, 30 - 10) == kBackground);
        CHECK(image.at(5, 30 - 12) == kBackground);
    }
}

TEST_CASE("every pixel is equation 1 over the blocks that cover it (brute force, random heaps)") {
    std::mt19937 random(11);
    for (double alpha : {1.0, 0.5, 0.3}) {
        // Random churn over 24 slots of a 640-byte heap: disjoint live blocks of every shape.
        LogBuilder log;
        auto& thread = log.thread(1, 1 << 16);
        std::vector<bool> live(24, false);
        for (uint64_t seq = 1; seq <= 900; ++seq) {
            const size_t slot = random() % 24;  // slots 26 bytes apart, blocks of 1 to 25 bytes
            if (live[slot])
                thread.free(seq, kLo + slot * 26);
            else
                thread.malloc(seq, kLo + slot * 26, 1 + random() % 25);
            live[slot] = !live[slot];
        }
        const auto model = modelOf(log);
        View view(45, 40, 20, alpha, CushionStyle::None);
        const BlockColouring colouring =
            BlockColouring::make(ColourBy::Size, model, XAxis::Time, view.m_spec.m_window, nullptr);
        const Image image = test::viewImage(model, view.m_spec, colouring, 45);
        const render::XScale scale(view.m_spec.m_window, 45);
        for (int y = 0; y < 40; ++y)
            for (int x = 0; x < 45; ++x) {
                double covered = 0, weight = 0, attribute = 0;
                model.forEach([&](const timeline::Block& b) {
                    render::PixelRect r;
                    if (!render::blockRect(b, view.m_spec, scale, r)) return;
                    const double f = std::max(0.0, std::min(r.m_x1, x + 1.0) - std::max(r.m_x0, 1.0 * x)) *
                                     std::max(0.0, std::min(r.m_y1, y + 1.0) - std::max(r.m_y0, 1.0 * y));
                    if (f <= 0) return;
                    covered += f;
                    weight += std::pow(f, alpha);
                    attribute += std::pow(f, alpha) * colouring.scalar(b);
                });
                uint32_t expected = kBackground;
                if (weight > 0) {
                    const double background = std::pow(1 - std::min(covered, 1.0), alpha);
                    expected =
                        render::toArgb(render::mixed(render::kBackground, render::ordinalColour(attribute / weight),
                                                     weight / (weight + background)));
                }
                INFO("alpha " << alpha << " pixel " << x << "," << y);
                CHECK(test::channelDistance(image.at(x, y), expected) <= 2);
            }
    }
}

TEST_CASE("coverage never exceeds one, however many blocks share a pixel") {
    std::mt19937 random(5);
    LogBuilder log;
    auto& thread = log.thread(1, 1 << 20);
    // 40,000 short-lived blocks on 200 slots of 4 bytes: hundreds per pixel.
    std::vector<bool> live(200, false);
    for (uint64_t seq = 1; seq <= 40'000; ++seq) {
        const size_t slot = random() % 200;
        if (live[slot])
            thread.free(seq, kLo + slot * 4);
        else
            thread.malloc(seq, kLo + slot * 4, 1 + random() % 4);
        live[slot] = !live[slot];
    }
    const auto model = modelOf(log);
    View view(37, 50, 40'000 / 37 + 1, 0.5, CushionStyle::None);
    const render::XScale scale(view.m_spec.m_window, 37);
    render::CoverageAccumulator accumulator(37, 50, 0.5);
    size_t added = 0;
    model.forEach([&](const timeline::Block& b) {
        render::PixelRect r;
        if (render::blockRect(b, view.m_spec, scale, r)) accumulator.add(r), ++added;
    });
    CHECK(added == model.size());
    double fullest = 0;
    for (const auto& p : accumulator.resolve()) fullest = std::max(fullest, p.m_coverage);
    CHECK(fullest <= 1.0 + 1e-6);
    CHECK(fullest > 0.5);  // the heap is busy: some pixel is mostly covered
}

TEST_CASE("cushions: luminance symmetric across a block, darkest at its edges, plateau flat inside") {
    LogBuilder log;
    log.thread(1).malloc(10, rowAddress(5), 20 * kBytesPerRow).free(40, rowAddress(5));  // 30 x 20 pixels
    const auto model = modelOf(log);
    const uint32_t flat = render::toArgb(render::ordinalColour(0.5));
    for (CushionStyle style : {CushionStyle::Parabolic, CushionStyle::Plateau}) {
        View view(60, 40, 1, 0.5, style);
        const Image image = view.draw(model);
        // Rows 15..34 and columns 10..39 hold the block.
        std::vector<double> down, across;
        for (int y = 15; y < 35; ++y) down.push_back(test::luminance(image.at(25, y)));
        for (int x = 10; x < 40; ++x) across.push_back(test::luminance(image.at(x, 25)));
        for (const auto* profile : {&down, &across}) {
            const auto& p = *profile;
            const size_t n = p.size();
            INFO(render::cushionName(style));
            for (size_t i = 0; i < n; ++i) CHECK(p[i] == Approx(p[n - 1 - i]).margin(1.0 / 255));  // symmetric
            for (size_t i = 0; i + 1 < n / 2; ++i) CHECK(p[i] <= p[i + 1] + 1e-9);  // brighter inwards
            CHECK(p.front() < p[n / 2] - 0.05);  // the edge is clearly darker than the middle
        }
        if (style == CushionStyle::Plateau)
            for (int y = 19; y < 31; ++y)
                for (int x = 14; x < 36; ++x) CHECK(image.at(x, y) == flat);  // beyond the bevel: the colour itself
        CHECK(test::luminance(image.at(25, 25)) == Approx(test::luminance(flat)).margin(1.0 / 255));
    }
}

TEST_CASE("blocks too small for a cushion get none") {
    LogBuilder log;
    log.thread(1).malloc(10, rowAddress(5), 3 * kBytesPerRow).free(40, rowAddress(5));  // 3 rows tall
    const auto model = modelOf(log);
    View flat(60, 40, 1, 0.5, CushionStyle::None), cushioned(60, 40, 1, 0.5, CushionStyle::Parabolic);
    CHECK(flat.draw(model).m_pixels == cushioned.draw(model).m_pixels);
}

TEST_CASE("categories mix their colours, not their numbers") {
    LogBuilder log;
    // Two threads' blocks share pixel row 9 half and half (8 bytes each of its 16).
    log.thread(1).malloc(1, rowAddress(30 - 10), 8).free(20, rowAddress(30 - 10));
    log.thread(2).malloc(2, rowAddress(30 - 10) + 8, 8).free(21, rowAddress(30 - 10) + 8);
    const auto model = modelOf(log);
    View view(40, 30, 1, 1.0, CushionStyle::None);
    const Image image = view.draw(model, ColourBy::Thread);
    // alpha 1, full coverage: the plain average of the two palette colours.
    const render::Rgb expected = render::mixed(render::categoryColour(0), render::categoryColour(1), 0.5);
    CHECK(test::channelDistance(image.at(10, 9), render::toArgb(expected)) <= 1);
}
