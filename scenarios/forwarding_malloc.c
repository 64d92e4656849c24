/* libscenario_forwarding_malloc.so: forwarding_malloc.h as a library to preload. In front of the
 * recorder (LD_PRELOAD="it libmemlog.so") its malloc replaces the recorder's; behind it, the
 * recorder's malloc forwards to it, and it calls glibc's __libc_ names. */
#include "forwarding_malloc.h"
