// The recorder's settings, read once from the environment the process started with. Each field's
// variable, limits and default are its row in memlog/recorder_settings.hpp.
#pragma once

#include <cstdint>

#include "memlog/format.hpp"
#include "memlog/recorder_settings.hpp"

namespace memlog::preload {

constexpr options::Value settingDefault(options::Setting id) {
    return options::defaultValue(options::recorderSetting(id).m_row);
}

// MEMLOG_UNWIND's choices, in the order its row names them.
inline constexpr format::UnwindMode kUnwindModes[] = {format::UnwindMode::Libunwind, format::UnwindMode::FramePointer,
                                                      format::UnwindMode::None};

struct Settings {
    using Setting = options::Setting;
    char m_outputTemplate[options::kLongestSettingPath + 1] = {};  // MEMLOG_OUT; %p pid, %e program, %% percent
    bool m_quiet = settingDefault(Setting::Quiet).m_number;
    format::UnwindMode m_unwind = kUnwindModes[settingDefault(Setting::Unwind).m_choice];
    uint32_t m_stackDepth = static_cast<uint32_t>(settingDefault(Setting::StackDepth).m_number);
    bool m_freeStacks = settingDefault(Setting::FreeStacks).m_number;
    bool m_incremental = settingDefault(Setting::UnwindIncremental).m_number;  // reuse walked frames
    bool m_unwindCheck = settingDefault(Setting::UnwindCheck).m_number;  // compare with a full walk
    bool m_access = settingDefault(Setting::Access).m_number;  // sample memory accesses
    uint32_t m_accessRate = static_cast<uint32_t>(settingDefault(Setting::AccessRate).m_number);
    bool m_fullTrace = settingDefault(Setting::FullTrace).m_number;  // markers for memlog run --full-trace
    bool m_watch = settingDefault(Setting::Watch).m_number;  // watchpoints on sampled words
    uint32_t m_watchRate = static_cast<uint32_t>(settingDefault(Setting::WatchRate).m_number);
    // Set by `memlog run`: the file each new log's path is appended to, and the one pid to record
    // (`--no-children`: its execs are recorded, other processes run unrecorded; 0: every process).
    char m_runList[options::kLongestSettingPath + 1] = {};
    uint32_t m_onlyPid = 0;
};

// Reads /proc/self/environ rather than getenv: the first allocation can come before libc has set
// up environ. A bad value prints one line on stderr and keeps the default; a MEMLOG_ name that
// is no row of the table, one line too.
void readSettings(Settings& settings);

// The basename of argv[0] and the command line, from /proc/self/cmdline.
void readProgramName(char* name, uint32_t capacity, char* commandLine, uint32_t commandCapacity);

}  // namespace memlog::preload
