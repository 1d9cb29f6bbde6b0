// The SSE4 (and SSSE3) operations Highway 1.0.3 lacks: the two rounds of saturating
// packs from 32-bit integers to bytes; and, so that code written for vectors of several
// 128-bit blocks also runs on one, the block operations of the wider targets.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_X86_SSE4_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_X86_SSE4_INL_H_
#undef MEMFMT_REORDER_KERNEL_X86_SSE4_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_X86_SSE4_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "memfmt/core/dim.hpp"

#if HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_SSSE3
HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

/// A 128-bit block of bytes, as loaded by hn::LoadU(hn::Full128<std::uint8_t>(), p).
using VBlock = hn::Vec128<std::uint8_t>;

/// A vector of one block: `part`.
HWY_INLINE VBlock first_block(VBlock part) { return part; }

/// Never called with one block a vector (b > 0 does not exist); for generic code.
HWY_INLINE VBlock insert_block(VBlock v, std::size_t b, VBlock part) {
  (void)v;
  (void)b;
  return part;
}

/// Stores the vector's one block at `to`.
HWY_INLINE void store_blocks(VBlock v, std::byte* to, dim step) {
  (void)step;
  hn::StoreU(v, hn::Full128<std::uint8_t>(), reinterpret_cast<std::uint8_t*>(to));
}

/// The 16 integers of i0..i3 (in range of the destination already) as bytes, in order:
/// s8 with kSigned, else u8.
template <bool kSigned>
HWY_INLINE VBlock pack_to_bytes(hn::Vec128<std::int32_t> i0, hn::Vec128<std::int32_t> i1, hn::Vec128<std::int32_t> i2,
                                hn::Vec128<std::int32_t> i3) {
  const __m128i lo16 = _mm_packs_epi32(i0.raw, i1.raw), hi16 = _mm_packs_epi32(i2.raw, i3.raw);
  return VBlock{kSigned ? _mm_packs_epi16(lo16, hi16) : _mm_packus_epi16(lo16, hi16)};
}

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
#endif

#endif  // MEMFMT_REORDER_KERNEL_X86_SSE4_INL_H_
