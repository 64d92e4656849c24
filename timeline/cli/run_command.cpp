// memlog run: start a program with the recorder preloaded, wait for it, give the launched
// process's last image the -o name and list every log written. The exit status (or the signal
// that ended the program) is passed on as this process's own.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <deque>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "commands.hpp"
#include "timeline/base/diagnostics.hpp"
#include "log_list.hpp"
#include "memlog/recorder_settings.hpp"

namespace memlog::cli {
namespace {

using options::Kind;
using options::RecorderSetting;
using options::Row;
using options::Setting;

const char* variable(Setting id) { return options::recorderSetting(id).m_row.m_name; }

constexpr Row kBeforeSettings[] = {
    {.m_name = "--output",
     .m_short = "-o",
     .m_kind = Kind::Path,
     .m_high = options::kLongestSettingPath,
     .m_valueName = "FILE",
     .m_help = "write the log to FILE (an existing FILE is replaced); %p in FILE becomes the pid, %e the program "
               "name; a relative FILE is taken from the current folder, wherever the programs change to"},
    {.m_name = "--python-objects",
     .m_help = "set PYTHONMALLOC=malloc: CPython then allocates every object with malloc, so each is a block of "
               "its own (otherwise pymalloc keeps small objects inside its arenas, a few mappings, and the log "
               "shows no objects)"},
    {.m_name = "--no-children",
     .m_help = "record only the launched process (each program it execs in turn), not the processes it starts"},
};

constexpr Row kAfterSettings[] = {
    {.m_name = "--full-trace",
     .m_help = "record every load and store of the program, not samples: it runs under memlog's own Valgrind "
               "tool (about 30 to 100 times slower), which writes each access, with its thread and the thread's "
               "instruction count, in its place among the allocations; memlog cache then simulates a cache over "
               "them. Forked children and exec'd programs are traced too, each into its own log. Needs Valgrind "
               "(Debian: valgrind)"},
    {.m_name = "--quiet", .m_short = "-q", .m_help = "no \"recording\" lines and no list of logs on stderr"},
    {.m_name = "--verbose", .m_short = "-v", .m_help = "the launcher's details on stderr (what it set)"},
};

// memlog run's syntax: its own options around those of the recorder's settings (their rows with
// the option's name), and in its help the settings as variables, all from the same rows.
class RunSyntax {
public:
    RunSyntax() {
        m_options.assign(std::begin(kBeforeSettings), std::end(kBeforeSettings));
        for (const RecorderSetting& setting : options::kRecorderSettings) {
            if (setting.m_audience != options::Audience::Person) continue;
            Row asVariable = setting.m_row;
            if (setting.m_runOption) {
                Row asOption = setting.m_row;
                asOption.m_name = setting.m_runOption;
                if (setting.m_runImplies)
                    asOption.m_help =
                        keep(std::string(asOption.m_help) + "; implies " + runOptionOf(setting.m_runImplies));
                m_options.push_back(asOption);
                asVariable.m_help = keep(std::string("as ") + setting.m_runOption);
            }
            m_variables.push_back(asVariable);
        }
        m_options.insert(m_options.end(), std::begin(kAfterSettings), std::end(kAfterSettings));
        m_notes =
            "The same settings as environment variables, for LD_PRELOAD without this launcher\n"
            "(README.md):\n" +
            timeline::optionLines(m_variables, timeline::RowLabel::Variable) + "\n" + variable(Setting::Library) +
            " overrides where the launcher finds libmemlog.so, " + variable(Setting::TraceToolDir) +
            "\nthe folder of memlog's Valgrind tool. `memlog ls DIR` lists the logs of a folder as\n"
            "the closing list does.\n";
    }
    timeline::CommandSyntax syntax() const {
        return {.m_usage = "memlog run [OPTIONS] [--] PROGRAM [ARGS]",
                .m_about = R"(Runs PROGRAM with libmemlog.so in LD_PRELOAD and waits for it. The log goes to
./PROGRAM.PID.memlog unless -o says otherwise. Children that PROGRAM forks or
execs are recorded too, each into a log of its own (a numbered neighbour of the
name when it is taken). When PROGRAM is a launcher (a shell script, env, a
version manager's shim) that ends by exec'ing the real program, the -o name goes
to that last image of the launched process; its earlier images (the shell, env)
get numbered names. At the end one line per log on stderr: program, pid,
events, byte peak and path, the launched program's first and the rest by events.
The exit status is PROGRAM's (a program killed by a signal kills memlog alike).
)",
                .m_options = m_options,
                .m_notes = m_notes.c_str(),
                .m_operand = "program",
                .m_operandEndsOptions = true};
    }

private:
    static std::string runOptionOf(const char* name) {
        const RecorderSetting* setting = options::findRecorderSetting(name, std::strlen(name));
        return setting && setting->m_runOption ? setting->m_runOption : name;
    }
    const char* keep(std::string text) { return m_texts.emplace_back(std::move(text)).c_str(); }

