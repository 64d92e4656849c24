// Reads one row of a function's call frame information: finds the FDE for an address through the
// module's .eh_frame_hdr search table and runs the CIE's and the FDE's instructions up to it,
// tracking only the CFA, rbp and the return address. The subset is the one compilers emit for
// ordinary x86-64 code; every other instruction that touches those three makes the row Unusual.
#include "frame_layout.hpp"

#include <link.h>

#include <cstring>

namespace memlog::unwind {
namespace {

constexpr uint8_t kOmit = 0xff;
constexpr int kRsp = 7, kRbp = 6;

// A bounded reader over CFI bytes: a malformed table ends as Unusual, never as a wild read.
struct Cursor {
    const uint8_t* m_at;
    const uint8_t* m_end;
    bool m_bad = false;

    bool need(uintptr_t bytes) {
        if (m_bad || uintptr_t(m_end - m_at) < bytes) m_bad = true;
        return !m_bad;
    }
    uint8_t byte() { return need(1) ? *m_at++ : 0; }
    template <typename T>
    T fixed() {
        T value{};
        if (need(sizeof(T))) std::memcpy(&value, m_at, sizeof(T)), m_at += sizeof(T);
        return value;
    }
    uint64_t uleb() {
        uint64_t value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            const uint8_t b = byte();
            value |= uint64_t(b & 0x7f) << shift;
            if (!(b & 0x80)) return value;
        }
        m_bad = true;
        return 0;
    }
    int64_t sleb() {
        uint64_t value = 0;
        int shift = 0;
        uint8_t b;
        do {
            b = byte();
            if (shift < 64) value |= uint64_t(b & 0x7f) << shift;
            shift += 7;
        } while ((b & 0x80) && !m_bad);
        if (shift < 64 && (b & 0x40)) value |= ~uint64_t(0) << shift;
        return int64_t(value);
    }
    // A DW_EH_PE_* encoded pointer; `dataBase` for datarel. Indirect pointers are not followed
    // (only personality routines use them, and they are skipped).
    uint64_t pointer(uint8_t encoding, uintptr_t dataBase = 0) {
        const auto here = reinterpret_cast<uintptr_t>(m_at);
        uint64_t value;
        switch (encoding & 0x0f) {
            case 0x00:
                value = fixed<uint64_t>();
                break;
            case 0x01:
                value = uleb();
                break;
            case 0x02:
                value = fixed<uint16_t>();
                break;
            case 0x03:
                value = fixed<uint32_t>();
                break;
            case 0x04:
                value = fixed<uint64_t>();
                break;
            case 0x09:
                value = uint64_t(sleb());
                break;
            case 0x0a:
                value = uint64_t(int64_t(fixed<int16_t>()));
                break;
            case 0x0b:
                value = uint64_t(int64_t(fixed<int32_t>()));
                break;
            case 0x0c:
                value = fixed<uint64_t>();
                break;
            default:
                m_bad = true;
                return 0;
        }
        switch (encoding & 0x70) {
            case 0x00:
                break;
            case 0x10:
                value += here;
                break;
            case 0x30:
                value += dataBase;
                break;
            default:
                m_bad = true;
                return 0;
        }
        return value;
    }
};

// A register's rule as far as the layout cares.
enum class Rule : uint8_t { Same, Undefined, Offset, Other };
struct RegisterRule {
    Rule m_rule = Rule::Same;
    int64_t m_offset = 0;
};
struct Row {
    int m_cfaRegister = kRsp;
    int64_t m_cfaOffset = 8;
    bool m_cfaOther = false;  // an expression or a register we do not track
    RegisterRule m_rbp, m_returnAddress, m_rsp;
};

struct Cie {
    uint64_t m_codeAlign = 1;
    int64_t m_dataAlign = -8;
    uint64_t m_returnRegister = 16;
    uint8_t m_fdeEncoding = 0;
    bool m_augmented = false;  // 'z': FDEs carry an augmentation length
    bool m_signalFrame = false;
    const uint8_t* m_instructions = nullptr;
    const uint8_t* m_end = nullptr;
};

bool readCie(const uint8_t* at, Cie& cie) {
    Cursor in{at, at + 4};
    uint64_t length = in.fixed<uint32_t>();
    if (in.m_bad || length == 0 || length == 0xffffffff) return false;
    in.m_end = in.m_at + length;
    if (in.fixed<uint32_t>() != 0) return false;  // not a CIE
    const uint8_t version = in.byte();
    if (version != 1 && version != 3) return false;
    const char* augmentation = reinterpret_cast<const char*>(in.m_at);
    while (in.byte() != 0 && !in.m_bad) {
    }
    cie.m_codeAlign = in.uleb();
    cie.m_dataAlign = in.sleb();
    cie.m_returnRegister = version == 1 ? in.byte() : in.uleb();
    if (augmentation[0] == 'z') {
        cie.m_augmented = true;
        const uint64_t dataBytes = in.uleb();
        const uint8_t* dataEnd = in.m_at + dataBytes;
        for (const char* a = augmentation + 1; *a && !in.m_bad; ++a) {
            if (*a == 'R')
                cie.m_fdeEncoding = in.byte();
            else if (*a == 'L')
                in.byte();
            else if (*a == 'P')
                in.pointer(uint8_t(in.byte() & 0x7f));  // skipped, never followed
            else if (*a == 'S')
                cie.m_signalFrame = true;
            else if (*a == 'B' || *a == 'G') {
            } else
                return false;
        }
        if (in.m_bad || dataEnd > in.m_end) return false;
        in.m_at = dataEnd;
    } else if (augmentation[0] != '\0') {
        return false;  // "eh" and other old forms
    }
    cie.m_instructions = in.m_at;
    cie.m_end = in.m_end;
    return !in.m_bad;
}

RegisterRule* ruleFor(Row& row, uint64_t reg, uint64_t returnRegister) {
    if (reg == returnRegister) return &row.m_returnAddress;
    if (reg == kRbp) return &row.m_rbp;
    if (reg == kRsp) return &row.m_rsp;
    return nullptr;
}

// Runs CFA instructions until the row that covers `target`. `initial` is the CIE's row, for
// DW_CFA_restore; null while running the CIE itself. False on anything outside the subset.
bool run(Cursor in, const Cie& cie, Row& row, const Row* initial, uintptr_t location, uintptr_t target) {
    constexpr int kStates = 8;
    Row saved[kStates];
    int depth = 0;
    auto advance = [&](uint64_t delta) {
        location += delta * cie.m_codeAlign;
        return location <= target;
    };
    auto setOffset = [&](uint64_t reg, int64_t offset) {
        if (RegisterRule* rule = ruleFor(row, reg, cie.m_returnRegister)) *rule = {Rule::Offset, offset};
    };
    auto setOther = [&](uint64_t reg, Rule kind) {
        if (RegisterRule* rule = ruleFor(row, reg, cie.m_returnRegister)) *rule = {kind, 0};
    };
    while (in.m_at < in.m_end && !in.m_bad) {
        const uint8_t op = in.byte();
        const uint8_t low = op & 0x3f;
        switch (op >> 6) {
            case 1:
                if (!advance(low)) return true;
                continue;
            case 2:
                setOffset(low, int64_t(in.uleb()) * cie.m_dataAlign);
                continue;
            case 3:
                if (!initial) return false;
                if (RegisterRule* rule = ruleFor(row, low, cie.m_returnRegister))
                    *rule = *ruleFor(const_cast<Row&>(*initial), low, cie.m_returnRegister);
                continue;
            default:
                break;
        }
        switch (op) {
            case 0x00:
                break;  // nop
            case 0x01: {  // set_loc
                const uint64_t to = in.pointer(cie.m_fdeEncoding);
                if (to > target) return true;
                location = to;
                break;
            }
            case 0x02:
                if (!advance(in.byte())) return true;
                break;
            case 0x03:
                if (!advance(in.fixed<uint16_t>())) return true;
                break;
            case 0x04:
                if (!advance(in.fixed<uint32_t>())) return true;
                break;
            case 0x05: {
                const uint64_t reg = in.uleb();
                setOffset(reg, int64_t(in.uleb()) * cie.m_dataAlign);
                break;
            }
            case 0x06: {  // restore_extended
                const uint64_t reg = in.uleb();
                if (!initial) return false;
                if (RegisterRule* rule = ruleFor(row, reg, cie.m_returnRegister))
                    *rule = *ruleFor(const_cast<Row&>(*initial), reg, cie.m_returnRegister);
                break;
            }
            case 0x07:
                setOther(in.uleb(), Rule::Undefined);
                break;
            case 0x08:
                setOther(in.uleb(), Rule::Same);
                break;
            case 0x09: {
                const uint64_t reg = in.uleb();
                in.uleb();
                setOther(reg, Rule::Other);
                break;
            }
            case 0x0a:
                if (depth == kStates) return false;
                saved[depth++] = row;
                break;
            case 0x0b:
                if (depth == 0) return false;
                row = saved[--depth];
                break;
            case 0x0c:
                row.m_cfaRegister = int(in.uleb());
                row.m_cfaOffset = int64_t(in.uleb());
                row.m_cfaOther = false;
                break;
            case 0x0d:
                row.m_cfaRegister = int(in.uleb());
                row.m_cfaOther = false;
                break;
            case 0x0e:
                row.m_cfaOffset = int64_t(in.uleb());
                break;
            case 0x0f: {
                const uint64_t bytes = in.uleb();
                in.need(bytes);
                in.m_at += bytes;
                row.m_cfaOther = true;
                break;
            }
            case 0x10:  // expression
            case 0x16: {  // val_expression
                const uint64_t reg = in.uleb();
                const uint64_t bytes = in.uleb();
                if (!in.need(bytes)) return false;
                in.m_at += bytes;
                setOther(reg, Rule::Other);
                break;
            }
            case 0x11: {
                const uint64_t reg = in.uleb();
                setOffset(reg, in.sleb() * cie.m_dataAlign);
                break;
            }
            case 0x12:
                row.m_cfaRegister = int(in.uleb());
                row.m_cfaOffset = in.sleb() * cie.m_dataAlign;
                row.m_cfaOther = false;
                break;
            case 0x13:
                row.m_cfaOffset = in.sleb() * cie.m_dataAlign;
                break;
            case 0x14:
            case 0x15: {
                const uint64_t reg = in.uleb();
                op == 0x14 ? (void)in.uleb() : (void)in.sleb();
                setOther(reg, Rule::Other);
                break;
            }
            case 0x2e:
                in.uleb();
                break;  // GNU_args_size
            case 0x2f: {
                const uint64_t reg = in.uleb();
                setOffset(reg, -int64_t(in.uleb()) * cie.m_dataAlign);
                break;
            }
            default:
                return false;
        }
    }
    return !in.m_bad;
}

FrameLayout unusual() { return {FrameLayout::Kind::Unusual, false, 0, FrameLayout::kRbpNotSaved}; }

FrameLayout layoutFromFde(const uint8_t* fde, uintptr_t pc) {
    Cursor in{fde, fde + 8};
    const uint64_t length = in.fixed<uint32_t>();
    if (in.m_bad || length == 0 || length == 0xffffffff) return unusual();
    in.m_end = in.m_at + length;
    const uint8_t* cieField = in.m_at;
    const uint32_t ciePointer = in.fixed<uint32_t>();
    if (in.m_bad || ciePointer == 0) return unusual();
    Cie cie;
    if (!readCie(cieField - ciePointer, cie) || cie.m_signalFrame) return unusual();
    const uint64_t begin = in.pointer(cie.m_fdeEncoding);
    const uint64_t range = in.pointer(cie.m_fdeEncoding & 0x0f);
    if (in.m_bad || pc < begin || pc - begin >= range) return unusual();  // no FDE covers pc
    if (cie.m_augmented) {
        const uint64_t bytes = in.uleb();
        if (!in.need(bytes)) return unusual();
        in.m_at += bytes;
    }
    Row row;
    row.m_returnAddress = {Rule::Same, 0};
    if (!run(Cursor{cie.m_instructions, cie.m_end}, cie, row, nullptr, begin, ~uintptr_t(0))) return unusual();
    const Row initial = row;
    if (!run(in, cie, row, &initial, begin, pc)) return unusual();

    if (row.m_returnAddress.m_rule == Rule::Undefined)
        return {FrameLayout::Kind::End, false, 0, FrameLayout::kRbpNotSaved};
    // What unw_backtrace's fast path models: the CFA from rsp or rbp, the return address just
    // below it, rsp = CFA, rbp saved in the frame or kept.
    const bool plain = !row.m_cfaOther && (row.m_cfaRegister == kRsp || row.m_cfaRegister == kRbp) &&
                       row.m_returnAddress.m_rule == Rule::Offset && row.m_returnAddress.m_offset == -8 &&
                       row.m_rsp.m_rule == Rule::Same &&
                       (row.m_rbp.m_rule == Rule::Same || row.m_rbp.m_rule == Rule::Offset) &&
                       row.m_cfaOffset > -(int64_t(1) << 30) && row.m_cfaOffset < (int64_t(1) << 30) &&
                       row.m_rbp.m_offset > -(int64_t(1) << 30) && row.m_rbp.m_offset < (int64_t(1) << 30);
    if (!plain) return unusual();
    FrameLayout layout;
    layout.m_kind = FrameLayout::Kind::Standard;
    layout.m_cfaFromRbp = row.m_cfaRegister == kRbp;
    layout.m_cfaOffset = int32_t(row.m_cfaOffset);
    layout.m_rbpOffset = row.m_rbp.m_rule == Rule::Offset ? int32_t(row.m_rbp.m_offset) : FrameLayout::kRbpNotSaved;
    return layout;
}

struct Search {
    uintptr_t m_pc;
    const uint8_t* m_header = nullptr;
};

int findModule(dl_phdr_info* info, size_t, void* data) {
    auto* search = static_cast<Search*>(data);
    const ElfW(Phdr)* ehFrame = nullptr;
    bool covers = false;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& segment = info->dlpi_phdr[i];
        if (segment.p_type == PT_LOAD) {
            const uintptr_t start = info->dlpi_addr + segment.p_vaddr;
            if (search->m_pc >= start && search->m_pc - start < segment.p_memsz) covers = true;
        } else if (segment.p_type == PT_GNU_EH_FRAME) {
            ehFrame = &segment;
        }
    }
    if (!covers) return 0;
    if (ehFrame) search->m_header = reinterpret_cast<const uint8_t*>(info->dlpi_addr + ehFrame->p_vaddr);
    return 1;
}

}  // namespace

