// The model's index (model_index.hpp) as an index file keeps it, so that a log read through its
// index is drawn without the index being built again (and without its 59 bytes a block in the
// process's memory: the page cache holds them). Its arrays sit in the file after the blocks, each
// on a page boundary; its numbers, and where each array lies, in the file's checksummed rest
// (model_file.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "timeline/base/stored_array.hpp"
#include "timeline/model/x_axis.hpp"

namespace memlog::timeline {

class ModelIndex;

struct KeptModelIndex {
    XAxis m_axis = XAxis::Time;
    std::shared_ptr<const FileMapping> m_mapping;  // the file from its start: blocks, then arrays
    // ModelIndex::fields in order: numbers as they are, each array as its offset in the mapping
    // and its length.
    std::vector<unsigned char> m_fields;
    // Whether a ModelIndex made from it passed every check against the model it came with (the
    // index file's reader makes one): the next ones check only the sizes, not every entry.
    bool m_checked = false;
};

// Writes `index`'s arrays into `fd` (`path` in errors) from `offset` on, each on a page
// boundary, and moves `offset` past the last; returns KeptModelIndex::m_fields. An array made in
// the file already (ArraysInFiles) stays where it is. Throws IndexError.
std::vector<unsigned char> writeKeptIndex(int fd, const std::string& path, uint64_t& offset, const ModelIndex& index);

}  // namespace memlog::timeline
