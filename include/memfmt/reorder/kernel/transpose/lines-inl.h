// Whole 16 x 16 tiles of 32-bit elements into destination rows of one line each
// (nchw -> nChw16c), AVX-512: read by 128-bit blocks, or staged through L1 when the
// source rows share L1 sets.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_TRANSPOSE_LINES_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_TRANSPOSE_LINES_INL_H_
#undef MEMFMT_REORDER_KERNEL_TRANSPOSE_LINES_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_TRANSPOSE_LINES_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "memfmt/reorder/kernel/transpose/tiles-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// How the whole 16 x 16 tiles of 32-bit elements into destination rows of one line each
/// (nchw -> nChw16c, in cache) read their source rows: as whole rows (transpose_tile_even)
/// or by 128-bit blocks (transpose_tile_by_blocks), block by block or line by line.
enum class tile_reads { rows, blocks, lines };

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
/// A whole 16 x 16 tile of 32-bit elements read by 128-bit blocks: vector 4b + i gets
/// block b of source rows i, 4 + i, 8 + i and 12 + i, by a broadcast and three masked
/// broadcasts (loads, no shuffles), so that each of its 128-bit blocks holds a 4 x 4
/// matrix; one transpose within the blocks of vectors 4b..4b+3 turns them into
/// destination rows 4b..4b+3. That is 32 shuffles instead of 64, and in L2 the tiles gain
/// more than that explains. kLines: all 16 vectors at once, each source line read at
/// once, for rows a multiple of 4 KiB apart (the tiles left over from
/// transpose_staged_tiles): their 16 lines share one L1 set, and block by block, a line
/// is evicted before its next block is read. Without that aliasing, block by block is
/// the faster.
/// @pre src and src_step are multiples of 16 (with rows only 4-byte aligned, some block
/// loads cross a line, and the blocks lose as often as they win)
template <bool kLines, class Step>
HWY_INLINE void transpose_tile_by_blocks(const std::byte* src, Step src_step, std::byte* dst, dim dst_step) {
  const DTile<16> du;
  VTile<16> v[16];
  const auto read = [&](std::size_t row, std::size_t b) {  // block b of source row `row`
    const auto* from = src + static_cast<dim>(row) * src_step + static_cast<dim>(16 * b);
    const VBlock part = hn::LoadU(hn::Full128<std::uint8_t>(), reinterpret_cast<const std::uint8_t*>(from));
    VTile<16>& to = v[4 * b + row % 4];
    to = row < 4 ? broadcast_block<std::uint32_t>(part) : broadcast_block_into(to, row / 4, part);
  };
  const auto write = [&](std::size_t b) {  // destination rows 4b..4b+3
    transpose_within_blocks<16>(v + 4 * b);
    MEMFMT_UNROLL
    for (std::size_t i = 0; i < 4; ++i)
      hn::StoreU(v[4 * b + i], du, reinterpret_cast<std::uint32_t*>(dst + static_cast<dim>(4 * b + i) * dst_step));
  };
  if constexpr (kLines) {
    MEMFMT_UNROLL
    for (std::size_t row = 0; row < 16; ++row) {
      MEMFMT_UNROLL
      for (std::size_t b = 0; b < 4; ++b) read(row, b);
    }
    MEMFMT_UNROLL
    for (std::size_t b = 0; b < 4; ++b) write(b);
  } else {
    MEMFMT_UNROLL
    for (std::size_t b = 0; b < 4; ++b) {
      MEMFMT_UNROLL
      for (std::size_t row = 0; row < 16; ++row) read(row, b);
      write(b);
    }
  }
}
#endif

/// The reads for the whole tiles of a block into rows of one line (see tile_reads).
template <std::size_t kSize, std::size_t W>
inline tile_reads pick_tile_reads(const std::byte* src, dim src_step) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if (kSize == 4 && W == 16 && (reinterpret_cast<std::uintptr_t>(src) | static_cast<std::uintptr_t>(src_step)) % 16 == 0)
    return src_step % 4096 == 0 ? tile_reads::lines : tile_reads::blocks;
#endif
  (void)src;
  (void)src_step;
  return tile_reads::rows;
}

/// A whole W x W tile into destination rows of one line each, read as kReads says.
/// @pre pick_tile_reads gave kReads
template <std::size_t kSize, std::size_t W, tile_reads kReads, class Step>
HWY_INLINE void transpose_tile_into_lines(const std::byte* src, Step src_step, std::byte* dst) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kReads != tile_reads::rows && kSize == 4 && W == 16) {
    transpose_tile_by_blocks<kReads == tile_reads::lines>(src, src_step, dst, 64);
    return;
  }
#endif
  transpose_tile_even<kSize, W>(src, src_step, dst, 64, false, false);
}

/// A row of whole W x W tiles of 32-bit elements from source rows a multiple of 4 KiB
/// apart, which share one L1 set (planes of 32 x 32 f32), into destination rows
/// `dst_step` bytes apart: on AVX-512, strips of 16 rows x 8 tiles go first into a
/// buffer in L1 whose rows are 9 lines apart, each source row read as 8 consecutive
/// lines; the strip's tiles then read the buffer row by row. Read from the source, a
/// tile's 16 lines share a set, and the lines of the next tiles evict each other before
/// they are read. Only for rows that alias so, and in cache: for other rows the extra
/// copy loses as often as it gains, and streamed from memory it costs a third. (Buffer
/// rows 9 lines apart and strips of 8 tiles were the best of the variants tried.)
/// `dst_step` may be a std::integral_constant: destination rows of one line each
/// (nchw -> nChw16c) then need no pointers, which a step in a register costs.
/// Returns the columns done: whole strips, from the first; the caller does the rest.
/// @pre cols is a multiple of W
template <std::size_t kSize, std::size_t W, class Step>
HWY_NOINLINE dim transpose_staged_tiles(const std::byte* src, dim src_step, std::byte* dst, Step dst_step, dim cols) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kSize == 4 && W == 16) {
    constexpr dim strip = 8 * 16;                    // columns
    constexpr dim buffer_step = strip * 4 + 64;      // bytes between the buffer's rows
    HWY_ALIGN std::byte buffer[16 * buffer_step];    // 9 KiB
    const DTile<16> du;
    const dim strips = cols / strip;
    for (dim s = 0; s < strips; ++s) {
      const std::byte* from = src + s * strip * 4;
      MEMFMT_UNROLL
      for (std::size_t r = 0; r < 16; ++r) {
        MEMFMT_UNROLL
        for (std::size_t c = 0; c < 8; ++c) {
          const auto* line = reinterpret_cast<const std::uint32_t*>(from + static_cast<dim>(r) * src_step) + 16 * c;
          hn::Store(hn::LoadU(du, line), du, reinterpret_cast<std::uint32_t*>(buffer + r * buffer_step) + 16 * c);
        }
      }
      for (dim c = 0; c < 8; ++c)
        transpose_tile_even<4, 16>(buffer + c * 64, buffer_step, dst + (s * strip + c * 16) * dst_step, dst_step, false,
                                   false);
    }
    return strips * strip;
  }
#endif
  (void)src, (void)src_step, (void)dst, (void)dst_step, (void)cols;
  return 0;
}

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_TRANSPOSE_LINES_INL_H_
