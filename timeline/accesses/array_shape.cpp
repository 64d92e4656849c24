// Column steps: two samples of one instruction in a row whose element indexes differ by a
// multiple of the row length. Every divisor of the row length shares that property, its
// multiples mostly do not: the row length is the largest divisor of the element count that most
// steps agree with, well above chance.
#include "timeline/accesses/array_shape.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "timeline/base/text_format.hpp"

namespace memlog::timeline {
namespace {

// A row length is told when this share of column steps agree with it, above what chance gives
// (1 in c of all steps are multiples of c anyway), and from enough steps.
constexpr double kEnough = 0.6;
constexpr size_t kLeastSteps = 16;
constexpr uint64_t kUserAddressSpace = 1ull << 47;

std::string percent(double share) { return std::to_string(static_cast<int>(std::lround(share * 100))) + "%"; }

}  // namespace

ShapeGuess inferShape(const SampledArray& array) {
    ShapeGuess guess;
    // The element size from every sample: the walk's counts when it kept only the first ones.
    const bool allKept = array.m_sampleCount <= array.m_samples.size();
    std::map<uint64_t, uint64_t> sizes;
    if (allKept) {
        for (const ArraySample& sample : array.m_samples)
            if (sample.m_size <= 16) ++sizes[sample.m_size];
    } else {
        for (uint64_t size = 0; size <= 16; ++size)
            if (array.m_bySize[size]) sizes[size] = array.m_bySize[size];
    }
    uint64_t element = array.m_sourceElementSize;
    std::string elementFrom = "sizeof(" + array.m_sourceType + ") on the allocating line";
    if (element == 0 && !sizes.empty()) {
        element =
            std::max_element(sizes.begin(), sizes.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
        elementFrom = "the most common access size";
    }
    if (element == 0 || array.m_size < element) {
        guess.m_how = "no samples to tell an element size from";
        return guess;
    }
    // The divisors below take the square root of the element count in steps: a size beyond the
    // 47-bit user address space is a damaged log's, and would take minutes.
    if (array.m_size >= kUserAddressSpace) {
        guess.m_how = "no shape: the block's size is larger than a process's address space";
        return guess;
    }
    uint64_t agreeing = 0, all = array.m_samples.size();
    if (allKept || element > 16) {
        for (const ArraySample& sample : array.m_samples)
            if (sample.m_size == element && sample.m_offset % element == 0) ++agreeing;
    } else {
        agreeing = array.m_alignedBySize[element];
        all = array.m_sampleCount;
    }
    guess.m_shape.m_elementSize = element;
    guess.m_elementConfidence = all == 0 ? 0 : static_cast<double>(agreeing) / static_cast<double>(all);
    const uint64_t count = array.m_size / element;
    guess.m_how = "element " + std::to_string(element) + " bytes (" + elementFrom + "; " +
                  percent(guess.m_elementConfidence) + " of samples " + std::to_string(element) + "-byte and aligned)";

    // Steps between consecutive samples of one instruction, in element indexes, by instruction:
    // one instruction that walks columns is evidence, whatever the others do.
    std::map<uint64_t, uint64_t> lastIndexOf;  // instruction: the element it last touched
    std::map<uint64_t, std::vector<uint64_t>> stepsOf;
    for (const ArraySample& sample : array.m_samples) {
        const uint64_t index = sample.m_offset / element;
        auto [it, added] = lastIndexOf.try_emplace(sample.m_ip, index);
        if (!added && it->second != index)
            stepsOf[sample.m_ip].push_back(index > it->second ? index - it->second : it->second - index);
        it->second = index;
    }
    std::vector<uint64_t> candidates;  // the divisors of the element count
    for (uint64_t d = 1; d * d <= count; ++d)
        if (count % d == 0) candidates.insert(candidates.end(), {d, count / d});
    uint64_t best = 0, bestSteps = 0;
    double bestShare = 0;
    for (const auto& [ip, steps] : stepsOf) {
        if (steps.size() < kLeastSteps) continue;
        for (const uint64_t columns : candidates) {
            if (columns < 2 || columns > count / 2 || columns <= best) continue;
            const auto agree =
                std::count_if(steps.begin(), steps.end(), [&](uint64_t step) { return step % columns == 0; });
            const double share = static_cast<double>(agree) / static_cast<double>(steps.size());
            if (share - 1.0 / static_cast<double>(columns) >= kEnough) {
                best = columns;
                bestShare = share;
                bestSteps = steps.size();
            }
        }
    }
    if (best) {
        guess.m_shape.m_columns = best;
        guess.m_shape.m_rows = count / best;
        guess.m_rowConfidence = bestShare;
        guess.m_how += "; rows of " + std::to_string(best) + " elements (" + percent(bestShare) + " of " +
                       countText(bestSteps) + " steps between samples of one instruction move by whole rows)";
        return guess;
    }
    const auto side = static_cast<uint64_t>(std::llround(std::sqrt(static_cast<double>(count))));
    if (side * side == count && side > 1) {
        guess.m_shape.m_columns = guess.m_shape.m_rows = side;
        guess.m_how += "; " + std::to_string(side) + " x " + std::to_string(side) +
                       " assumed (a square number of elements; no instruction walked its columns)";
    } else {
        guess.m_how += "; no row length could be told (no instruction walked its columns)";
    }
    return guess;
}

}  // namespace memlog::timeline
