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

/// The largest cache of CPU 0: sysfs first (what the hardware reports; some virtual
/// machines report a much larger L3 through sysconf), then sysconf, else 32 MiB.
/// Computed once.
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
#if defined(_SC_LEVEL3_CACHE_SIZE)
    if (largest == 0) {
      const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
      if (l3 > 0) largest = static_cast<std::size_t>(l3);
    }
#endif
    return largest > 0 ? largest : std::size_t{32} << 20;
  }();
  return bytes;
}

}  // namespace memfmt::detail
