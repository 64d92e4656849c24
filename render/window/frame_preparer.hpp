// A new x axis, colouring or bins for the window's frame context, made on a thread of its own
// (seconds for ten million blocks) while the window shows the last picture under a bar that names
// what is being made. The window starts it when its choices change, never while a frame paints;
// nothing else may touch the context from start() until finish(). No SDL: the thread tells its
// progress through `wake` (tests/render/test_window_parts.cpp).
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <thread>

#include "render/frame/frame_context.hpp"

namespace memlog::render {

// What frames on `axis` coloured `by` (with bins of `bins`) want of a frame context.
struct FrameChoices {
    timeline::XAxis m_axis = timeline::XAxis::Time;
    ColourBy m_colourBy = ColourBy::Site;
    std::optional<timeline::BinKind> m_bins;
};

class FramePreparer {
public:
    enum class Making { Nothing, Index, Colours, Bins };

    // `wake` is called from the preparing thread whenever its progress moves, and once more
    // when it is done.
    explicit FramePreparer(std::function<void()> wake) : m_wake(std::move(wake)) {}
    ~FramePreparer();  // waits for the thread
    FramePreparer(const FramePreparer&) = delete;
    FramePreparer& operator=(const FramePreparer&) = delete;

    // What `frame` lacks for `choices`, the biggest first (Nothing: it is ready).
    static Making needed(const FrameContext& frame, const FrameChoices& choices);
    // Begins making what `frame` lacks, unless it lacks nothing or something is being made:
    // true when it began.
    bool start(FrameContext& frame, const FrameChoices& choices);
    // Begun and not yet finished.
    bool busy() const { return m_making.load() != Making::Nothing; }
    // The thread has finished: finish() will not wait.
    bool done() const { return busy() && m_done.load(); }
    // Waits for the thread; the context is the window's again.
    void finish();

    double progress() const { return m_progress.load(); }
    Making making() const { return m_making.load(); }
    // The bar's words for what is being made.
    static const char* text(Making making);

private:
    std::function<void()> m_wake;
    std::thread m_thread;
    std::atomic<double> m_progress{0};
    std::atomic<bool> m_done{false};
    std::atomic<Making> m_making{Making::Nothing};  // set by the thread too: the context, then the bins
};

}  // namespace memlog::render
