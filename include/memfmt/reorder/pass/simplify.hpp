#pragma once
/// @file
/// Simplifying a nest for a kernel (`simplify`): unit loops dropped, loops contiguous on
/// both sides folded, the kernel kind chosen (copy, transpose, interleave, gather,
/// strided, zero fill), and short rows ordered for the caches (`tile_rows`).

#include <algorithm>

#include "memfmt/reorder/kernel/nest.hpp"

namespace memfmt::detail {

/// Blocks of the `gather` kind hold at most this many elements (their offset tables
/// stay in L1 next to the data).
inline constexpr dim gather_max = 1024;
/// Transposes whose tile has a side shorter than this interleave instead, where the
/// interleave kind's block fits (OIhw4i16o4i: runs of 4 input channels).
inline constexpr dim interleave_below_side = 16;
/// Transposes whose tile has a side shorter than this gather instead: 4, the narrowest
/// tile (nChw8c -> nchw and nChw4c -> nchw ran four to five times as fast in 8- and
/// 4-lane tiles as gathered).
inline constexpr dim gather_below_side = 4;

/// Rows at least this long make a transpose of 2 to 4 packed source columns worth its
/// interleaved loads rather than a gather (hwIo2i -> hwio: 128 output channels per
/// pair of input channels; at 16 to 48 rows the kernel's cost per block ate the gain).
inline constexpr dim deinterleave_min_rows = 64;

/// Whether a transpose's block of rows J by columns I has packed source columns
/// (packed_source_columns) and long rows: the transpose kernel's interleaved loads move
/// it whole vectors at a time, faster than a gather of its elements.
inline bool packed_narrow_side(const loop& J, const loop& I) {
  return packed_source_columns(J, I) && J.extent >= deinterleave_min_rows;
}

/// How many innermost loops of `loops` (ordered by dst stride) form a block that is
/// contiguous in dst, of at most gather_max elements with offsets that fit 32 bits;
/// 0 when that block would be too small to be worth a table.
inline int gather_block(const loop* loops, int count) {
  dim elements = 1, src_span = 0, scale_span = 0;
  int g = 0;
  for (int i = count - 1; i >= 0; --i) {
    const loop& l = loops[i];
    if (l.dst_stride != elements || elements * l.extent > gather_max) break;
    elements *= l.extent;
    src_span += (l.extent - 1) * (l.src_stride < 0 ? -l.src_stride : l.src_stride);
    scale_span += (l.extent - 1) * l.scale_stride;
    ++g;
  }
  constexpr dim int32_max = 2147483647;
  if (elements < 16 || src_span > int32_max || scale_span > int32_max) return 0;
  return g;
}

/// How many innermost loops of `loops` (ordered by dst stride) form a block of the
/// `interleave` kind (see kernel_kind::interleave): as many as fit; 0 when none do.
inline int interleave_block(const loop* loops, int count) {
  if (count < 3 || loops[count - 2].extent < 8) return 0;  // o: tiles of at least 8 rows
  int best = map_interleave(loops + count - 2, 2).fits ? 2 : 0;
  dim elements = loops[count - 1].extent * loops[count - 2].extent;
  for (int i = count - 3; i >= 0; --i) {  // the loops around o, while the block stays dense in dst
    const loop& x = loops[i];
    if (x.dst_stride != elements || elements * x.extent > interleave_max) break;
    elements *= x.extent;
    if (map_interleave(loops + i, count - i).fits) best = count - i;
  }
  return best;
}

/// Short rows whose loop J is long while the loop K around it steps within J's
/// source rows (e.g. nhwc -> nChw8c: K walks the channel blocks of each pixel).
/// - Rows of whole cache lines: K moves inside J, so the source is read in order and
///   each of K's destination streams gets whole lines (from memory, twice as fast as
///   K passes over the source; in cache too, ab -> BA16a64b, with the kernel's loop over
///   K unrolled).
/// - Rows that pack into lines (64 / row bytes per line), with few streams (K owned by
///   the kernel): K moves inside J too, and the kernel fills a line of every stream from
///   a few consecutive source rows (nChw16c -> nChw8c, nhwc -> nChw8c: each source line
///   is read once; K passes over a tile read it K times, from L2 at best).
/// - Other short rows: K passes over tiles of J, so each tile of the source is read from
///   cache K times rather than from memory (K's streams would get partial lines).
/// In the last two cases, J longer than tile_max is cut into tiles, (..., J / tile, tile,
/// K, row) and (..., J / tile, K, tile, row), so that a copy of the rest of the same
/// source rows can run tile by tile with this one (fuse_tiled_copies). When J has no
/// divisor from tile_min to tile_max, K stays outside J.
/// @pre n.kind == copy, loops ordered by dst stride; `dst_bytes`: the size of a dst element
inline void tile_rows(nest& n, dim dst_bytes) {
  constexpr dim tile_min = 128, tile_max = 1024;
  if (n.nloops < 3 || n.nloops + 1 > max_loops || n.loops[n.nloops - 1].extent > nest::short_row) return;
  const loop J = n.loops[n.nloops - 2], K = n.loops[n.nloops - 3];
  if (K.src_stride >= J.src_stride) return;
  const dim row_bytes = n.loops[n.nloops - 1].extent * dst_bytes;
  // K inside, owned by the kernel, which has fixed-size moves for rows of 4 to 32 bytes
  const bool across = row_bytes >= 4 && 64 % row_bytes == 0 && K.extent < nest::few_rows;
  if (row_bytes % 64 == 0 || (across && J.extent <= tile_max)) {
    n.loops[n.nloops - 3] = J;
    n.loops[n.nloops - 2] = K;
    return;
  }
  if (J.extent <= tile_max) return;
  // a divisor of J.extent made of its factors 2, 3, 5 and 7, largest first (few divisions:
  // plans are built often)
  dim tile = 1, rest = J.extent;
  for (const dim f : {7, 5, 3, 2})
    while (rest % f == 0 && tile * f <= tile_max) {
      tile *= f;
      rest /= f;
    }
  if (tile < tile_min) return;  // (K stays outside: with no tiles, threads share out K)
  const dim q = J.extent / tile;
  // ..., K, J, row  ->  ..., J / tile, tile, K, row (across) or ..., J / tile, K, tile, row
  const loop row = n.loops[n.nloops - 1], tiles{q, J.src_stride * tile, J.dst_stride * tile, J.scale_stride * tile},
             one_tile{tile, J.src_stride, J.dst_stride, J.scale_stride};
  n.loops[n.nloops - 3] = tiles;
  n.loops[n.nloops - 2] = across ? one_tile : K;
  n.loops[n.nloops - 1] = across ? K : one_tile;
  n.loops[n.nloops] = row;
  ++n.nloops;
}

/// Drops unit loops, orders loops by destination stride (writes stream forward), folds
/// loops that are contiguous in every operand, and picks the kernel.
/// @pre n.nloops loops with extents >= 1; `dst_bytes`: the size of a dst element
inline void simplify(nest& n, bool zero_fill, dim dst_bytes) {
  loop kept[max_loops];
  int count = 0;
  for (int i = 0; i < n.nloops; ++i)
    if (n.loops[i].extent != 1) kept[count++] = n.loops[i];
  // a stable insertion sort: a few loops, and no allocation (std::stable_sort allocates)
  for (int i = 1; i < count; ++i) {
    const loop l = kept[i];
    int j = i;
    for (; j > 0 && kept[j - 1].dst_stride < l.dst_stride; --j) kept[j] = kept[j - 1];
    kept[j] = l;
  }
  int folded = 0;
  for (int i = 0; i < count; ++i) {
    if (folded > 0) {
      loop& outer = kept[folded - 1];
      const loop& inner = kept[i];
      if (outer.src_stride == inner.src_stride * inner.extent && outer.dst_stride == inner.dst_stride * inner.extent &&
          outer.scale_stride == inner.scale_stride * inner.extent) {
        outer.extent *= inner.extent;
        outer.src_stride = inner.src_stride;
        outer.dst_stride = inner.dst_stride;
        outer.scale_stride = inner.scale_stride;
        continue;
      }
    }
    kept[folded++] = kept[i];
  }
  if (folded == 0) kept[folded++] = loop{1, 1, 1, 0};  // a single element
  n.nloops = folded;
  for (int i = 0; i < folded; ++i) n.loops[i] = kept[i];
  loop& last = n.loops[folded - 1];
  if (zero_fill) {
    n.kind = kernel_kind::zero_fill;
  } else if (last.dst_stride == 1 && last.src_stride == 1) {
    n.kind = kernel_kind::copy;
    tile_rows(n, dst_bytes);
  } else {
    n.kind = kernel_kind::strided;
    if (last.dst_stride == 1 && folded >= 2) {
      // a transpose needs a loop that is unit-stride in the source: make it innermost
      // (not worth it when both sides of the tile would be tiny)
      for (int i = folded - 2; i >= 0; --i)
        if (n.loops[i].src_stride == 1 && n.loops[i].extent > 1 && (n.loops[i].extent >= 4 || last.extent >= 4)) {
          const loop unit_src = n.loops[i];
          for (int j = i; j < folded - 1; ++j) n.loops[j] = n.loops[j + 1];
          n.loops[folded - 1] = unit_src;
          n.kind = kernel_kind::transpose;
          break;
        }
    }
    // few columns (e.g. the h x w of oihw weights): take in the loop around them that is
    // contiguous with them in src, so that tiles span both
    if (n.kind == kernel_kind::transpose && folded >= 3 && n.loops[folded - 1].extent < 16) {
      const loop I = n.loops[folded - 1];
      for (int i = folded - 3; i >= 0; --i) {
        const loop around = n.loops[i];
        if (around.src_stride == I.extent * I.src_stride && around.scale_stride == I.extent * I.scale_stride) {
          for (int j = i; j < folded - 3; ++j) n.loops[j] = n.loops[j + 1];
          n.loops[folded - 3] = around;
          n.column_loops = 2;
          break;
        }
      }
    }
    // strided rows, or tiles too small to pay for their shuffles: interleaved runs, or a
    // gather by table
    const dim columns = n.loops[folded - 1].extent * (n.column_loops == 2 ? n.loops[folded - 3].extent : 1);
    const bool transpose = n.kind == kernel_kind::transpose;
    const dim side = transpose ? std::min(n.loops[folded - 2].extent, columns) : 0;  // of its tile
    if (n.kind == kernel_kind::strided || (transpose && side < interleave_below_side)) {
      const bool narrow = transpose && n.column_loops == 1 && packed_narrow_side(n.loops[folded - 2], n.loops[folded - 1]);
      const int b = interleave_block(kept, folded);
      const int g = b > 0 || (transpose && (side >= gather_below_side || narrow)) ? 0 : gather_block(kept, folded);
      if (b > 0) {
        for (int i = 0; i < folded; ++i) n.loops[i] = kept[i];
        n.column_loops = 1;
        n.kind = kernel_kind::interleave;
        n.gather_loops = b;
      } else if (g > 0) {
        for (int i = 0; i < folded; ++i) n.loops[i] = kept[i];
        n.column_loops = 1;
        n.kind = kernel_kind::gather;
        n.gather_loops = g;
      }
    }
  }
}

}  // namespace memfmt::detail
