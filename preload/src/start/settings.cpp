// Parses MEMLOG_* settings without allocating.
#include "start/settings.hpp"

#include <cstring>

#include "base/system.hpp"

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

// Every MEMLOG_ name that memlog's parts read: the recorder's settings, and those of the launcher
// (MEMLOG_RUN_LIST, MEMLOG_ONLY_PID, MEMLOG_LIBRARY, MEMLOG_TRACE_TOOL_DIR), the command line tools (MEMLOG_LOG_LEVEL,
// MEMLOG_CACHE_DIR) and the tests (MEMLOG_UPDATE_GOLDEN), which a program's environment may
// carry along.
constexpr const char* kKnownVariables[] = {
    "MEMLOG_OUT", "MEMLOG_QUIET", "MEMLOG_UNWIND", "MEMLOG_STACK_DEPTH", "MEMLOG_FREE_STACKS",
    "MEMLOG_UNWIND_INCREMENTAL", "MEMLOG_UNWIND_CHECK", "MEMLOG_ACCESS", "MEMLOG_ACCESS_RATE",
    "MEMLOG_WATCH", "MEMLOG_WATCH_RATE", "MEMLOG_FULL_TRACE", "MEMLOG_RUN_LIST", "MEMLOG_ONLY_PID",
    "MEMLOG_LIBRARY", "MEMLOG_LOG_LEVEL", "MEMLOG_CACHE_DIR", "MEMLOG_UPDATE_GOLDEN", "MEMLOG_TRACE_TOOL_DIR",
};

// A misspelt setting (MEMLOG_OUTPUT for MEMLOG_OUT) would otherwise do nothing, silently.
void warnUnknownVariables(const char* environ, size_t length) {
    for (size_t at = 0; at < length;) {
        const char* entry = environ + at;
        const size_t entryLength = std::strlen(entry);
        at += entryLength + 1;
        if (std::strncmp(entry, "MEMLOG_", 7) != 0) continue;
        const char* equals = std::strchr(entry, '=');
        if (!equals) continue;
        const size_t nameLength = static_cast<size_t>(equals - entry);
        bool known = false;
        for (const char* name : kKnownVariables)
            known = known || (std::strlen(name) == nameLength && std::memcmp(name, entry, nameLength) == 0);
        if (known) continue;
        char name[64];
        const size_t kept = nameLength < sizeof name - 1 ? nameLength : sizeof name - 1;
        std::memcpy(name, entry, kept);
        name[kept] = '\0';
        (sys::Line() << "memlog: " << name << " is not a memlog setting; ignored (memlog run --help lists them)\n").emit();
    }
}

}  // namespace

void readSettings(Settings& settings) {
    const size_t length = sys::slurp("/proc/self/environ", s_environ, kEnvironBytes);
    // NAME=0 or NAME=1; anything else keeps the default and says so.
    auto readSwitch = [&](const char* name, bool& value) {
        const char* text = findVariable(s_environ, length, name);
        if (!text) return;
        if (std::strcmp(text, "0") == 0 || std::strcmp(text, "1") == 0)
            value = text[0] == '1';
        else
            complain(name, text, "0 or 1", value ? "1" : "0");
    };
    auto readRate = [&](const char* name, uint32_t& value, const char* fallback) {
        const char* text = findVariable(s_environ, length, name);
        uint64_t parsed = 0;
        if (!text) return;
        if (parseNumber(text, parsed) && parsed >= 1 && parsed <= 100'000)
            value = static_cast<uint32_t>(parsed);
        else
            complain(name, text, "a number from 1 to 100000", fallback);
    };

    if (const char* out = findVariable(s_environ, length, "MEMLOG_OUT"); out && *out) {
        if (std::strlen(out) < sizeof(settings.m_outputTemplate))
            std::strcpy(settings.m_outputTemplate, out);
        else
            complain("MEMLOG_OUT", "(a path)", "shorter than 1024 bytes", settings.m_outputTemplate);
    }
    if (const char* list = findVariable(s_environ, length, "MEMLOG_RUN_LIST"); list && *list) {
        if (std::strlen(list) < sizeof(settings.m_runList)) std::strcpy(settings.m_runList, list);
    }
    if (const char* only = findVariable(s_environ, length, "MEMLOG_ONLY_PID")) {
        uint64_t pid = 0;
        if (parseNumber(only, pid) && pid >= 1)
            settings.m_onlyPid = static_cast<uint32_t>(pid);
        else
            complain("MEMLOG_ONLY_PID", only, "a pid", "every process");
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
    readSwitch("MEMLOG_FREE_STACKS", settings.m_freeStacks);
    readSwitch("MEMLOG_UNWIND_INCREMENTAL", settings.m_incremental);
    readSwitch("MEMLOG_UNWIND_CHECK", settings.m_unwindCheck);
    readSwitch("MEMLOG_ACCESS", settings.m_access);
    readRate("MEMLOG_ACCESS_RATE", settings.m_accessRate, "1000");
    readSwitch("MEMLOG_FULL_TRACE", settings.m_fullTrace);
    readSwitch("MEMLOG_WATCH", settings.m_watch);
    readRate("MEMLOG_WATCH_RATE", settings.m_watchRate, "500");
    // Watchpoints follow the words that tick samples found: they need the ticks.
    if (settings.m_watch) settings.m_access = true;
    warnUnknownVariables(s_environ, length);
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
