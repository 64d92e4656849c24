// Parses MEMLOG_* settings without allocating.
#include "settings.hpp"

#include <cstring>

#include "system.hpp"

namespace memlog::preload {
namespace {

constexpr uint32_t kEnvironBytes = 256 * 1024;
char s_environ[kEnvironBytes];  // static: too big for a thread's stack, used once at start

const char* findVariable(const char* environ, size_t length, const char* name) {
    const size_t nameLength = std::strlen(name);
    for (size_t at = 0; at < length;) {
        const char* entry = environ + at;
        const size_t entryLength = std::strlen(entry);
        if (entryLength > nameLength && std::memcmp(entry, name, nameLength) == 0 && entry[nameLength] == '=')
            return entry + nameLength + 1;
        at += entryLength + 1;
    }
    return nullptr;
}

void complain(const char* variable, const char* value, const char* expected, const char* fallback) {
    (sys::Line() << "memlog: " << variable << "=" << value << " is not " << expected << "; using " << fallback
                 << "\n").emit();
}

bool parseNumber(const char* text, uint64_t& value) {
    if (!*text) return false;
    value = 0;
    for (; *text; ++text) {
        if (*text < '0' || *text > '9' || value > 1'000'000) return false;
        value = value * 10 + static_cast<uint64_t>(*text - '0');
    }
    return true;
}

}  // namespace

void readSettings(Settings& settings) {
    const size_t length = sys::slurp("/proc/self/environ", s_environ, kEnvironBytes);

    if (const char* out = findVariable(s_environ, length, "MEMLOG_OUT"); out && *out) {
        if (std::strlen(out) < sizeof(settings.m_outputTemplate))
            std::strcpy(settings.m_outputTemplate, out);
        else
            complain("MEMLOG_OUT", "(a path)", "shorter than 1024 bytes", settings.m_outputTemplate);
    }
    if (const char* quiet = findVariable(s_environ, length, "MEMLOG_QUIET"))
        settings.m_quiet = std::strcmp(quiet, "0") != 0 && *quiet;
    if (const char* unwind = findVariable(s_environ, length, "MEMLOG_UNWIND")) {
        if (std::strcmp(unwind, "libunwind") == 0)
            settings.m_unwind = format::UnwindMode::Libunwind;
        else if (std::strcmp(unwind, "fp") == 0)
            settings.m_unwind = format::UnwindMode::FramePointer;
        else if (std::strcmp(unwind, "none") == 0)
            settings.m_unwind = format::UnwindMode::None;
        else
            complain("MEMLOG_UNWIND", unwind, "one of libunwind, fp, none", "libunwind");
    }
    if (const char* depth = findVariable(s_environ, length, "MEMLOG_STACK_DEPTH")) {
        uint64_t value = 0;
        if (parseNumber(depth, value) && value >= 1 && value <= format::kMaxStackDepth)
            settings.m_stackDepth = static_cast<uint32_t>(value);
        else
            complain("MEMLOG_STACK_DEPTH", depth, "a number from 1 to 256", "64");
    }
    if (const char* freeStacks = findVariable(s_environ, length, "MEMLOG_FREE_STACKS")) {
        if (std::strcmp(freeStacks, "0") == 0)
            settings.m_freeStacks = false;
        else if (std::strcmp(freeStacks, "1") == 0)
            settings.m_freeStacks = true;
        else
            complain("MEMLOG_FREE_STACKS", freeStacks, "0 or 1", "1");
    }
    if (const char* access = findVariable(s_environ, length, "MEMLOG_ACCESS")) {
        if (std::strcmp(access, "0") == 0)
            settings.m_access = false;
        else if (std::strcmp(access, "1") == 0)
            settings.m_access = true;
        else
            complain("MEMLOG_ACCESS", access, "0 or 1", "0");
    }
    if (const char* rate = findVariable(s_environ, length, "MEMLOG_ACCESS_RATE")) {
        uint64_t value = 0;
        if (parseNumber(rate, value) && value >= 1 && value <= 100'000)
            settings.m_accessRate = static_cast<uint32_t>(value);
        else
            complain("MEMLOG_ACCESS_RATE", rate, "a number from 1 to 100000", "1000");
    }
}

void readProgramName(char* name, uint32_t capacity, char* commandLine, uint32_t commandCapacity) {
    static char cmdline[8192];
    const size_t length = sys::slurp("/proc/self/cmdline", cmdline, sizeof(cmdline));
    const char* argv0 = cmdline;
    const char* base = std::strrchr(argv0, '/');
    base = base ? base + 1 : argv0;
    if (!*base) base = "program";
    std::strncpy(name, base, capacity - 1);
    name[capacity - 1] = '\0';
    uint32_t out = 0;
    for (size_t i = 0; i < length && out + 1 < commandCapacity; ++i)
        commandLine[out++] = cmdline[i] ? cmdline[i] : ' ';
    while (out > 0 && commandLine[out - 1] == ' ') --out;
    commandLine[out] = '\0';
}

}  // namespace memlog::preload
