// Leak suppressions: which stacks' leaks are by design, and moving them apart.
#include "timeline/names/suppressions.hpp"

#include <fstream>

#include "timeline/read/log_reader.hpp"
#include "timeline/names/allocator_plumbing.hpp"
#include "timeline/names/stack_names.hpp"

namespace memlog::timeline {
namespace {

enum BuiltIn { kUserPattern = 0, kRuntimeInitialiser = 1, kStdioBuffer = 2, kGlibcProcessState = 3, kLoaderState = 4 };

bool startsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

// libstdc++'s emergency exception pool (72 KiB on GCC 12) and the like: a runtime library that
// allocates from its own initialiser, called by the dynamic loader before main. Only a stack
// with nothing but the loader above the library's frames matches: the same library called by
// the program is not suppressed. Modules alone: no frame is named.
bool isRuntimeInitialiser(StackView& stack) {
    const size_t depth = stack.addresses();
    if (depth == 0) return false;
    const std::string& module = stack.module(0);
    if (!startsWith(module, "libstdc++.so") && !startsWith(module, "libgcc_s.so")) return false;
    size_t i = 0;
    while (i < depth && stack.module(i) == module) ++i;
    if (i == depth) return false;
    for (; i < depth; ++i)
        if (!startsWith(stack.module(i), "ld-linux")) return false;
    return true;
}

bool isGlibc(const std::string& module) { return startsWith(module, "libc.so"); }

// A glibc function by its exported name: with debug symbols the frames carry the internal
// aliases (__GI__IO_file_doallocate).
bool isGlibcFunction(const unwind::SourceFrame& frame, const char* name) {
    if (!isGlibc(frame.m_module)) return false;
    const std::string& function = frame.m_function;
    return function == name || (startsWith(function, "__GI_") && function.compare(5, std::string::npos, name) == 0);
}

// stdio's buffer for a stream (stdout, stderr, a FILE the program opened): glibc keeps the
// buffers of the standard streams until exit. A FILE never closed still shows: its fopen's block.
bool isStdioBuffer(StackView& stack) {
    for (size_t i = 0; i < stack.addresses(); ++i) {
        if (!isGlibc(stack.module(i))) continue;  // its frames are not glibc's: left unnamed
        for (const unwind::SourceFrame& frame : stack.frames(i))
            if (isGlibcFunction(frame, "_IO_file_doallocate")) return true;
    }
    return false;
}

// What glibc allocates once and keeps for the process: the name service switch's modules and
// database state, and the static result buffers of getpwuid() and its kin.
bool isGlibcProcessState(StackView& stack) {
    static const char* const kOnce[] = {"__nss_module_allocate",
                                        "__nss_action_allocate",
                                        "global_state_allocate",
                                        "getpwuid",
                                        "getpwnam",
                                        "getgrgid",
                                        "getgrnam",
                                        "getpwent",
                                        "getgrent"};
    if (stack.addresses() == 0 || !isGlibc(stack.module(0))) return false;
    const unwind::SourceFrame& innermost = stack.frames(0).front();
    for (const char* name : kOnce)
        if (isGlibcFunction(innermost, name)) return true;
    return false;
}

// The dynamic loader's state for a library dlopen'd and not closed (its link map, names, version
// tables, the object lookup's segments): the loader keeps it until dlclose, and a plugin is
// commonly kept until exit. Only what the loader allocated inside _dl_open, every frame on the
// way the runtime's (the C library, the loader, the recorder opening a deep-bound library, the
// C++ runtime's own initialiser): an allocation by the library's own constructor, run inside the
// same call, is the library's.
bool isLoaderState(StackView& stack) {
    for (size_t i = 0; i < stack.addresses(); ++i) {
        const std::string& module = stack.module(i);
        if (!isAllocatorPlumbingModule(module)) return false;
        if (!startsWith(module, "ld-linux")) continue;
        for (const unwind::SourceFrame& frame : stack.frames(i))
            if (frame.m_function == "_dl_open") return true;
    }
    return false;
}

// A leak: pattern against every frame's function, module or file: the modules first, which
// cost nothing to know; the frames are named only when no module matched.
bool matchesPattern(const std::string& pattern, StackView& stack) {
    for (size_t i = 0; i < stack.addresses(); ++i)
        if (patternMatches(pattern, stack.module(i))) return true;
    for (size_t i = 0; i < stack.addresses(); ++i)
        for (const unwind::SourceFrame& frame : stack.frames(i))
            if (patternMatches(pattern, frame.m_function) || patternMatches(pattern, frame.m_file)) return true;
    return false;
}

// Frames already named, each standing for a return address of its own.
class FrameList final : public StackView {
public:
    explicit FrameList(const std::vector<unwind::SourceFrame>& frames) : m_frames(frames) {}
    size_t addresses() const override { return m_frames.size(); }
    const std::string& module(size_t address) override { return m_frames[address].m_module; }
    std::span<const unwind::SourceFrame> frames(size_t address) override { return {&m_frames[address], 1}; }

private:
    const std::vector<unwind::SourceFrame>& m_frames;
};

// A stack of the log, named through StackNames as the rules ask.
class NamedStack final : public StackView {
public:
    NamedStack(StackNames& names, uint32_t stack) : m_names(names), m_addresses(names.addresses(stack).toVector()) {}
    size_t addresses() const override { return m_addresses.size(); }
    const std::string& module(size_t address) override {
        if (m_modules.empty()) {
            m_modules.reserve(m_addresses.size());
            for (uint64_t returnAddress : m_addresses) m_modules.push_back(m_names.moduleAt(returnAddress));
        }
        return m_modules[address];
    }
    std::span<const unwind::SourceFrame> frames(size_t address) override {
        return m_names.framesAt(m_addresses[address]);
    }

private:
    StackNames& m_names;
    const std::vector<uint64_t> m_addresses;
    std::vector<std::string> m_modules;  // filled at the first question
};

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
    m_rules.push_back({"_dl_open (ld-linux, every frame inside it the runtime's)", "built-in",
                       "the dynamic loader's state for a library dlopen'd and never closed (link map, names, "
                       "version tables), kept until dlclose",
                       true, kLoaderState});
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
    FrameList stack(frames);
    return match(stack);
}

const SuppressionRule* Suppressions::match(StackView& stack) const {
    for (const SuppressionRule& rule : m_rules) {
        if (rule.m_builtInKind == kRuntimeInitialiser && isRuntimeInitialiser(stack)) return &rule;
        if (rule.m_builtInKind == kStdioBuffer && isStdioBuffer(stack)) return &rule;
        if (rule.m_builtInKind == kGlibcProcessState && isGlibcProcessState(stack)) return &rule;
        if (rule.m_builtInKind == kLoaderState && isLoaderState(stack)) return &rule;
        if (rule.m_builtInKind == kUserPattern && matchesPattern(rule.m_pattern, stack)) return &rule;
    }
    return nullptr;
}

const SuppressionRule* Suppressions::matchStack(StackNames& names, uint32_t stack) const {
    NamedStack named(names, stack);
    return match(named);
}

void applySuppressions(MeasuredLog& measured, StackNames& names, const Suppressions& suppressions) {
    for (size_t id = 1; id < measured.m_stacks.size(); ++id) {
        StackMetrics& metrics = measured.m_stacks[id];
        if (metrics.m_leakedBlocks == 0) continue;
        if (!suppressions.matchStack(names, static_cast<uint32_t>(id))) continue;
        if (SampleEstimates& sampling = measured.m_summary.m_sampling; sampling.m_meanBytes) {
            // A sampled log: the summary's counts are the samples', its estimate loses the stack's part.
            const WeightedSum& part = measured.m_stackEstimates[id].m_leaked.m_sum;
            WeightedSum rest = sampling.m_leaked.m_sum;
            rest.subtract(part);
            sampling.m_leaked = estimateOf(rest, static_cast<double>(sampling.m_meanBytes));
            const auto bytes = static_cast<uint64_t>(part.m_observed);
            measured.m_summary.m_leakedBytes -= bytes;
            measured.m_summary.m_leakedBlocks -= part.m_samples;
            measured.m_summary.m_suppressedBytes += bytes;
            measured.m_summary.m_suppressedBlocks += part.m_samples;
            measured.m_stackEstimates[id].m_leaked = estimateOf({}, static_cast<double>(sampling.m_meanBytes));
            measured.m_stackEstimates[id].m_leakedBlocks = measured.m_stackEstimates[id].m_leaked;
            metrics.m_suppressedBytes += metrics.m_leakedBytes;
            metrics.m_suppressedBlocks += metrics.m_leakedBlocks;
            metrics.m_leakedBytes = 0;
            metrics.m_leakedBlocks = 0;
            continue;
        }
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
