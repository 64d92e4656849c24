/* memlog.h: what a program may ask of the memlog recorder (libmemlog.so, loaded with
 * LD_PRELOAD). Every call is safe and free when the recorder is not loaded: the symbols are weak,
 * so link nothing; the inline functions below check for them and do nothing when they are absent. */
#ifndef MEMLOG_H
#define MEMLOG_H

#include <stddef.h>

#define MEMLOG_VERSION_MAJOR 0
#define MEMLOG_VERSION_MINOR 2

#ifdef __cplusplus
extern "C" {
#endif

/* Defined by libmemlog.so. */
int memlog_recording(void) __attribute__((weak));
void memlog_annotate_name(const void* block, const char* name) __attribute__((weak));
void memlog_annotate_array(const void* block, size_t element_size, size_t rows, size_t columns, size_t depth)
    __attribute__((weak));
void memlog_annotate_phase(const char* name) __attribute__((weak));

/* 1 when the recorder is loaded and writing a log, else 0. */
static inline int memlog_is_recording(void) { return memlog_recording ? memlog_recording() : 0; }

/* Names the heap block (or global) that `block` points into, as the pictures and `memlog arrays`
 * will call it. At most 255 bytes of the name are kept. */
static inline void memlog_name(const void* block, const char* name) {
    if (memlog_annotate_name) memlog_annotate_name(block, name);
}

/* The shape of the array at `block`: rows x columns elements of element_size bytes, row-major,
 * and for a 3-D array `depth` such planes. memlog_array(block, size, rows, columns) or
 * memlog_array(block, size, rows, columns, depth). */
static inline void memlog_array_shape(const void* block, size_t element_size, size_t rows, size_t columns,
                                      size_t depth) {
    if (memlog_annotate_array) memlog_annotate_array(block, element_size, rows, columns, depth);
}
#define MEMLOG_ARRAY_2D(block, element_size, rows, columns) memlog_array_shape(block, element_size, rows, columns, 1)
#define MEMLOG_ARRAY_3D(block, element_size, rows, columns, depth) \
    memlog_array_shape(block, element_size, rows, columns, depth)
#define MEMLOG_ARRAY_PICK(a, b, c, d, e, which, ...) which
#define memlog_array(...) MEMLOG_ARRAY_PICK(__VA_ARGS__, MEMLOG_ARRAY_3D, MEMLOG_ARRAY_2D, _, _, _)(__VA_ARGS__)

/* Marks the start of a phase of the program ("init", "solve", ...): a line on the timeline. */
static inline void memlog_phase(const char* name) {
    if (memlog_annotate_phase) memlog_annotate_phase(name);
}

#ifdef __cplusplus
}
#endif

#endif /* MEMLOG_H */
