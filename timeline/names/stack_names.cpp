// Stack names: the module map read once, stacks named frame by frame as asked.
#include "timeline/names/stack_names.hpp"

#include <algorithm>
#include <functional>

#include "timeline/names/allocator_plumbing.hpp"
#include "timeline/read/log_reader.hpp"

namespace memlog::timeline {

StackNames::StackNames(const LogReader& reader, std::function<void(const std::string&)> warn) : m_reader(reader) {
    // The log holds a module map per dlopen/dlclose; each repeats the objects still loaded.
    // Keep each object once, and where a later object took an earlier one's addresses (dlclose,
    // then a dlopen at the same place), the later one.
    std::vector<unwind::LoadedModule> recorded;
    for (const Module& module : reader.modules())
        recorded.push_back({module.m_path, module.m_buildId, module.m_base, module.m_lo, module.m_hi});
    std::vector<size_t> kept = unwind::latestModulesByAddress(recorded);
    std::sort(kept.begin(), kept.end(), std::greater<>());  // the latest map first
    std::vector<unwind::LoadedModule> modules;
    for (const size_t index : kept) modules.push_back(std::move(recorded[index]));
    m_symbolizer = std::make_unique<unwind::Symbolizer>(std::move(modules), std::move(warn));
}

StackNames::~StackNames() = default;

StackFrames StackNames::addresses(uint32_t stack) const {
    return stack == 0 || stack >= m_reader.stacks().size() ? StackFrames{} : m_reader.stacks()[stack];
}

std::vector<unwind::SourceFrame> StackNames::frames(uint32_t stack) {
    std::vector<unwind::SourceFrame> frames;
    for (uint64_t address : addresses(stack)) {
        const auto& chain = m_symbolizer->resolve(address);
        frames.insert(frames.end(), chain.begin(), chain.end());
    }
    return frames;
}

size_t parameterListAt(const std::string& function) {
    // What may follow the list in a demangled name: cv and ref qualifiers, a clone's tag.
    size_t end = function.size();
    for (bool stripped = true; stripped && end > 0;) {
        stripped = false;
        for (const char* tail : {" const", " volatile", " &&", " &"}) {
            const size_t length = std::char_traits<char>::length(tail);
            if (end >= length && function.compare(end - length, length, tail) == 0) {
                end -= length;
                stripped = true;
            }
        }
        if (end > 0 && function[end - 1] == ']') {
            const size_t open = function.rfind(" [clone ", end);
            if (open != std::string::npos) {
                end = open;
                stripped = true;
            }
        }
    }
    if (end < 2 || function[end - 1] != ')') return std::string::npos;
    int depth = 0;
    for (size_t i = end; i-- > 0;) {
        if (function[i] == ')') ++depth;
        if (function[i] == '(' && --depth == 0) return i == 0 ? std::string::npos : i;
    }
    return std::string::npos;
}

std::string withoutParameterList(const std::string& function) {
    const size_t at = parameterListAt(function);
    return at == std::string::npos ? function : function.substr(0, at);
}

namespace {

// The first frame from `from` on that is a function of its own (not inlined into the next).
size_t outOfLineIndex(const std::vector<unwind::SourceFrame>& frames, size_t from) {
    size_t i = from;
    while (i + 1 < frames.size() && frames[i].m_inlined) ++i;
    return i;
}

// The name of the function `site` was inlined into, written as the site's own is: a helper with
// internal linkage has no linkage name in the DWARF, so its name comes without a parameter list
// while its caller's (demangled) has one. Empty when the two are one function by name.
std::string inlinedInName(const std::string& site, const std::string& caller) {
    const std::string written = parameterListAt(site) == std::string::npos ? withoutParameterList(caller) : caller;
    return written == site || written == withoutParameterList(site) ? std::string() : written;
}

}  // namespace

StackNames::SiteOfStack StackNames::siteOf(uint32_t stack) {
    SiteOfStack site;
    site.m_site = site.m_caller = unwind::SourceFrame{"(no stack)", {}, 0, {}, false};
    if (stack == 0 || stack >= m_reader.stacks().size() || m_reader.stacks()[stack].empty()) return site;
    // Frame by frame, copying only the two it needs and stopping at the first function that is
    // not inlined: a table of 65,536 stacks spent most of its time copying whole stacks. The
    // addresses of the C library and its kin are passed over by their module, unnamed: naming them
    // read those libraries' debug information (tens of ms for the C library's, compressed).
    bool found = false;
    uint64_t first = 0;  // the first address outside the allocator's modules
    unwind::SourceFrame last;
    for (uint64_t address : m_reader.stacks()[stack]) {
        if (!found && isAllocatorPlumbingModule(m_symbolizer->moduleName(address))) continue;
        if (!first) first = address;
        const bool foundBefore = found;
        for (const unwind::SourceFrame& frame : m_symbolizer->resolve(address)) {
            if (!found) {
                if (isAllocatorPlumbing(frame)) continue;
                found = true;
                site.m_site = frame;
            }
            if (!frame.m_inlined) {
                site.m_caller = frame;
                // A helper inlined into a wrapper of its own name says nothing.
                if (site.m_site.m_inlined) site.m_inlinedIn = inlinedInName(site.m_site.m_function, frame.m_function);
                if (!foundBefore && address == first) site.m_decidedBy = address;
                return site;
            }
            last = frame;
        }
    }
    if (!found) {  // all plumbing: the innermost frame stands for the site (rare; the whole walk)
        const std::vector<unwind::SourceFrame> all = frames(stack);
        const size_t caller = outOfLineIndex(all, 0);
        site.m_site = all.front();
        site.m_caller = all[caller];
        if (all.front().m_inlined) site.m_inlinedIn = inlinedInName(all.front().m_function, all[caller].m_function);
        return site;
    }
    site.m_caller = last;  // inlined to the end of the stack
    site.m_inlinedIn = inlinedInName(site.m_site.m_function, last.m_function);
    return site;
}

uint64_t StackNames::firstOutsidePlumbing(uint32_t stack) const {
    for (uint64_t address : addresses(stack))
        if (!isAllocatorPlumbingModule(m_symbolizer->moduleName(address))) return address;
    return 0;
}

unwind::SourceFrame StackNames::site(uint32_t stack) { return siteOf(stack).m_site; }

std::string StackNames::inlinedIn(uint32_t stack) { return siteOf(stack).m_inlinedIn; }

unwind::SourceFrame StackNames::caller(uint32_t stack) { return siteOf(stack).m_caller; }

void StackNames::resolveAll(const std::function<void(double)>& progress) {
    const auto& stacks = m_reader.stacks();
    for (size_t i = 1; i < stacks.size(); ++i) {
        for (uint64_t address : stacks[i]) m_symbolizer->resolve(address);
        if (progress && i % 256 == 0) progress(static_cast<double>(i) / static_cast<double>(stacks.size()));
    }
}

}  // namespace memlog::timeline
