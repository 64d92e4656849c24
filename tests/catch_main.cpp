// The one main() of every Catch2 test program (Debian 12 ships Catch2 2.13, header-only).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

int main(int argc, char** argv) {
    Catch::Session session;
    if (const int status = session.applyCommandLine(argc, argv)) return status;
    // ctest runs each test by name. A name that matches nothing (a renamed test, or a ';' in a
    // name, which CMake splits) must fail, not pass having run nothing.
    auto& config = session.configData();
    config.warnings = static_cast<Catch::WarnAbout::What>(config.warnings | Catch::WarnAbout::NoTests);
    return session.run();
}
