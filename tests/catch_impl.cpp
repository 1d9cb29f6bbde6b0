// Catch2's implementation, compiled once for every memfmt test executable, and the
// session its mains (catch_main.cpp, catch_main_every_target.cpp) drive.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "catch_session.hpp"

namespace memfmt_test {
namespace {
Catch::Session& session() {
  static Catch::Session s;  // (Catch2 allows one per program)
  return s;
}
}  // namespace

int catch_apply_command_line(int argc, char** argv) { return session().applyCommandLine(argc, argv); }

int catch_run() { return session().run(); }

}  // namespace memfmt_test
