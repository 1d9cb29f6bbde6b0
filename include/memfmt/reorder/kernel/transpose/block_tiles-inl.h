// The orders a block transpose takes its tiles in: runs of source rows, column groups,
// bands from memory, stacks that fill destination lines, whole tiles, and blocks whose
// columns span several periods.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_TILES_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_TILES_INL_H_
#undef MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_TILES_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_TILES_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "memfmt/reorder/kernel/path.hpp"
#include "memfmt/reorder/kernel/transpose/block_walk-inl.h"
#include "memfmt/reorder/kernel/transpose/lines-inl.h"
#include "memfmt/reorder/kernel/transpose/narrow-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// The tiles of one block in the order that suits it: one member per order, chosen by
/// run() from where the block lies (in cache, or streamed from memory) and how its
/// destination rows are spaced.
template <std::size_t kSize, std::size_t W>
class block_tiles : block_walk<kSize, W> {
  using base = block_walk<kSize, W>;
  using base::col0_, base::cols_, base::cols_at_, base::dst_, base::first_, base::from, base::lanes, base::place,
      base::row_w_, base::rows_, base::rows_at, base::src_, base::src_row_, base::src_step_, base::stream_,
      base::tile, base::tile_prefetch_, base::to, base::w;

 public:
  using base::base;

  HWY_INLINE void run() {
    if (col0_ + cols_ > cols_at_.period) return several_periods();
    // one period: destination rows step evenly
    if (rows_ < w && rows_ + cols_at_.spare == w && cols_ >= w) return few_rows_and_zeros();
    if (cols_at_.inner_stride > src_row_) {  // destination rows farther apart than source rows
      if (!stream_ && (stack_fits || narrow_columns || row_w_ % 2048 == 0)) return runs_of_source_rows();
      if (!stream_) return column_groups_in_cache();
      return bands_of_source_rows();
    }
    if (tiles_per_line<kSize, W> > 1 && row_w_ % 64 == 0 &&
        (stream_ ? reinterpret_cast<std::uintptr_t>(first_) % 64 == 0 : !narrow_columns))
      return stacks_into_lines();
    whole_tiles();
  }

 private:
  /// Rows of a stack of tiles that fills destination lines (see tiles_per_line).
  static constexpr dim stack = static_cast<dim>(tiles_per_line<kSize, W>) * w;
  /// Whether a stack fits in registers (G x W vectors of at most 16: 64 bytes of 8-bit
  /// elements in 16-lane tiles are 64 vectors, and spill, except on AVX-512, where stacks
  /// of 8- and 16-bit elements transpose unwidened in 16).
  static constexpr bool stack_fits = stack > w && (stack <= 16 || (W == 16 && narrow_stacks));
  /// On AVX2 and SSE4, 8- and 16-bit elements in cache go in narrow stacks of 16
  /// columns instead, whose destination rows are a vector each: half or a quarter of a
  /// line, the rest of which the next stack down writes right after.
  static constexpr bool narrow_columns =
      kSize < 4 && W == tile_lanes && W < 16 && HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3;

  /// Fewer source rows than a tile, and zeros that complete each destination row to a
  /// tile's lanes (nchw -> nChw8c or nChw16c with 3 channels): whole tiles along the
  /// columns, their other rows zero, each destination row written whole, zeros and all
  /// (several times as fast as partial tiles and the zeros after them).
  HWY_INLINE void few_rows_and_zeros() {
    MEMFMT_KERNEL_PATH("few rows, tiles complete the zeros");
    const DTile<W> du;
    dim i = 0;
    for (; i + w <= cols_; i += w) {
      VTile<W> r[W];
      MEMFMT_UNROLL
      for (std::size_t k = 0; k < W; ++k) {
        const auto row = static_cast<dim>(k);
        r[k] = pinned(row < rows_ ? load_bits<kSize, W>(from(row, i)) : hn::Zero(du));
      }
      transpose_tile<W>(r);
      store_tile_rows<kSize, W>(r, to(0, i), row_w_, stream_);
    }
    if (i < cols_) tile(0, i);
  }

