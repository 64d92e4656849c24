// Rebinding what an RTLD_DEEPBIND load bound past the recorder. For every function the recorder
// exports (its hooks: found in its own dynamic symbol table, so the list cannot go stale), the
// objects the load brought in have GOT slots (JUMP_SLOT, GLOB_DAT) and data words (R_X86_64_64)
// naming it. A slot that holds exactly the function the hook forwards to (dlsym(RTLD_NEXT)) gets
// the hook instead: the library calls what it called before, now through the recorder. A slot
// bound anywhere else (the library's own malloc, an allocator of its own dependencies) is left
// alone, and so are objects of other namespaces (dlmopen), whose C library is a copy with a heap
// of its own. Costs about 40 us per such load of a small library (scripts/bench-dlopen).
#include "hooks/deep_bind.hpp"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <cstring>

#include "base/system.hpp"
#include "record/module_map.hpp"
#include "record/thread_state.hpp"
#include "start/real_functions.hpp"

namespace memlog::preload {
namespace {

struct Binding {
    const char* m_name;
    uintptr_t m_hook;  // the recorder's function
    uintptr_t m_next;  // what the hook forwards to: dlsym(RTLD_NEXT)
    uintptr_t m_deep;  // what the loaded library's own scope gives: dlsym(handle)
};

constexpr size_t kMaxBindings = 128;   // the recorder exports about 60 functions
constexpr size_t kMaxNewObjects = 512;  // objects one dlopen brings in
constexpr uintptr_t kPageBytes = 4096;  // x86-64 base pages: what mprotect and RELRO work in

// Serialises rebinding (two threads must not toggle one page's protection at once). Taken only
// by loads with RTLD_DEEPBIND, never on the allocation path.
pthread_mutex_t s_lock = PTHREAD_MUTEX_INITIALIZER;
Binding s_bindings[kMaxBindings];
size_t s_bindingCount = 0;

// The dynamic tables of one object. glibc has already made the d_ptr entries absolute in
// writable dynamic sections; read-only ones (the vDSO) keep file addresses.
struct DynamicTables {
    const ElfW(Sym)* m_symbols = nullptr;
    const char* m_strings = nullptr;
    const ElfW(Rela)* m_rela = nullptr;
    size_t m_relaCount = 0;
    const ElfW(Rela)* m_plt = nullptr;
    size_t m_pltCount = 0;
    const uint32_t* m_gnuHash = nullptr;
    const uint32_t* m_sysvHash = nullptr;
};

DynamicTables readTables(uintptr_t base, const ElfW(Dyn)* dynamic) {
    DynamicTables tables;
    auto at = [base](ElfW(Addr) pointer) { return pointer < base ? pointer + base : pointer; };
    bool pltIsRela = true;
    size_t pltBytes = 0, relaBytes = 0;
    for (const ElfW(Dyn)* entry = dynamic; entry->d_tag != DT_NULL; ++entry) {
        switch (entry->d_tag) {
        case DT_SYMTAB: tables.m_symbols = reinterpret_cast<const ElfW(Sym)*>(at(entry->d_un.d_ptr)); break;
        case DT_STRTAB: tables.m_strings = reinterpret_cast<const char*>(at(entry->d_un.d_ptr)); break;
        case DT_RELA: tables.m_rela = reinterpret_cast<const ElfW(Rela)*>(at(entry->d_un.d_ptr)); break;
        case DT_RELASZ: relaBytes = entry->d_un.d_val; break;
        case DT_JMPREL: tables.m_plt = reinterpret_cast<const ElfW(Rela)*>(at(entry->d_un.d_ptr)); break;
        case DT_PLTRELSZ: pltBytes = entry->d_un.d_val; break;
        case DT_PLTREL: pltIsRela = entry->d_un.d_val == DT_RELA; break;
        case DT_GNU_HASH: tables.m_gnuHash = reinterpret_cast<const uint32_t*>(at(entry->d_un.d_ptr)); break;
        case DT_HASH: tables.m_sysvHash = reinterpret_cast<const uint32_t*>(at(entry->d_un.d_ptr)); break;
        default: break;
        }
    }
    tables.m_relaCount = tables.m_rela ? relaBytes / sizeof(ElfW(Rela)) : 0;
    tables.m_pltCount = tables.m_plt && pltIsRela ? pltBytes / sizeof(ElfW(Rela)) : 0;
    return tables;
}

// The number of dynamic symbols: DT_HASH says it; DT_GNU_HASH only through its last chain.
size_t symbolCount(const DynamicTables& tables) {
    if (tables.m_sysvHash) return tables.m_sysvHash[1];
    if (!tables.m_gnuHash) return 0;
    const uint32_t* hash = tables.m_gnuHash;
    const uint32_t buckets = hash[0], firstHashed = hash[1], bloomWords = hash[2];
    const uint32_t* bucket = hash + 4 + bloomWords * (sizeof(ElfW(Addr)) / 4);
    const uint32_t* chain = bucket + buckets;
    uint32_t last = 0;
    for (uint32_t i = 0; i < buckets; ++i)
        if (bucket[i] > last) last = bucket[i];
    if (last < firstHashed) return firstHashed;
    while ((chain[last - firstHashed] & 1) == 0) ++last;
    return last + 1;
}

// The recorder's exported functions that have a next definition, with what each resolves to.
// dlsym may allocate (the caller is busy: unrecorded) and sets dlerror for names it misses.
void collectBindings(void* handle) {
    Dl_info self;
    if (!dladdr(reinterpret_cast<const void*>(&collectBindings), &self)) return;
    const auto base = reinterpret_cast<uintptr_t>(self.dli_fbase);
    const DynamicTables own = readTables(base, _DYNAMIC);
    const size_t count = symbolCount(own);
    s_bindingCount = 0;
    for (size_t i = 1; i < count && s_bindingCount < kMaxBindings; ++i) {
        const ElfW(Sym)& symbol = own.m_symbols[i];
        if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_shndx == SHN_UNDEF ||
            ELF64_ST_VISIBILITY(symbol.st_other) != STV_DEFAULT)
            continue;
        const char* name = own.m_strings + symbol.st_name;
        const auto next = reinterpret_cast<uintptr_t>(dlsym(RTLD_NEXT, name));
        if (!next) continue;  // memlog.h's own functions: nothing to bind past
        s_bindings[s_bindingCount++] = {name, base + symbol.st_value, next,
                                        reinterpret_cast<uintptr_t>(dlsym(handle, name))};
    }
    dlerror();  // the lookups that missed are not the program's errors
}

const Binding* findBinding(const char* name) {
    for (size_t i = 0; i < s_bindingCount; ++i)
        if (name[0] == s_bindings[i].m_name[0] && std::strcmp(name, s_bindings[i].m_name) == 0)
            return &s_bindings[i];
    return nullptr;
}

struct ObjectLayout {
    uintptr_t m_lo = ~uintptr_t(0), m_hi = 0;        // the loaded segments
    uintptr_t m_relroLo = 0, m_relroHi = 0;          // read-only after relocation, whole pages
    const ElfW(Dyn)* m_dynamic = nullptr;
};

ObjectLayout layoutOf(const dl_phdr_info* info) {
    ObjectLayout layout;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& segment = info->dlpi_phdr[i];
        const uintptr_t start = info->dlpi_addr + segment.p_vaddr;
        if (segment.p_type == PT_LOAD) {
            if (start < layout.m_lo) layout.m_lo = start;
            if (start + segment.p_memsz > layout.m_hi) layout.m_hi = start + segment.p_memsz;
        } else if (segment.p_type == PT_DYNAMIC) {
            layout.m_dynamic = reinterpret_cast<const ElfW(Dyn)*>(start);
        } else if (segment.p_type == PT_GNU_RELRO) {
            // As glibc protects it: both ends rounded down to a page.
            layout.m_relroLo = start & ~(kPageBytes - 1);
            layout.m_relroHi = (start + segment.p_memsz) & ~(kPageBytes - 1);
        }
    }
    return layout;
}

