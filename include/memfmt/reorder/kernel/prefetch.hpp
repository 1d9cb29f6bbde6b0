#pragma once
/// @file
/// A prefetch that the compiler keeps.

#include <hwy/cache_control.h>

namespace memfmt::detail {

/// Asks for the cache line holding `p` (any address: nothing is read, nothing faults).
///
/// Not hwy::Prefetch alone: GCC 12 takes its builtin for a pure operation, marks a
/// function (or lambda) that only prefetches as pure, and deletes every call to it
/// whose result is unused, prefetches and all. A volatile asm is a side effect.
inline void prefetch_line(const void* p) noexcept {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  asm volatile("prefetcht0 (%0)" : : "r"(p));
#else
  hwy::Prefetch(static_cast<const unsigned char*>(p));
#endif
}

}  // namespace memfmt::detail
