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
                m_pointer.leave();
                m_dirty = true;
            }
            break;
        case SDL_KEYUP:
            m_pointer.keys(event.key.keysym.mod);
            break;
        case SDL_TEXTINPUT:
            handlePrompt(event);
            break;
        case SDL_KEYDOWN:
            m_pointer.keys(event.key.keysym.mod);
            if (handlePrompt(event)) break;
            if (const auto action = actionOf(event.key.keysym.sym, event.key.keysym.mod)) {
                if (*action == Action::Quit) return false;
                perform(*action);
            }
            break;
        case SDL_MOUSEBUTTONDOWN:
            onPress(event.button.button, event.button.x * scale, event.button.y * scale,
                    m_pointer.modifiers(static_cast<uint16_t>(SDL_GetModState())));
            break;
        case SDL_MOUSEBUTTONUP:
            onRelease(event.button.button, event.button.x * scale, event.button.y * scale);
            break;
        case SDL_MOUSEMOTION:
            onMotion(event.motion.x * scale, event.motion.y * scale);
            break;
        case SDL_MOUSEWHEEL:
            onWheel(event.wheel.preciseY != 0 ? event.wheel.preciseY : event.wheel.y,
                    m_pointer.modifiers(static_cast<uint16_t>(SDL_GetModState())));
            break;
        default:
            break;  // the loader's wake-up needs nothing here: run() looks at it
    }
    return true;
}

void TimelineWindow::perform(Action action) {
    m_dirty = true;
    if (!hasLog()) return;
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
        case Action::CompareView:
            openComparePage(std::nullopt);
            return;
        case Action::Help:
            m_state.m_help = !m_state.m_help;
            if (m_mode != WindowMode::Page) updateHover();  // the help hides the tooltip
            return;
        default:
            break;
    }
    if (m_mode == WindowMode::Page) {  // Esc closes what is over the page, then it; d asks an array's shape
        if (moveTimeOnPage(action)) return;
        if (action == Action::Unpin) {
            if (m_state.m_help)
                m_state.m_help = false;
            else
                closePage();
        } else if (action == Action::Dimensions && dynamic_cast<ArrayWindowPage*>(m_page.get())) {
            m_prompt = "";
            SDL_StartTextInput();  // on by default on desktops; asked for in case it is not
        } else if (action == Action::NextRowLength && dynamic_cast<ArrayWindowPage*>(m_page.get())) {
            if (const std::string why = static_cast<ArrayWindowPage*>(m_page.get())->nextRowLength(); !why.empty())
                toast(why);
        } else if (action == Action::Export) {
            exportView();
        } else if (auto* array = dynamic_cast<ArrayWindowPage*>(m_page.get());
                   array && (action == Action::ZoomIn || action == Action::ZoomOut)) {
            if (array->zoomTiles(action == Action::ZoomIn)) m_dirty = true;
        }
        return;
    }
    performOnTimeline(action);
}

