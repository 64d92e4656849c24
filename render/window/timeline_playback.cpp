// The timeline's playback: samples placed once per model and axis, the clock over their span.
#include "render/window/timeline_playback.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "timeline/trace/cache_views.hpp"

namespace memlog::render {

void TimelinePlayback::prepare(const timeline::BlockModel& model, timeline::XAxis axis,
                               const std::optional<timeline::CacheGeometry>& cache) {
    if (m_axis == axis) return;
    const std::span<const timeline::AccessMark> marks = model.accessMarks();
    std::vector<uint64_t> at;
    at.reserve(marks.size());
    uint64_t first = UINT64_MAX, last = 0;
    for (const timeline::AccessMark& mark : marks) {
        at.push_back(timeline::markX(mark, axis));
        first = std::min(first, at.back());
        last = std::max(last, at.back());
    }
    m_times = SampleTimes(std::move(at));
    m_clock = marks.empty() ? PlaybackClock() : PlaybackClock(first, last);
    if (cache && m_misses.size() != marks.size()) m_misses = timeline::missesOfAccesses(marks, *cache);
    m_axis = axis;
}

void TimelinePlayback::forget() {
    m_axis.reset();
    m_misses.clear();
}

bool TimelinePlayback::begin() {
    if (m_times.size() == 0) return false;
    m_begun = true;
    return true;
}

double TimelinePlayback::tick(std::chrono::steady_clock::time_point now) {
    const double seconds = std::chrono::duration<double>(now - m_lastTick).count();
    m_lastTick = now;
    return std::min(seconds, kLongestTick);
}

std::string TimelinePlayback::traceFields() const {
    char text[200];
    std::snprintf(text, sizeof text,
                  " page=timeline playback=%d playing=%d t=%" PRIu64 " from=%" PRIu64 " to=%" PRIu64
                  " speed=%g lit=%zu",
                  m_begun ? 1 : 0, m_clock.playing() ? 1 : 0, m_clock.now(), m_clock.from(), m_clock.to(),
                  m_clock.speed(), m_lit);
    return text;
}

}  // namespace memlog::render
