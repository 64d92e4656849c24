// The clock keeps its time as a double so that a slow speed over a short span still moves
// (a frame of 16 ms at 1/16 speed over 1 ms of samples is 50 ps).
#include "render/window/playback_clock.hpp"

#include <algorithm>
#include <numeric>

namespace memlog::render {

PlaybackClock::PlaybackClock(uint64_t fromNs, uint64_t toNs)
    : m_fromNs(fromNs), m_toNs(std::max(toNs, fromNs + 1)), m_nowNs(fromNs), m_exactNs(static_cast<double>(fromNs)) {}

double PlaybackClock::fraction() const {
    return static_cast<double>(m_nowNs - m_fromNs) / static_cast<double>(m_toNs - m_fromNs);
}

uint64_t PlaybackClock::stepNs() const { return std::max<uint64_t>((m_toNs - m_fromNs) / kSteps, 1); }

void PlaybackClock::moveTo(double ns) {
    m_exactNs = std::clamp(ns, static_cast<double>(m_fromNs), static_cast<double>(m_toNs));
    m_nowNs = static_cast<uint64_t>(m_exactNs);
    if (m_exactNs >= static_cast<double>(m_toNs)) m_nowNs = m_toNs;
}

void PlaybackClock::togglePlaying() {
    if (!m_playing && atEnd()) moveTo(static_cast<double>(m_fromNs));
    m_playing = !m_playing;
}

void PlaybackClock::advance(double wallSeconds) {
    if (!m_playing || wallSeconds <= 0) return;
    const double span = static_cast<double>(m_toNs - m_fromNs);
    moveTo(m_exactNs + wallSeconds * m_speed * span / kWholeRunSeconds);
    if (atEnd()) m_playing = false;
}

void PlaybackClock::step(int steps) {
    m_playing = false;
    moveTo(m_exactNs + static_cast<double>(steps) * static_cast<double>(stepNs()));
}

void PlaybackClock::faster() { m_speed = std::min(m_speed * 2, kFastest); }
void PlaybackClock::slower() { m_speed = std::max(m_speed / 2, kSlowest); }

void PlaybackClock::restart() {
    m_playing = false;
    moveTo(static_cast<double>(m_fromNs));
}

SampleTimes::SampleTimes(std::vector<uint64_t> times) : m_order(times.size()) {
    std::iota(m_order.begin(), m_order.end(), size_t{0});
    std::stable_sort(m_order.begin(), m_order.end(), [&](size_t a, size_t b) { return times[a] < times[b]; });
    m_times.reserve(times.size());
    for (size_t index : m_order) m_times.push_back(times[index]);
}

std::vector<LitSample> SampleTimes::litAt(uint64_t nowNs, uint64_t fadeNs) const {
    const auto end = std::upper_bound(m_times.begin(), m_times.end(), nowNs);
    // Lit while now - fade < time: the first such time is (now - fade) + 1.
    const uint64_t earliest = fadeNs == 0 ? nowNs : nowNs >= fadeNs ? nowNs - fadeNs + 1 : 0;
    const auto begin = std::lower_bound(m_times.begin(), end, earliest);
    std::vector<LitSample> lit;
    lit.reserve(static_cast<size_t>(end - begin));
    for (auto at = begin; at != end; ++at) {
        const double age = static_cast<double>(nowNs - *at);
        const double strength = fadeNs == 0 ? 1.0 : 1.0 - age / static_cast<double>(fadeNs);
        lit.push_back({m_order[static_cast<size_t>(at - m_times.begin())], strength});
    }
    return lit;
}

size_t SampleTimes::playedBy(uint64_t nowNs) const {
    return static_cast<size_t>(std::upper_bound(m_times.begin(), m_times.end(), nowNs) - m_times.begin());
}

}  // namespace memlog::render