// An action on the time x address views (drawn, or dimmed while the context is prepared).
void TimelineWindow::performOnTimeline(Action action) {
    if (action == Action::ArrayView) {
        openArrayView(std::nullopt);
        return;
    }
    if (action == Action::Dimensions || action == Action::NextRowLength) {
        toast(std::string(action == Action::Dimensions ? "d gives an array view its dimensions"
                                                       : "r goes through an array view's row lengths") +
              ": open one first with v on a block");
        return;
    }
    const double x = m_pointer.x(), y = m_pointer.y();
    const Rect view = areaUnder(x, y);
    // Keys zoom about the pointer when it is over a view, else about the middle.
    const bool over = inside(view, x, y);
    const double fraction = over ? (x - view.m_x) / view.m_width : 0.5;
    const double row = over ? y - view.m_y : view.m_height / 2;
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
        case Action::ToggleAxis:
            nextAxis();
            break;
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
            if (report() && m_pointer.inWindow()) m_state.m_cursors.push_back(xUnder(x, y));
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
    m_pointer.press(x, y);
    m_dirty = true;
    if (!timelineShown() || !report()) return;
    if (m_state.m_pinned && button == SDL_BUTTON_LEFT && inside(m_arrayButton, x, y)) {
        openArrayView(m_state.m_pinned);
        return;
    }
    if (const auto control = m_strip.at(x, y)) {
        if (button == SDL_BUTTON_LEFT) {
            if (*control == Control::Alpha) m_pointer.beginDrag(Pointer::Drag::Alpha);
            clickControl(*control, x);
        }
        return;
    }
    const double reportY = y - reportTop();
    if (const auto cursor = cursorAt(x, y)) {
        if (button == SDL_BUTTON_RIGHT) {
            m_state.m_cursors.erase(m_state.m_cursors.begin() + static_cast<long>(*cursor));
        } else {
            m_pointer.beginDrag(Pointer::Drag::Cursor, *cursor);
        }
        return;
    }
    if (!m_state.m_bins && inside(report()->layout().m_context, x, reportY)) {
        m_pointer.beginDrag(Pointer::Drag::Context);
        moveContext(x, y);
        return;
    }
    if (!report()->pointAt(x, reportY)) return;
    const bool box = button == SDL_BUTTON_RIGHT || (button == SDL_BUTTON_LEFT && (modifiers & KMOD_SHIFT));
    if (box)
        m_pointer.beginDrag(Pointer::Drag::Box);
    else if (button == SDL_BUTTON_LEFT)
        m_pointer.beginDrag(Pointer::Drag::Pan);
}

void TimelineWindow::onRelease(int button, double x, double y) {
    (void)button;
    const Pointer::Drag drag = m_pointer.release(x, y);
    m_dirty = true;
    if (!timelineShown()) return;
    if (drag == Pointer::Drag::Pan && !m_pointer.moved()) {
        // A click: pin the block under the pointer, or under the access sample it rests on (a
        // densely sampled block is mostly samples), or unpin.
        updateHover();
        const std::optional<size_t> under =
            m_pointer.hover().m_block ? m_pointer.hover().m_block : blockOfHoveredMark();
        if (under && under != m_state.m_pinned)
            m_state.m_pinned = under;
        else
            m_state.m_pinned.reset();
    } else if (drag == Pointer::Drag::Box && m_pointer.moved()) {
        const Rect view = mainView();
        const double pressX = m_pointer.pressX(), pressY = m_pointer.pressY();
        m_view->zoomToBox((pressX - view.m_x) / view.m_width, pressY - view.m_y, (x - view.m_x) / view.m_width,
                          m_state.m_bins ? pressY - view.m_y : y - view.m_y);
    }
    updateHover();
}

void TimelineWindow::onMotion(double x, double y) {
    const auto [dx, dy] = m_pointer.move(x, y);
    if (!timelineShown()) return;
    const Rect view = mainView();
    switch (m_pointer.drag()) {
        case Pointer::Drag::Pan:
            if (m_pointer.moved()) {
                m_view->panX(-dx / view.m_width);
                if (!m_state.m_bins) m_view->panAddress(-dy);
                m_dirty = true;
            }
            return;
        case Pointer::Drag::Box:
            m_dirty = true;
            return;
        case Pointer::Drag::Context:
            moveContext(x, y);
            return;
        case Pointer::Drag::Cursor:
            m_state.m_cursors[m_pointer.dragCursor()] = xUnder(x, y);
            m_dirty = true;
            return;
        case Pointer::Drag::Alpha:
            m_state.m_alpha = m_strip.alphaAt(x);
            m_dirty = true;
            return;
        case Pointer::Drag::None:
            break;
    }
    const Pointer::Hover before = m_pointer.hover();
    updateHover();
    // A tooltip follows the pointer: redraw whenever one is shown or changes.
    if (m_pointer.hover() != before || m_pointer.hover().any()) m_dirty = true;
}

