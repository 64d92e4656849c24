// Stack names and the allocation-site table.
#include "timeline/sites.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

#include "timeline/log_reader.hpp"

namespace memlog::timeline {
namespace {

bool startsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

bool isAllocatorPlumbing(const unwind::SourceFrame& frame) {
    // Templates of the C++ library, inlined or instantiated in the program's own code
    // (std::vector::push_back, std::map's node allocation, std::allocator).
    if (startsWith(frame.m_file, "/usr/include/c++/")) return true;
    const std::string& module = frame.m_module;
    if (startsWith(module, "libc.so") || startsWith(module, "libstdc++.so") || startsWith(module, "ld-linux"))
        return true;
    const std::string& f = frame.m_function;
    return startsWith(f, "operator new") || startsWith(f, "operator delete") || startsWith(f, "std::allocator<") ||
           startsWith(f, "std::__new_allocator<") || startsWith(f, "__gnu_cxx::new_allocator<") ||
           startsWith(f, "std::allocator_traits<") || startsWith(f, "std::_Vector_base<") ||
           startsWith(f, "std::__allocate_guarded") ||
           (startsWith(f, "std::_Rb_tree<") && f.find("_M_get_node") != std::string::npos);
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

std::vector<unwind::SourceFrame> StackNames::frames(uint32_t stack) {
    std::vector<unwind::SourceFrame> frames;
    if (stack == 0 || stack >= m_reader.stacks().size()) return frames;
    for (uint64_t address : m_reader.stacks()[stack]) {
        const auto& chain = m_symbolizer->resolve(address);
        frames.insert(frames.end(), chain.begin(), chain.end());
    }
    return frames;
}

unwind::SourceFrame StackNames::site(uint32_t stack) {
    const std::vector<unwind::SourceFrame> all = frames(stack);
    if (all.empty()) return unwind::SourceFrame{"(no stack)", {}, 0, {}, false};
    for (const unwind::SourceFrame& frame : all)
        if (!isAllocatorPlumbing(frame)) return frame;
    return all.front();
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

std::vector<SiteRow> siteTable(StackNames& names, const std::vector<StackMetrics>& stacks, Metric by, size_t top) {
    std::map<std::tuple<std::string, std::string, uint32_t>, SiteRow> rows;
    for (size_t id = 0; id < stacks.size(); ++id) {
        const StackMetrics& metrics = stacks[id];
        if (metrics.m_calls == 0) continue;
        const unwind::SourceFrame site = names.site(static_cast<uint32_t>(id));
        SiteRow& row = rows[{site.m_function, site.m_file, site.m_line}];
        row.m_site = site;
        row.m_metrics.m_calls += metrics.m_calls;
        row.m_metrics.m_bytes += metrics.m_bytes;
        row.m_metrics.m_peakBytes += metrics.m_peakBytes;
        row.m_metrics.m_leakedBytes += metrics.m_leakedBytes;
        row.m_metrics.m_leakedBlocks += metrics.m_leakedBlocks;
    }
    std::vector<SiteRow> table;
    for (auto& [key, row] : rows) table.push_back(std::move(row));
    std::stable_sort(table.begin(), table.end(), [by](const SiteRow& a, const SiteRow& b) {
        return metricValue(a.m_metrics, by) > metricValue(b.m_metrics, by);
    });
    if (top && table.size() > top) table.resize(top);
    return table;
}

}  // namespace memlog::timeline
