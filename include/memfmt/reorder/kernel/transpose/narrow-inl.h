// Tiles of 8- and 16-bit elements transposed without widening, one small transpose
// per 128-bit block (x86 SIMD targets), and the stacks of tiles whose rows fill
// destination lines.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_TRANSPOSE_NARROW_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_TRANSPOSE_NARROW_INL_H_
#undef MEMFMT_REORDER_KERNEL_TRANSPOSE_NARROW_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_TRANSPOSE_NARROW_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "memfmt/reorder/kernel/transpose/tiles-inl.h"
#include "memfmt/reorder/kernel/x86/avx2-inl.h"
#include "memfmt/reorder/kernel/x86/avx512-inl.h"
#include "memfmt/reorder/kernel/x86/sse4-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// Whether stacks of 8- and 16-bit elements in 16-lane tiles transpose as such, not
/// widened to 32-bit lanes (transpose_narrow_stack: 16 vectors for a stack, not 64 or 32).
inline constexpr bool narrow_stacks = HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL;

// On x86 SIMD targets, 8- and 16-bit elements also transpose unwidened in cache as tiles
// side by side, one small transpose per 128-bit block (transpose_narrow_strips).
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
using DBytes = hn::ScalableTag<std::uint8_t>;
using VBytes = hn::Vec<DBytes>;

/// 128-bit blocks in a vector: 4 on AVX-512, 2 on AVX2, 1 on SSE4.
inline constexpr std::size_t vector_blocks = hn::MaxLanes(DBytes()) / 16;

/// One round of a transpose inside 128-bit blocks: in each group of G vectors of `in`,
/// units of type T of vectors 2i and 2i + 1 interleave into out[i] (the lower halves of
/// the blocks) and out[G / 2 + i] (the upper halves).
template <typename T, std::size_t N, std::size_t G>
HWY_INLINE void interleave_round(const VBytes* in, VBytes* out) {
  const DBytes d8;
  const hn::Repartition<T, DBytes> d;
  MEMFMT_UNROLL
  for (std::size_t h = 0; h < N; h += G) {
    MEMFMT_UNROLL
    for (std::size_t i = 0; i < G / 2; ++i) {
      const auto lo = hn::BitCast(d, in[h + 2 * i]), hi = hn::BitCast(d, in[h + 2 * i + 1]);
      out[h + i] = hn::BitCast(d8, hn::InterleaveLower(d, lo, hi));
      out[h + G / 2 + i] = hn::BitCast(d8, hn::InterleaveUpper(d, lo, hi));
    }
  }
}

/// Transposes, in each 128-bit block of a[0..N), the N x N matrix of kSize-byte elements
/// (N = 16 / kSize rows of N): afterwards block b of a[q] holds element q of block b of
/// the N rows. Each round interleaves units twice as wide as the last: elements of rows
/// 2i and 2i + 1, then those pairs of rows 4i..4i+3, and so on up to 64-bit units; N
/// shuffles a round, 4 rounds for bytes and 3 for 16-bit elements.
template <std::size_t kSize>
HWY_INLINE void transpose_narrow_blocks(VBytes* a) {
  constexpr std::size_t N = 16 / kSize;
  VBytes t[N];
  if constexpr (kSize == 1) {
    interleave_round<std::uint8_t, N, 16>(a, t);
    interleave_round<std::uint16_t, N, 8>(t, a);
    interleave_round<std::uint32_t, N, 4>(a, t);
    interleave_round<std::uint64_t, N, 2>(t, a);
  } else {
    static_assert(kSize == 2, "8- and 16-bit elements only");
    interleave_round<std::uint16_t, N, 8>(a, t);
    interleave_round<std::uint32_t, N, 4>(t, a);
    interleave_round<std::uint64_t, N, 2>(a, t);
    MEMFMT_UNROLL
    for (std::size_t q = 0; q < N; ++q) a[q] = t[q];
  }
}

/// Columns that tiles side by side take at once: a vector of each source row.
template <std::size_t kSize>
inline constexpr dim side_by_side_cols = static_cast<dim>(16 * vector_blocks / kSize);

