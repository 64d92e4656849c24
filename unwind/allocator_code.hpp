// The C library's allocator code by address: where glibc's malloc family and its internal helpers
// (malloc_consolidate, _int_malloc, _int_free, ...) were loaded in a recorded process, from the
// library's symbol tables. An access sample whose instruction lies there is the allocator at work
// on its own metadata, however the program reached it (a hook, or the C library calling itself).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "unwind/symbolizer.hpp"

namespace memlog::unwind {

struct CodeRange {
    uint64_t m_lo = 0;  // the first byte
    uint64_t m_hi = 0;  // one past the last
};

// Whether a module's name (its basename) is a C library whose allocator allocatorCode() knows.
bool isCLibrary(const std::string& moduleName);

// Whether a function's symbol is one of glibc's allocator functions: the malloc family's entry
// points and the static functions of malloc/malloc.c and malloc/arena.c, with the suffixes the
// compiler adds to the pieces it splits off (".part.0", ".constprop.0", ".cold").
bool isAllocatorFunction(const std::string& symbol);

// The ranges of the allocator functions of `module` as it was loaded (its recorded bias), sorted
// and merged: from the symbol table of its separate debug file when there is one (the static
// helpers), else its dynamic symbols (the exported entry points alone). Empty when the file is
// unreadable or its build id is not the recorded one (its addresses would be another build's).
// Reads only symbol tables, never DWARF: a few milliseconds for glibc's.
std::vector<CodeRange> allocatorCode(const LoadedModule& module);

}  // namespace memlog::unwind
