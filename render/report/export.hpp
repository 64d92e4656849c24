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

// What a file holds: a page of a size that paints itself (the report, the cache views' pages).
class Page {
public:
    virtual ~Page() = default;
    virtual int width() const = 0;
    virtual int height() const = 0;
    virtual void paint(cairo_t* cr) const = 0;
};

// A page from its size and what paints it (the array page).
class PaintedPage final : public Page {
public:
    PaintedPage(int width, int height, std::function<void(cairo_t*)> paint)
        : m_width(width), m_height(height), m_paint(std::move(paint)) {}
    int width() const override { return m_width; }
    int height() const override { return m_height; }
    void paint(cairo_t* cr) const override { m_paint(cr); }

private:
    int m_width, m_height;
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
