// The accumulation rasteriser against a brute-force reference: exact coverage, thin blocks kept,
// nothing outside a block.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "render/raster/coverage_accumulator.hpp"

using memlog::render::CoverageAccumulator;
using memlog::render::kAxisOne;
using memlog::render::PixelRect;
using memlog::render::PixelSums;

namespace {

double overlap(double a0, double a1, double b0, double b1) {
    return std::max(0.0, std::min(a1, b1) - std::max(a0, b0));
}

// Per pixel, the three sums by definition.
std::vector<PixelSums> bruteForce(int width, int height, double alpha, const std::vector<PixelRect>& rects) {
    std::vector<PixelSums> pixels(static_cast<size_t>(width * height), PixelSums{0, 0, {0, 0, 0}});
    for (const PixelRect& r : rects)
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                const double f = overlap(r.m_x0, r.m_x1, x, x + 1) * overlap(r.m_y0, r.m_y1, y, y + 1);
                if (f <= 0) continue;
                PixelSums& p = pixels[static_cast<size_t>(y * width + x)];
                p.m_coverage += f;
                p.m_weight += std::pow(f, alpha);
                p.m_attribute[0] += std::pow(f, alpha) * r.m_attribute;
            }
    return pixels;
}

}  // namespace

TEST_CASE("a block aligned to pixels covers exactly its pixels") {
    CoverageAccumulator accumulator(8, 6, 0.5);
    accumulator.add({2, 5, 1, 3, 0.25});
    const auto pixels = accumulator.resolve();
    for (int y = 0; y < 6; ++y)
        for (int x = 0; x < 8; ++x) {
            const bool inside = x >= 2 && x < 5 && y >= 1 && y < 3;
            INFO(x << "," << y);
            CHECK(pixels[y * 8 + x].m_coverage == (inside ? 1.0 : 0.0));
            CHECK(pixels[y * 8 + x].m_weight == (inside ? 1.0 : 0.0));
            CHECK(pixels[y * 8 + x].m_attribute[0] == Approx(inside ? 0.25 : 0.0).margin(1e-3));
        }
}

TEST_CASE("a block thinner than a pixel still changes its pixel, more with a lower alpha") {
    auto weightOfThinBlock = [](double alpha) {
        CoverageAccumulator accumulator(4, 4, alpha);
        accumulator.add({1, 2, 2.40, 2.41, 1.0});  // 1 px long, 1/100 px tall
        const auto pixels = accumulator.resolve();
        CHECK(pixels[2 * 4 + 1].m_coverage == Approx(0.01).margin(1e-4));
        return pixels[2 * 4 + 1].m_weight;
    };
    const double box = weightOfThinBlock(1.0), half = weightOfThinBlock(0.5), third = weightOfThinBlock(0.3);
    CHECK(box == Approx(0.01).margin(1e-4));
    CHECK(half == Approx(0.1).margin(1e-3));  // 0.01^0.5
    CHECK(third > half);
}

TEST_CASE("accumulation equals the brute-force sums on random blocks, and nothing leaks outside") {
    std::mt19937 random(12345);
    std::uniform_real_distribution<double> unit(0, 1);
    const int width = 37, height = 23;
    for (double alpha : {1.0, 0.5, 0.25}) {
        std::vector<PixelRect> rects;
        for (int i = 0; i < 300; ++i) {
            const double x0 = unit(random) * width, y0 = unit(random) * height;
            // Mostly tiny and thin blocks, some large ones, some crossing the image border.
            const double w = unit(random) < 0.2 ? unit(random) * 15 : unit(random) * 0.7;
            const double h = unit(random) < 0.2 ? unit(random) * 9 : unit(random) * 0.3;
            rects.push_back({x0, x0 + w, y0, y0 + h, unit(random)});
        }
        CoverageAccumulator accumulator(width, height, alpha);
        for (const PixelRect& rect : rects) accumulator.add(rect);
        const auto fast = accumulator.resolve();
        const auto slow = bruteForce(width, height, alpha, rects);
        for (size_t i = 0; i < fast.size(); ++i) {
            INFO("alpha " << alpha << " pixel " << i);
            CHECK(fast[i].m_coverage == Approx(slow[i].m_coverage).margin(2e-3));
            CHECK(fast[i].m_weight == Approx(slow[i].m_weight).margin(2e-3 * (1 + slow[i].m_weight)));
            CHECK(fast[i].m_attribute[0] == Approx(slow[i].m_attribute[0]).margin(3e-3 * (1 + slow[i].m_weight)));
            if (slow[i].m_weight == 0) CHECK(fast[i].m_weight == 0);  // exact zero outside every block
        }
    }
}

