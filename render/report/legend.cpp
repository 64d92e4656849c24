// Legend drawing: headings, colour swatches with names, the ordinal map as a gradient strip
// with its two ends labelled, and notes; long names are cut to the column's width.
#include "render/report/legend.hpp"

#include "render/raster/colour_map.hpp"

namespace memlog::render {

double drawLegend(cairo_t* cr, const std::vector<LegendItem>& items, const Rect& area, double fontSize) {
    const double line = fontSize * 1.5;
    const double swatch = fontSize * 1.05;
    double y = area.m_y;
    for (size_t i = 0; i < items.size(); ++i) {
        const LegendItem& item = items[i];
        switch (item.m_kind) {
            case LegendItem::Kind::Heading:
                if (i > 0) y += line * 0.6;
                setFont(cr, fontSize, true);
                setColour(cr, kTextColour);
                drawText(cr, item.m_label, area.m_x, y + fontSize, Align::Left, area.m_width);
                y += line;
                break;
            case LegendItem::Kind::Swatch: {
                const Rect box{area.m_x, y + (line - swatch) / 2 - 1, swatch, swatch};
                fillRect(cr, box, item.m_colour);
                strokeRect(cr, box, kFrameColour, 0.5);
                setFont(cr, fontSize * 0.92);
                setColour(cr, kTextColour);
                drawText(cr, item.m_label, area.m_x + swatch + fontSize * 0.6, y + fontSize * 0.95, Align::Left,
                         area.m_width - swatch - fontSize * 0.6);
                y += line;
                break;
            }
            case LegendItem::Kind::Gradient: {
                const Rect strip{area.m_x, y + 2, area.m_width, fontSize};
                cairo_pattern_t* gradient = cairo_pattern_create_linear(strip.m_x, 0, strip.right(), 0);
                for (int stop = 0; stop <= 16; ++stop) {
                    const Rgb colour = ordinalColour(stop / 16.0);
                    cairo_pattern_add_color_stop_rgb(gradient, stop / 16.0, colour.m_r, colour.m_g, colour.m_b);
                }
                cairo_set_source(cr, gradient);
                cairo_rectangle(cr, strip.m_x, strip.m_y, strip.m_width, strip.m_height);
                cairo_fill(cr);
                cairo_pattern_destroy(gradient);
                strokeRect(cr, strip, kFrameColour, 0.5);
                setFont(cr, fontSize * 0.88);
                setColour(cr, kTextColour);
                const double labels = strip.bottom() + fontSize * 1.1;
                drawText(cr, item.m_low, strip.m_x, labels, Align::Left, strip.m_width / 2 - 4);
                drawText(cr, item.m_high, strip.right(), labels, Align::Right, strip.m_width / 2 - 4);
                y += fontSize * 2.6;
                break;
            }
            case LegendItem::Kind::Note:
                setFont(cr, fontSize * 0.88);
                setColour(cr, kMutedTextColour);
                drawText(cr, item.m_label, area.m_x, y + fontSize * 0.9, Align::Left, area.m_width);
                y += line * 0.9;
                break;
        }
        if (y > area.bottom()) break;
    }
    return y - area.m_y;
}

}  // namespace memlog::render
