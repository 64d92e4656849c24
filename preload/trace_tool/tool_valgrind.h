/* Between the tool's two C files: the instrumentation (tool_instrument.c) and what it asks of
 * the rest (tool_main.c). Needs Valgrind's headers included first. */
#ifndef MEMLOG_TOOL_VALGRIND_H
#define MEMLOG_TOOL_VALGRIND_H

IRSB* tool_instrument(VgCallbackClosure* closure, IRSB* in, const VexGuestLayout* layout,
                      const VexGuestExtents* extents, const VexArchInfo* archInfo, IRType guestWord,
                      IRType hostWord);

/* The recorder's code (range 0) or its unwinder's (range 1), left out from now on. */
void tool_exclude_code(int range, Addr lo, Addr hi);

/* --count-only=yes: count what would be traced, write nothing (the floor of the tool's cost). */
Bool tool_count_only(void);

#endif
