// Slices are equal in time, not in samples: a quiet stretch of the program shows as frames
// with little in them, as it would in a film of the run.
#include "timeline/accesses/array_playback.hpp"

#include <algorithm>

namespace memlog::timeline {

Playback playback(const SampledArray& array, const ArrayShape& shape, ArrayOrder order, uint32_t slices,
                  AccessFilter filter) {
    Playback result;
    slices = std::max<uint32_t>(slices, 1);
    result.m_touches.resize(slices);
    auto cellOf = [&](const ArraySample& sample, uint64_t& cell) {
        if (!passes(sample.m_kind, filter)) return false;
        const std::optional<uint64_t> at = cellOfOffset(sample.m_offset, shape, order);
        if (at) cell = *at;
        return at.has_value();
    };
    bool any = false;
    for (const ArraySample& sample : array.m_samples) {
        uint64_t cell = 0;
        if (!cellOf(sample, cell)) continue;
        result.m_firstNs = any ? std::min(result.m_firstNs, sample.m_timeNs) : sample.m_timeNs;
        result.m_lastNs = any ? std::max(result.m_lastNs, sample.m_timeNs) : sample.m_timeNs;
        any = true;
    }
    const uint64_t span = result.m_lastNs - result.m_firstNs;
    for (uint32_t s = 0; s < slices; ++s)
        result.m_sliceEndNs.push_back(
            s + 1 == slices ? result.m_lastNs
                            : result.m_firstNs + static_cast<uint64_t>(static_cast<double>(span) * (s + 1) / slices));
    for (const ArraySample& sample : array.m_samples) {
        uint64_t cell = 0;
        if (!cellOf(sample, cell)) continue;
        const size_t slice = static_cast<size_t>(
            std::lower_bound(result.m_sliceEndNs.begin(), result.m_sliceEndNs.end(), sample.m_timeNs) -
            result.m_sliceEndNs.begin());
        result.m_touches[std::min<size_t>(slice, slices - 1)].push_back(
            {cell, format::reads(sample.m_kind) && filter != AccessFilter::Writes,
             format::writes(sample.m_kind) && filter != AccessFilter::Reads});
    }
    return result;
}

}  // namespace memlog::timeline