  /// In cache, destination rows farther apart than source rows (nhwc -> nchw): tiles go
  /// run by run of source rows, about 24 KiB of source that stays in L1 while the column
  /// groups pass over it, down each run in stacks that write whole destination lines.
  /// (Destination rows a multiple of 2 KiB apart, planes of 32 x 32 f32, share L1 sets:
  /// with 32-bit elements, 8-lane tiles then store 8 of them at a time, not 16; see
  /// pick_transpose_block.) Up to half again as fast as the whole block column group by
  /// column group; on AVX2 and SSE4, narrow stacks of 8- and 16-bit elements are three
  /// to four times as fast as widened tiles.
  HWY_INLINE void runs_of_source_rows() {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
    constexpr dim run_step = narrow_columns ? narrow_stack_rows<kSize> : stack;
#else
    constexpr dim run_step = stack;
#endif
    MEMFMT_KERNEL_PATH("runs of source rows");
    // (source rows 0 apart, a broadcast source, take the longest run)
    const dim run = std::max<dim>(24576 / std::max<dim>(src_step_, 1) / run_step, 1) * run_step;
    for (dim j0 = 0; j0 < rows_; j0 += run) {
      const dim j1 = rows_ - j0 < run ? rows_ : j0 + run;
      dim i = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
      if constexpr (narrow_columns) {
        if (cols_ >= 16) MEMFMT_KERNEL_PATH("narrow stacks");
        for (; i + 16 <= cols_; i += 16) {
          dim j = j0;
          for (; j + run_step <= j1; j += run_step)
            transpose_narrow_stack<kSize>(from(j, i), src_step_, rows_at(j, i), false, false);
          for (; j < j1; j += w)
            for (dim c = i; c < i + 16; c += w) tile(j, c);
        }
      }
#endif
      for (; i < cols_; i += w) {
        dim j = j0;
        if (stack_fits && cols_ - i >= w) {
          if (j1 - j >= stack) MEMFMT_KERNEL_PATH("stacks down runs");
          // (with the step a constant where it is one: see with_source_step)
          with_source_step(src_step_, [&](auto step) {
            for (; j + stack <= j1; j += stack)
              transpose_tile_stack<kSize, W>(src_ + j * step + i * dim{kSize}, step, rows_at(j, i), false, false);
          });
        }
        for (; j < j1; j += w) tile(j, i);
      }
    }
  }

  /// In cache, destination rows farther apart than source rows, where runs do not pay
  /// (stacks that do not fit in registers, rows apart by other than 2 KiB multiples):
  /// tiles go down the whole block column group by column group, so that W store streams
  /// advance line by line; the whole tiles of each group inline (a call per tile costs up
  /// to a fifth), the partial ones through tile().
  HWY_INLINE void column_groups_in_cache() {
    MEMFMT_KERNEL_PATH("column groups in cache");
    const dim whole_rows = rows_ / w * w, whole_cols = cols_ / w * w;
    const auto whole_tiles_down = [&](dim i, auto step) {
      for (dim j = 0; j < whole_rows; j += w)
        transpose_tile_even<kSize, W>(src_ + j * step + i * dim{kSize}, step, to(j, i), row_w_, false, false);
    };
    for (dim i = 0; i < cols_; i += w) {
      if (i < whole_cols) with_source_step(src_step_, [&](auto step) { whole_tiles_down(i, step); });
      for (dim j = i < whole_cols ? whole_rows : 0; j < rows_; j += w) tile(j, i);
    }
  }

