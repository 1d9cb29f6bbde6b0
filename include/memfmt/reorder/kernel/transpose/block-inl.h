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

/// A `rows` x `cols` block of kSize-byte elements in W x W tiles (partial at the
/// edges): source rows `src_row` elements apart, starting at column `col0` of the
/// map; destination rows placed by `cols_at`, consecutive destination columns
/// (source rows) adjacent. Tiles go along a strip of W source rows, which reads the
/// source sequentially, or down a strip of W destination rows when those are the
/// farther apart: over the whole block in cache, over bands of source rows from memory.
template <std::size_t kSize, std::size_t W>
void transpose_block(const std::byte* src, dim src_row, std::byte* dst, const column_map& cols_at, dim col0, dim rows,
                     dim cols, bool stream) {
  constexpr auto w = static_cast<dim>(W);
  const dim src_step = src_row * dim{kSize};
  // A tile row that crosses a cache line costs about twice as much to store, or to load,
  // as one that does not: buffers 16 bytes past a line, as malloc returns large blocks,
  // made nhwc -> nchw in L2 1.75x slower and nchw -> nhwc 1.8x. When every destination
  // (source) row starts at the same place in its line, the rows (columns) before the
  // first line boundary go as a block of their own, and the other tiles store (load)
  // whole lines.
  const auto lead = [](const void* p, dim step) -> dim {  // elements to a line, or 0
    const auto past = static_cast<dim>(reinterpret_cast<std::uintptr_t>(p) % 64);
    return step % 64 == 0 && past % dim{kSize} == 0 ? (64 - past) % 64 / dim{kSize} : 0;
  };
  const bool one_period = col0 + cols <= cols_at.period;
  const dim dst_lead = lead(dst, one_period ? cols_at.inner_stride * dim{kSize}
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
  const dim src_lead = lead(src, src_step);
  if (src_lead > 0 && cols - src_lead >= w) {
    MEMFMT_KERNEL_PATH("source lead");
    transpose_block<kSize, W>(src, src_row, dst, cols_at, col0, rows, src_lead, stream);
    transpose_block<kSize, W>(src + src_lead * dim{kSize}, src_row, dst, cols_at, col0 + src_lead, rows, cols - src_lead,
                              stream);
    return;
  }
  std::byte* at[W];
  const auto place = [&](dim i, dim j) {  // destination rows of columns i.., at row j
    dim q = (col0 + i) / cols_at.period, r = (col0 + i) % cols_at.period;
    MEMFMT_UNROLL
    for (std::size_t k = 0; k < W; ++k) {
      at[k] = dst + (q * cols_at.outer_stride + r * cols_at.inner_stride + j) * dim{kSize};
      if (++r == cols_at.period) {
        r = 0;
        ++q;
      }
    }
  };
  const dim row_w = cols_at.inner_stride * dim{kSize};  // bytes between destination rows
  const auto lanes = [&](dim j) {  // of the tiles at row j: W when the padding completes them
    const dim left = rows - j < w ? rows - j : w;
    return left + cols_at.spare >= w ? w : left;
  };
  if (col0 + cols <= cols_at.period) {
    // one period: destination rows step evenly
    std::byte* const first = dst + col0 * row_w;
    bool tile_prefetch = stream;  // whole tiles ask for their own rows' lines ahead
    const auto tile = [&](dim j, dim i) {  // source rows j.., columns i..
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
      if constexpr (kSize == 4 && W == 16) {
        // In cache, one or two columns (rows) left of a whole strip go as a gather
        // (scatter) each, not as a tile (nchw -> nChw16c 1 x 512 x 7 x 7 in L2 on Zen 5, one
        // thread: 92 -> 102 GB/s; four gathers cost more than a tile: 1 x 256 x 14 x 14 126
        // -> 124)
        const hn::Full512<std::int32_t> di;
        if (!stream && cols - i <= 2 && rows - j >= w && src_row < (dim{1} << 26)) {
          MEMFMT_KERNEL_PATH("edge gathers");
          const auto index = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<std::int32_t>(src_row)));
          const auto* from = reinterpret_cast<const std::int32_t*>(src) + j * src_row;
          for (dim c = i; c < cols; ++c) {
            auto* to = reinterpret_cast<std::int32_t*>(first + c * row_w + j * dim{kSize});
            hn::StoreU(hn::GatherIndex(di, from + c, index), di, to);
          }
          return;
        }
        if (!stream && rows - j <= 2 && cols - i >= w && cols_at.spare == 0 && cols_at.inner_stride < (dim{1} << 26)) {
          MEMFMT_KERNEL_PATH("edge scatters");
          const auto index = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<std::int32_t>(cols_at.inner_stride)));
          auto* to = reinterpret_cast<std::int32_t*>(first + i * row_w);
          for (dim r = j; r < rows; ++r) {
            const auto* from = reinterpret_cast<const std::int32_t*>(src + (r * src_row + i) * dim{kSize});
            hn::ScatterIndex(hn::LoadU(di, from), di, to + r, index);
          }
          return;
        }
      }
