// The allocator's functions found by name in one module's symbol table, through a libdw session
// of its own with the one module reported at its recorded bias (libdw finds the separate debug
// file by build id, as the symboliser does, and reads its .symtab when the module has none).
#include "unwind/allocator_code.hpp"

#include <elfutils/libdwfl.h>
#include <sys/stat.h>

#include <algorithm>
#include <iterator>
#include <string_view>

#include "unwind/build_id.hpp"

namespace memlog::unwind {
namespace {

// glibc 2.26 to 2.38's malloc/malloc.c and malloc/arena.c: the entry points (each also under its
// __libc_ alias) and the static helpers that read and write the heap's own metadata. A name a
// release does not have costs nothing; one it adds is missed until listed here.
constexpr std::string_view kAllocatorFunctions[] = {
    "malloc", "free", "cfree", "calloc", "realloc", "reallocarray", "memalign", "aligned_alloc",
    "valloc", "pvalloc", "posix_memalign", "malloc_trim", "malloc_usable_size", "mallinfo",
    "mallinfo2", "malloc_info", "malloc_stats", "__libc_malloc", "__libc_free", "__libc_calloc",
    "__libc_realloc", "__libc_reallocarray", "__libc_memalign", "__libc_valloc", "__libc_pvalloc",
    "__posix_memalign", "__malloc_trim", "__malloc_usable_size", "__libc_mallinfo",
    "__libc_mallinfo2", "__malloc_info", "__malloc_stats", "_int_malloc", "_int_free",
    "_int_free_merge_chunk", "_int_free_create_chunk", "_int_realloc", "_int_memalign",
    "_mid_memalign", "malloc_consolidate", "sysmalloc", "sysmalloc_mmap", "sysmalloc_mmap_fallback",
    "systrim", "munmap_chunk", "mremap_chunk", "unlink_chunk", "alloc_perturb", "free_perturb",
    "int_mallinfo", "mtrim", "ptmalloc_init", "tcache_init", "tcache_thread_shutdown", "arena_get2",
    "arena_get_retry", "_int_new_arena", "get_free_list", "reused_arena", "detach_arena",
    "new_heap", "alloc_new_heap", "heap_trim", "__malloc_arena_thread_freeres"};

bool startsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// libdw's standard search for the separate debug file by build id (the symbolizer's too).
Dwfl_Callbacks makeCallbacks(char** debugPath) {
    Dwfl_Callbacks callbacks{};
    callbacks.find_elf = dwfl_build_id_find_elf;
    callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
    callbacks.section_address = dwfl_offline_section_address;
    callbacks.debuginfo_path = debugPath;
    return callbacks;
}

}  // namespace

bool isCLibrary(const std::string& moduleName) { return startsWith(moduleName, "libc.so"); }

bool isAllocatorFunction(const std::string& symbol) {
    std::string_view name = symbol;
    if (startsWith(name, "__GI_")) name.remove_prefix(5);  // glibc's internal aliases
    name = name.substr(0, name.find_first_of(".@"));  // malloc_consolidate.part.0, cfree@GLIBC_2.2.5
    return std::find(std::begin(kAllocatorFunctions), std::end(kAllocatorFunctions), name) != std::end(kAllocatorFunctions);
}

std::vector<CodeRange> allocatorCode(const LoadedModule& module) {
    std::vector<CodeRange> ranges;
    struct stat info {};
    // A damaged log may name a FIFO or a device, which libelf would wait on.
    if (module.m_path.empty() || module.m_path[0] != '/' || ::stat(module.m_path.c_str(), &info) != 0 ||
        !S_ISREG(info.st_mode))
        return ranges;
    char* debugPath = nullptr;
    const Dwfl_Callbacks callbacks = makeCallbacks(&debugPath);
    Dwfl* dwfl = dwfl_begin(&callbacks);
    if (!dwfl) return ranges;
    dwfl_report_begin(dwfl);
    Dwfl_Module* reported = dwfl_report_elf(dwfl, "libc", module.m_path.c_str(), -1, module.m_base, false);
    dwfl_report_end(dwfl, nullptr, nullptr);
    const unsigned char* bits = nullptr;
    GElf_Addr vaddr = 0;
    const int length = reported ? dwfl_module_build_id(reported, &bits, &vaddr) : -1;
    const bool sameBuild = module.m_buildId.empty() ||
                           (length > 0 && hexBytes(bits, static_cast<size_t>(length)) == module.m_buildId);
    const int count = reported && sameBuild ? dwfl_module_getsymtab(reported) : -1;
    for (int i = 1; i < count; ++i) {
        GElf_Sym symbol;
        GElf_Addr address = 0;
        const char* name = dwfl_module_getsym_info(reported, i, &symbol, &address, nullptr, nullptr, nullptr);
        if (!name || GELF_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_size == 0) continue;
        if (isAllocatorFunction(name)) ranges.push_back({address, address + symbol.st_size});
    }
    dwfl_end(dwfl);
    std::sort(ranges.begin(), ranges.end(), [](const CodeRange& a, const CodeRange& b) { return a.m_lo < b.m_lo; });
    std::vector<CodeRange> merged;  // aliases name one function several times
    for (const CodeRange& range : ranges) {
        if (!merged.empty() && range.m_lo <= merged.back().m_hi)
            merged.back().m_hi = std::max(merged.back().m_hi, range.m_hi);
        else
            merged.push_back(range);
    }
    return merged;
}

}  // namespace memlog::unwind
