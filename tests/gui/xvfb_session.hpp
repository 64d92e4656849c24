// A private X server for window tests: Xvfb on a free display, its framebuffer readable as a
// screenshot at any moment (Xvfb -fbdir keeps it in an XWD file), and synthetic input through
// xdotool, as a user's mouse and keyboard would give it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace memlog::test {

// The screen as 0xRRGGBB pixels, row-major.
struct Screenshot {
    int m_width = 0;
    int m_height = 0;
    std::vector<uint32_t> m_pixels;

    uint32_t at(int x, int y) const { return m_pixels[static_cast<size_t>(y) * m_width + x]; }
    Screenshot crop(int x, int y, int width, int height) const;
    void writePng(const std::string& path) const;  // for a person to look at when a test fails
};

class XvfbSession {
public:
    // Starts Xvfb with one screen of this size; throws std::runtime_error when it cannot.
    XvfbSession(int width, int height);
    ~XvfbSession();
    XvfbSession(const XvfbSession&) = delete;
    XvfbSession& operator=(const XvfbSession&) = delete;

    const std::string& display() const { return m_display; }  // ":N", for DISPLAY
    Screenshot screenshot() const;
    Screenshot stableScreenshot() const;  // once the screen has stopped changing

    // xdotool, on this display. Window coordinates are relative to the window `id`.
    std::string findWindow(const std::string& name, double timeoutSeconds = 10) const;  // "" if none
    void moveMouse(const std::string& window, int x, int y) const;
    void click(const std::string& window, int x, int y, int button = 1) const;
    void drag(const std::string& window, int fromX, int fromY, int toX, int toY, int button = 1) const;
    void wheel(const std::string& window, int x, int y, int notches) const;  // > 0: away from the user
    void key(const std::string& window, const std::string& keys) const;  // xdotool key names: "plus", "ctrl+0"
    void resize(const std::string& window, int width, int height) const;

    // Runs xdotool with these arguments; returns its stdout.
    std::string xdotool(const std::vector<std::string>& arguments) const;

private:
    int m_pid = -1;
    std::string m_display;
    std::string m_directory;  // holds the framebuffer file
};

}  // namespace memlog::test
