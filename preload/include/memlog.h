/* memlog.h: what a program may ask of the memlog recorder (libmemlog.so, loaded with
 * LD_PRELOAD). Every call is safe and free when the recorder is not loaded: the symbols are weak,
 * so link nothing and check for them, as memlog_is_recording() below does. */
#ifndef MEMLOG_H
#define MEMLOG_H

#define MEMLOG_VERSION_MAJOR 0
#define MEMLOG_VERSION_MINOR 1

#ifdef __cplusplus
extern "C" {
#endif

/* Defined by libmemlog.so: non-zero while this process is being recorded. */
int memlog_recording(void) __attribute__((weak));

/* 1 when the recorder is loaded and writing a log, else 0. */
static inline int memlog_is_recording(void) { return memlog_recording ? memlog_recording() : 0; }

#ifdef __cplusplus
}
#endif

#endif /* MEMLOG_H */
