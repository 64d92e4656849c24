// The allocator-plumbing rule, by module, source file and function name.
#include "timeline/names/allocator_plumbing.hpp"

namespace memlog::timeline {
namespace {

bool startsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

bool isAllocatorPlumbing(const unwind::SourceFrame& frame) {
    // Templates of the C++ library, inlined or instantiated in the program's own code
    // (std::vector::push_back, std::map's node allocation, std::allocator).
    if (startsWith(frame.m_file, "/usr/include/c++/")) return true;
    if (isAllocatorPlumbingModule(frame.m_module)) return true;
    const std::string& f = frame.m_function;
    return startsWith(f, "operator new") || startsWith(f, "operator delete") || startsWith(f, "std::allocator<") ||
           startsWith(f, "std::__new_allocator<") || startsWith(f, "__gnu_cxx::new_allocator<") ||
           startsWith(f, "std::allocator_traits<") || startsWith(f, "std::_Vector_base<") ||
           startsWith(f, "std::__allocate_guarded") ||
           (startsWith(f, "std::_Rb_tree<") && f.find("_M_get_node") != std::string::npos);
}

bool isAllocatorPlumbingModule(const std::string& module) {
    // libmemlog.so: the recorder's frames below an allocation are its own work for the program
    // (its dlopen of an RTLD_DEEPBIND library); the hooks' frames are never recorded.
    return startsWith(module, "libc.so") || startsWith(module, "libstdc++.so") || startsWith(module, "ld-linux") ||
           startsWith(module, "libmemlog.so");
}

}  // namespace memlog::timeline
