// What is drawn over a view's blocks, once they are drawn (and whether they were drawn or
// copied from a kept picture): access samples, cursors; later an array's phases. A layer never
// changes the blocks' picture that a view cache keeps, so layers are drawn on every frame.
#pragma once

#include "render/raster/block_view.hpp"
#include "render/raster/pixel_buffer.hpp"

namespace memlog::render {

class ViewLayer {
public:
    virtual ~ViewLayer() = default;
    // Draws over `target`, which holds `spec`'s blocks.
    virtual void draw(const ViewSpec& spec, PixelBuffer target) const = 0;
};

}  // namespace memlog::render
