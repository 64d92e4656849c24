// Stack names and the allocation-site table.
#include "timeline/names/stack_names.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>
#include <unordered_map>

#include "timeline/read/log_reader.hpp"

namespace memlog::timeline {
namespace {

bool startsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

bool isAllocatorPlumbing(const unwind::SourceFrame& frame) {
    // Templates of the C++ library, inlined or instantiated in the program's own code
    // (std::vector::push_back, std::map's node allocation, std::allocator).
    if (startsWith(frame.m_file, "/usr/include/c++/")) return true;
    if (isAllocatorPlumbingModule(frame.m_module)) return true;
    const std::string& f = frame.m_function;
    return startsWith(f, "operator new") || startsWith(f, "operator delete") || startsWith(f, "std::allocator<") ||
           startsWith(f, "std::__new_allocator<") || startsWith(f, "__gnu_cxx::new_allocator<") ||
           startsWith(f, "std::allocator_traits<") || startsWith(f, "std::_Vector_base<") ||
           startsWith(f, "std::__allocate_guarded") ||
           (startsWith(f, "std::_Rb_tree<") && f.find("_M_get_node") != std::string::npos);
}

bool isAllocatorPlumbingModule(const std::string& module) {
    return startsWith(module, "libc.so") || startsWith(module, "libstdc++.so") || startsWith(module, "ld-linux");
}

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

namespace {

// The first frame from `from` on that is a function of its own (not inlined into the next).
size_t outOfLineIndex(const std::vector<unwind::SourceFrame>& frames, size_t from) {
    size_t i = from;
    while (i + 1 < frames.size() && frames[i].m_inlined) ++i;
    return i;
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
                if (site.m_site.m_inlined && frame.m_function != site.m_site.m_function)
                    site.m_inlinedIn =
                        frame.m_function;  // a helper inlined into a wrapper of its own name says nothing
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
        if (all.front().m_inlined && all[caller].m_function != all.front().m_function)
            site.m_inlinedIn = all[caller].m_function;
        return site;
    }
    site.m_caller = last;  // inlined to the end of the stack
    if (last.m_function != site.m_site.m_function) site.m_inlinedIn = last.m_function;
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

std::string siteFunctionText(const SiteRow& row) {
    return row.m_inlinedIn.empty() ? row.m_site.m_function
                                   : row.m_site.m_function + " (inlined in " + row.m_inlinedIn + ")";
}

void StackNames::resolveAll(const std::function<void(double)>& progress) {
    const auto& stacks = m_reader.stacks();
    for (size_t i = 1; i < stacks.size(); ++i) {
        for (uint64_t address : stacks[i]) m_symbolizer->resolve(address);
        if (progress && i % 256 == 0) progress(static_cast<double>(i) / static_cast<double>(stacks.size()));
    }
}

std::string siteLocation(const unwind::SourceFrame& frame) {
    if (!frame.m_file.empty() && frame.m_line) {
        const size_t slash = frame.m_file.rfind('/');
        return (slash == std::string::npos ? frame.m_file : frame.m_file.substr(slash + 1)) + ":" +
               std::to_string(frame.m_line);
    }
    return frame.m_module;
}

std::string accessingCode(StackNames& names, uint64_t ip, uint32_t stack) {
    const auto& instruction = names.instruction(ip);
    const unwind::SourceFrame* frame = instruction.empty() ? nullptr : &instruction.front();
    std::vector<unwind::SourceFrame> callers;
    if (!frame) {
        callers = names.frames(stack);
        frame = callers.empty() ? nullptr : &callers.front();
    }
    if (!frame) return "(unknown code)";
    const std::string location = siteLocation(*frame);
    return frame->m_function + (location.empty() || location == frame->m_function ? "" : " (" + location + ")");
}

NamedSiteRows nameSiteRows(StackNames& names, const std::vector<StackMetrics>& stacks, SiteGrouping grouping) {
    // Keyed by the inlining caller too: one inline helper's line in two functions is two sites.
    std::map<std::tuple<std::string, std::string, uint32_t, std::string>, uint32_t> rowOfKey;
    NamedSiteRows named;
    named.m_rowOfStack.assign(stacks.size(), NamedSiteRows::kNoRow);
    // Stacks through one call site share its row: once a stack's first address outside the
    // allocator decided its row alone (m_decidedBy), the others through that address take the
    // row and that row's frame without naming anything or building a key (65,536 stacks through
    // one call of malloc spent 20 ms in strings and the map). The row's frame is the last
    // stack's, as below: `frameFrom` says which address it came from, so that it is copied only
    // when another address's stack came in between.
    struct Decided {
        uint32_t m_row;
        unwind::SourceFrame m_frame;
    };
    std::unordered_map<uint64_t, Decided> decided;
    std::vector<uint64_t> frameFrom;  // per row: the address its m_site came from, 0 unknown
    for (size_t id = 0; id < stacks.size(); ++id) {
        if (stacks[id].m_calls == 0) continue;
        const uint64_t first = names.firstOutsidePlumbing(static_cast<uint32_t>(id));
        if (const auto known = first ? decided.find(first) : decided.end(); known != decided.end()) {
            const uint32_t row = known->second.m_row;
            if (frameFrom[row] != first) {
                named.m_rows[row].m_site = known->second.m_frame;
                frameFrom[row] = first;
            }
            named.m_rowOfStack[id] = row;
            continue;
        }
        StackNames::SiteOfStack of = names.siteOf(static_cast<uint32_t>(id));
        SiteRow row;
        if (grouping == SiteGrouping::Caller) {
            row.m_site = std::move(of.m_caller);
            row.m_site.m_line = 0;  // a row gathers the function's calls from several lines
            row.m_site.m_inlined = false;
        } else {
            row.m_site = std::move(of.m_site);
            row.m_inlinedIn = std::move(of.m_inlinedIn);
        }
        auto [at, added] = rowOfKey.try_emplace({row.m_site.m_function, row.m_site.m_file, row.m_site.m_line,
                                                 row.m_inlinedIn},
                                                static_cast<uint32_t>(named.m_rows.size()));
        if (added) {
            named.m_rows.push_back(std::move(row));
            frameFrom.push_back(0);
        } else {  // the key leaves out the module: the last stack's frame stands for the row, as it always did
            named.m_rows[at->second].m_site = std::move(row.m_site);
        }
        named.m_rowOfStack[id] = at->second;
        frameFrom[at->second] = of.m_decidedBy;
        if (of.m_decidedBy) decided.emplace(of.m_decidedBy, Decided{at->second, named.m_rows[at->second].m_site});
    }
    // The rows in the order of their keys, as the table always listed them (ties keep it).
    std::vector<uint32_t> renumbered(named.m_rows.size());
    std::vector<SiteRow> ordered;
    ordered.reserve(named.m_rows.size());
    for (const auto& [key, row] : rowOfKey) {
        renumbered[row] = static_cast<uint32_t>(ordered.size());
        ordered.push_back(std::move(named.m_rows[row]));
    }
    named.m_rows = std::move(ordered);
    for (uint32_t& row : named.m_rowOfStack)
        if (row != NamedSiteRows::kNoRow) row = renumbered[row];
    return named;
}

std::vector<SiteRow> siteRows(NamedSiteRows named, const std::vector<StackMetrics>& stacks) {
    for (size_t id = 0; id < stacks.size() && id < named.m_rowOfStack.size(); ++id) {
        if (named.m_rowOfStack[id] == NamedSiteRows::kNoRow) continue;
        const StackMetrics& metrics = stacks[id];
        StackMetrics& sum = named.m_rows[named.m_rowOfStack[id]].m_metrics;
        sum.m_calls += metrics.m_calls;
        sum.m_bytes += metrics.m_bytes;
        sum.m_peakBytes += metrics.m_peakBytes;
        sum.m_leakedBytes += metrics.m_leakedBytes;
        sum.m_leakedBlocks += metrics.m_leakedBlocks;
        sum.m_suppressedBytes += metrics.m_suppressedBytes;
        sum.m_suppressedBlocks += metrics.m_suppressedBlocks;
    }
    return std::move(named.m_rows);
}

std::vector<SiteRow> siteRows(StackNames& names, const std::vector<StackMetrics>& stacks, SiteGrouping grouping) {
    return siteRows(nameSiteRows(names, stacks, grouping), stacks);
}

std::vector<SiteRow> topRows(std::vector<SiteRow> rows, Metric by, size_t top) {
    std::stable_sort(rows.begin(), rows.end(), [by](const SiteRow& a, const SiteRow& b) {
        return metricValue(a.m_metrics, by) > metricValue(b.m_metrics, by);
    });
    if (top && rows.size() > top) rows.resize(top);
    return rows;
}

std::vector<SiteRow> siteTable(StackNames& names, const std::vector<StackMetrics>& stacks, Metric by, size_t top,
                               SiteGrouping grouping) {
    return topRows(siteRows(names, stacks, grouping), by, top);
}

}  // namespace memlog::timeline
