// What is counted and found once over a model's access samples, not again for every frame: a
// full trace holds an access a sample, and each pass over its 62 M took a tenth of a second (the
// legend's counts, the watchpoints' lines, the uses after free).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "timeline/model/access_marks.hpp"

namespace memlog::timeline {

struct AccessTally {
    uint64_t m_writes = 0;
    uint64_t m_traps = 0;  // samples with m_armedBy: a watchpoint's trap
    // The sample that armed a watchpoint and its trap (a trap whose arming sample is not in the
    // log, torn off, has none), and the uses after free, as places in the list.
    std::vector<std::pair<size_t, size_t>> m_links;
    std::vector<size_t> m_usesAfterFree;
};

AccessTally tallyAccesses(std::span<const AccessMark> marks);

// The same, counted as a walk makes the samples, one after another: a full trace's are then not
// read again (a pass over sqlite3's 4.5 GB of them).
class AccessTallier {
public:
    // The sample at `place` in the list.
    void add(const AccessMark& mark, size_t place) {
        m_tally.m_writes += mark.m_write;
        if (mark.m_armedBy) m_traps.push_back(place);
        if (mark.m_useAfterFree) m_tally.m_usesAfterFree.push_back(place);
    }
    // The tally of the samples added, which are `marks`: each trap linked to the sample that armed
    // it (a pass over them, only when there are traps).
    AccessTally finish(std::span<const AccessMark> marks);

private:
    AccessTally m_tally;
    std::vector<size_t> m_traps;
};

}  // namespace memlog::timeline
