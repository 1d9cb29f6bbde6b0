// The cache size that decides when reorders write around the caches.

#include "memfmt/reorder/cache.hpp"

#include <catch2/catch.hpp>
#include <cstddef>

using memfmt::detail::parse_cache_size;
using memfmt::detail::usable_cache_bytes;

namespace {
constexpr std::size_t kib = 1024, mib = 1024 * kib;
}

TEST_CASE("sysfs cache sizes parse in every unit Linux writes", "[reorder][cache]") {
  CHECK(parse_cache_size("32768K\n") == 32 * mib);
  CHECK(parse_cache_size("48K") == 48 * kib);
  CHECK(parse_cache_size("32M") == 32 * mib);
  CHECK(parse_cache_size("1G") == 1024 * mib);
  CHECK(parse_cache_size("1024") == 1024);
  CHECK(parse_cache_size("") == 0);
  CHECK(parse_cache_size("K") == 0);
  CHECK(parse_cache_size("unknown") == 0);
}

TEST_CASE("the usable cache: sysfs first, sysconf capped at one core complex, else 32 MiB", "[reorder][cache]") {
  static_assert(usable_cache_bytes(0, 508 * mib) == 96 * mib, "usable in constant expressions");
  // sysfs describes one cache instance: trusted as it is, even when large
  CHECK(usable_cache_bytes(32 * mib, 508 * mib) == 32 * mib);
  CHECK(usable_cache_bytes(320 * mib, 0) == 320 * mib);
  // sysconf alone: believed up to 96 MiB, a socket-wide figure above that is capped
  CHECK(usable_cache_bytes(0, 16 * mib) == 16 * mib);
  CHECK(usable_cache_bytes(0, 96 * mib) == 96 * mib);
  CHECK(usable_cache_bytes(0, 508 * mib) == 96 * mib);
  CHECK(usable_cache_bytes(0, 0) == 32 * mib);
}
