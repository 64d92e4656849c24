// The module map in the log: every loaded object with its address range and build id, so that
// stacks can be symbolised after the program is gone.
#pragma once

#include <cstdint>

#include "record/thread_state.hpp"

namespace memlog::preload {

void setMainExecutablePath(const char* path);

// Writes a ModuleMap mark and one Module record per loaded object into the thread's chunk.
void writeModuleMap(ThreadState& thread, uint64_t seq, uint64_t tsc);

// True when objects were loaded or unloaded since the last writeModuleMap. About 100 ns (one
// dl_iterate_phdr that stops at the first object), so it is asked only when a new stack appears:
// code from a newly loaded object always brings new stacks.
bool modulesChanged();

// How many objects the process has loaded so far (dl_iterate_phdr's counter, never lowered).
unsigned long long objectsLoaded();

// The next modulesChanged() answers true (a fork child's new log needs its own module map).
void forgetModuleMap();

// The address range of the object that contains `address` (the recorder's own code).
void findModuleRange(const void* address, uintptr_t* lo, uintptr_t* hi);

}  // namespace memlog::preload
