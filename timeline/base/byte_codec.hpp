// Values as bytes and back, for the files memlog writes for itself (a log's index): plain values
// as they are in memory, texts and arrays after their length. One list of fields can drive both
// ways (`io(field)` for each), so that a writer and its reader cannot disagree. Only for files
// this build wrote: nothing here is portable across byte orders or layouts.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace memlog::timeline {

// A value whose bytes are all its own: no padding, whose bytes are whatever the memory held, so
// that two writes of one value are the same bytes (two builds of one index were not). Floating
// point values are theirs too; a struct with one is written field by field.
template <typename T>
inline constexpr bool kWrittenWhole = std::is_trivially_copyable_v<T> &&
                                      (std::has_unique_object_representations_v<T> || std::is_floating_point_v<T> ||
                                       std::is_same_v<T, bool> || std::is_enum_v<T>);

class ByteWriter {
public:
    template <typename T>
    void operator()(const T& value) {
        static_assert(kWrittenWhole<T>);
        const auto* bytes = reinterpret_cast<const unsigned char*>(&value);
        m_bytes.insert(m_bytes.end(), bytes, bytes + sizeof(T));
    }
    void operator()(const std::string& text) {
        (*this)(static_cast<uint64_t>(text.size()));
        m_bytes.insert(m_bytes.end(), text.begin(), text.end());
    }
    template <typename T>
    void array(const std::vector<T>& values) {
        static_assert(kWrittenWhole<T>);
        (*this)(static_cast<uint64_t>(values.size()));
        const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
        m_bytes.insert(m_bytes.end(), bytes, bytes + values.size() * sizeof(T));
    }
    const std::vector<unsigned char>& bytes() const { return m_bytes; }

private:
    std::vector<unsigned char> m_bytes;
};

// Reading past the end, or a length longer than what is left: std::out_of_range, for the
// caller to say the file is damaged.
class ByteReader {
public:
    ByteReader(const unsigned char* data, size_t bytes) : m_data(data), m_left(bytes) {}
    template <typename T>
    void operator()(T& value) {
        static_assert(std::is_trivially_copyable_v<T>);
        std::memcpy(&value, take(sizeof(T)), sizeof(T));
    }
    void operator()(std::string& text) {
        uint64_t size = 0;
        (*this)(size);
        text.assign(reinterpret_cast<const char*>(take(size)), size);
    }
    template <typename T>
    void array(std::vector<T>& values) {
        uint64_t count = 0;
        (*this)(count);
        if (count > m_left / sizeof(T)) throw std::out_of_range("an array longer than what is left");
        values.resize(count);
        const unsigned char* bytes = take(count * sizeof(T));
        if (count > 0) std::memcpy(values.data(), bytes, count * sizeof(T));  // an empty vector's data() may be null
    }
    size_t left() const { return m_left; }

private:
    const unsigned char* take(uint64_t bytes) {
        if (bytes > m_left) throw std::out_of_range("ends early");
        const unsigned char* at = m_data;
        m_data += bytes;
        m_left -= bytes;
        return at;
    }
    const unsigned char* m_data;
    size_t m_left;
};

}  // namespace memlog::timeline
