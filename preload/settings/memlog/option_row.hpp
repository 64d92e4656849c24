// One option or setting as a row of plain data (its name, the kind of value it takes, the range,
// the default, one help line), and the one way a value of it is read and said: memlog's commands,
// memtimeline (timeline/base/option_table.hpp) and the recorder's MEMLOG_* settings
// (memlog/recorder_settings.hpp) are declared as such rows. Header-only, constexpr and free of
// allocation, exceptions and library calls: the recorder reads its settings before libc is up.
#pragma once

#include <cstddef>
#include <cstdint>

namespace memlog::options {

enum class Kind : uint8_t {
    Switch,  // an option given or not; a setting 0 or 1
    Count,  // a whole number in [m_low, m_high]
    ByteSize,  // bytes, K, M or G allowed (powers of 1024), in [m_low, m_high]
    Duration,  // a time with a unit (ns, us, ms, s) or plain nanoseconds, in [m_low, m_high] ns
    Real,  // a decimal number in [m_realLow, m_realHigh] (above m_realLow with m_aboveLow)
    Choice,  // one of m_choices
    Text,  // any text of at most m_high bytes; m_check says what is wrong with a composite one
    Path,  // a file or folder's name of at most m_high bytes
};

struct Row {
    const char* m_name;  // "--top"; a setting's variable, "MEMLOG_STACK_DEPTH"
    const char* m_short = nullptr;  // "-o"
    Kind m_kind = Kind::Switch;
    uint64_t m_low = 0, m_high = UINT64_MAX;  // Count, ByteSize, Duration; Text and Path: m_high bytes
    double m_realLow = 0, m_realHigh = 0;
    bool m_aboveLow = false;
    const char* m_choices = nullptr;  // "libunwind|fp|none"
    const char* m_default = nullptr;  // as typed; nullptr: none (the option's absence means something)
    const char* m_valueName = nullptr;  // "N" in "--top N"
    const char* m_help = "";  // one line; the range, the choices and the default are added to it
    // A composite Text value (WxH, FROM:TO): why the value is not one, nullptr when it is.
    const char* (*m_check)(const char* value) = nullptr;
    const char* m_needs = nullptr;  // an option that must be given with this one ("--array")
    // An option the command cannot do without: the mistake said when it is not given, or given
    // empty ("where to? (-o FILE)").
    const char* m_whenMissing = nullptr;
    bool m_repeatable = false;  // every value kept (--cursor); else the last one given counts
    bool m_valueOptional = false;  // the next argument is the value unless it starts with '-'
};

constexpr bool sameText(const char* a, const char* b) {
    while (*a && *a == *b) ++a, ++b;
    return *a == *b;
}

constexpr size_t textLength(const char* text) {
    size_t length = 0;
    while (text[length]) ++length;
    return length;
}

// ---- Numbers: digits, at most one '.', then a unit. Every number a person types reaches memlog
// through readNumber or readReal (counts, sizes, times, factors) or readHex (addresses).

struct Unit {
    const char* m_name;
    uint64_t m_scale;
};
inline constexpr Unit kCountUnits[] = {{"", 1}};
inline constexpr Unit kByteUnits[] = {{"", 1},           {"K", 1ull << 10}, {"k", 1ull << 10}, {"M", 1ull << 20},
                                      {"m", 1ull << 20}, {"G", 1ull << 30}, {"g", 1ull << 30}};
inline constexpr Unit kTimeUnits[] = {{"", 1},           {"ns", 1},         {"us", 1000},
                                      {"\u00b5s", 1000}, {"ms", 1'000'000}, {"s", 1'000'000'000}};

struct Decimal {
    uint64_t m_digits = 0;  // "1.25" -> 125
    uint32_t m_places = 0;  // ... and 2
    const char* m_rest = nullptr;  // what follows the number
};

// Leading digits with, where `fraction`, one '.' among them; false without a digit or past 64 bits.
constexpr bool readDecimal(const char* text, bool fraction, Decimal& number) {
    number = {};
    bool anyDigit = false, point = false;
    const char* at = text;
    for (;; ++at) {
        if (*at >= '0' && *at <= '9') {
            const uint64_t digit = static_cast<uint64_t>(*at - '0');
            if (number.m_digits > (UINT64_MAX - digit) / 10) return false;
            number.m_digits = number.m_digits * 10 + digit;
            number.m_places += point;
            anyDigit = true;
        } else if (*at == '.' && fraction && !point) {
            point = true;
        } else {
            break;
        }
    }
    number.m_rest = at;
    return anyDigit;
}

// "1.5s" with kTimeUnits -> 1500000000, "32K" with kByteUnits -> 32768, "12" -> 12. A fraction
// (where `fraction`) is rounded to the nearest whole unit. False for a sign, no digit, a unit
// not in `units`, or more than 64 bits.
constexpr bool readNumber(const char* text, const Unit* units, size_t unitCount, bool fraction, uint64_t& value) {
    Decimal number;
    if (!readDecimal(text, fraction, number)) return false;
    // An index, not a pointer: GCC's undefined-behaviour sanitizer makes a pointer's comparison
    // with null non-constant, and the recorder's settings are checked at compile time.
    size_t found = unitCount;
    for (size_t i = 0; i < unitCount && found == unitCount; ++i)
        if (sameText(number.m_rest, units[i].m_name)) found = i;
    if (found == unitCount) return false;
    uint64_t product = 0, divisor = 1;
    if (__builtin_mul_overflow(number.m_digits, units[found].m_scale, &product)) return false;
    for (uint32_t i = 0; i < number.m_places; ++i) divisor *= 10;  // at most 10^19: fits
    value = product / divisor + (product % divisor >= divisor - divisor / 2 && divisor > 1);
    return true;
}

// "0.3" -> 0.3: the digits over a power of ten, both exact in a double, so correctly rounded.
constexpr bool readReal(const char* text, double& value) {
    Decimal number;
    if (!readDecimal(text, true, number) || *number.m_rest || number.m_digits > (1ull << 53) || number.m_places > 22)
        return false;
    double divisor = 1;
    for (uint32_t i = 0; i < number.m_places; ++i) divisor *= 10;
    value = static_cast<double>(number.m_digits) / divisor;
    return true;
}

// "0x7f0000001000" or "7f0000001000": an address; false for anything else or more than 64 bits.
constexpr bool readHex(const char* text, uint64_t& value) {
    if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text += 2;
    if (!*text) return false;
    value = 0;
    for (; *text; ++text) {
        const char c = *text;
        const int digit = c >= '0' && c <= '9'   ? c - '0'
                          : c >= 'a' && c <= 'f' ? c - 'a' + 10
                          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                 : -1;
        if (digit < 0 || value >> 60) return false;
        value = value << 4 | static_cast<uint64_t>(digit);
    }
    return true;
}

// The position of `text` among "a|b|c", -1 when it is none of them.
constexpr int choiceIndex(const char* choices, const char* text) {
    int index = 0;
    for (const char* at = choices;; ++index) {
        const char* word = text;
        while (*word && *at == *word) ++at, ++word;
        if (!*word && (*at == '|' || !*at)) return index;
        while (*at && *at != '|') ++at;
        if (!*at) return -1;
        ++at;
    }
}

// ---- One value of a row, read and checked.

struct Value {
    uint64_t m_number = 0;  // Switch (0 or 1), Count, ByteSize, Duration
    double m_real = 0;
    int m_choice = -1;
    const char* m_text = nullptr;  // Choice, Text, Path: the text itself
    const char* m_problem = nullptr;  // a failed m_check's reason
};

// False when `text` is not a value of `row` (then `expected` says what is, or m_problem why not).
constexpr bool readValue(const Row& row, const char* text, Value& value) {
    value = {};
    value.m_text = text;
    switch (row.m_kind) {
        case Kind::Switch:
            if (!sameText(text, "0") && !sameText(text, "1")) return false;
            value.m_number = text[0] == '1';
            return true;
        case Kind::Count:
            return readNumber(text, kCountUnits, 1, false, value.m_number) && value.m_number >= row.m_low &&
                   value.m_number <= row.m_high;
        case Kind::ByteSize:
            return readNumber(text, kByteUnits, sizeof kByteUnits / sizeof *kByteUnits, false, value.m_number) &&
                   value.m_number >= row.m_low && value.m_number <= row.m_high;
        case Kind::Duration:
            return readNumber(text, kTimeUnits, sizeof kTimeUnits / sizeof *kTimeUnits, true, value.m_number) &&
                   value.m_number >= row.m_low && value.m_number <= row.m_high;
        case Kind::Real:
            return readReal(text, value.m_real) &&
                   (row.m_aboveLow ? value.m_real > row.m_realLow : value.m_real >= row.m_realLow) &&
                   value.m_real <= row.m_realHigh;
        case Kind::Choice:
            value.m_choice = choiceIndex(row.m_choices, text);
            return value.m_choice >= 0;
        case Kind::Text:
        case Kind::Path:
            if (textLength(text) > row.m_high) return false;
            if (row.m_check) value.m_problem = row.m_check(text);
            return value.m_problem == nullptr;
    }
    return false;
}

// The value a row stands at when it is not given (0 for a row without a default).
constexpr Value defaultValue(const Row& row) {
    Value value;
    if (row.m_default) readValue(row, row.m_default, value);
    return value;
}

// ---- Saying a row's values: a short text in a fixed buffer, for the recorder's lines and the
// readers' errors and help alike.

struct Phrase {
    char m_text[256] = {};
    size_t m_length = 0;

    constexpr Phrase& add(const char* text) {
        while (*text && m_length + 1 < sizeof m_text) m_text[m_length++] = *text++;
        return *this;
    }
    constexpr Phrase& addNumber(uint64_t number) {
        char digits[24] = {};
        int count = 0;
        do digits[count++] = static_cast<char>('0' + number % 10);
        while ((number /= 10) != 0);
        while (count > 0 && m_length + 1 < sizeof m_text) m_text[m_length++] = digits[--count];
        return *this;
    }
    constexpr Phrase& addReal(double number) {  // at most three decimals: 0.5, 4, 0.125
        const uint64_t thousandths = static_cast<uint64_t>(number * 1000 + 0.5);
        addNumber(thousandths / 1000);
        if (uint64_t fraction = thousandths % 1000) {
            add(".");
            for (uint64_t place = 100; fraction; place /= 10) {
                addNumber(fraction / place);
                fraction %= place;
            }
        }
        return *this;
    }
    // The choices "a|b|c" as "a, b or c".
    constexpr Phrase& addChoices(const char* choices) {
        for (const char* at = choices; *at; ++at) {
            if (*at != '|') {
                const char letter[2] = {*at, 0};
                add(letter);
                continue;
            }
            const char* later = at + 1;
            while (*later && *later != '|') ++later;
            add(*later ? ", " : " or ");
        }
        return *this;
    }
};

// The range of a numeric row as help gives it: "1 to 256", "above 0, at most 1", "0 or more";
// empty when any value of its kind will do.
constexpr Phrase rangeText(const Row& row) {
    Phrase phrase;
    const bool bounded = row.m_high != UINT64_MAX;
    switch (row.m_kind) {
        case Kind::Count:
        case Kind::ByteSize:
            if (bounded)
                phrase.addNumber(row.m_low).add(" to ").addNumber(row.m_high);
            else if (row.m_low > 0)
                phrase.addNumber(row.m_low).add(" or more");
            break;
        case Kind::Duration:
            if (row.m_low == 1)
                phrase.add("above 0");
            else if (row.m_low > 1)
                phrase.add("at least ").addNumber(row.m_low).add(" ns");
            break;
        case Kind::Real:
            if (row.m_aboveLow)
                phrase.add("above ").addReal(row.m_realLow).add(", at most ").addReal(row.m_realHigh);
            else
                phrase.addReal(row.m_realLow).add(" to ").addReal(row.m_realHigh);
            break;
        default:
            break;
    }
    return phrase;
}

// What a value of `row` must be: "a number from 1 to 256", "libunwind, fp or none", "0 or 1".
constexpr Phrase expectedText(const Row& row) {
    Phrase phrase;
    const Phrase range = rangeText(row);
    switch (row.m_kind) {
        case Kind::Switch:
            return phrase.add("0 or 1");
        case Kind::Count:
            if (row.m_high != UINT64_MAX) return phrase.add("a number from ").add(range.m_text);
            return phrase.add("a number, ").addNumber(row.m_low).add(" or more");
        case Kind::ByteSize:
            phrase.add("a size in bytes, K, M or G allowed (such as 4096, 32K or 8M)");
            if (range.m_length) phrase.add(", ").add(range.m_text);
            return phrase;
        case Kind::Duration:
            phrase.add("a time");
            if (range.m_length) phrase.add(" ").add(range.m_text).add(",");
            return phrase.add(" with a unit (ns, us, ms, s: such as 50us) or in nanoseconds");
        case Kind::Real:
            return phrase.add("a number ").add(row.m_aboveLow ? "" : "from ").add(range.m_text);
        case Kind::Choice:
            return phrase.addChoices(row.m_choices);
        case Kind::Text:
            return phrase.add("text of at most ").addNumber(row.m_high).add(" bytes");
        case Kind::Path:
            return phrase.add("a path of at most ").addNumber(row.m_high).add(" bytes");
    }
    return phrase;
}

}  // namespace memlog::options
