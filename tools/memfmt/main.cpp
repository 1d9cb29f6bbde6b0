// memfmt: the command-line tool of the memfmt library.
//   memfmt describe TAG DIMS [--dt=DT] [--svg=FILE] ...   a layout as text and as a picture
//   memfmt reorder [benchdnn reorder options] DIMS...     plan, check and time reorders

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "memfmt/core/error.hpp"

namespace {

void print_help() {
  std::printf(
      "usage: memfmt <command> [arguments]\n"
      "\n"
      "commands:\n"
      "  describe TAG DIMS [--dt=f32] [--svg=FILE]\n"
      "      the layout of a format tag for some dims: padded dims, strides, blocks, size,\n"
      "      a grid of element offsets, memory order; --svg draws it\n"
      "      e.g. memfmt describe nChw16c 2x17x5x4 --svg=nChw16c.svg\n"
      "  reorder [--sdt=DT] [--ddt=DT] [--stag=TAG] [--dtag=TAG] [--attr-...] [--mode=C|P|CP] DIMS...\n"
      "      reorders in the syntax of oneDNN's benchdnn reorder driver: prints the plan\n"
      "      (loop nests and kernels), checks the result against oneDNN and times it\n"
      "      e.g. memfmt reorder --sdt=f32 --ddt=s8 --stag=nchw --dtag=nChw16c \\\n"
      "             --attr-scales=src:common:0.5 2x17x5x5\n"
      "\n"
      "'memfmt <command> --help' describes the options of a command.\n");
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> all(argv + 1, argv + argc);
  if (all.empty() || all[0] == "--help" || all[0] == "-h" || all[0] == "help") {
    print_help();
    return all.empty() ? 2 : 0;
  }
  const std::string command = all[0];
  const std::vector<std::string> args(all.begin() + 1, all.end());
  try {
    if (command == "describe") return memfmt_tool::describe_main(args);
    if (command == "reorder") return memfmt_tool::reorder_main(args);
    std::fprintf(stderr, "memfmt: unknown command '%s' (commands: describe, reorder; see memfmt --help)\n",
                 command.c_str());
    return 2;
  } catch (const memfmt_tool::usage_error& e) {
    std::fprintf(stderr, "memfmt %s: %s\n", command.c_str(), e.what());
    return 2;
  } catch (const memfmt::error& e) {
    std::fprintf(stderr, "memfmt %s: %s\n", command.c_str(), e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memfmt %s: error: %s\n", command.c_str(), e.what());
    return 1;
  }
}
