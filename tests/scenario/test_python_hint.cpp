// CPython under memlog: pymalloc hides Python's objects in its arenas; memlog stat says so and
// `memlog run --python-objects` records every object.
#include <catch2/catch.hpp>

#include <filesystem>

#include "run_program.hpp"

using namespace memlog::test;
namespace fs = std::filesystem;

namespace {

const char* const kPythonWork = "x = [str(i) for i in range(20000)]";

}  // namespace

TEST_CASE("the CPython hint: given for a Python run, not with --python-objects, not for other programs") {
    const Outcome plain = runMemlog({"run", "-q", "-o", "py.memlog", "--", "python3", "-c", kPythonWork});
    REQUIRE(plain.m_exitStatus == 0);
    const std::string plainLog = plain.m_directory + "/py.memlog";
    const Outcome objects =
        runMemlog({"run", "-q", "--python-objects", "-o", "py.memlog", "--", "python3", "-c", kPythonWork});
    REQUIRE(objects.m_exitStatus == 0);
    const std::string objectsLog = objects.m_directory + "/py.memlog";
    Run c;
    c.m_argv = {scenarioPath("leaks")};
    const Outcome other = runProgram(c);
    REQUIRE(other.m_logs.size() == 1);

    const Outcome plainStat = runMemlog({"stat", plainLog});
    CHECK(plainStat.m_stdout.find("hint: a CPython interpreter") != std::string::npos);
    CHECK(plainStat.m_stdout.find("PYTHONMALLOC=malloc") != std::string::npos);
    const Outcome plainJson = runMemlog({"stat", plainLog, "--json"});
    CHECK(plainJson.m_stdout.find("\"hints\":[\"a CPython interpreter") != std::string::npos);
    const Outcome objectsStat = runMemlog({"stat", objectsLog});
    CHECK(objectsStat.m_stdout.find("hint:") == std::string::npos);
    const Outcome objectsJson = runMemlog({"stat", objectsLog, "--json"});
    CHECK(objectsJson.m_stdout.find("\"hints\":[]") != std::string::npos);
    const Outcome otherStat = runMemlog({"stat", other.m_logs[0]});
    CHECK(otherStat.m_stdout.find("hint:") == std::string::npos);
    // With malloc, the 20,000 strings are blocks: many more than pymalloc's run has at all.
    const auto withArenas = summaryOf(plainLog);
    const auto withObjects = summaryOf(objectsLog);
    CHECK(callsOf(withObjects, "malloc") > callsOf(withArenas, "malloc") + 20000);
    for (const Outcome* o : {&plain, &objects, &other, &plainStat, &plainJson, &objectsStat, &objectsJson, &otherStat})
        fs::remove_all(o->m_directory);
}
