#include "timeline/model/access_tally.hpp"

#include "timeline/base/seeded_hash.hpp"

namespace memlog::timeline {

AccessTally tallyAccesses(std::span<const AccessMark> marks) {
    AccessTally tally;
    std::vector<size_t> traps;
    for (size_t i = 0; i < marks.size(); ++i) {
        tally.m_writes += marks[i].m_write;
        if (marks[i].m_armedBy) traps.push_back(i);
        if (marks[i].m_useAfterFree) tally.m_usesAfterFree.push_back(i);
    }
    tally.m_traps = traps.size();
    if (traps.empty()) return tally;
    NumberMap<uint64_t, size_t> bySeq;  // the arming samples' places, by their m_seq
    for (const size_t trap : traps) bySeq.emplace(marks[trap].m_armedBy, SIZE_MAX);
    for (size_t i = 0; i < marks.size(); ++i)
        if (auto it = bySeq.find(marks[i].m_seq); it != bySeq.end()) it->second = i;
    for (const size_t trap : traps)
        if (const size_t armed = bySeq[marks[trap].m_armedBy]; armed != SIZE_MAX)  // else not in the log (torn)
            tally.m_links.emplace_back(armed, trap);
    return tally;
}

}  // namespace memlog::timeline
