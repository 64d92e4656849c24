// Playing samples back in the window (MAPA): a clock over the samples' time that plays, pauses,
// steps and changes speed, and which samples are lit at its time and how strongly (a sample is
// lit from its own time until `fade` later, fading). No SDL and no pixels here: the window's
// pages and the timeline's overlay ask it, and its tests give it samples of their own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace memlog::render {

class PlaybackClock {
public:
    static constexpr double kWholeRunSeconds = 20;  // at speed 1 the span plays in this long
    static constexpr uint32_t kSteps = 200;  // a step moves this fraction of the span
    static constexpr uint32_t kFadeSteps = 6;  // a sample stays lit for this many steps
    static constexpr double kSlowest = 1.0 / 16, kFastest = 64;

    PlaybackClock() = default;
    // Over [fromNs, toNs] (toNs > fromNs; a single moment is widened to 1 ns), at fromNs, paused.
    PlaybackClock(uint64_t fromNs, uint64_t toNs);

    uint64_t now() const { return m_nowNs; }
    uint64_t from() const { return m_fromNs; }
    uint64_t to() const { return m_toNs; }
    double fraction() const;  // 0 at the start, 1 at the end
    bool playing() const { return m_playing; }
    bool atEnd() const { return m_nowNs >= m_toNs; }
    double speed() const { return m_speed; }
    uint64_t stepNs() const;
    // How long a sample stays lit after its own time.
    uint64_t fadeNs() const { return stepNs() * kFadeSteps; }

    // Play or pause; playing at the end starts again from the beginning.
    void togglePlaying();
    void pause() { m_playing = false; }
    // While playing: `wallSeconds` of real time pass; the clock stops (paused) at the end.
    void advance(double wallSeconds);
    // `steps` steps forward (negative: back), clamped to the span; pauses.
    void step(int steps);
    void faster();  // speed twice, at most kFastest
    void slower();  // half, at least kSlowest
    void restart();  // back to the start, paused

private:
    void moveTo(double ns);
    uint64_t m_fromNs = 0, m_toNs = 1, m_nowNs = 0;
    double m_exactNs = 0;  // the clock's time without rounding (advances are fractions of a ns)
    double m_speed = 1;
    bool m_playing = false;
};

// A sample lit at the clock's time: its index among the samples given, and how strongly,
// from 1 (at its own time) down towards 0 (about to go out).
struct LitSample {
    size_t m_index = 0;
    double m_strength = 0;
    bool operator==(const LitSample&) const = default;
};

// Sample times in any order, sorted once, asked many times.
class SampleTimes {
public:
    SampleTimes() = default;
    explicit SampleTimes(std::vector<uint64_t> times);
    size_t size() const { return m_times.size(); }
    // The samples with now - fade < time <= now, oldest first (fade 0: those exactly at now).
    std::vector<LitSample> litAt(uint64_t nowNs, uint64_t fadeNs) const;
    // How many samples have time <= now: how far the playback has come.
    size_t playedBy(uint64_t nowNs) const;

private:
    std::vector<uint64_t> m_times;  // ascending
    std::vector<size_t> m_order;  // m_order[k]: the index given of the k-th in time
};

}  // namespace memlog::render
