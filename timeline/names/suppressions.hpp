// Leak suppressions: blocks that are never freed by design (a runtime's one-time buffers) are
// counted apart from the leaks, never dropped. Built-in rules for known runtime allocations,
// plus LeakSanitizer-style `leak:PATTERN` lines from a file.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "timeline/replay/stack_metrics.hpp"
#include "unwind/symbolizer.hpp"

namespace memlog::timeline {

class StackNames;

struct SuppressionRule {
    std::string m_pattern;  // `leak:` pattern; for built-ins, how the rule reads
    std::string m_origin;  // "built-in" or "FILE:LINE"
    std::string m_why;  // built-ins: what the allocation is
    bool m_builtIn = false;
    int m_builtInKind = 0;  // which built-in matcher (suppressions.cpp)
};

// A stack as the rules read it, a return address at a time (innermost first): the module of each,
// known without reading debug information, and its source frames (inlined calls expanded), named
// only when a rule asks. The built-in rules name only the C library's frames, and a stack with
// none needs no names at all; leak: patterns try the modules before naming anything.
class StackView {
public:
    virtual ~StackView() = default;
    virtual size_t addresses() const = 0;
    virtual const std::string& module(size_t address) = 0;
    virtual std::span<const unwind::SourceFrame> frames(size_t address) = 0;
};

class Suppressions {
public:
    // The built-in rules only.
    Suppressions();
    // Adds the `leak:PATTERN` lines of a file (comments start with '#'). Throws LogError naming
    // the file and the byte offset of a line it cannot read.
    void load(const std::string& path);
    const std::vector<SuppressionRule>& rules() const { return m_rules; }
    // The first rule that matches a stack (innermost frame first), or nullptr.
    const SuppressionRule* match(const std::vector<unwind::SourceFrame>& frames) const;
    const SuppressionRule* match(StackView& stack) const;
    // The same for a stack of the log, named through `names` only as far as the rules ask.
    const SuppressionRule* matchStack(StackNames& names, uint32_t stack) const;

private:
    std::vector<SuppressionRule> m_rules;
};

// LeakSanitizer's pattern: a substring of the function, module or file name; '*' matches any
// run of characters, '^' at the start and '$' at the end anchor it.
bool patternMatches(const std::string& pattern, const std::string& text);

// Moves the leaks of every matching stack from leaked to suppressed, in the stacks and the
// summary alike.
void applySuppressions(MeasuredLog& measured, StackNames& names, const Suppressions& suppressions);

}  // namespace memlog::timeline
