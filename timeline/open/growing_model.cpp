#include "timeline/open/growing_model.hpp"

#include "timeline/read/log_reader.hpp"

namespace memlog::timeline {

GrowingModel::GrowingModel(std::string path, XAxis clock, bool freeStacks, std::string scratchFolder)
    : m_path(std::move(path)), m_clock(clock), m_freeStacks(freeStacks), m_scratchFolder(std::move(scratchFolder)) {}

GrowingModel::~GrowingModel() = default;

BlockModel GrowingModel::step(const std::function<void(double)>& progress, OccupancySketch* sketch) {
    if (m_steps && m_steps->step(progress, sketch)) {
        ++m_readsOn;
        return m_steps->modelNow();
    }
    // The steps go before their reader, which they point to.
    m_steps.reset();
    m_reader = std::make_unique<LogReader>(m_path);
    m_reader->followGrowth();
    m_steps = std::make_unique<ModelInSteps>(*m_reader, m_clock, m_freeStacks, m_scratchFolder);
    m_steps->step(progress, sketch);  // from the start: true, or an exception
    ++m_readsAnew;
    return m_steps->modelNow();
}

}  // namespace memlog::timeline
