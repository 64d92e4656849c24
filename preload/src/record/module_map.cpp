// Walks the loaded objects with dl_iterate_phdr. Written lazily rather than from the dlopen hook,
// which leaves every load but RTLD_DEEPBIND ones to glibc untouched (hooks/dlopen.cpp: glibc
// resolves a dlopen'd name against its caller's RUNPATH and $ORIGIN).
#include "record/module_map.hpp"

#include <elf.h>
#include <link.h>

#include <cstring>

#include "record/record_writer.hpp"
#include "unwind/build_id.hpp"

namespace memlog::preload {
namespace {

char s_mainPath[format::kMaxPathBytes];
unsigned long long s_seenAdds = 0;
unsigned long long s_seenSubs = 0;

struct AddressRange {
    uintptr_t m_lo = ~uintptr_t(0);
    uintptr_t m_hi = 0;
};

AddressRange loadRange(const dl_phdr_info* info) {
    AddressRange range;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& segment = info->dlpi_phdr[i];
        if (segment.p_type != PT_LOAD) continue;
        const uintptr_t lo = info->dlpi_addr + segment.p_vaddr;
        if (lo < range.m_lo) range.m_lo = lo;
        if (lo + segment.p_memsz > range.m_hi) range.m_hi = lo + segment.p_memsz;
    }
    if (range.m_hi == 0) range.m_lo = 0;
    return range;
}

struct WalkContext {
    ThreadState* m_thread;
};

int writeOneModule(dl_phdr_info* info, size_t, void* data) {
    auto* context = static_cast<WalkContext*>(data);
    s_seenAdds = info->dlpi_adds;
    s_seenSubs = info->dlpi_subs;
    const AddressRange range = loadRange(info);
    format::ModuleView module;
    module.m_base = info->dlpi_addr;
    module.m_lo = range.m_lo;
    module.m_hi = range.m_hi;
    module.m_buildIdBytes = unwind::gnuBuildId(info, &module.m_buildId, format::kMaxBuildIdBytes);
    const char* path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : s_mainPath;
    module.m_path = path;
    module.m_pathBytes = static_cast<uint32_t>(strnlen(path, format::kMaxPathBytes));
    const uint32_t maxBytes = format::moduleRecordMaxBytes(module.m_pathBytes, module.m_buildIdBytes);
    if (uint8_t* out = beginMetaRecord(*context->m_thread, maxBytes))
        commitRecord(*context->m_thread, out, format::encodeModulePayload(out, module), format::Kind::Module);
    return 0;
}

int addRecordBytes(dl_phdr_info* info, size_t, void* data) {
    const char* path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : s_mainPath;
    *static_cast<uint32_t*>(data) +=
        format::moduleRecordMaxBytes(static_cast<uint32_t>(strnlen(path, format::kMaxPathBytes)),
                                     format::kMaxBuildIdBytes);
    return 0;
}

int readCounters(dl_phdr_info* info, size_t, void* data) {
    auto* changed = static_cast<bool*>(data);
    *changed = info->dlpi_adds != s_seenAdds || info->dlpi_subs != s_seenSubs;
    return 1;  // the counters are the same in every entry: stop at the first
}

int readLoads(dl_phdr_info* info, size_t, void* data) {
    *static_cast<unsigned long long*>(data) = info->dlpi_adds;
    return 1;
}

struct FindContext {
    uintptr_t m_address;
    AddressRange m_range;
};

int findContaining(dl_phdr_info* info, size_t, void* data) {
    auto* context = static_cast<FindContext*>(data);
    const AddressRange range = loadRange(info);
    if (context->m_address >= range.m_lo && context->m_address < range.m_hi) {
        context->m_range = range;
        return 1;
    }
    return 0;
}

}  // namespace

void setMainExecutablePath(const char* path) {
    std::strncpy(s_mainPath, path, sizeof(s_mainPath) - 1);
}

void writeModuleMap(ThreadState& thread, uint64_t seq, uint64_t tsc) {
    // Make room for the whole map in one chunk, so the mark and its modules stay together.
    uint32_t mapBytes = 1 + 20;
    dl_iterate_phdr(addRecordBytes, &mapBytes);
    if (uint8_t* out = beginMetaRecord(thread, mapBytes))
        commitRecord(thread, out, format::encodeMarkPayload(out, seq, tsc, thread.m_writer.m_deltas),
                     format::Kind::ModuleMap);
    WalkContext context{&thread};
    dl_iterate_phdr(writeOneModule, &context);
}

void forgetModuleMap() {
    s_seenAdds = 0;
    s_seenSubs = 0;
}

bool modulesChanged() {
    bool changed = false;
    dl_iterate_phdr(readCounters, &changed);
    return changed;
}

unsigned long long objectsLoaded() {
    unsigned long long loads = 0;
    dl_iterate_phdr(readLoads, &loads);
    return loads;
}

void findModuleRange(const void* address, uintptr_t* lo, uintptr_t* hi) {
    FindContext context{reinterpret_cast<uintptr_t>(address), {}};
    dl_iterate_phdr(findContaining, &context);
    *lo = context.m_range.m_lo;
    *hi = context.m_range.m_hi;
}

}  // namespace memlog::preload
