// The blocks of a block model still live at its end that a leak suppression matches: what a
// picture's header counts apart from the leaks. The rules are names' (suppressions.hpp); the
// blocks are the model's, so the count sits with the model.
#pragma once

#include <cstdint>

namespace memlog::timeline {

class BlockModel;
class StackNames;
class Suppressions;

struct SuppressedLeaks {
    uint64_t m_bytes = 0;
    uint64_t m_blocks = 0;
};

// Each stack of a block live at the end is asked once (named only as far as the rules ask).
SuppressedLeaks suppressedLeaks(const BlockModel& model, StackNames& names, const Suppressions& suppressions);

}  // namespace memlog::timeline