// One aligned 8-byte store: a thread calling through the slot meanwhile gets the old function or
// the hook, both correct. A RELRO page is made writable for the store and read-only again.
void storeSlot(uintptr_t* slot, uintptr_t value, const ObjectLayout& layout) {
    const uintptr_t page = reinterpret_cast<uintptr_t>(slot) & ~(kPageBytes - 1);
    const bool readOnly = page >= layout.m_relroLo && page < layout.m_relroHi;
    if (readOnly && sys::failed(sys::call(SYS_mprotect, static_cast<long>(page), kPageBytes, PROT_READ | PROT_WRITE)))
        return;  // leave it unrecorded rather than fault
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    if (readOnly) sys::call(SYS_mprotect, static_cast<long>(page), kPageBytes, PROT_READ);
}

void rebindRelocations(uintptr_t base, const DynamicTables& tables, const ElfW(Rela)* relocations, size_t count,
                       const ObjectLayout& layout) {
    for (size_t i = 0; i < count; ++i) {
        const ElfW(Rela)& relocation = relocations[i];
        const auto type = ELF64_R_TYPE(relocation.r_info);
        const auto symbolIndex = ELF64_R_SYM(relocation.r_info);
        if (symbolIndex == 0 || (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT && type != R_X86_64_64))
            continue;
        const Binding* binding = findBinding(tables.m_strings + tables.m_symbols[symbolIndex].st_name);
        if (!binding) continue;
        auto* slot = reinterpret_cast<uintptr_t*>(base + relocation.r_offset);
        const uintptr_t value = __atomic_load_n(slot, __ATOMIC_RELAXED);
        // Bound to what the hook forwards to; or, lazily bound and not called yet (the slot still
        // points into the object's own PLT), about to be bound there.
        const bool boundNext = value == binding->m_next && (type != R_X86_64_64 || relocation.r_addend == 0);
        const bool lazyNext = type == R_X86_64_JUMP_SLOT && value >= layout.m_lo && value < layout.m_hi &&
                              binding->m_deep == binding->m_next;
        if (boundNext || lazyNext) storeSlot(slot, binding->m_hook, layout);
    }
}

