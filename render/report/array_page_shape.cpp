// Moved here from memtimeline's main so that the window's array view settles a shape exactly as
// --export does. An array whose rows could not be inferred is drawn as a near-square of its
// elements in order, and says that too.
#include "render/report/array_page_shape.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "timeline/accesses/array_shape.hpp"

namespace memlog::render {

namespace {

std::string percentText(double share) { return std::to_string(static_cast<int>(share * 100 + 0.5)) + "%"; }

bool parseSide(const std::string& text, uint64_t& value) {
    if (text.empty() || text[0] < '0' || text[0] > '9') return false;
    errno = 0;
    char* end = nullptr;
    value = std::strtoull(text.c_str(), &end, 10);
    return errno == 0 && end && *end == '\0' && value > 0 && value <= (1u << 24);
}

}  // namespace

const char* shapeSourceName(ShapeSource source) {
    switch (source) {
        case ShapeSource::Given:
            return "given";
        case ShapeSource::Annotated:
            return "annotated";
        case ShapeSource::Inferred:
            return "inferred";
        case ShapeSource::Assumed:
            return "assumed";
        case ShapeSource::InOrder:
            return "in-order";
    }
    return "?";
}

bool parseArrayDims(const std::string& text, GivenShape& shape) {
    std::vector<uint64_t> sides;
    size_t at = 0;
    while (true) {
        const size_t x = text.find('x', at);
        uint64_t side = 0;
        if (!parseSide(text.substr(at, x == std::string::npos ? std::string::npos : x - at), side)) return false;
        sides.push_back(side);
        if (x == std::string::npos) break;
        at = x + 1;
    }
    if (sides.size() < 2 || sides.size() > 3) return false;
    const uint64_t depth = sides.size() == 3 ? sides[2] : 1;
    if (sides[0] * sides[1] > (1u << 24) || sides[0] * sides[1] * depth > (1u << 24)) return false;
    shape.m_rows = sides[0];
    shape.m_columns = sides[1];
    shape.m_depth = depth;
    return true;
}

std::string settleArrayShape(const GivenShape& given, const timeline::SampledArray& array, ArrayPageOptions& page,
                             SettledShape* settled, size_t candidate, size_t* candidates) {
    SettledShape how;
    const bool elementGiven = given.m_elementSize != 0, dimsGiven = given.m_rows != 0;
    page.m_shapeGiven = elementGiven && dimsGiven;
    page.m_shapeFrom.clear();
    timeline::ArrayShape shape;
    timeline::ShapeGuess guess;
    const bool annotated = array.m_annotatedShape.has_value();
    if (!page.m_shapeGiven && !annotated) guess = timeline::inferShape(array);
    if (candidates) *candidates = guess.m_candidates.size();
    if (candidate % std::max<size_t>(guess.m_candidates.size(), 1) != 0) {  // another row length than the best
        const timeline::RowCandidate& chosen = guess.m_candidates[candidate % guess.m_candidates.size()];
        guess.m_shape.m_columns = chosen.m_columns;
        guess.m_shape.m_rows = array.m_size / std::max<uint64_t>(guess.m_shape.m_elementSize, 1) / chosen.m_columns;
        guess.m_rowConfidence = chosen.m_support;
        guess.m_how += "; showing row length " + std::to_string(candidate % guess.m_candidates.size() + 1) + " of " +
                       std::to_string(guess.m_candidates.size()) + ": " + std::to_string(chosen.m_columns) + " (" +
                       percentText(chosen.m_support) + " agreement)";
    }
    auto fromProgram = [&](const char* what) {
        page.m_shapeFrom.push_back(std::string(what) + " from memlog_array()");
    };
    if (elementGiven) {
        shape.m_elementSize = given.m_elementSize;
    } else if (annotated) {
        shape.m_elementSize = array.m_annotatedShape->m_elementSize;
        fromProgram("element size");
    } else {
        shape.m_elementSize = guess.m_shape.m_elementSize;
        page.m_shapeFrom.push_back("element size inferred (" + percentText(guess.m_elementConfidence) +
                                   " of samples agree)");
    }
    if (shape.m_elementSize == 0) return "no element size to draw with (give --elem)";
    if (dimsGiven) {
        shape.m_rows = given.m_rows, shape.m_columns = given.m_columns;
        shape.m_depth = std::max<uint64_t>(given.m_depth, 1);
        how.m_source = ShapeSource::Given;
    } else if (annotated) {
        shape.m_rows = array.m_annotatedShape->m_rows, shape.m_columns = array.m_annotatedShape->m_columns;
        shape.m_depth = std::max<uint64_t>(array.m_annotatedShape->m_depth, 1);
        fromProgram("dimensions");
        how.m_source = ShapeSource::Annotated;
    } else if (guess.m_shape.m_rows && guess.m_shape.m_columns && guess.m_shape.m_elementSize == shape.m_elementSize) {
        shape.m_rows = guess.m_shape.m_rows, shape.m_columns = guess.m_shape.m_columns;
        shape.m_depth = std::max<uint64_t>(guess.m_shape.m_depth, 1);
        const bool inferred = guess.m_rowConfidence > 0;
        page.m_shapeFrom.push_back(inferred ? "dimensions inferred (" + percentText(guess.m_rowConfidence) +
                                                  " of column steps agree)"
                                            : "dimensions assumed, not inferred: see below (give --dims)");
        how.m_source = inferred ? ShapeSource::Inferred : ShapeSource::Assumed;
        how.m_confidence = guess.m_rowConfidence;
    } else {
        const uint64_t elements = std::max<uint64_t>(array.m_size / shape.m_elementSize, 1);
        shape.m_columns = static_cast<uint64_t>(std::ceil(std::sqrt(static_cast<double>(elements))));
        shape.m_rows = (elements + shape.m_columns - 1) / shape.m_columns;
        shape.m_depth = 1;
        page.m_shapeFrom.push_back("no row length could be inferred: the elements in order, cut into rows of " +
                                   std::to_string(shape.m_columns) + " (give --dims)");
        how.m_source = ShapeSource::InOrder;
        how.m_confidence = 0;
    }
    if (!guess.m_how.empty()) page.m_shapeFrom.push_back("inference: " + guess.m_how);
    if (shape.cells() > (1u << 24)) return std::to_string(shape.cells()) + " cells, more than 16M (give --dims)";
    page.m_shape = shape;
    if (settled) *settled = how;
    return "";
}

}  // namespace memlog::render
