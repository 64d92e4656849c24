// The simulator: per set its lines in recency order, and a fully associative cache of the same size
// beside it to tell capacity misses from conflict misses.
#include "timeline/trace/cache_model.hpp"

#include <algorithm>

#include "timeline/base/number_parsing.hpp"

namespace memlog::timeline {

namespace {

bool powerOfTwo(uint64_t value) { return value && (value & (value - 1)) == 0; }

}  // namespace

std::string_view geometryProblem(const CacheGeometry& geometry) {
    if (!powerOfTwo(geometry.m_line)) return "the line must be a power of two bytes";
    if (geometry.m_ways == 0) return "a cache needs at least one way";
    const uint64_t perSet = static_cast<uint64_t>(geometry.m_ways) * geometry.m_line;
    if (geometry.m_size == 0 || geometry.m_size % perSet) return "the size must be a multiple of ways x line";
    if (!powerOfTwo(geometry.sets())) return "size / (ways x line) must be a power of two (the number of sets)";
    return "";
}

std::optional<CacheGeometry> parseCacheGeometry(const std::string& text, std::string_view* problem) {
    const size_t first = text.find(':'), second = first == std::string::npos ? first : text.find(':', first + 1);
    const auto size = first == std::string::npos ? std::nullopt : parseByteSize(text.substr(0, first));
    const auto ways =
        second == std::string::npos ? std::nullopt : parseCount(text.substr(first + 1, second - first - 1));
    const auto line = second == std::string::npos ? std::nullopt : parseCount(text.substr(second + 1));
    if (!size || !ways || !line || *ways > UINT32_MAX || *line > UINT32_MAX) {
        if (problem) *problem = "give SIZE:WAYS:LINE, such as 32K:8:64";
        return std::nullopt;
    }
    const CacheGeometry geometry{*size, static_cast<uint32_t>(*ways), static_cast<uint32_t>(*line)};
    if (const std::string_view why = geometryProblem(geometry); !why.empty()) {
        if (problem) *problem = why;
        return std::nullopt;
    }
    return geometry;
}

const char* cacheGeometryMistake(const char* text) {
    std::string_view problem;
    return parseCacheGeometry(text, &problem) ? nullptr : problem.data();  // the views are of literals
}

const char* cacheOutcomeName(CacheOutcome outcome) {
    switch (outcome) {
        case CacheOutcome::Hit:
            return "hit";
        case CacheOutcome::Compulsory:
            return "compulsory";
        case CacheOutcome::Capacity:
            return "capacity";
        case CacheOutcome::Conflict:
            return "conflict";
    }
    return "?";
}

CacheModel::CacheModel(const CacheGeometry& geometry)
    : m_geometry(geometry), m_sets(geometry.sets()), m_setLines(m_sets) {
    for (auto& lines : m_setLines) lines.reserve(geometry.m_ways);
}

bool CacheModel::touchSet(uint64_t line) {
    std::vector<uint64_t>& lines = m_setLines[line & (m_sets - 1)];
    auto it = std::find(lines.begin(), lines.end(), line);
    const bool hit = it != lines.end();
    if (hit)
        lines.erase(it);
    else if (lines.size() == m_geometry.m_ways)
        lines.pop_back();  // the least recently used leaves
    lines.insert(lines.begin(), line);
    return hit;
}

bool CacheModel::touchFullyAssociative(uint64_t line) {
    if (auto it = m_resident.find(line); it != m_resident.end()) {
        m_recency.splice(m_recency.begin(), m_recency, it->second);
        return true;
    }
    if (m_recency.size() == m_geometry.lines()) {
        m_resident.erase(m_recency.back());
        m_recency.pop_back();
    }
    m_recency.push_front(line);
    m_resident.emplace(line, m_recency.begin());
    return false;
}

CacheOutcome CacheModel::access(uint64_t addr) {
    const uint64_t line = addr / m_geometry.m_line;
    const bool hit = touchSet(line);
    const bool hitAnyway = touchFullyAssociative(line);
    const bool seenBefore = !m_seen.insert(line).second;
    if (hit) return CacheOutcome::Hit;
    if (!seenBefore) return CacheOutcome::Compulsory;
    return hitAnyway ? CacheOutcome::Conflict : CacheOutcome::Capacity;
}

}  // namespace memlog::timeline
