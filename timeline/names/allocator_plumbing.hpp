// The allocator-plumbing rule: which frames of a stack are the allocator's own machinery (the C
// library, libstdc++, the C++ library's templates compiled into the program, and the recorder's
// frames) rather than the code a user would point at. The allocation site of a block is its
// innermost frame that is not.
#pragma once

#include <string>

#include "unwind/symbolizer.hpp"

namespace memlog::timeline {

// Plumbing: code in the C library, libstdc++, the loader or the recorder (strdup, operator new
// itself, the recorder's dlopen of a deep-bound library on the program's behalf), and the C++
// library's templates compiled into the program (std::allocator, the containers' growth and node
// allocation), recognised by their headers under /usr/include/c++.
bool isAllocatorPlumbing(const unwind::SourceFrame& frame);
// The part of it a module's name decides alone: every frame of these modules is plumbing, so a
// walk can pass over their addresses without naming them (reading their debug information).
bool isAllocatorPlumbingModule(const std::string& module);

}  // namespace memlog::timeline
