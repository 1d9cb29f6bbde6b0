#pragma once
/// @file
/// The size of the last-level cache, which decides when a reorder writes its
/// destination around the caches.

#include <cstddef>
#include <cstdio>

#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

namespace memfmt::detail {

/// Bytes of a cache size as Linux's sysfs spells it ("32768K", "32M", "1024"); 0 when unreadable.
inline std::size_t parse_cache_size(const char* text) noexcept {
  std::size_t value = 0;
  const char* p = text;
  for (; *p >= '0' && *p <= '9'; ++p) value = value * 10 + static_cast<std::size_t>(*p - '0');
  if (p == text) return 0;
  if (*p == 'K') return value << 10;
  if (*p == 'M') return value << 20;
  if (*p == 'G') return value << 30;
  return value;
}

/// The largest cache size one core can use, from the two places an operating system
/// reports it: sysfs (per cache instance, what the hardware reports) and sysconf
/// (0 when either is unknown). sysconf alone is distrusted above 96 MiB, the largest
/// L3 of one core complex today: virtual machines without sysfs cache entries often
/// report the whole socket there (508 MiB on a 2-core AMD EPYC guest), a cache no
/// single core fills. With neither, 32 MiB.
constexpr std::size_t usable_cache_bytes(std::size_t sysfs_largest, std::size_t sysconf_l3) noexcept {
  constexpr std::size_t mib = std::size_t{1} << 20;
  if (sysfs_largest > 0) return sysfs_largest;
  if (sysconf_l3 > 0) return sysconf_l3 < 96 * mib ? sysconf_l3 : 96 * mib;
  return 32 * mib;
}

/// usable_cache_bytes of CPU 0 of this machine, computed once.
inline std::size_t last_level_cache_bytes() noexcept {
  static const std::size_t bytes = [] {
    std::size_t largest = 0;
    for (int index = 0; index < 8; ++index) {
      char path[64];
      std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
      std::FILE* f = std::fopen(path, "r");
      if (f == nullptr) continue;
      char text[32] = {};
      if (std::fgets(text, sizeof text, f) != nullptr) {
        const std::size_t size = parse_cache_size(text);
        if (size > largest) largest = size;
      }
      std::fclose(f);
    }
    std::size_t l3 = 0;
#if defined(_SC_LEVEL3_CACHE_SIZE)
    const long reported = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (reported > 0) l3 = static_cast<std::size_t>(reported);
#endif
    return usable_cache_bytes(largest, l3);
  }();
  return bytes;
}

}  // namespace memfmt::detail
