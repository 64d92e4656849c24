// The decoder of the instruction a tick interrupted, against hand-built register contexts: each
// instruction's bytes (as `as` assembles them) and the registers it would run with give the
// exact addresses, sizes and directions of what it is about to touch.
#include <catch2/catch.hpp>

#include <vector>

#include "sample/instruction_access.hpp"

using namespace memlog::preload;
using memlog::format::AccessKind;

namespace {

enum Register { Rax, Rcx, Rdx, Rbx, Rsp, Rbp, Rsi, Rdi, R8 };

constexpr uint64_t kRip = 0x5555'0000'1000;

Registers registersWith(std::initializer_list<std::pair<Register, uint64_t>> values) {
    Registers registers;
    registers.m_rip = kRip;
    for (const auto& [which, value] : values) registers.m_general[which] = value;
    return registers;
}

DecodedInstruction decode(std::vector<uint8_t> bytes, const Registers& registers) {
    return decodeAccesses(bytes.data(), bytes.size(), registers);
}

void requireOne(const DecodedInstruction& decoded, uint64_t addr, uint32_t bytes, AccessKind kind) {
    REQUIRE(decoded.m_outcome == DecodeOutcome::Accesses);
    REQUIRE(decoded.m_count == 1);
    CHECK(decoded.m_accesses[0].m_addr == addr);
    CHECK(decoded.m_accesses[0].m_bytes == bytes);
    CHECK(decoded.m_accesses[0].m_kind == kind);
}

}  // namespace

TEST_CASE("base + index * scale + displacement: mov rax, [rbx + rcx*8 + 0x10] reads 8 bytes there") {
    const auto decoded = decode({0x48, 0x8b, 0x44, 0xcb, 0x10}, registersWith({{Rbx, 0x10000}, {Rcx, 3}}));
    CHECK(decoded.m_length == 5);
    requireOne(decoded, 0x10000 + 3 * 8 + 0x10, 8, AccessKind::Read);
}

TEST_CASE("RIP-relative: mov eax, [rip + 0x100] counts from the end of the instruction") {
    const auto decoded = decode({0x8b, 0x05, 0x00, 0x01, 0x00, 0x00}, registersWith({}));
    requireOne(decoded, kRip + 6 + 0x100, 4, AccessKind::Read);
}

TEST_CASE("FS-relative: the thread's FS base is added (thread-local storage)") {
    Registers registers = registersWith({{Rax, 0x40}});
    registers.m_fsBase = 0x7fff'0000'0000;
    requireOne(decode({0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00}, registers), 0x7fff'0000'0028, 8,
               AccessKind::Read);
    requireOne(decode({0x64, 0x48, 0x8b, 0x50, 0x08}, registers), 0x7fff'0000'0048, 8, AccessKind::Read);
}

TEST_CASE("an address-size prefix evaluates 32-bit registers: mov eax, [ebx + 4]") {
    const auto decoded = decode({0x67, 0x8b, 0x43, 0x04}, registersWith({{Rbx, 0xdead'0000'1000}}));
    requireOne(decoded, 0x1004, 4, AccessKind::Read);
}

TEST_CASE("push writes the slot below the stack pointer, pop reads the slot at it") {
    const Registers registers = registersWith({{Rsp, 0x7ffc'0000'1000}});
    requireOne(decode({0x53}, registers), 0x7ffc'0000'0ff8, 8, AccessKind::Write);
    requireOne(decode({0x5b}, registers), 0x7ffc'0000'1000, 8, AccessKind::Read);
}

