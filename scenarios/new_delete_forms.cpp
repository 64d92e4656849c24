// Every operator new form (8) and every operator delete form (12), with sizes that name them.
// Each function allocates three blocks from its family and releases them with the family's three
// delete forms, so a hook missing for any one form shows as a count off by one and a leak:
//   scalar_forms          new 101, new(nothrow) 102, new 103      -> delete, delete(size), delete(nothrow)
//   array_forms           new[] 104, new[](nothrow) 105, new[] 106 -> the same three for delete[]
//   aligned_scalar_forms  new(align 64) 107, new(align, nothrow) 108, new(align) 109
//                         -> delete(align), delete(size, align), delete(align, nothrow)
//   aligned_array_forms   the same with new[] 110, 111, 112 and delete[]
// Log (difference to `empty`): new 6, new[] 6, delete 6, delete[] 6, no leak, no mismatch.
#include <cstdlib>
#include <cstring>
#include <new>

namespace {

void* keep(void* pointer) {
    asm volatile("" : : "r"(pointer) : "memory");
    return pointer;
}

constexpr auto kAlign = std::align_val_t{64};

__attribute__((noinline)) void scalar_forms() {
    void* a = keep(::operator new(101));
    void* b = keep(::operator new(102, std::nothrow));
    void* c = keep(::operator new(103));
    ::operator delete(a);
    ::operator delete(b, 102);
    ::operator delete(c, std::nothrow);
}

__attribute__((noinline)) void array_forms() {
    void* a = keep(::operator new[](104));
    void* b = keep(::operator new[](105, std::nothrow));
    void* c = keep(::operator new[](106));
    ::operator delete[](a);
    ::operator delete[](b, 105);
    ::operator delete[](c, std::nothrow);
}

__attribute__((noinline)) void aligned_scalar_forms() {
    void* a = keep(::operator new(107, kAlign));
    void* b = keep(::operator new(108, kAlign, std::nothrow));
    void* c = keep(::operator new(109, kAlign));
    ::operator delete(a, kAlign);
    ::operator delete(b, 108, kAlign);
    ::operator delete(c, kAlign, std::nothrow);
}

__attribute__((noinline)) void aligned_array_forms() {
    void* a = keep(::operator new[](110, kAlign));
    void* b = keep(::operator new[](111, kAlign, std::nothrow));
    void* c = keep(::operator new[](112, kAlign));
    ::operator delete[](a, kAlign);
    ::operator delete[](b, 111, kAlign);
    ::operator delete[](c, kAlign, std::nothrow);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "empty") == 0) return 0;
    scalar_forms();
    array_forms();
    aligned_scalar_forms();
    aligned_array_forms();
    return 0;
}
