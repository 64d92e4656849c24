// Zydis 4 decodes the instruction; its operand list says which operands are memory, what the
// instruction does with each (read, write, both) and how wide it is, and
// ZydisCalcAbsoluteAddressEx evaluates base + index * scale + displacement from the registers.
// What Zydis leaves to us: segment bases (FS, GS), the slot a push writes, rep instructions that
// will not run, and refusing what cannot be computed exactly.
#include "sample/instruction_access.hpp"

#include <Zydis/Zydis.h>

namespace memlog::preload {
namespace {

// The register context Zydis evaluates addresses with: the 64-bit registers and their 32-bit
// views (an address-size prefix makes an operand use eax rather than rax).
void fillContext(const Registers& registers, ZydisRegisterContext& context) {
    for (int i = 0; i < 16; ++i) {
        context.values[ZYDIS_REGISTER_RAX + i] = registers.m_general[i];
        context.values[ZYDIS_REGISTER_EAX + i] = registers.m_general[i] & 0xffff'ffffu;
    }
    context.values[ZYDIS_REGISTER_RIP] = registers.m_rip;
}

bool masked(const ZydisDecodedInstruction& instruction) {
    const ZydisRegister mask = instruction.avx.mask.reg;
    return mask != ZYDIS_REGISTER_NONE && mask != ZYDIS_REGISTER_K0;
}

// A rep-prefixed string instruction with a zero count does nothing at all.
bool repeatsZeroTimes(const ZydisDecodedInstruction& instruction, const Registers& registers) {
    if (!(instruction.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE))) return false;
    const uint64_t count = registers.m_general[1];  // rcx
    return instruction.address_width == 32 ? (count & 0xffff'ffffu) == 0 : count == 0;
}

// Cache hints name an address but read or write no data: prefetches, flushes, write-backs.
bool cacheHint(const ZydisDecodedInstruction& instruction) {
    switch (instruction.mnemonic) {
    case ZYDIS_MNEMONIC_CLFLUSH:
    case ZYDIS_MNEMONIC_CLFLUSHOPT:
    case ZYDIS_MNEMONIC_CLWB:
    case ZYDIS_MNEMONIC_CLDEMOTE: return true;
    default:
        return instruction.meta.category == ZYDIS_CATEGORY_PREFETCH ||
               instruction.meta.category == ZYDIS_CATEGORY_PREFETCHWT1;
    }
}

// The xsave family's size depends on the features enabled, which the operand does not say.
bool stateSizedSave(ZydisMnemonic mnemonic) {
    return mnemonic >= ZYDIS_MNEMONIC_XRSTOR && mnemonic <= ZYDIS_MNEMONIC_XSAVES64;
}

// Bit of a general register (any width) in the order of Registers::m_general; 0 for others.
uint16_t generalBit(ZydisRegister reg) {
    const ZydisRegister full = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, reg);
    if (full < ZYDIS_REGISTER_RAX || full > ZYDIS_REGISTER_R15) return 0;
    return static_cast<uint16_t>(1u << (full - ZYDIS_REGISTER_RAX));
}

// The x86 condition code of a jcc, or -1 (jrcxz and the mask jumps test no flags).
int conditionOf(ZydisMnemonic mnemonic) {
    switch (mnemonic) {
    case ZYDIS_MNEMONIC_JO: return 0;
    case ZYDIS_MNEMONIC_JNO: return 1;
    case ZYDIS_MNEMONIC_JB: return 2;
    case ZYDIS_MNEMONIC_JNB: return 3;
    case ZYDIS_MNEMONIC_JZ: return 4;
    case ZYDIS_MNEMONIC_JNZ: return 5;
    case ZYDIS_MNEMONIC_JBE: return 6;
    case ZYDIS_MNEMONIC_JNBE: return 7;
    case ZYDIS_MNEMONIC_JS: return 8;
    case ZYDIS_MNEMONIC_JNS: return 9;
    case ZYDIS_MNEMONIC_JP: return 10;
    case ZYDIS_MNEMONIC_JNP: return 11;
    case ZYDIS_MNEMONIC_JL: return 12;
    case ZYDIS_MNEMONIC_JNL: return 13;
    case ZYDIS_MNEMONIC_JLE: return 14;
    case ZYDIS_MNEMONIC_JNLE: return 15;
    default: return -1;
    }
}

// Where a change of flow goes, when its destination is fixed in its bytes.
void noteBranch(const ZydisDecodedInstruction& instruction, const ZydisDecodedOperand* operands, uint64_t ip,
                DecodedInstruction& result) {
    result.m_branch = Branch::Unknown;
    const bool direct = instruction.operand_count_visible == 1 && operands[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
                        operands[0].imm.is_relative;
    uint64_t target = 0;
    if (!direct || ZYAN_FAILED(ZydisCalcAbsoluteAddress(&instruction, &operands[0], ip, &target))) return;
    const int condition = conditionOf(instruction.mnemonic);
    if (instruction.mnemonic == ZYDIS_MNEMONIC_JMP) {
        result.m_branch = Branch::Always;
    } else if (condition >= 0) {
        result.m_branch = Branch::IfFlags;
        result.m_condition = static_cast<uint8_t>(condition);
    } else {
        return;
    }
    result.m_target = target;
}

bool changesFlow(const ZydisDecodedInstruction& instruction, const ZydisDecodedOperand* operands) {
    switch (instruction.meta.category) {
    case ZYDIS_CATEGORY_COND_BR:
    case ZYDIS_CATEGORY_UNCOND_BR:
    case ZYDIS_CATEGORY_CALL:
    case ZYDIS_CATEGORY_RET:
    case ZYDIS_CATEGORY_SYSCALL:
    case ZYDIS_CATEGORY_SYSRET:
    case ZYDIS_CATEGORY_INTERRUPT:
    case ZYDIS_CATEGORY_SYSTEM: return true;
    default: break;
    }
    if (instruction.mnemonic == ZYDIS_MNEMONIC_UD0 || instruction.mnemonic == ZYDIS_MNEMONIC_UD1 ||
        instruction.mnemonic == ZYDIS_MNEMONIC_UD2)
        return true;
    for (uint8_t i = 0; i < instruction.operand_count; ++i)
        if (operands[i].type == ZYDIS_OPERAND_TYPE_REGISTER && operands[i].reg.value == ZYDIS_REGISTER_RIP &&
            (operands[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
            return true;
    return false;
}

// The registers an instruction writes and those its memory accesses depend on.
void noteRegisters(const ZydisDecodedInstruction& instruction, const ZydisDecodedOperand* operands,
                   DecodedInstruction& result) {
    for (uint8_t i = 0; i < instruction.operand_count; ++i) {
        const ZydisDecodedOperand& operand = operands[i];
        if (operand.type == ZYDIS_OPERAND_TYPE_REGISTER && (operand.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
            result.m_writes |= generalBit(operand.reg.value);
        if (operand.type == ZYDIS_OPERAND_TYPE_MEMORY)
            result.m_addressRegisters |= generalBit(operand.mem.base) | generalBit(operand.mem.index);
    }
    if (instruction.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE))
        result.m_addressRegisters |= generalBit(ZYDIS_REGISTER_RCX);
    result.m_systemCall = instruction.meta.category == ZYDIS_CATEGORY_SYSCALL ||
                          instruction.meta.category == ZYDIS_CATEGORY_INTERRUPT;
    if (const ZydisAccessedFlags* flags = instruction.cpu_flags)
        result.m_writesFlags = (flags->modified | flags->set_0 | flags->set_1 | flags->undefined) != 0;
    if (changesFlow(instruction, operands)) noteBranch(instruction, operands, result.m_ip, result);
}

format::AccessKind kindOf(ZydisOperandActions actions) {
    const bool read = actions & ZYDIS_OPERAND_ACTION_MASK_READ;
    const bool write = actions & ZYDIS_OPERAND_ACTION_MASK_WRITE;
    if (read && write) return format::AccessKind::ReadWrite;
    return write ? format::AccessKind::Write : format::AccessKind::Read;
}

}  // namespace

DecodedInstruction decodeAccesses(const uint8_t* code, size_t available, const Registers& registers) {
    DecodedInstruction result;
    ZydisDecoder decoder;
    if (ZYAN_FAILED(ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64))) return result;
    ZydisDecodedInstruction instruction;
    ZydisDecodedOperand operands[ZYDIS_MAX_OPERAND_COUNT];
    const ZyanStatus status = ZydisDecoderDecodeFull(&decoder, code, available, &instruction, operands);
    if (status == ZYDIS_STATUS_NO_MORE_DATA) {
        result.m_outcome = DecodeOutcome::NeedBytes;
        return result;
    }
    if (ZYAN_FAILED(status)) return result;
    result.m_length = instruction.length;
    result.m_ip = registers.m_rip;
    result.m_outcome = DecodeOutcome::NoAccess;
    noteRegisters(instruction, operands, result);

    bool memory = false;
    for (uint8_t i = 0; i < instruction.operand_count; ++i)
        if (operands[i].type == ZYDIS_OPERAND_TYPE_MEMORY && operands[i].mem.type != ZYDIS_MEMOP_TYPE_AGEN) memory = true;
    if (!memory || cacheHint(instruction) || repeatsZeroTimes(instruction, registers)) return result;
    if (masked(instruction) || stateSizedSave(instruction.mnemonic) || instruction.meta.category == ZYDIS_CATEGORY_GATHER ||
        instruction.meta.category == ZYDIS_CATEGORY_SCATTER) {
        result.m_outcome = DecodeOutcome::Unsupported;
        return result;
    }

    ZydisRegisterContext context{};  // 2.4 KiB of zeros: registers we do not fill read as 0
    fillContext(registers, context);
    for (uint8_t i = 0; i < instruction.operand_count; ++i) {
        const ZydisDecodedOperand& operand = operands[i];
        if (operand.type != ZYDIS_OPERAND_TYPE_MEMORY || operand.mem.type == ZYDIS_MEMOP_TYPE_AGEN) continue;
        uint64_t address = 0;
        if (operand.mem.type != ZYDIS_MEMOP_TYPE_MEM || operand.size == 0 || operand.size % 8 != 0 ||
            result.m_count == kMaxAccesses ||
            ZYAN_FAILED(ZydisCalcAbsoluteAddressEx(&instruction, &operand, registers.m_rip, &context, &address))) {
            result.m_outcome = DecodeOutcome::Unsupported;
            result.m_count = 0;
            return result;
        }
        // Zydis gives a push's hidden stack operand (push, call, pushf, enter) as [rsp]; the
        // slot written is the one below it.
        if (operand.visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN && operand.mem.base == ZYDIS_REGISTER_RSP &&
            !operand.mem.disp.has_displacement && (operand.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
            address -= operand.size / 8;
        if (operand.mem.segment == ZYDIS_REGISTER_FS) address += registers.m_fsBase;
        if (operand.mem.segment == ZYDIS_REGISTER_GS) address += registers.m_gsBase;
        result.m_accesses[result.m_count++] = {address, static_cast<uint32_t>(operand.size / 8), kindOf(operand.actions)};
    }
    result.m_outcome = DecodeOutcome::Accesses;
    return result;
}

// ucontext's registers in the order of their x86 encoding.
constexpr int kGeneralRegisters[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                                       REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};

Registers registersOf(const ucontext_t& context, uint64_t fsBase, uint64_t gsBase) {
    Registers registers;
    for (int i = 0; i < 16; ++i)
        registers.m_general[i] = static_cast<uint64_t>(context.uc_mcontext.gregs[kGeneralRegisters[i]]);
    registers.m_rip = static_cast<uint64_t>(context.uc_mcontext.gregs[REG_RIP]);
    registers.m_rflags = static_cast<uint64_t>(context.uc_mcontext.gregs[REG_EFL]);
    registers.m_fsBase = fsBase;
    registers.m_gsBase = gsBase;
    return registers;
}

// The instruction at rip is mapped and executable, so readable; the bytes after it may not be:
// read to the end of its page first, and on into the next page only when the instruction
// itself goes on there (which makes that page mapped too).
DecodedInstruction decodeRunningInstruction(const Registers& registers) {
    const auto* code = reinterpret_cast<const uint8_t*>(registers.m_rip);
    constexpr size_t kLongestInstruction = 15, kPage = 4096;
    const size_t toPageEnd = kPage - (registers.m_rip & (kPage - 1));
    DecodedInstruction decoded =
        decodeAccesses(code, toPageEnd < kLongestInstruction ? toPageEnd : kLongestInstruction, registers);
    if (decoded.m_outcome == DecodeOutcome::NeedBytes && toPageEnd < kLongestInstruction)
        decoded = decodeAccesses(code, kLongestInstruction, registers);
    return decoded;
}

bool conditionHolds(uint8_t condition, uint64_t rflags) {
    const bool carry = rflags & 0x1, parity = rflags & 0x4, zero = rflags & 0x40, sign = rflags & 0x80,
               overflow = rflags & 0x800;
    bool holds = false;
    switch (condition >> 1) {  // even codes test a condition, odd ones its negation
    case 0: holds = overflow; break;
    case 1: holds = carry; break;
    case 2: holds = zero; break;
    case 3: holds = carry || zero; break;
    case 4: holds = sign; break;
    case 5: holds = parity; break;
    case 6: holds = sign != overflow; break;
    case 7: holds = zero || sign != overflow; break;
    }
    return (condition & 1) ? !holds : holds;
}

DecodedInstruction decodeAhead(const Registers& registers, uint32_t maxSkipped) {
    Registers at = registers;
    uint16_t written = 0;
    bool flagsWritten = false;
    bool systemCall = false;  // the instruction at registers.m_rip
    for (uint32_t skipped = 0;; ++skipped) {
        DecodedInstruction decoded = decodeRunningInstruction(at);
        if (skipped == 0) systemCall = decoded.m_systemCall;
        if (skipped > 0 && (decoded.m_outcome != DecodeOutcome::NoAccess && decoded.m_outcome != DecodeOutcome::Accesses))
            break;  // whatever comes later is the steps' to find
        if (decoded.m_outcome == DecodeOutcome::Accesses && (decoded.m_addressRegisters & written)) break;
        if (decoded.m_outcome != DecodeOutcome::NoAccess) {
            decoded.m_skipped = static_cast<uint8_t>(skipped);
            return decoded;
        }
        if (skipped == maxSkipped) break;
        if (decoded.m_branch == Branch::Always) {
            at.m_rip = decoded.m_target;
        } else if (decoded.m_branch == Branch::IfFlags && !flagsWritten) {
            at.m_rip = conditionHolds(decoded.m_condition, registers.m_rflags) ? decoded.m_target
                                                                              : at.m_rip + decoded.m_length;
        } else if (decoded.m_branch != Branch::None) {
            break;
        } else {
            at.m_rip += decoded.m_length;
        }
        written |= decoded.m_writes;
        flagsWritten |= decoded.m_writesFlags;
    }
    DecodedInstruction step;
    step.m_outcome = DecodeOutcome::NoAccess;
    step.m_ip = registers.m_rip;
    step.m_systemCall = systemCall;
    return step;
}

}  // namespace memlog::preload
