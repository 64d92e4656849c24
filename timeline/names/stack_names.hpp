// Call stacks as names: each stack's source frames (from unwind/'s symboliser, through the
// module map in the log) and its allocation site (the rule of allocator_plumbing.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "timeline/read/stack_records.hpp"
#include "unwind/symbolizer.hpp"

namespace memlog::timeline {

class LogReader;

// Where a demangled function name's parameter list begins ("f(int) const": 1), npos when it has
// none ("make_obj", "(anonymous namespace)::f", "module+0x12"); and the name without it.
size_t parameterListAt(const std::string& function);
std::string withoutParameterList(const std::string& function);

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

}  // namespace memlog::timeline
