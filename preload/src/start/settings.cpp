// Reads the MEMLOG_* settings through their rows (memlog/recorder_settings.hpp), without allocating.
#include "start/settings.hpp"

#include <cstring>

#include "base/system.hpp"

namespace memlog::preload {
namespace {

using options::Setting;

constexpr uint32_t kEnvironBytes = 256 * 1024;
char s_environ[kEnvironBytes];  // static: too big for a thread's stack, used once at start

// The environment the process started with: NAME=VALUE strings one after another.
struct Environment {
    const char* m_text;
    size_t m_length;

    template <typename Visit>
    void forEach(Visit visit) const {
        for (size_t at = 0; at < m_length;) {
            const char* entry = m_text + at;
            const size_t entryLength = std::strlen(entry);
            at += entryLength + 1;
            const char* equals = std::strchr(entry, '=');
            if (equals) visit(entry, static_cast<size_t>(equals - entry), equals + 1);
        }
    }
    const char* find(const char* name) const {
        const char* found = nullptr;
        const size_t length = std::strlen(name);
        forEach([&](const char* entry, size_t nameLength, const char* value) {
            if (!found && nameLength == length && std::memcmp(entry, name, length) == 0) found = value;
        });
        return found;
    }
};

// One line: the variable, its value (a path's is left out: it may be longer than the line) and
// what it should be, then what is kept instead.
void complain(const options::Row& row, const char* text) {
    sys::Line line;
    line << "memlog: " << row.m_name;
    if (row.m_kind != options::Kind::Path) line << "=" << text;
    line << " is not " << options::expectedText(row).m_text;
    if (row.m_default)
        line << "; using " << row.m_default << "\n";
    else
        line << "; ignored\n";
    line.emit();
}

// True and the value when the variable is set to one of its values; false when it is not set
// (NAME= for a path counts as not set), or set wrong: then one line says so.
bool readSetting(const Environment& environment, Setting id, options::Value& value) {
    const options::Row& row = options::recorderSetting(id).m_row;
    const char* text = environment.find(row.m_name);
    if (!text || (!*text && row.m_kind == options::Kind::Path)) return false;
    if (options::readValue(row, text, value)) return true;
    complain(row, text);
    return false;
}

void readSwitch(const Environment& environment, Setting id, bool& field) {
    if (options::Value value; readSetting(environment, id, value)) field = value.m_number != 0;
}

void readCount(const Environment& environment, Setting id, uint32_t& field) {
    if (options::Value value; readSetting(environment, id, value)) field = static_cast<uint32_t>(value.m_number);
}

void readPath(const Environment& environment, Setting id, char* field, size_t capacity) {
    if (options::Value value; readSetting(environment, id, value)) sys::copyCut(field, capacity, value.m_text);
}

// A misspelt setting (MEMLOG_OUTPUT for MEMLOG_OUT) would otherwise do nothing, silently. Every
// name memlog's parts read is a row of the table, the launcher's and the tools' too.
void warnUnknownVariables(const Environment& environment) {
    environment.forEach([](const char* entry, size_t nameLength, const char*) {
        if (nameLength < 7 || std::strncmp(entry, "MEMLOG_", 7) != 0) return;
        if (options::findRecorderSetting(entry, nameLength)) return;
        char name[64];
        const size_t kept = nameLength < sizeof name - 1 ? nameLength : sizeof name - 1;
        std::memcpy(name, entry, kept);
        name[kept] = '\0';
        (sys::Line() << "memlog: " << name << " is not a memlog setting; ignored (memlog run --help lists them)\n")
            .emit();
    });
}

}  // namespace

void readSettings(Settings& settings) {
    const Environment environment{s_environ, sys::slurp("/proc/self/environ", s_environ, kEnvironBytes)};
    sys::copyCut(settings.m_outputTemplate, sizeof settings.m_outputTemplate,
                 options::recorderSetting(Setting::Out).m_row.m_default);
    readPath(environment, Setting::Out, settings.m_outputTemplate, sizeof settings.m_outputTemplate);
    readPath(environment, Setting::RunList, settings.m_runList, sizeof settings.m_runList);
    readCount(environment, Setting::OnlyPid, settings.m_onlyPid);
    readSwitch(environment, Setting::Quiet, settings.m_quiet);
    if (options::Value unwind; readSetting(environment, Setting::Unwind, unwind))
        settings.m_unwind = kUnwindModes[unwind.m_choice];
    readCount(environment, Setting::StackDepth, settings.m_stackDepth);
    readSwitch(environment, Setting::FreeStacks, settings.m_freeStacks);
    readSwitch(environment, Setting::UnwindIncremental, settings.m_incremental);
    readSwitch(environment, Setting::UnwindCheck, settings.m_unwindCheck);
    readSwitch(environment, Setting::Access, settings.m_access);
    readCount(environment, Setting::AccessRate, settings.m_accessRate);
    readSwitch(environment, Setting::FullTrace, settings.m_fullTrace);
    readSwitch(environment, Setting::Watch, settings.m_watch);
    readCount(environment, Setting::WatchRate, settings.m_watchRate);
    // Watchpoints follow the words that tick samples found: they need the ticks.
    if (settings.m_watch) settings.m_access = true;
    warnUnknownVariables(environment);
}

void readProgramName(char* name, uint32_t capacity, char* commandLine, uint32_t commandCapacity) {
    static char cmdline[8192];
    const size_t length = sys::slurp("/proc/self/cmdline", cmdline, sizeof(cmdline));
    const char* argv0 = cmdline;
    const char* base = std::strrchr(argv0, '/');
    base = base ? base + 1 : argv0;
    if (!*base) base = "program";
    std::strncpy(name, base, capacity - 1);
    name[capacity - 1] = '\0';
    uint32_t out = 0;
    for (size_t i = 0; i < length && out + 1 < commandCapacity; ++i)
        commandLine[out++] = cmdline[i] ? cmdline[i] : ' ';
    while (out > 0 && commandLine[out - 1] == ' ') --out;
    commandLine[out] = '\0';
}

}  // namespace memlog::preload
