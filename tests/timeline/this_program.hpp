// This test program as a module of a log, for the tests that name its own addresses with a real
// Symbolizer: its load bias and the extent of its loaded segments.
#pragma once

#include <link.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "unwind/name_cache.hpp"
#include "unwind/symbolizer.hpp"

namespace memlog::test {

// `path`: this program's file, or a copy of it (the same build id).
inline unwind::LoadedModule thisProgramAt(const std::string& path) {
    unwind::LoadedModule module{path, unwind::readerBuildId(), 0, UINT64_MAX, 0};
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* arg) -> int {
            auto* out = static_cast<unwind::LoadedModule*>(arg);
            out->m_base = info->dlpi_addr;
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const ElfW(Phdr)& segment = info->dlpi_phdr[i];
                if (segment.p_type != PT_LOAD) continue;
                out->m_lo = std::min<uint64_t>(out->m_lo, info->dlpi_addr + segment.p_vaddr);
                out->m_hi = std::max<uint64_t>(out->m_hi, info->dlpi_addr + segment.p_vaddr + segment.p_memsz);
            }
            return 1;  // the main program only
        },
        &module);
    return module;
}

}  // namespace memlog::test
