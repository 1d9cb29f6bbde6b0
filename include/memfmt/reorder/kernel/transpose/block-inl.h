// The block transpose: a rows x cols block of 1-, 2- or 4-byte elements in W x W
// tiles, in the order that suits where the block lies (in cache or streamed from
// memory) and how its destination rows are spaced.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_INL_H_
#undef MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_INL_H_
#endif

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <type_traits>

#include "memfmt/reorder/kernel/path.hpp"
#include "memfmt/reorder/kernel/transpose/lines-inl.h"
#include "memfmt/reorder/kernel/transpose/narrow-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// Where the destination rows of a block start: the row of source column k is at
/// element offset (k / period) * outer_stride + (k % period) * inner_stride. A plain
/// 2-D block has one period; a block whose columns span two loops that are
/// contiguous in the source but not in the destination has several. `spare`: zeros
/// (destination padding) after each destination row, which the last strip's partial
/// tiles may write as part of whole rows.
struct column_map {
  dim period;
  dim inner_stride;
  dim outer_stride;
  dim spare = 0;
};

/// Source rows of a band of a streamed transpose to far-apart destination rows: 1 KiB
/// of each destination row, fewer when the source rows of the band would span more than
/// 128 KiB (the band is read once per column group, from L2), and a multiple of W (at
/// least W, however far apart the source rows are).
template <std::size_t kSize, std::size_t W>
constexpr dim streamed_band_rows(dim src_step) {
  constexpr auto w = static_cast<dim>(W);
  const dim rows = std::min<dim>(1024 / static_cast<dim>(kSize), (128 << 10) / std::max<dim>(src_step, 1));
  return std::max<dim>(rows / w * w, w);
}

/// The source lines of the band after the current one (`rows` rows `step` bytes
/// apart, `bytes` used of each), asked for in `shares` shares of about as many lines
/// each, in order: one share per tile of the current band.
class next_band_lines {
 public:
  /// @pre rows == 0 (nothing to ask for), or `first` is where the band's first row starts
  next_band_lines(const std::byte* first, dim step, dim bytes, dim rows, dim shares)
      : first_(reinterpret_cast<std::uintptr_t>(first)), step_(step), bytes_(bytes), rows_(rows) {
    if (bytes == step && rows > 1) {  // rows back to back: one row, no line asked twice
      bytes_ = rows * step;
      step_ = bytes_;
      rows_ = 1;
    }
    // lines a row touches: the same for every row when rows are whole lines apart
    const dim lead = step_ % 64 == 0 ? static_cast<dim>(first_ % 64) : 63;
    per_row_ = (lead + bytes_ + 63) / 64;
    per_share_ = (rows_ * per_row_ + shares - 1) / std::max<dim>(shares, 1);
  }

  void prefetch_next_share() {
    for (dim k = 0; k < per_share_ && row_ < rows_; ++k) {
      const std::uintptr_t begin = first_ + static_cast<std::uintptr_t>(row_ * step_);
      const std::uintptr_t line = (begin & ~std::uintptr_t{63}) + static_cast<std::uintptr_t>(line_ * 64);
      if (line < begin + static_cast<std::uintptr_t>(bytes_)) prefetch_line(line);
      if (++line_ == per_row_) {
        line_ = 0;
        ++row_;
      }
    }
  }

 private:
  std::uintptr_t first_;
  dim step_, bytes_, rows_;
  dim per_row_ = 1, per_share_ = 0;
  dim row_ = 0, line_ = 0;  ///< the next line to ask for
};

/// Calls f(step), with `step` a compile-time constant when it is one line (the source
/// rows of f32 nChw16c): with the step in a register, GCC keeps the row pointers of a
/// tile in vector registers and moves them back one at a time. (Half a line, nChw8c,
/// gained nothing.)
template <class F>
HWY_INLINE void with_source_step(dim step, F&& f) {
  if (step == 64) {
    f(std::integral_constant<dim, 64>{});
  } else {
    f(step);
  }
}

/// Elements from `p` to the next line boundary when every row `step` bytes apart starts
/// there at the same place in its line (and the boundary falls between elements), else 0.
template <std::size_t kSize>
HWY_INLINE dim elements_to_line(const void* p, dim step) {
  const auto past = static_cast<dim>(reinterpret_cast<std::uintptr_t>(p) % 64);
  return step % 64 == 0 && past % dim{kSize} == 0 ? (64 - past) % 64 / dim{kSize} : 0;
}

/// The tiles of one block and the order they go in (see transpose_block): one member
/// per order, chosen by run() from where the block lies (in cache, or streamed from
/// memory) and how its destination rows are spaced.
template <std::size_t kSize, std::size_t W>
class block_tiles {
 public:
  block_tiles(const std::byte* src, dim src_row, std::byte* dst, const column_map& cols_at, dim col0, dim rows,
              dim cols, bool stream)
      : src_(src), src_row_(src_row), src_step_(src_row * dim{kSize}), dst_(dst), cols_at_(cols_at), col0_(col0),
        rows_(rows), cols_(cols), stream_(stream), row_w_(cols_at.inner_stride * dim{kSize}),
        first_(dst + col0 * row_w_), tile_prefetch_(stream) {}

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
  static constexpr dim w = static_cast<dim>(W);
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

