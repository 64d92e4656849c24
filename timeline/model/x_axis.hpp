// The x axis of every picture and of the model's questions: time or the event order, and a
// stretch of it.
#pragma once

#include <cstdint>

namespace memlog::timeline {

// What x means in a picture: ns since the recording started, or the event sequence number
// (the recorder's global order, so a burst of a thousand events is a thousand units wide).
enum class XAxis : uint8_t { Time, Events };

// A stretch of the x axis, [m_from, m_to), in the units of its XAxis.
struct XWindow {
    uint64_t m_from = 0;
    uint64_t m_to = 0;
    uint64_t width() const { return m_to - m_from; }
    bool operator==(const XWindow&) const = default;
};

}  // namespace memlog::timeline
