// Every operator new and delete form, once each, with sizes that name the form:
//   new 101, new[] 102, new(nothrow) 103, new[](nothrow) 104, new(align 64) 105,
//   new[](align 64) 106, new(align 64, nothrow) 107, new[](align 64, nothrow) 108.
// Released by the matching delete (plain, sized, aligned, nothrow forms among them).
// Log (difference to `empty`): new 4, new[] 4, delete 4, delete[] 4, no leak.
#include <cstdlib>
#include <cstring>
#include <new>

static void* keep(void* pointer) {
    asm volatile("" : : "r"(pointer) : "memory");
    return pointer;
}

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "empty") == 0) return 0;
    const auto align = std::align_val_t{64};
    void* a = keep(::operator new(101));
    void* b = keep(::operator new[](102));
    void* c = keep(::operator new(103, std::nothrow));
    void* d = keep(::operator new[](104, std::nothrow));
    void* e = keep(::operator new(105, align));
    void* f = keep(::operator new[](106, align));
    void* g = keep(::operator new(107, align, std::nothrow));
    void* h = keep(::operator new[](108, align, std::nothrow));
    ::operator delete(a);
    ::operator delete[](b, 102);
    ::operator delete(c, std::nothrow);
    ::operator delete[](d);
    ::operator delete(e, align);
    ::operator delete[](f, 106, align);
    ::operator delete(g, align, std::nothrow);
    ::operator delete[](h, align);
    return 0;
}
