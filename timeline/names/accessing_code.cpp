// The accessing instruction's own frame when the symboliser knows it, else its callers'.
#include "timeline/names/accessing_code.hpp"

#include <vector>

#include "timeline/names/site_table.hpp"
#include "timeline/names/stack_names.hpp"

namespace memlog::timeline {

std::string accessingCode(StackNames& names, uint64_t ip, uint32_t stack) {
    const auto& instruction = names.instruction(ip);
    const unwind::SourceFrame* frame = instruction.empty() ? nullptr : &instruction.front();
    std::vector<unwind::SourceFrame> callers;
    if (!frame) {
        callers = names.frames(stack);
        frame = callers.empty() ? nullptr : &callers.front();
    }
    if (!frame) return "(unknown code)";
    const std::string location = siteLocation(*frame);
    return frame->m_function + (location.empty() || location == frame->m_function ? "" : " (" + location + ")");
}

}  // namespace memlog::timeline
