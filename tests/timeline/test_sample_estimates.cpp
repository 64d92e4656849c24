// The estimates of a sampled log: Poisson's exact interval, the coverage of the 95 % intervals
// over simulated samplings of a known heap, large blocks exact, and the estimator's totals.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "timeline/replay/sample_estimator.hpp"

using namespace memlog::timeline;

namespace {

double probability(uint64_t size, double mean) { return -std::expm1(-static_cast<double>(size) / mean); }

struct Site {
    uint64_t m_size;
    uint64_t m_count;
};

// One simulated sampling of `sites`: each allocation kept with its probability, as the recorder's
// countdown keeps it.
struct Sampled {
    WeightedSum m_calls, m_bytes;
};
Sampled sampleOnce(const std::vector<Site>& sites, double mean, std::mt19937_64& random) {
    std::uniform_real_distribution<double> uniform(0, 1);
    Sampled sampled;
    for (const Site& site : sites) {
        const double p = probability(site.m_size, mean);
        for (uint64_t i = 0; i < site.m_count; ++i) {
            if (uniform(random) >= p) continue;
            sampled.m_calls.add(1, p);
            sampled.m_bytes.add(static_cast<double>(site.m_size), p);
        }
    }
    return sampled;
}

bool inside(const Estimate& estimate, double truth) { return estimate.m_low <= truth && truth <= estimate.m_high; }

}  // namespace

TEST_CASE("sample estimates: Poisson's exact interval for few events") {
    double low, high;
    poissonInterval(0, low, high);
    CHECK(low == 0);
    CHECK(high == Approx(3.6889).epsilon(1e-4));
    poissonInterval(1, low, high);
    CHECK(low == Approx(0.0253).epsilon(1e-2));
    CHECK(high == Approx(5.5716).epsilon(1e-4));
    poissonInterval(10, low, high);
    CHECK(low == Approx(4.7954).epsilon(1e-4));
    CHECK(high == Approx(18.390).epsilon(1e-4));
}

TEST_CASE("sample estimates: 95 % intervals cover the truth about 95 % of the time") {
    const double mean = 64 * 1024;
    // Many samples (normal intervals) and few (Poisson's): both must hold their promise.
    const std::vector<Site> many = {{64, 20000}, {4096, 2000}, {300, 5000}};
    const std::vector<Site> few = {{512, 1000}};
    for (const auto* sites : {&many, &few}) {
        double trueCalls = 0, trueBytes = 0;
        for (const Site& site : *sites) trueCalls += site.m_count, trueBytes += site.m_count * site.m_size;
        std::mt19937_64 random(41);
        int coveredCalls = 0, coveredBytes = 0;
        constexpr int kRuns = 400;
        for (int run = 0; run < kRuns; ++run) {
            const Sampled sampled = sampleOnce(*sites, mean, random);
            coveredCalls += inside(estimateOf(sampled.m_calls, mean), trueCalls);
            coveredBytes += inside(estimateOf(sampled.m_bytes, mean), trueBytes);
        }
        INFO((sites == &many ? "many" : "few") << ": calls " << coveredCalls << ", bytes " << coveredBytes << " of "
                                               << kRuns);
        // 95 % of 400 is 380, with a standard deviation of 4.4; exact Poisson intervals err wide.
        CHECK(coveredCalls >= 360);
        CHECK(coveredBytes >= 360);
        CHECK(coveredBytes <= 400);
        if (sites == &many) CHECK(coveredBytes <= 395);  // not so wide that they say nothing
    }
}

TEST_CASE("sample estimates: allocations far above the mean gap are exact") {
    const double mean = 64 * 1024;
    std::mt19937_64 random(3);
    const Sampled sampled = sampleOnce({{1 << 20, 20}}, mean, random);
    const Estimate bytes = estimateOf(sampled.m_bytes, mean);
    CHECK(sampled.m_bytes.m_samples == 20);
    CHECK(bytes.m_value == Approx(20.0 * (1 << 20)).epsilon(1e-6));
    CHECK(bytes.m_high - bytes.m_low < 1e-3 * bytes.m_value);  // e^-8 of each block's weight uncertain
    CHECK(bytes.m_low == 20.0 * (1 << 20));  // never below what the samples hold
}

TEST_CASE("sample estimates: the estimator weights each block, follows the live bytes and their peak") {
    const uint64_t mean = 4096;
    SampleEstimator estimator(mean);
    auto change = [](uint64_t addr, uint64_t size, uint32_t stack, bool mapping = false) {
        return BlockChange{.m_addr = addr, .m_size = size, .m_stack = stack, .m_mapping = mapping};
    };
    estimator.begin(change(0x1000, 1024, 1));
    estimator.begin(change(0x2000, 8192, 2));
    estimator.begin(change(0x10000, 4096, 3, true));  // an mmap: p = 1
    estimator.end(change(0x2000, 8192, 2));
    estimator.begin(change(0x3000, 512, 1));
    std::vector<StackMetrics> metrics;
    std::vector<StackEstimates> estimates;
    SampleEstimates totals;
    estimator.finish(metrics, estimates, totals);
    const double p1024 = probability(1024, mean), p8192 = probability(8192, mean), p512 = probability(512, mean);
    CHECK(totals.m_samples == 4);
    CHECK(totals.m_calls.m_value == Approx(1 / p1024 + 1 / p8192 + 1 + 1 / p512));
    CHECK(totals.m_bytes.m_value == Approx(1024 / p1024 + 8192 / p8192 + 4096 + 512 / p512));
    // The peak: the first three live (the later 512-byte sample weighs less than the 8 KiB one).
    CHECK(totals.m_peak.m_value == Approx(1024 / p1024 + 8192 / p8192 + 4096));
    CHECK(totals.m_leaked.m_value == Approx(1024 / p1024 + 4096 + 512 / p512));
    REQUIRE(metrics.size() == 4);
    CHECK(metrics[1].m_calls == static_cast<uint64_t>(std::llround(1 / p1024 + 1 / p512)));
    CHECK(metrics[2].m_peakBytes == static_cast<uint64_t>(std::llround(8192 / p8192)));
    CHECK(metrics[2].m_leakedBytes == 0);
    CHECK(metrics[3].m_bytes == 4096);
    CHECK(estimates[3].m_bytes.m_low == 4096);  // a mapping is always recorded: exact
    CHECK(estimates[3].m_bytes.m_high == 4096);
}