  const std::byte* src_;
  dim src_row_, src_step_;
  std::byte* dst_;
  const column_map& cols_at_;
  dim col0_, rows_, cols_;
  bool stream_;
  dim row_w_;            ///< bytes between destination rows (one period)
  std::byte* first_;     ///< the destination row of column 0 (one period)
  bool tile_prefetch_;   ///< whole tiles ask for their own rows' lines ahead

  const std::byte* from(dim j, dim i) const { return src_ + (j * src_row_ + i) * dim{kSize}; }
  std::byte* to(dim j, dim i) const { return first_ + i * row_w_ + j * dim{kSize}; }
  /// Destination row k of the tile whose first row and column are j and i (one period).
  auto rows_at(dim j, dim i) const {
    return [at = to(j, i), step = row_w_](std::size_t k) { return at + static_cast<dim>(k) * step; };
  }

  /// The destination rows of columns i.. at row j, any number of periods.
  void place(dim i, dim j, std::byte** at) const {
    dim q = (col0_ + i) / cols_at_.period, r = (col0_ + i) % cols_at_.period;
    MEMFMT_UNROLL
    for (std::size_t k = 0; k < W; ++k) {
      at[k] = dst_ + (q * cols_at_.outer_stride + r * cols_at_.inner_stride + j) * dim{kSize};
      if (++r == cols_at_.period) {
        r = 0;
        ++q;
      }
    }
  }

  /// Lanes written of the tiles at row j: W when the padding completes them.
  dim lanes(dim j) const {
    const dim left = rows_ - j < w ? rows_ - j : w;
    return left + cols_at_.spare >= w ? w : left;
  }

  /// In cache, on AVX-512, one or two columns (rows) left of a whole strip of 32-bit
  /// elements go as a gather (scatter) each, not as a tile: faster than a tile's shuffles
  /// for one or two; four cost more than a tile. Returns whether it did the tile.
  bool edge_gathers(dim j, dim i) const {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (kSize == 4 && W == 16) {
      const hn::Full512<std::int32_t> di;
      if (!stream_ && cols_ - i <= 2 && rows_ - j >= w && src_row_ < (dim{1} << 26)) {
        MEMFMT_KERNEL_PATH("edge gathers");
        const auto index = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<std::int32_t>(src_row_)));
        const auto* row = reinterpret_cast<const std::int32_t*>(src_) + j * src_row_;
        for (dim c = i; c < cols_; ++c)
          hn::StoreU(hn::GatherIndex(di, row + c, index), di, reinterpret_cast<std::int32_t*>(to(j, c)));
        return true;
      }
      if (!stream_ && rows_ - j <= 2 && cols_ - i >= w && cols_at_.spare == 0 &&
          cols_at_.inner_stride < (dim{1} << 26)) {
        MEMFMT_KERNEL_PATH("edge scatters");
        const auto index = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<std::int32_t>(cols_at_.inner_stride)));
        auto* column = reinterpret_cast<std::int32_t*>(first_ + i * row_w_);
        for (dim r = j; r < rows_; ++r)
          hn::ScatterIndex(hn::LoadU(di, reinterpret_cast<const std::int32_t*>(from(r, i))), di, column + r, index);
        return true;
      }
    }
#endif
    (void)j, (void)i;
    return false;
  }

  /// The tile of source rows j.., columns i.. (one period), whole or partial.
  void tile(dim j, dim i) {
    if (edge_gathers(j, i)) return;
    // In cache, a tile at the far edge of a block at least a tile wide (and without
    // padding to write after its rows) goes whole, ending at the edge: it writes some of
    // its neighbour's elements again, with the same values, since nothing here reads
    // the destination
    if (!stream_) {
      if (cols_ - i < w && cols_ >= w) i = cols_ - w;
      if (rows_ - j < w && rows_ >= w && cols_at_.spare == 0) j = rows_ - w;
    }
    if (rows_ - j >= w && cols_ - i >= w) {
      transpose_tile_even<kSize, W>(from(j, i), src_step_, to(j, i), row_w_, stream_, tile_prefetch_);
      return;
    }
    std::byte* at[W];
    place(i, j, at);
    transpose_tile_part<kSize, W>(from(j, i), src_step_, at, rows_ - j < w ? rows_ - j : w,
                                  cols_ - i < w ? cols_ - i : w, lanes(j), stream_);
  }

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
      const auto at = reinterpret_cast<std::uintptr_t>(to(0, i));
      const bool lines = kSize * W == 64 ? (at | static_cast<std::uintptr_t>(row_w_)) % 64 == 0
                                         : at % 64 == 0 && row_w_ == static_cast<dim>(kSize * W);
      store_tile<kSize, W>(r, rows_at(0, i), stream_ && lines);
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

