// The model of a log followed as it grows (memtimeline --follow): each step reads the log on from
// where the last one stopped (ModelInSteps over a reader that follows its growth), or anew when it
// cannot be read on (the first step, a log replaced, a step cut short). A step costs what the log
// gained and a copy of the blocks, where a read anew costs the whole log.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "timeline/model/block_model.hpp"

namespace memlog::timeline {

class LogReader;

class GrowingModel {
public:
    // The model's blocks on `clock`'s time words, with their freeing stacks when `freeStacks`; in
    // scratch files in `scratchFolder` when one is given (ModelInSteps), else in memory.
    GrowingModel(std::string path, XAxis clock, bool freeStacks, std::string scratchFolder = "");
    ~GrowingModel();
    GrowingModel(const GrowingModel&) = delete;
    GrowingModel& operator=(const GrowingModel&) = delete;

    // The model of the log as it is now. Throws LogError for a log that cannot be read (the
    // next step reads it anew), and whatever `progress` throws. `sketch`, when given, is drawn
    // from the blocks the step reads (a read anew: the loading screen's picture).
    BlockModel step(const std::function<void(double)>& progress = {}, OccupancySketch* sketch = nullptr);
    // The reader of the last step: its stacks, modules and annotations (LogReader::walkResults).
    const LogReader& reader() const { return *m_reader; }
    // Steps that read the log on, and those that read it from its start.
    uint64_t readsOn() const { return m_readsOn; }
    uint64_t readsAnew() const { return m_readsAnew; }

private:
    std::string m_path;
    XAxis m_clock;
    bool m_freeStacks;
    std::string m_scratchFolder;
    std::unique_ptr<LogReader> m_reader;
    std::unique_ptr<ModelInSteps> m_steps;
    uint64_t m_readsOn = 0, m_readsAnew = 0;
};

}  // namespace memlog::timeline
