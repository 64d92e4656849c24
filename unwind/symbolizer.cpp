// libdw-based symbolisation. One Dwfl session for the whole log; every module of the log's module
// map is reported at its recorded load address, so addresses resolve as they did in the process.
#include "symbolizer.hpp"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdlib>
#include <cstring>

namespace memlog::unwind {
namespace {

std::string demangle(const char* name) {
    if (!name) return {};
    int status = 0;
    char* readable = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (status != 0 || !readable) return name;
    std::string result = readable;
    std::free(readable);
    return result;
}

std::string baseName(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string hex(uint64_t value) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

// The name of a subprogram or inlined subroutine DIE, following abstract origins.
std::string dieName(Dwarf_Die* die) {
    Dwarf_Attribute attribute;
    Dwarf_Attribute* linkage = dwarf_attr_integrate(die, DW_AT_linkage_name, &attribute);
    if (!linkage) linkage = dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attribute);
    if (linkage) {
        if (const char* name = dwarf_formstring(linkage)) return demangle(name);
    }
    Dwarf_Attribute* plain = dwarf_attr_integrate(die, DW_AT_name, &attribute);
    if (plain) {
        if (const char* name = dwarf_formstring(plain)) return name;
    }
    return {};
}

}  // namespace

struct Symbolizer::Impl {
    Dwfl* m_dwfl = nullptr;
    Dwfl_Callbacks m_callbacks{};
    char* m_debugPath = nullptr;
    std::vector<LoadedModule> m_modules;
    std::unordered_map<uint64_t, std::vector<SourceFrame>> m_cache;
    std::function<void(const std::string&)> m_warn;

    const LoadedModule* moduleOf(uint64_t address) const {
        const LoadedModule* found = nullptr;
        for (const LoadedModule& module : m_modules)
            if (address >= module.m_lo && address < module.m_hi) found = &module;  // the last map wins
        return found;
    }

