// Zydis 4 decodes the instruction; its operand list says which operands are memory, what the
// instruction does with each (read, write, both) and how wide it is, and
// ZydisCalcAbsoluteAddressEx evaluates base + index * scale + displacement from the registers.
// What Zydis leaves to us: segment bases (FS, GS), the slot a push writes, rep instructions that
// will not run, and refusing what cannot be computed exactly.
#include "instruction_access.hpp"

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
    result.m_outcome = DecodeOutcome::NoAccess;

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

}  // namespace memlog::preload
