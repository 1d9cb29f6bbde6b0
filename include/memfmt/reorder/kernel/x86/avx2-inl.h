// The AVX2 operations Highway 1.0.3 lacks: inserts and stores of 128-bit blocks, and
// the two rounds of saturating packs from 32-bit integers to bytes.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_X86_AVX2_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_X86_AVX2_INL_H_
#undef MEMFMT_REORDER_KERNEL_X86_AVX2_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_X86_AVX2_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "memfmt/core/dim.hpp"

#if HWY_TARGET == HWY_AVX2
HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

/// A 128-bit block of bytes, as loaded by hn::LoadU(hn::Full128<std::uint8_t>(), p).
using VBlock = hn::Vec128<std::uint8_t>;

/// A vector whose block 0 is `part`, the other undefined.
HWY_INLINE hn::Vec256<std::uint8_t> first_block(VBlock part) {
  return hn::Vec256<std::uint8_t>{_mm256_castsi128_si256(part.raw)};
}

/// `v` with block 1 replaced by `part`.
/// @pre b == 1
HWY_INLINE hn::Vec256<std::uint8_t> insert_block(hn::Vec256<std::uint8_t> v, std::size_t b, VBlock part) {
  (void)b;
  return hn::Vec256<std::uint8_t>{_mm256_inserti128_si256(v.raw, part.raw, 1)};
}

/// Stores block b of `v` at to + b * step, for both blocks.
HWY_INLINE void store_blocks(hn::Vec256<std::uint8_t> v, std::byte* to, dim step) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(to), _mm256_castsi256_si128(v.raw));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(to + step), _mm256_extracti128_si256(v.raw, 1));
}

/// The 32 integers of i0..i3 (in range of the destination already) as bytes, in order:
/// s8 with kSigned, else u8.
template <bool kSigned>
HWY_INLINE hn::Vec256<std::uint8_t> pack_to_bytes(hn::Vec256<std::int32_t> i0, hn::Vec256<std::int32_t> i1,
                                                  hn::Vec256<std::int32_t> i2, hn::Vec256<std::int32_t> i3) {
  const __m256i lo16 = _mm256_packs_epi32(i0.raw, i1.raw), hi16 = _mm256_packs_epi32(i2.raw, i3.raw);
  const __m256i packed = kSigned ? _mm256_packs_epi16(lo16, hi16) : _mm256_packus_epi16(lo16, hi16);
  // the packs work within 128-bit halves: dwords (i0 i1 i2 i3 | i0 i1 i2 i3) -> in order
  return hn::Vec256<std::uint8_t>{_mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7))};
}

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
#endif

#endif  // MEMFMT_REORDER_KERNEL_X86_AVX2_INL_H_