    std::vector<Row> m_options, m_variables;
    std::deque<std::string> m_texts;  // the help lines made here: rows point into them
    std::string m_notes;
};

std::string findLibrary() {
    if (const char* library = std::getenv(variable(Setting::Library)); library && *library) return library;
    return findBesideMemlog("libmemlog.so");
}

pid_t s_child = 0;

// SIGTERM and SIGHUP sent to the launcher (by a supervisor, or a closed terminal) go on to the
// program; SIGINT and SIGQUIT from the terminal reach the program directly (same process group).
void forwardSignal(int signal) {
    if (s_child > 0) kill(s_child, signal);
}

void handleSignalsWhileWaiting() {
    struct sigaction forward {};
    forward.sa_handler = forwardSignal;
    sigemptyset(&forward.sa_mask);
    forward.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &forward, nullptr);
    sigaction(SIGHUP, &forward, nullptr);
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
}

// Ends this process as the program ended: the same exit status, or killed by the same signal
// (without a core file of the launcher's own).
int passOnStatus(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (!WIFSIGNALED(status)) return 1;
    const int signal = WTERMSIG(status);
    const struct rlimit noCore { 0, 0 };
    setrlimit(RLIMIT_CORE, &noCore);
    std::fflush(nullptr);
    ::signal(signal, SIG_DFL);
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, signal);
    sigprocmask(SIG_UNBLOCK, &unblock, nullptr);
    raise(signal);
    return 128 + signal;
}

// The logs the recorder listed (each process appends its log's path once), in the order made.
std::vector<std::string> readRunList(const std::string& listPath) {
    std::vector<std::string> paths;
    std::set<std::string> seen;
    std::ifstream list(listPath);
    for (std::string line; std::getline(list, line);)
        if (!line.empty() && seen.insert(line).second) paths.push_back(line);
    return paths;
}

// Swaps the names of two logs, atomically where the file system can (a process still starting
// could otherwise take the free name between two renames).
bool exchangeNames(const std::string& a, const std::string& b) {
    if (renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0) return true;
    const std::string parked = a + ".swap-" + std::to_string(getpid());
    if (rename(a.c_str(), parked.c_str()) != 0) return false;
    if (rename(b.c_str(), a.c_str()) != 0) {
        rename(parked.c_str(), a.c_str());
        return false;
    }
    return rename(parked.c_str(), b.c_str()) == 0;
}