TEST_CASE("call through memory reads the target and writes the return address, ret reads it back") {
    const Registers registers = registersWith({{Rax, 0x20000}, {Rsp, 0x7ffc'0000'1000}});
    const auto call = decode({0xff, 0x10}, registers);
    REQUIRE(call.m_outcome == DecodeOutcome::Accesses);
    REQUIRE(call.m_count == 2);
    bool target = false, slot = false;
    for (uint32_t i = 0; i < call.m_count; ++i) {
        const MemoryAccess& access = call.m_accesses[i];
        if (access.m_addr == 0x20000 && access.m_kind == AccessKind::Read && access.m_bytes == 8) target = true;
        if (access.m_addr == 0x7ffc'0000'0ff8 && access.m_kind == AccessKind::Write && access.m_bytes == 8) slot = true;
    }
    CHECK(target);
    CHECK(slot);
    requireOne(decode({0xc3}, registers), 0x7ffc'0000'1000, 8, AccessKind::Read);
}

TEST_CASE("movsq reads at rsi and writes at rdi, a rep movsb with rcx = 0 touches nothing") {
    const auto movs = decode({0x48, 0xa5}, registersWith({{Rsi, 0x1000}, {Rdi, 0x2000}}));
    REQUIRE(movs.m_outcome == DecodeOutcome::Accesses);
    REQUIRE(movs.m_count == 2);
    for (uint32_t i = 0; i < 2; ++i) {
        const MemoryAccess& access = movs.m_accesses[i];
        CHECK(access.m_bytes == 8);
        if (access.m_kind == AccessKind::Read)
            CHECK(access.m_addr == 0x1000);
        else
            CHECK((access.m_kind == AccessKind::Write && access.m_addr == 0x2000));
    }
    // rep movsb: the next element moved, one byte each, while rcx > 0.
    const auto repeating = decode({0xf3, 0xa4}, registersWith({{Rsi, 0x1000}, {Rdi, 0x2000}, {Rcx, 5}}));
    REQUIRE(repeating.m_outcome == DecodeOutcome::Accesses);
    CHECK(repeating.m_count == 2);
    CHECK(repeating.m_accesses[0].m_bytes == 1);
    CHECK(decode({0xf3, 0xa4}, registersWith({{Rsi, 0x1000}, {Rdi, 0x2000}, {Rcx, 0}})).m_outcome ==
          DecodeOutcome::NoAccess);
}

TEST_CASE("a read-modify-write: add [rax], rbx reads and writes the same 8 bytes") {
    requireOne(decode({0x48, 0x01, 0x18}, registersWith({{Rax, 0x3000}})), 0x3000, 8, AccessKind::ReadWrite);
}

TEST_CASE("cmpxchg [rdi], rcx reads and writes its destination") {
    requireOne(decode({0x48, 0x0f, 0xb1, 0x0f}, registersWith({{Rdi, 0x3000}})), 0x3000, 8, AccessKind::ReadWrite);
}

TEST_CASE("vector loads and stores: movdqu xmm0, [rax] reads 16 bytes, vmovups [rdi], ymm1 writes 32") {
    requireOne(decode({0xf3, 0x0f, 0x6f, 0x00}, registersWith({{Rax, 0x4000}})), 0x4000, 16, AccessKind::Read);
    requireOne(decode({0xc5, 0xfc, 0x11, 0x0f}, registersWith({{Rdi, 0x5000}})), 0x5000, 32, AccessKind::Write);
}

TEST_CASE("no memory touched: lea and add between registers say so, so that the sampler steps on") {
    CHECK(decode({0x48, 0x8d, 0x43, 0x08}, registersWith({{Rbx, 0x1000}})).m_outcome == DecodeOutcome::NoAccess);
    const auto add = decode({0x48, 0x01, 0xd8}, registersWith({}));
    CHECK(add.m_outcome == DecodeOutcome::NoAccess);
    CHECK(add.m_length == 3);
}

TEST_CASE("leave reads the saved rbp at rbp, pushfq writes below rsp") {
    const Registers registers = registersWith({{Rsp, 0x7ffc'0000'1000}, {Rbp, 0x7ffc'0000'2000}});
    requireOne(decode({0xc9}, registers), 0x7ffc'0000'2000, 8, AccessKind::Read);
    requireOne(decode({0x9c}, registers), 0x7ffc'0000'0ff8, 8, AccessKind::Write);
}

