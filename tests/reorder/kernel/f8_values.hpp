// f32 values that test the f8 conversions, shared by their tests.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace memfmt_test {

/// f32 patterns around every rounding bit of both f8 formats: each sign, exponent and
/// top two mantissa bits with the 21 low bits at and around the rounding points of an
/// E4M3 (20 low bits) and an E5M2 (21 low bits) mantissa.
inline std::vector<float> f8_rounding_bit_patterns() {
  std::vector<float> v;
  const std::uint32_t lows[] = {0,       1,        0x7FFFF,  0x80000,  0x80001,  0xFFFFF,
                                0x100000, 0x100001, 0x17FFFF, 0x180000, 0x180001, 0x1FFFFF};
  for (std::uint32_t hi = 0; hi < (1u << 11); ++hi)
    for (const std::uint32_t lo : lows) v.push_back(std::bit_cast<float>(hi << 21 | lo));
  return v;
}

}  // namespace memfmt_test
