// Captures the calling thread's return addresses inside an allocation hook: fast, no allocation
// through the hooked allocator, no locks of our own. Symbolisation happens later, offline.
#pragma once

#include <cstdint>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

extern "C" void* __libc_stack_end;  // glibc: top of the main thread's stack at start-up

namespace memlog::unwind {

enum class Method : uint32_t { None = 0, FramePointer = 1, Libunwind = 2 };

// Frames whose return address lies in [m_lo, m_hi) at the top of the stack are the recorder's
// own and are dropped.
struct CodeRange {
    uintptr_t m_lo = 0;
    uintptr_t m_hi = 0;
    bool contains(uintptr_t address) const { return address >= m_lo && address < m_hi; }
};

// Call once, before the first capture (sets libunwind's per-thread cache policy).
void prepare(Method method);

// An address inside the unwinding library, to tell its own calls (mmap, munmap) apart.
const void* libraryAddress();

uint32_t walkFramePointers(uint64_t* frames, uint32_t maxDepth, const CodeRange& skip);

// The rbp chain from `frame`, reading only [low, high): the walk behind walkFramePointers, and
// the tick sampler's from an interrupted thread's registers.
uint32_t walkFrameChain(uintptr_t frame, uintptr_t low, uintptr_t high, uint64_t* frames, uint32_t maxDepth,
                        const CodeRange& skip);

// The highest address of the stack that holds `low` (a stack pointer of the calling thread):
// the thread's TCB for threads glibc made, __libc_stack_end for the main thread, else `low`.
// glibc places a thread's TCB (what %fs:0 points at) just above the stack it allocated for it,
// and the main thread's frames lie below __libc_stack_end. Anything else (a coroutine or signal
// stack) gets no bound, and a walk reads nothing beyond its first frame. Inline: every frame-
// pointer walk asks it.
inline uintptr_t stackTop(uintptr_t low) {
    uintptr_t threadPointer;
    asm("mov %%fs:0, %0" : "=r"(threadPointer));
    constexpr uintptr_t kMaxStack = uintptr_t(1) << 30;
    if (threadPointer > low && threadPointer - low < kMaxStack) [[likely]]
        return threadPointer;
    const auto mainTop = reinterpret_cast<uintptr_t>(__libc_stack_end);
    if (mainTop > low && mainTop - low < kMaxStack) return mainTop;
    return low;
}
uint32_t keepCallerFrames(void** raw, int got, uint64_t* frames, uint32_t maxDepth, const CodeRange& skip);

// Writes up to maxDepth return addresses, innermost first, and returns how many.
//  - FramePointer walks the rbp chain within the current thread's stack: about 1 ns a frame,
//    but it stops early at code built without frame pointers.
//  - Libunwind uses unw_backtrace (DWARF CFI with a per-thread cache): about 12 ns a frame.
// Inline so that libunwind starts from the caller's frame: every frame of the recorder's own
// that it walks through costs as much as a frame of the program.
[[gnu::always_inline]] inline uint32_t capture(Method method, uint64_t* frames, uint32_t maxDepth,
                                               const CodeRange& skip) {
    if (method == Method::FramePointer) return walkFramePointers(frames, maxDepth, skip);
    if (method != Method::Libunwind) return 0;
    constexpr int kSlack = 8;  // room for the recorder's own frames, dropped by keepCallerFrames
    void* raw[256 + kSlack];
    const int got = unw_backtrace(raw, static_cast<int>(maxDepth) + kSlack);
    return keepCallerFrames(raw, got, frames, maxDepth, skip);
}

}  // namespace memlog::unwind