#endif
      // In cache, a tile at the far edge of a block at least a tile wide (and without
      // padding to write after its rows) goes whole, ending at the edge: it writes some of
      // its neighbour's elements again, with the same values, since nothing here reads
      // the destination
      if (!stream) {
        if (cols - i < w && cols >= w) i = cols - w;
        if (rows - j < w && rows >= w && cols_at.spare == 0) j = rows - w;
      }
      const std::byte* from = src + (j * src_row + i) * dim{kSize};
      std::byte* to = first + i * row_w + j * dim{kSize};
      if (rows - j >= w && cols - i >= w) {
        transpose_tile_even<kSize, W>(from, src_step, to, row_w, stream, tile_prefetch);
        return;
      }
      place(i, j);
      transpose_tile_part<kSize, W>(from, src_step, at, rows - j < w ? rows - j : w, cols - i < w ? cols - i : w,
                                    lanes(j), stream);
    };
    if (rows < w && rows + cols_at.spare == w && cols >= w) {
      // Fewer source rows than a tile, and zeros that complete each destination row to a
      // tile's lanes (nchw -> nChw8c or nChw16c with 3 channels): whole tiles along the
      // columns, their other rows zero, each destination row written whole, zeros and all
      // (in L2 on Zen 5, one thread, against 4-lane partial tiles and the zeros after:
      // nchw -> nChw8c 1 x 3 x 224 x 224 18 to 20 -> 109 to 113 GB/s, nChw16c 30 -> 102 to
      // 107)
      MEMFMT_KERNEL_PATH("few rows, tiles complete the zeros");
      const DTile<W> du;
      dim i = 0;
      for (; i + w <= cols; i += w) {
        VTile<W> r[W];
        MEMFMT_UNROLL
        for (std::size_t k = 0; k < W; ++k) {
          const auto row = static_cast<dim>(k);
          r[k] = pinned(row < rows ? load_bits<kSize, W>(src + row * src_step + i * dim{kSize}) : hn::Zero(du));
        }
        transpose_tile<W>(r);
        std::byte* to = first + i * row_w;
        const auto at = reinterpret_cast<std::uintptr_t>(to);
        const bool lines = kSize * W == 64 ? (at | static_cast<std::uintptr_t>(row_w)) % 64 == 0
                                           : at % 64 == 0 && row_w == static_cast<dim>(kSize * W);
        store_tile<kSize, W>(r, [to, row_w](std::size_t k) { return to + static_cast<dim>(k) * row_w; }, stream && lines);
      }
      if (i < cols) tile(0, i);
      return;
    }
    // tiles stacked down the source rows that fill destination lines, when they fit in
    // registers (G x W vectors of at most 16: 64 bytes of 8-bit elements in 16-lane tiles
    // are 64 vectors, and spill, except on AVX-512, where stacks of 8- and 16-bit elements
    // transpose unwidened in 16)
    constexpr dim stack = static_cast<dim>(tiles_per_line<kSize, W>) * w;
    constexpr bool stack_fits = stack > w && (stack <= 16 || (W == 16 && narrow_stacks));
    // on AVX2 and SSE4, 8- and 16-bit elements in cache go in narrow stacks of 16 columns
    // instead, whose destination rows are a vector each: half or a quarter of a line, the
    // rest of which the next stack down writes right after
    constexpr bool narrow_columns = kSize < 4 && W == tile_lanes && W < 16 && HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3;
    if (cols_at.inner_stride > src_row && !stream && (stack_fits || narrow_columns || row_w % 2048 == 0)) {
      // Destination rows farther apart than source rows (nhwc -> nchw), in cache: tiles go
      // run by run of source rows, about 24 KiB of source that stays in L1 while the column
      // groups pass over it, down each run in stacks that write whole destination lines.
      // Destination rows a multiple of 2 KiB apart (planes of 32 x 32 f32) share L1 sets:
      // with 32-bit elements, 8-lane tiles then store 8 of them at a time, not 16 (see
      // pick_transpose_block). In L2 on Zen 5, one thread, against the whole block column
      // group by column group: nhwc -> nchw 1 x 64 x 32 x 32 61 -> 97 GB/s, nChw16c -> nchw
      // the same 67 -> 106; with 8-lane tiles, nChw8c -> nchw 1 x 72 x 30 x 30 80 -> 99;
      // with 4-lane tiles (SSE4), nChw16c -> nchw with 17 channels 37 -> 97; stacks of
      // bytes (AVX-512), 1 x 256 x 32 x 32 s8: nhwc -> nchw 36 -> 52 to 56, nChw16c ->
      // nchw 37 -> 96 to 111; narrow stacks against widened tiles, the same s8 on AVX2:
      // 19 -> 66 and 20 -> 93, on SSE4 15 -> 64 and 18 -> 71; bf16 1 x 128 x 32 x 32 on
      // AVX2 47 -> 92 and 46 -> 124.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
      constexpr dim run_step = narrow_columns ? narrow_stack_rows<kSize> : stack;
#else
      constexpr dim run_step = stack;
#endif
      MEMFMT_KERNEL_PATH("runs of source rows");
      // (source rows 0 apart, a broadcast source, take the longest run)
      const dim run = std::max<dim>(24576 / std::max<dim>(src_step, 1) / run_step, 1) * run_step;
      for (dim j0 = 0; j0 < rows; j0 += run) {
        const dim j1 = rows - j0 < run ? rows : j0 + run;
        dim i = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
        if constexpr (narrow_columns) {
          if (cols >= 16) MEMFMT_KERNEL_PATH("narrow stacks");
          for (; i + 16 <= cols; i += 16) {
            dim j = j0;
            for (; j + run_step <= j1; j += run_step)
              transpose_narrow_stack<kSize>(
                  src + (j * src_row + i) * dim{kSize}, src_step,
                  [to = first + i * row_w + j * dim{kSize}, row_w](std::size_t k) { return to + static_cast<dim>(k) * row_w; },
                  false, false);
            for (; j < j1; j += w)
              for (dim c = i; c < i + 16; c += w) tile(j, c);
          }
        }
#endif
        for (; i < cols; i += w) {
          dim j = j0;
          if (stack_fits && cols - i >= w) {
            if (j1 - j >= stack) MEMFMT_KERNEL_PATH("stacks down runs");
            // (with the step a constant, in L2 on Zen 5, one thread, nChw16c -> nchw: AVX2 1 x
            // 512 x 7 x 7 92 -> 111 GB/s, 1 x 128 x 28 x 28 126 -> 143; AVX-512, 8-lane
            // tiles, 1 x 64 x 32 x 32 114 -> 126)
            with_source_step(src_step, [&](auto step) {
              for (; j + stack <= j1; j += stack)
                transpose_tile_stack<kSize, W>(
                    src + j * step + i * dim{kSize}, step,
                    [to = first + i * row_w + j * dim{kSize}, row_w](std::size_t k) { return to + static_cast<dim>(k) * row_w; },
                    false, false);
            });
          }
          for (; j < j1; j += w) tile(j, i);
        }
      }
    } else if (cols_at.inner_stride > src_row) {
      // destination rows farther apart than source rows (nhwc -> nchw): tiles go down a
      // band of source rows column group by column group, so that W store streams advance
      // line by line. In cache (stacks that do not fit in registers, rows apart by other
      // than 2 KiB multiples), the band is the block, and the tiles go inline. From
      // memory, it is as many rows as make 1 KiB of each destination row
      // (streamed_band_rows): its source stays in L2 while its column groups pass over it,
      // and memory takes each destination row in runs of 16 lines instead of one line per
      // tile (nhwc -> nchw 256 MiB on Zen 4, one thread: 65 -> 82 % of memcpy).
      // From memory, tiles whose rows are shorter than a line go in stacks that fill the
      // lines, so that the lines stream around the caches: alone, each tile row would
      // write part of a line, which is read from memory first (on Zen 5, one thread, 16 x
      // 64 x 256 x 256, GB/s: AVX-512 s8 nhwc -> nchw 15 -> 31, bf16 21 -> 60, s8 nChw16c
      // -> nchw 16 -> 64; AVX2 f32 nhwc -> nchw 26 -> 57, SSE4 19 -> 38).
      if (!stream) {
        MEMFMT_KERNEL_PATH("column groups in cache");
        // In cache, the whole tiles of each column group go inline, and the partial ones
        // through `tile` (in L2 on Zen 5, one thread, 16-lane tiles against a call per
        // tile: nChw16c -> nchw 1 x 512 x 7 x 7 94 -> 115 GB/s, 1 x 256 x 14 x 14 113 ->
        // 129, 1 x 128 x 28 x 28 125 -> 155, 1 x 64 x 56 x 56 108 -> 121).
        const dim whole_rows = rows / w * w, whole_cols = cols / w * w;
        const auto whole_tiles_down = [&](dim i, auto step) {
          for (dim j = 0; j < whole_rows; j += w)
            transpose_tile_even<kSize, W>(src + j * step + i * dim{kSize}, step, first + i * row_w + j * dim{kSize}, row_w,
                                          false, false);
        };
        for (dim i = 0; i < cols; i += w) {
          if (i < whole_cols) with_source_step(src_step, [&](auto step) { whole_tiles_down(i, step); });
          for (dim j = i < whole_cols ? whole_rows : 0; j < rows; j += w) tile(j, i);
        }
        return;
      }
      const bool stacks = stack_fits && row_w % 64 == 0 && reinterpret_cast<std::uintptr_t>(first) % 64 == 0;
      MEMFMT_KERNEL_PATH(stacks ? "bands of source rows, stacks" : "bands of source rows");
      dim band = streamed_band_rows<kSize, W>(src_step);
      if (stacks) band = std::max<dim>(band / stack, 1) * stack;
      for (dim j0 = 0; j0 < rows; j0 += band) {
        const dim j1 = rows - j0 < band ? rows : j0 + band;
        // From memory, each tile also asks for its share of the next band's source lines,
        // in order: one sequential stream a band ahead, instead of W rows' lines a tile
        // ahead (Zen 4, one thread: nhwc -> nchw 256 MiB 72 to 85 -> 108 % of memcpy,
        // nChw16c -> nchw with 17 channels about 100 -> 104 to 111 %). The first band
        // asks tile by tile.
        const dim ahead = std::min(band, rows - j1);
        next_band_lines next(ahead > 0 ? src + j1 * src_step : src, src_step, cols * dim{kSize}, ahead,
                             ((cols + w - 1) / w) * ((j1 - j0 + w - 1) / w));
        tile_prefetch = j0 == 0;
        for (dim i = 0; i < cols; i += w) {
          dim j = j0;
          if (stacks && cols - i >= w) {
            for (; j + stack <= j1; j += stack) {
              transpose_tile_stack<kSize, W>(
                  src + (j * src_row + i) * dim{kSize}, src_step,
                  [to = first + i * row_w + j * dim{kSize}, row_w](std::size_t k) { return to + static_cast<dim>(k) * row_w; },
                  true, tile_prefetch);
              for (dim t = 0; t < stack; t += w) next.prefetch_next_share();
            }
          }
          for (; j < j1; j += w) {
            tile(j, i);
            next.prefetch_next_share();
          }
        }
      }
    } else if (tiles_per_line<kSize, W> > 1 && row_w % 64 == 0 &&
               (stream ? reinterpret_cast<std::uintptr_t>(first) % 64 == 0 : !narrow_columns)) {
      // tile rows shorter than a line, destination rows whole lines apart: tiles go in
      // stacks that fill the lines (in cache, not 8- and 16-bit elements on AVX2 and SSE4,
      // which go side by side below: nchw -> nhwc bf16 1 x 128 x 32 x 32 in L2 on Zen 5,
      // AVX2, 51 -> 62 GB/s; 1 x 96 x 28 x 28 62 -> 76)
      // Source rows a multiple of 2 KiB apart (planes of 32 x 32 f32) share one or two L1
      // sets: a stack's rows evict each other before the next stack reads the rest of
      // their lines. In cache, tiles then go row group by row group over a run of columns,
      // 1 KiB of each source row, so that the group's W rows are the only source streams
      // and each source line is used up at once; the destination lines of the run are
      // written in parts while in L1 (nchw -> nChw16c 64 x 32 x 32 in L2: on Zen 3, a run
      // of two stacks' columns, 15.8 -> 12.8 us; on Zen 5, 1 KiB runs of 8-lane tiles
      // against 16-lane tiles, 109 -> 116 to 121 GB/s; without the aliasing, the stacks
      // are faster: 64 x 30 x 30 on Zen 3, 6.9 us against 8.7).
      const bool aliased = !stream && src_step % 2048 == 0;
      MEMFMT_KERNEL_PATH(stream    ? "stacks into lines, streamed"
                         : aliased ? "stacks into lines, runs of columns"
                                   : "stacks into lines");
      constexpr dim run = std::max<dim>(1024 / dim{kSize} / w, 2) * w;
      // the tiles of a run: destination rows `step` bytes apart (a constant for rows that
      // are single lines: with the step in a register, the stores' row pointers spill;
      // nchw -> nChw16c in L2 on Zen 5 ran at 110 GB/s instead of 116 to 121)
      const auto run_tiles = [&](dim j, dim i, dim end, dim step) {
        for (dim g = j; g < j + stack; g += w) {
          dim c = i;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
          if constexpr (kSize < 4 && W == 16) {
            // 8- and 16-bit elements: tiles side by side (in L2 on Zen 5, one thread: nchw ->
            // nhwc s8 1 x 128 x 64 x 32 37 -> 56 GB/s, bf16 1 x 128 x 32 x 32 79 -> 85)
            const dim n = (end - c) / side_by_side_cols<kSize> * side_by_side_cols<kSize>;
            transpose_narrow_strips<kSize>(src + (g * src_row + c) * dim{kSize}, src_step,
                                           first + c * step + g * dim{kSize}, step, 1, n);
            c += n;
          }
#endif
          for (; c < end; c += w)
            transpose_tile_even<kSize, W>(src + (g * src_row + c) * dim{kSize}, src_step,
                                          first + c * step + g * dim{kSize}, step, false, false);
        }
      };
      dim j = 0;
      for (; j + stack <= rows; j += stack) {
        dim i = 0;
        for (; aliased && i + 2 * w <= cols; i += run) {
          const dim end = cols - i < run ? i + (cols - i) / w * w : i + run;
          if (row_w == 64) {
            run_tiles(j, i, end, 64);
          } else {
            run_tiles(j, i, end, row_w);
          }
        }
        for (; i + w <= cols; i += w) {
          if (kSize == 4 && row_w == 64 && !stream) {
            // 32-bit elements into rows of a line (nchw -> nChw16c in 8- or 4-lane tiles),
            // in cache: the tiles of a stack one after the other, with the row step a
            // constant; a whole stack does not fit in 16 registers (in L2 on Zen 5, one
            // thread: AVX2 1 x 512 x 7 x 7 98 -> 110 GB/s, 1 x 128 x 28 x 28 128 -> 161;
            // SSE4 67 -> 78 and 95 -> 112)
            run_tiles(j, i, i + w, 64);
            continue;
          }
          transpose_tile_stack<kSize, W>(
              src + (j * src_row + i) * dim{kSize}, src_step,
              [to = first + i * row_w + j * dim{kSize}, row_w](std::size_t k) { return to + static_cast<dim>(k) * row_w; },
              stream, stream);
        }
        for (dim i = cols - cols % w; i < cols; i += w)
          for (dim g = j; g < j + stack; g += w) tile(g, i);
      }
      for (; j < rows; j += w)
        for (dim i = 0; i < cols; i += w) tile(j, i);
    } else {
      // Tiles of 8 or 4 lanes: the whole ones inline, the partial ones at the edges through
      // `tile` (a call per tile cost a third of nchw -> nChw8c in L2 on Zen 5: 84 -> 140
      // GB/s). Tiles of 16 lanes stay a call each: inline, the loop's 32 row pointers
      // spill (nchw -> nChw16c in L2 on Zen 5: 120 -> 100 GB/s).
      // In cache, 8- and 16-bit elements in the widest tiles go first as whole strips of
      // 16 rows, a vector of columns at a time, unwidened (transpose_narrow_strips); the
      // tiles of the other rows and columns follow (in L2 on Zen 5, one thread, against
      // widened tiles, GB/s: s8 1 x 256 x 32 x 32 nchw -> nhwc on AVX2 23 -> 61, on SSE4 17
      // -> 36; nchw -> nChw16c 24 -> 68 and 22 -> 71). (Not for destination rows farther
      // apart than the source rows, above: 64 of them at once, 16 bytes at a time, share L1
      // sets when they are planes of 1 KiB; nhwc -> nchw s8 1 x 256 x 32 x 32 in L2 on Zen
      // 5: 36 -> 16 GB/s.)
      MEMFMT_KERNEL_PATH("whole tiles");
      dim narrow_rows = 0, narrow_cols = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
      if constexpr (kSize < 4 && W == tile_lanes) {
        if (!stream) {
          narrow_rows = rows / 16 * 16;
          narrow_cols = cols / side_by_side_cols<kSize> * side_by_side_cols<kSize>;
          transpose_narrow_strips<kSize>(src, src_step, first, row_w, narrow_rows / 16, narrow_cols);
        }
      }
#endif
      // Whole 16-lane tiles of f32 into destination rows of a line each (nchw -> nChw16c)
      // go inline in cache too: with the row step a constant, the stores need no pointers
      // (in L2 on Zen 5, one thread: 1 x 128 x 28 x 28 137 -> 160 GB/s, 1 x 256 x 14 x 14
      // 107 -> 111).
      const bool line_rows = W == 16 && kSize == 4 && row_w == 64 && !stream;
      const dim whole_rows = W < 16 || line_rows ? rows / w * w : 0, whole_cols = cols / w * w;
      // source rows a multiple of 4 KiB apart: strips of 16-lane tiles through L1 first
      dim staged_rows = 0, staged_cols = 0;
      if (W == 16 && kSize == 4 && !stream && src_step % 4096 == 0) {
        for (; staged_rows + w <= rows; staged_rows += w) {
          const std::byte* from = src + staged_rows * src_step;
          std::byte* to = first + staged_rows * dim{kSize};
          staged_cols = line_rows ? transpose_staged_tiles<kSize, W>(from, src_step, to, std::integral_constant<dim, 64>{},
                                                                     whole_cols)
                                  : transpose_staged_tiles<kSize, W>(from, src_step, to, row_w, whole_cols);
        }
        if (staged_cols > 0) {
          MEMFMT_KERNEL_PATH("whole tiles, staged");
        } else {
          staged_rows = 0;
        }
      }
      if (line_rows && staged_cols < whole_cols) {
        const auto whole_tiles = [&](auto reads, dim from_col) {
          for (dim j = 0; j < whole_rows; j += w)
            for (dim i = from_col; i < whole_cols; i += w)
              transpose_tile_into_lines<kSize, W, decltype(reads)::value>(src + (j * src_row + i) * dim{kSize}, src_step,
                                                                           first + i * 64 + j * dim{kSize});
        };
        switch (pick_tile_reads<kSize, W>(src, src_step)) {
          case tile_reads::rows:
            MEMFMT_KERNEL_PATH("tiles into lines, read by rows");
            whole_tiles(std::integral_constant<tile_reads, tile_reads::rows>{}, staged_cols);
            break;
          case tile_reads::blocks:
            MEMFMT_KERNEL_PATH("tiles into lines, read by blocks");
            whole_tiles(std::integral_constant<tile_reads, tile_reads::blocks>{}, staged_cols);
            break;
          case tile_reads::lines:  // the columns left of the staged strips
            MEMFMT_KERNEL_PATH("tiles into lines, read by lines");
            whole_tiles(std::integral_constant<tile_reads, tile_reads::lines>{}, staged_cols);
            break;
        }
      } else if (!line_rows) {
        for (dim j = 0; j < whole_rows; j += w)
          for (dim i = j < narrow_rows ? narrow_cols : 0; i < whole_cols; i += w)
            transpose_tile_even<kSize, W>(src + (j * src_row + i) * dim{kSize}, src_step,
                                          first + i * row_w + j * dim{kSize}, row_w, stream, tile_prefetch);
      }
      for (dim j = 0; j < rows; j += w)
        for (dim i = std::max({j < whole_rows ? whole_cols : 0, j < narrow_rows ? narrow_cols : 0,
                               j < staged_rows ? staged_cols : 0});
             i < cols; i += w)
          tile(j, i);
    }
    return;
  }
  // Several periods: each group of W columns is placed once per strip of rows, and its
  // tiles go down the strip, in stacks that fill lines when the destination rows are
  // whole lines apart (oihw -> OIhw16i16o 255 MiB on Zen 3: 7.4 -> 15 GB/s, as the
  // destination rows now stream).
  constexpr dim stack = static_cast<dim>(tiles_per_line<kSize, W>) * w;
  constexpr dim strip = 8 * stack;  // rows: the strip's source stays in L1 while its columns pass
  const bool lines = stack > w && (cols_at.inner_stride * dim{kSize}) % 64 == 0 &&
                     (cols_at.outer_stride * dim{kSize}) % 64 == 0 &&
                     (!stream || reinterpret_cast<std::uintptr_t>(dst) % 64 == 0);
  MEMFMT_KERNEL_PATH(lines ? "several periods, stacks into lines" : "several periods");
  for (dim j0 = 0; j0 < rows; j0 += strip) {
    const dim j1 = rows - j0 < strip ? rows : j0 + strip;
    for (dim i = 0; i < cols; i += w) {
      place(i, 0);
      const dim n = cols - i < w ? cols - i : w;
      dim j = j0;
      if (lines && n == w) {
        for (; j + stack <= j1; j += stack)
          transpose_tile_stack<kSize, W>(
              src + (j * src_row + i) * dim{kSize}, src_step,
              [&at, down = j * dim{kSize}](std::size_t k) { return at[k] + down; }, stream, stream);
      }
      for (; j < j1; j += w) {
        std::byte* row[W];
        MEMFMT_UNROLL
        for (std::size_t k = 0; k < W; ++k) row[k] = at[k] + j * dim{kSize};
        transpose_tile_part<kSize, W>(src + (j * src_row + i) * dim{kSize}, src_step, row, j1 - j < w ? j1 - j : w, n,
                                      j1 == rows ? lanes(j) : w, stream);
      }
    }
  }
}

using transpose_block_fn = void (*)(const std::byte*, dim, std::byte*, const column_map&, dim, dim, dim, bool);

/// The block transpose for elements of `size` bytes with the tile that wastes least on
/// a block whose narrow side is `narrow` elements: the widest, or 8 or 4 lanes.
/// `rows_share_sets`: in cache, the 16 rows a 16-lane tile of 32-bit elements stores at
/// once would share L1 sets, so 8-lane tiles take them 8 at a time: destination rows a
/// multiple of 2 KiB apart and farther apart than the source rows (nhwc -> nchw, nChw16c
/// -> nchw). (Source rows a multiple of 4 KiB apart into destination rows of one line
/// each, nchw -> nChw16c, once went so too, in runs; 16-lane tiles that read the source
/// line by line are now faster: see transpose_tile_by_blocks.)
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
