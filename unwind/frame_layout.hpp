// How to step from a frame to its caller at one code address, read from the binary's own call
// frame information (.eh_frame, found through .eh_frame_hdr): the incremental unwinder learns a
// layout once per return address and then steps with two loads. Only the rules that
// unw_backtrace's fast path also models are accepted; anything else is Unusual and the caller
// falls back to a full unw_backtrace.
#pragma once

#include <cstdint>

namespace memlog::unwind {

struct FrameLayout {
    enum class Kind : uint8_t {
        Unknown = 0,  // not learnt yet (an empty cache slot)
        Standard = 1,  // CFA = rsp or rbp + m_cfaOffset; return address at CFA - 8
        End = 2,  // the return address is undefined: the outermost frame (_start, clone)
        Unusual = 3,  // a signal frame, an expression, no CFI at all: take the full walk
    };
    static constexpr int32_t kRbpNotSaved = INT32_MIN;

    Kind m_kind = Kind::Unknown;
    bool m_cfaFromRbp = false;
    int32_t m_cfaOffset = 0;
    int32_t m_rbpOffset = kRbpNotSaved;  // the caller's rbp at CFA + this, or kept in the register
};
static_assert(sizeof(FrameLayout) == 12);

// The layout at `pc` (an instruction's address: a return address minus one for callers). Takes
// the loader's lock (dl_iterate_phdr) and allocates nothing: call once per address and cache.
FrameLayout learnFrameLayout(uintptr_t pc);

// The same from an .eh_frame_hdr section already found: for tests on hand-written CFI.
FrameLayout layoutFromEhFrameHeader(const uint8_t* header, uintptr_t pc);

}  // namespace memlog::unwind