/// A `rows` x `cols` block of kSize-byte elements in W x W tiles (partial at the
/// edges): source rows `src_row` elements apart, starting at column `col0` of the
/// map; destination rows placed by `cols_at`, consecutive destination columns
/// (source rows) adjacent. Tiles go along a strip of W source rows, which reads the
/// source sequentially, or down a strip of W destination rows when those are the
/// farther apart: over the whole block in cache, over bands of source rows from memory.
/// A tile row that crosses a cache line costs about twice as much to store, or to load,
/// as one that does not (buffers 16 bytes past a line, as malloc returns large blocks):
/// when every destination (source) row starts at the same place in its line, the rows
/// (columns) before the first line boundary go as a block of their own, and the other
/// tiles store (load) whole lines.
template <std::size_t kSize, std::size_t W>
void transpose_block(const std::byte* src, dim src_row, std::byte* dst, const column_map& cols_at, dim col0, dim rows,
                     dim cols, bool stream) {
  constexpr auto w = static_cast<dim>(W);
  const dim src_step = src_row * dim{kSize};
  const bool one_period = col0 + cols <= cols_at.period;
  const dim dst_lead = elements_to_line<kSize>(
      dst, one_period ? cols_at.inner_stride * dim{kSize}
                      : std::gcd(cols_at.inner_stride, cols_at.outer_stride) * dim{kSize});
  if (dst_lead > 0 && rows - dst_lead >= w) {
    MEMFMT_KERNEL_PATH("destination lead");
    column_map head = cols_at;
    head.spare = 0;  // rows follow its rows, not padding
    transpose_block<kSize, W>(src, src_row, dst, head, col0, dst_lead, cols, stream);
    transpose_block<kSize, W>(src + dst_lead * src_step, src_row, dst + dst_lead * dim{kSize}, cols_at, col0,
                              rows - dst_lead, cols, stream);
    return;
  }
  const dim src_lead = elements_to_line<kSize>(src, src_step);
  if (src_lead > 0 && cols - src_lead >= w) {
    MEMFMT_KERNEL_PATH("source lead");
    transpose_block<kSize, W>(src, src_row, dst, cols_at, col0, rows, src_lead, stream);
    transpose_block<kSize, W>(src + src_lead * dim{kSize}, src_row, dst, cols_at, col0 + src_lead, rows,
                              cols - src_lead, stream);
    return;
  }
  block_tiles<kSize, W>(src, src_row, dst, cols_at, col0, rows, cols, stream).run();
}

using transpose_block_fn = void (*)(const std::byte*, dim, std::byte*, const column_map&, dim, dim, dim, bool);

/// The block transpose for elements of `size` bytes with the tile that wastes least on
/// a block whose narrow side is `narrow` elements: the widest, or 8 or 4 lanes.
/// `rows_share_sets`: in cache, the 16 rows a 16-lane tile of 32-bit elements stores at
/// once would share L1 sets, so 8-lane tiles take them 8 at a time: destination rows a
/// multiple of 2 KiB apart and farther apart than the source rows (nhwc -> nchw, nChw16c
/// -> nchw). (Source rows that alias so, into destination rows of one line each, read
/// the source line by line instead: see transpose_tile_by_blocks.)
inline transpose_block_fn pick_transpose_block(std::size_t size, dim narrow, bool rows_share_sets = false) {
  const auto pick = [&]<std::size_t kSize>() -> transpose_block_fn {
    if constexpr (tile_lanes < 4) {
      return nullptr;  // no tiles on this target
    } else if constexpr (tile_lanes >= 16) {
      if (narrow <= 4) return &transpose_block<kSize, 4>;
      if (narrow <= 8 || (kSize == 4 && rows_share_sets)) return &transpose_block<kSize, 8>;
    } else if constexpr (tile_lanes >= 8) {
      if (narrow <= 4) return &transpose_block<kSize, 4>;
    }
    return &transpose_block<kSize, tile_lanes>;
  };
  if (size == 4) return pick.template operator()<4>();
  if (size == 2) return pick.template operator()<2>();
  return pick.template operator()<1>();
}

/// Tile widths, widest first: tile_lanes, then halves down to 4.
inline constexpr std::size_t tile_levels = tile_lanes >= 16 ? 3 : tile_lanes >= 8 ? 2 : tile_lanes >= 4 ? 1 : 0;

/// The plain tile transposes of one element size, widest first.
template <std::size_t kSize>
constexpr std::array<void (*)(const std::byte*, dim, std::byte*, dim), 3> plain_tiles() {
  std::array<void (*)(const std::byte*, dim, std::byte*, dim), 3> fns{};
  if constexpr (tile_levels >= 1) fns[0] = &transpose_tile_plain<kSize, tile_lanes>;
  if constexpr (tile_levels >= 2) fns[1] = &transpose_tile_plain<kSize, tile_lanes / 2>;
  if constexpr (tile_levels >= 3) fns[2] = &transpose_tile_plain<kSize, tile_lanes / 4>;
  return fns;
}

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_INL_H_
