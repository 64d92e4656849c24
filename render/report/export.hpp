// Reports to files: the format comes from the file name (.png, .svg, .pdf; Cairo writes all
// three from the same drawing), written through a stream the caller opened, so that an
// unwritable path is reported before any work is done.
#pragma once

#include <cairo.h>

#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>

#include "render/report/report.hpp"

namespace memlog::render {

enum class OutputFormat { Png, Svg, Pdf };

// By the extension, ignoring case; false for any other.
bool outputFormatOf(const std::string& path, OutputFormat& format);

class ExportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Any page: its size (pixels, or points for SVG and PDF) and how it is painted.
struct Page {
    int m_width = 0, m_height = 0;
    std::function<void(cairo_t*)> m_paint;
};

// Paints `page` and writes it to `out`. Throws ExportError (a sentence naming `path`).
void exportPage(const Page& page, OutputFormat format, std::FILE* out, const std::string& path);
cairo_surface_t* renderPageImage(const Page& page);

// Paints `report` and writes it to `out`. Throws ExportError (a sentence naming `path`).
void exportReport(const Report& report, OutputFormat format, std::FILE* out, const std::string& path);

// The report as an ARGB32 image surface (the caller destroys it): for tests, and the window.
cairo_surface_t* renderImage(const Report& report);

}  // namespace memlog::render