// Zoom and pan in time on a page that has a time axis (the compare page: both runs move).
bool TimelineWindow::moveTimeOnPage(Action action) {
    switch (action) {
        case Action::ZoomIn:
        case Action::ZoomInTime:
            return m_page->zoomTime(kZoomStep, m_pointer.inWindow() ? m_pointer.x() : -1);
        case Action::ZoomOut:
        case Action::ZoomOutTime:
            return m_page->zoomTime(1 / kZoomStep, m_pointer.inWindow() ? m_pointer.x() : -1);
        case Action::PanLeft:
            return m_page->panTime(-kPanStep);
        case Action::PanRight:
            return m_page->panTime(kPanStep);
        case Action::Reset:
            return m_page->resetTime();
        default:
            return false;
    }
}

void TimelineWindow::onWheel(double notches, uint16_t modifiers) {
    if (m_mode == WindowMode::Page && notches != 0 && !(modifiers & KMOD_SHIFT)) {
        if (m_page->zoomTime(std::pow(kZoomStep, notches), m_pointer.x())) m_dirty = true;
        return;
    }
    if (!timelineShown() || notches == 0) return;
    const double x = m_pointer.x(), y = m_pointer.y();
    const Rect view = areaUnder(x, y);
    if (!inside(view, x, y)) return;
    const double factor = std::pow(kZoomStep, notches);
    const double fraction = (x - view.m_x) / view.m_width, row = y - view.m_y;
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
    const Rect& area = report()->layout().m_context;
    const double reportY = y - reportTop();
    const timeline::XWindow whole = log().m_model.extent(m_state.m_axis);
    const XScale scale(whole, area.m_width);
    const double at = scale.value(std::clamp(x - area.m_x, 0.0, area.m_width));
    m_view->panX((at - (m_view->x().m_from + m_view->x().width() / 2)) / m_view->x().width());
    const double row = std::clamp(reportY - area.m_y, 0.0, area.m_height - 1);
    if (const auto address = report()->contextScale().addressAt(row)) m_view->centreAddress(*address);
    m_dirty = true;
}

// The view or bar under a pointer, in window pixels (correlated views each have their own),
// else the main view.
Rect TimelineWindow::areaUnder(double x, double y) const {
    if (report())
        for (const ViewCell& cell : report()->layout().m_cells)
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
    if (!report() || m_state.m_cursors.empty()) return std::nullopt;
    const double reportY = y - reportTop();
    for (const ViewCell& cell : report()->layout().m_cells) {
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
    if (!m_state.m_accessMarks || m_state.m_bins || !report()) return std::nullopt;
    const Rect view = mainView();
    if (!inside(view, x, y)) return std::nullopt;
    const auto& marks = log().m_model.accessMarks();
    const XScale scale(m_view->xWindow(), view.m_width);
    const AddressScale& rows = m_view->addressScale();
    for (size_t i = marks.size(); i-- > 0;) {  // writes are drawn last: find them first
        const uint64_t at = timeline::markX(marks[i], m_state.m_axis);
        const auto row = rows.y(marks[i].m_addr);
        if (!row) continue;
        if (std::fabs(view.m_x + scale.x(static_cast<double>(at)) - x) <= 2.5 && std::fabs(view.m_y + *row - y) <= 2.5)
            return i;
    }
    return std::nullopt;
}

void TimelineWindow::updateHover() {
    m_pointer.clearHover();
    // While the frame context is being prepared on its thread, nothing may ask it.
    if (m_mode != WindowMode::Timeline || !report() || !m_pointer.inWindow() || m_state.m_help) return;
    const double x = m_pointer.x(), reportY = m_pointer.y() - reportTop();
    Pointer::Hover hover;
    hover.m_mark = markAt(x, m_pointer.y());
    if (!hover.m_mark) {
        if (const auto point = report()->pointAt(x, reportY)) {
            // In correlated views only the view's own bin counts: the block must be drawn there.
            if (const auto found = log().blockAt(point->first, point->second))
                for (const Rect& rect : report()->blockRects(log().m_model[*found]))
                    if (inside({rect.m_x - 2, rect.m_y - 2, rect.m_width + 4, rect.m_height + 4}, x, reportY))
                        hover.m_block = found;
        } else {
            hover.m_bar = report()->barPointAt(x, reportY);
        }
    }
    m_pointer.setHover(hover);
}

}  // namespace memlog::render
