// What the frame context's tests share: a random heap, a view of it drawn through a frame
// context (or exactly, by the walk), and the whole log's picture.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "random_heap.hpp"
#include "render/frame/frame_context.hpp"
#include "render_helpers.hpp"

namespace memlog::test {

inline const uint32_t kBackground = render::toArgb(render::kBackground);
inline const uint64_t kHeapBase = RandomHeap{}.m_base;

// A random heap of `events` events over `slots` slots, the rest as RandomHeap has it.
inline timeline::BlockModel randomHeap(size_t events, size_t slots) {
    RandomHeap spec;
    spec.m_events = events;
    spec.m_slots = slots;
    return randomHeap(spec);
}

// A view of `width` x `height` over `window` and [lo, hi), its scale from the context's index
// as a report makes it.
struct FrameView {
    render::AddressScale m_scale;
    render::ViewSpec m_spec;
    int m_width, m_height;
    FrameView(render::FrameContext& frame, timeline::XAxis axis, timeline::XWindow window, uint64_t lo, uint64_t hi,
              int width, int height, double alpha = 0.3, render::CushionStyle cushion = render::CushionStyle::Plateau)
        : m_width(width), m_height(height) {
        timeline::AddressRanges::Builder builder;
        frame.index().addRanges(window, lo, hi, builder);
        const size_t ranges = render::AddressScale::maxRanges(height);
        m_scale =
            render::AddressScale(builder.finish(timeline::AddressRanges::kKeepGapsBelow, ranges).clip(lo, hi), height);
        m_spec.m_axis = axis;
        m_spec.m_window = window;
        m_spec.m_scale = &m_scale;
        m_spec.m_alpha = alpha;
        m_spec.m_cushion = cushion;
    }
    Image exact(const timeline::BlockModel& model, const render::FrameContext& frame) const {
        return viewImage(model, m_spec, frame.colouring(), m_width);
    }
    Image throughFrame(render::FrameContext& frame, bool levelOfDetail, render::FrameStats* stats = nullptr,
                       bool mayDraft = false) const {
        Image image;
        image.m_width = m_width;
        image.m_height = m_height;
        image.m_pixels.assign(static_cast<size_t>(m_width) * static_cast<size_t>(m_height), 0);
        const render::FrameStats drawn =
            frame.drawBlocks(m_spec, {image.m_pixels.data(), m_width, m_height, m_width}, levelOfDetail, mayDraft);
        if (stats) *stats = drawn;
        return image;
    }
};

// How far a draft is from its exact picture where it can be judged: pixel by pixel a heap of
// small blocks is noise, which a draft averages, so the means of squares of 20 x 20 pixels are
// compared, channel by channel. The largest difference, in levels of 255.
inline double worstSquareDifference(const Image& exact, const Image& draft) {
    constexpr int kSide = 20;
    double worst = 0;
    for (int top = 0; top + kSide <= exact.m_height; top += kSide)
        for (int left = 0; left + kSide <= exact.m_width; left += kSide)
            for (int shift : {0, 8, 16}) {
                double a = 0, b = 0;
                for (int y = top; y < top + kSide; ++y)
                    for (int x = left; x < left + kSide; ++x) {
                        a += exact.at(x, y) >> shift & 0xff;
                        b += draft.at(x, y) >> shift & 0xff;
                    }
                worst = std::max(worst, std::abs(a - b) / (kSide * kSide));
            }
    return worst;
}

// The whole log's picture (the context view) as `context` draws it, `width` x `height`: `spec`
// on the context's own scale of every address range.
inline std::vector<uint32_t> wholePicture(render::FrameContext& context, render::ViewSpec spec, int width, int height,
                                          bool levelOfDetail, bool mayLag = false, bool mayDraft = false) {
    std::vector<uint32_t> pixels(static_cast<size_t>(width) * static_cast<size_t>(height));
    spec.m_scale = &context.wholeScale(height);
    context.drawWhole({spec, {pixels.data(), width, height, width}, levelOfDetail, mayDraft, mayLag, {}});
    return pixels;
}

}  // namespace memlog::test
