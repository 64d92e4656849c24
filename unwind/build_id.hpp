// Build ids: the GNU note of a loaded object, and its bytes in hex as logs and kept names spell
// them. The note walk allocates nothing (the recorder's module maps use it); the hex is the
// readers'.
#pragma once

#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace memlog::unwind {

// The GNU build id from the object's PT_NOTE segments, as mapped in memory: its length (0 when
// it has none of at most `maxBytes`), its bytes at *bytes.
inline uint32_t gnuBuildId(const dl_phdr_info* info, const uint8_t** bytes, uint32_t maxBytes) {
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& segment = info->dlpi_phdr[i];
        if (segment.p_type != PT_NOTE) continue;
        const auto* note = reinterpret_cast<const uint8_t*>(info->dlpi_addr + segment.p_vaddr);
        const uint8_t* end = note + segment.p_memsz;
        while (note + sizeof(ElfW(Nhdr)) <= end) {
            ElfW(Nhdr) header;
            std::memcpy(&header, note, sizeof header);
            const uint8_t* name = note + sizeof header;
            const uint8_t* desc = name + ((header.n_namesz + 3) & ~3u);
            const uint8_t* next = desc + ((header.n_descsz + 3) & ~3u);
            if (next > end) break;
            if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0 &&
                header.n_descsz <= maxBytes) {
                *bytes = desc;
                return header.n_descsz;
            }
            note = next;
        }
    }
    return 0;
}

// Lower-case hex, two digits a byte.
inline std::string hexBytes(const uint8_t* bytes, size_t count) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string text;
    text.reserve(2 * count);
    for (size_t i = 0; i < count; ++i) {
        text += kDigits[bytes[i] >> 4];
        text += kDigits[bytes[i] & 15];
    }
    return text;
}

}  // namespace memlog::unwind
