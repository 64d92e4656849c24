// C++ containers: a vector grown by push_back to 1000 ints (capacity doubling: 11 buffers),
// a std::map of 100 entries (one node each), and 50 strings of 100 chars (one buffer each).
// The strings vector reserves its 50 slots first (one more buffer).
// Log (difference to `empty`): new 162, delete 162, no leak.
#include <cstring>
#include <map>
#include <string>
#include <vector>

__attribute__((noinline)) static size_t grow_vector() {
    std::vector<int> values;
    for (int i = 0; i < 1000; ++i) values.push_back(i);
    return values.size();
}

__attribute__((noinline)) static size_t fill_map() {
    std::map<int, int> squares;
    for (int i = 0; i < 100; ++i) squares[i] = i * i;
    return squares.size();
}

__attribute__((noinline)) static size_t make_strings() {
    std::vector<std::string> strings;
    strings.reserve(50);
    for (int i = 0; i < 50; ++i) strings.emplace_back(100, static_cast<char>('a' + i % 26));
    return strings.size();
}

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "empty") == 0) return 0;
    // 11 (vector) + 100 (map nodes) + 1 (reserve) + 50 (strings) = 162 news and deletes.
    return grow_vector() + fill_map() + make_strings() == 1150 ? 0 : 1;
}
