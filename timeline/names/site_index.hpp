// Call stacks grouped by allocation site (the rule of stack_names.hpp): what a picture colours by
// when it colours by the function that asked for the memory, and what it names in a legend.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "unwind/symbolizer.hpp"

namespace memlog::timeline {

class StackNames;

struct SiteIndex {
    std::vector<uint32_t> m_siteOfStack;  // by stack id: an index into m_sites
    std::vector<unwind::SourceFrame> m_sites;  // distinct sites; [0] is "(no stack)"
};

// Names every stack below `stackCount` once.
SiteIndex indexSites(StackNames& names, uint32_t stackCount);

// "function (file:line)", or the function alone when the location is unknown.
std::string siteLabel(const unwind::SourceFrame& site);

}  // namespace memlog::timeline
