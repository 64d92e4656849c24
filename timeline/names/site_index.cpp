// Stack ids to site indexes, sites told apart by function, file, line and the function an inline
// helper was inlined into, as in siteTable.
#include "timeline/names/site_index.hpp"

#include <map>
#include <tuple>

#include "timeline/names/site_table.hpp"
#include "timeline/names/stack_names.hpp"

namespace memlog::timeline {

SiteIndex indexSites(StackNames& names, uint32_t stackCount) {
    SiteIndex index;
    index.m_siteOfStack.assign(stackCount, 0);
    std::map<std::tuple<std::string, std::string, uint32_t>, uint32_t> known;
    for (uint32_t stack = 0; stack < stackCount; ++stack) {
        StackNames::SiteOfStack named = names.siteOf(stack);
        unwind::SourceFrame site = std::move(named.m_site);
        // An inline helper's site is named with the function it was inlined into, in legends
        // and bins as in `memlog sites`; one helper in two functions is two sites.
        if (!named.m_inlinedIn.empty()) site.m_function += " (inlined in " + named.m_inlinedIn + ")";
        auto [it, added] =
            known.try_emplace({site.m_function, site.m_file, site.m_line}, static_cast<uint32_t>(index.m_sites.size()));
        if (added) index.m_sites.push_back(std::move(site));
        index.m_siteOfStack[stack] = it->second;
    }
    return index;
}

std::string siteLabel(const unwind::SourceFrame& site) {
    const std::string location = siteLocation(site);
    if (location.empty() || location == site.m_function) return site.m_function;
    return site.m_function + " (" + location + ")";
}

}  // namespace memlog::timeline
