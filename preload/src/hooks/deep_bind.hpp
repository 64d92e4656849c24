// Libraries loaded with RTLD_DEEPBIND look their symbols up in their own dependencies first, so
// their calls to malloc, free and the rest go to the C library directly, past LD_PRELOAD.
// After such a load the recorder points those calls back at its hooks (docs/recorder.md).
#pragma once

namespace memlog::preload {

// Loads as dlopen(name, mode), or dlmopen(LM_ID_BASE, name, mode) when `baseNamespace`, then
// rebinds the objects the call loaded. The recorder is glibc's "caller" here: only for names
// that glibc resolves the same way whoever calls (see dlopen.cpp).
void* openDeepBound(const char* name, int mode, bool baseNamespace);

}  // namespace memlog::preload
