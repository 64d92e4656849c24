// Leak suppressions: which stacks' leaks are by design, and moving them apart.
#include "timeline/suppressions.hpp"

#include <fstream>

#include "timeline/block_model.hpp"
#include "timeline/log_reader.hpp"
#include "timeline/sites.hpp"

namespace memlog::timeline {
namespace {

enum BuiltIn { kUserPattern = 0, kRuntimeInitialiser = 1, kStdioBuffer = 2, kGlibcProcessState = 3 };

bool startsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

bool isDynamicLoader(const unwind::SourceFrame& frame) { return startsWith(frame.m_module, "ld-linux"); }

// libstdc++'s emergency exception pool (72 KiB on GCC 12) and the like: a runtime library that
// allocates from its own initialiser, called by the dynamic loader before main. Only a stack
// with nothing but the loader above the library's frames matches: the same library called by
// the program is not suppressed.
bool isRuntimeInitialiser(const std::vector<unwind::SourceFrame>& frames) {
    if (frames.size() < 2) return false;
    const std::string& module = frames.front().m_module;
    if (!startsWith(module, "libstdc++.so") && !startsWith(module, "libgcc_s.so")) return false;
    size_t i = 0;
    while (i < frames.size() && frames[i].m_module == module) ++i;
    if (i == frames.size()) return false;
    for (; i < frames.size(); ++i)
        if (!isDynamicLoader(frames[i])) return false;
    return true;
}

// A glibc function by its exported name: with debug symbols the frames carry the internal
// aliases (__GI__IO_file_doallocate).
bool isGlibcFunction(const unwind::SourceFrame& frame, const char* name) {
    if (!startsWith(frame.m_module, "libc.so")) return false;
    const std::string& function = frame.m_function;
    return function == name || (startsWith(function, "__GI_") && function.compare(5, std::string::npos, name) == 0);
}

// stdio's buffer for a stream (stdout, stderr, a FILE the program opened): glibc keeps the
// buffers of the standard streams until exit. A FILE never closed still shows: its fopen's block.
bool isStdioBuffer(const std::vector<unwind::SourceFrame>& frames) {
    for (const unwind::SourceFrame& frame : frames)
        if (isGlibcFunction(frame, "_IO_file_doallocate")) return true;
    return false;
}

// What glibc allocates once and keeps for the process: the name service switch's modules and
// database state, and the static result buffers of getpwuid() and its kin.
bool isGlibcProcessState(const std::vector<unwind::SourceFrame>& frames) {
    static const char* const kOnce[] = {"__nss_module_allocate",
                                        "__nss_action_allocate",
                                        "global_state_allocate",
                                        "getpwuid",
                                        "getpwnam",
                                        "getgrgid",
                                        "getgrnam",
                                        "getpwent",
                                        "getgrent"};
    if (frames.empty()) return false;
    for (const char* name : kOnce)
        if (isGlibcFunction(frames.front(), name)) return true;
    return false;
}

bool matchHere(const char* pattern, const char* text, bool anchoredEnd) {
    for (; *pattern; ++pattern, ++text) {
        if (*pattern == '*') {
            for (const char* rest = text;; ++rest) {
                if (matchHere(pattern + 1, rest, anchoredEnd)) return true;
                if (!*rest) return false;
            }
        }
        if (*text != *pattern) return false;
    }
    return !anchoredEnd || !*text;
}

}  // namespace

bool patternMatches(const std::string& pattern, const std::string& text) {
    if (pattern.empty() || text.empty()) return false;
    std::string body = pattern;
    const bool start = body.front() == '^';
    if (start) body.erase(0, 1);
    const bool end = !body.empty() && body.back() == '$';
    if (end) body.pop_back();
    if (start) return matchHere(body.c_str(), text.c_str(), end);
    for (size_t at = 0; at <= text.size(); ++at)
        if (matchHere(body.c_str(), text.c_str() + at, end)) return true;
    return false;
}

Suppressions::Suppressions() {
    m_rules.push_back({"<libstdc++ or libgcc_s, called only by the dynamic loader>", "built-in",
                       "a C++ runtime's one-time allocation in its own initialiser before main "
                       "(libstdc++'s emergency exception pool, 72 KiB with GCC 12)",
                       true, kRuntimeInitialiser});
    m_rules.push_back({"_IO_file_doallocate (libc.so)", "built-in", "stdio's stream buffers, kept until exit by design",
                       true, kStdioBuffer});
    m_rules.push_back(
        {"__nss_module_allocate, __nss_action_allocate, global_state_allocate, getpwuid, getpwnam, "
         "getgrgid, getgrnam, getpwent, getgrent (libc.so, the allocating frame)",
         "built-in",
         "glibc's name service state and the static buffers of the passwd and group "
         "lookups, kept for the process's life",
         true, kGlibcProcessState});
}

void Suppressions::load(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw LogError(path, 0, "cannot open the suppressions file");
    uint64_t offset = 0;
    int number = 0;
    for (std::string line; std::getline(file, line); offset += line.size() + 1) {
        ++number;
        std::string text = line;
        while (!text.empty() && (text.back() == '\r' || text.back() == ' ' || text.back() == '\t')) text.pop_back();
        const size_t first = text.find_first_not_of(" \t");
        if (first == std::string::npos || text[first] == '#') continue;
        text.erase(0, first);
        if (!startsWith(text, "leak:") || text.size() == 5)
            throw LogError(
                path, offset,
                "line " + std::to_string(number) + " is not a 'leak:PATTERN' line (the only kind memlog reads)");
        m_rules.push_back({text.substr(5), path + ":" + std::to_string(number), "", false, kUserPattern});
    }
}

const SuppressionRule* Suppressions::match(const std::vector<unwind::SourceFrame>& frames) const {
    for (const SuppressionRule& rule : m_rules) {
        if (rule.m_builtInKind == kRuntimeInitialiser && isRuntimeInitialiser(frames)) return &rule;
        if (rule.m_builtInKind == kStdioBuffer && isStdioBuffer(frames)) return &rule;
        if (rule.m_builtInKind == kGlibcProcessState && isGlibcProcessState(frames)) return &rule;
        if (rule.m_builtInKind != kUserPattern) continue;
        for (const unwind::SourceFrame& frame : frames)
            if (patternMatches(rule.m_pattern, frame.m_function) || patternMatches(rule.m_pattern, frame.m_module) ||
                patternMatches(rule.m_pattern, frame.m_file))
                return &rule;
    }
    return nullptr;
}

SuppressedLeaks suppressedLeaks(const BlockModel& model, StackNames& names, const Suppressions& suppressions) {
    std::vector<int8_t> matched;  // by stack: -1 not yet asked, 0 no, 1 yes
    SuppressedLeaks leaks;
    model.forEach([&](const Block& block) {
        if (!block.liveAtEnd()) return;
        const uint32_t stack = block.stack();
        if (stack == 0) return;
        if (stack >= matched.size()) matched.resize(stack + 1, -1);
        if (matched[stack] < 0) matched[stack] = suppressions.match(names.frames(stack)) ? 1 : 0;
        if (matched[stack] == 0) return;
        leaks.m_bytes += block.size();
        ++leaks.m_blocks;
    });
    return leaks;
}

void applySuppressions(MeasuredLog& measured, StackNames& names, const Suppressions& suppressions) {
    for (size_t id = 1; id < measured.m_stacks.size(); ++id) {
        StackMetrics& metrics = measured.m_stacks[id];
        if (metrics.m_leakedBlocks == 0) continue;
        if (!suppressions.match(names.frames(static_cast<uint32_t>(id)))) continue;
        metrics.m_suppressedBytes += metrics.m_leakedBytes;
        metrics.m_suppressedBlocks += metrics.m_leakedBlocks;
        measured.m_summary.m_leakedBytes -= metrics.m_leakedBytes;
        measured.m_summary.m_leakedBlocks -= metrics.m_leakedBlocks;
        measured.m_summary.m_suppressedBytes += metrics.m_leakedBytes;
        measured.m_summary.m_suppressedBlocks += metrics.m_leakedBlocks;
        metrics.m_leakedBytes = 0;
        metrics.m_leakedBlocks = 0;
    }
}

}  // namespace memlog::timeline
