// Export through Cairo's stream writers: PNG from an image surface, SVG and PDF from vector
// surfaces of the same size in points, where the views are embedded as images.
#include "render/report/export.hpp"

#include <cairo-pdf.h>
#include <cairo-svg.h>

#include <algorithm>
#include <cctype>

namespace memlog::render {

bool outputFormatOf(const std::string& path, OutputFormat& format) {
    const size_t dot = path.rfind('.');
    if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return false;
    std::string extension = path.substr(dot + 1);
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (extension == "png")
        format = OutputFormat::Png;
    else if (extension == "svg")
        format = OutputFormat::Svg;
    else if (extension == "pdf")
        format = OutputFormat::Pdf;
    else
        return false;
    return true;
}

namespace {

cairo_status_t writeTo(void* closure, const unsigned char* data, unsigned int length) {
    return std::fwrite(data, 1, length, static_cast<std::FILE*>(closure)) == length ? CAIRO_STATUS_SUCCESS
                                                                                    : CAIRO_STATUS_WRITE_ERROR;
}

void check(cairo_status_t status, const std::string& path) {
    if (status != CAIRO_STATUS_SUCCESS)
        throw ExportError("cannot write " + path + ": " + cairo_status_to_string(status));
}

void paintOn(cairo_surface_t* surface, const Page& page) {
    cairo_t* cr = cairo_create(surface);
    page.paint(cr);
    const cairo_status_t status = cairo_status(cr);
    cairo_destroy(cr);
    if (status != CAIRO_STATUS_SUCCESS)
        throw ExportError(std::string("cannot draw the report: ") + cairo_status_to_string(status));
}

// The report as a page.
class ReportPage final : public Page {
public:
    explicit ReportPage(const Report& report) : m_report(report) {}
    int width() const override { return m_report.options().m_width; }
    int height() const override { return m_report.options().m_height; }
    void paint(cairo_t* cr) const override { m_report.paint(cr); }

private:
    const Report& m_report;
};

}  // namespace

cairo_surface_t* renderImage(const Report& report) { return renderPageImage(ReportPage(report)); }

void exportReport(const Report& report, OutputFormat format, std::FILE* out, const std::string& path) {
    exportPage(ReportPage(report), format, out, path);
}

cairo_surface_t* renderPageImage(const Page& page) {
    cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, page.width(), page.height());
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        const std::string reason = cairo_status_to_string(cairo_surface_status(surface));
        cairo_surface_destroy(surface);
        throw ExportError("cannot make a " + std::to_string(page.width()) + "x" + std::to_string(page.height()) +
                          " image: " + reason);
    }
    try {
        paintOn(surface, page);
    } catch (...) {
        cairo_surface_destroy(surface);
        throw;
    }
    return surface;
}

void exportPage(const Page& page, OutputFormat format, std::FILE* out, const std::string& path) {
    const double width = page.width(), height = page.height();
    cairo_surface_t* surface = nullptr;
    if (format == OutputFormat::Png) {
        surface = renderPageImage(page);
        const cairo_status_t status = cairo_surface_write_to_png_stream(surface, writeTo, out);
        cairo_surface_destroy(surface);
        check(status, path);
    } else {
        surface = format == OutputFormat::Svg ? cairo_svg_surface_create_for_stream(writeTo, out, width, height)
                                              : cairo_pdf_surface_create_for_stream(writeTo, out, width, height);
        try {
            check(cairo_surface_status(surface), path);
            paintOn(surface, page);
            cairo_surface_finish(surface);
            check(cairo_surface_status(surface), path);
        } catch (...) {
            cairo_surface_destroy(surface);
            throw;
        }
        cairo_surface_destroy(surface);
    }
    if (std::fflush(out) != 0 || std::ferror(out)) throw ExportError("cannot write " + path);
}

}  // namespace memlog::render
