// Suppressions and sites, side by side when a core is idle.
#include "timeline/names/sites_beside_suppressions.hpp"

#include <exception>
#include <thread>

#include "timeline/base/idle_core.hpp"

namespace memlog::timeline {

std::vector<SiteRow> suppressAndNameSites(const LogReader& reader, MeasuredLog& measured, StackNames& names,
                                          const Suppressions& suppressions, SiteGrouping grouping, Naming naming) {
    if (naming == Naming::CallingThread || (naming == Naming::SecondThreadIfIdle && !aCoreIsIdle())) {
        applySuppressions(measured, names, suppressions);
        return siteRows(names, measured, grouping);
    }
    // The second symboliser warns of nothing: `names` told the user of its modules already. The
    // site walk reads only m_calls of the metrics, which the suppressions leave alone (they move
    // the leak fields), so the two threads share no memory that either writes.
    StackNames siteNames(reader, {});
    NamedSiteRows sites;
    std::exception_ptr failure;
    std::thread siteWalk([&] {
        try {
            sites = nameSiteRows(siteNames, measured.m_stacks, grouping);
        } catch (...) {
            failure = std::current_exception();
        }
    });
    try {
        applySuppressions(measured, names, suppressions);
    } catch (...) {
        siteWalk.join();
        throw;
    }
    siteWalk.join();
    if (failure) std::rethrow_exception(failure);
    return siteRows(std::move(sites), measured.m_stacks, measured.m_stackEstimates,
                    measured.m_summary.m_sampling.m_meanBytes);
}

}  // namespace memlog::timeline
