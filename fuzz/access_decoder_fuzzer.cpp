// The access decoder's glue around Zydis (preload/src/sample/instruction_access.cpp): any registers and
// up to 15 bytes of code. Whatever it makes of them must be self-consistent: the accesses it
// reports fit its arrays and have sizes, a decoded instruction has a length within the bytes
// given, and more bytes are asked for only when fewer than an instruction's longest were given.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "sample/instruction_access.hpp"

using namespace memlog::preload;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Registers registers;
    if (size < sizeof registers.m_general + 8 * 4) return 0;
    std::memcpy(registers.m_general, data, sizeof registers.m_general);
    std::memcpy(&registers.m_rip, data + sizeof registers.m_general, 8);
    std::memcpy(&registers.m_rflags, data + sizeof registers.m_general + 8, 8);
    std::memcpy(&registers.m_fsBase, data + sizeof registers.m_general + 16, 8);
    std::memcpy(&registers.m_gsBase, data + sizeof registers.m_general + 24, 8);
    const uint8_t* code = data + sizeof registers.m_general + 32;
    const size_t available = size - (sizeof registers.m_general + 32);
    const DecodedInstruction decoded = decodeAccesses(code, available < 15 ? available : 15, registers);
    switch (decoded.m_outcome) {
    case DecodeOutcome::Accesses:
        if (decoded.m_count < 1 || decoded.m_count > kMaxAccesses) std::abort();
        for (uint32_t i = 0; i < decoded.m_count; ++i)
            if (decoded.m_accesses[i].m_bytes == 0) std::abort();
        [[fallthrough]];
    case DecodeOutcome::NoAccess:
        if (decoded.m_length == 0 || decoded.m_length > available || decoded.m_length > 15) std::abort();
        break;
    case DecodeOutcome::NeedBytes:
        if (available >= 15) std::abort();
        break;
    case DecodeOutcome::Undecodable:
    case DecodeOutcome::Unsupported:
        break;
    }
    for (uint8_t condition = 0; condition < 16; ++condition) (void)conditionHolds(condition, registers.m_rflags);
    return 0;
}
