// The array page: one array of a log as a grid of cells (2-D), or its planes side by side and
// stacked isometrically (3-D), or a playback strip of its samples in time order; with what the
// picture rests on (how many samples, over what time), the shape and where it came from, the
// program's phases, and a key to the colours.
#pragma once

#include <cairo.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "render/raster/array_grid.hpp"
#include "render/report/cairo_draw.hpp"
#include "render/report/phase_marks.hpp"
#include "timeline/accesses/array_cells.hpp"
#include "timeline/accesses/array_playback.hpp"
#include "timeline/accesses/sampled_arrays.hpp"

namespace memlog::render {

struct ArrayPageOptions {
    int m_width = 1600, m_height = 1000;
    timeline::ArrayShape m_shape;
    timeline::ArrayOrder m_order = timeline::ArrayOrder::RowMajor;
    CellColouring m_colouring = CellColouring::FirstTouch;
    timeline::AccessFilter m_accesses = timeline::AccessFilter::Both;
    uint32_t m_frames = 0;  // 0: the cells' picture; N: a playback strip of N frames
    uint32_t m_fade = 3;  // a playback's touches fade over this many frames
    uint64_t m_tile = 0;  // the picture's tiles of N x N cells: 0 as the samples ask, 1 single cells
    bool m_shapeGiven = false;  // --elem and --dims both given
    std::vector<std::string> m_shapeFrom;  // lines: where the element size and the dimensions came from
    std::vector<PhaseMark> m_phases;
    std::string m_logName;
};

// Where everything goes, in whole pixels (a raster paints 1:1 and a test can find a cell).
struct ArrayPageLayout {
    double m_fontSize = 11;
    Rect m_header, m_notes;
    std::vector<Rect> m_planes;  // the picture: one per plane; a playback: one per frame
    Rect m_isometric;  // a 3-D picture's stack; empty otherwise
};

ArrayPageLayout arrayPageLayout(const ArrayPageOptions& options);

class ArrayPage {
public:
    ArrayPage(const timeline::SampledArray& array, ArrayPageOptions options);
    const ArrayPageOptions& options() const { return m_options; }
    const ArrayPageLayout& layout() const { return m_layout; }
    const timeline::ArrayCells& cells() const { return m_cells; }
    // The picture's tile side (1: single cells), what the samples asked for (tileForSamples), and
    // the cells the picture draws: the tiles', or the cells themselves. A page playing back
    // (setLive) lights single cells.
    uint64_t tile() const { return m_tile; }
    uint64_t tileForSamples() const { return m_tileForSamples; }
    const timeline::ArrayCells& shown() const { return m_tile > 1 && !m_live ? m_tiles : m_cells; }
    void paint(cairo_t* cr) const;
    // The window's playback at `nowNs`: these cells lit over the picture (as a frame of a
    // playback strip is drawn), `status` (speed, paused) in the header. An empty `status` and no
    // touches still mark the page as playing: the key shows the playback's colours.
    void setLive(std::vector<FadingTouch> touches, uint64_t nowNs, std::string status);
    void clearLive() { m_live.reset(); }
    bool live() const { return m_live.has_value(); }

private:
    struct Live {
        std::vector<FadingTouch> m_touches;
        uint64_t m_nowNs = 0;
        std::string m_status;
    };
    void paintHeader(cairo_t* cr) const;
    void paintPicture(cairo_t* cr) const;
    void paintIsometric(cairo_t* cr) const;
    void paintPlayback(cairo_t* cr) const;
    void paintNotes(cairo_t* cr) const;

    const timeline::SampledArray& m_array;
    ArrayPageOptions m_options;
    ArrayPageLayout m_layout;
    timeline::ArrayCells m_cells;
    uint64_t m_tile = 1, m_tileForSamples = 1;
    timeline::ArrayCells m_tiles;  // when m_tile > 1
    timeline::Playback m_playback;
    std::optional<Live> m_live;
};

}  // namespace memlog::render
