#pragma once
/// @file
/// Elements of s4 and u4, packed two per byte: the element at linear offset 2k is the low
/// nibble of byte k, the element at 2k + 1 its high nibble (oneDNN 3.x's packing).

#include <algorithm>
#include <cstdint>

#include "memfmt/core/dim.hpp"

namespace memfmt::detail {

/// The 4 bits of the element at linear offset `offset` from `base`.
inline unsigned load_nibble(const unsigned char* base, dim offset) noexcept {
  return static_cast<unsigned>(base[offset >> 1] >> ((offset & 1) * 4)) & 0xFu;
}

/// Writes the low 4 bits of `bits` as the element at `offset`, keeping its byte's other nibble.
inline void store_nibble(unsigned char* base, dim offset, unsigned bits) noexcept {
  const unsigned shift = static_cast<unsigned>(offset & 1) * 4;
  unsigned char& byte = base[offset >> 1];
  byte = static_cast<unsigned char>((byte & ~(0xFu << shift)) | (bits & 0xFu) << shift);
}

/// The value 4 bits hold: -8..7 for s4, 0..15 for u4.
inline int nibble_value(unsigned bits, bool is_signed) noexcept {
  return is_signed ? static_cast<int>(bits ^ 8u) - 8 : static_cast<int>(bits);
}

/// Unpacks `count` elements from linear offset `first` of `packed` into one byte each
/// (s8 for s4, u8 for u4).
/// @pre `first` is even
inline void unpack_nibbles(const unsigned char* packed, dim first, dim count, bool is_signed, unsigned char* out) noexcept {
  const unsigned char* in = packed + first / 2;
  const unsigned char flip = is_signed ? 8 : 0;  // (v ^ 8) - 8 sign-extends 4 bits
  for (dim k = 0; k < count / 2; ++k) {
    out[2 * k] = static_cast<unsigned char>(((in[k] & 0xF) ^ flip) - flip);
    out[2 * k + 1] = static_cast<unsigned char>(((in[k] >> 4) ^ flip) - flip);
  }
  if (count % 2 != 0) out[count - 1] = static_cast<unsigned char>(((in[count / 2] & 0xF) ^ flip) - flip);
}

/// Packs `count` bytes (s8 for s4, u8 for u4) into elements from linear offset `first` of
/// `packed`, saturating them to 4 bits. An odd count keeps the last byte's high nibble.
/// @pre `first` is even
inline void pack_nibbles(const unsigned char* bytes, dim count, bool is_signed, unsigned char* packed, dim first) noexcept {
  unsigned char* out = packed + first / 2;
  const auto bits = [is_signed](unsigned char b) -> unsigned {
    if (is_signed) return static_cast<unsigned>(std::clamp<int>(static_cast<std::int8_t>(b), -8, 7)) & 0xFu;
    return std::min<unsigned>(b, 15u);
  };
  for (dim k = 0; k < count / 2; ++k)
    out[k] = static_cast<unsigned char>(bits(bytes[2 * k]) | bits(bytes[2 * k + 1]) << 4);
  if (count % 2 != 0) store_nibble(out, count - 1, bits(bytes[count - 1]));
}

}  // namespace memfmt::detail