struct Walk {
    const link_map* m_first;  // the loaded library: it and what follows it are new
    uintptr_t m_newBases[kMaxNewObjects];
    size_t m_newCount = 0;
    uintptr_t m_ownBase = 0;
};

// Runs under dl_iterate_phdr's lock, which keeps the link map list still: no dl* calls here.
int rebindNewObject(dl_phdr_info* info, size_t, void* data) {
    auto* walk = static_cast<Walk*>(data);
    if (walk->m_newCount == 0)
        for (const link_map* map = walk->m_first; map && walk->m_newCount < kMaxNewObjects; map = map->l_next)
            walk->m_newBases[walk->m_newCount++] = map->l_addr;
    const uintptr_t base = info->dlpi_addr;
    if (base == 0 || base == walk->m_ownBase) return 0;  // the main program is never new
    bool isNew = false;
    for (size_t i = 0; i < walk->m_newCount && !isNew; ++i) isNew = walk->m_newBases[i] == base;
    if (!isNew) return 0;
    const ObjectLayout layout = layoutOf(info);
    if (!layout.m_dynamic) return 0;
    const DynamicTables tables = readTables(base, layout.m_dynamic);
    if (!tables.m_symbols || !tables.m_strings) return 0;
    rebindRelocations(base, tables, tables.m_plt, tables.m_pltCount, layout);
    rebindRelocations(base, tables, tables.m_rela, tables.m_relaCount, layout);
    return 0;
}

// dlopen that ran no code of the recorder's: RTLD_NOW/RTLD_LAZY, the handle or null.
void* openReal(const char* name, int mode, bool baseNamespace) {
    return baseNamespace ? g_real.dlmopen(LM_ID_BASE, name, mode) : g_real.dlopen(name, mode);
}

}  // namespace

void* openDeepBound(const char* name, int mode, bool baseNamespace) {
    const unsigned long long loadsBefore = objectsLoaded();
    void* handle = openReal(name, mode, baseNamespace);  // not busy: its constructors are the program's
    if (!handle || objectsLoaded() == loadsBefore) return handle;  // failed, or nothing new
    ThreadState& thread = t_state;
    const bool wasBusy = thread.m_busy;
    thread.m_busy = true;
    link_map* first = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &first) == 0 && first) {
        pthread_mutex_lock(&s_lock);
        collectBindings(handle);
        Walk walk;
        walk.m_first = first;
        Dl_info self;
        if (dladdr(reinterpret_cast<const void*>(&openDeepBound), &self))
            walk.m_ownBase = reinterpret_cast<uintptr_t>(self.dli_fbase);
        dl_iterate_phdr(rebindNewObject, &walk);
        pthread_mutex_unlock(&s_lock);
    }
    dlerror();  // the load succeeded: leave no error of ours for the program's dlerror()
    thread.m_busy = wasBusy;
    return handle;
}

}  // namespace memlog::preload
