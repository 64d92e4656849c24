// Hints about the recorded program: CPython's pymalloc for now.
#include "timeline/names/program_hints.hpp"

#include "timeline/names/stack_names.hpp"

namespace memlog::timeline {

bool usesPymalloc(StackNames& names, const std::vector<StackMetrics>& stacks) {
    // pymalloc's arenas are 256 KiB (1 MiB from CPython 3.10 on); with PYTHONMALLOC=malloc the
    // same function still maps the 16 KiB chunks of the frame stack, which are not arenas.
    constexpr uint64_t kSmallestArena = 256 * 1024;
    for (size_t id = 1; id < stacks.size(); ++id) {
        if (stacks[id].m_calls == 0 || stacks[id].m_bytes / stacks[id].m_calls < kSmallestArena) continue;
        for (const unwind::SourceFrame& frame : names.frames(static_cast<uint32_t>(id)))
            if (frame.m_function.rfind("_PyObject_Arena", 0) == 0) return true;  // _PyObject_ArenaMmap, ...Malloc
    }
    return false;
}

std::vector<std::string> programHints(StackNames& names, const std::vector<StackMetrics>& stacks) {
    std::vector<std::string> hints;
    if (usesPymalloc(names, stacks))
        hints.push_back(
            "a CPython interpreter: pymalloc keeps Python's small objects inside its arenas (the mappings made by "
            "_PyObject_ArenaMmap), so they are not blocks here. Run it with PYTHONMALLOC=malloc "
            "(memlog run --python-objects) to record every object as a block of its own.");
    return hints;
}

}  // namespace memlog::timeline
