// Lines in Cairo over the view's raster (not a layer of it): they carry text, and text is the
// report's, never the raster's.
#include "render/report/phase_marks.hpp"

#include <algorithm>
#include <cmath>

namespace memlog::render {

std::vector<PhaseMark> phaseMarks(const std::vector<timeline::Annotation>& annotations,
                                  const timeline::BlockModel& model) {
    std::vector<PhaseMark> marks;
    for (const timeline::Annotation& annotation : annotations)
        if (annotation.m_what == format::AnnotationKind::Phase)
            marks.push_back({model.clock() == timeline::XAxis::Instructions ? model.clockAtSeq(annotation.m_seq)
                                                                             : annotation.m_timeNs,
                             annotation.m_text});
    return marks;
}

void drawPhaseMarks(cairo_t* cr, const std::vector<PhaseMark>& phases, const timeline::BlockModel& model,
                    timeline::XAxis axis, const timeline::XWindow& window, const Rect& view, double fontSize) {
    if (phases.empty() || window.m_to <= window.m_from) return;
    std::vector<std::pair<double, std::string>> shown;
    for (const PhaseMark& phase : phases) {
        const uint64_t at = axis == timeline::XAxis::Events ? model.seqAtTime(phase.m_timeNs) : phase.m_timeNs;
        if (at < window.m_from || at > window.m_to) continue;
        const double x = view.m_x + static_cast<double>(at - window.m_from) /
                                        static_cast<double>(window.m_to - window.m_from) * view.m_width;
        shown.emplace_back(std::round(x) + 0.5, phase.m_name);
    }
    cairo_save(cr);
    const double dash[] = {4, 3};
    cairo_set_dash(cr, dash, 2, 0);
    cairo_set_line_width(cr, 1.5);
    setColour(cr, kPhaseColour);
    for (const auto& [x, name] : shown) {
        cairo_move_to(cr, x, view.m_y);
        cairo_line_to(cr, x, view.bottom());
    }
    cairo_stroke(cr);
    cairo_restore(cr);
    setFont(cr, fontSize * 0.95, true);
    for (size_t i = 0; i < shown.size(); ++i) {
        const auto& [x, name] = shown[i];
        const double room = (i + 1 < shown.size() ? shown[i + 1].first : view.right()) - x - fontSize * 0.8;
        if (room < fontSize * 2) continue;
        const double width = std::min(textWidth(cr, name), room);
        const Rect label{x + fontSize * 0.3, view.m_y + fontSize * 0.3, width + fontSize * 0.5, fontSize * 1.4};
        fillRect(cr, label, {1, 1, 1});
        strokeRect(cr, label, kPhaseColour, 0.75);
        setColour(cr, kPhaseColour);
        drawText(cr, name, label.m_x + fontSize * 0.25, label.m_y + fontSize * 1.05, Align::Left, room);
    }
}

}  // namespace memlog::render
