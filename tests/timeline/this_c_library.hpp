// This test process's own C library as a log's module map would name it: its path, build id,
// load bias and the range of its segments (the tests of the allocator's code by address).
#pragma once

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "unwind/build_id.hpp"

namespace memlog::test {

struct CLibrary {
    std::string m_path;
    std::string m_buildId;  // hex
    uint64_t m_bias = 0;
    uint64_t m_lo = UINT64_MAX, m_hi = 0;
};

inline CLibrary thisCLibrary() {
    CLibrary library;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* out) {
            auto* found = static_cast<CLibrary*>(out);
            if (!std::strstr(info->dlpi_name, "/libc.so")) return 0;
            found->m_path = info->dlpi_name;
            found->m_bias = info->dlpi_addr;
            const uint8_t* bytes = nullptr;
            found->m_buildId = unwind::hexBytes(bytes, unwind::gnuBuildId(info, &bytes, 64));
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const ElfW(Phdr)& segment = info->dlpi_phdr[i];
                if (segment.p_type != PT_LOAD) continue;
                found->m_lo = std::min<uint64_t>(found->m_lo, info->dlpi_addr + segment.p_vaddr);
                found->m_hi = std::max<uint64_t>(found->m_hi, info->dlpi_addr + segment.p_vaddr + segment.p_memsz);
            }
            return 1;
        },
        &library);
    return library;
}

// A function of the C library itself, by name: not the default lookup's answer, which in a
// sanitized build is the sanitizer's interceptor of the same name (malloc, free, strlen...).
inline uint64_t cLibraryFunction(const char* name) {
    static void* const libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    return libc ? reinterpret_cast<uint64_t>(dlsym(libc, name)) : 0;
}

}  // namespace memlog::test
