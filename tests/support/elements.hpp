// The elements of a reorder's semantics (docs/reorder.md) written apart from memfmt's
// code: an element's value from its bits, and a value stored as a data type, for the
// tests' own references.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "memfmt/core/data_type.hpp"

namespace memfmt_test {

using memfmt::data_type;

// The bits of the element of type `dt` at `p`.
inline std::uint32_t bits_at(data_type dt, const unsigned char* p) {
  std::uint32_t v = 0;
  std::memcpy(&v, p, memfmt::data_type_size(dt));
  return v;
}

// The bits of -0 in bf16, f16 (and f32).
inline std::uint32_t negative_zero_bits(data_type dt) { return dt == data_type::f32 ? 0x80000000u : 0x8000u; }

// Whether the bits `b` of type `dt` are a NaN.
inline bool is_nan_bits(data_type dt, std::uint32_t b) {
  if (dt == data_type::f32) return (b & 0x7FFFFFFFu) > 0x7F800000u;
  if (dt == data_type::bf16) return (b & 0x7FFFu) > 0x7F80u;
  if (dt == data_type::f16) return (b & 0x7FFFu) > 0x7C00u;
  return false;
}

// The value of an element: bf16 and f16 from their sign, exponent and significand.
inline float value_of(data_type dt, std::uint32_t b) {
  switch (dt) {
    case data_type::f32: return std::bit_cast<float>(b);
    case data_type::bf16:
    case data_type::f16: {
      const bool bf = dt == data_type::bf16;
      const int fraction = bf ? 7 : 10, bias = bf ? 127 : 15, all_ones = bf ? 255 : 31;
      const float sign = (b & 0x8000u) != 0 ? -1.f : 1.f;
      const int e = static_cast<int>(b >> fraction) & all_ones;
      const std::uint32_t m = b & ((1u << fraction) - 1);
      if (e == all_ones) return m != 0 ? std::copysign(std::numeric_limits<float>::quiet_NaN(), sign) : sign * INFINITY;
      const std::uint32_t significand = e == 0 ? m : m | (1u << fraction);
      return sign * std::ldexp(static_cast<float>(significand), (e == 0 ? 1 : e) - bias - fraction);
    }
    case data_type::s32: return static_cast<float>(static_cast<std::int32_t>(b));
    case data_type::s8: return static_cast<float>(static_cast<std::int8_t>(b));
    default: return static_cast<float>(b);
  }
}

// `x` (not NaN) in bf16 or f16: rounded to nearest even at the format's spacing around
// |x| (fixed below its smallest normal), infinite from 2^(emax + 1) on.
inline std::uint32_t round_to_half(data_type dt, float x) {
  const bool bf = dt == data_type::bf16;
  const int digits = bf ? 8 : 11, emin = bf ? -126 : -14, emax = bf ? 127 : 15;
  const std::uint32_t sign = std::signbit(x) ? 0x8000u : 0u, infinity = bf ? 0x7F80u : 0x7C00u;
  const double a = std::fabs(static_cast<double>(x));
  if (a == 0) return sign;
  if (std::isinf(a)) return sign | infinity;
  const double spacing = std::ldexp(1.0, std::max(std::ilogb(a), emin) - (digits - 1));
  const double r = std::nearbyint(a / spacing) * spacing;
  if (r >= std::ldexp(1.0, emax + 1)) return sign | infinity;
  if (bf) return sign | (std::bit_cast<std::uint32_t>(static_cast<float>(r)) >> 16);
  if (r < std::ldexp(1.0, emin)) return sign | static_cast<std::uint32_t>(std::ldexp(r, 24));
  const int e = std::ilogb(r);
  return sign | static_cast<std::uint32_t>(e + 15) << 10 | (static_cast<std::uint32_t>(std::ldexp(r, 10 - e)) - 1024u);
}

// `x` stored as `dt` by a conversion: NaN becomes the quiet NaN (floating point) or 0
// (integers); floating point rounds to nearest even; integers round to nearest even and
// saturate (s32 at the largest float below 2^31).
inline std::uint32_t store_bits(data_type dt, float x) {
  switch (dt) {
    case data_type::f32: return std::isnan(x) ? 0x7FC00000u : std::bit_cast<std::uint32_t>(x);
    case data_type::bf16: return std::isnan(x) ? 0x7FC0u : round_to_half(dt, x);
    case data_type::f16: return std::isnan(x) ? 0x7E00u : round_to_half(dt, x);
    default: break;
  }
  if (std::isnan(x)) return 0;
  const double lo = dt == data_type::s32 ? -2147483648.0 : dt == data_type::s8 ? -128.0 : 0.0;
  const double hi = dt == data_type::s32 ? 2147483520.0 : dt == data_type::s8 ? 127.0 : 255.0;
  const auto v = static_cast<std::int64_t>(std::clamp(std::nearbyint(static_cast<double>(x)), lo, hi));
  return static_cast<std::uint32_t>(v) & (dt == data_type::s32 ? 0xFFFFFFFFu : 0xFFu);
}

// The value of an integer element.
inline std::int64_t integer_of(data_type dt, std::uint32_t b) {
  if (dt == data_type::s32) return std::bit_cast<std::int32_t>(b);
  if (dt == data_type::s8) return static_cast<std::int8_t>(b);
  return static_cast<std::uint8_t>(b);
}

}  // namespace memfmt_test
