// What an allocating source line says about the block it allocates, as the mapvisual thesis read
// `pin = malloc(N * sizeof(int))`: the variable it is assigned to (pin) and the element type
// (int, 4 bytes). Read from the source file the debug information names, when it is still there.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace memlog::timeline {

struct SourceLineNames {
    std::string m_variable;  // empty when the line assigns to no plain name
    std::string m_type;  // the T of sizeof(T) or new T[...]; empty when none
    uint64_t m_elementSize = 0;  // its size, for the types whose size is known without a compiler
};

// From the text of one line: `v = malloc(...)`, `T* v = (T*)calloc(n, sizeof(T))`, `v = new T[n]`,
// `auto v = make(...)` and the like. `callee`, when given, is the function the assignment must
// call (for a caller's line: `a = new_matrix(n)`).
SourceLineNames parseSourceLine(const std::string& line, const std::string& callee = {});

// The size of a C or C++ scalar type by name ("double", "int", "uint64_t", "float*"); 0 if unknown.
uint64_t scalarTypeSize(const std::string& type);

// Lines of source files, read once each.
class SourceFiles {
public:
    std::optional<std::string> line(const std::string& path, uint32_t number);

private:
    std::map<std::string, std::vector<std::string>> m_files;
};

}  // namespace memlog::timeline
