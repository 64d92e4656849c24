// Fork and exec with stderr on a pipe, a thread collecting it line by line.
#include "window_process.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace memlog::test {
namespace {

Frame parseFrame(const std::string& line) {
    Frame frame;
    std::istringstream words(line);
    std::string word;
    words >> word >> frame.m_number;
    while (words >> word) {
        const size_t equals = word.find('=');
        if (equals != std::string::npos) frame.m_fields[word.substr(0, equals)] = word.substr(equals + 1);
    }
    return frame;
}

}  // namespace

const std::string& Frame::operator[](const std::string& name) const {
    static const std::string none;
    const auto it = m_fields.find(name);
    return it == m_fields.end() ? none : it->second;
}

double Frame::number(const std::string& name) const {
    const std::string& text = (*this)[name];
    return text.empty() ? std::nan("") : std::stod(text);
}

WindowProcess::WindowProcess(const XvfbSession& session, const std::string& log,
                             const std::vector<std::string>& arguments, const std::string& directory)
    : m_session(session) {
    int err[2];
    if (pipe(err) != 0) throw std::runtime_error("pipe failed");
    m_pid = fork();
    if (m_pid == 0) {
        // Gone with the test, also when it is killed (a ctest timeout) before it closes us.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() == 1) _exit(126);
        dup2(err[1], 2);
        close(err[0]);
        close(err[1]);
        if (chdir(directory.c_str()) != 0) _exit(126);
        setenv("DISPLAY", session.display().c_str(), 1);
        unsetenv("WAYLAND_DISPLAY");
        unsetenv("LD_PRELOAD");
        std::vector<std::string> argv = {MEMLOG_TEST_TIMELINE, log, "--trace"};
        argv.insert(argv.end(), arguments.begin(), arguments.end());
        std::vector<char*> pointers;
        for (std::string& a : argv) pointers.push_back(a.data());
        pointers.push_back(nullptr);
        execv(pointers[0], pointers.data());
        _exit(127);
    }
    close(err[1]);
    m_reader = std::thread([this, fd = err[0]] { readStderr(fd); });
    m_window = session.findWindow("memtimeline", 20);
    if (m_window.empty()) throw std::runtime_error("no memtimeline window appeared; stderr: " + stderrText());
    waitForFrame([](const Frame& frame) { return !frame["x"].empty(); }, 30);
}

WindowProcess::~WindowProcess() {
    if (!m_exited) {
        try {
            m_session.key(m_window, "q");
        } catch (const std::runtime_error&) {
        }
        if (waitForExit(5) == -2) {
            kill(m_pid, SIGKILL);
            waitpid(m_pid, nullptr, 0);
        }
    }
    if (m_reader.joinable()) m_reader.join();
}

void WindowProcess::readStderr(int fd) {
    std::string pending;
    char buffer[4096];
    for (ssize_t got; (got = read(fd, buffer, sizeof buffer)) > 0;) {
        pending.append(buffer, static_cast<size_t>(got));
        for (size_t newline; (newline = pending.find('\n')) != std::string::npos;) {
            const std::string line = pending.substr(0, newline);
            pending.erase(0, newline + 1);
            std::lock_guard<std::mutex> lock(m_lock);
            m_stderr += line + "\n";
            if (line.rfind("frame ", 0) == 0) m_frames.push_back(parseFrame(line));
        }
    }
    close(fd);
}

Frame WindowProcess::lastFrame() const {
    std::lock_guard<std::mutex> lock(m_lock);
    return m_frames.empty() ? Frame{} : m_frames.back();
}

Frame WindowProcess::waitForFrame(const std::function<bool(const Frame&)>& wanted, double timeoutSeconds) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
    for (;;) {
        std::vector<Frame> fresh;  // copied out: `wanted` may call back (stderrText)
        {
            std::lock_guard<std::mutex> lock(m_lock);
            fresh.assign(m_frames.begin() + static_cast<long>(m_consumed), m_frames.end());
        }
        for (const Frame& frame : fresh) {
            ++m_consumed;
            // Only frames of the picture count: not those of the loading screen.
            if (!frame["x"].empty() && wanted(frame)) return frame;
        }
        if (std::chrono::steady_clock::now() > deadline)
            throw std::runtime_error("no frame as wanted in time; last: frame " + std::to_string(lastFrame().m_number) +
                                     (kill(m_pid, 0) == 0 ? " (the window still runs)" : " (the window is gone)") +
                                     "; stderr:\n" + stderrText());
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

Frame WindowProcess::frameAfter(const std::function<void()>& input, double timeoutSeconds) const {
    const uint64_t after = lastFrame().m_number;
    input();
    return waitForFrame([after](const Frame& frame) { return frame.m_number > after; }, timeoutSeconds);
}

int WindowProcess::waitForExit(double timeoutSeconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
    while (std::chrono::steady_clock::now() < deadline) {
        int status = 0;
        if (waitpid(m_pid, &status, WNOHANG) == m_pid) {
            m_exited = true;
            m_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            return m_status;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -2;
}

std::string WindowProcess::stderrText() const {
    std::lock_guard<std::mutex> lock(m_lock);
    return m_stderr;
}

}  // namespace memlog::test