FrameLayout layoutFromEhFrameHeader(const uint8_t* header, uintptr_t pc) {
    // version 1; the table sorted by initial location, both fields datarel sdata4 from the header.
    if (header[0] != 1 || header[1] == kOmit || header[2] != 0x03 || header[3] != 0x3b) return unusual();
    Cursor in{header + 4, header + 4 + 16};
    in.pointer(header[1], reinterpret_cast<uintptr_t>(header));
    const uint32_t count = in.fixed<uint32_t>();
    const auto* table = reinterpret_cast<const int32_t*>(in.m_at);
    if (in.m_bad || count == 0) return unusual();
    const auto base = reinterpret_cast<intptr_t>(header);
    uint32_t lo = 0, hi = count;  // the last entry whose start is <= pc
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (uintptr_t(base + table[2 * mid]) <= pc)
            lo = mid;
        else
            hi = mid;
    }
    if (uintptr_t(base + table[2 * lo]) > pc) return unusual();
    return layoutFromFde(reinterpret_cast<const uint8_t*>(base + table[2 * lo + 1]), pc);
}

FrameLayout learnFrameLayout(uintptr_t pc) {
    Search search{pc};
    dl_iterate_phdr(findModule, &search);
    if (!search.m_header) return unusual();
    return layoutFromEhFrameHeader(search.m_header, pc);
}

}  // namespace memlog::unwind
