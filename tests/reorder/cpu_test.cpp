// What planning asks of the processor: checked against what Linux reports of it.

#include "memfmt/reorder/cpu.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

TEST_CASE("gathers count as microcoded on AMD's and Hygon's processors, and only there (the vendor "
          "/proc/cpuinfo names)",
          "[reorder][cpu]") {
#if defined(__linux__) && (defined(__x86_64__) || defined(__i386__))
  std::ifstream info("/proc/cpuinfo");
  REQUIRE(info.good());
  std::string line, vendor;
  while (vendor.empty() && std::getline(info, line))
    if (line.rfind("vendor_id", 0) == 0) vendor = line.substr(line.find(':') + 2);
  REQUIRE(!vendor.empty());
  CHECK(memfmt::detail::gathers_microcoded() == (vendor == "AuthenticAMD" || vendor == "HygonGenuine"));
#elif !(defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86))
  CHECK_FALSE(memfmt::detail::gathers_microcoded());  // (no x86, no vector gathers to shun)
#else
  SUCCEED("x86 without Linux's /proc/cpuinfo: no second source for the vendor here");
#endif
}