TEST_CASE("blocks of a few pixels, in colour channels, sum as the brute force does") {
    // Blocks of up to four pixels add to their pixels directly, not through corners: every
    // channel of them, also where they cross the image's edge.
    std::mt19937 random(777);
    std::uniform_real_distribution<double> unit(0, 1);
    const int width = 19, height = 13;
    const double alpha = 0.4;
    CoverageAccumulator accumulator(width, height, alpha, 3);
    std::vector<PixelRect> rects;
    std::vector<std::array<uint64_t, 3>> colours;
    int offImage = 0;
    for (int i = 0; i < 400; ++i) {
        const double x0 = unit(random) * (width + 2) - 1, y0 = unit(random) * (height + 2) - 1;
        rects.push_back({x0, x0 + unit(random) * 3, y0, y0 + unit(random) * 2, 0});
        colours.push_back({random() % 4097, random() % 4097, random() % 4097});
        // add() says whether any of the block is on the image: a tile skips the rest of a
        // block that is not (its cushion) on that answer.
        const PixelRect& r = rects.back();
        const bool onImage = r.m_x1 > 0 && r.m_x0 < width && r.m_y1 > 0 && r.m_y0 < height;
        offImage += !onImage;
        CHECK(accumulator.add(r, colours.back().data()) == onImage);
    }
    CHECK(offImage > 10);
    const auto fast = accumulator.resolve();
    for (int c = 0; c < 3; ++c) {
        for (size_t i = 0; i < rects.size(); ++i) rects[i].m_attribute = static_cast<double>(colours[i][c]) / 4096;
        const auto slow = bruteForce(width, height, alpha, rects);
        for (size_t i = 0; i < fast.size(); ++i) {
            INFO("channel " << c << " pixel " << i);
            CHECK(fast[i].m_coverage == Approx(slow[i].m_coverage).margin(2e-3));
            CHECK(fast[i].m_weight == Approx(slow[i].m_weight).margin(2e-3 * (1 + slow[i].m_weight)));
            CHECK(fast[i].m_attribute[c] == Approx(slow[i].m_attribute[0]).margin(3e-3 * (1 + slow[i].m_weight)));
            if (slow[i].m_weight == 0) CHECK(fast[i].m_attribute[c] == 0);
        }
    }
}

TEST_CASE("disjoint blocks never cover a pixel more than once") {
    CoverageAccumulator accumulator(10, 10, 0.5);
    // A thousand disjoint slivers packed into one pixel row, like many short-lived blocks.
    for (int i = 0; i < 1000; ++i) accumulator.add({i * 0.01, (i + 1) * 0.01, 3.0, 3.5, 0.5});
    const auto pixels = accumulator.resolve();
    for (const PixelSums& p : pixels) CHECK(p.m_coverage <= 1.0 + 1e-9);
    CHECK(pixels[3 * 10 + 4].m_coverage == Approx(0.5).margin(2e-3));
    // Each sliver covers 1/200 of the pixel: its weight is (1/200)^0.5, a hundred of them per pixel.
    CHECK(pixels[3 * 10 + 4].m_weight == Approx(100 * std::sqrt(0.005)).margin(0.05));
}

TEST_CASE("the power table is x^alpha to 1e-8 over the whole range of coverages") {
    for (double alpha : {1.0, 0.9, 0.5, 0.3, 0.05}) {
        const memlog::render::PowerTable power(alpha);
        for (double x = 1.0; x > 1e-300; x *= 0.8137) {
            INFO("alpha " << alpha << " x " << x);
            CHECK(std::fabs(power(x) - std::pow(x, alpha)) <= 1e-8 * std::pow(x, alpha) + 1e-300);
        }
        CHECK(power(0) == 0);
        CHECK(power(1) == 1);
        CHECK(power(1e-310) == (alpha == 1.0 ? 1e-310 : 0.0));  // below any meaningful share of a pixel
    }
}

TEST_CASE("the power table is x^alpha to 1e-8 for areas of any size too") {
    for (double alpha : {1.0, 0.7, 0.3, 0.05}) {
        const memlog::render::PowerTable power(alpha);
        for (double x = 1e-290; x < 1e300; x *= 3.137) {
            INFO("alpha " << alpha << " x " << x);
            CHECK(std::fabs(power.ofAny(x) - std::pow(x, alpha)) <= 1e-8 * std::pow(x, alpha));
        }
        CHECK(power.ofAny(0) == 0);
        CHECK(power.ofAny(1) == Approx(1).epsilon(1e-8));
        CHECK(power.ofAny(1e308) == Approx(std::pow(1e308, alpha)).epsilon(1e-8));
    }
}

