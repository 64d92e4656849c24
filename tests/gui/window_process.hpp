// memtimeline's window run for a test: started on an Xvfb display with --trace, its stderr read
// as it comes, so a test can send input and then wait for the frame that shows its effect.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "xvfb_session.hpp"

namespace memlog::test {

// One --trace line: "frame 12 ms=3.1 x=0:100 ... hover=4 ..." as name -> value.
struct Frame {
    uint64_t m_number = 0;
    std::map<std::string, std::string> m_fields;
    const std::string& operator[](const std::string& name) const;
    double number(const std::string& name) const;
};

class WindowProcess {
public:
    // Starts `memtimeline LOG --trace ARGS...` in `directory` on the session's display and
    // waits for its window and first drawn frame (throws std::runtime_error if none comes).
    WindowProcess(const XvfbSession& session, const std::string& log, const std::vector<std::string>& arguments,
                  const std::string& directory);
    ~WindowProcess();  // closes the window (q), or kills it

    const std::string& window() const { return m_window; }  // xdotool's id
    // The latest frame drawn, and a wait for a frame of the picture (not of the loading
    // screen) that satisfies `wanted`: the first such frame after the one the previous wait
    // returned, so that a test's waits follow its input in order.
    Frame lastFrame() const;
    Frame waitForFrame(const std::function<bool(const Frame&)>& wanted, double timeoutSeconds = 10) const;
    // Does `input` and waits for a frame drawn after it began. (Asking for the latest frame
    // after the input raced a fast window: its frame was often the latest already.)
    Frame frameAfter(const std::function<void()>& input, double timeoutSeconds = 10) const;
    // Waits until the program exits; its status (-1 when killed by a signal).
    int waitForExit(double timeoutSeconds = 10);
    std::string stderrText() const;

private:
    void readStderr(int fd);

    const XvfbSession& m_session;
    pid_t m_pid = -1;
    std::string m_window;
    std::thread m_reader;
    mutable std::mutex m_lock;
    std::string m_stderr;
    std::vector<Frame> m_frames;
    mutable size_t m_consumed = 0;  // frames before this index were seen by a wait
    int m_status = -1;
    bool m_exited = false;
};

}  // namespace memlog::test
