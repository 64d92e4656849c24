// The varints of a .memlog log (LEB128: 7 bits a byte, low first; zigzag for signed deltas), the
// writer's fast forms and the readers' decoder. Part of memlog/format.hpp, which includes it.
#pragma once

#include <cpuid.h>

#include <cstdint>
#include <cstring>

namespace memlog::format {

inline uint8_t* putVarint(uint8_t* out, uint64_t value) {
    if (value < 0x80) [[likely]] {  // most deltas, sizes and stack ids: one byte, one branch
        *out = static_cast<uint8_t>(value);
        return out + 1;
    }
    while (value >= 0x80) {
        *out++ = static_cast<uint8_t>(value | 0x80);
        value >>= 7;
    }
    *out++ = static_cast<uint8_t>(value);
    return out;
}

// BMI2 is there and its pdep is fast: Intel, and AMD from family 0x19 (Zen 3). Asked once.
inline bool hasFastPdep() {
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & (1u << 8))) return false;
    __get_cpuid(0, &a, &b, &c, &d);
    if (b == 0x756e'6547) return true;  // "Genu"ineIntel
    if (b != 0x6874'7541) return false; // "Auth"enticAMD; others unknown: keep the shifts
    __get_cpuid(1, &a, &b, &c, &d);
    unsigned family = (a >> 8) & 0xf;
    if (family == 0xf) family += (a >> 20) & 0xff;
    return family >= 0x19;
}

// The seven-bit groups of a value below 2^56, one to a byte. With kPdep, BMI2's pdep does it in
// one instruction (3 cycles on Intel and on AMD from Zen 3; microcoded, hundreds of cycles, on
// earlier AMD cores, where hasFastPdep() says no). As asm, so that no target attribute is needed
// and generic code can carry both forms; the caller picks one per record.
template <bool kPdep>
inline uint64_t spreadSevenBitGroups(uint64_t value) {
    if constexpr (kPdep) {
        uint64_t spread;
        asm("pdep %2, %1, %0" : "=r"(spread) : "r"(value), "r"(0x7f7f'7f7f'7f7f'7f7full));
        return spread;
    }
    return (value & 0x7full) | ((value << 1) & 0x7f00ull) | ((value << 2) & 0x7f'0000ull) |
           ((value << 3) & 0x7f00'0000ull) | ((value << 4) & 0x7f'0000'0000ull) |
           ((value << 5) & 0x7f00'0000'0000ull) | ((value << 6) & 0x7f'0000'0000'0000ull) |
           ((value << 7) & 0x7f00'0000'0000'0000ull);
}

// A varint's length and continuation bits by the index of its value's highest set bit: two
// loads from one small table instead of a division by 7 and a shift by a variable count (four
// instructions fewer a varint, a quarter of a heap record's encoding time).
struct VarintShape {
    uint64_t m_continuation;  // 0x80 in every byte but the last
    uint64_t m_length;        // 1..8
};
inline constexpr auto kVarintShapes = [] {
    struct {
        VarintShape m_byTopBit[64];
    } table{};
    for (int top = 0; top < 64; ++top) {
        const int length = top < 56 ? top / 7 + 1 : 8;  // values from 2^56 take putVarint's loop
        table.m_byTopBit[top] = {0x8080'8080'8080'8080ull & ((1ull << (8 * (length - 1))) - 1), uint64_t(length)};
    }
    return table;
}();

// The same bytes as putVarint without a branch per byte: the 7-bit groups are spread over one
// 64-bit store. Varint lengths vary from record to record, and the mispredicted loop exits of
// putVarint were a fifth of a stackless recording. Stores 8 bytes at `out` (zeros past the
// varint): the caller must have that room.
template <bool kPdep = false>
inline uint8_t* putVarintWide(uint8_t* out, uint64_t value) {
    if (value >= (1ull << 56)) [[unlikely]]
        return putVarint(out, value);
    const VarintShape& shape = kVarintShapes.m_byTopBit[63 ^ __builtin_clzll(value | 1)];  // bsr
    const uint64_t bytes = spreadSevenBitGroups<kPdep>(value) | shape.m_continuation;
    std::memcpy(out, &bytes, sizeof bytes);  // little-endian: low group first, as LEB128
    return out + shape.m_length;
}

inline uint64_t zigzag(int64_t value) {
    return (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
}
inline int64_t unzigzag(uint64_t value) {
    return static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1);
}
inline uint8_t* putSigned(uint8_t* out, int64_t value) { return putVarint(out, zigzag(value)); }

// Reads a varint from [*cursor, end). Returns false, leaving *cursor anywhere, when the bytes run
// out or the varint is longer than 10 bytes: the reader treats that as a torn or corrupt record.
// kChecked = false: the caller knows that 10 bytes are there, and `end` is not looked at (the
// readers decode most records this way, far from their chunk's end). Same result otherwise.
template <bool kChecked = true>
inline bool getVarintAs(const uint8_t** cursor, const uint8_t* end, uint64_t* value) {
    const uint8_t* p = *cursor;
    uint64_t result = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if constexpr (kChecked)
            if (p == end) return false;
        const uint8_t byte = *p++;
        result |= static_cast<uint64_t>(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *cursor = p;
            *value = result;
            return true;
        }
    }
    return false;
}

inline bool getVarint(const uint8_t** cursor, const uint8_t* end, uint64_t* value) {
    return getVarintAs<true>(cursor, end, value);
}

}  // namespace memlog::format
