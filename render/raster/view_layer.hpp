// What is drawn over a view's blocks, once they are drawn (and whether they were drawn or
// copied from a kept picture): access samples, cursors; later an array's phases. A layer never
// changes the blocks' picture that a view cache keeps, so layers are drawn on every frame.
#pragma once

#include <functional>

#include "render/raster/block_view.hpp"
#include "render/raster/pixel_buffer.hpp"

namespace memlog::render {

class ViewLayer {
public:
    virtual ~ViewLayer() = default;
    // Draws over `target`, which holds `spec`'s blocks.
    virtual void draw(const ViewSpec& spec, PixelBuffer target) const = 0;
    // The same, stopping when `giveWay` says so (input is waiting: the window's exact drawing of
    // a draft gives way to it), then false: `target` is left half drawn. Layers that are quick
    // draw whole.
    virtual bool drawGivingWay(const ViewSpec& spec, PixelBuffer target, const std::function<bool()>& giveWay) const {
        (void)giveWay;
        draw(spec, target);
        return true;
    }
};

}  // namespace memlog::render
