// libdw-based symbolisation. One Dwfl session for the whole log; every module of the log's module
// map is reported at its recorded load address, so addresses resolve as they did in the process.
#include "symbolizer.hpp"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>

#include "unwind/build_id.hpp"
#include "unwind/name_cache.hpp"

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

// libdw's search for a module's separate debug file, noting the file it found: the names kept
// between runs depend on it (name_cache.hpp). The module's userdata is where the path goes.
int findDebugInfoNoting(Dwfl_Module* module, void** userdata, const char* moduleName, Dwarf_Addr base,
                        const char* fileName, const char* debugLink, GElf_Word debugLinkCrc, char** debugFile) {
    const int fd =
        dwfl_standard_find_debuginfo(module, userdata, moduleName, base, fileName, debugLink, debugLinkCrc, debugFile);
    if (fd >= 0 && *userdata && *debugFile) static_cast<std::string*>(*userdata)->assign(*debugFile);
    return fd;
}

}  // namespace

std::vector<size_t> latestModulesByAddress(const std::vector<LoadedModule>& inMapOrder) {
    std::map<uint64_t, std::pair<uint64_t, size_t>> kept;  // lo -> (hi, index); disjoint ranges
    for (size_t i = inMapOrder.size(); i-- > 0;) {
        const LoadedModule& module = inMapOrder[i];
        if (module.m_lo >= module.m_hi) continue;
        auto next = kept.lower_bound(module.m_lo);
        if (next != kept.end() && next->first < module.m_hi) continue;
        if (next != kept.begin() && std::prev(next)->second.first > module.m_lo) continue;
        kept.emplace_hint(next, module.m_lo, std::make_pair(module.m_hi, i));
    }
    std::vector<size_t> order;
    order.reserve(kept.size());
    for (const auto& [lo, entry] : kept) order.push_back(entry.second);
    return order;
}

struct Symbolizer::Impl {
    Dwfl* m_dwfl = nullptr;
    Dwfl_Callbacks m_callbacks{};
    char* m_debugPath = nullptr;
    std::vector<LoadedModule> m_modules;
    std::vector<std::string> m_baseNames;  // of m_modules: what moduleName() hands out, no copy a call
    std::vector<size_t> m_byAddress;  // latestModulesByAddress(m_modules)
    std::unordered_map<uint64_t, std::vector<SourceFrame>> m_cache;
    std::function<void(const std::string&)> m_warn;

    // Names kept between runs (name_cache.hpp), per module of m_modules: only for one reported
    // to libdw whose build id is the recorded one; loaded at its first address.
    struct KeptNames {
        Dwfl_Module* m_reported = nullptr;  // null: names of this module are not kept
        std::string m_buildId;
        std::string m_debugFile;  // what libdw found, by findDebugInfoNoting
        std::unique_ptr<ModuleNames> m_names;
    };
    std::vector<KeptNames> m_kept;
    size_t m_fromKept = 0;

    // Per compilation unit, its functions' address ranges, sorted: built once, on first use.
    struct FunctionRange {
        Dwarf_Addr m_lo, m_hi;
        Dwarf_Die m_die;
    };
    std::unordered_map<const void*, std::vector<FunctionRange>> m_functions;

    // The answers of dataSymbolAt kept by stretch of addresses: the stretch a symbol holds, or
    // one that none holds. An address inside one is answered without asking libdw, whose lookup
    // costs microseconds (a full trace of python3 touches globals hundreds of millions of times,
    // at a few hundred thousand addresses). One entry a symbol or gap touched.
    struct KnownStretch {
        uint64_t m_end;
        uint64_t m_size;  // the symbol's own (the stretch may stop where a nested one begins)
        std::string m_name;  // demangled; empty: no symbol holds the stretch
    };
    std::map<uint64_t, KnownStretch> m_stretches;
    // Per module, every symbol's start and its end (a symbol of no size: one byte, as libdw
    // names its first byte), by start, and the largest end so far: what bounds a stretch. Read
    // at the module's first question.
    struct SymbolTable {
        std::vector<std::pair<uint64_t, uint64_t>> m_extents;
        std::vector<uint64_t> m_endsSoFar;
        uint64_t m_low = 0, m_high = 0;  // the module's addresses
    };
    std::unordered_map<Dwfl_Module*, SymbolTable> m_symbolTables;