TEST_CASE("a spread summary adds exactly its coverage and weight, evenly over its rectangle") {
    std::mt19937 random(21);
    for (int trial = 0; trial < 200; ++trial) {
        CoverageAccumulator accumulator(20, 15, 0.3, 3);
        const double x0 = std::uniform_real_distribution<>(0, 18)(random),
                     y0 = std::uniform_real_distribution<>(0, 13)(random);
        const PixelRect rect{x0, x0 + std::uniform_real_distribution<>(1e-4, 2)(random), y0,
                             y0 + std::uniform_real_distribution<>(1e-4, 2)(random), 0};
        const double area = (rect.m_x1 - rect.m_x0) * (rect.m_y1 - rect.m_y0);
        const double coverage = area * std::uniform_real_distribution<>(0.01, 1)(random);  // blocks fill part of it
        const double weight = std::uniform_real_distribution<>(0.01, 20)(random);
        const uint64_t colour[3] = {4096, 2048, 0};
        accumulator.addSpread(rect, coverage, weight, colour);
        double coverageSum = 0, weightSum = 0;
        const auto pixels = accumulator.resolve();
        for (int y = 0; y < 15; ++y)
            for (int x = 0; x < 20; ++x) {
                const PixelSums& p = pixels[static_cast<size_t>(y * 20 + x)];
                coverageSum += p.m_coverage;
                weightSum += p.m_weight;
                const double share =
                    overlap(rect.m_x0, rect.m_x1, x, x + 1) * overlap(rect.m_y0, rect.m_y1, y, y + 1) / area;
                INFO("trial " << trial << " pixel " << x << "," << y);
                // Each pixel gets its share of the rectangle; nothing lands outside it. Each axis
                // is rounded to 2^-15 of its total before the product.
                CHECK(p.m_coverage == Approx(coverage * share).margin((1 + coverage) * 2.0 / kAxisOne));
                CHECK(p.m_weight == Approx(weight * share).margin((1 + weight) * 2.0 / kAxisOne));
                if (p.m_weight > 1e-3) {
                    CHECK(p.m_attribute[0] / p.m_weight == Approx(1.0).epsilon(1e-3));  // the mean colour, as given
                    CHECK(p.m_attribute[1] / p.m_weight == Approx(0.5).epsilon(1e-3));
                }
            }
        CHECK(coverageSum == Approx(coverage).margin(16.0 / kAxisOne));
        CHECK(weightSum == Approx(weight).epsilon(1e-3));
    }
}

TEST_CASE("a summary on a sliver of a pixel still weighs what it was given") {
    // A millionth of a pixel wide: as a coverage profile it would round to nothing.
    CoverageAccumulator accumulator(4, 4, 0.5);
    const uint64_t attribute = 4096;
    accumulator.addSpread({1.5, 1.500001, 2.2, 2.200001, 0}, 1e-12, 0.02, &attribute);
    const auto pixels = accumulator.resolve();
    CHECK(pixels[2 * 4 + 1].m_weight == Approx(0.02).epsilon(1e-3));
}

TEST_CASE("resolveAndClear leaves the arrays ready for the next frame and reset keeps them") {
    std::mt19937 random(8);
    std::vector<PixelRect> first, second;
    for (int i = 0; i < 300; ++i) {
        auto& list = i % 2 ? first : second;
        const double x = std::uniform_real_distribution<>(-2, 30)(random),
                     y = std::uniform_real_distribution<>(-2, 20)(random);
        list.push_back({x, x + std::uniform_real_distribution<>(0.01, 6)(random), y,
                        y + std::uniform_real_distribution<>(0.01, 6)(random),
                        std::uniform_real_distribution<>(0, 1)(random)});
    }
    CoverageAccumulator reused(28, 18, 0.4);
    for (const PixelRect& r : first) reused.add(r);
    reused.resolveAndClear([](int, const uint64_t*) {});
    reused.reset(28, 18, 0.4, 1);
    for (const PixelRect& r : second) reused.add(r);
    CoverageAccumulator fresh(28, 18, 0.4);
    for (const PixelRect& r : second) fresh.add(r);
    const auto a = reused.resolve(), b = fresh.resolve();
    for (size_t i = 0; i < a.size(); ++i) {
        CHECK(a[i].m_coverage == b[i].m_coverage);
        CHECK(a[i].m_weight == b[i].m_weight);
        CHECK(a[i].m_attribute[0] == b[i].m_attribute[0]);
    }
    // A reset without a resolve between (a frame cut short) clears what was added.
    reused.reset(28, 18, 0.4, 1);
    for (const auto& p : reused.resolve()) CHECK(p.m_weight == 0);
}