    std::vector<SourceFrame> lookup(uint64_t returnAddress);
};

Symbolizer::Symbolizer(std::vector<LoadedModule> modules, std::function<void(const std::string&)> warn)
    : m_impl(std::make_unique<Impl>()) {
    Impl& impl = *m_impl;
    impl.m_modules = std::move(modules);
    impl.m_warn = std::move(warn);
    impl.m_callbacks.find_elf = dwfl_build_id_find_elf;
    impl.m_callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
    impl.m_callbacks.section_address = dwfl_offline_section_address;
    impl.m_callbacks.debuginfo_path = &impl.m_debugPath;
    impl.m_dwfl = dwfl_begin(&impl.m_callbacks);
    if (!impl.m_dwfl) return;
    dwfl_report_begin(impl.m_dwfl);
    for (const LoadedModule& module : impl.m_modules) {
        if (module.m_path.empty() || module.m_path[0] != '/') continue;  // linux-vdso and the like
        Dwfl_Module* reported =
            dwfl_report_elf(impl.m_dwfl, baseName(module.m_path).c_str(), module.m_path.c_str(), -1, module.m_base,
                            false);
        if (!reported) {
            if (impl.m_warn) impl.m_warn(module.m_path + ": cannot read it (" + dwfl_errmsg(-1) + "); its frames stay as offsets");
            continue;
        }
        // A binary rebuilt since the recording would be mis-symbolised: say so once, per module.
        const unsigned char* bits = nullptr;
        GElf_Addr vaddr;
        const int length = dwfl_module_build_id(reported, &bits, &vaddr);
        std::string current;
        for (int i = 0; i < length; ++i) current += hex(bits[i] | 0x100).substr(3);
        if (!module.m_buildId.empty() && length > 0 && current != module.m_buildId && impl.m_warn)
            impl.m_warn(module.m_path + " has changed since the recording (build id " + current + ", recorded " +
                        module.m_buildId + "); its frames may be named wrongly");
    }
    dwfl_report_end(impl.m_dwfl, nullptr, nullptr);
}

Symbolizer::~Symbolizer() {
    if (m_impl->m_dwfl) dwfl_end(m_impl->m_dwfl);
}

const std::vector<SourceFrame>& Symbolizer::resolve(uint64_t returnAddress) {
    auto it = m_impl->m_cache.find(returnAddress);
    if (it != m_impl->m_cache.end()) return it->second;
    return m_impl->m_cache.emplace(returnAddress, m_impl->lookup(returnAddress)).first->second;
}

std::vector<SourceFrame> Symbolizer::Impl::lookup(uint64_t returnAddress) {
    // A return address points after the call: look up the call instruction itself.
    const uint64_t address = returnAddress - 1;
    const LoadedModule* loaded = moduleOf(address);
    const std::string moduleName = loaded ? baseName(loaded->m_path) : "";
    const std::string fallback =
        loaded ? moduleName + "+" + hex(address - loaded->m_base) : hex(returnAddress);
    Dwfl_Module* module = m_dwfl ? dwfl_addrmodule(m_dwfl, address) : nullptr;
    if (!module) return {SourceFrame{fallback, {}, 0, moduleName, false}};

    std::vector<SourceFrame> frames;
    // Innermost source position, from the line table.
    std::string file;
    int line = 0;
    if (Dwfl_Line* source = dwfl_module_getsrc(module, address)) {
        if (const char* name = dwfl_lineinfo(source, nullptr, &line, nullptr, nullptr, nullptr)) file = name;
    }
    // The chain of inlined subroutines around the address, innermost first. dwarf_getscopes
    // finds the innermost function instance; its concrete nesting (each inlined call inside the
    // next, up to the real function) comes from dwarf_getscopes_die on that instance.
    Dwarf_Addr bias = 0;
    if (Dwarf_Die* unit = dwfl_module_addrdie(module, address, &bias)) {
        Dwarf_Die* scopes = nullptr;
        const int count = dwarf_getscopes(unit, address - bias, &scopes);
        Dwarf_Die* innermost = nullptr;
        for (int i = 0; i < count && !innermost; ++i) {
            const int tag = dwarf_tag(&scopes[i]);
            if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) innermost = &scopes[i];
        }
        Dwarf_Die* chain = nullptr;
        const int depth = innermost ? dwarf_getscopes_die(innermost, &chain) : 0;
        Dwarf_Files* files = nullptr;
        dwarf_getsrcfiles(unit, &files, nullptr);
        for (int i = 0; i < depth; ++i) {
            const int tag = dwarf_tag(&chain[i]);
            if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram) continue;
            frames.push_back({dieName(&chain[i]), file, static_cast<uint32_t>(line > 0 ? line : 0), moduleName,
                              tag == DW_TAG_inlined_subroutine});
            if (tag == DW_TAG_subprogram) break;
            // The caller of an inlined function continues at the call site.
            Dwarf_Attribute attribute;
            Dwarf_Word callLine = 0, callFile = 0;
            if (dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_line, &attribute), &callLine) == 0)
                line = static_cast<int>(callLine);
            if (files && dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_file, &attribute), &callFile) == 0) {
                if (const char* name = dwarf_filesrc(files, callFile, nullptr, nullptr)) file = name;
            }
        }
        std::free(chain);
        std::free(scopes);
    }
    if (frames.empty() || frames.back().m_function.empty()) {
        // No DWARF: the ELF symbol tables (.symtab, else .dynsym).
        GElf_Off offset = 0;
        GElf_Sym symbol;
        const char* name = dwfl_module_addrinfo(module, address, &offset, &symbol, nullptr, nullptr, nullptr);
        SourceFrame frame{name ? demangle(name) : fallback, file, static_cast<uint32_t>(line > 0 ? line : 0),
                          moduleName, false};
        if (frames.empty())
            frames.push_back(frame);
        else
            frames.back().m_function = frame.m_function;
    }
    for (SourceFrame& frame : frames)
        if (frame.m_function.empty()) frame.m_function = fallback;
    return frames;
}

}  // namespace memlog::unwind
