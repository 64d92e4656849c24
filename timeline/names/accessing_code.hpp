// The code that made an access sample, named for a tooltip or a table row.
#pragma once

#include <cstdint>
#include <string>

namespace memlog::timeline {

class StackNames;

// The code that made an access sample, as a user reads it: "function (file:line)" of the
// instruction itself (its innermost inlined frame), else of the stack's innermost frame, else
// "(unknown code)".
std::string accessingCode(StackNames& names, uint64_t ip, uint32_t stack);

}  // namespace memlog::timeline
