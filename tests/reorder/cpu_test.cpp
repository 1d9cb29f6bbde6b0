// What planning asks of the processor: checked against what Linux reports of it.

#include "memfmt/reorder/cpu.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

TEST_CASE("gathers count as microcoded on AMD's processors, and only there (the vendor /proc/cpuinfo names)",
          "[reorder][cpu]") {
#if defined(__x86_64__) || defined(__i386__)
  std::ifstream info("/proc/cpuinfo");
  REQUIRE(info.good());
  std::string line, vendor;
  while (vendor.empty() && std::getline(info, line))
    if (line.rfind("vendor_id", 0) == 0) vendor = line.substr(line.find(':') + 2);
  REQUIRE(!vendor.empty());
  CHECK(memfmt::detail::gathers_microcoded() == (vendor == "AuthenticAMD"));
#else
  CHECK_FALSE(memfmt::detail::gathers_microcoded());
#endif
}
