// The readers take a path; libFuzzer gives bytes. One memfd per process, rewritten for each
// input: a regular file as LogReader requires, and no disk traffic at thousands of inputs a second.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace memlog::fuzz {

class InputFile {
public:
    InputFile() : m_fd(memfd_create("memlog-fuzz-input", MFD_CLOEXEC)) {
        if (m_fd < 0) std::abort();
        m_path = "/proc/self/fd/" + std::to_string(m_fd);
    }
    const std::string& write(const uint8_t* data, size_t size) {
        if (ftruncate(m_fd, 0) != 0 || pwrite(m_fd, data, size, 0) != static_cast<ssize_t>(size)) std::abort();
        return m_path;
    }

private:
    int m_fd;
    std::string m_path;
};

}  // namespace memlog::fuzz
