// The memtimeline window: an SDL2 window whose every frame is drawn with Cairo into a streaming
// texture (CAIRO_FORMAT_ARGB32 has the memory layout of SDL_PIXELFORMAT_ARGB8888), so the window
// shows exactly what the report code draws. No drawing decisions here: only the surface, its
// size on HiDPI screens, and events.
#pragma once

#include <SDL.h>
#include <cairo.h>

#include <functional>
#include <stdexcept>
#include <string>

namespace memlog::render {

class WindowError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class SdlWindow {
public:
    // Why no window can open here ("no display: DISPLAY and WAYLAND_DISPLAY are not set"), or
    // "" when one can. Cheap: asks the environment, then SDL.
    static std::string displayProblem();

    // Opens a resizable window of `width` x `height` points. Throws WindowError.
    SdlWindow(const std::string& title, int width, int height);
    ~SdlWindow();
    SdlWindow(const SdlWindow&) = delete;
    SdlWindow& operator=(const SdlWindow&) = delete;

    // The drawable in device pixels, and device pixels per window point: on a HiDPI screen the
    // drawable is larger than the window, and text and lines must grow by that factor.
    int pixelWidth() const { return m_pixelWidth; }
    int pixelHeight() const { return m_pixelHeight; }
    double pixelsPerPoint() const { return m_pixelsPerPoint; }

    // Draws one frame into the window with `draw` (a Cairo context over the whole drawable, in
    // device pixels) and shows it.
    void present(const std::function<void(cairo_t*)>& draw);

    // The next event, waiting at most `timeoutMs` (-1: forever). False on timeout. A resize is
    // absorbed here (the drawable is re-measured) and also returned.
    bool nextEvent(SDL_Event& event, int timeoutMs);
    // Whether a key, a button, the wheel or a request to close is waiting (reads what the
    // display sent, takes nothing): a long frame may give way to it. Pointer motion does not
    // count.
    bool inputWaiting() const;

    void setTitle(const std::string& title);
    uint32_t id() const;

private:
    void measure();

    SDL_Window* m_window = nullptr;
    bool m_direct = false;  // drawing into the window's own surface; else the renderer's texture
    SDL_Renderer* m_renderer = nullptr;
    SDL_Texture* m_texture = nullptr;
    int m_textureWidth = 0, m_textureHeight = 0;
    int m_pixelWidth = 0, m_pixelHeight = 0;
    double m_pixelsPerPoint = 1;
};

}  // namespace memlog::render
