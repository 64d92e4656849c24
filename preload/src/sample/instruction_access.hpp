// What one x86-64 instruction is about to read and write, from its bytes and the registers it
// will run with: the tick sampler's decoder, on Zydis. No allocation, no locks, no global state:
// it runs in a signal handler, in any thread.
#pragma once

#include <ucontext.h>

#include <cstddef>
#include <cstdint>

#include "memlog/format.hpp"

namespace memlog::preload {

// The thread's registers before the instruction runs. General registers in the order of their
// x86 encoding: rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8 ... r15.
struct Registers {
    uint64_t m_general[16] = {};
    uint64_t m_rip = 0;
    uint64_t m_rflags = 0;  // conditional jumps passed over without a step read these
    uint64_t m_fsBase = 0;  // FS- and GS-relative operands (thread-local storage) add these
    uint64_t m_gsBase = 0;
};

// The registers of a signal's context, with the thread's FS and GS bases.
Registers registersOf(const ucontext_t& context, uint64_t fsBase, uint64_t gsBase);

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

// A change of flow whose destination decodeAhead can know without running it.
enum class Branch : uint8_t {
    None,     // no change of flow
    Always,   // jmp to a fixed target
    IfFlags,  // jcc to a fixed target: taken when m_condition holds on the flags
    Unknown,  // anything else: indirect jumps, calls, returns, system calls, traps
};

struct DecodedInstruction {
    DecodeOutcome m_outcome = DecodeOutcome::Undecodable;
    uint8_t m_length = 0;  // bytes of the instruction, when decoded
    uint32_t m_count = 0;
    MemoryAccess m_accesses[kMaxAccesses];
    uint64_t m_ip = 0;     // the instruction's address (decodeAhead: the one that accesses memory)
    uint8_t m_skipped = 0; // decodeAhead: instructions passed over before it
    // What the instruction does to the general registers (bit i: register i of Registers):
    uint16_t m_writes = 0;            // registers it writes
    uint16_t m_addressRegisters = 0;  // registers its accesses depend on (bases, indexes, rcx of rep)
    bool m_writesFlags = false;
    bool m_systemCall = false;        // syscall, sysenter, int: never stepped (below)
    Branch m_branch = Branch::None;
    uint8_t m_condition = 0;          // IfFlags: the x86 condition code (0 o, 1 no, 2 b, ... 15 nle)
    uint64_t m_target = 0;            // Always, IfFlags: where it goes
};

// Whether x86 condition code `condition` (the low nibble of a jcc's opcode) holds on `rflags`.
bool conditionHolds(uint8_t condition, uint64_t rflags);

// Decodes the instruction at code[0 .. available) that sits at registers.m_rip. Every memory
// operand that the instruction will access, explicit (mov [rax], rbx) or implicit (push's
// stack slot, movs's source and destination), becomes one MemoryAccess with its exact address.
DecodedInstruction decodeAccesses(const uint8_t* code, size_t available, const Registers& registers);

// The same for the instruction at registers.m_rip in this process's memory, read without
// touching a page the instruction does not occupy.
DecodedInstruction decodeRunningInstruction(const Registers& registers);

// The first instruction from registers.m_rip on that accesses memory, found without running
// anything: instructions that touch no memory are passed over, at most `maxSkipped` of them, as
// long as none writes a register the access's address depends on (so the registers now are the
// registers then, and the address is exact). Direct jumps are followed; a conditional one too
// while no instruction passed over has changed the flags (so its condition is decided now).
// NoAccess when that cannot be known (the sampler steps then); m_ip says which instruction it is,
// and m_systemCall whether it is a system call: one that the trap flag must not go through (a
// fork made with it set would start the child with a step pending, before the recorder has
// given the child a log of its own).
DecodedInstruction decodeAhead(const Registers& registers, uint32_t maxSkipped);

}  // namespace memlog::preload
