#include "timeline/model/access_tally.hpp"

#include "timeline/base/seeded_hash.hpp"

namespace memlog::timeline {

AccessTally tallyAccesses(std::span<const AccessMark> marks) {
    AccessTallier tallier;
    for (size_t i = 0; i < marks.size(); ++i) tallier.add(marks[i], i);
    return tallier.finish(marks);
}

AccessTally AccessTallier::finish(std::span<const AccessMark> marks) {
    AccessTally tally = std::move(m_tally);
    tally.m_traps = m_traps.size();
    if (m_traps.empty()) return tally;
    NumberMap<uint64_t, size_t> bySeq;  // the arming samples' places, by their m_seq
    for (const size_t trap : m_traps) bySeq.emplace(marks[trap].m_armedBy, SIZE_MAX);
    for (size_t i = 0; i < marks.size(); ++i)
        if (auto it = bySeq.find(marks[i].m_seq); it != bySeq.end()) it->second = i;
    for (const size_t trap : m_traps)
        if (const size_t armed = bySeq[marks[trap].m_armedBy]; armed != SIZE_MAX)  // else not in the log (torn)
            tally.m_links.emplace_back(armed, trap);
    return tally;
}

}  // namespace memlog::timeline
