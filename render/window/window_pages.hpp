// Pages the window shows instead of the time x address view: an array's cells (issue 21), the
// cache's main memory display and the working set of a full trace (issue 22), two runs compared
// (compare_window_page.hpp). Each is drawn by the page an export writes (render/report/), at the
// window's size; the first three are played back by a PlaybackClock: an array's samples light
// their cells, a trace's accesses light their lines.
#pragma once

#include <cairo.h>

#include <memory>
#include <string>
#include <vector>

#include "render/report/array_page.hpp"
#include "render/report/array_page_shape.hpp"
#include "render/report/cache_pages.hpp"
#include "render/window/playback_clock.hpp"
#include "timeline/model/block_model.hpp"
#include "timeline/trace/cache_model.hpp"
#include "timeline/accesses/sampled_arrays.hpp"

namespace memlog::render {

class WindowPage {
public:
    virtual ~WindowPage() = default;
    // Paints the page over the whole of `cr`, `width` x `height` pixels, at the clock's time once
    // playback has begun (before: the page as --export draws it).
    virtual void paint(cairo_t* cr, int width, int height) = 0;
    // What --trace prints of the page: "page=array array=c shape=256x256 ...".
    virtual std::string describe() const = 0;
    PlaybackClock& clock() { return m_clock; }
    const PlaybackClock& clock() const { return m_clock; }
    // Whether the page reads the block model it was made from while it is shown (then that
    // log is kept alive for it when the window reads the log again).
    virtual bool readsModel() const { return false; }
    // A page with a time axis the user zooms and pans (the compare page): zoom by `factor` (> 1:
    // closer) about window pixel x, pan by a fraction of the width, show the whole again. False:
    // the page has none.
    virtual bool zoomTime(double /*factor*/, double /*x*/) { return false; }
    virtual bool panTime(double /*fraction*/) { return false; }
    virtual bool resetTime() { return false; }
    // Playback has begun (play or a step): the page shows the lit samples from then on.
    bool playing() const { return m_begun; }
    void beginPlayback() { m_begun = true; }
    void endPlayback() {
        m_begun = false;
        m_clock.restart();
    }

protected:
    // "paused, 2x" and the like, for a page's header.
    std::string statusText() const;
    // The playback fields of describe(): "playing=1 t=... lit=..."
    std::string playbackFields(size_t lit) const;
    PlaybackClock m_clock;
    bool m_begun = false;
};

// One array's page. The shape comes from the user (setShape), memlog_array() or the inference,
// and the page says which; `status` is how the user can change it.
class ArrayWindowPage final : public WindowPage {
public:
    // Empty `error` when the array can be drawn; else why not (nothing is drawn then).
    ArrayWindowPage(timeline::SampledArray array, std::string logName, std::vector<PhaseMark> phases,
                    std::string* error);
    void paint(cairo_t* cr, int width, int height) override;
    std::string describe() const override;
    // Dimensions and element size as the user gave them ("" when settled, else why not: the
    // shape shown stays).
    std::string setShape(const GivenShape& given);
    const timeline::SampledArray& array() const { return m_array; }
    // Zooming in halves the picture's tiles down to single cells; zooming out doubles them back
    // up to what the samples asked for. False when there is nothing finer or coarser.
    bool zoomTiles(bool in);
    // The next row length the samples support (memlog arrays --candidates), round to the best:
    // "" when shown, else why not (a shape given or from memlog_array(), or one length alone).
    std::string nextRowLength();

private:
    void settled();
    timeline::SampledArray m_array;
    ArrayPageOptions m_options;
    GivenShape m_given;
    SettledShape m_settled;
    std::unique_ptr<ArrayPage> m_page;  // drawn at the window's size, remade when it changes
    uint64_t m_tile = 0, m_tileForSamples = 1;  // the page's tiles (0: as the samples ask), and that
    size_t m_candidate = 0, m_candidates = 0;  // the row length shown, of the inference's (best: 0)
    SampleTimes m_times;
    std::vector<int64_t> m_cellOfSample;  // -1: past the shape's last element
    size_t m_lit = 0;
};

// The cache's main memory display of a full trace, its accesses lighting their lines green (hit)
// or red (miss) as they play.
class MemoryWindowPage final : public WindowPage {
public:
    MemoryWindowPage(const timeline::BlockModel& model, const timeline::CacheGeometry& geometry, std::string logPath);
    void paint(cairo_t* cr, int width, int height) override;
    std::string describe() const override;
    bool readsModel() const override { return true; }

private:
    const timeline::BlockModel& m_model;
    timeline::CacheGeometry m_geometry;
    std::string m_logPath;
    std::vector<uint8_t> m_missOfMark;
    SampleTimes m_times;
    std::unique_ptr<MemoryDisplayPage> m_page;
    size_t m_lit = 0, m_litMisses = 0;
};

// ExpertMemer's working set of a full trace; playing it moves a time line across it.
class WorkingSetWindowPage final : public WindowPage {
public:
    WorkingSetWindowPage(const timeline::BlockModel& model, uint32_t lineBytes, uint64_t idleNs, std::string logPath);
    void paint(cairo_t* cr, int width, int height) override;
    std::string describe() const override;
    bool readsModel() const override { return true; }

private:
    const timeline::BlockModel& m_model;
    uint32_t m_lineBytes;
    uint64_t m_idleNs;
    std::string m_logPath;
    std::unique_ptr<WorkingSetPage> m_page;
};

}  // namespace memlog::render
