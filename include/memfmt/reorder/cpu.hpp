#pragma once
/// @file
/// What planning asks of the processor it runs on, beyond its vector targets.

// MEMFMT_CPUID_: 1 with GCC's and Clang's <cpuid.h>, 2 with MSVC's __cpuid, else 0
#if (defined(__x86_64__) || defined(__i386__)) && __has_include(<cpuid.h>)
#include <cpuid.h>
#define MEMFMT_CPUID_ 1
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
#include <intrin.h>
#define MEMFMT_CPUID_ 2
#else
#define MEMFMT_CPUID_ 0
#endif

namespace memfmt::detail {

/// Whether the processor's vector gathers are microcoded, slower than as many scalar
/// loads: AMD's and Hygon's (Zen runs `vpgatherdd` of 16 lanes slower than 16 loads, on
/// AVX2 and AVX-512 alike). The planner then moves by tiles what it would gather.
inline bool gathers_microcoded() noexcept {
#if MEMFMT_CPUID_ != 0
  static const bool zen = [] {
    unsigned regs[4] = {};  // eax, ebx, ecx, edx of leaf 0: the vendor in ebx, edx, ecx
#if MEMFMT_CPUID_ == 1
    if (__get_cpuid(0, &regs[0], &regs[1], &regs[2], &regs[3]) == 0) return false;
#else
    int r[4];
    __cpuid(r, 0);
    for (int k = 0; k < 4; ++k) regs[k] = static_cast<unsigned>(r[k]);
#endif
    const bool amd = regs[1] == 0x68747541u && regs[3] == 0x69746e65u && regs[2] == 0x444d4163u;    // "AuthenticAMD"
    const bool hygon = regs[1] == 0x6f677948u && regs[3] == 0x6e65476eu && regs[2] == 0x656e6975u;  // "HygonGenuine"
    return amd || hygon;
  }();
  return zen;
#else
  return false;
#endif
}

}  // namespace memfmt::detail

#undef MEMFMT_CPUID_