  /// From memory, destination rows farther apart than source rows: tiles go down bands
  /// of as many source rows as make 1 KiB of each destination row (streamed_band_rows),
  /// column group by column group. The band's source stays in L2 while its column groups
  /// pass over it, and memory takes each destination row in runs of 16 lines instead of
  /// one line per tile. Tiles whose rows are shorter than a line go in stacks that fill
  /// the lines, so that the lines stream around the caches: alone, each tile row would
  /// write part of a line, which is read from memory first (two to four times as fast).
  /// Each tile also asks for its share of the next band's source lines, in order: one
  /// sequential stream a band ahead, instead of W rows' lines a tile ahead. The first
  /// band asks tile by tile.
  HWY_INLINE void bands_of_source_rows() {
    const bool stacks = stack_fits && row_w_ % 64 == 0 && reinterpret_cast<std::uintptr_t>(first_) % 64 == 0;
    MEMFMT_KERNEL_PATH(stacks ? "bands of source rows, stacks" : "bands of source rows");
    dim band = streamed_band_rows<kSize, W>(src_step_);
    if (stacks) band = std::max<dim>(band / stack, 1) * stack;
    for (dim j0 = 0; j0 < rows_; j0 += band) {
      const dim j1 = rows_ - j0 < band ? rows_ : j0 + band;
      const dim ahead = std::min(band, rows_ - j1);
      next_band_lines next(ahead > 0 ? from(j1, 0) : src_, src_step_, cols_ * dim{kSize}, ahead,
                           ((cols_ + w - 1) / w) * ((j1 - j0 + w - 1) / w));
      tile_prefetch_ = j0 == 0;
      for (dim i = 0; i < cols_; i += w) {
        dim j = j0;
        if (stacks && cols_ - i >= w) {
          for (; j + stack <= j1; j += stack) {
            transpose_tile_stack<kSize, W>(from(j, i), src_step_, rows_at(j, i), true, tile_prefetch_);
            for (dim t = 0; t < stack; t += w) next.prefetch_next_share();
          }
        }
        for (; j < j1; j += w) {
          tile(j, i);
          next.prefetch_next_share();
        }
      }
    }
  }

  /// The whole tiles of a stack of rows j.. (at most `end` columns from i) into
  /// destination rows `step` bytes apart (a constant for rows that are single lines:
  /// with the step in a register, the stores' row pointers spill). On AVX-512, 8- and
  /// 16-bit elements go as tiles side by side (half again as fast as widened tiles).
  template <class Step>
  HWY_INLINE void stack_run(dim j, dim i, dim end, Step step) {
    for (dim g = j; g < j + stack; g += w) {
      dim c = i;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
      if constexpr (kSize < 4 && W == 16) {
        const dim n = (end - c) / side_by_side_cols<kSize> * side_by_side_cols<kSize>;
        transpose_narrow_strips<kSize>(from(g, c), src_step_, first_ + c * step + g * dim{kSize}, step, 1, n);
        c += n;
      }
#endif
      for (; c < end; c += w)
        transpose_tile_even<kSize, W>(from(g, c), src_step_, first_ + c * step + g * dim{kSize}, step, false, false);
    }
  }

