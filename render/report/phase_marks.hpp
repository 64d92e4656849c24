// The program's phases (memlog_phase() in memlog.h) as labelled vertical lines over a time x
// address view, and as a list on the array page: when the program said it began what.
#pragma once

#include <cairo.h>

#include <cstdint>
#include <string>
#include <vector>

#include "render/report/cairo_draw.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/read/log_reader.hpp"

namespace memlog::render {

struct PhaseMark {
    uint64_t m_timeNs = 0;  // since the recording started (on the model's clock: phaseMarks)
    std::string m_name;
    bool operator==(const PhaseMark&) const = default;
};

// The log's phases (memlog_phase) on `model`'s clock: their times, or on a model of a full
// trace's instructions the instructions at each one's place in the sequence.
std::vector<PhaseMark> phaseMarks(const std::vector<timeline::Annotation>& annotations,
                                  const timeline::BlockModel& model);

// A dashed line at each phase inside `window` (on `axis`: a time, or the event at that time),
// its name beside it at the top of `view`; a name that would run into the next is shortened.
void drawPhaseMarks(cairo_t* cr, const std::vector<PhaseMark>& phases, const timeline::BlockModel& model,
                    timeline::XAxis axis, const timeline::XWindow& window, const Rect& view, double fontSize);

inline constexpr Rgb kPhaseColour{0.20, 0.20, 0.24};

}  // namespace memlog::render
