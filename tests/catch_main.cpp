// The Catch2 main shared by every memfmt test executable but those of real reorder plans
// (catch_main_every_target.cpp).
#include "catch_session.hpp"

int main(int argc, char** argv) {
  if (const int rc = memfmt_test::catch_apply_command_line(argc, argv); rc != 0) return rc;
  // (Catch2 returns the number of failed assertions: 77 of them would read as a skip)
  return memfmt_test::catch_run() == 0 ? 0 : 1;
}
