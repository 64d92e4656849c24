// Advice about the recorded program that the numbers alone do not give: what a first-time user
// of memlog on that kind of program should know (printed by `memlog stat`).
#pragma once

#include <string>
#include <vector>

#include "timeline/replay/stack_metrics.hpp"

namespace memlog::timeline {

class StackNames;

// True when CPython's small-object allocator (pymalloc) made arenas in this log: the objects
// live inside those few mappings and are not blocks of their own. Seen by the arena functions'
// names in the stacks of mappings of an arena's size (CPython's binaries keep those symbols).
bool usesPymalloc(StackNames& names, const std::vector<StackMetrics>& stacks);

// One sentence per hint, none for most programs.
std::vector<std::string> programHints(StackNames& names, const std::vector<StackMetrics>& stacks);

}  // namespace memlog::timeline
