// Array plans draw straight into their target: no tiles, no threads, no cache (a page of an
// array is drawn once, and a plane of 256 x 256 cells takes well under a millisecond).
#include "render/frame/array_plan.hpp"

namespace memlog::render {

std::string ArrayPlan::describe(const std::string& name) const {
    std::string text = name + ".kind=array " + name + ".plane=" + std::to_string(m_plane);
    if (m_touches) text += " " + name + ".lit=" + std::to_string(m_touches->size());
    if (m_playback)
        text += " " + name + ".frame=" + std::to_string(m_frame) + " " + name + ".fade=" + std::to_string(m_fade);
    return text;
}

void drawArrayPlan(const ArrayPlan& plan) {
    if (!plan.m_cells || !plan.m_target.m_pixels) return;
    if (plan.m_touches)
        drawFadingPlane(*plan.m_cells, *plan.m_touches, plan.m_plane, plan.m_target);
    else if (plan.m_playback)
        drawPlaybackPlane(*plan.m_cells, *plan.m_playback, plan.m_frame, plan.m_fade, plan.m_plane, plan.m_target);
    else
        drawCellPlane(*plan.m_cells, plan.m_plane, plan.m_colouring, plan.m_target);
}

}  // namespace memlog::render
