// Xvfb and xdotool as child processes. The framebuffer file is XWD: a big-endian header, a
// colour map, then rows of 32-bit pixels in the server's byte order (little-endian here).
#include "xvfb_session.hpp"

#include <cairo.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace fs = std::filesystem;

namespace memlog::test {
namespace {

// Runs argv with DISPLAY set and returns its stdout; throws when it does not exit 0.
std::string runTool(const std::vector<std::string>& argv, const std::string& display) {
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe failed");
    const pid_t child = fork();
    if (child == 0) {
        dup2(out[1], 1);
        close(out[0]);
        setenv("DISPLAY", display.c_str(), 1);
        std::vector<char*> args;
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        _exit(127);
    }
    close(out[1]);
    std::string text;
    char buffer[4096];
    for (ssize_t got; (got = read(out[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<size_t>(got));
    close(out[0]);
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error(argv[0] + std::string(" failed: ") + argv.back());
    return text;
}

uint32_t bigEndian32(const uint8_t* p) {
    return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 | static_cast<uint32_t>(p[2]) << 8 |
           p[3];
}

}  // namespace

Screenshot Screenshot::crop(int x, int y, int width, int height) const {
    Screenshot part;
    part.m_width = width;
    part.m_height = height;
    part.m_pixels.reserve(static_cast<size_t>(width) * height);
    for (int row = y; row < y + height; ++row)
        for (int column = x; column < x + width; ++column) part.m_pixels.push_back(at(column, row));
    return part;
}

void Screenshot::writePng(const std::string& path) const {
    cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, m_width, m_height);
    auto* data = cairo_image_surface_get_data(surface);
    const int stride = cairo_image_surface_get_stride(surface);
    for (int y = 0; y < m_height; ++y)
        std::memcpy(data + static_cast<size_t>(y) * stride, &m_pixels[static_cast<size_t>(y) * m_width],
                    static_cast<size_t>(m_width) * 4);
    cairo_surface_mark_dirty(surface);
    cairo_surface_write_to_png(surface, path.c_str());
    cairo_surface_destroy(surface);
}

XvfbSession::XvfbSession(int width, int height) {
    char pattern[] = "/tmp/memlog-xvfb-XXXXXX";
    if (!mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
    m_directory = pattern;
    // A display number nobody uses: its lock file and socket are absent. -nolisten tcp keeps it
    // off the network; -fbdir puts the framebuffer in a file we can read.
    for (int number = 90 + getpid() % 400;; ++number) {
        if (fs::exists("/tmp/.X" + std::to_string(number) + "-lock") ||
            fs::exists("/tmp/.X11-unix/X" + std::to_string(number)))
            continue;
        m_display = ":" + std::to_string(number);
        break;
    }
    const std::string screen = std::to_string(width) + "x" + std::to_string(height) + "x24";
    m_pid = fork();
    if (m_pid == 0) {
        // Gone with the test, also when it is killed (a ctest timeout) before it closes us.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() == 1) _exit(126);
        const int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execlp("Xvfb", "Xvfb", m_display.c_str(), "-screen", "0", screen.c_str(), "-fbdir", m_directory.c_str(),
               "-nolisten", "tcp", "-noreset", static_cast<char*>(nullptr));
        _exit(127);
    }
    const std::string socket = "/tmp/.X11-unix/X" + m_display.substr(1);
    for (int i = 0; i < 500; ++i) {
        if (fs::exists(socket) && fs::exists(m_directory + "/Xvfb_screen0")) return;
        int status;
        if (waitpid(m_pid, &status, WNOHANG) == m_pid) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw std::runtime_error("Xvfb did not start on " + m_display + " (is the xvfb package installed?)");
}

XvfbSession::~XvfbSession() {
    if (m_pid > 0) {
        kill(m_pid, SIGTERM);
        waitpid(m_pid, nullptr, 0);
    }
    std::error_code ignored;
    fs::remove_all(m_directory, ignored);
}

Screenshot XvfbSession::stableScreenshot() const {
    // A presented frame reaches the framebuffer a moment later: wait until two reads agree.
    Screenshot previous = screenshot();
    for (int i = 0; i < 50; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(60));
        Screenshot current = screenshot();
        if (current.m_pixels == previous.m_pixels) return current;
        previous = std::move(current);
    }
    return previous;
}

Screenshot XvfbSession::screenshot() const {
    std::ifstream in(m_directory + "/Xvfb_screen0", std::ios::binary);
    const std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), {});
    if (file.size() < 100) throw std::runtime_error("no framebuffer file");
    const uint8_t* header = file.data();
    const uint32_t headerBytes = bigEndian32(header), width = bigEndian32(header + 16),
                   height = bigEndian32(header + 20);
    const uint32_t bitsPerPixel = bigEndian32(header + 44), bytesPerLine = bigEndian32(header + 48);
    const uint32_t colours = bigEndian32(header + 76);
    if (bitsPerPixel != 32) throw std::runtime_error("framebuffer is not 32 bits a pixel");
    const size_t pixelsAt = headerBytes + static_cast<size_t>(colours) * 12;
    if (file.size() < pixelsAt + static_cast<size_t>(bytesPerLine) * height)
        throw std::runtime_error("short framebuffer");
    Screenshot shot;
    shot.m_width = static_cast<int>(width);
    shot.m_height = static_cast<int>(height);
    shot.m_pixels.resize(static_cast<size_t>(width) * height);
    for (uint32_t y = 0; y < height; ++y)
        for (uint32_t x = 0; x < width; ++x) {
            const uint8_t* p = file.data() + pixelsAt + static_cast<size_t>(y) * bytesPerLine + x * 4;
            shot.m_pixels[static_cast<size_t>(y) * width + x] = static_cast<uint32_t>(p[2]) << 16 | p[1] << 8 | p[0];
        }
    return shot;
}

std::string XvfbSession::xdotool(const std::vector<std::string>& arguments) const {
    std::vector<std::string> argv{"xdotool"};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    return runTool(argv, m_display);
}

std::string XvfbSession::findWindow(const std::string& name, double timeoutSeconds) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
    while (std::chrono::steady_clock::now() < deadline) {
        try {
            const std::string found = xdotool({"search", "--onlyvisible", "--name", name});
            if (!found.empty()) return found.substr(0, found.find('\n'));
        } catch (const std::runtime_error&) {
            // xdotool search exits 1 while no window matches yet
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return {};
}

void XvfbSession::moveMouse(const std::string& window, int x, int y) const {
    xdotool({"mousemove", "--window", window, std::to_string(x), std::to_string(y)});
}

void XvfbSession::click(const std::string& window, int x, int y, int button) const {
    moveMouse(window, x, y);
    xdotool({"click", std::to_string(button)});
}

void XvfbSession::drag(const std::string& window, int fromX, int fromY, int toX, int toY, int button) const {
    moveMouse(window, fromX, fromY);
    xdotool({"mousedown", std::to_string(button)});
    // In steps, as a hand moves: the program sees motion with the button held.
    for (int step = 1; step <= 8; ++step)
        moveMouse(window, fromX + (toX - fromX) * step / 8, fromY + (toY - fromY) * step / 8);
    xdotool({"mouseup", std::to_string(button)});
}

void XvfbSession::wheel(const std::string& window, int x, int y, int notches) const {
    moveMouse(window, x, y);
    const int button = notches > 0 ? 4 : 5;
    xdotool({"click", "--repeat", std::to_string(notches > 0 ? notches : -notches), std::to_string(button)});
}

void XvfbSession::key(const std::string& window, const std::string& keys) const {
    // Focus, then type: SDL ignores the synthetic events that `key --window` would send.
    xdotool({"windowfocus", "--sync", window});
    xdotool({"key", keys});
}

void XvfbSession::resize(const std::string& window, int width, int height) const {
    xdotool({"windowsize", window, std::to_string(width), std::to_string(height)});
}

}  // namespace memlog::test
