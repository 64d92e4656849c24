// The one main() of every Catch2 test program (Debian 12 ships Catch2 2.13, header-only).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
