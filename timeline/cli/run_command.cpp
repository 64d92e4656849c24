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
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "commands.hpp"
#include "timeline/base/diagnostics.hpp"
#include "log_list.hpp"

namespace memlog::cli {
namespace {

constexpr const char* kHelp = R"(usage: memlog run [OPTIONS] [--] PROGRAM [ARGS]

Runs PROGRAM with libmemlog.so in LD_PRELOAD and waits for it. The log goes to
./PROGRAM.PID.memlog unless -o says otherwise. Children that PROGRAM forks or
execs are recorded too, each into a log of its own (a numbered neighbour of the
name when it is taken). When PROGRAM is a launcher (a shell script, env, a
version manager's shim) that ends by exec'ing the real program, the -o name goes
to that last image of the launched process; its earlier images (the shell, env)
get numbered names. At the end one line per log on stderr: program, pid,
events, byte peak and path, the launched program's first and the rest by events.
The exit status is PROGRAM's (a program killed by a signal kills memlog alike).

  -o, --output FILE        write the log to FILE (an existing FILE is replaced);
                           %p in FILE becomes the pid, %e the program name;
                           a relative FILE is taken from the current folder,
                           wherever the programs change to
  --python-objects         set PYTHONMALLOC=malloc: CPython then allocates every
                           object with malloc, so each is a block of its own
                           (otherwise pymalloc keeps small objects inside its
                           arenas, a few mappings, and the log shows no objects)
  --no-children            record only the launched process (each program it
                           execs in turn), not the processes it starts
  --unwind MODE            call stacks with libunwind (default), fp (frame
                           pointers: faster, needs -fno-omit-frame-pointer) or none
  --depth N                at most N frames per stack, 1..256 (default 64)
  --no-free-stacks         no call stacks on frees
  --access                 also sample memory accesses: every so much CPU time
                           each thread is stopped and the instruction it was
                           about to run is decoded (what it reads or writes, and
                           its call stack); where the sampler cannot run (under
                           a debugger), one line on stderr says why and
                           allocations are still recorded
  --access-rate N          N ticks a CPU-second per thread, 1..100000 (default
                           1000: costs little; 5000 and more cost more; implies
                           --access)
  --watch                  also follow sampled words with the CPU's debug
                           registers: the next access by any thread (reuse
                           time, hand-offs between threads) and uses after
                           free (`memlog uaf`); implies --access. Where the
                           registers do not fire, one line on stderr says so
  --watch-rate N           at most N watchpoint traps a second, 1..100000
                           (default 500; implies --watch)
  --full-trace             record every load and store of the program, not
                           samples: it runs under memlog's own Valgrind tool
                           (about 30 to 100 times slower), which writes each
                           access, with its thread and the thread's instruction
                           count, in its place among the allocations; memlog
                           cache then simulates a cache over them. Forked
                           children and exec'd programs are traced too, each
                           into its own log. Needs Valgrind (Debian: valgrind)
  -q, --quiet              no "recording" lines and no list of logs on stderr
  -v, --verbose            the launcher's details on stderr (what it set)

The same settings as environment variables, for LD_PRELOAD without this launcher:
MEMLOG_OUT, MEMLOG_UNWIND, MEMLOG_STACK_DEPTH, MEMLOG_FREE_STACKS=0, MEMLOG_QUIET=1,
MEMLOG_ACCESS=1, MEMLOG_ACCESS_RATE, MEMLOG_WATCH=1, MEMLOG_WATCH_RATE, MEMLOG_UNWIND_CHECK=1,
MEMLOG_UNWIND_INCREMENTAL=0 (README.md).
MEMLOG_LIBRARY overrides where the launcher finds libmemlog.so, MEMLOG_TRACE_TOOL_DIR
the folder of memlog's Valgrind tool. `memlog ls DIR` lists the logs of a folder as
the closing list does.
)";

std::string findLibrary() {
    if (const char* library = std::getenv("MEMLOG_LIBRARY"); library && *library) return library;
    return findBesideMemlog("libmemlog.so");
}

// A whole decimal number in [low, high].
bool isNumberIn(const std::string* text, long low, long high) {
    if (!text || text->empty()) return false;
    char* end = nullptr;
    const long n = std::strtol(text->c_str(), &end, 10);
    return !*end && n >= low && n <= high;
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
    std::string output, unwind, depth, accessRate, watchRate;
    bool noFreeStacks = false, quiet = false, sampleAccesses = false, watchWords = false, noChildren = false,
         pythonObjects = false, fullTrace = false;
    size_t i = 0;
    for (; i < arguments.size(); ++i) {
        const std::string& argument = arguments[i];
        auto value = [&](const char* option) -> const std::string* {
            if (i + 1 >= arguments.size()) return nullptr;
            (void)option;
            return &arguments[++i];
        };
        if (argument == "--") {
            ++i;
            break;
        }
        if (argument == "--help" || argument == "-h") {
            std::fputs(kHelp, stdout);
            return 0;
        }
        if (argument == "-o" || argument == "--output") {
            const std::string* v = value("-o");
            if (!v) return usageError("run: " + argument + " needs a file name", "Try 'memlog run --help'.");
            output = *v;
        } else if (argument == "--unwind") {
            const std::string* v = value("--unwind");
            if (!v || (*v != "libunwind" && *v != "fp" && *v != "none"))
                return usageError("run: --unwind takes libunwind, fp or none", "Try 'memlog run --help'.");
            unwind = *v;
        } else if (argument == "--depth") {
            const std::string* v = value("--depth");
            if (!isNumberIn(v, 1, 256))
                return usageError("run: --depth takes a number from 1 to 256", "Try 'memlog run --help'.");
            depth = *v;
        } else if (argument == "--no-free-stacks") {
            noFreeStacks = true;
        } else if (argument == "--no-children") {
            noChildren = true;
        } else if (argument == "--python-objects") {
            pythonObjects = true;
        } else if (argument == "--access") {
            sampleAccesses = true;
        } else if (argument == "--access-rate") {
            const std::string* v = value("--access-rate");
            if (!isNumberIn(v, 1, 100000))
                return usageError("run: --access-rate takes a number from 1 to 100000", "Try 'memlog run --help'.");
            accessRate = *v;
            sampleAccesses = true;
        } else if (argument == "--watch") {
            watchWords = true;
        } else if (argument == "--watch-rate") {
            const std::string* v = value("--watch-rate");
            if (!isNumberIn(v, 1, 100000))
                return usageError("run: --watch-rate takes a number from 1 to 100000", "Try 'memlog run --help'.");
            watchRate = *v;
            watchWords = true;
        } else if (argument == "--full-trace") {
            fullTrace = true;
        } else if (argument == "-q" || argument == "--quiet") {
            quiet = true;
        } else if (argument == "-v" || argument == "--verbose") {
            diagnostics::setup("memlog", diagnostics::Verbosity::Verbose);
        } else if (!argument.empty() && argument[0] == '-') {
            return usageError("run: unknown option '" + argument + "'", "Try 'memlog run --help'.");
        } else {
            break;
        }
    }
    if (i >= arguments.size())
        return usageError("run: which program?", "usage: memlog run [OPTIONS] [--] PROGRAM [ARGS]");
    if (fullTrace && (sampleAccesses || watchWords))
        return usageError("run: --full-trace records every access: no samples or watchpoints with it",
                          "Try 'memlog run --help'.");

    const std::string library = findLibrary();
    if (library.empty() || access(library.c_str(), R_OK) != 0)
        return usageError("run: cannot find the recorder library at '" + library + "' (set MEMLOG_LIBRARY)", nullptr);
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
    setenv("MEMLOG_OUT", logTemplate.c_str(), 1);
    if (!unwind.empty()) setenv("MEMLOG_UNWIND", unwind.c_str(), 1);
    if (!depth.empty()) setenv("MEMLOG_STACK_DEPTH", depth.c_str(), 1);
    if (noFreeStacks) setenv("MEMLOG_FREE_STACKS", "0", 1);
    if (quiet) setenv("MEMLOG_QUIET", "1", 1);
    if (pythonObjects) setenv("PYTHONMALLOC", "malloc", 1);
    if (sampleAccesses) setenv("MEMLOG_ACCESS", "1", 1);
    if (!accessRate.empty()) setenv("MEMLOG_ACCESS_RATE", accessRate.c_str(), 1);
    if (watchWords) setenv("MEMLOG_WATCH", "1", 1);
    if (!watchRate.empty()) setenv("MEMLOG_WATCH_RATE", watchRate.c_str(), 1);
    const char* existing = std::getenv("LD_PRELOAD");
    const std::string combined = existing && *existing ? preload + ":" + existing : preload;
    setenv("LD_PRELOAD", combined.c_str(), 1);

    std::vector<std::string> program(arguments.begin() + static_cast<long>(i), arguments.end());
    if (fullTrace)
        if (const int status = prepareFullTrace(program); status >= 0) return status;
    const char* temporary = std::getenv("TMPDIR");
    std::string listPath = std::string(temporary && *temporary ? temporary : "/tmp") + "/memlog-run.XXXXXX";
    const int listFd = mkstemp(listPath.data());
    if (listFd < 0)
        listPath.clear();
    else
        close(listFd);
    if (!listPath.empty()) setenv("MEMLOG_RUN_LIST", listPath.c_str(), 1);

    diagnostics::debug("run: LD_PRELOAD=" + combined + " MEMLOG_OUT=" + logTemplate +
                       (listPath.empty() ? "" : " MEMLOG_RUN_LIST=" + listPath));
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
        if (noChildren) setenv("MEMLOG_ONLY_PID", std::to_string(getpid()).c_str(), 1);
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
