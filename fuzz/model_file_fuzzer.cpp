// A log's index on disk, damaged: any bytes as a log, its model built into an index file as
// memtimeline builds one, then that file cut and overwritten where the input's last 24 bytes say,
// and read back. The reader must give the model whole or refuse it with a reason; its blocks, when
// given, must name stacks that exist; what the walk left in the log's reader must go back into a
// fresh reader, or be refused. Bad input as a log must end as LogError.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "input_file.hpp"
#include "timeline/model/model_file.hpp"
#include "timeline/model/model_index.hpp"
#include "timeline/read/log_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace memlog::timeline;
    constexpr size_t kDamageBytes = 24;
    if (size < kDamageBytes) return 0;
    static memlog::fuzz::InputFile log;
    static const int indexFd = memfd_create("memlog-fuzz-index", MFD_CLOEXEC);
    if (indexFd < 0) std::abort();
    const std::string index = "/proc/self/fd/" + std::to_string(indexFd);
    const std::string& path = log.write(data, size - kDamageBytes);
    try {
        if (ftruncate(indexFd, 0) != 0) std::abort();
        {
            LogReader reader(path);
            const BlockModel built = buildBlockModel(reader, {}, blocksInFile(indexFd, index), XAxis::Time);
            const ModelIndex tree(built, XAxis::Time);
            finishModelFile(indexFd, index, built, "fuzz", reader.walkResults(), &tree);
        }
        // The damage: a length to cut the file to (or none), and eight bytes written somewhere.
        uint64_t cut = 0, at = 0, bytes = 0;
        std::memcpy(&cut, data + size - 24, 8);
        std::memcpy(&at, data + size - 16, 8);
        std::memcpy(&bytes, data + size - 8, 8);
        const off_t length = lseek(indexFd, 0, SEEK_END);
        if (length > 0) {
            if (cut % 4 == 0 && ftruncate(indexFd, static_cast<off_t>(cut % static_cast<uint64_t>(length))) != 0)
                std::abort();
            if (pwrite(indexFd, &bytes, sizeof bytes, static_cast<off_t>(at % static_cast<uint64_t>(length))) < 0)
                std::abort();
        }
        ModelFileRead read = readModelFile(index, "fuzz");
        if (read.m_model) {
            const BlockModel& model = *read.m_model;
            uint64_t sum = 0;
            for (size_t i = 0; i < model.size(); ++i) {
                const Block& block = model[i];
                if (block.stack() >= model.stackCount() || model.freeStack(i) >= model.stackCount()) std::abort();
                sum += block.addr() + block.size() + block.beginNs() + block.endSeq();
            }
            const XWindow whole = model.extent(XAxis::Time);
            if (model.keptIndex()) {  // the tree's arrays, mapped: walked as a picture walks them
                const auto tree = ModelIndex::forModel(model, XAxis::Time);
                sum += tree->countIn({whole.m_from, whole.m_to, 0, UINT64_MAX});
                for (const OccupancyColumn& column : tree->occupancy({XAxis::Time, whole, 7}))
                    sum += (column.m_liveBytes > 0) + column.m_events;  // damaged sums may say anything
                for (const OccupancyColumn& column : tree->occupancy({XAxis::Time, whole, 5, 4096, 1 << 30}))
                    sum += column.m_events;
                sum += tree->liveAt(whole.m_from + whole.width() / 2).m_blocks;
            }
            // What the walk left, put back in a fresh reader of the log, and read.
            LogReader reader(path);
            if (reader.restoreWalkResults(read.m_readerWalk)) {
                for (size_t id = 0; id < reader.stacks().size(); ++id) sum += reader.stacks()[id].toVector().size();
                sum += reader.modules().size() + reader.annotations().size() + reader.lastTsc();
                (void)reader.whereReadingStopped();
            }
            (void)sum;
        } else if (read.m_problem.empty()) {
            std::abort();  // refused without a reason
        }
    } catch (const LogError&) {
    }
    return 0;
}
