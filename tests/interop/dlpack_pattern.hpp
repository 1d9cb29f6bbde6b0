// The values the DLPack tests fill memfmt tensors with, shared by the C++ test and the
// Python module (whose test recomputes them with NumPy): element number i (row-major over
// the logical dims) of a tensor filled with seed s holds, with k = i + s, for the floating
// types NaN, inf, -inf, -0 (k % 7 == 3, in turn) or ((13 k + 5) % 101 - 50) / 4, for s32
// the bits (2654435761 k + 7) mod 2^32, for s8 and u8 the bits (37 k + 11) mod 256.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "memfmt/memory/memory.hpp"

namespace memfmt_test::dlpack {

using memfmt::data_type;
using memfmt::desc;
using memfmt::dim;
using memfmt::dims;
using memfmt::memory;

/// The bits of element number k (see the file comment).
inline std::uint64_t pattern(data_type dt, std::int64_t k) {
  const auto n = static_cast<std::uint64_t>(k);
  float value = static_cast<float>(static_cast<int>((n * 13 + 5) % 101) - 50) * 0.25f;
  if (n % 7 == 3) {
    const float special[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                             -std::numeric_limits<float>::infinity(), -0.0f};
    value = special[n / 7 % 4];
  }
  std::uint32_t f32 = 0;
  std::memcpy(&f32, &value, 4);
  switch (dt) {
    case data_type::f32: return f32;
    case data_type::f64: {
      const double wide = value;  // (exact)
      std::uint64_t b = 0;
      std::memcpy(&b, &wide, 8);
      return b;
    }
    case data_type::bf16: return f32 >> 16;  // (exact: the values have few mantissa bits)
    case data_type::f16: {
      const std::uint32_t sign = f32 >> 31 << 15;
      if (std::isnan(value)) return 0x7e00;
      if (std::isinf(value)) return sign | 0x7c00;
      if (value == 0) return sign;
      int e = 0;
      const float m = std::frexp(std::fabs(value), &e);  // |value| = m * 2^e, m in [0.5, 1)
      return sign | static_cast<std::uint32_t>(e + 14) << 10 | (static_cast<std::uint32_t>(m * 2048) & 0x3ff);
    }
    case data_type::s32: return static_cast<std::uint32_t>(n * 2654435761u + 7);
    case data_type::s8:
    case data_type::u8: return static_cast<std::uint32_t>((n * 37 + 11) & 0xff);
    case data_type::f8_e5m2:
    case data_type::f8_e4m3:  // (no DLPack counterpart: never filled)
    case data_type::s4:
    case data_type::u4:
    case data_type::undef: break;
  }
  return 0;
}

/// The element of `m` at `index`, as bits.
inline std::uint64_t bits_at(const memory& m, const dims& index) {
  switch (m.get_desc().get_data_type()) {
    case data_type::f64: {
      std::uint64_t b = 0;
      std::memcpy(&b, &m.at<double>(index), 8);
      return b;
    }
    case data_type::f32: {
      std::uint32_t b = 0;
      std::memcpy(&b, &m.at<float>(index), 4);
      return b;
    }
    case data_type::f16:
    case data_type::bf16: return m.at<std::uint16_t>(index);
    case data_type::s32: return static_cast<std::uint32_t>(m.at<std::int32_t>(index));
    case data_type::s8: return static_cast<std::uint8_t>(m.at<std::int8_t>(index));
    case data_type::u8:
    case data_type::f8_e5m2:
    case data_type::f8_e4m3: return m.at<std::uint8_t>(index);
    case data_type::s4:
    case data_type::u4:
    case data_type::undef: break;
  }
  return 0;
}

/// Writes pattern(seed + i) into element number i (row-major over the logical dims) of `m`.
inline void fill(const memory& m, std::int64_t seed = 0) {
  const desc& d = m.get_desc();
  const dims shape = d.get_dims();
  for (dim v : shape)
    if (v == 0) return;
  dims index = dims::filled(shape.size(), 0);
  for (std::int64_t k = seed;; ++k) {
    const std::uint64_t b = pattern(d.get_data_type(), k);
    switch (d.get_data_type()) {
      case data_type::f32: {
        const auto b32 = static_cast<std::uint32_t>(b);
        std::memcpy(&m.at<float>(index), &b32, 4);
        break;
      }
      case data_type::f64: std::memcpy(&m.at<double>(index), &b, 8); break;
      case data_type::f16:
      case data_type::bf16: m.at<std::uint16_t>(index) = static_cast<std::uint16_t>(b); break;
      case data_type::s32: m.at<std::int32_t>(index) = static_cast<std::int32_t>(b); break;
      case data_type::s8: m.at<std::int8_t>(index) = static_cast<std::int8_t>(b); break;
      case data_type::u8:
      case data_type::f8_e5m2:
      case data_type::f8_e4m3: m.at<std::uint8_t>(index) = static_cast<std::uint8_t>(b); break;
      case data_type::s4:
      case data_type::u4:
      case data_type::undef: break;
    }
    int j = shape.size() - 1;
    for (; j >= 0; --j) {
      if (++index[j] < shape[j]) break;
      index[j] = 0;
    }
    if (j < 0) return;
  }
}

}  // namespace memfmt_test::dlpack
