// Call stacks as names: each stack's source frames (from unwind/'s symboliser, through the
// module map in the log), its allocation site, and the site table.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "timeline/replay/stack_metrics.hpp"
#include "timeline/read/stack_records.hpp"
#include "unwind/symbolizer.hpp"

namespace memlog::timeline {

class LogReader;

// The allocation site of a block: its innermost frame that is not allocator plumbing, the frame
// a user would point at. Plumbing: code in the C library or libstdc++ (strdup, operator new
// itself), and the C++ library's templates compiled into the program (std::allocator, the
// containers' growth and node allocation), recognised by their headers under /usr/include/c++.
bool isAllocatorPlumbing(const unwind::SourceFrame& frame);
// The part of it a module's name decides alone: every frame of these modules is plumbing, so a
// walk can pass over their addresses without naming them (reading their debug information).
bool isAllocatorPlumbingModule(const std::string& module);

class StackNames {
public:
    // Reads the module map of `reader` (after a walk); `warn` gets one line per problem.
    StackNames(const LogReader& reader, std::function<void(const std::string&)> warn);
    ~StackNames();

    // Source frames of a stack, innermost first (inlined frames expanded). Empty for id 0.
    std::vector<unwind::SourceFrame> frames(uint32_t stack);
    // The same a return address at a time, for walks that name only what they need: a stack's
    // return addresses (innermost first; empty for id 0 and unknown ids), the module of one
    // (no debug information read) and its source frames (named once, then cached).
    StackFrames addresses(uint32_t stack) const;
    const std::string& moduleAt(uint64_t returnAddress) const { return m_symbolizer->moduleName(returnAddress); }
    const std::vector<unwind::SourceFrame>& framesAt(uint64_t returnAddress) {
        return m_symbolizer->resolve(returnAddress);
    }
    // Distinct return addresses named so far.
    size_t addressesNamed() const { return m_symbolizer->addressesResolved(); }
    // The allocation site; a frame named "(no stack)" for id 0.
    unwind::SourceFrame site(uint32_t stack);
    // The function the site's code was inlined into (the first frame after it that is not
    // inlined), empty when the site is a function of its own; and that caller's frame itself
    // (the site's own frame when it is not inlined): what `memlog sites --by caller` groups by.
    std::string inlinedIn(uint32_t stack);
    unwind::SourceFrame caller(uint32_t stack);
    // The three at once, from one walk of the stack's frames (tables name every stack).
    struct SiteOfStack {
        unwind::SourceFrame m_site;
        std::string m_inlinedIn;
        unwind::SourceFrame m_caller;
        // The stack's first return address outside the allocator's modules, when its frames
        // alone held the site and its caller: any stack through it has the same three. 0 else.
        uint64_t m_decidedBy = 0;
    };
    SiteOfStack siteOf(uint32_t stack);
    // The stack's first return address outside the allocator's modules (no frame named), 0 for
    // none: what m_decidedBy is compared with.
    uint64_t firstOutsidePlumbing(uint32_t stack) const;
    // The source frames of an access sample's instruction itself (not a return address).
    const std::vector<unwind::SourceFrame>& instruction(uint64_t ip) { return m_symbolizer->resolveInstruction(ip); }
    // A global's name: the ELF symbol around a data address (Symbolizer::symbolAt).
    std::string globalName(uint64_t addr) { return m_symbolizer->symbolAt(addr); }
    std::optional<unwind::Symbolizer::DataSymbol> dataSymbolAt(uint64_t addr) {
        return m_symbolizer->dataSymbolAt(addr);
    }
    std::optional<unwind::Symbolizer::DataSymbol> dataSymbolNamed(const std::string& name) {
        return m_symbolizer->dataSymbolNamed(name);
    }
    // Resolves every stack once, telling `progress` how far it got.
    void resolveAll(const std::function<void(double)>& progress);

private:
    const LogReader& m_reader;
    std::unique_ptr<unwind::Symbolizer> m_symbolizer;
};

struct SiteRow {
    unwind::SourceFrame m_site;
    std::string m_inlinedIn;  // see StackNames::inlinedIn
    StackMetrics m_metrics;
};

// Rows per allocation site, or per the function the sites were inlined into (Caller: an
// inlined helper's blocks count for the function a user wrote the call in; the row has no line).
enum class SiteGrouping { Site, Caller };

// Per-site totals, sorted by `by` (largest first), at most `top` rows (0: all).
std::vector<SiteRow> siteTable(StackNames& names, const std::vector<StackMetrics>& stacks, Metric by, size_t top,
                               SiteGrouping grouping = SiteGrouping::Site);
// The same rows unsorted: to be sorted more than one way (the top lists of `memlog stat`).
std::vector<SiteRow> siteRows(StackNames& names, const std::vector<StackMetrics>& stacks,
                              SiteGrouping grouping = SiteGrouping::Site);
// The two halves of siteRows. The naming: the rows without their numbers, in the table's order,
// and the row of each stack that allocated (by stack id); it reads only `m_calls` of the metrics.
struct NamedSiteRows {
    static constexpr uint32_t kNoRow = UINT32_MAX;
    std::vector<SiteRow> m_rows;
    std::vector<uint32_t> m_rowOfStack;
};
NamedSiteRows nameSiteRows(StackNames& names, const std::vector<StackMetrics>& stacks,
                           SiteGrouping grouping = SiteGrouping::Site);
// The numbers: each stack's metrics added to its row.
std::vector<SiteRow> siteRows(NamedSiteRows named, const std::vector<StackMetrics>& stacks);
// The `top` largest rows by `by` (0: all), largest first.
std::vector<SiteRow> topRows(std::vector<SiteRow> rows, Metric by, size_t top);

// "grab (inlined in make_large)", or the function alone.
std::string siteFunctionText(const SiteRow& row);

// "file:line" or the module when there is no line.
std::string siteLocation(const unwind::SourceFrame& frame);

// The code that made an access sample, as a user reads it: "function (file:line)" of the
// instruction itself (its innermost inlined frame), else of the stack's innermost frame, else
// "(unknown code)".
std::string accessingCode(StackNames& names, uint64_t ip, uint32_t stack);

}  // namespace memlog::timeline
