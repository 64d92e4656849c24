// The naming that follows the read of `memlog stat` and `memlog sites`: the leak suppressions
// applied and every stack's site named. Two independent walks over the symbols: the suppressions
// name the leaked stacks' C library frames (reading its debug information, compressed: about
// 70 ms), the sites the program's own; with a core idle they run side by side, each with a
// symboliser of its own (libdw's sessions are not shared between threads).
#pragma once

#include <vector>

#include "timeline/names/site_table.hpp"
#include "timeline/names/stack_names.hpp"
#include "timeline/replay/stack_metrics.hpp"
#include "timeline/names/suppressions.hpp"

namespace memlog::timeline {

enum class Naming {
    SecondThreadIfIdle,  // the sites on a second thread when a core is idle (idle_core.hpp)
    SecondThread,
    CallingThread,
};

// Applies `suppressions` to `measured` through `names` (the caller's symboliser, which also names
// what comes after) and returns siteRows(…, grouping) of the result: the same as
// applySuppressions, then siteRows, in any mode.
std::vector<SiteRow> suppressAndNameSites(const LogReader& reader, MeasuredLog& measured, StackNames& names,
                                          const Suppressions& suppressions, SiteGrouping grouping = SiteGrouping::Site,
                                          Naming naming = Naming::SecondThreadIfIdle);

}  // namespace memlog::timeline
