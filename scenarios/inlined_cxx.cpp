// C++ names of an inlined site: make_obj, a helper with internal linkage (its DWARF has no
// linkage name, so it is named without a parameter list), inlined into gamma_site(int) and
// delta_site(int), which have external linkage (demangled with their parameter lists).
// Log (difference to `empty`): gamma_site 4 x 48 bytes leaked, delta_site 2 x 48 bytes freed.
#include <cstdlib>

#include "scenario.h"

static inline __attribute__((always_inline)) void* make_obj() {
    return scenario_keep(std::malloc(48));  // site:make_obj
}

__attribute__((noinline)) void* gamma_site(int count) {
    void* last = nullptr;
    for (int i = 0; i < count; ++i) last = make_obj();
    return last;
}

__attribute__((noinline)) void delta_site(int count) {
    for (int i = 0; i < count; ++i) std::free(make_obj());
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    gamma_site(4);
    delta_site(2);
    return 0;
}