TEST_CASE("cache hints touch no data: prefetcht0 and clflush step on") {
    CHECK(decode({0x0f, 0x18, 0x08}, registersWith({{Rax, 0x1000}})).m_outcome == DecodeOutcome::NoAccess);
    CHECK(decode({0x0f, 0xae, 0x38}, registersWith({{Rax, 0x1000}})).m_outcome == DecodeOutcome::NoAccess);
}

TEST_CASE("gathers, masked stores and xsave (its size depends on the CPU's state) are refused, never guessed") {
    CHECK(decode({0x0f, 0xae, 0x20}, registersWith({{Rax, 0x1000}})).m_outcome == DecodeOutcome::Unsupported);
    CHECK(decode({0xc4, 0xe2, 0x6d, 0x90, 0x04, 0x88}, registersWith({{Rax, 0x1000}})).m_outcome ==
          DecodeOutcome::Unsupported);
    CHECK(decode({0x62, 0xf1, 0x7e, 0x49, 0x7f, 0x07}, registersWith({{Rdi, 0x1000}})).m_outcome ==
          DecodeOutcome::Unsupported);
}

TEST_CASE("bytes that end inside the instruction ask for more, garbage is undecodable") {
    CHECK(decode({0x48, 0x8b, 0x44}, registersWith({})).m_outcome == DecodeOutcome::NeedBytes);
    CHECK(decode({0x06}, registersWith({})).m_outcome == DecodeOutcome::Undecodable);  // push es: not in 64-bit mode
}

TEST_CASE("decoding ahead passes over straight-line instructions to the next access, exactly") {
    // add rax, rbx; mov [rcx], rdx: rcx is not touched on the way, so [rcx] is known now.
    const uint8_t passOver[] = {0x48, 0x01, 0xd8, 0x48, 0x89, 0x11};
    Registers registers = registersWith({{Rcx, 0x6000}});
    registers.m_rip = reinterpret_cast<uint64_t>(passOver);
    const auto ahead = decodeAhead(registers, 16);
    requireOne(ahead, 0x6000, 8, AccessKind::Write);
    CHECK(ahead.m_ip == registers.m_rip + 3);
    CHECK(ahead.m_skipped == 1);
    CHECK(decodeAhead(registers, 0).m_outcome == DecodeOutcome::NoAccess);  // no passing over allowed

    // add rcx, 8; mov [rcx], rdx: the address register changes on the way: step instead.
    const uint8_t writesBase[] = {0x48, 0x83, 0xc1, 0x08, 0x48, 0x89, 0x11};
    registers.m_rip = reinterpret_cast<uint64_t>(writesBase);
    const auto stepped = decodeAhead(registers, 16);
    CHECK(stepped.m_outcome == DecodeOutcome::NoAccess);
    CHECK(stepped.m_ip == registers.m_rip);

    // call rax (an indirect call): where it goes is the step's to find.
    const uint8_t indirect[] = {0xff, 0xd0, 0x48, 0x89, 0x11};
    registers.m_rip = reinterpret_cast<uint64_t>(indirect);
    registers.m_general[Rax] = 0x7000;
    const auto call = decodeAhead(registers, 16);
    requireOne(call, registers.m_general[Rsp] - 8, 8, AccessKind::Write);  // a call writes its return address
    CHECK(call.m_ip == registers.m_rip);

    // rep movsb after an instruction that writes rcx: whether it runs at all is not known now.
    const uint8_t countChanges[] = {0x48, 0x31, 0xc9, 0xf3, 0xa4};  // xor rcx, rcx; rep movsb
    registers = registersWith({{Rcx, 5}, {Rsi, 0x1000}, {Rdi, 0x2000}});
    registers.m_rip = reinterpret_cast<uint64_t>(countChanges);
    CHECK(decodeAhead(registers, 16).m_outcome == DecodeOutcome::NoAccess);
}

