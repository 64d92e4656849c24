// The key table and the cycles of the window's choices.
#include "render/window/window_state.hpp"

#include <algorithm>

namespace memlog::render {

const std::vector<KeyBinding>& keyBindings() {
    static const std::vector<KeyBinding> bindings = {
        {SDLK_EQUALS, false, Action::ZoomIn, "+ / =", "zoom in (time and addresses)"},
        {SDLK_PLUS, false, Action::ZoomIn, "", ""},
        {SDLK_KP_PLUS, false, Action::ZoomIn, "", ""},
        {SDLK_MINUS, false, Action::ZoomOut, "-", "zoom out"},
        {SDLK_KP_MINUS, false, Action::ZoomOut, "", ""},
        {SDLK_t, false, Action::ZoomInTime, "t / T", "zoom in / out in time only"},
        {SDLK_t, true, Action::ZoomOutTime, "", ""},
        {SDLK_y, false, Action::ZoomInAddress, "y / Y", "zoom in / out in addresses only"},
        {SDLK_y, true, Action::ZoomOutAddress, "", ""},
        {SDLK_LEFT, false, Action::PanLeft, "arrows", "pan"},
        {SDLK_RIGHT, false, Action::PanRight, "", ""},
        {SDLK_UP, false, Action::PanUp, "", ""},
        {SDLK_DOWN, false, Action::PanDown, "", ""},
        {SDLK_0, false, Action::Reset, "0 / Home", "show the whole log"},
        {SDLK_HOME, false, Action::Reset, "", ""},
        {SDLK_c, false, Action::NextColour, "c", "colour by: site, thread, size, lifetime, age, waste"},
        {SDLK_u, false, Action::NextCushion, "u", "cushions: plateau, parabolic, none"},
        {SDLK_x, false, Action::ToggleAxis, "x", "x axis: time, event number, or a full trace's instructions"},
        {SDLK_b, false, Action::NextBins, "b", "correlated views: none, size, thread, region, site"},
        {SDLK_l, false, Action::ToggleLayout, "l", "views aligned in time or in address"},
        {SDLK_LEFTBRACKET, false, Action::AlphaDown, "[ / ]", "alpha down / up (thin blocks stand out at low alpha)"},
        {SDLK_RIGHTBRACKET, false, Action::AlphaUp, "", ""},
        {SDLK_a, false, Action::ToggleAccesses, "a", "access samples on / off"},
        {SDLK_k, false, Action::AddCursor, "k", "a cushion cursor at the pointer (drag it to move)"},
        {SDLK_DELETE, false, Action::ClearCursors, "Delete", "remove the cursors"},
        {SDLK_ESCAPE, false, Action::Unpin, "Esc",
         "unpin, close the help or the prompt; on a page: back to the timeline"},
        {SDLK_e, false, Action::Export, "e", "export this view or page to a PNG (as --export draws it)"},
        {SDLK_SPACE, false, Action::PlayPause, "space", "play / pause the samples in time order (timeline and pages)"},
        {SDLK_PERIOD, false, Action::StepForward, ". / ,", "step the playback forward / back (it pauses)"},
        {SDLK_COMMA, false, Action::StepBack, "", ""},
        {SDLK_PERIOD, true, Action::Faster, "> / <", "play faster / slower (1/16x to 64x)"},
        {SDLK_GREATER, false, Action::Faster, "", ""},
        {SDLK_COMMA, true, Action::Slower, "", ""},
        {SDLK_LESS, false, Action::Slower, "", ""},
        {SDLK_v, false, Action::ArrayView, "v", "array view of the block under the pointer (or the pinned one)"},
        {SDLK_d, false, Action::Dimensions, "d", "array view: type its dimensions and element size, RxC[xD] [BYTES]"},
        {SDLK_r, false, Action::NextRowLength, "r", "array view: the next row length its samples support (best first)"},
        {SDLK_m, false, Action::MemoryView, "m", "the cache's memory display (a full trace; --cache sets the cache)"},
        {SDLK_w, false, Action::WorkingSetView, "w", "the working set of cache lines (a full trace)"},
        {SDLK_o, false, Action::CompareView, "o", "the two runs, one above the other (--compare NEW)"},
        {SDLK_h, false, Action::Help, "h / ?", "this help"},
        {SDLK_SLASH, true, Action::Help, "", ""},
        {SDLK_QUESTION, false, Action::Help, "", ""},
        {SDLK_q, false, Action::Quit, "q", "quit"},
    };
    return bindings;
}

std::optional<Action> actionOf(SDL_Keycode key, uint16_t modifiers) {
    const bool shift = modifiers & KMOD_SHIFT;
    if (modifiers & (KMOD_CTRL | KMOD_ALT | KMOD_GUI)) return std::nullopt;
    // An exact match first (t with shift is T); then keys whose symbol needs shift anyway (+, ?).
    for (const KeyBinding& binding : keyBindings())
        if (binding.m_key == key && binding.m_shift == shift) return binding.m_action;
    for (const KeyBinding& binding : keyBindings())
        if (binding.m_key == key && !binding.m_shift &&
            (key == SDLK_PLUS || key == SDLK_QUESTION || key == SDLK_EQUALS || key == SDLK_GREATER || key == SDLK_LESS))
            return binding.m_action;
    return std::nullopt;
}

const std::vector<MouseHelp>& mouseHelp() {
    static const std::vector<MouseHelp> help = {
        {"wheel", "zoom in time about the pointer"},
        {"shift + wheel", "zoom in addresses about the pointer"},
        {"ctrl + wheel", "zoom in both"},
        {"drag", "pan"},
        {"right drag / shift + drag", "zoom to the box"},
        {"hover a block", "its size, times, thread, sites"},
        {"click a block or its sample", "pin it: both call stacks in the side panel, and its array view button"},
        {"click / drag the context view", "move the view there"},
        {"hover the occupancy bar", "live bytes and blocks at that time"},
        {"drag a cursor", "move it; right click removes it"},
        {"control strip", "click to switch; drag the alpha slider"},
    };
    return help;
}

void WindowState::nextColour() {
    static const ColourBy order[] = {ColourBy::Site,     ColourBy::Thread, ColourBy::Size,
                                     ColourBy::Lifetime, ColourBy::Age,    ColourBy::Waste};
    const auto* at = std::find(std::begin(order), std::end(order), m_colourBy);
    m_colourBy = order[(at - std::begin(order) + 1) % std::size(order)];
}

void WindowState::nextCushion() {
    m_cushion = m_cushion == CushionStyle::Plateau     ? CushionStyle::Parabolic
                : m_cushion == CushionStyle::Parabolic ? CushionStyle::None
                                                       : CushionStyle::Plateau;
}

void WindowState::nextBins() {
    using timeline::BinKind;
    if (!m_bins)
        m_bins = BinKind::Size;
    else if (*m_bins == BinKind::Size)
        m_bins = BinKind::Thread;
    else if (*m_bins == BinKind::Thread)
        m_bins = BinKind::Region;
    else if (*m_bins == BinKind::Region)
        m_bins = BinKind::Site;
    else
        m_bins.reset();
}

const char* binKindName(timeline::BinKind kind) {
    switch (kind) {
        case timeline::BinKind::Size:
            return "size";
        case timeline::BinKind::Thread:
            return "thread";
        case timeline::BinKind::Region:
            return "region";
        case timeline::BinKind::Site:
            return "site";
    }
    return "?";
}

}  // namespace memlog::render
