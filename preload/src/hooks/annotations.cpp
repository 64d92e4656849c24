// memlog.h's entry points: what a program says of itself (a block's name, an array's shape, a
// phase), each an Annotation record at its place among the heap events; and whether it is being
// recorded. Without libmemlog.so the program's weak references are null and memlog.h does nothing.
#include <cstring>

#include "hooks/hook.hpp"

namespace memlog::preload {
namespace {

void annotateText(format::AnnotationKind what, const void* block, const char* text) {
    format::AnnotationRecord record;
    record.m_what = what;
    record.m_addr = reinterpret_cast<uintptr_t>(block);
    record.m_text = text ? text : "";
    record.m_textBytes = static_cast<uint32_t>(strnlen(record.m_text, format::kMaxAnnotationText));
    recordAnnotation(record);
}

}  // namespace
}  // namespace memlog::preload

MEMLOG_EXPORT void memlog_annotate_name(const void* block, const char* name) {
    memlog::preload::annotateText(memlog::format::AnnotationKind::Name, block, name);
}

MEMLOG_EXPORT void memlog_annotate_phase(const char* name) {
    memlog::preload::annotateText(memlog::format::AnnotationKind::Phase, nullptr, name);
}

MEMLOG_EXPORT void memlog_annotate_array(const void* block, size_t elementSize, size_t rows, size_t columns,
                                         size_t depth) {
    memlog::format::AnnotationRecord record;
    record.m_what = memlog::format::AnnotationKind::ArrayShape;
    record.m_addr = reinterpret_cast<uintptr_t>(block);
    record.m_elementSize = elementSize;
    record.m_rows = rows;
    record.m_columns = columns;
    record.m_depth = depth ? depth : 1;
    memlog::preload::recordAnnotation(record);
}

MEMLOG_EXPORT int memlog_recording(void) { return memlog::preload::isRecording() ? 1 : 0; }
