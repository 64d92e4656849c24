// The window's --trace lines, which the GUI tests read: one line a frame, `key=value` pairs, the
// timeline's view and plans (with the playback and the message shown, if any), or a page's own
// fields (render/window/window_pages.hpp describe()).
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "render/window/overlays.hpp"
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
    if (m_mode == WindowMode::Page)
        tracePage(milliseconds);
    else
        traceTimeline(milliseconds);
}

void TimelineWindow::traceTimeline(double milliseconds) {
    if (!hasLog()) {
        const double elapsed = m_log.secondsReading(SDL_GetTicks());
        const std::optional<double> left = secondsLeft(m_log.progress(), elapsed);
        traceLine("frame %" PRIu64 " loading %.2f elapsed=%.1f left=%s\n", m_frames, m_log.progress(), elapsed,
                  left ? std::to_string(static_cast<int>(std::round(*left))).c_str() : "-");
        return;
    }
    const Pointer::Hover& hovered = m_pointer.hover();
    const std::string hover = hovered.m_block ? std::to_string(*hovered.m_block) : "-";
    const std::string mark = hovered.m_mark ? std::to_string(*hovered.m_mark) : "-";  // an access sample's index
    std::string cursors;
    for (uint64_t cursor : m_state.m_cursors) cursors += (cursors.empty() ? "" : ",") + std::to_string(cursor);
    const std::string pinned = m_state.m_pinned ? std::to_string(*m_state.m_pinned) : "-";
    const auto shown = m_state.m_bins ? std::nullopt : m_view->addressScale().shownAddresses();
    const timeline::XWindow x = m_view->xWindow();
    const FrameContext& frame = *log().m_frame;
    traceLine("frame %" PRIu64 " ms=%.1f size=%dx%d x=%" PRIu64 ":%" PRIu64
              " axis=%s addr=%s:%s zoom=%.3g colour=%s "
              "cushion=%s bins=%s layout=%s alpha=%.2f accesses=%d cursors=%zu hover=%s mark=%s pinned=%s help=%d "
              "blocks=%zu loads=%" PRIu64 " read_on=%" PRIu64 " read_ms=%" PRIu32
              " "
              "font=%.1f at=%s pictures=%" PRIu64
              " build=%.1f paint=%.1f show=%.1f drawn=%zu folded=%zu context=%s "
              "draft_above=%zu preparing=%d draft=%d refined=%d interrupted=%d accesses.draft=%d%s\n",
              m_frames, milliseconds, m_window.pixelWidth(), m_window.pixelHeight(), x.m_from, x.m_to,
              timeline::xAxisName(m_state.m_axis), shown ? timeline::hexText(shown->first).c_str() : "-",
              shown ? timeline::hexText(shown->second).c_str() : "-", m_view->addressZoom(),
              colourByName(m_state.m_colourBy), cushionName(m_state.m_cushion),
              m_state.m_bins ? binKindName(*m_state.m_bins) : "none",
              m_state.m_layout == BinLayout::Time ? "time" : "address", m_state.m_alpha, m_state.m_accessMarks ? 1 : 0,
              m_state.m_cursors.size(), hover.c_str(), mark.c_str(), pinned.c_str(), m_state.m_help ? 1 : 0,
              log().m_model.size(), m_log.reads(), m_log.readsOn(), m_log.lastReadMs(), m_fontSize,
              cursors.empty() ? "-" : cursors.c_str(), m_picture.pictures(), m_buildMs, m_paintMs, m_showMs,
              frame.lastStats().m_items, frame.lastStats().m_foldedItems, m_contextLagged ? "lagging" : "current",
              frame.policy().draftAbove(), m_mode == WindowMode::Preparing ? 1 : 0,
              m_picture.state() != KeptPicture::State::Exact ? 1 : 0,
              m_picture.lastFrame() == KeptPicture::LastFrame::Refined ? 1 : 0,
              m_picture.lastFrame() == KeptPicture::LastFrame::GaveWay ? 1 : 0,
              m_picture.report() && m_picture.report()->drewAccessDraft() ? 1 : 0,
              (m_picture.plans() + m_playback.traceFields() + toastTrace()).c_str());
}

std::string TimelineWindow::toastTrace() const {
    std::string text = m_toastUntil ? m_toast : "-";
    for (char& c : text)
        if (c == ' ') c = '_';
    return " toast=" + text;
}

void TimelineWindow::tracePage(double milliseconds) {
    const timeline::XWindow x = m_view->xWindow();
    char head[200];
    std::snprintf(head, sizeof head,
                  "frame %" PRIu64 " ms=%.1f size=%dx%d x=%" PRIu64 ":%" PRIu64 " help=%d loads=%" PRIu64 " ", m_frames,
                  milliseconds, m_window.pixelWidth(), m_window.pixelHeight(), x.m_from, x.m_to, m_state.m_help ? 1 : 0,
                  m_log.reads());
    std::string prompt = m_prompt ? "[" + *m_prompt + "]" : "-";  // [] open and empty
    for (char& c : prompt)
        if (c == ' ') c = '_';
    diagnostics::trace(head + m_page->describe() + " prompt=" + prompt + toastTrace());
}

}  // namespace memlog::render
