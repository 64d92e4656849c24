// What one x86-64 instruction is about to read and write, from its bytes and the registers it
// will run with: the tick sampler's decoder, on Zydis. No allocation, no locks, no global state:
// it runs in a signal handler, in any thread.
#pragma once

#include <cstddef>
#include <cstdint>

#include "memlog/format.hpp"

namespace memlog::preload {

// The thread's registers before the instruction runs. General registers in the order of their
// x86 encoding: rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8 ... r15.
struct Registers {
    uint64_t m_general[16] = {};
    uint64_t m_rip = 0;
    uint64_t m_fsBase = 0;  // FS- and GS-relative operands (thread-local storage) add these
    uint64_t m_gsBase = 0;
};

struct MemoryAccess {
    uint64_t m_addr = 0;
    uint32_t m_bytes = 0;
    format::AccessKind m_kind = format::AccessKind::Read;
};

enum class DecodeOutcome : uint8_t {
    Accesses,     // m_count accesses (1 to kMaxAccesses)
    NoAccess,     // a valid instruction that touches no memory now (or a rep with rcx = 0)
    NeedBytes,    // the bytes given end inside the instruction: give more
    Undecodable,  // not an instruction the decoder knows
    Unsupported,  // touches memory at addresses not computed here: gathers, scatters, masked
                  // vector accesses, bound tables, sizes that depend on state (xsave)
};

inline constexpr uint32_t kMaxAccesses = 4;

struct DecodedInstruction {
    DecodeOutcome m_outcome = DecodeOutcome::Undecodable;
    uint8_t m_length = 0;  // bytes of the instruction, when decoded
    uint32_t m_count = 0;
    MemoryAccess m_accesses[kMaxAccesses];
};

// Decodes the instruction at code[0 .. available) that sits at registers.m_rip. Every memory
// operand that the instruction will access, explicit (mov [rax], rbx) or implicit (push's
// stack slot, movs's source and destination), becomes one MemoryAccess with its exact address.
DecodedInstruction decodeAccesses(const uint8_t* code, size_t available, const Registers& registers);

}  // namespace memlog::preload
