// memlog run: start a program with the recorder preloaded. The program replaces this process
// (exec), so its exit status, signals and terminal are its own.
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "commands.hpp"

namespace memlog::cli {
namespace {

constexpr const char* kHelp = R"(usage: memlog run [OPTIONS] [--] PROGRAM [ARGS]

Runs PROGRAM with libmemlog.so in LD_PRELOAD. The log goes to ./PROGRAM.PID.memlog
unless -o says otherwise. Children that PROGRAM forks or execs are recorded too,
each into a log of its own (a numbered neighbour of the name when it is taken).

  -o, --output FILE        write the log to FILE (an existing FILE is replaced);
                           %p in FILE becomes the pid, %e the program name
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
                           samples: it runs under Valgrind's lackey tool (about
                           100 times slower; for small programs, teaching, and
                           checking samples), and memlog puts each access in
                           its place among the allocations; memlog cache then
                           simulates a cache over them. Forked children and
                           exec'd programs are not traced (nor recorded); the
                           accesses of all threads count as the main thread's
  -q, --quiet              no "recording" line on stderr

The same settings as environment variables, for LD_PRELOAD without this launcher:
MEMLOG_OUT, MEMLOG_UNWIND, MEMLOG_STACK_DEPTH, MEMLOG_FREE_STACKS=0, MEMLOG_QUIET=1,
MEMLOG_ACCESS=1, MEMLOG_ACCESS_RATE, MEMLOG_WATCH=1, MEMLOG_WATCH_RATE, MEMLOG_UNWIND_CHECK=1,
MEMLOG_UNWIND_INCREMENTAL=0 (README.md).
MEMLOG_LIBRARY overrides where the launcher finds libmemlog.so.
)";

// Beside this executable: build/bin -> build/lib; installed, PREFIX/bin -> PREFIX/<libdir>
// (lib/x86_64-linux-gnu when the prefix is /usr on Debian).
std::string findLibrary() {
    if (const char* library = std::getenv("MEMLOG_LIBRARY"); library && *library) return library;
    char self[PATH_MAX];
    const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) return {};
    self[length] = '\0';
    std::string dir(self);
    dir.erase(dir.rfind('/'));
    for (const std::string libdir : {"lib", MEMLOG_INSTALL_LIBDIR}) {
        const std::string candidate = dir + "/../" + libdir + "/libmemlog.so";
        if (access(candidate.c_str(), R_OK) == 0) return candidate;
    }
    return dir + "/../lib/libmemlog.so";
}

// A whole decimal number in [low, high].
bool isNumberIn(const std::string* text, long low, long high) {
    if (!text || text->empty()) return false;
    char* end = nullptr;
    const long n = std::strtol(text->c_str(), &end, 10);
    return !*end && n >= low && n <= high;
}

}  // namespace

int runCommand(const Arguments& arguments) {
    std::string output, unwind, depth, accessRate, watchRate;
    bool noFreeStacks = false, quiet = false, sampleAccesses = false, watchWords = false, fullTrace = false;
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
        } else if (!argument.empty() && argument[0] == '-') {
            return usageError("run: unknown option '" + argument + "'", "Try 'memlog run --help'.");
        } else {
            break;
        }
    }
    if (i >= arguments.size()) return usageError("run: which program?", "usage: memlog run [OPTIONS] [--] PROGRAM [ARGS]");
    if (fullTrace && (sampleAccesses || watchWords))
        return usageError("run: --full-trace records every access: no samples or watchpoints with it", "Try 'memlog run --help'.");

    const std::string library = findLibrary();
    if (library.empty() || access(library.c_str(), R_OK) != 0)
        return usageError("run: cannot find the recorder library at '" + library + "' (set MEMLOG_LIBRARY)", nullptr);
    char resolved[PATH_MAX];
    const std::string preload = realpath(library.c_str(), resolved) ? resolved : library;

    if (!output.empty()) {
        if (output.find('%') == std::string::npos && unlink(output.c_str()) != 0 && errno != ENOENT)
            return usageError("run: cannot replace '" + output + "': " + std::strerror(errno), nullptr);
        setenv("MEMLOG_OUT", output.c_str(), 1);
    }
    if (!unwind.empty()) setenv("MEMLOG_UNWIND", unwind.c_str(), 1);
    if (!depth.empty()) setenv("MEMLOG_STACK_DEPTH", depth.c_str(), 1);
    if (noFreeStacks) setenv("MEMLOG_FREE_STACKS", "0", 1);
    if (quiet) setenv("MEMLOG_QUIET", "1", 1);
    if (sampleAccesses) setenv("MEMLOG_ACCESS", "1", 1);
    if (!accessRate.empty()) setenv("MEMLOG_ACCESS_RATE", accessRate.c_str(), 1);
    if (watchWords) setenv("MEMLOG_WATCH", "1", 1);
    if (!watchRate.empty()) setenv("MEMLOG_WATCH_RATE", watchRate.c_str(), 1);
    const char* existing = std::getenv("LD_PRELOAD");
    const std::string combined = existing && *existing ? preload + ":" + existing : preload;
    setenv("LD_PRELOAD", combined.c_str(), 1);

    if (fullTrace) return runFullTrace({arguments.begin() + static_cast<long>(i), arguments.end()}, output, quiet);
    std::vector<char*> argv;
    for (size_t k = i; k < arguments.size(); ++k) argv.push_back(const_cast<char*>(arguments[k].c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    const int error = errno;
    std::fprintf(stderr, "memlog: run: cannot run '%s': %s\n", argv[0], std::strerror(error));
    return error == ENOENT ? 127 : 126;
}

}  // namespace memlog::cli
