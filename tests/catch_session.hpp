// The Catch2 session of a test program, for its main: Catch2's implementation is compiled
// once, in catch_impl.cpp, so the mains do not see Catch::Session itself.
#pragma once

namespace memfmt_test {

/// Applies the command line to the session; 0 on success, else the exit code.
/// @pre called once, before catch_run
int catch_apply_command_line(int argc, char** argv);

/// Runs the session's tests: 0 when all passed, else not 0.
int catch_run();

}  // namespace memfmt_test