    const SymbolTable& symbolTable(Dwfl_Module* module) {
        auto [it, added] = m_symbolTables.try_emplace(module);
        SymbolTable& table = it->second;
        if (!added) return table;
        Dwarf_Addr low = 0, high = 0;
        dwfl_module_info(module, nullptr, &low, &high, nullptr, nullptr, nullptr, nullptr);
        table.m_low = low;
        table.m_high = high;
        const int count = dwfl_module_getsymtab(module);
        for (int i = 0; i < count; ++i) {
            GElf_Sym symbol;
            GElf_Addr address = 0;
            // Only the module's own: an undefined symbol is at address 0, and an extent there
            // would start the gap before the module's first symbol at address 1, over every
            // module below this one.
            if (dwfl_module_getsym_info(module, i, &symbol, &address, nullptr, nullptr, nullptr) && address >= low &&
                address < high)
                table.m_extents.emplace_back(address, address + std::max<uint64_t>(symbol.st_size, 1));
        }
        std::sort(table.m_extents.begin(), table.m_extents.end());
        uint64_t furthest = 0;
        for (const auto& [start, end] : table.m_extents)
            table.m_endsSoFar.push_back(furthest = std::max(furthest, end));
        return table;
    }

    // libdw's answer (the symbol whose extent holds `address`; a symbol of no size is none),
    // kept for the stretch around `address` where it cannot change. Of the symbols that hold an
    // address libdw names the one that begins last, so an answer holds from its start to the
    // next symbol's start or its own end, when it is the only symbol that begins there and none
    // begins between it and `address` (else, as inside an outer symbol past a nested one, it
    // is not kept). A stretch that none holds runs from past the end of every symbol below to
    // the next start. FirstByte: a symbol of no size begins at `address` (named, not kept).
    enum class Held : uint8_t { Symbol, FirstByte, None };
    Held dataSymbolAt(uint64_t address, std::string& name, uint64_t& start, uint64_t& size) {
        auto after = m_stretches.upper_bound(address);
        if (after != m_stretches.begin()) {
            const auto found = std::prev(after);
            if (address < found->second.m_end) {
                if (found->second.m_name.empty()) return Held::None;
                name = found->second.m_name;
                start = found->first;
                size = found->second.m_size;
                return Held::Symbol;
            }
        }
        Dwfl_Module* module = m_dwfl ? dwfl_addrmodule(m_dwfl, address) : nullptr;
        if (!module) return Held::None;
        GElf_Off offset = 0;
        GElf_Sym symbol;
        const char* found = dwfl_module_addrinfo(module, address, &offset, &symbol, nullptr, nullptr, nullptr);
        const SymbolTable& table = symbolTable(module);
        const auto& extents = table.m_extents;
        const auto next = std::upper_bound(extents.begin(), extents.end(), std::pair{address, UINT64_MAX});
        const uint64_t nextStart = next == extents.end() ? table.m_high : next->first;
        if (found && offset < symbol.st_size) {
            name = demangle(found);
            start = address - offset;
            size = symbol.st_size;
            const auto [first, last] = std::equal_range(extents.begin(), extents.end(), start, Before{});
            if (last - first == 1 && last == next)
                m_stretches.try_emplace(start, KnownStretch{std::min(start + size, nextStart), size, name});
            return Held::Symbol;
        }
        if (found && offset == 0) {
            name = demangle(found);
            start = address;
            size = 0;
            return Held::FirstByte;
        }
        const size_t below = static_cast<size_t>(next - extents.begin());
        const uint64_t from = below ? table.m_endsSoFar[below - 1] : table.m_low;
        if (from <= address && address < nextStart) m_stretches.try_emplace(from, KnownStretch{nextStart, 0, ""});
        return Held::None;
    }
    // Orders a symbol's extent against a start.
    struct Before {
        bool operator()(const std::pair<uint64_t, uint64_t>& extent, uint64_t start) const {
            return extent.first < start;
        }
        bool operator()(uint64_t start, const std::pair<uint64_t, uint64_t>& extent) const {
            return start < extent.first;
        }
    };

