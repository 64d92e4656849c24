// memlog-sampler-bench: what one access sample costs, piece by piece. An array sweep runs under
// perf's task-clock ticks with a SIGTRAP handler that does more and more of the sampler's work:
// nothing (the tick's delivery alone), the decode of the interrupted instruction with its single
// steps, then the caller stack by frame pointers or by libunwind. The time each stage adds over
// the one before, divided by the ticks, is the cost of that piece. Runs interleave the stages
// (round after round) and report medians: the host's speed drifts.
//
// Usage: memlog-sampler-bench [--rate N] [--rounds N] [--sweeps N]
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sample/instruction_access.hpp"
#include "timeline/base/option_table.hpp"
#include "unwind/capture.hpp"

namespace {

using memlog::preload::DecodeOutcome;

enum class Stage { Bare, Deliver, Decode, FramePointers, Libunwind };
constexpr Stage kStages[] = {Stage::Bare, Stage::Deliver, Stage::Decode, Stage::FramePointers, Stage::Libunwind};
const char* stageName(Stage stage) {
    switch (stage) {
    case Stage::Bare: return "no ticks";
    case Stage::Deliver: return "+ delivery";
    case Stage::Decode: return "+ decode, steps";
    case Stage::FramePointers: return "+ stack (fp)";
    case Stage::Libunwind: return "+ stack (libunwind)";
    }
    return "";
}

// Set between runs, read by the handler: atomics, lock-free, safe in a signal handler.
std::atomic<Stage> s_stage{Stage::Bare};
std::atomic<long> s_ticks{0}, s_steps{0}, s_samples{0}, s_frames{0};
bool s_stepping = false;
uint64_t s_stackHigh = 0;

void sample(ucontext_t& context) {
    const auto registers = memlog::preload::registersOf(context, 0, 0);
    const auto decoded = memlog::preload::decodeAhead(registers, 16);
    if (decoded.m_outcome == DecodeOutcome::NoAccess) {
        context.uc_mcontext.gregs[REG_EFL] |= 0x100;
        s_stepping = true;
        ++s_steps;
        return;
    }
    ++s_samples;
    uint64_t frames[64];
    if (s_stage == Stage::FramePointers) {
        const auto sp = static_cast<uintptr_t>(context.uc_mcontext.gregs[REG_RSP]);
        s_frames += memlog::unwind::walkFrameChain(static_cast<uintptr_t>(context.uc_mcontext.gregs[REG_RBP]), sp,
                                                   s_stackHigh, frames, 64, {});
    } else if (s_stage == Stage::Libunwind) {
        unw_cursor_t cursor;
        if (unw_init_local2(&cursor, &context, UNW_INIT_SIGNAL_FRAME) == 0)
            while (unw_step(&cursor) > 0) ++s_frames;
    }
}

void onTrap(int, siginfo_t* info, void* untyped) {
    auto& context = *static_cast<ucontext_t*>(untyped);
    if (info->si_code == TRAP_TRACE && s_stepping) {
        context.uc_mcontext.gregs[REG_EFL] &= ~0x100L;
        s_stepping = false;
        sample(context);
        return;
    }
    ++s_ticks;
    if (s_stage >= Stage::Decode && !s_stepping) sample(context);
}

// The workload: an array written, then read, as scenarios/access_phases does.
[[gnu::noinline]] double sweep(double* a, size_t n, int sweeps) {
    double sum = 0;
    for (int r = 0; r < sweeps; ++r) {
        for (size_t i = 0; i < n; ++i) a[i] = static_cast<double>(i + static_cast<size_t>(r));
        for (size_t i = 0; i < n; ++i) sum += a[i];
    }
    return sum;
}

double nowMs() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

constexpr memlog::options::Row kOptions[] = {
    {.m_name = "--rate",
     .m_kind = memlog::options::Kind::Count,
     .m_low = 1,
     .m_default = "20000",
     .m_valueName = "N",
     .m_help = "ticks a CPU-second"},
    {.m_name = "--rounds",
     .m_kind = memlog::options::Kind::Count,
     .m_low = 1,
     .m_default = "7",
     .m_valueName = "N",
     .m_help = "rounds of every stage, interleaved"},
    {.m_name = "--sweeps",
     .m_kind = memlog::options::Kind::Count,
     .m_low = 1,
     .m_default = "40",
     .m_valueName = "N",
     .m_help = "sweeps of the array per stage and round"},
};

constexpr memlog::timeline::CommandSyntax kSyntax{
    .m_usage = "memlog-sampler-bench [--rate N] [--rounds N] [--sweeps N]",
    .m_about = "What one access sample costs, piece by piece.\n",
    .m_options = kOptions,
    .m_minOperands = 0,
    .m_maxOperands = 0};

}  // namespace

int main(int argc, char** argv) {
    const auto options = memlog::timeline::programOptions("memlog-sampler-bench", kSyntax, argc, argv);
    const long rate = static_cast<long>(options.number("--rate")),
               rounds = static_cast<long>(options.number("--rounds")),
               sweeps = static_cast<long>(options.number("--sweeps"));
    struct sigaction action {};
    action.sa_sigaction = onTrap;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGTRAP, &action, nullptr);
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.sample_period = static_cast<uint64_t>(1'000'000'000 / rate);
    attr.sigtrap = 1;
    attr.remove_on_exec = 1;
    attr.exclude_kernel = 1;
    attr.disabled = 1;
    const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
    if (fd < 0) {
        std::perror("memlog-sampler-bench: perf_event_open");
        return 1;
    }
    uint64_t here = 0;
    s_stackHigh = memlog::unwind::stackTop(reinterpret_cast<uintptr_t>(&here));
    const size_t n = size_t{1} << 20;  // 8 MiB of doubles
    std::vector<double> array(n, 1.0);
    std::vector<double> ms[5];
    long ticks[5] = {}, steps[5] = {}, samples[5] = {};
    double sink = 0;
    for (long round = 0; round < rounds; ++round)
        for (const Stage stage : kStages) {
            const int index = static_cast<int>(stage);
            s_stage = stage;
            s_ticks = 0;
            s_steps = 0;
            s_samples = 0;
            if (stage != Stage::Bare) ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
            const double start = nowMs();
            sink += sweep(array.data(), n, static_cast<int>(sweeps));
            ms[index].push_back(nowMs() - start);
            ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
            ticks[index] += s_ticks;
            steps[index] += s_steps;
            samples[index] += s_samples;
        }
    std::printf("memlog-sampler-bench: %ld rounds, %ld ticks a CPU-second, a sweep of %ld passes over 8 MiB\n", rounds,
                rate, sweeps);
    std::printf("%-22s %10s %12s %12s %14s %14s\n", "stage", "median ms", "ticks/round", "steps/sample",
                "ns/tick total", "ns/tick added");
    const double bare = median(ms[0]);
    double previous = bare;
    for (const Stage stage : kStages) {
        const int index = static_cast<int>(stage);
        const double m = median(ms[index]);
        const double perRound = static_cast<double>(ticks[index]) / static_cast<double>(rounds);
        const double stepsPerSample =
            samples[index] ? static_cast<double>(steps[index]) / static_cast<double>(samples[index]) : 0;
        if (stage == Stage::Bare)
            std::printf("%-22s %10.1f\n", stageName(stage), m);
        else
            std::printf("%-22s %10.1f %12.0f %12.2f %14.0f %14.0f\n", stageName(stage), m, perRound, stepsPerSample,
                        (m - bare) * 1e6 / perRound, (m - previous) * 1e6 / perRound);
        previous = m;
    }
    return sink == 42 ? 3 : 0;  // keeps the sweeps
}
