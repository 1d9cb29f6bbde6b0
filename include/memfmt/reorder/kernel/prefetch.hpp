#pragma once
/// @file
/// Prefetches that the compiler keeps.

#include <cstdint>

#include <hwy/cache_control.h>

namespace memfmt::detail {

/// Asks for the cache line holding the byte at address `at` (any address: nothing is
/// read, nothing faults). An address, not a pointer: the lines asked for may lie past
/// the end of a buffer, where pointer arithmetic is undefined.
///
/// Not hwy::Prefetch alone: GCC takes the prefetch builtin for a pure operation, marks
/// a function (or lambda) that only prefetches as pure, and deletes every call to it,
/// prefetches and all. An empty volatile asm that uses the address keeps the call.
inline void prefetch_line(std::uintptr_t at) noexcept {
#if defined(HWY_DISABLE_CACHE_CONTROL)
  (void)at;
#elif (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  asm volatile("prefetcht0 {(%0)|[%0]}" : : "r"(at));
#elif defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(reinterpret_cast<const void*>(at), 0, 3);
  asm volatile("" : : "r"(at));
#else
  hwy::Prefetch(reinterpret_cast<const unsigned char*>(at));
#endif
}

/// How far ahead a conversion reads a long row (at least twice as long) with prefetches:
/// the hardware's prefetchers start over at each 4 KiB page and fall behind a loop that
/// converts, so that narrowing conversions from memory ran below oneDNN's speed without.
inline constexpr std::intptr_t row_prefetch = 2048;

/// In a row of `n` elements of `size` bytes, the elements before which a prefetch
/// row_prefetch ahead stays in the row (past it, it would fetch lines for nothing); 0
/// for rows too short to prefetch.
constexpr std::int64_t row_prefetch_end(std::int64_t n, std::int64_t size) noexcept {
  return n * size >= 2 * row_prefetch ? n - row_prefetch / size : 0;
}

/// Asks for the line `ahead` bytes past `p`.
inline void prefetch_ahead(const void* p, std::intptr_t ahead) noexcept {
  prefetch_line(reinterpret_cast<std::uintptr_t>(p) + static_cast<std::uintptr_t>(ahead));
}

}  // namespace memfmt::detail