    bool functionAt(Dwarf_Die* unit, Dwarf_Addr pc, Dwarf_Die* function) {
        auto [it, added] = m_functions.try_emplace(unit->addr);
        std::vector<FunctionRange>& ranges = it->second;
        if (added) {
            dwarf_getfuncs(
                unit,
                [](Dwarf_Die* die, void* arg) -> int {
                    auto* out = static_cast<std::vector<FunctionRange>*>(arg);
                    Dwarf_Addr base, lo, hi;
                    ptrdiff_t offset = 0;
                    while ((offset = dwarf_ranges(die, offset, &base, &lo, &hi)) > 0) out->push_back({lo, hi, *die});
                    return DWARF_CB_OK;
                },
                &ranges, 0);
            std::sort(ranges.begin(), ranges.end(),
                      [](const FunctionRange& a, const FunctionRange& b) { return a.m_lo < b.m_lo; });
        }
        auto next = std::upper_bound(ranges.begin(), ranges.end(), pc,
                                     [](Dwarf_Addr value, const FunctionRange& range) { return value < range.m_lo; });
        // The nearest range starting below pc holds it, unless it ended early; look back a little
        // for ranges that enclose others (split functions).
        for (int back = 0; back < 8 && next != ranges.begin(); ++back) {
            --next;
            if (pc < next->m_hi) {
                *function = next->m_die;
                return true;
            }
        }
        return false;
    }

    // The module whose range holds `address`, the latest map's where maps disagree.
    const LoadedModule* moduleOf(uint64_t address) const {
        auto above = std::upper_bound(m_byAddress.begin(), m_byAddress.end(), address,
                                      [&](uint64_t value, size_t index) { return value < m_modules[index].m_lo; });
        if (above == m_byAddress.begin()) return nullptr;
        const LoadedModule& module = m_modules[*std::prev(above)];
        return address < module.m_hi ? &module : nullptr;
    }

    // The module's name as frames carry it; empty for none.
    const std::string& baseNameOf(const LoadedModule* loaded) const {
        static const std::string kNone;
        return loaded ? m_baseNames[static_cast<size_t>(loaded - m_modules.data())] : kNone;
    }

    std::vector<SourceFrame> named(uint64_t returnAddress);
    std::vector<SourceFrame> lookup(uint64_t address);
    ModuleNames* keptNamesOf(const LoadedModule& loaded, uint64_t address);
};

