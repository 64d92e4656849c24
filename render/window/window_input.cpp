// Input: SDL events become view changes and choices. Positions arrive in window points and
// are turned into drawable pixels (HiDPI) before anything else looks at them.
#include <algorithm>
#include <cmath>

#include "render/raster/x_scale.hpp"
#include "render/window/timeline_window.hpp"

namespace memlog::render {

using timeline::XAxis;

namespace {

constexpr double kZoomStep = 1.25;  // one wheel notch or key press
constexpr double kPanStep = 0.1;  // arrows: a tenth of the view
constexpr double kClickSlop = 3;  // pixels a press may move and still be a click
constexpr double kCursorReach = 5;  // pixels either side of a cursor line that grab it

bool inside(const Rect& rect, double x, double y) {
    return x >= rect.m_x && x < rect.right() && y >= rect.m_y && y < rect.bottom();
}

}  // namespace

bool TimelineWindow::handle(const SDL_Event& event) {
    const double scale = m_window.pixelsPerPoint();
    switch (event.type) {
        case SDL_QUIT:
            return false;
        case SDL_WINDOWEVENT:
            if (event.window.event == SDL_WINDOWEVENT_SIZE_CHANGED || event.window.event == SDL_WINDOWEVENT_EXPOSED)
                m_dirty = true;
            if (event.window.event == SDL_WINDOWEVENT_LEAVE) {
                m_pointerX = m_pointerY = -1;
                m_hovered.reset();
                m_hoveredMark.reset();
                m_hoveredBar.reset();
                m_dirty = true;
            }
            break;
        case SDL_KEYUP:
            m_modifiers = event.key.keysym.mod;
            break;
        case SDL_TEXTINPUT:
            handlePrompt(event);
            break;
        case SDL_KEYDOWN:
            m_modifiers = event.key.keysym.mod;
            if (handlePrompt(event)) break;
            if (const auto action = actionOf(event.key.keysym.sym, event.key.keysym.mod)) {
                if (*action == Action::Quit) return false;
                perform(*action);
            }
            break;
        case SDL_MOUSEBUTTONDOWN:
            onPress(event.button.button, event.button.x * scale, event.button.y * scale, modifiersNow());
            break;
        case SDL_MOUSEBUTTONUP:
            onRelease(event.button.button, event.button.x * scale, event.button.y * scale);
            break;
        case SDL_MOUSEMOTION:
            onMotion(event.motion.x * scale, event.motion.y * scale);
            break;
        case SDL_MOUSEWHEEL:
            onWheel(event.wheel.preciseY != 0 ? event.wheel.preciseY : event.wheel.y, modifiersNow());
            break;
        default:
            break;  // the loader's wake-up needs nothing here: run() looks at it
    }
    return true;
}

void TimelineWindow::perform(Action action) {
    m_dirty = true;
    if (!m_log) return;
    switch (action) {  // the same on the timeline and on a page
        case Action::PlayPause:
        case Action::StepForward:
        case Action::StepBack:
        case Action::Faster:
        case Action::Slower:
            performPlayback(action);
            return;
        case Action::MemoryView:
        case Action::WorkingSetView:
            openCachePage(action == Action::MemoryView);
            return;
        case Action::Help:
            m_state.m_help = !m_state.m_help;
            if (!m_page) updateHover();  // the help hides the tooltip
            return;
        default:
            break;
    }
    if (m_page) {  // a page: Esc closes what is over it, then the page; d asks an array's shape
        if (action == Action::Unpin) {
            if (m_state.m_help)
                m_state.m_help = false;
            else
                closePage();
        } else if (action == Action::Dimensions && dynamic_cast<ArrayWindowPage*>(m_page.get())) {
            m_prompt = "";
            SDL_StartTextInput();  // on by default on desktops; asked for in case it is not
        } else if (action == Action::Export) {
            exportView();
        }
        return;
    }
    if (action == Action::ArrayView) {
        openArrayView(std::nullopt);
        return;
    }
    if (action == Action::Dimensions) {
        toast("d gives an array view its dimensions: open one first with v on a block");
        return;
    }
    const Rect view = areaUnder(m_pointerX, m_pointerY);
    // Keys zoom about the pointer when it is over a view, else about the middle.
    const bool over = inside(view, m_pointerX, m_pointerY);
    const double fraction = over ? (m_pointerX - view.m_x) / view.m_width : 0.5;
    const double row = over ? m_pointerY - view.m_y : view.m_height / 2;
    const bool addresses = !m_state.m_bins;  // correlated views zoom in time only
    switch (action) {
        case Action::ZoomIn:
            m_view->zoomX(kZoomStep, fraction);
            if (addresses) m_view->zoomAddress(kZoomStep, row);
            break;
        case Action::ZoomOut:
            m_view->zoomX(1 / kZoomStep, fraction);
            if (addresses) m_view->zoomAddress(1 / kZoomStep, row);
            break;
        case Action::ZoomInTime:
            m_view->zoomX(kZoomStep, fraction);
            break;
        case Action::ZoomOutTime:
            m_view->zoomX(1 / kZoomStep, fraction);
            break;
        case Action::ZoomInAddress:
            if (addresses) m_view->zoomAddress(kZoomStep, row);
            break;
        case Action::ZoomOutAddress:
            if (addresses) m_view->zoomAddress(1 / kZoomStep, row);
            break;
        case Action::PanLeft:
            m_view->panX(-kPanStep);
            break;
        case Action::PanRight:
            m_view->panX(kPanStep);
            break;
        case Action::PanUp:
            if (addresses) m_view->panAddress(-kPanStep * view.m_height);
            break;
        case Action::PanDown:
            if (addresses) m_view->panAddress(kPanStep * view.m_height);
            break;
        case Action::Reset:
            m_view->reset();
            break;
        case Action::NextColour:
            m_state.nextColour();
            break;
        case Action::NextCushion:
            m_state.nextCushion();
            break;
        case Action::ToggleAxis: {
            // The same stretch of the log on the other axis: its first and last block events.
            const timeline::XWindow shown = m_view->xWindow();
            const XAxis from = m_state.m_axis;
            m_state.m_axis = from == XAxis::Time ? XAxis::Events : XAxis::Time;
            const timeline::BlockModel& model = m_log->m_model;
            const bool whole = shown.m_from <= model.extent(from).m_from && shown.m_to >= model.extent(from).m_to;
            m_state.m_cursors.clear();  // cursors are in the old axis' units
            resetView();
            if (!whole && from == XAxis::Time) {
                m_view->showX(static_cast<double>(model.seqAtTime(shown.m_from)),
                              static_cast<double>(model.seqAtTime(shown.m_to)));
            }
            break;
        }
        case Action::NextBins:
            m_state.nextBins();
            break;
        case Action::ToggleLayout:
            m_state.m_layout = m_state.m_layout == BinLayout::Time ? BinLayout::Address : BinLayout::Time;
            break;
        case Action::AlphaDown:
            m_state.m_alpha = std::max(ControlStrip::kMinAlpha, std::round((m_state.m_alpha - 0.05) * 100) / 100);
            m_contextBehind = true;
            break;
        case Action::AlphaUp:
            m_state.m_alpha = std::min(1.0, std::round((m_state.m_alpha + 0.05) * 100) / 100);
            m_contextBehind = true;
            break;
        case Action::ToggleAccesses:
            m_state.m_accessMarks = !m_state.m_accessMarks;
            break;
        case Action::AddCursor:
            if (m_report && m_pointerX >= 0) m_state.m_cursors.push_back(xUnder(m_pointerX, m_pointerY));
            break;
        case Action::ClearCursors:
            m_state.m_cursors.clear();
            break;
        case Action::Unpin:
            if (m_state.m_help)
                m_state.m_help = false;
            else
                m_state.m_pinned.reset();
            break;
        case Action::Export:
            exportView();
            break;
        default:
            break;  // handled above
    }
    updateHover();
}

void TimelineWindow::onPress(int button, double x, double y, uint16_t modifiers) {
    m_pointerX = x;
    m_pointerY = y;
    m_pressX = x;
    m_pressY = y;
    m_moved = false;
    m_dirty = true;
    if (!m_log || !m_report || m_page) return;
    if (m_state.m_pinned && button == SDL_BUTTON_LEFT && inside(m_arrayButton, x, y)) {
        openArrayView(m_state.m_pinned);
        return;
    }
    if (const auto control = m_strip.at(x, y)) {
        if (button == SDL_BUTTON_LEFT) {
            if (*control == Control::Alpha) m_drag = Drag::Alpha;
            clickControl(*control, x);
        }
        return;
    }
    const double reportY = y - reportTop();
    if (const auto cursor = cursorAt(x, y)) {
        if (button == SDL_BUTTON_RIGHT) {
            m_state.m_cursors.erase(m_state.m_cursors.begin() + static_cast<long>(*cursor));
        } else {
            m_drag = Drag::Cursor;
            m_dragCursor = *cursor;
        }
        return;
    }
    if (!m_state.m_bins && inside(m_report->layout().m_context, x, reportY)) {
        m_drag = Drag::Context;
        moveContext(x, y);
        return;
    }
    if (!m_report->pointAt(x, reportY)) return;
    const bool box = button == SDL_BUTTON_RIGHT || (button == SDL_BUTTON_LEFT && (modifiers & KMOD_SHIFT));
    if (box)
        m_drag = Drag::Box;
    else if (button == SDL_BUTTON_LEFT)
        m_drag = Drag::Pan;
}

void TimelineWindow::onRelease(int button, double x, double y) {
    (void)button;
    m_pointerX = x;
    m_pointerY = y;
    const Drag drag = m_drag;
    m_drag = Drag::None;
    m_dirty = true;
    if (!m_log || m_page) return;
    if (drag == Drag::Pan && !m_moved) {
        // A click: pin the block under the pointer, or under the access sample it rests on (a
        // densely sampled block is mostly samples), or unpin.
        updateHover();
        const std::optional<size_t> under = m_hovered ? m_hovered : blockOfHoveredMark();
        if (under && under != m_state.m_pinned)
            m_state.m_pinned = under;
        else
            m_state.m_pinned.reset();
    } else if (drag == Drag::Box && m_moved) {
        const Rect view = mainView();
        m_view->zoomToBox((m_pressX - view.m_x) / view.m_width, m_pressY - view.m_y, (x - view.m_x) / view.m_width,
                          m_state.m_bins ? m_pressY - view.m_y : y - view.m_y);
    }
    updateHover();
}

void TimelineWindow::onMotion(double x, double y) {
    const double dx = x - m_pointerX, dy = y - m_pointerY;
    m_pointerX = x;
    m_pointerY = y;
    if (std::fabs(x - m_pressX) > kClickSlop || std::fabs(y - m_pressY) > kClickSlop) m_moved = true;
    if (!m_log || m_page) return;
    const Rect view = mainView();
    switch (m_drag) {
        case Drag::Pan:
            if (m_moved) {
                m_view->panX(-dx / view.m_width);
                if (!m_state.m_bins) m_view->panAddress(-dy);
                m_dirty = true;
            }
            return;
        case Drag::Box:
            m_dirty = true;
            return;
        case Drag::Context:
            moveContext(x, y);
            return;
        case Drag::Cursor:
            m_state.m_cursors[m_dragCursor] = xUnder(x, y);
            m_dirty = true;
            return;
        case Drag::Alpha:
            m_state.m_alpha = m_strip.alphaAt(x);
            m_dirty = true;
            return;
        case Drag::None:
            break;
    }
    const auto hovered = m_hovered, mark = m_hoveredMark;
    const auto bar = m_hoveredBar;
    updateHover();
    // A tooltip follows the pointer: redraw whenever one is shown or changes.
    if (m_hovered != hovered || m_hoveredMark != mark || m_hoveredBar != bar || m_hovered || m_hoveredMark ||
        m_hoveredBar)
        m_dirty = true;
}

void TimelineWindow::onWheel(double notches, uint16_t modifiers) {
    if (!m_log || m_page || notches == 0) return;
    const Rect view = areaUnder(m_pointerX, m_pointerY);
    if (!inside(view, m_pointerX, m_pointerY)) return;
    const double factor = std::pow(kZoomStep, notches);
    const double fraction = (m_pointerX - view.m_x) / view.m_width, row = m_pointerY - view.m_y;
    const bool addressOnly = (modifiers & KMOD_SHIFT) && !(modifiers & KMOD_CTRL);
    const bool both = modifiers & KMOD_CTRL;
    if (!addressOnly) m_view->zoomX(factor, fraction);
    if ((addressOnly || both) && !m_state.m_bins) m_view->zoomAddress(factor, row);
    m_dirty = true;
    updateHover();
}

void TimelineWindow::clickControl(Control control, double x) {
    switch (control) {
        case Control::Colour:
            perform(Action::NextColour);
            break;
        case Control::Cushion:
            perform(Action::NextCushion);
            break;
        case Control::Axis:
            perform(Action::ToggleAxis);
            break;
        case Control::Bins:
            perform(Action::NextBins);
            break;
        case Control::Layout:
            perform(Action::ToggleLayout);
            break;
        case Control::Accesses:
            perform(Action::ToggleAccesses);
            break;
        case Control::Alpha:
            m_state.m_alpha = m_strip.alphaAt(x);
            break;
        case Control::Export:
            perform(Action::Export);
            break;
        case Control::Help:
            perform(Action::Help);
            break;
    }
    m_dirty = true;
}

// The context view is MemoView's scrollbar: a click or drag there centres the view on that
// moment and address, keeping the zoom.
void TimelineWindow::moveContext(double x, double y) {
    const Rect& area = m_report->layout().m_context;
    const double reportY = y - reportTop();
    const timeline::XWindow whole = m_log->m_model.extent(m_state.m_axis);
    const XScale scale(whole, area.m_width);
    const double at = scale.value(std::clamp(x - area.m_x, 0.0, area.m_width));
    m_view->panX((at - (m_view->x().m_from + m_view->x().width() / 2)) / m_view->x().width());
    const double row = std::clamp(reportY - area.m_y, 0.0, area.m_height - 1);
    if (const auto address = m_report->contextScale().addressAt(row)) m_view->centreAddress(*address);
    m_dirty = true;
}

// The view or bar under a pointer, in window pixels (correlated views each have their own),
// else the main view.
Rect TimelineWindow::areaUnder(double x, double y) const {
    if (m_report)
        for (const ViewCell& cell : m_report->layout().m_cells)
            for (const Rect* candidate : {&cell.m_view, &cell.m_bar})
                if (inside(*candidate, x, y - reportTop()))
                    return {candidate->m_x, candidate->m_y + reportTop(), candidate->m_width, candidate->m_height};
    return mainView();
}

// The x value under a pointer, clamped to the edges of the view it is over.
uint64_t TimelineWindow::xUnder(double x, double y) const {
    const Rect area = areaUnder(x, y);
    const XScale scale(m_view->xWindow(), area.m_width);
    return static_cast<uint64_t>(scale.value(std::clamp(x - area.m_x, 0.0, area.m_width)));
}

std::optional<size_t> TimelineWindow::cursorAt(double x, double y) const {
    if (!m_report || m_state.m_cursors.empty()) return std::nullopt;
    const double reportY = y - reportTop();
    for (const ViewCell& cell : m_report->layout().m_cells) {
        for (const Rect* area : {&cell.m_view, &cell.m_bar}) {
            if (!inside(*area, x, reportY)) continue;
            const XScale scale(m_view->xWindow(), area->m_width);
            for (size_t i = 0; i < m_state.m_cursors.size(); ++i)
                if (std::fabs(area->m_x + scale.x(static_cast<double>(m_state.m_cursors[i])) - x) <= kCursorReach)
                    return i;
        }
    }
    return std::nullopt;
}

std::optional<size_t> TimelineWindow::markAt(double x, double y) const {
    if (!m_state.m_accessMarks || m_state.m_bins || !m_report) return std::nullopt;
    const Rect view = mainView();
    if (!inside(view, x, y)) return std::nullopt;
    const auto& marks = m_log->m_model.accessMarks();
    const XScale scale(m_view->xWindow(), view.m_width);
    const AddressScale& rows = m_view->addressScale();
    for (size_t i = marks.size(); i-- > 0;) {  // writes are drawn last: find them first
        const uint64_t at = m_state.m_axis == XAxis::Time ? marks[i].m_timeNs : marks[i].m_seq;
        const auto row = rows.y(marks[i].m_addr);
        if (!row) continue;
        if (std::fabs(view.m_x + scale.x(static_cast<double>(at)) - x) <= 2.5 && std::fabs(view.m_y + *row - y) <= 2.5)
            return i;
    }
    return std::nullopt;
}

void TimelineWindow::updateHover() {
    m_hovered.reset();
    m_hoveredMark.reset();
    m_hoveredBar.reset();
    // While the frame context is being prepared on its thread, nothing may ask it.
    if (!m_log || !m_report || m_pointerX < 0 || m_state.m_help || preparing()) return;
    const double reportY = m_pointerY - reportTop();
    m_hoveredMark = markAt(m_pointerX, m_pointerY);
    if (m_hoveredMark) return;
    if (const auto point = m_report->pointAt(m_pointerX, reportY)) {
        const auto found = m_log->blockAt(point->first, point->second);
        // In correlated views only the view's own bin counts: the block must be drawn there.
        if (found) {
            for (const Rect& rect : m_report->blockRects(m_log->m_model[*found]))
                if (inside({rect.m_x - 2, rect.m_y - 2, rect.m_width + 4, rect.m_height + 4}, m_pointerX, reportY))
                    m_hovered = found;
        }
        return;
    }
    m_hoveredBar = m_report->barPointAt(m_pointerX, reportY);
}

}  // namespace memlog::render
