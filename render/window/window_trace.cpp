// The window's --trace lines, which the GUI tests read: one line a frame, `key=value` pairs, the
// timeline's view and plans (with the playback and the message shown, if any), or a page's own
// fields (render/window/window_pages.hpp describe()).
#include <cinttypes>
#include <cstdarg>
#include <cstdio>

#include "render/window/timeline_window.hpp"
#include "timeline/base/diagnostics.hpp"
#include "timeline/base/text_format.hpp"

namespace memlog::render {

using timeline::XAxis;

namespace {

// A --trace line, formatted as printf does, through the diagnostics' trace logger.
[[gnu::format(printf, 1, 2)]] void traceLine(const char* format, ...) {
    va_list arguments;
    va_start(arguments, format);
    va_list copy;
    va_copy(copy, arguments);
    const int length = std::vsnprintf(nullptr, 0, format, copy);
    va_end(copy);
    std::string line(length > 0 ? static_cast<size_t>(length) : 0, '\0');
    std::vsnprintf(line.data(), line.size() + 1, format, arguments);
    va_end(arguments);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    diagnostics::trace(line);
}

}  // namespace

void TimelineWindow::trace(double milliseconds) {
    std::string hover = m_hovered ? std::to_string(*m_hovered) : "-";
    std::string mark = m_hoveredMark ? std::to_string(*m_hoveredMark) : "-";  // an access sample's index
    std::string cursors;
    for (uint64_t cursor : m_state.m_cursors) cursors += (cursors.empty() ? "" : ",") + std::to_string(cursor);
    std::string pinned = m_state.m_pinned ? std::to_string(*m_state.m_pinned) : "-";
    if (!m_log) {
        traceLine("frame %" PRIu64 " loading %.2f\n", m_frames, m_loader ? m_loader->progress() : 0.0);
        return;
    }
    const auto shown = m_state.m_bins ? std::nullopt : m_view->addressScale().shownAddresses();
    const timeline::XWindow x = m_view->xWindow();
    traceLine("frame %" PRIu64 " ms=%.1f size=%dx%d x=%" PRIu64 ":%" PRIu64
              " axis=%s addr=%s:%s zoom=%.3g colour=%s "
              "cushion=%s bins=%s layout=%s alpha=%.2f accesses=%d cursors=%zu hover=%s mark=%s pinned=%s help=%d blocks=%zu loads=%" PRIu64 " "
              "font=%.1f at=%s pictures=%" PRIu64
              " build=%.1f paint=%.1f show=%.1f drawn=%zu folded=%zu context=%s "
              "draft_above=%zu preparing=%d draft=%d refined=%d interrupted=%d%s\n",
              m_frames, milliseconds, m_window.pixelWidth(), m_window.pixelHeight(), x.m_from, x.m_to,
              m_state.m_axis == XAxis::Time ? "time" : "events", shown ? timeline::hexText(shown->first).c_str() : "-",
              shown ? timeline::hexText(shown->second).c_str() : "-", m_view->addressZoom(),
              colourByName(m_state.m_colourBy), cushionName(m_state.m_cushion),
              m_state.m_bins ? binKindName(*m_state.m_bins) : "none",
              m_state.m_layout == BinLayout::Time ? "time" : "address", m_state.m_alpha, m_state.m_accessMarks ? 1 : 0,
              m_state.m_cursors.size(), hover.c_str(), mark.c_str(), pinned.c_str(), m_state.m_help ? 1 : 0, m_log->m_model.size(), m_loads,
              m_fontSize, cursors.empty() ? "-" : cursors.c_str(), m_pictures, m_buildMs, m_paintMs, m_showMs,
              m_log->m_frame->lastStats().m_items, m_log->m_frame->lastStats().m_foldedItems,
              m_contextLagged ? "lagging" : "current", m_log->m_frame->policy().draftAbove(), preparing() ? 1 : 0,
              m_pictureState != PictureState::Exact ? 1 : 0, m_lastFrame == LastFrame::Refined ? 1 : 0,
              m_lastFrame == LastFrame::GaveWay ? 1 : 0, (m_lastPlans + playbackTrace()).c_str());
}

std::string TimelineWindow::toastTrace() const {
    std::string text = m_toastUntil ? m_toast : "-";
    for (char& c : text)
        if (c == ' ') c = '_';
    return " toast=" + text;
}

std::string TimelineWindow::playbackTrace() const {
    char text[200];
    std::snprintf(text, sizeof text,
                  " page=timeline playback=%d playing=%d t=%" PRIu64 " from=%" PRIu64 " to=%" PRIu64
                  " speed=%g lit=%zu",
                  m_timelinePlayback ? 1 : 0, m_clock.playing() ? 1 : 0, m_clock.now(), m_clock.from(), m_clock.to(),
                  m_clock.speed(), m_litMarks);
    return text + toastTrace();
}

void TimelineWindow::tracePage(double milliseconds) {
    const timeline::XWindow x = m_view->xWindow();
    char head[200];
    std::snprintf(head, sizeof head,
                  "frame %" PRIu64 " ms=%.1f size=%dx%d x=%" PRIu64 ":%" PRIu64 " help=%d loads=%" PRIu64 " ",
                  m_frames, milliseconds, m_window.pixelWidth(), m_window.pixelHeight(), x.m_from, x.m_to,
                  m_state.m_help ? 1 : 0, m_loads);
    std::string prompt = m_prompt ? "[" + *m_prompt + "]" : "-";  // [] open and empty
    for (char& c : prompt)
        if (c == ' ') c = '_';
    diagnostics::trace(head + m_page->describe() + " prompt=" + prompt + toastTrace());
}

}  // namespace memlog::render