TEST_CASE("decoding ahead follows jumps: always a direct jmp, a jcc while the flags are those of now") {
    // jmp +2; ud2; mov [rcx], rdx
    const uint8_t jump[] = {0xeb, 0x02, 0x0f, 0x0b, 0x48, 0x89, 0x11};
    Registers registers = registersWith({{Rcx, 0x6000}});
    registers.m_rip = reinterpret_cast<uint64_t>(jump);
    const auto jumped = decodeAhead(registers, 16);
    requireOne(jumped, 0x6000, 8, AccessKind::Write);
    CHECK(jumped.m_ip == registers.m_rip + 4);

    // jz +2; ud2; mov [rcx], rdx: taken when ZF is set; not taken, the ud2 ends the look.
    const uint8_t conditional[] = {0x74, 0x02, 0x0f, 0x0b, 0x48, 0x89, 0x11};
    registers.m_rip = reinterpret_cast<uint64_t>(conditional);
    registers.m_rflags = 0x40;
    requireOne(decodeAhead(registers, 16), 0x6000, 8, AccessKind::Write);
    registers.m_rflags = 0;
    CHECK(decodeAhead(registers, 16).m_outcome == DecodeOutcome::NoAccess);

    // test rax, rax; jz +2; ...: the flags the jz reads are not those of now.
    const uint8_t tested[] = {0x48, 0x85, 0xc0, 0x74, 0x02, 0x0f, 0x0b, 0x48, 0x89, 0x11};
    registers.m_rip = reinterpret_cast<uint64_t>(tested);
    registers.m_rflags = 0x40;
    CHECK(decodeAhead(registers, 16).m_outcome == DecodeOutcome::NoAccess);
}

TEST_CASE("every x86 condition code against the flags that decide it") {
    constexpr uint64_t kCarry = 0x1, kParity = 0x4, kZero = 0x40, kSign = 0x80, kOverflow = 0x800;
    CHECK(conditionHolds(0, kOverflow));            // o
    CHECK(conditionHolds(1, 0));                    // no
    CHECK(conditionHolds(2, kCarry));               // b
    CHECK_FALSE(conditionHolds(3, kCarry));         // nb
    CHECK(conditionHolds(4, kZero));                // z
    CHECK(conditionHolds(5, 0));                    // nz
    CHECK(conditionHolds(6, kZero));                // be
    CHECK(conditionHolds(6, kCarry));
    CHECK(conditionHolds(7, 0));                    // nbe
    CHECK(conditionHolds(8, kSign));                // s
    CHECK(conditionHolds(9, 0));                    // ns
    CHECK(conditionHolds(10, kParity));             // p
    CHECK(conditionHolds(11, 0));                   // np
    CHECK(conditionHolds(12, kSign));               // l: SF != OF
    CHECK_FALSE(conditionHolds(12, kSign | kOverflow));
    CHECK(conditionHolds(13, kSign | kOverflow));   // nl
    CHECK(conditionHolds(14, kZero | kSign | kOverflow));  // le
    CHECK(conditionHolds(15, kSign | kOverflow));   // nle: ZF = 0 and SF = OF
    CHECK_FALSE(conditionHolds(15, kZero));
}

TEST_CASE("a system call is never stepped: decoding ahead says so for the instruction at rip") {
    // syscall; mov [rcx], rdx: a fork made with the trap flag set would start its child stepping.
    const uint8_t call[] = {0x0f, 0x05, 0x48, 0x89, 0x11};
    Registers registers = registersWith({{Rcx, 0x6000}});
    registers.m_rip = reinterpret_cast<uint64_t>(call);
    const auto decoded = decodeAhead(registers, 16);
    CHECK(decoded.m_outcome == DecodeOutcome::NoAccess);
    CHECK(decoded.m_systemCall);
    // An ordinary instruction without an access may be stepped.
    const uint8_t add[] = {0x48, 0x83, 0xc1, 0x08, 0x48, 0x89, 0x11};
    registers.m_rip = reinterpret_cast<uint64_t>(add);
    CHECK_FALSE(decodeAhead(registers, 16).m_systemCall);
}
