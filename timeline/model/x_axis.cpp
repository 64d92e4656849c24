// The axis' values as text, one place for every label, tip and legend that names a point of x.
#include "timeline/model/x_axis.hpp"

#include "timeline/base/text_format.hpp"

namespace memlog::timeline {

std::string xText(XAxis axis, double value) {
    switch (axis) {
        case XAxis::Time:
            return durationText(value);
        case XAxis::Events:
            return "event " + countText(static_cast<uint64_t>(value));
        case XAxis::Instructions:
            return shortCountText(value) + " instr";
    }
    return shortCountText(value);
}

std::string xSpanText(XAxis axis, double width) {
    if (axis == XAxis::Events) return shortCountText(width) + " events";
    return xText(axis, width);
}

const char* xAxisName(XAxis axis) {
    switch (axis) {
        case XAxis::Time:
            return "time";
        case XAxis::Events:
            return "events";
        case XAxis::Instructions:
            return "instructions";
    }
    return "";
}

std::string noInstructionCounts(const std::string& log) {
    return "--x instructions: " + log +
           " carries no instruction counts (memlog run --full-trace records them; an imported trace and one of"
           " Valgrind's lackey have none)";
}

std::optional<XAxis> xAxisNamed(std::string_view name) {
    for (const XAxis axis : {XAxis::Time, XAxis::Events, XAxis::Instructions})
        if (name == xAxisName(axis)) return axis;
    return std::nullopt;
}

const char* xAxisTitle(XAxis axis) {
    switch (axis) {
        case XAxis::Time:
            return "time since the recording started";
        case XAxis::Events:
            return "event (sequence number)";
        case XAxis::Instructions:
            return "instructions the program ran (all threads)";
    }
    return "";
}

}  // namespace memlog::timeline
