// The AVX-512 operations Highway 1.0.3 lacks: shuffles, inserts and broadcasts of
// 128-bit blocks, and stores of each block to a row of its own.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_X86_AVX512_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_X86_AVX512_INL_H_
#undef MEMFMT_REORDER_KERNEL_X86_AVX512_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_X86_AVX512_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "memfmt/core/dim.hpp"

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

/// A 128-bit block of bytes, as loaded by hn::LoadU(hn::Full128<std::uint8_t>(), p).
using VBlock = hn::Vec128<std::uint8_t>;

/// Transposes the 4 x 4 matrix of 128-bit blocks held in a, b, c, d: afterwards block m
/// of the k-th vector is block k of the m-th. Two rounds of block shuffles: 0x88 takes
/// blocks (0, 2) of each operand, 0xDD blocks (1, 3).
template <typename T>
HWY_INLINE void transpose_4x4_blocks(hn::Vec512<T>& a, hn::Vec512<T>& b, hn::Vec512<T>& c, hn::Vec512<T>& d) {
  const __m512i u0 = _mm512_shuffle_i32x4(a.raw, b.raw, 0x88), u1 = _mm512_shuffle_i32x4(a.raw, b.raw, 0xDD);
  const __m512i u2 = _mm512_shuffle_i32x4(c.raw, d.raw, 0x88), u3 = _mm512_shuffle_i32x4(c.raw, d.raw, 0xDD);
  a.raw = _mm512_shuffle_i32x4(u0, u2, 0x88);
  c.raw = _mm512_shuffle_i32x4(u0, u2, 0xDD);
  b.raw = _mm512_shuffle_i32x4(u1, u3, 0x88);
  d.raw = _mm512_shuffle_i32x4(u1, u3, 0xDD);
}

/// `part` in every block.
template <typename T>
HWY_INLINE hn::Vec512<T> broadcast_block(VBlock part) {
  return hn::Vec512<T>{_mm512_broadcast_i32x4(part.raw)};
}

/// `v` with block b replaced by `part`, by a masked broadcast (one instruction, no
/// shuffle port).
/// @pre b < 4
template <typename T>
HWY_INLINE hn::Vec512<T> broadcast_block_into(hn::Vec512<T> v, std::size_t b, VBlock part) {
  return hn::Vec512<T>{_mm512_mask_broadcast_i32x4(v.raw, static_cast<__mmask16>(0xF << (4 * b)), part.raw)};
}

/// A vector whose block 0 is `part`, the others undefined.
HWY_INLINE hn::Vec512<std::uint8_t> first_block(VBlock part) {
  return hn::Vec512<std::uint8_t>{_mm512_castsi128_si512(part.raw)};
}

/// `v` with block b replaced by `part`, by an insert.
/// @pre 0 < b < 4
HWY_INLINE hn::Vec512<std::uint8_t> insert_block(hn::Vec512<std::uint8_t> v, std::size_t b, VBlock part) {
  switch (b) {
    case 1:
      return hn::Vec512<std::uint8_t>{_mm512_inserti32x4(v.raw, part.raw, 1)};
    case 2:
      return hn::Vec512<std::uint8_t>{_mm512_inserti32x4(v.raw, part.raw, 2)};
    default:
      return hn::Vec512<std::uint8_t>{_mm512_inserti32x4(v.raw, part.raw, 3)};
  }
}

/// Stores block b of `v` at to + b * step, for every block.
HWY_INLINE void store_blocks(hn::Vec512<std::uint8_t> v, std::byte* to, dim step) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(to), _mm512_castsi512_si128(v.raw));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(to + step), _mm512_extracti32x4_epi32(v.raw, 1));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 2 * step), _mm512_extracti32x4_epi32(v.raw, 2));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 3 * step), _mm512_extracti32x4_epi32(v.raw, 3));
}

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
#endif

#endif  // MEMFMT_REORDER_KERNEL_X86_AVX512_INL_H_
