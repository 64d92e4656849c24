// What the window's loaded log sets up its frame context with.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "../log_builder.hpp"
#include "render/frame/draft_budget.hpp"
#include "render/window/loaded_log.hpp"

using namespace memlog;

TEST_CASE("the window's frames may run late and finish as drafts, where a frame context of its own never does") {
    const std::string path =
        (std::filesystem::temp_directory_path() / ("memlog-loaded-log-" + std::to_string(getpid()) + ".memlog"))
            .string();
    test::LogBuilder log;
    log.thread(1).malloc(1, 0x10000, 64).free(2, 0x10000);
    log.write(path);
    const auto loaded = render::loadLog(path, timeline::XAxis::Time, render::ColourBy::Site);
    std::filesystem::remove(path);
    REQUIRE(loaded->m_frame);
    CHECK(loaded->m_frame->policy().lateAfterMs() == render::DraftBudget::kLateAfterMs);
    CHECK(loaded->m_frame->policy().lateProjectedMs() == render::DraftBudget::kLateProjectedMs);
    // A Report's for --export: its pictures never depend on how fast the machine is.
    const render::FrameContext own(loaded->m_model, nullptr);
    CHECK(own.policy().lateAfterMs() == render::DraftPolicy::kNeverLate);
    CHECK(own.policy().lateProjectedMs() == render::DraftPolicy::kNeverLate);
}
