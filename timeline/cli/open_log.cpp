// How memlog's commands open a log: OpenedLog (timeline/open/) with a command's progress bars and
// warnings, and the suppressions a command's --suppressions names.
#include <optional>

#include "commands.hpp"
#include "timeline/base/diagnostics.hpp"
#include "timeline/names/suppressions.hpp"

namespace memlog::cli {

timeline::OpenedLog openLog(const std::string& path, timeline::OpenedLog::Parts parts) {
    using Step = timeline::OpenedLog::Step;
    // A bar while the walk reads and while every stack is named (the steps told in between 0 and
    // 1); gone, its line cleared, before the warnings that follow the step.
    std::optional<ProgressBar> bar;
    timeline::OpenedLog::Reporting reporting;
    reporting.m_progress = [&](Step step, double fraction) {
        if (fraction >= 1) bar.reset();
        if (fraction <= 0 || fraction >= 1 || (step != Step::Walk && step != Step::Names && step != Step::Index))
            return;
        if (!bar)
            bar.emplace(step == Step::Walk    ? "reading " + path
                        : step == Step::Index ? "indexing " + path
                                              : "symbolising");
        bar->update(fraction);
    };
    reporting.m_warn = [](const std::string& problem) { diagnostics::warn(problem); };
    return timeline::OpenedLog(path, std::move(parts), std::move(reporting));
}

timeline::Suppressions loadSuppressions(const std::string& file) {
    timeline::Suppressions suppressions;
    if (!file.empty()) suppressions.load(file);
    return suppressions;
}

}  // namespace memlog::cli
