// Stack capture backends. Both only read the current thread's stack and code.
#include "capture.hpp"

namespace memlog::unwind {

[[gnu::noinline]] uint32_t walkFramePointers(uint64_t* frames, uint32_t maxDepth, const CodeRange& skip) {
    const auto frame = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
    return walkFrameChain(frame, frame, stackTop(frame), frames, maxDepth, skip);
}

uint32_t walkFrameChain(uintptr_t frame, uintptr_t low, uintptr_t high, uint64_t* frames, uint32_t maxDepth,
                        const CodeRange& skip) {
    uint32_t depth = 0;
    bool ours = true;
    // Code built without frame pointers may keep anything in rbp (-8, say): every frame must lie
    // inside [low, high) with its two slots, compared without overflow, before it is read.
    while (depth < maxDepth && frame >= low && frame < high && high - frame >= 16 && (frame & 7) == 0) {
        const auto* slots = reinterpret_cast<const uintptr_t*>(frame);
        const uintptr_t next = slots[0];
        const uintptr_t returnAddress = slots[1];
        if (returnAddress == 0) break;
        if (!(ours && skip.contains(returnAddress))) {
            ours = false;
            frames[depth++] = returnAddress;
        }
        if (next <= frame) break;  // the chain must climb; anything else is not a frame pointer
        frame = next;
    }
    return depth;
}

uint32_t keepCallerFrames(void** raw, int got, uint64_t* frames, uint32_t maxDepth, const CodeRange& skip) {
    int first = 0;
    while (first < got && skip.contains(reinterpret_cast<uintptr_t>(raw[first]))) ++first;
    uint32_t depth = 0;
    for (int i = first; i < got && depth < maxDepth; ++i) frames[depth++] = reinterpret_cast<uintptr_t>(raw[i]);
    return depth;
}

const void* libraryAddress() { return reinterpret_cast<const void*>(&unw_backtrace); }

void prepare(Method method) {
    if (method == Method::Libunwind) unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
}

}  // namespace memlog::unwind
