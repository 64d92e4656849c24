// Writing the model's index into its file and mapping it back (kept_index.hpp).
#include "timeline/model/kept_index.hpp"

#include <stdexcept>
#include <string>

#include "timeline/base/byte_codec.hpp"
#include "timeline/base/huge_pages.hpp"
#include "timeline/model/block_store.hpp"
#include "timeline/model/model_index.hpp"

namespace memlog::timeline {

namespace {

// ModelIndex::fields' `io` that writes: numbers into the fields, arrays into the file.
class ArrayWriter {
public:
    ArrayWriter(int fd, const std::string& path, uint64_t& offset) : m_fd(fd), m_path(path), m_offset(offset) {}
    template <typename T>
    void operator()(const T& value) {
        m_fields(value);
    }
    template <typename T>
    void operator()(const StoredArray<T>& array) {
        if (const int64_t at = ArraysInFiles::keep(array.data()); at >= 0) {  // made in the file already
            m_fields(static_cast<uint64_t>(at));
            m_fields(static_cast<uint64_t>(array.size()));
            return;
        }
        m_offset = pageAligned(m_offset);
        m_fields(m_offset);
        m_fields(static_cast<uint64_t>(array.size()));
        writeIndexBytes(m_fd, m_path, m_offset, array.data(), array.size() * sizeof(T));
        m_offset += array.size() * sizeof(T);
    }
    const std::vector<unsigned char>& fields() const { return m_fields.bytes(); }

private:
    int m_fd;
    const std::string& m_path;
    uint64_t& m_offset;
    ByteWriter m_fields;
};

// The same fields read back: arrays become views of the mapping, once their place is checked.
class ArrayReader {
public:
    explicit ArrayReader(const KeptModelIndex& kept)
        : m_kept(kept), m_fields(kept.m_fields.data(), kept.m_fields.size()) {}
    template <typename T>
    void operator()(T& value) {
        m_fields(value);
    }
    void operator()(bool& value) {  // any other byte would be no bool
        uint8_t byte = 0;
        m_fields(byte);
        if (byte > 1) throw IndexError("its tree has a flag that is neither true nor false");
        value = byte != 0;
    }
    template <typename T>
    void operator()(StoredArray<T>& array) {
        uint64_t offset = 0, count = 0;
        m_fields(offset);
        m_fields(count);
        const uint64_t size = m_kept.m_mapping->size();
        if (offset % kIndexPage != 0 || offset > size || count > (size - offset) / sizeof(T))
            throw IndexError("its tree's arrays lie outside the file");
        array = StoredArray<T>(m_kept.m_mapping, reinterpret_cast<const T*>(m_kept.m_mapping->data() + offset), count);
    }
    size_t left() const { return m_fields.left(); }

private:
    const KeptModelIndex& m_kept;
    ByteReader m_fields;
};

}  // namespace

std::vector<unsigned char> writeKeptIndex(int fd, const std::string& path, uint64_t& offset, const ModelIndex& index) {
    ArrayWriter writer(fd, path, offset);
    ModelIndex::fields(writer, index);
    return writer.fields();
}

ModelIndex::ModelIndex(const BlockModel& model, const KeptModelIndex& kept) : m_model(&model), m_axis(kept.m_axis) {
    ArrayReader reader(kept);
    try {
        fields(reader, *this);
    } catch (const std::out_of_range&) {  // from the ByteReader
        throw IndexError("its tree's fields end early");
    }
    if (reader.left() != 0) throw IndexError("its tree's fields have bytes to spare");
    const bool everyEntry = !kept.m_checked;
    if (everyEntry)
        if (std::string problem = m_index.checkShape(model.size()); !problem.empty()) throw IndexError(problem);
    if (m_index.size() != model.size()) throw IndexError("its tree does not hold every block");
    if (m_sums.size() != m_index.nodes().size()) throw IndexError("its tree's sums and nodes differ in number");
    if (m_itemStacks.size() != m_index.size() || m_itemThreads.size() != m_index.size())
        throw IndexError("its tree's stacks and threads do not cover every block");
    if (everyEntry)
        for (const NodeSums& sums : m_sums)
            if (!boolByteIsBool(&sums.m_solid)) throw IndexError("its tree's sums hold a flag that is no flag");
    for (std::string problem :
         {m_beginnings.adopt(model, m_axis, false, everyEntry), m_ends.adopt(model, m_axis, true, everyEntry)})
        if (!problem.empty()) throw IndexError(problem);
}

}  // namespace memlog::timeline
