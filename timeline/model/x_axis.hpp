// The x axis of every picture and of the model's questions: time, the event order or the
// program's own instructions, and a stretch of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace memlog::timeline {

// What x means in a picture: ns since the recording started; the event sequence number (the
// recorder's global order, so a burst of a thousand events is a thousand units wide); or, for a
// full trace, the guest instructions the program's threads had run, summed over them
// (instruction_clock.hpp): the program's own time, which Valgrind's 30-100x slower wall clock
// is not. Time and Instructions both live in a block's time words (block.hpp), so a model holds
// one of them (BlockModel::clock()); Events reads its sequence numbers, whatever the clock.
enum class XAxis : uint8_t { Time, Events, Instructions };

// The clock a model must be built on to draw `axis`: Instructions for it, Time for the others.
inline XAxis clockOf(XAxis axis) { return axis == XAxis::Instructions ? XAxis::Instructions : XAxis::Time; }

// A point on the axis as the labels say it: "1.25 s", "event 1,234", "12.3M instr".
std::string xText(XAxis axis, double value);
// A stretch of the axis: "1.25 s", "1.2k events", "12.3M instr".
std::string xSpanText(XAxis axis, double width);
// As --x names it: "time", "events", "instructions".
const char* xAxisName(XAxis axis);
// The axis --x names, if any.
std::optional<XAxis> xAxisNamed(std::string_view name);
// The axis' title under a picture.
const char* xAxisTitle(XAxis axis);
// Why a log that counted no instructions cannot be drawn on them, one sentence naming `log`:
// memtimeline's --x and memlog index's refuse it in the same words.
std::string noInstructionCounts(const std::string& log);

// A stretch of the x axis, [m_from, m_to), in the units of its XAxis.
struct XWindow {
    uint64_t m_from = 0;
    uint64_t m_to = 0;
    uint64_t width() const { return m_to - m_from; }
    bool operator==(const XWindow&) const = default;
};

}  // namespace memlog::timeline