  /// Tile rows shorter than a line, destination rows whole lines apart: tiles go in
  /// stacks that fill the lines (in cache, not 8- and 16-bit elements on AVX2 and SSE4,
  /// which go side by side in whole_tiles()). Source rows a multiple of 2 KiB apart
  /// (planes of 32 x 32 f32) share one or two L1 sets: a stack's rows evict each other
  /// before the next stack reads the rest of their lines. In cache, tiles then go row
  /// group by row group over a run of columns, 1 KiB of each source row, so that the
  /// group's W rows are the only source streams and each source line is used up at
  /// once; the destination lines of the run are written in parts while in L1. (Without
  /// the aliasing, the stacks are the faster.)
  HWY_INLINE void stacks_into_lines() {
    const bool aliased = !stream_ && src_step_ % 2048 == 0;
    MEMFMT_KERNEL_PATH(stream_    ? "stacks into lines, streamed"
                       : aliased ? "stacks into lines, runs of columns"
                                 : "stacks into lines");
    constexpr dim run = std::max<dim>(1024 / dim{kSize} / w, 2) * w;
    dim j = 0;
    for (; j + stack <= rows_; j += stack) {
      dim i = 0;
      for (; aliased && i + 2 * w <= cols_; i += run) {
        const dim end = cols_ - i < run ? i + (cols_ - i) / w * w : i + run;
        if (row_w_ == 64) {
          stack_run(j, i, end, std::integral_constant<dim, 64>{});
        } else {
          stack_run(j, i, end, row_w_);
        }
      }
      for (; i + w <= cols_; i += w) {
        if (kSize == 4 && row_w_ == 64 && !stream_) {
          // 32-bit elements into rows of a line (nchw -> nChw16c in 8- or 4-lane tiles),
          // in cache: the tiles of a stack one after the other, with the row step a
          // constant; a whole stack does not fit in 16 registers
          stack_run(j, i, i + w, std::integral_constant<dim, 64>{});
          continue;
        }
        transpose_tile_stack<kSize, W>(from(j, i), src_step_, rows_at(j, i), stream_, stream_);
      }
      for (dim c = cols_ - cols_ % w; c < cols_; c += w)
        for (dim g = j; g < j + stack; g += w) tile(g, c);
    }
    for (; j < rows_; j += w)
      for (dim i = 0; i < cols_; i += w) tile(j, i);
  }

  /// Whole 16-lane tiles of f32 into destination rows of one line each (nchw ->
  /// nChw16c), in cache, from column `from_col` on: inline, with the row step a constant
  /// the stores need no pointers; read as pick_tile_reads says.
  HWY_INLINE void tiles_into_lines(dim whole_rows, dim whole_cols, dim from_col) {
    const auto whole_tiles = [&](auto reads) {
      for (dim j = 0; j < whole_rows; j += w)
        for (dim i = from_col; i < whole_cols; i += w)
          transpose_tile_into_lines<kSize, W, decltype(reads)::value>(from(j, i), src_step_, first_ + i * 64 + j * dim{kSize});
    };
    switch (pick_tile_reads<kSize, W>(src_, src_step_)) {
      case tile_reads::rows:
        MEMFMT_KERNEL_PATH("tiles into lines, read by rows");
        whole_tiles(std::integral_constant<tile_reads, tile_reads::rows>{});
        break;
      case tile_reads::blocks:
        MEMFMT_KERNEL_PATH("tiles into lines, read by blocks");
        whole_tiles(std::integral_constant<tile_reads, tile_reads::blocks>{});
        break;
      case tile_reads::lines:  // the columns left of the staged strips
        MEMFMT_KERNEL_PATH("tiles into lines, read by lines");
        whole_tiles(std::integral_constant<tile_reads, tile_reads::lines>{});
        break;
    }
  }

