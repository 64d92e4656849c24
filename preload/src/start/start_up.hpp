// Bringing the recorder up, once per process image: on the first call into it from any thread,
// or from the library's constructor if that comes first. The real functions are resolved, the
// settings read, the stacks, the counter and the sampler prepared, and the log opened; the
// library's destructor ends the log cleanly.
#pragma once

#include <atomic>

#include "start/settings.hpp"

namespace memlog::preload {

enum class Phase : int { Cold = 0, Resolving = 1, Ready = 2 };
extern std::atomic<int> g_phase;

// Brings the recorder up on the first call from any thread; returns once real functions are
// known. Only the thread that is resolving them gets false (it must use the bootstrap pool).
bool ensureReady();
inline bool isReady() { return g_phase.load(std::memory_order_acquire) == static_cast<int>(Phase::Ready); }

// The settings, read from the environment at start-up; read-only afterwards.
extern Settings g_settings;

}  // namespace memlog::preload
