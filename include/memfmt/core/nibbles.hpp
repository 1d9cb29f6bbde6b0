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

/// The 4 bits a byte saturates to: s8 to -8..7, u8 to 0..15.
template <bool kSigned>
inline unsigned saturated_nibble(unsigned char b) noexcept {
  if constexpr (kSigned) {
    // (std::clamp: compilers vectorize it, not the same bounds written with ?:)
    return static_cast<unsigned>(std::clamp<int>(static_cast<std::int8_t>(b), -8, 7)) & 0xFu;
  } else {
    return b > 15 ? 15u : b;
  }
}

/// The byte (s8 or u8) that 4 bits hold, sign-extended for s4.
template <bool kSigned>
inline unsigned char nibble_byte(unsigned bits) noexcept {
  constexpr unsigned flip = kSigned ? 8 : 0;  // (v ^ 8) - 8 sign-extends 4 bits
  return static_cast<unsigned char>(((bits & 0xFu) ^ flip) - flip);
}

// Packing and unpacking go in runs of a fixed 64 elements between pointers that do not
// alias: loops that compilers vectorize at -O2 too (GCC 12's cheapest cost model takes
// no loop that needs a check for aliasing or a remainder).
inline constexpr dim nibble_run = 64;

template <bool kSigned>
inline void pack_run(const unsigned char* __restrict bytes, unsigned char* __restrict out) noexcept {
  for (int k = 0; k < nibble_run / 2; ++k)
    out[k] = static_cast<unsigned char>(saturated_nibble<kSigned>(bytes[2 * k]) |
                                        saturated_nibble<kSigned>(bytes[2 * k + 1]) << 4);
}

template <bool kSigned>
inline void unpack_run(const unsigned char* __restrict in, unsigned char* __restrict out) noexcept {
  for (int k = 0; k < nibble_run / 2; ++k) {
    out[2 * k] = nibble_byte<kSigned>(in[k]);
    out[2 * k + 1] = nibble_byte<kSigned>(in[k] >> 4u);
  }
}

/// Unpacks `count` elements from linear offset `first` of `packed` into one byte each
/// (s8 for s4, u8 for u4).
/// @pre `first` is even; `out` does not overlap `packed`
inline void unpack_nibbles(const unsigned char* packed, dim first, dim count, bool is_signed, unsigned char* out) noexcept {
  const unsigned char* in = packed + first / 2;
  const auto unpack = [&]<bool kSigned>() {
    dim k = 0;
    for (; k + nibble_run <= count; k += nibble_run) unpack_run<kSigned>(in + k / 2, out + k);
    for (; k < count; ++k) out[k] = nibble_byte<kSigned>(in[k / 2] >> (k % 2 * 4));
  };
  if (is_signed) {
    unpack.template operator()<true>();
  } else {
    unpack.template operator()<false>();
  }
}

/// Packs `count` bytes (s8 for s4, u8 for u4) into elements from linear offset `first` of
/// `packed`, saturating them to 4 bits. An odd count keeps the last byte's high nibble.
/// @pre `first` is even; `bytes` does not overlap `packed`
inline void pack_nibbles(const unsigned char* bytes, dim count, bool is_signed, unsigned char* packed, dim first) noexcept {
  unsigned char* out = packed + first / 2;
  const auto pack = [&]<bool kSigned>() {
    dim k = 0;
    for (; k + nibble_run <= count; k += nibble_run) pack_run<kSigned>(bytes + k, out + k / 2);
    for (; k < count; ++k) store_nibble(out, k, saturated_nibble<kSigned>(bytes[k]));
  };
  if (is_signed) {
    pack.template operator()<true>();
  } else {
    pack.template operator()<false>();
  }
}

}  // namespace memfmt::detail
