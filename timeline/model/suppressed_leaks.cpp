// One pass over the model's blocks, one question to the rules per stack that still held a block
// at the end.
#include "timeline/model/suppressed_leaks.hpp"

#include <vector>

#include "timeline/model/block_model.hpp"
#include "timeline/names/suppressions.hpp"

namespace memlog::timeline {

SuppressedLeaks suppressedLeaks(const BlockModel& model, StackNames& names, const Suppressions& suppressions) {
    std::vector<int8_t> matched;  // by stack: -1 not yet asked, 0 no, 1 yes
    SuppressedLeaks leaks;
    model.forEach([&](const Block& block) {
        if (!block.liveAtEnd() || block.mapping()) return;  // a mapping alive at exit is no leak
        const uint32_t stack = block.stack();
        if (stack == 0) return;
        if (stack >= matched.size()) matched.resize(stack + 1, -1);
        if (matched[stack] < 0) matched[stack] = suppressions.matchStack(names, stack) ? 1 : 0;
        if (matched[stack] == 0) return;
        leaks.m_bytes += block.size();
        ++leaks.m_blocks;
    });
    return leaks;
}

}  // namespace memlog::timeline
