// The memlog command run as a user runs it, for the CLI tests: exit status, stdout, stderr.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

namespace memlog::test {

struct Result {
    int m_status;
    std::string m_stdout;
    std::string m_stderr;
};

// `arguments` go through the shell as they are.
inline Result runMemlog(const std::string& arguments) {
    const std::string errFile = "/tmp/memlog-cli-" + std::to_string(getpid()) + ".err";
    const std::string command = std::string(MEMLOG_TEST_CLI) + " " + arguments + " 2>" + errFile;
    Result result{};
    FILE* pipe = popen(command.c_str(), "r");
    std::array<char, 4096> buffer;
    size_t got;
    while ((got = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.m_stdout.append(buffer.data(), got);
    const int status = pclose(pipe);
    result.m_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream err(errFile);
    result.m_stderr.assign(std::istreambuf_iterator<char>(err), {});
    unlink(errFile.c_str());
    return result;
}

}  // namespace memlog::test
