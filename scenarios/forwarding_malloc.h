/* A malloc of one's own, as programs and preloaded tools that count allocations have: malloc,
 * calloc, realloc and free count the call (while `forwarding_counting` is set) and forward to
 * glibc's __libc_ names. Included by replaced_malloc.c (in the program) and forwarding_malloc.c
 * (a library to preload before or after the recorder). */
#ifndef MEMLOG_FORWARDING_MALLOC_H
#define MEMLOG_FORWARDING_MALLOC_H

#include <stddef.h>

extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t count, size_t size);
extern void* __libc_realloc(void* block, size_t size);
extern void __libc_free(void* block);

unsigned long forwarding_calls;
int forwarding_counting;

__attribute__((visibility("default"))) void* malloc(size_t size) {
    forwarding_calls += forwarding_counting;
    return __libc_malloc(size);
}
__attribute__((visibility("default"))) void* calloc(size_t count, size_t size) {
    forwarding_calls += forwarding_counting;
    return __libc_calloc(count, size);
}
__attribute__((visibility("default"))) void* realloc(void* block, size_t size) {
    forwarding_calls += forwarding_counting;
    return __libc_realloc(block, size);
}
__attribute__((visibility("default"))) void free(void* block) {
    forwarding_calls += forwarding_counting && block;
    __libc_free(block);
}

#endif