  /// The other blocks of one period. Tiles of 8 or 4 lanes: the whole ones inline, the
  /// partial ones at the edges through tile() (a call per tile costs about a third).
  /// Tiles of 16 lanes stay a call each: inline, the loop's 32 row pointers spill. In
  /// cache, 8- and 16-bit elements in the widest tiles go first as whole strips of 16
  /// rows, a vector of columns at a time, unwidened (transpose_narrow_strips, two to
  /// three times as fast as widened tiles); the tiles of the other rows and columns
  /// follow. Whole 16-lane f32 tiles into rows of one line go inline too
  /// (tiles_into_lines), and from source rows a multiple of 4 KiB apart, through L1
  /// first (transpose_staged_tiles).
  HWY_INLINE void whole_tiles() {
    MEMFMT_KERNEL_PATH("whole tiles");
    dim narrow_rows = 0, narrow_cols = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
    if constexpr (kSize < 4 && W == tile_lanes) {
      if (!stream_) {
        narrow_rows = rows_ / 16 * 16;
        narrow_cols = cols_ / side_by_side_cols<kSize> * side_by_side_cols<kSize>;
        transpose_narrow_strips<kSize>(src_, src_step_, first_, row_w_, narrow_rows / 16, narrow_cols);
      }
    }
#endif
    const bool line_rows = W == 16 && kSize == 4 && row_w_ == 64 && !stream_;
    const dim whole_rows = W < 16 || line_rows ? rows_ / w * w : 0, whole_cols = cols_ / w * w;
    dim staged_rows = 0, staged_cols = 0;
    if (W == 16 && kSize == 4 && !stream_ && src_step_ % 4096 == 0) {
      for (; staged_rows + w <= rows_; staged_rows += w) {
        const std::byte* row = from(staged_rows, 0);
        std::byte* at = to(staged_rows, 0);
        staged_cols = line_rows ? transpose_staged_tiles<kSize, W>(row, src_step_, at,
                                                                   std::integral_constant<dim, 64>{}, whole_cols)
                                : transpose_staged_tiles<kSize, W>(row, src_step_, at, row_w_, whole_cols);
      }
      if (staged_cols > 0) {
        MEMFMT_KERNEL_PATH("whole tiles, staged");
      } else {
        staged_rows = 0;
      }
    }
    if (line_rows && staged_cols < whole_cols) {
      tiles_into_lines(whole_rows, whole_cols, staged_cols);
    } else if (!line_rows) {
      for (dim j = 0; j < whole_rows; j += w)
        for (dim i = j < narrow_rows ? narrow_cols : 0; i < whole_cols; i += w)
          transpose_tile_even<kSize, W>(from(j, i), src_step_, to(j, i), row_w_, stream_, tile_prefetch_);
    }
    for (dim j = 0; j < rows_; j += w)
      for (dim i = std::max({j < whole_rows ? whole_cols : 0, j < narrow_rows ? narrow_cols : 0,
                             j < staged_rows ? staged_cols : 0});
           i < cols_; i += w)
        tile(j, i);
  }

  /// Several periods: each group of W columns is placed once per strip of rows, and its
  /// tiles go down the strip, in stacks that fill lines when the destination rows are
  /// whole lines apart (so that, from memory, the destination rows stream: twice as fast
  /// for oihw -> OIhw16i16o).
  HWY_INLINE void several_periods() {
    constexpr dim strip = 8 * stack;  // rows: the strip's source stays in L1 while its columns pass
    const bool lines = stack > w && (cols_at_.inner_stride * dim{kSize}) % 64 == 0 &&
                       (cols_at_.outer_stride * dim{kSize}) % 64 == 0 &&
                       (!stream_ || reinterpret_cast<std::uintptr_t>(dst_) % 64 == 0);
    MEMFMT_KERNEL_PATH(lines ? "several periods, stacks into lines" : "several periods");
    std::byte* at[W];
    for (dim j0 = 0; j0 < rows_; j0 += strip) {
      const dim j1 = rows_ - j0 < strip ? rows_ : j0 + strip;
      for (dim i = 0; i < cols_; i += w) {
        place(i, 0, at);
        const dim n = cols_ - i < w ? cols_ - i : w;
        dim j = j0;
        if (lines && n == w) {
          for (; j + stack <= j1; j += stack)
            transpose_tile_stack<kSize, W>(from(j, i), src_step_,
                                           [&at, down = j * dim{kSize}](std::size_t k) { return at[k] + down; },
                                           stream_, stream_);
        }
        for (; j < j1; j += w) {
          std::byte* row[W];
          MEMFMT_UNROLL
          for (std::size_t k = 0; k < W; ++k) row[k] = at[k] + j * dim{kSize};
          transpose_tile_part<kSize, W>(from(j, i), src_step_, row, j1 - j < w ? j1 - j : w, n,
                                        j1 == rows_ ? lanes(j) : w, stream_);
        }
      }
    }
  }
};

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_TILES_INL_H_