/// 16 source rows of a vector each (kSize-byte elements), `src_step` bytes apart,
/// transposed without widening to 32-bit lanes into side_by_side_cols destination rows
/// of 16 elements, row c at dst + c * dst_step: tiles side by side, one per 128-bit
/// block, in groups of N = 16 / kSize rows (about twice as fast as widened tiles for
/// bytes on AVX-512, and as fast for 16-bit elements).
template <std::size_t kSize>
HWY_INLINE void transpose_narrow_tiles(const std::byte* src, dim src_step, std::byte* dst, dim dst_step) {
  constexpr std::size_t N = 16 / kSize;
  const DBytes d8;
  const dim block = static_cast<dim>(N) * dst_step;  // from the destination rows of one block to the next's
  MEMFMT_UNROLL
  for (std::size_t g = 0; g < 16 / N; ++g) {  // row groups: their elements go N * g into each destination row
    VBytes a[N];
    const std::byte* from = src + static_cast<dim>(N * g) * src_step;
    MEMFMT_UNROLL
    for (std::size_t m = 0; m < N; ++m, from += src_step)
      a[m] = hn::LoadU(d8, reinterpret_cast<const std::uint8_t*>(from));
    transpose_narrow_blocks<kSize>(a);
    // destination rows by a running pointer, the blocks' rows `block` bytes further
    std::byte* to = dst + static_cast<dim>(N * g * kSize);
    MEMFMT_UNROLL
    for (std::size_t q = 0; q < N; ++q, to += dst_step) store_blocks(a[q], to, block);  // block b: row N * b + q
  }
}

/// `strips` whole strips of 16 source rows (`src_step` bytes apart) of `cols` columns,
/// a multiple of side_by_side_cols, as tiles side by side: the destination row of column
/// c at dst + c * dst_step, strip s at 16 * s elements into it. A call of its own:
/// inlined into transpose_block, it slowed the converted strips that take it, and GCC
/// spilled addresses.
/// Several strips in vectors shorter than a line take a line of columns of a strip
/// before the next strip, so that each source line is used up before the other strips'
/// lines evict it (planes of 1 or 2 KiB share L1 sets). The loops stay apart: one more
/// level in the single strip's loop made GCC spill.
template <std::size_t kSize>
HWY_NOINLINE void transpose_narrow_strips(const std::byte* src, dim src_step, std::byte* dst, dim dst_step, dim strips,
                                          dim cols) {
  MEMFMT_KERNEL_PATH("narrow strips");
  constexpr dim line_cols = 64 / dim{kSize};
  if (side_by_side_cols<kSize> < line_cols && strips > 1) {
    _Pragma("GCC unroll 1") for (dim c0 = 0; c0 < cols; c0 += line_cols) {
      const dim c1 = std::min(c0 + line_cols, cols);
      _Pragma("GCC unroll 1") for (dim s = 0; s < strips; ++s)
        _Pragma("GCC unroll 1") for (dim c = c0; c < c1; c += side_by_side_cols<kSize>)
          transpose_narrow_tiles<kSize>(src + s * 16 * src_step + c * dim{kSize}, src_step,
                                        dst + c * dst_step + s * 16 * dim{kSize}, dst_step);
    }
    return;
  }
  _Pragma("GCC unroll 1") for (dim c = 0; c < cols; c += side_by_side_cols<kSize>)
    _Pragma("GCC unroll 1") for (dim s = 0; s < strips; ++s)
      transpose_narrow_tiles<kSize>(src + s * 16 * src_step + c * dim{kSize}, src_step,
                                    dst + c * dst_step + s * 16 * dim{kSize}, dst_step);
}

/// `v` with its 128-bit block b (0 < b < vector_blocks) replaced by `part`. On AVX-512,
/// kBroadcast merges `part` into the block by a masked broadcast, otherwise an insert;
/// which pays depends on what else the loop waits for: in cache the insert, streamed
/// from memory the broadcast.
template <bool kBroadcast>
HWY_INLINE VBytes with_block(VBytes v, std::size_t b, VBlock part) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kBroadcast) return broadcast_block_into(v, b, part);
#endif
  return insert_block(v, b, part);
}

/// Source rows of a narrow stack: as many as fill a vector of 16-byte blocks.
template <std::size_t kSize>
inline constexpr dim narrow_stack_rows = static_cast<dim>(16 * vector_blocks / kSize);