// After the run: the -o name to the launched pid's last image (an earlier image took it, the
// later ones got numbered neighbours), then one line per log. `target` is the -o name when it
// names one file; empty when it holds %p (then the launched pid's first log has the name).
void finishRun(const std::string& listPath, pid_t launched, bool renameLast, const std::string& target, bool quiet,
               const std::string& cwd, bool fullTrace) {
    std::vector<LogLine> lines;
    for (const std::string& path : readRunList(listPath)) lines.push_back(describeLog(path));
    size_t first = lines.size(), last = lines.size(), named = lines.size();
    for (size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].m_path == target) named = i;
        if (lines[i].m_pid != static_cast<uint32_t>(launched) || !lines[i].m_error.empty()) continue;
        if (first == lines.size()) first = i;
        if (last == lines.size() || lines[i].m_startNs >= lines[last].m_startNs) last = i;
    }
    if (target.empty()) named = first;
    if (renameLast && last < lines.size() && last != named) {
        bool moved = false;
        if (named < lines.size()) {
            moved = exchangeNames(lines[named].m_path, lines[last].m_path);
            if (moved) std::swap(lines[named].m_path, lines[last].m_path);
        } else if (link(lines[last].m_path.c_str(), target.c_str()) == 0) {  // the name is free: never replace
            moved = unlink(lines[last].m_path.c_str()) == 0;
            lines[last].m_path = target;
        }
        if (!moved)
            std::fprintf(stderr, "memlog: run: cannot give the name %s to the log %s: %s\n",
                         (named < lines.size() ? lines[named].m_path : target).c_str(), lines[last].m_path.c_str(),
                         std::strerror(errno));
    }
    if (quiet || lines.empty()) return;
    if (fullTrace) {
        std::vector<std::string> paths;
        for (const LogLine& line : lines) paths.push_back(line.m_path);
        printFullTraces(paths);
    }
    for (LogLine& line : lines)
        if (line.m_path.starts_with(cwd + "/")) line.m_path.erase(0, cwd.size() + 1);
    orderLogLines(lines, last);
    std::fprintf(stderr, "memlog: %zu log%s written:\n%s", lines.size(), lines.size() == 1 ? "" : "s",
                 logLinesText(lines, "  ").c_str());
}

}  // namespace

// Beside this executable: build/bin -> build/lib; installed, PREFIX/bin -> PREFIX/<libdir>
// (lib/x86_64-linux-gnu when the prefix is /usr on Debian).
std::string findBesideMemlog(const std::string& relative) {
    char self[PATH_MAX];
    const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) return {};
    self[length] = '\0';
    std::string dir(self);
    dir.erase(dir.rfind('/'));
    for (const std::string libdir : {"lib", MEMLOG_INSTALL_LIBDIR}) {
        const std::string candidate = dir + "/../" + libdir + "/" + relative;
        if (access(candidate.c_str(), R_OK) == 0) return candidate;
    }
    return dir + "/../lib/" + relative;
}

