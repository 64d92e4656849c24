// The module map of a program beside its C++ runtime and the loader, none of them on this machine
// (naming them warns, once a module): the logs of the naming's tests
// (test_sites_beside_suppressions.cpp, test_opened_log.cpp), whose runtime stacks under the loader
// a built-in suppression matches.
#pragma once

#include "log_builder.hpp"

namespace memlog::test {

// app at 0x30000, libstdc++.so.6 at 0x50000, ld-linux-x86-64.so.2 at 0x70000: 64 KiB each.
inline void addRuntimeModules(LogBuilder::Thread& thread) {
    thread.module("/nonexistent/app", 0x30000, 0x30000, 0x40000)
        .module("/nonexistent/libstdc++.so.6", 0x50000, 0x50000, 0x60000)
        .module("/nonexistent/ld-linux-x86-64.so.2", 0x70000, 0x70000, 0x80000);
}

}  // namespace memlog::test
