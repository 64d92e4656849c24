// What the window keeps between frames, so that a frame costs what is in view rather than the
// size of the log: the model's index (per x axis), the colouring with each block's and each
// index node's colour (per colouring), the whole log's address scale and picture (the report's
// context view), and the rasteriser's buffers. A Report given one (ReportOptions::m_frame)
// draws through it; ReportOptions::m_levelOfDetail lets it fold what is smaller than a pixel.
// One frame at a time: it is not to be shared between threads (it runs its own two).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "render/block_colouring.hpp"
#include "render/frame_raster.hpp"
#include "timeline/model_index.hpp"

namespace memlog::render {

class FrameContext {
public:
    // The model and sites must outlive the context. Nothing is built until prepare().
    FrameContext(const timeline::BlockModel& model, const timeline::SiteIndex* sites);
    ~FrameContext();
    FrameContext(const FrameContext&) = delete;
    FrameContext& operator=(const FrameContext&) = delete;

    // Level of detail: an index node whose box is at most this many pixels both ways is drawn
    // as one summary of its blocks. 1: what a pixel cannot tell apart anyway.
    double m_foldPixels = 1.0;

    // Makes it ready for frames on `axis` coloured `by` (a Report calls it). The index is built
    // when the axis changes (0.3 s for a million blocks, 3.5 s for ten million), the colours
    // when either changes (a pass over the blocks); otherwise this costs nothing. The colouring
    // covers the whole log, so that colours stay put while the window zooms. The first frame
    // with level of detail after a change of alpha also sums the nodes' colours for it.
    // About 53 bytes a block (32 of them the index's copy of the blocks' boxes), and some 30
    // more while the index is built.
    // `progress` hears 0..1 while anything is built (a window may call this itself, with a
    // progress bar, before its first frame).
    void prepare(timeline::XAxis axis, ColourBy by, const std::function<void(double)>& progress = {});

    timeline::XAxis axis() const { return m_axis; }
    const timeline::ModelIndex& index() const { return *m_index; }
    const BlockColouring& colouring() const { return m_colouring; }

    // Fills `target` with the blocks of `spec` (its axis the prepared one, no bins), as
    // drawBlocks does: split in tiles, drawn by two threads. With `levelOfDetail`,
    // nodes of at most m_foldPixels are folded.
    FrameStats drawBlocks(const ViewSpec& spec, PixelBuffer target, bool levelOfDetail);

    // The address scale of the whole log (every range) for a view `height` pixels tall, and its
    // picture (`spec`: the whole x extent on that scale): made once per size and settings,
    // then copied.
    const AddressScale& wholeScale(double height);
    void drawWhole(const ViewSpec& spec, PixelBuffer target, bool levelOfDetail);

    // What the last drawBlocks() cost.
    const FrameStats& lastStats() const { return m_lastStats; }

private:
    void buildColours();
    void summariseNodes(double alpha);
    FrameStats draw(const ViewSpec& spec, PixelBuffer target, bool levelOfDetail);
    static constexpr size_t kTileBytes = 512 << 10;
    static std::vector<Tile> tilesOf(int width, int height, bool categorical);

    const timeline::BlockModel& m_model;
    const timeline::SiteIndex* m_sites;
    timeline::XAxis m_axis = timeline::XAxis::Time;
    ColourBy m_colourBy = ColourBy::Site;
    std::unique_ptr<timeline::ModelIndex> m_index;
    BlockColouring m_colouring;
    FrameColours m_colours;
    double m_nodeAlpha = -1;  // the alpha of the nodes' summaries; -1: none yet
    uint64_t m_generation = 0;  // grows whenever the index or the colours change
    TileRaster m_rasters[2];  // one a thread
    FrameStats m_lastStats;

    struct WholeScale {
        double m_height = -1;
        uint64_t m_generation = 0;
        AddressScale m_scale;
    } m_wholeScale;
    struct WholePicture {
        int m_width = 0, m_height = 0;
        double m_alpha = 0;
        CushionStyle m_cushion = CushionStyle::None;
        uint64_t m_generation = 0;
        std::vector<uint32_t> m_pixels;
    } m_wholePictures[2];  // exact, and with level of detail
};

}  // namespace memlog::render
