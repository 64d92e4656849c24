// SDL2 window plumbing. The texture is recreated only when the drawable's size changes; each
// frame locks it, wraps its pixels in a Cairo image surface with SDL's pitch, draws, unlocks,
// copies and presents: one upload of the frame, no conversion.
#include "render/window/sdl_window.hpp"

#include <cstdlib>

namespace memlog::render {

std::string SdlWindow::displayProblem() {
    const char* x11 = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    if ((!x11 || !*x11) && (!wayland || !*wayland)) return "no display (DISPLAY and WAYLAND_DISPLAY are not set)";
    if (SDL_WasInit(SDL_INIT_VIDEO)) return "";
    if (SDL_Init(SDL_INIT_VIDEO) != 0) return std::string("no display (") + SDL_GetError() + ")";
    return "";
}

SdlWindow::SdlWindow(const std::string& title, int width, int height) {
    if (const std::string problem = displayProblem(); !problem.empty()) throw WindowError(problem);
    // SDL would otherwise back the window's surface with an OpenGL texture, and without a GPU
    // that is Mesa's llvmpipe: more copies of every frame, by threads that take the CPU from
    // ours (11-16 ms a frame at 1600x1000 on Xvfb, against about 1 ms for X11's shared memory).
    // At default priority: SDL_FRAMEBUFFER_ACCELERATION in the environment still decides.
    SDL_SetHintWithPriority(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0", SDL_HINT_DEFAULT);
    m_window = SDL_CreateWindow(title.c_str(), SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, width, height,
                                SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!m_window) throw WindowError(std::string("cannot open a window: ") + SDL_GetError());
    // Where the window's pixels are its points (X11), Cairo draws straight into the window's own
    // surface, which SDL hands to the display in one copy (shared memory on X11). A HiDPI
    // window, whose surface would have too few pixels, goes through a renderer and a texture
    // of full size.
    int pixelWidth = 0, pixelHeight = 0;
    SDL_GetWindowSizeInPixels(m_window, &pixelWidth, &pixelHeight);
    SDL_Surface* surface = pixelWidth == width && pixelHeight == height ? SDL_GetWindowSurface(m_window) : nullptr;
    m_direct = surface && (surface->format->format == SDL_PIXELFORMAT_RGB888 ||
                           surface->format->format == SDL_PIXELFORMAT_ARGB8888);
    if (!m_direct) {
        // Vsync off: frames are drawn on demand, and a test must not wait for a refresh.
        m_renderer = SDL_CreateRenderer(m_window, -1, 0);
        if (!m_renderer) m_renderer = SDL_CreateRenderer(m_window, -1, SDL_RENDERER_SOFTWARE);
        if (!m_renderer) throw WindowError(std::string("cannot draw in the window: ") + SDL_GetError());
    }
    measure();
}

SdlWindow::~SdlWindow() {
    if (m_texture) SDL_DestroyTexture(m_texture);
    if (m_renderer) SDL_DestroyRenderer(m_renderer);
    if (m_window) SDL_DestroyWindow(m_window);
}

void SdlWindow::measure() {
    int points = 0, unused = 0;
    SDL_GetWindowSize(m_window, &points, &unused);
    if (m_renderer)
        SDL_GetRendererOutputSize(m_renderer, &m_pixelWidth, &m_pixelHeight);
    else
        SDL_GetWindowSizeInPixels(m_window, &m_pixelWidth, &m_pixelHeight);
    m_pixelsPerPoint = points > 0 ? static_cast<double>(m_pixelWidth) / points : 1.0;
}

void SdlWindow::present(const std::function<void(cairo_t*)>& draw) {
    measure();
    if (m_direct) {
        // Fetched every frame: a resize replaces the window's surface.
        SDL_Surface* window = SDL_GetWindowSurface(m_window);
        if (!window) throw WindowError(std::string("cannot draw in the window: ") + SDL_GetError());
        m_pixelWidth = window->w;
        m_pixelHeight = window->h;
        SDL_LockSurface(window);
        // XRGB8888 is Cairo's RGB24: the same bytes, the top byte unused.
        const cairo_format_t format =
            window->format->format == SDL_PIXELFORMAT_ARGB8888 ? CAIRO_FORMAT_ARGB32 : CAIRO_FORMAT_RGB24;
        cairo_surface_t* surface = cairo_image_surface_create_for_data(static_cast<unsigned char*>(window->pixels),
                                                                       format, window->w, window->h, window->pitch);
        cairo_t* cr = cairo_create(surface);
        draw(cr);
        cairo_destroy(cr);
        cairo_surface_flush(surface);
        cairo_surface_destroy(surface);
        SDL_UnlockSurface(window);
        SDL_UpdateWindowSurface(m_window);
        return;
    }
    if (!m_texture || m_textureWidth != m_pixelWidth || m_textureHeight != m_pixelHeight) {
        if (m_texture) SDL_DestroyTexture(m_texture);
        m_texture = SDL_CreateTexture(m_renderer, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STREAMING, m_pixelWidth,
                                      m_pixelHeight);
        if (!m_texture) throw WindowError(std::string("cannot create the frame texture: ") + SDL_GetError());
        m_textureWidth = m_pixelWidth;
        m_textureHeight = m_pixelHeight;
    }
    void* pixels = nullptr;
    int pitch = 0;
    if (SDL_LockTexture(m_texture, nullptr, &pixels, &pitch) != 0)
        throw WindowError(std::string("cannot lock the frame texture: ") + SDL_GetError());
    cairo_surface_t* surface = cairo_image_surface_create_for_data(
        static_cast<unsigned char*>(pixels), CAIRO_FORMAT_ARGB32, m_pixelWidth, m_pixelHeight, pitch);
    cairo_t* cr = cairo_create(surface);
    draw(cr);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    cairo_surface_destroy(surface);
    SDL_UnlockTexture(m_texture);
    SDL_RenderCopy(m_renderer, m_texture, nullptr, nullptr);
    SDL_RenderPresent(m_renderer);
}

bool SdlWindow::nextEvent(SDL_Event& event, int timeoutMs) {
    const int got = timeoutMs < 0 ? SDL_WaitEvent(&event) : SDL_WaitEventTimeout(&event, timeoutMs);
    if (!got) return false;
    if (event.type == SDL_WINDOWEVENT && event.window.event == SDL_WINDOWEVENT_SIZE_CHANGED) measure();
    return true;
}

bool SdlWindow::inputWaiting() const {
    SDL_PumpEvents();
    return SDL_HasEvent(SDL_KEYDOWN) || SDL_HasEvent(SDL_MOUSEBUTTONDOWN) || SDL_HasEvent(SDL_MOUSEWHEEL) ||
           SDL_HasEvent(SDL_QUIT);
}

void SdlWindow::setTitle(const std::string& title) { SDL_SetWindowTitle(m_window, title.c_str()); }

uint32_t SdlWindow::id() const { return SDL_GetWindowID(m_window); }

}  // namespace memlog::render
