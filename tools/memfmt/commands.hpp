#pragma once
// The subcommands of the memfmt tool; each takes the arguments after its name and
// returns the exit status (usage errors are thrown as usage_error).

#include <string>
#include <vector>

namespace memfmt_tool {

int describe_main(const std::vector<std::string>& args);
int reorder_main(const std::vector<std::string>& args);

}  // namespace memfmt_tool