Symbolizer::Symbolizer(std::vector<LoadedModule> modules, std::function<void(const std::string&)> warn)
    : m_impl(std::make_unique<Impl>()) {
    Impl& impl = *m_impl;
    impl.m_modules = std::move(modules);
    impl.m_byAddress = latestModulesByAddress(impl.m_modules);
    for (const LoadedModule& module : impl.m_modules) impl.m_baseNames.push_back(baseName(module.m_path));
    impl.m_warn = std::move(warn);
    impl.m_callbacks.find_elf = dwfl_build_id_find_elf;
    impl.m_callbacks.find_debuginfo = findDebugInfoNoting;
    impl.m_callbacks.section_address = dwfl_offline_section_address;
    impl.m_callbacks.debuginfo_path = &impl.m_debugPath;
    impl.m_dwfl = dwfl_begin(&impl.m_callbacks);
    if (!impl.m_dwfl) return;
    const bool keepNames = !nameCacheDirectory().empty();
    impl.m_kept.resize(impl.m_modules.size());  // never again: modules' userdata point into it
    dwfl_report_begin(impl.m_dwfl);
    for (size_t index = 0; index < impl.m_modules.size(); ++index) {
        const LoadedModule& module = impl.m_modules[index];
        if (module.m_path.empty() || module.m_path[0] != '/') continue;  // linux-vdso and the like
        // A log names its modules by path; a damaged one may name a FIFO or a device, which
        // libelf would open and wait on (or read without end).
        struct stat info {};
        if (::stat(module.m_path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
            if (impl.m_warn) impl.m_warn(module.m_path + ": not a regular file; its frames stay as offsets");
            continue;
        }
        Dwfl_Module* reported = dwfl_report_elf(impl.m_dwfl, baseName(module.m_path).c_str(), module.m_path.c_str(), -1,
                                                module.m_base, false);
        if (!reported) {
            if (impl.m_warn)
                impl.m_warn(module.m_path + ": cannot read it (" + dwfl_errmsg(-1) + "); its frames stay as offsets");
            continue;
        }
        // A binary rebuilt since the recording would be mis-symbolised: say so once, per module.
        const unsigned char* bits = nullptr;
        GElf_Addr vaddr;
        const int length = dwfl_module_build_id(reported, &bits, &vaddr);
        const std::string current = hexBytes(bits, length > 0 ? static_cast<size_t>(length) : 0);
        if (!module.m_buildId.empty() && length > 0 && current != module.m_buildId && impl.m_warn)
            impl.m_warn(module.m_path + " has changed since the recording (build id " + current + ", recorded " +
                        module.m_buildId + "); its frames may be named wrongly");
        Impl::KeptNames& kept = impl.m_kept[index];
        void** userdata = nullptr;
        dwfl_module_info(reported, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
        if (userdata) *userdata = &kept.m_debugFile;
        if (keepNames && current == module.m_buildId && usableBuildId(current)) {
            kept.m_reported = reported;
            kept.m_buildId = current;
        }
    }
    dwfl_report_end(impl.m_dwfl, nullptr, nullptr);
}

Symbolizer::~Symbolizer() {
    for (Impl::KeptNames& kept : m_impl->m_kept) {
        if (!kept.m_names) continue;
        if (!kept.m_debugFile.empty()) kept.m_names->setDebugFile(kept.m_debugFile);
        try {
            kept.m_names->save();
        } catch (...) {  // out of memory writing a cache: the names were only kept to save time
        }
    }
    if (m_impl->m_dwfl) dwfl_end(m_impl->m_dwfl);
}

const std::vector<SourceFrame>& Symbolizer::resolve(uint64_t returnAddress) {
    auto it = m_impl->m_cache.find(returnAddress);
    if (it != m_impl->m_cache.end()) return it->second;
    return m_impl->m_cache.emplace(returnAddress, m_impl->named(returnAddress)).first->second;
}

size_t Symbolizer::addressesResolved() const { return m_impl->m_cache.size(); }

size_t Symbolizer::addressesFromKeptNames() const { return m_impl->m_fromKept; }

const std::string& Symbolizer::moduleName(uint64_t returnAddress) const {
    return m_impl->baseNameOf(m_impl->moduleOf(returnAddress - 1));
}

std::string Symbolizer::symbolAt(uint64_t address) {
    std::string name;
    uint64_t start = 0, size = 0;
    switch (m_impl->dataSymbolAt(address, name, start, size)) {
        case Impl::Held::Symbol:
            return address == start ? name : name + "+" + hex(address - start);
        case Impl::Held::FirstByte:
            return name;
        case Impl::Held::None:
            break;
    }
    if (const LoadedModule* loaded = m_impl->moduleOf(address))
        return baseName(loaded->m_path) + "+" + hex(address - loaded->m_base);
    return hex(address);
}

std::optional<Symbolizer::DataSymbol> Symbolizer::dataSymbolAt(uint64_t address) {
    DataSymbol symbol;
    if (m_impl->dataSymbolAt(address, symbol.m_name, symbol.m_start, symbol.m_size) != Impl::Held::Symbol)
        return std::nullopt;
    return symbol;
}

std::optional<Symbolizer::DataSymbol> Symbolizer::dataSymbolNamed(const std::string& wanted) {
    if (!m_impl->m_dwfl) return std::nullopt;
    struct Search {
        const std::string* m_wanted;
        std::optional<DataSymbol> m_found;
    } search{&wanted, std::nullopt};
    dwfl_getmodules(
        m_impl->m_dwfl,
        [](Dwfl_Module* module, void**, const char*, Dwarf_Addr, void* arg) -> int {
            auto* search = static_cast<Search*>(arg);
            const int count = dwfl_module_getsymtab(module);
            for (int i = 1; i < count; ++i) {
                GElf_Sym symbol;
                GElf_Addr address = 0;
                const char* name = dwfl_module_getsym_info(module, i, &symbol, &address, nullptr, nullptr, nullptr);
                if (!name || GELF_ST_TYPE(symbol.st_info) != STT_OBJECT || symbol.st_size == 0) continue;
                if (*search->m_wanted == name || *search->m_wanted == demangle(name)) {
                    search->m_found = DataSymbol{demangle(name), address, symbol.st_size};
                    return DWARF_CB_ABORT;
                }
            }
            return DWARF_CB_OK;
        },
        &search, 0);
    return search.m_found;
}

ModuleNames* Symbolizer::Impl::keptNamesOf(const LoadedModule& loaded, uint64_t address) {
    KeptNames& kept = m_kept[static_cast<size_t>(&loaded - m_modules.data())];
    // Where libdw would take the address from another module (overlapping maps of a damaged
    // log), the names are not this module's to keep.
    if (!kept.m_reported || dwfl_addrmodule(m_dwfl, address) != kept.m_reported) return nullptr;
    if (!kept.m_names) {
        ModuleNames::Origin origin{readerBuildId(), fileStamp(loaded.m_path),
                                   fileStamp(buildIdDebugPath(kept.m_buildId))};
        kept.m_names = std::make_unique<ModuleNames>(nameCacheDirectory(), kept.m_buildId, std::move(origin));
        kept.m_names->load();
    }
    return kept.m_names.get();
}

// The names of a return address: kept from an earlier run, else looked up (and kept); then the
// parts that come from this log, not the binary: the module's name and "module+0x..." where
// nothing better is known.
std::vector<SourceFrame> Symbolizer::Impl::named(uint64_t returnAddress) {
    // A return address points after the call: look up the call instruction itself.
    const uint64_t address = returnAddress - 1;
    const LoadedModule* loaded = moduleOf(address);
    ModuleNames* kept = loaded ? keptNamesOf(*loaded, address) : nullptr;
    std::vector<SourceFrame> frames;
    if (const std::vector<SourceFrame>* found = kept ? kept->find(address - loaded->m_base) : nullptr) {
        frames = *found;
        ++m_fromKept;
    } else {
        frames = lookup(address);
        if (kept) kept->add(address - loaded->m_base, frames);
    }
    const std::string& moduleName = baseNameOf(loaded);
    const std::string fallback = loaded ? moduleName + "+" + hex(address - loaded->m_base) : hex(returnAddress);
    for (SourceFrame& frame : frames) {
        if (frame.m_function.empty()) frame.m_function = fallback;
        frame.m_module = moduleName;
    }
    return frames;
}

// The frames libdw names for the call instruction at `address`, without the module's name; a
// function left empty is to be named by the fallback.
std::vector<SourceFrame> Symbolizer::Impl::lookup(uint64_t address) {
    Dwfl_Module* module = m_dwfl ? dwfl_addrmodule(m_dwfl, address) : nullptr;
    if (!module) return {SourceFrame{}};

    std::vector<SourceFrame> frames;
    // Innermost source position, from the line table.
    std::string file;
    int line = 0;
    if (Dwfl_Line* source = dwfl_module_getsrc(module, address)) {
        if (const char* name = dwfl_lineinfo(source, nullptr, &line, nullptr, nullptr, nullptr)) file = name;
    }
    // The function around the address, then the inlined calls nested in it down to the
    // address. Both searches stay inside one function: dwarf_getscopes walks the whole unit
    // for every address, quadratic in a unit of thousands of functions.
    Dwarf_Addr bias = 0;
    if (Dwarf_Die* unit = dwfl_module_addrdie(module, address, &bias)) {
        const Dwarf_Addr pc = address - bias;
        Dwarf_Die function;
        if (functionAt(unit, pc, &function)) {
            std::vector<Dwarf_Die> chain{function};  // outermost first
            for (bool deeper = true; deeper;) {
                deeper = false;
                Dwarf_Die child;
                if (dwarf_child(&chain.back(), &child) != 0) break;
                do {
                    const int tag = dwarf_tag(&child);
                    if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) &&
                        dwarf_haspc(&child, pc) == 1) {
                        chain.push_back(child);
                        deeper = true;
                        break;
                    }
                } while (dwarf_siblingof(&child, &child) == 0);
            }
            Dwarf_Files* files = nullptr;
            dwarf_getsrcfiles(unit, &files, nullptr);
            for (auto die = chain.rbegin(); die != chain.rend(); ++die) {
                const int tag = dwarf_tag(&*die);
                if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram) continue;
                frames.push_back({dieName(&*die),
                                  file,
                                  static_cast<uint32_t>(line > 0 ? line : 0),
                                  {},
                                  tag == DW_TAG_inlined_subroutine});
                if (tag == DW_TAG_subprogram) break;
                // The caller of an inlined function continues at the call site.
                Dwarf_Attribute attribute;
                Dwarf_Word callLine = 0, callFile = 0;
                if (dwarf_formudata(dwarf_attr(&*die, DW_AT_call_line, &attribute), &callLine) == 0)
                    line = static_cast<int>(callLine);
                if (files && dwarf_formudata(dwarf_attr(&*die, DW_AT_call_file, &attribute), &callFile) == 0) {
                    if (const char* name = dwarf_filesrc(files, callFile, nullptr, nullptr)) file = name;
                }
            }
        }
    }
    if (frames.empty() || frames.back().m_function.empty()) {
        // No DWARF: the ELF symbol tables (.symtab, else .dynsym).
        GElf_Off offset = 0;
        GElf_Sym symbol;
        const char* name = dwfl_module_addrinfo(module, address, &offset, &symbol, nullptr, nullptr, nullptr);
        SourceFrame frame{
            name ? demangle(name) : std::string(), file, static_cast<uint32_t>(line > 0 ? line : 0), {}, false};
        if (frames.empty())
            frames.push_back(frame);
        else
            frames.back().m_function = frame.m_function;
    }
    return frames;
}

}  // namespace memlog::unwind
