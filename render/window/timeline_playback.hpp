// The timeline played back (space, `.` `,` steps, `>` `<` speed, over the time x address view):
// the model's access samples placed on the x axis they were made for, the clock that plays them,
// with --cache which of them missed, and how many the last frame lit. Pages play with clocks of
// their own (WindowPage); the wall clock that moves whichever plays is here too. No SDL
// (tests/render/test_window_parts.cpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "render/window/playback_clock.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/trace/cache_model.hpp"

namespace memlog::render {

class TimelinePlayback {
public:
    static constexpr double kLongestTick = 0.25;  // seconds: a stalled frame does not jump the playback ahead

    // Ready for `model`'s samples on `axis`: placed again when the axis changed (the clock starts
    // over), and with `cache`, which of them missed (once per model).
    void prepare(const timeline::BlockModel& model, timeline::XAxis axis,
                 const std::optional<timeline::CacheGeometry>& cache);
    // A new model (a re-read): placed again on demand.
    void forget();
    // Playback asked for (play or a step): begun, unless there is no sample to play (false).
    bool begin();
    // Begun: the time line and the lit samples are drawn.
    bool begun() const { return m_begun; }

    PlaybackClock& clock() { return m_clock; }
    const PlaybackClock& clock() const { return m_clock; }
    const SampleTimes& times() const { return m_times; }
    // With --cache, per sample: 1 if it missed (empty without).
    const std::vector<uint8_t>& misses() const { return m_misses; }
    void setLit(size_t lit) { m_lit = lit; }
    size_t lit() const { return m_lit; }

    // The wall time since the last tick, at most kLongestTick; restartTicks(): from now.
    double tick(std::chrono::steady_clock::time_point now);
    void restartTicks(std::chrono::steady_clock::time_point now) { m_lastTick = now; }

    // --trace's fields: " page=timeline playback=1 playing=0 t=... from=... to=... speed=1 lit=3".
    std::string traceFields() const;

private:
    PlaybackClock m_clock;
    SampleTimes m_times;
    std::optional<timeline::XAxis> m_axis;  // the axis m_times are on; none: to be placed
    std::vector<uint8_t> m_misses;
    bool m_begun = false;
    size_t m_lit = 0;
    std::chrono::steady_clock::time_point m_lastTick;
};

}  // namespace memlog::render
