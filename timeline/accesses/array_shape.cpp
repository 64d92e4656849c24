// Column steps: an instruction walking down columns moves by a whole row each time; between two
// of its samples, by many rows plus the few columns the walk advanced meanwhile (about the same
// number each time: samples come at a steady rate). So modulo the row length the steps agree on
// one offset, while the rows they cross vary; modulo anything else the offsets scatter. Their
// agreement is the length of the mean of the offsets taken as angles on a circle (1: one offset;
// about 1/sqrt(steps) by chance). A walk along rows, or one sampled so sparsely that the columns
// advanced vary as much as a row, tells nothing, and is not made to.
#include "timeline/accesses/array_shape.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <unordered_map>

#include "timeline/base/text_format.hpp"

namespace memlog::timeline {
namespace {

// A row length is told from an instruction's steps when they agree this well (and more than
// chance allows: steps x agreement^2 is the Rayleigh test's statistic, e^-12 the chance of
// reaching 12 with no relation), and when they cross rows in many ways (a walk along rows
// sampled at a steady pace moves by about the same step each time: its steps agree modulo any
// length much larger than their jitter, but all cross the same number of rows).
constexpr double kLeastAgreement = 0.4;
constexpr double kLeastRayleigh = 12;
constexpr size_t kLeastSteps = 64;
constexpr size_t kLeastRowCounts = 8;  // distinct numbers of rows crossed
constexpr double kMostOneRowCount = 0.25;  // the share of steps that cross the commonest number
// Of two row lengths one of which divides the other, the longer wins when its steps agree at
// least this share as well as the shorter's (a walk by rows of C fits rows of C/2 a little
// better than C itself on noisy steps), else the better supported one.
constexpr double kDivisorShare = 0.8;
// Bounds on the work: the steps of the instructions with the most samples, evenly thinned.
constexpr size_t kMostInstructions = 16;
constexpr size_t kMostSteps = 4096;
constexpr uint64_t kUserAddressSpace = 1ull << 47;

std::string percent(double share) { return std::to_string(static_cast<int>(std::lround(share * 100))) + "%"; }

uint64_t floorModulo(int64_t step, uint64_t modulus) {
    const auto m = static_cast<int64_t>(modulus);
    return static_cast<uint64_t>(((step % m) + m) % m);
}

// The steps' agreement on an offset modulo `columns`, and the offset.
RowCandidate agreement(const std::vector<int64_t>& steps, uint64_t columns) {
    double x = 0, y = 0;
    const double turn = 2 * std::numbers::pi / static_cast<double>(columns);
    for (const int64_t step : steps) {
        const double angle = turn * static_cast<double>(floorModulo(step, columns));
        x += std::cos(angle), y += std::sin(angle);
    }
    RowCandidate candidate;
    candidate.m_columns = columns;
    candidate.m_steps = steps.size();
    candidate.m_support = std::hypot(x, y) / static_cast<double>(steps.size());
    const double mean = std::atan2(y, x) / turn;
    candidate.m_offset = floorModulo(std::llround(mean), columns);
    return candidate;
}

// Whether the steps cross rows in many ways: not a steady walk along them.
bool crossRowsVariously(const std::vector<int64_t>& steps, uint64_t columns) {
    std::unordered_map<int64_t, size_t> crossed;
    const auto length = static_cast<int64_t>(columns);
    size_t commonest = 0;
    for (const int64_t step : steps) {
        const int64_t rows = step >= 0 ? step / length : -((-step + length - 1) / length);
        commonest = std::max(commonest, ++crossed[rows]);
    }
    return crossed.size() >= kLeastRowCounts &&
           static_cast<double>(commonest) <= kMostOneRowCount * static_cast<double>(steps.size());
}

// Steps between consecutive samples of one instruction, in elements, for the busiest ones.
std::vector<std::vector<int64_t>> stepsByInstruction(const SampledArray& array, uint64_t element) {
    std::map<uint64_t, std::vector<int64_t>> of;
    std::map<uint64_t, uint64_t> lastIndexOf;  // instruction: the element it last touched
    for (const ArraySample& sample : array.m_samples) {
        const uint64_t index = sample.m_offset / element;
        auto [it, added] = lastIndexOf.try_emplace(sample.m_ip, index);
        if (!added && it->second != index)
            of[sample.m_ip].push_back(static_cast<int64_t>(index) - static_cast<int64_t>(it->second));
        it->second = index;
    }
    std::vector<std::vector<int64_t>> steps;
    for (auto& [ip, list] : of)
        if (list.size() >= kLeastSteps) steps.push_back(std::move(list));
    std::sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
    if (steps.size() > kMostInstructions) steps.resize(kMostInstructions);
    for (auto& list : steps) {
        if (list.size() <= kMostSteps) continue;
        std::vector<int64_t> thinned;
        for (size_t i = 0; i < kMostSteps; ++i) thinned.push_back(list[i * list.size() / kMostSteps]);
        list = std::move(thinned);
    }
    return steps;
}

// Every row length the steps support, best first, without the divisors of a better-supported one.
std::vector<RowCandidate> rowCandidates(const std::vector<std::vector<int64_t>>& steps, uint64_t count) {
    std::vector<uint64_t> lengths;  // the divisors of the element count that leave two rows or more
    for (uint64_t d = 1; d * d <= count; ++d)
        if (count % d == 0)
            for (const uint64_t length : {d, count / d})
                if (length >= 2 && length <= count / 2) lengths.push_back(length);
    std::sort(lengths.begin(), lengths.end());
    lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
    std::vector<RowCandidate> supported;
    for (const uint64_t length : lengths) {
        RowCandidate best;
        for (const auto& list : steps) {
            const RowCandidate candidate = agreement(list, length);
            const double n = static_cast<double>(list.size());
            if (candidate.m_support < kLeastAgreement ||
                n * candidate.m_support * candidate.m_support < kLeastRayleigh ||
                candidate.m_support <= best.m_support || !crossRowsVariously(list, length))
                continue;
            best = candidate;
        }
        if (best.m_columns) supported.push_back(best);
    }
    // A walk by rows of C fits rows of C/2 nearly as well, and, at a steady pace, rows of 8C a
    // little (the rows crossed between samples vary little): of two lengths one of which divides
    // the other, the one the steps agree with better (the longer if nearly as well) stands alone.
    std::vector<RowCandidate> kept;
    for (const RowCandidate& candidate : supported) {
        const bool outdone = std::any_of(supported.begin(), supported.end(), [&](const RowCandidate& other) {
            if (other.m_columns > candidate.m_columns && other.m_columns % candidate.m_columns == 0)
                return other.m_support >= kDivisorShare * candidate.m_support;
            if (other.m_columns < candidate.m_columns && candidate.m_columns % other.m_columns == 0)
                return other.m_support * kDivisorShare > candidate.m_support;
            return false;
        });
        if (!outdone) kept.push_back(candidate);
    }
    std::sort(kept.begin(), kept.end(), [](const RowCandidate& a, const RowCandidate& b) {
        return a.m_support != b.m_support ? a.m_support > b.m_support : a.m_columns > b.m_columns;
    });
    return kept;
}

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

    guess.m_candidates = rowCandidates(stepsByInstruction(array, element), count);
    if (!guess.m_candidates.empty()) {
        const RowCandidate& best = guess.m_candidates.front();
        guess.m_shape.m_columns = best.m_columns;
        guess.m_shape.m_rows = count / best.m_columns;
        guess.m_rowConfidence = best.m_support;
        guess.m_how += "; rows of " + std::to_string(best.m_columns) + " elements (" + countText(best.m_steps) +
                       " steps between samples of one instruction cross whole rows plus about " +
                       std::to_string(best.m_offset) + " elements: " + percent(best.m_support) + " agreement";
        if (guess.m_candidates.size() > 1)
            guess.m_how += "; " + std::to_string(guess.m_candidates.size() - 1) + " other row length" +
                           (guess.m_candidates.size() > 2 ? "s" : "") + " supported less";
        guess.m_how += ")";
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