/// A stack of narrow_stack_rows source rows of 16 kSize-byte elements, `src_step` bytes
/// apart, transposed without widening to 32-bit lanes into 16 destination rows of a
/// vector each (one line on AVX-512, half of one on AVX2, a quarter on SSE4), row k at
/// row_at(k); with `stream`, around the caches; with `prefetch`, asks for the rows'
/// lines ahead (see load_tile). With N = 16 / kSize elements a block, source row N * b +
/// m goes, N elements at a time, to block b of vectors m, N + m, ... as it is loaded, so
/// that N x N transposes run side by side, one per block, and each vector ends up
/// holding a destination row whole: 16 vectors and 64 (bytes) or 48 (16-bit) shuffles
/// for the stack, against 64 or 32 vectors and 4 or 2 x 64 shuffles on widened lanes
/// on AVX-512, and no widening or narrowing.
/// @pre with stream, vectors are whole lines (AVX-512) and every row_at(k) is a multiple of 64
template <std::size_t kSize, class RowAt>
HWY_INLINE void transpose_narrow_stack(const std::byte* src, dim src_step, RowAt row_at, bool stream, bool prefetch) {
  constexpr std::size_t N = 16 / kSize;
  const DBytes d8;
  VBytes a[16];  // a[N * h + m]: elements N * h.. of rows N * b + m, b = 0..vector_blocks
  const auto load = [&]<bool kBroadcast>() {
    MEMFMT_UNROLL
    for (std::size_t b = 0; b < vector_blocks; ++b) {  // row by row: each source line is used up at once
      MEMFMT_UNROLL
      for (std::size_t m = 0; m < N; ++m) {
        const std::byte* row = src + static_cast<dim>(N * b + m) * src_step;
        MEMFMT_UNROLL
        for (std::size_t h = 0; h < kSize; ++h) {
          const VBlock part = hn::LoadU(hn::Full128<std::uint8_t>(), reinterpret_cast<const std::uint8_t*>(row + 16 * h));
          VBytes& v = a[N * h + m];
          v = b == 0 ? first_block(part) : with_block<kBroadcast>(v, b, part);
        }
      }
    }
  };
  if (stream) {
    load.template operator()<true>();
  } else {
    load.template operator()<false>();
  }
  if (prefetch) {
    const dim ahead = src_step < close_rows ? close_rows_ahead : far_rows_ahead / 16;
    MEMFMT_UNROLL
    for (std::size_t k = 0; k < vector_blocks * N; ++k) prefetch_ahead(src + static_cast<dim>(k) * src_step, ahead);
  }
  MEMFMT_UNROLL
  for (std::size_t h = 0; h < kSize; ++h) transpose_narrow_blocks<kSize>(a + N * h);
  MEMFMT_UNROLL
  for (std::size_t k = 0; k < 16; ++k) {  // a[k]: destination row k (element N * h + q)
    auto* to = reinterpret_cast<std::uint8_t*>(row_at(k));
    if (stream) {
      hn::Stream(a[k], d8, to);
    } else {
      hn::StoreU(a[k], d8, to);
    }
  }
}
#endif

/// G = tiles_per_line whole W x W tiles, source rows `src_step` bytes apart and tile g
/// g * W rows below tile 0; row k of tile g goes to row_at(k) + g * W * kSize, so that
/// each destination row, 64 bytes, is written at once. With `stream`, around the caches;
/// with `prefetch`, asks for the rows' lines ahead (see load_tile).
/// @pre with stream, every row_at(k) is a multiple of 64
template <std::size_t kSize, std::size_t W, class RowAt>
HWY_INLINE void transpose_tile_stack(const std::byte* src, dim src_step, RowAt row_at, bool stream, bool prefetch) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kSize < 4 && W == 16) return transpose_narrow_stack<kSize>(src, src_step, row_at, stream, prefetch);
#endif
  constexpr std::size_t G = tiles_per_line<kSize, W>;
  VTile<W> r[G][W];
  MEMFMT_UNROLL
  for (std::size_t g = 0; g < G; ++g) {
    load_tile<kSize, W>(r[g], src + static_cast<dim>(g * W) * src_step, src_step, prefetch);
    transpose_tile<W>(r[g]);
  }
  const auto row = [&](std::size_t k, std::size_t g) { return row_at(k) + static_cast<dim>(g * W * kSize); };
  if constexpr (tile_can_stream<kSize, W>) {
    if (stream) {
      MEMFMT_UNROLL
      for (std::size_t k = 0; k < W; ++k) {
        MEMFMT_UNROLL
        for (std::size_t g = 0; g < G; ++g) store_bits<kSize, W, true>(r[g][k], row(k, g));
      }
      return;
    }
  }
  MEMFMT_UNROLL
  for (std::size_t k = 0; k < W; ++k) {
    MEMFMT_UNROLL
    for (std::size_t g = 0; g < G; ++g) store_bits<kSize, W>(r[g][k], row(k, g));
  }
}

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_TRANSPOSE_NARROW_INL_H_
