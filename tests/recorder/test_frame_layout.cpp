// Frame layouts read from .eh_frame: hand-written CFI at known addresses gives known rows, and
// whatever the fast unwinder does not model is Unusual (so that the recorder takes a full walk).
#include <catch2/catch.hpp>

#include <cstdint>

#include "unwind/frame_layout.hpp"

using memlog::unwind::FrameLayout;
using memlog::unwind::learnFrameLayout;
using Kind = FrameLayout::Kind;

// A function with a frame pointer, labelled at each CFI row, and three with rows the unwinder
// leaves to libunwind: a CFA expression (stack realignment), a signal frame, the outermost frame.
extern "C" char layout_push[], layout_pushed[], layout_framed[], layout_left[];
extern "C" char layout_expression[], layout_signal[], layout_outermost[];
asm(R"(.text
.globl layout_push, layout_pushed, layout_framed, layout_left
layout_push:
.cfi_startproc
  push %rbp
layout_pushed:
.cfi_def_cfa_offset 16
.cfi_offset rbp, -16
  mov %rsp, %rbp
layout_framed:
.cfi_def_cfa_register rbp
  sub $32, %rsp
  nop
  leave
layout_left:
.cfi_def_cfa rsp, 8
  ret
.cfi_endproc

.globl layout_expression
layout_expression:
.cfi_startproc
  nop
  .cfi_escape 0x0f, 0x03, 0x76, 0x78, 0x06
  nop
  ret
.cfi_endproc

.globl layout_signal
layout_signal:
.cfi_startproc
.cfi_signal_frame
  nop
  ret
.cfi_endproc

.globl layout_outermost
layout_outermost:
.cfi_startproc
.cfi_undefined rip
  nop
  ret
.cfi_endproc
)");

namespace {
uintptr_t at(const char* label, int offset = 0) { return reinterpret_cast<uintptr_t>(label) + offset; }
}  // namespace

TEST_CASE("a frame-pointer prologue gives its CFA rule and rbp's slot row by row") {
    const FrameLayout entry = learnFrameLayout(at(layout_push));
    REQUIRE(entry.m_kind == Kind::Standard);
    CHECK_FALSE(entry.m_cfaFromRbp);
    CHECK(entry.m_cfaOffset == 8);
    CHECK(entry.m_rbpOffset == FrameLayout::kRbpNotSaved);

    const FrameLayout pushed = learnFrameLayout(at(layout_pushed));
    REQUIRE(pushed.m_kind == Kind::Standard);
    CHECK_FALSE(pushed.m_cfaFromRbp);
    CHECK(pushed.m_cfaOffset == 16);
    CHECK(pushed.m_rbpOffset == -16);

    for (const uintptr_t pc : {at(layout_framed), at(layout_framed, 4), at(layout_left, -1)}) {
        const FrameLayout framed = learnFrameLayout(pc);
        REQUIRE(framed.m_kind == Kind::Standard);
        CHECK(framed.m_cfaFromRbp);
        CHECK(framed.m_cfaOffset == 16);
        CHECK(framed.m_rbpOffset == -16);
    }
    const FrameLayout left = learnFrameLayout(at(layout_left));
    CHECK_FALSE(left.m_cfaFromRbp);
    CHECK(left.m_cfaOffset == 8);
}

TEST_CASE("an expression CFA and a signal frame are Unusual, an undefined return address ends the stack") {
    CHECK(learnFrameLayout(at(layout_expression)).m_kind == Kind::Standard);  // before the expression
    CHECK(learnFrameLayout(at(layout_expression, 1)).m_kind == Kind::Unusual);
    CHECK(learnFrameLayout(at(layout_signal)).m_kind == Kind::Unusual);
    CHECK(learnFrameLayout(at(layout_outermost)).m_kind == Kind::End);
}

TEST_CASE("code without call frame information is Unusual") {
    static const unsigned char data[16] = {0xc3};
    CHECK(learnFrameLayout(reinterpret_cast<uintptr_t>(data)).m_kind == Kind::Unusual);
    CHECK(learnFrameLayout(0x10).m_kind == Kind::Unusual);
}