int runCommand(const Arguments& arguments) {
    const RunSyntax syntax;
    const CommandLine line = readCommandLine("run", syntax.syntax(), arguments);
    if (line.m_exit >= 0) return line.m_exit;
    const timeline::ParsedOptions& options = line.m_options;
    if (options.given("--verbose")) diagnostics::setup("memlog", diagnostics::Verbosity::Verbose);
    const std::string output = options.text("--output");
    const bool quiet = options.given("--quiet"), fullTrace = options.given("--full-trace");
    // The recorder's variables as the options set them, each option's implied switch with it.
    std::vector<std::pair<std::string, std::string>> settings;
    for (const RecorderSetting& setting : options::kRecorderSettings) {
        if (!setting.m_runOption || !options.given(setting.m_runOption)) continue;
        const Row& row = setting.m_row;
        settings.emplace_back(
            row.m_name, row.m_kind == Kind::Switch ? timeline::switchedValue(row) : options.text(setting.m_runOption));
        if (setting.m_runImplies) settings.emplace_back(setting.m_runImplies, "1");
    }
    const bool samples = std::any_of(settings.begin(), settings.end(), [](const auto& assignment) {
        return assignment.first == variable(Setting::Access) || assignment.first == variable(Setting::Watch);
    });
    if (fullTrace && samples)
        return usageError("run: --full-trace records every access: no samples or watchpoints with it",
                          "Try 'memlog run --help'.");

    const std::string library = findLibrary();
    if (library.empty() || access(library.c_str(), R_OK) != 0)
        return usageError(
            "run: cannot find the recorder library at '" + library + "' (set " + variable(Setting::Library) + ")",
            nullptr);
    char resolved[PATH_MAX];
    const std::string preload = realpath(library.c_str(), resolved) ? resolved : library;
    char here[PATH_MAX];
    const std::string cwd = getcwd(here, sizeof here) ? here : ".";

    // Every log beside the -o name (or in this folder), even for programs that change folder.
    const bool named = !output.empty();
    std::string logTemplate = named ? output : "%e.%p.memlog";
    if (logTemplate[0] != '/') logTemplate = cwd + "/" + logTemplate;
    if (named && output.find('%') == std::string::npos && unlink(output.c_str()) != 0 && errno != ENOENT)
        return usageError("run: cannot replace '" + output + "': " + std::strerror(errno), nullptr);
    setenv(variable(Setting::Out), logTemplate.c_str(), 1);
    for (const auto& [name, value] : settings) setenv(name.c_str(), value.c_str(), 1);
    if (quiet) setenv(variable(Setting::Quiet), "1", 1);
    if (options.given("--python-objects")) setenv("PYTHONMALLOC", "malloc", 1);
    const char* existing = std::getenv("LD_PRELOAD");
    const std::string combined = existing && *existing ? preload + ":" + existing : preload;
    setenv("LD_PRELOAD", combined.c_str(), 1);

    std::vector<std::string> program = options.operands();
    if (fullTrace)
        if (const int status = prepareFullTrace(program); status >= 0) return status;
    const char* temporary = std::getenv("TMPDIR");
    std::string listPath = std::string(temporary && *temporary ? temporary : "/tmp") + "/memlog-run.XXXXXX";
    const int listFd = mkstemp(listPath.data());
    if (listFd < 0)
        listPath.clear();
    else
        close(listFd);
    if (!listPath.empty()) setenv(variable(Setting::RunList), listPath.c_str(), 1);

    diagnostics::debug("run: LD_PRELOAD=" + combined + " " + variable(Setting::Out) + "=" + logTemplate +
                       (listPath.empty() ? "" : std::string(" ") + variable(Setting::RunList) + "=" + listPath));
    std::vector<char*> argv;
    for (std::string& word : program) argv.push_back(word.data());
    argv.push_back(nullptr);
    int execError[2];
    if (pipe2(execError, O_CLOEXEC) != 0) return usageError(std::string("run: pipe: ") + std::strerror(errno), nullptr);
    std::fflush(nullptr);
    s_child = fork();
    if (s_child < 0) return usageError(std::string("run: fork: ") + std::strerror(errno), nullptr);
    if (s_child == 0) {
        close(execError[0]);
        if (options.given("--no-children")) setenv(variable(Setting::OnlyPid), std::to_string(getpid()).c_str(), 1);
        execvp(argv[0], argv.data());
        const int error = errno;
        (void)!write(execError[1], &error, sizeof error);
        _exit(127);
    }
    close(execError[1]);
    handleSignalsWhileWaiting();
    int error = 0;
    ssize_t got;
    while ((got = read(execError[0], &error, sizeof error)) < 0 && errno == EINTR) {
    }
    close(execError[0]);
    int status = 0;
    while (waitpid(s_child, &status, 0) < 0 && errno == EINTR) {
    }
    if (got == sizeof error) {
        if (!listPath.empty()) unlink(listPath.c_str());
        std::fprintf(stderr, "memlog: run: cannot run '%s': %s\n", argv[0], std::strerror(error));
        return error == ENOENT ? 127 : 126;
    }
    if (!listPath.empty()) {
        const bool renameLast = named && output.find("%e") == std::string::npos;
        const std::string target = named && output.find('%') == std::string::npos ? logTemplate : "";
        finishRun(listPath, s_child, renameLast, target, quiet, cwd, fullTrace);
        unlink(listPath.c_str());
    }
    return passOnStatus(status);
}

}  // namespace memlog::cli
