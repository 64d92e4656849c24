// The recorder's settings, one row per MEMLOG_ variable: the recorder reads them from its
// environment (preload/src/start/settings.cpp), `memlog run` turns its options into them and
// prints their help (timeline/cli/run_command.cpp), and every MEMLOG_ name memlog's parts read is
// here, so that the recorder knows which names are misspelt. Limits, defaults and help: here only.
#pragma once

#include "memlog/option_row.hpp"

namespace memlog::options {

// Who sets a variable. README.md's settings table and `memlog run --help` list a Person's.
enum class Audience : uint8_t {
    Person,  // the recorder's settings, for LD_PRELOAD without the launcher
    Launcher,  // set by `memlog run` for the recorders it starts, not meant for people
    Tools,  // read by memlog and memtimeline, which a program's environment may carry along
    Tests,  // read by the test suite
};

// The rows in order: kRecorderSettings[id].
enum class Setting : uint8_t {
    Out,
    Quiet,
    Unwind,
    StackDepth,
    FreeStacks,
    UnwindCheck,
    UnwindIncremental,
    Access,
    AccessRate,
    Watch,
    WatchRate,
    FullTrace,
    RunList,
    OnlyPid,
    Library,
    TraceToolDir,
    LogLevel,
    CacheDir,
    UpdateGolden,
};

struct RecorderSetting {
    Setting m_id;
    Row m_row;  // m_name: the variable
    Audience m_audience = Audience::Person;
    // `memlog run`'s option for it: it takes the row's kind of value, or, for a Switch, sets the
    // value that is not the default; and the switch it turns on too (--access-rate: --access).
    const char* m_runOption = nullptr;
    const char* m_runImplies = nullptr;
};

// Paths the recorder keeps in fixed buffers of this many bytes with the terminating NUL.
inline constexpr uint64_t kLongestSettingPath = 1023;

inline constexpr RecorderSetting kRecorderSettings[] = {
    {Setting::Out,
     {.m_name = "MEMLOG_OUT",
      .m_kind = Kind::Path,
      .m_high = kLongestSettingPath,
      .m_default = "%e.%p.memlog",
      .m_valueName = "FILE",
      .m_help = "the log's path: %p becomes the pid, %e the program's name; an existing file is never written "
                "over: the log goes to FILE.1.memlog, FILE.2.memlog, ..., so that forked and exec'd children get "
                "logs of their own"}},
    {Setting::Quiet, {.m_name = "MEMLOG_QUIET", .m_default = "0", .m_help = "no \"recording\" line on stderr"}},
    {Setting::Unwind,
     {.m_name = "MEMLOG_UNWIND",
      .m_kind = Kind::Choice,
      .m_choices = "libunwind|fp|none",
      .m_default = "libunwind",
      .m_valueName = "MODE",
      .m_help = "call stacks with libunwind (DWARF: works everywhere), fp (frame pointers: faster, needs "
                "-fno-omit-frame-pointer) or none"},
     Audience::Person,
     "--unwind"},
    {Setting::StackDepth,
     {.m_name = "MEMLOG_STACK_DEPTH",
      .m_kind = Kind::Count,
      .m_low = 1,
      .m_high = 256,
      .m_default = "64",
      .m_valueName = "N",
      .m_help = "at most N frames per stack"},
     Audience::Person,
     "--depth"},
    {Setting::FreeStacks,
     {.m_name = "MEMLOG_FREE_STACKS", .m_default = "1", .m_help = "no call stacks on frees"},
     Audience::Person,
     "--no-free-stacks"},
    {Setting::UnwindCheck,
     {.m_name = "MEMLOG_UNWIND_CHECK",
      .m_default = "0",
      .m_help = "take every stack twice (libunwind or fp), incrementally and by a full walk, and count in the "
                "log how many differ (memlog stat --json: unwind_checked, unwind_mismatches, unwind_full_walks); "
                "the full walk's stack is kept. For tests, and for anyone who doubts a stack"}},
    {Setting::UnwindIncremental,
     {.m_name = "MEMLOG_UNWIND_INCREMENTAL",
      .m_default = "1",
      .m_help = "walk every stack in full instead of reusing the frames walked for earlier events"}},
    {Setting::Access,
     {.m_name = "MEMLOG_ACCESS",
      .m_default = "0",
      .m_help = "also sample memory accesses: every so much CPU time each thread is stopped and the instruction "
                "it was about to run is decoded (what it reads or writes, how many bytes, and its call stack); "
                "where the sampler cannot run (under a debugger), one line on stderr says why and allocations "
                "are still recorded"},
     Audience::Person,
     "--access"},
    {Setting::AccessRate,
     {.m_name = "MEMLOG_ACCESS_RATE",
      .m_kind = Kind::Count,
      .m_low = 1,
      .m_high = 100'000,
      .m_default = "1000",
      .m_valueName = "N",
      .m_help = "N ticks a CPU-second per thread (the default costs little; 5000 and more cost more)"},
     Audience::Person,
     "--access-rate",
     "MEMLOG_ACCESS"},
    {Setting::Watch,
     {.m_name = "MEMLOG_WATCH",
      .m_default = "0",
      .m_help = "also follow sampled words with the CPU's debug registers: the next access by any thread (reuse "
                "time, hand-offs between threads) and uses after free (memlog uaf); samples accesses too. Where "
                "the registers do not fire, one line on stderr says so and the ticks go on"},
     Audience::Person,
     "--watch"},
    {Setting::WatchRate,
     {.m_name = "MEMLOG_WATCH_RATE",
      .m_kind = Kind::Count,
      .m_low = 1,
      .m_high = 100'000,
      .m_default = "500",
      .m_valueName = "N",
      .m_help = "at most N watchpoint traps a second"},
     Audience::Person,
     "--watch-rate",
     "MEMLOG_WATCH"},
    {Setting::FullTrace,
     {.m_name = "MEMLOG_FULL_TRACE",
      .m_default = "0",
      .m_help = "mark the recorder's own work for `memlog run --full-trace`, which runs the program under "
                "Valgrind"},
     Audience::Launcher},
    {Setting::RunList,
     {.m_name = "MEMLOG_RUN_LIST",
      .m_kind = Kind::Path,
      .m_high = kLongestSettingPath,
      .m_valueName = "FILE",
      .m_help = "the file each new log's path is appended to, one line each, so that `memlog run` can list and "
                "rename them"},
     Audience::Launcher},
    {Setting::OnlyPid,
     {.m_name = "MEMLOG_ONLY_PID",
      .m_kind = Kind::Count,
      .m_low = 1,
      .m_high = UINT32_MAX,
      .m_valueName = "PID",
      .m_help = "record only this process and the programs it execs (`memlog run --no-children`); other "
                "processes run unrecorded"},
     Audience::Launcher},
    {Setting::Library,
     {.m_name = "MEMLOG_LIBRARY",
      .m_kind = Kind::Path,
      .m_high = kLongestSettingPath,
      .m_valueName = "FILE",
      .m_help = "where `memlog run` finds libmemlog.so"},
     Audience::Tools},
    {Setting::TraceToolDir,
     {.m_name = "MEMLOG_TRACE_TOOL_DIR",
      .m_kind = Kind::Path,
      .m_high = kLongestSettingPath,
      .m_valueName = "DIR",
      .m_help = "where `memlog run --full-trace` finds memlog's Valgrind tool (and the links to Valgrind's files)"},
     Audience::Tools},
    {Setting::LogLevel,
     {.m_name = "MEMLOG_LOG_LEVEL",
      .m_kind = Kind::Choice,
      .m_choices = "trace|debug|info|warn|error|critical|off",
      .m_default = "info",
      .m_valueName = "LEVEL",
      .m_help = "the lines memlog and memtimeline write on stderr"},
     Audience::Tools},
    {Setting::CacheDir,
     {.m_name = "MEMLOG_CACHE_DIR",
      .m_kind = Kind::Path,
      .m_high = kLongestSettingPath,
      .m_valueName = "DIR",
      .m_help = "where memlog and memtimeline keep the names of frames (DIR/names; empty: nowhere)"},
     Audience::Tools},
    {Setting::UpdateGolden,
     {.m_name = "MEMLOG_UPDATE_GOLDEN", .m_default = "0", .m_help = "the tests write their expected pictures anew"},
     Audience::Tests},
};

constexpr const RecorderSetting& recorderSetting(Setting id) { return kRecorderSettings[static_cast<size_t>(id)]; }

// The row of a variable, nullptr for a name that is none of them.
constexpr const RecorderSetting* findRecorderSetting(const char* name, size_t length) {
    for (const RecorderSetting& setting : kRecorderSettings) {
        const char* known = setting.m_row.m_name;
        size_t at = 0;
        while (at < length && known[at] == name[at]) ++at;
        if (at == length && !known[at]) return &setting;
    }
    return nullptr;
}

constexpr bool recorderSettingsHold() {
    for (size_t i = 0; i < sizeof kRecorderSettings / sizeof *kRecorderSettings; ++i) {
        const RecorderSetting& setting = kRecorderSettings[i];
        if (static_cast<size_t>(setting.m_id) != i) return false;  // kRecorderSettings[id] is id's row
        Value value;
        if (setting.m_row.m_default && !readValue(setting.m_row, setting.m_row.m_default, value)) return false;
        if (setting.m_runImplies) {
            const RecorderSetting* implied =
                findRecorderSetting(setting.m_runImplies, textLength(setting.m_runImplies));
            if (!implied || implied->m_row.m_kind != Kind::Switch) return false;
        }
    }
    return true;
}
static_assert(recorderSettingsHold(), "each row in its id's place, its default a value, its implied switch a row");

}  // namespace memlog::options
