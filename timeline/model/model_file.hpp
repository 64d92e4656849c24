// A block model kept on disk: its index file. The blocks (and their freeing stacks) are the
// chunks a file store wrote as the model was built (block_store.hpp), or, for a full trace, its
// access samples as the walk made them; then the model's index for pictures, when kept
// (kept_index.hpp), the rest of the model (its shape, summary, threads and access samples,
// checksummed) and a trailer that says where each part is. Reading it back maps the chunks and
// the index's arrays: the page cache holds them, and the process only what it reads of them.
//
// Nothing in an index is trusted: a file of the wrong size, a foreign trailer, a bad checksum,
// another log's identity or a block that names a stack or thread the model does not have is
// refused with the reason, for the caller to build the index again.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "timeline/model/block_model.hpp"

namespace memlog::timeline {

class ModelIndex;

// What the walk wrote at the start of the index file as it went: the blocks' chunks (`model`'s
// store is blocksInFile on it), or a full trace's access samples (an AccessSpool on it; the
// chunks are then copied in after them).
enum class IndexLead : uint8_t { Blocks, AccessMarks };

// Ends the index file `fd` (`path` in errors) that the walk began as `lead` says: the rest of
// the model, then the trailer. `identity` names the log it was built from (log_index.hpp); a
// reader asks for the same. Throws IndexError.
// `readerWalk`: what the walk left in the log's reader (LogReader::walkResults), kept beside.
// `index`: the model's index on its clock, kept too (kept_index.hpp); none: drawing builds it.
void finishModelFile(int fd, const std::string& path, const BlockModel& model, const std::string& identity,
                     const std::vector<unsigned char>& readerWalk, const ModelIndex* index,
                     IndexLead lead = IndexLead::Blocks);

struct ModelFileRead {
    std::optional<BlockModel> m_model;
    std::vector<unsigned char> m_readerWalk;  // as given to finishModelFile
    // Why there is no model: the file is missing (m_missing), or what is wrong with it.
    bool m_missing = false;
    std::string m_problem;
};

// The model kept in `path`, if it is an index of the log `identity` names.
ModelFileRead readModelFile(const std::string& path, const std::string& identity);

}  // namespace memlog::timeline
