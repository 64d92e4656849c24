// A few regular expressions over one line, not a C parser: what they do not recognise gives no
// name, never a wrong one (the caller falls back to the allocation site).
//
// GCC 12 at -O1 with the sanitizers (scripts/test --sanitize) warns that <regex>'s own
// std::function members "may be used uninitialized": a false positive inside the library, the
// only warning of that build. Silenced for this file alone, before any header brings them in.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "timeline/names/source_names.hpp"

#include <fstream>
#include <regex>

namespace memlog::timeline {
namespace {

std::string trimmed(std::string text) {
    const size_t first = text.find_first_not_of(" \t");
    const size_t last = text.find_last_not_of(" \t");
    return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
}

}  // namespace

uint64_t scalarTypeSize(const std::string& type) {
    static const std::map<std::string, uint64_t> kSizes = {
        {"char", 1},     {"signed char", 1}, {"unsigned char", 1},  {"bool", 1},        {"int8_t", 1},
        {"uint8_t", 1},  {"short", 2},       {"unsigned short", 2}, {"int16_t", 2},     {"uint16_t", 2},
        {"int", 4},      {"unsigned", 4},    {"unsigned int", 4},   {"float", 4},       {"int32_t", 4},
        {"uint32_t", 4}, {"long", 8},        {"unsigned long", 8},  {"long long", 8},   {"unsigned long long", 8},
        {"double", 8},   {"size_t", 8},      {"ssize_t", 8},        {"int64_t", 8},     {"uint64_t", 8},
        {"intptr_t", 8}, {"uintptr_t", 8},   {"ptrdiff_t", 8},      {"long double", 16}};
    const std::string plain = trimmed(std::regex_replace(type, std::regex(R"(\b(const|volatile)\b)"), ""));
    if (!plain.empty() && plain.back() == '*') return 8;  // a pointer, on x86-64
    const auto it = kSizes.find(plain);
    return it == kSizes.end() ? 0 : it->second;
}

SourceLineNames parseSourceLine(const std::string& line, const std::string& callee) {
    SourceLineNames names;
    static const std::regex sizeOf(R"(sizeof\s*\(\s*([A-Za-z_][\w\s\*]*?)\s*\))");
    static const std::regex newArray(R"(\bnew\s+([A-Za-z_][\w\s:]*?)\s*\[)");
    std::smatch match;
    if (std::regex_search(line, match, sizeOf) || std::regex_search(line, match, newArray)) {
        names.m_type = trimmed(match[1]);
        names.m_elementSize = scalarTypeSize(names.m_type);
    }
    // The assigned name: the last identifier before a single '=' (not ==, <=, >=, !=), with the
    // call of the allocator (or of `callee`) after it.
    const std::string calls =
        callee.empty() ? std::string(R"((malloc|calloc|realloc|aligned_alloc|new|[A-Za-z_]\w*alloc\w*)\b)")
                       : "(" + std::regex_replace(callee, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") + R"()\s*\()";
    const std::regex assignment(R"(([A-Za-z_]\w*)\s*(\[[^\]]*\]\s*)?=(?!=)[^;=]*?)" + calls);
    if (std::regex_search(line, match, assignment)) names.m_variable = match[1];
    return names;
}

std::optional<std::string> SourceFiles::line(const std::string& path, uint32_t number) {
    if (path.empty() || number == 0) return std::nullopt;
    auto [it, added] = m_files.try_emplace(path);
    if (added) {
        std::ifstream in(path);
        for (std::string text; std::getline(in, text);) it->second.push_back(std::move(text));
    }
    if (number > it->second.size()) return std::nullopt;
    return it->second[number - 1];
}

}  // namespace memlog::timeline
