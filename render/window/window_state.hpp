// What the user has chosen in the window (colour mode, cushions, axis, bins, alpha, cursors,
// the pinned block) and the keys that change it: one table serves the key handler and the help
// overlay, so the help never lists a key that does nothing.
#pragma once

#include <SDL.h>

#include <optional>
#include <string>
#include <vector>

#include "render/raster/block_colouring.hpp"
#include "render/raster/cushion.hpp"
#include "render/report/report_layout.hpp"
#include "timeline/model/bins.hpp"
#include "timeline/model/block_model.hpp"

namespace memlog::render {

enum class Action {
    ZoomIn,
    ZoomOut,
    ZoomInTime,
    ZoomOutTime,
    ZoomInAddress,
    ZoomOutAddress,
    PanLeft,
    PanRight,
    PanUp,
    PanDown,
    Reset,
    NextColour,
    NextCushion,
    ToggleAxis,
    NextBins,
    ToggleLayout,
    AlphaDown,
    AlphaUp,
    ToggleAccesses,
    AddCursor,
    ClearCursors,
    Unpin,
    Export,
    PlayPause,
    StepForward,
    StepBack,
    Faster,
    Slower,
    ArrayView,
    MemoryView,
    WorkingSetView,
    CompareView,
    Dimensions,
    NextRowLength,
    Help,
    Quit,
};

struct KeyBinding {
    SDL_Keycode m_key;
    bool m_shift;  // the binding needs shift held (and without it, it must not be held)
    Action m_action;
    const char* m_keys;  // as the help overlay names them
    const char* m_what;
};

// Every key the window answers, in the order the help overlay lists them.
const std::vector<KeyBinding>& keyBindings();
std::optional<Action> actionOf(SDL_Keycode key, uint16_t modifiers);

// The mouse, for the help overlay.
struct MouseHelp {
    const char* m_gesture;
    const char* m_what;
};
const std::vector<MouseHelp>& mouseHelp();

struct WindowState {
    ColourBy m_colourBy = ColourBy::Site;
    CushionStyle m_cushion = CushionStyle::Plateau;
    timeline::XAxis m_axis = timeline::XAxis::Time;
    std::optional<timeline::BinKind> m_bins;
    BinLayout m_layout = BinLayout::Time;
    double m_alpha = 0.3;
    bool m_accessMarks = true;
    std::vector<uint64_t> m_cursors;  // in units of m_axis
    std::optional<size_t> m_pinned;  // a block index
    bool m_help = false;

    void nextColour();
    void nextCushion();
    void nextBins();  // none, size, thread, region, site, none...
};

const char* binKindName(timeline::BinKind kind);

}  // namespace memlog::render
