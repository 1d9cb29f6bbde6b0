#pragma once
/// @file
/// Lowering a reorder to loop nests: each logical dim is cut into the pieces that the
/// blocking of source and destination both respect; the valid region and the
/// destination's padding become boxes of those pieces; each box becomes a nest of
/// loops (extent, source stride, destination stride, scale stride) that is then
/// simplified (unit loops dropped, contiguous loops folded) for a kernel.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "memfmt/core/dims.hpp"
#include "memfmt/desc/desc.hpp"
#include "memfmt/reorder/kernel/nest.hpp"

namespace memfmt::detail {

/// One level of a dim's index: digit = i / weight % extent (the outermost piece has no
/// modulus: its extent is however many blocks there are).
struct piece {
  dim weight;
  dim extent;
  dim src_stride;
  dim dst_stride;
  dim scale_stride;
};

/// A dim cut into pieces, outermost first. (Set by cut_dim; not zeroed when declared,
/// see dim_levels.)
struct dim_pieces {
  int count;
  std::array<piece, max_ndims + 1> pieces;
};

/// The index boundaries a descriptor's blocking puts on dim `d`: 1, then the products
/// of d's inner blocks from the innermost outward. Also gives the stride of each level.
/// (Entries past `count` stay uninitialized: plans are built often, and zeroing these
/// arrays for every dim of both layouts took a fifth of a plan's time.)
struct dim_levels {
  int count = 0;                          ///< levels, innermost first
  std::array<dim, max_ndims + 1> bound;   ///< bound[0] = 1, bound[l+1] = bound[l] * block
  std::array<dim, max_ndims + 1> stride;  ///< stride of one unit of level l (last: the outer stride)
};

/// @pre `b` is x's blocking (taken once per layout, not per dim)
inline dim_levels levels_of(const desc& x, const blocking& b, int d) {
  dim_levels lv;
  lv.bound[0] = 1;
  dim inner_stride = 1;
  for (int k = b.inner_nblks - 1; k >= 0; --k) {
    const dim blk = b.inner_blks[static_cast<std::size_t>(k)];
    if (b.inner_idxs[static_cast<std::size_t>(k)] == d) {
      lv.stride[static_cast<std::size_t>(lv.count)] = inner_stride;
      lv.bound[static_cast<std::size_t>(lv.count + 1)] = lv.bound[static_cast<std::size_t>(lv.count)] * blk;
      ++lv.count;
    }
    inner_stride *= blk;
  }
  lv.stride[static_cast<std::size_t>(lv.count)] = x.get_strides()[d];
  return lv;
}

/// The stride, in `x`, of one unit of an index piece of weight `w` whose span
/// [w, w * extent) fits within one level of x (or lies beyond x's blocks).
inline dim stride_of(const dim_levels& lv, dim w) {
  int l = 0;
  while (l < lv.count && lv.bound[static_cast<std::size_t>(l + 1)] <= w) ++l;
  return lv.stride[static_cast<std::size_t>(l)] * (w / lv.bound[static_cast<std::size_t>(l)]);
}

/// Cuts dim `d` into pieces that both layouts respect; false when their blocks do not
/// nest (e.g. 3 and 4), which needs the element-wise path.
inline bool cut_dim(const desc& src, const blocking& src_blocking, const desc& dst, const blocking& dst_blocking, int d,
                    dim scale_stride, dim_pieces& out) {
  const dim_levels s = levels_of(src, src_blocking, d), t = levels_of(dst, dst_blocking, d);
  std::array<dim, 2 * (max_ndims + 1)> bounds;  // no allocation: plans are built often
  std::size_t nbounds = 0;
  for (int l = 0; l <= s.count; ++l) bounds[nbounds++] = s.bound[static_cast<std::size_t>(l)];
  for (int l = 0; l <= t.count; ++l) bounds[nbounds++] = t.bound[static_cast<std::size_t>(l)];
  std::sort(bounds.begin(), bounds.begin() + static_cast<std::ptrdiff_t>(nbounds));
  nbounds = static_cast<std::size_t>(std::unique(bounds.begin(), bounds.begin() + static_cast<std::ptrdiff_t>(nbounds)) -
                                     bounds.begin());
  for (std::size_t k = 1; k < nbounds; ++k)
    if (bounds[k] % bounds[k - 1] != 0) return false;
  // pieces outermost first: the outer one, then one per pair of consecutive bounds
  const int inner = static_cast<int>(nbounds) - 1;
  out.count = inner + 1;
  for (int p = 0; p < out.count; ++p) {
    const int level = inner - p;  // index into bounds of this piece's weight
    piece& pc = out.pieces[static_cast<std::size_t>(p)];
    pc.weight = bounds[static_cast<std::size_t>(level)];
    pc.extent = p == 0 ? 0 : bounds[static_cast<std::size_t>(level + 1)] / pc.weight;
    pc.src_stride = stride_of(s, pc.weight);
    pc.dst_stride = stride_of(t, pc.weight);
    pc.scale_stride = scale_stride * pc.weight;
  }
  return true;
}

/// A box of one dim: a start digit and a count for each piece.
struct dim_box {
  std::array<dim, max_ndims + 1> start{};
  std::array<dim, max_ndims + 1> count{};
};

/// Boxes covering the indices [a, b) of a dim cut into `cut`, exactly once.
/// @pre 0 <= a < b
inline void decompose(const dim_pieces& cut, int level, dim a, dim b, dim_box prefix, std::vector<dim_box>& out) {
  const piece& pc = cut.pieces[static_cast<std::size_t>(level)];
  const dim w = pc.weight;
  const bool last = level + 1 == cut.count;
  dim lo = a / w;
  const dim hi = b / w;
  auto emit_full = [&](dim first, dim count) {
    dim_box box = prefix;
    box.start[static_cast<std::size_t>(level)] = first;
    box.count[static_cast<std::size_t>(level)] = count;
    for (int l = level + 1; l < cut.count; ++l) {
      box.start[static_cast<std::size_t>(l)] = 0;
      box.count[static_cast<std::size_t>(l)] = cut.pieces[static_cast<std::size_t>(l)].extent;
    }
    out.push_back(box);
  };
  auto descend = [&](dim digit, dim from, dim to) {
    dim_box box = prefix;
    box.start[static_cast<std::size_t>(level)] = digit;
    box.count[static_cast<std::size_t>(level)] = 1;
    decompose(cut, level + 1, from, to, box, out);
  };
  if (last) {  // weight 1: every boundary is exact
    emit_full(a, b - a);
    return;
  }
  if (lo == hi) {
    descend(lo, a - lo * w, b - lo * w);
    return;
  }
  if (a % w != 0) {
    descend(lo, a % w, w);
    ++lo;
  }
  if (hi > lo) emit_full(lo, hi - lo);
  if (b % w != 0) descend(hi, 0, b % w);
}

/// A nest's part in a pair that runs a conversion in two stages through a thread's
/// scratch block (see stage.hpp): the first of the pair writes the scratch, the second
/// reads it. The scratch holds the block in the order of the side the first stage
/// reads (a conversion) or writes (a move).
enum class stage : std::uint8_t {
  none,
  convert_to_scratch,    ///< source elements converted into the scratch, in source order
  move_from_scratch,     ///< the scratch's converted elements moved to the destination
  move_to_scratch,       ///< source elements moved into the scratch, in destination order
  convert_from_scratch,  ///< the scratch's elements converted into the destination
};

/// A nest with the element offsets of its first element.
struct placed_nest {
  nest loops;
  dim src_base = 0;
  dim dst_base = 0;
  dim scale_base = 0;
  std::vector<std::int32_t> gather_src, gather_scale;  ///< the `gather` kind's tables
  /// Non-zero: this nest runs interleaved with the nest before it in the plan. Their
  /// first `fused_loops` loops are equal and outer in both; for each iteration of
  /// those, the nest before runs its share of iterations, then this one runs its own.
  /// (A staged pair: their first `fused_loops` loops have equal extents.)
  int fused_loops = 0;
  /// Its part in a staged pair (its offsets into the scratch are from 0).
  stage staged = stage::none;
};

/// Blocks of the `gather` kind hold at most this many elements (their offset tables
/// stay in L1 next to the data).
inline constexpr dim gather_max = 1024;
/// Transposes whose tile has a side shorter than this interleave instead, where the
/// interleave kind's block fits (OIhw4i16o4i: runs of 4 input channels).
inline constexpr dim interleave_below_side = 16;
/// Transposes whose tile has a side shorter than this gather instead: 4, the narrowest
/// tile (in L2 on Zen 5, one thread, nChw8c -> nchw 1 x 64 x 32 x 32 ran at 27 GB/s as a
/// gather and at 120 in 8-lane tiles; nChw4c -> nchw 26 against 134 in 4-lane tiles).
inline constexpr dim gather_below_side = 4;

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
///   K passes over the source; in cache too: ab -> BA16a64b 256 x 256 in L2 on Zen 5,
///   rows of 4 lines, 130 -> 245 GB/s with the kernel's loop over K unrolled).
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
      const int b = interleave_block(kept, folded);
      const int g = b > 0 || (transpose && side >= gather_below_side) ? 0 : gather_block(kept, folded);
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

/// Loops of `n` (of the first `count`, not yet `taken`) dense on one side from stride
/// `unit`: the loop of that stride, then the loop whose stride continues it, and so on,
/// until `want` elements or `most` loops; the first loop's run counts `tail` more (the
/// zeros after it). Marks them taken, puts them innermost first in `out`; returns how
/// many, and the elements in `elements`. Rows (not columns) stop before a loop that
/// would take them over tile_rows_max.
inline int dense_loops(const nest& n, int count, bool by_src, dim unit, dim tail, dim want, int most, bool* taken,
                       int* out, dim& elements) {
  int found = 0;
  elements = 1;
  while (elements < want && found < most) {
    int next = -1;
    for (int i = 0; i < count && next < 0; ++i)
      if (!taken[i] && (by_src ? n.loops[i].src_stride : n.loops[i].dst_stride) == elements * unit) next = i;
    if (next < 0) break;
    const dim here = n.loops[next].extent + (found == 0 ? tail : 0);
    if (elements * here > tile_rows_max && !by_src) break;
    taken[next] = true;
    out[found++] = next;
    elements *= here;
  }
  return found;
}

/// The tile kind on the loops of `n` but its unit (the unit's loop, if any, innermost):
/// rows dense in dst from stride `row_unit`, columns dense in src from `col_unit` (see
/// use_tiles). False, `n` untouched, when no tiles fit.
inline bool try_tiles(nest& n, dim unit_bytes, int unit, dim row_unit, dim col_unit) {
  const int count = unit > 1 ? n.nloops - 1 : n.nloops;
  const dim lanes = unit_bytes == 8 ? 8 : 16;  // rows of a tile on AVX-512
  bool taken[max_loops] = {};
  int rows[max_loops], cols[max_loops];  // innermost first
  dim nrow_elems = 0, ncol_elems = 0;
  int nrows = 0, ncols = 0;
  // a unit spread on one side: a loop dense on both sides at unit level needs no
  // transpose, its units go straight from the source's rows to the destination
  for (int i = 0; i < count && row_unit != col_unit; ++i)
    if (n.loops[i].src_stride == col_unit && n.loops[i].dst_stride == row_unit && n.zero_tail == 0) {
      taken[i] = true;
      cols[ncols++] = i;
      break;
    }
  if (ncols == 0) {
    nrows = dense_loops(n, count, false, row_unit, n.zero_tail, lanes, max_loops, taken, rows, nrow_elems);
    ncols = nrow_elems >= lanes ? dense_loops(n, count, true, col_unit, 0, dim{1} << 40, 2, taken, cols, ncol_elems) : 0;
    const bool lone = nrows == 1 && unit == 1;
    if (ncols > 0 && ncol_elems >= 8) {  // (fewer columns: most of each tile wasted)
      if (lone && n.loops[cols[0]].extent >= 16) return false;
    } else {  // columns first, then the rows there are (no zero tail: its rows come first)
      if (n.zero_tail != 0) return false;
      for (bool& t : taken) t = false;
      ncols = dense_loops(n, count, true, col_unit, 0, lanes, 3, taken, cols, ncol_elems);
      if (ncol_elems < lanes) return false;
      nrows = dense_loops(n, count, false, row_unit, 0, lanes, max_loops, taken, rows, nrow_elems);
      if (nrows == 0 || nrow_elems < 4 || nrow_elems > tile_rows_max || (nrows == 1 && ncols == 1 && unit == 1))
        return false;
    }
  }
  // outer loops in their order, then the rows outermost first, the columns, the unit
  loop moved[max_loops];
  int at = 0;
  for (int i = 0; i < count; ++i)
    if (!taken[i]) moved[at++] = n.loops[i];
  for (int k = nrows; k-- > 0;) moved[at++] = n.loops[rows[k]];
  for (int k = ncols; k-- > 0;) moved[at++] = n.loops[cols[k]];
  if (unit > 1) moved[at++] = n.loops[count];
  for (int i = 0; i < at; ++i) n.loops[i] = moved[i];
  n.kind = kernel_kind::tile;
  n.tile_unit = unit;
  n.tile_row_loops = nrows;
  n.tile_column_loops = ncols;
  n.column_loops = 1;
  n.gather_loops = 0;
  return true;
}

/// Makes a plain copy a nest of the `tile` kind (see kernel_kind::tile) where its units
/// go whole vectors in and out. The unit is the first of these that tiles fit:
/// - the 2 to 8 elements of an innermost loop contiguous on both sides that make 2 to 8
///   bytes (AB8b32a2b: 2 b);
/// - for 1- and 2-byte elements, the 2, 4 or 8 bytes of the destination's innermost
///   loop, packed from strided source elements (OIhw4i16o4i from oihw: 4 i, 9 apart),
///   or of the source's innermost loop, unpacked to strided destination elements (the
///   reverse); the other side's columns or rows then step by one element;
/// - an element.
/// Tiles have rows dense in the destination from the unit on, whose units fill the
/// tile's W lanes (16 of 32 bits, 8 of 64 on AVX-512), and columns dense in the source
/// (up to 3 loops, 8 columns or more). Weights into blocks take the rows first (the
/// fewest loops that fill the lanes, at most tile_rows_max rows, the zeros after each
/// run of the first among them: a destination's padding), then the columns; blocks into
/// plain layouts take the columns first (OIhw8i16o2i -> oihw: 2 x 16 channels), then as
/// many rows as there are. A loop dense on both sides at unit level (a spread unit's
/// only) is all columns and no rows: no transpose (ab -> BA16a16b4a: 4 a packed along
/// 16 b). A lone loop of rows against a lone loop of columns is a 2-D transpose, and
/// stays one where its columns are a tile or more (nchw -> nChw16c: the transpose kind
/// streams and blocks for the caches); against fewer (the 3 x 3 of weights), tiles are
/// partial either way, and these are faster.
/// @pre n simplified (loops ordered by dst stride), not split for threads; elements of
///      `bytes` (1, 2 or 4) on both sides
inline void use_tiles(nest& n, dim bytes) {
  if (n.nloops < 2 || n.kind == kernel_kind::zero_fill) return;
  const loop last = n.loops[n.nloops - 1];
  const auto unit_fits = [&](dim extent, dim most) {
    const dim b = extent * bytes;
    return extent > 1 && b <= most && (b & (b - 1)) == 0;
  };
  if (last.src_stride == 1 && last.dst_stride == 1 && last.extent > 1) {
    // (longer rows on both sides: a copy; zeros after units: left to the copy; rows of
    // one element, each followed by zeros, are rows like any other)
    if (unit_fits(last.extent, 8) && n.zero_tail == 0) try_tiles(n, last.extent * bytes, static_cast<int>(last.extent), last.extent, last.extent);
    return;
  }
  // packed: the destination's innermost loop; unpacked: the source's (moved innermost).
  // Unpacked units of 8 bytes, in half as many lanes, come after single elements, whose
  // tiles store rows of 16 (bf16 OIhw16i16o4i -> oihw, 9 rows of h x w: 1.0x of oneDNN
  // against 0.9x as unpacked 4i).
  const auto spread = [&](bool packed, dim most) {
    if (bytes > 2 || n.zero_tail != 0) return false;
    for (int i = 0; i < n.nloops; ++i) {
      const loop l = n.loops[i];
      if ((packed ? l.dst_stride : l.src_stride) != 1 || !unit_fits(l.extent, most)) continue;
      nest t = n;
      for (int j = i; j + 1 < t.nloops; ++j) t.loops[j] = t.loops[j + 1];
      t.loops[t.nloops - 1] = l;
      if (try_tiles(t, l.extent * bytes, static_cast<int>(l.extent), packed ? l.extent : 1, packed ? 1 : l.extent)) {
        n = t;
        return true;
      }
    }
    return false;
  };
  const bool done = spread(true, 8) || spread(false, 4) || try_tiles(n, bytes, 1, 1, 1);
  if (!done) spread(false, 8);
}

/// Bytes (source and destination) beyond which tile nests are ordered for a pass from
/// memory: more than a core's L2 holds (1 to 2 MiB today).
inline constexpr std::size_t tiles_from_memory = std::size_t{4} << 20;

/// Orders the outer loops of a `tile` nest for a pass from memory. The innermost one
/// (the smallest dst stride) finishes the destination's lines; the one with the smallest
/// source stride, which finishes the source's, moves in around it, over chunks of it
/// that keep the two within `window` bytes. The source is then read a few lines at a
/// time, each while it is in cache, rather than a strip per pass over the whole
/// destination (s8 ab -> BA16a16b4a: a strip of 16 bytes down every row, 4 passes per
/// line and a page per row), and the destination is still written in runs.
/// @pre n.kind == tile, not split for threads; `bytes`: the size of an element
inline void order_tiles_for_memory(nest& n, dim bytes) {
  constexpr dim window = dim{1} << 17;  // (a fraction of L2: the lines of both sides stay)
  const int outer = n.nloops - n.owned_loops();
  if (outer < 2 || n.nloops + 1 > max_loops) return;
  const auto magnitude = [](dim x) { return x < 0 ? -x : x; };
  int s = 0;
  for (int i = 1; i < outer; ++i)
    if (magnitude(n.loops[i].src_stride) < magnitude(n.loops[s].src_stride)) s = i;
  const int d = outer - 1;
  if (s == d) return;
  dim block = bytes;
  for (int i = outer; i < n.nloops; ++i) block *= n.loops[i].extent;
  const loop S = n.loops[s], D = n.loops[d];
  // the largest chunk of D (a divisor of its extent) within the window
  const dim most = window / (S.extent * block);
  dim c = std::min(D.extent, std::max(most, dim{1}));
  while (c > 1 && D.extent % c != 0) --c;
  // ..., D / c, S, c, owned loops (..., S, D when D is one chunk)
  for (int i = s; i < d; ++i) n.loops[i] = n.loops[i + 1];
  int at = d - 1;  // where D is now
  if (c < D.extent) {
    for (int i = n.nloops; i > at + 1; --i) n.loops[i] = n.loops[i - 1];
    ++n.nloops;
    n.loops[at++] = loop{D.extent / c, D.src_stride * c, D.dst_stride * c, D.scale_stride * c};
  }
  n.loops[at] = S;
  n.loops[at + 1] = loop{c, D.src_stride, D.dst_stride, D.scale_stride};
}

/// The offset tables of a `gather` nest's block: row-major over its block loops.
inline void gather_tables(const nest& n, std::vector<std::int32_t>& src, std::vector<std::int32_t>& scale) {
  const int first = n.nloops - n.gather_loops;
  src.assign(1, 0);
  scale.assign(1, 0);
  bool scale_varies = false;
  for (int i = first; i < n.nloops; ++i) {
    const loop& l = n.loops[i];
    scale_varies = scale_varies || l.scale_stride != 0;
    std::vector<std::int32_t> s2, c2;
    s2.reserve(src.size() * static_cast<std::size_t>(l.extent));
    c2.reserve(src.size() * static_cast<std::size_t>(l.extent));
    for (std::size_t k = 0; k < src.size(); ++k)
      for (dim e = 0; e < l.extent; ++e) {
        s2.push_back(static_cast<std::int32_t>(src[k] + e * l.src_stride));
        c2.push_back(static_cast<std::int32_t>(scale[k] + e * l.scale_stride));
      }
    src.swap(s2);
    scale.swap(c2);
  }
  if (!scale_varies) scale.clear();
}

/// Nests that write fewer elements run their loops on one thread: 2^15 of f32 move 256
/// KiB, about 3 us on a core, some three times what starting a team of threads costs.
inline constexpr dim worth_sharing = dim{1} << 15;

/// How many pieces to cut a loop of `extent` into for threads: as many as `want`, up to
/// 8 times as many, else fewer (at least 2), the first count that `fits`; 0 if none does.
template <class Fits>
dim piece_count(dim want, dim extent, const Fits& fits) {
  for (dim count = want; count <= 8 * want && count <= extent; ++count)
    if (fits(count)) return count;
  for (dim count = want - 1; count >= 2; --count)
    if (fits(count)) return count;
  return 0;
}

/// Gives a `tile` nest's outer loops `4 * threads` iterations or more, when its
/// extents allow and it is large enough to be worth sharing, by cutting its outermost
/// column loop (into whole tiles when it is the only one): a nest whose kernel owns all
/// its loops (straight through one long column loop: u8 nchw -> nhwc with 4 channels)
/// then still runs on every thread.
/// @post the nest visits the same elements with the same offsets
inline void split_tiles_for_threads(nest& n, dim threads) {
  dim total = 1;
  for (int k = 0; k < n.nloops; ++k) total *= n.loops[k].extent;
  const dim outer = n.outer_count(), pieces = 4 * threads;
  if (total < worth_sharing || outer >= pieces || n.nloops >= max_loops) return;
  const int first = n.nloops - n.owned_loops();
  const int pick = first + n.tile_row_loops;  // the outermost column loop
  const loop l = n.loops[pick];
  const dim granule = n.tile_column_loops == 1 ? 16 : 1;
  const dim want = (pieces + outer - 1) / outer;
  const auto fits = [&](dim count) { return l.extent % count == 0 && (l.extent / count) % granule == 0; };
  const dim q = piece_count(want, l.extent, fits);
  if (q == 0) return;
  const dim c = l.extent / q;
  for (int k = n.nloops; k > first; --k) n.loops[k] = n.loops[k - 1];
  n.loops[first] = loop{q, l.src_stride * c, l.dst_stride * c, l.scale_stride * c};
  n.loops[pick + 1].extent = c;
  ++n.nloops;
}

/// Gives the loops outside the kernel `4 * threads` iterations or more (fewer when the
/// extents allow no more), which threads share out in contiguous runs, when the nest is
/// large enough to be worth sharing: a loop the kernel owns, of extent q * c, becomes an
/// outer loop of q and an owned loop of c, with c a multiple of 16 for a transpose (whole tiles; or at least 256, a partial
/// tile then costs little: the 62 x 62 pixels of an image) and of 64 elements for rows
/// (aligned stores). A copy splits its outermost owned loop first (each thread keeps
/// sequential runs), then its rows. A transpose splits its columns first, then its rows,
/// so that each thread writes whole destination rows, one stretch of memory: split by
/// rows first, each thread wrote a stretch of every row, and nhwc -> nchw in L2 ran no
/// faster on two threads than on one (each core took half again as long over its half
/// as alone; its prefetchers, running on along a row, likely took the other's lines).
/// @post the nest visits the same elements with the same offsets
inline void split_for_threads(nest& n, dim threads) {
  if (n.kind == kernel_kind::tile) return split_tiles_for_threads(n, threads);
  if (n.kind == kernel_kind::gather || n.kind == kernel_kind::interleave) return;  // fixed blocks
  const dim pieces = 4 * threads;
  // the loop whose runs the padding zeros follow (its index moves as loops are split)
  const auto run_loop = [&n] { return n.kind == kernel_kind::transpose ? n.nloops - 2 : n.nloops - 1; };
  // elements written, padding zeros included (a block of one channel and 15 zeros)
  dim total = 1;
  for (int k = 0; k < n.nloops; ++k) total *= k == run_loop() ? n.loops[k].extent + n.zero_tail : n.loops[k].extent;
  if (total < worth_sharing) return;
  const bool columns_first = n.kind == kernel_kind::transpose && n.column_loops == 1;
  for (int pass = 0; pass < 2; ++pass) {
    const dim outer = n.outer_count();
    if (outer >= pieces || n.nloops >= max_loops) return;
    const int first = n.nloops - n.owned_loops();
    const bool innermost = (pass == 0) == columns_first && first != n.nloops - 1;
    const int pick = innermost ? n.nloops - 1 : first;
    if (n.zero_tail != 0 && pick == run_loop()) continue;  // its zeros follow the whole run
    // columns over two loops: the kernel needs loops[n-3] to continue loops[n-1] whole
    if (n.column_loops == 2 && pick == n.nloops - 1) continue;
    const loop l = n.loops[pick];
    const bool row = pick == n.nloops - 1;
    const dim granule = n.kind == kernel_kind::transpose ? 16 : row ? 64 : 1;
    const dim want = (pieces + outer - 1) / outer;
    const auto fits = [&](dim count) {
      const dim c = l.extent / count;
      return l.extent % count == 0 && (c % granule == 0 || (n.kind == kernel_kind::transpose && c >= 16 * granule));
    };
    dim q = 0;  // the count of pieces
    if (columns_first && pass == 0) {
      // as many as wanted or fewer, each at least two tiles wide (narrower columns slow the
      // kernel down), a multiple of the thread count if there is one (whole pieces each)
      for (int any = 0; any < 2; ++any)
        for (dim count = std::min(want, l.extent / (2 * granule)); q == 0 && count >= 2; --count)
          if (fits(count) && (any == 1 || count % threads == 0)) q = count;
    } else {
      q = piece_count(want, l.extent, fits);
    }
    if (q == 0) continue;
    const dim c = l.extent / q;
    // split in place (a nest is over a kilobyte), undone if the kernel would own the new loop
    const loop spare = n.loops[n.nloops];
    for (int k = n.nloops; k > first; --k) n.loops[k] = n.loops[k - 1];
    n.loops[first] = loop{q, l.src_stride * c, l.dst_stride * c, l.scale_stride * c};
    n.loops[pick + 1].extent = c;
    ++n.nloops;
    if (n.outer_count() <= outer) {
      --n.nloops;
      for (int k = first; k < n.nloops; ++k) n.loops[k] = n.loops[k + 1];
      n.loops[pick] = l;
      n.loops[n.nloops] = spare;
      return;
    }
  }
}

/// Folds zero fills into the copies whose destination runs they continue (the padding of
/// a partial block right after its valid elements), so padding is written in the same
/// pass as the data, often in the same vector: a zero fill whose innermost loop has dst
/// stride 1 and starts where a copy's or transpose's dst-stride-1 run ends, with the
/// same other loops (extents and dst strides), becomes that nest's `zero_tail`.
inline void merge_zero_tails(std::vector<placed_nest>& nests) {
  // the loops of a nest other than its dst-stride-1 run, as (dst stride, extent), sorted
  // and folded where contiguous in dst (a zero fill folds loops that its copy, bound by
  // the source, cannot): equal lists mean the same dst offsets
  const auto others = [](const nest& n, int skip, std::array<std::pair<dim, dim>, max_loops>& out) {
    int count = 0;
    for (int i = 0; i < n.nloops; ++i)
      if (i != skip && n.loops[i].extent != 1) out[static_cast<std::size_t>(count++)] = {n.loops[i].dst_stride, n.loops[i].extent};
    std::sort(out.begin(), out.begin() + count);
    int folded = 0;
    for (int i = 0; i < count; ++i) {
      const auto next = out[static_cast<std::size_t>(i)];
      auto& last = out[static_cast<std::size_t>(folded > 0 ? folded - 1 : 0)];
      if (folded > 0 && next.first == last.first * last.second) {
        last.second *= next.second;
      } else {
        out[static_cast<std::size_t>(folded++)] = next;
      }
    }
    return folded;
  };
  for (std::size_t z = 0; z < nests.size(); ++z) {
    const nest& fill = nests[z].loops;
    if (fill.kind != kernel_kind::zero_fill || fill.nloops < 1) continue;
    // its dst-stride-1 loop, or none: zeros one element long (a unit loop simplify dropped)
    const int fill_run = fill.loops[fill.nloops - 1].dst_stride == 1 ? fill.nloops - 1 : -1;
    const dim tail = fill_run >= 0 ? fill.loops[fill_run].extent : 1;
    std::array<std::pair<dim, dim>, max_loops> fill_others{}, data_others{};
    const int nf = others(fill, fill_run, fill_others);
    for (placed_nest& data : nests) {
      nest& d = data.loops;
      if (d.zero_tail != 0) continue;
      int run = -1;  // the loop with dst stride 1, or -1 for a strided copy with rows of one element
      if (d.kind == kernel_kind::copy) run = d.nloops - 1;
      else if (d.kind == kernel_kind::transpose && d.nloops >= 2) run = d.nloops - 2;
      else if (d.kind != kernel_kind::strided || d.nloops + 1 > max_loops) continue;
      const dim run_extent = run >= 0 ? d.loops[run].extent : 1;
      if (run >= 0 && d.loops[run].dst_stride != 1) continue;
      if (nests[z].dst_base != data.dst_base + run_extent) continue;
      if (others(d, run, data_others) != nf || !std::equal(fill_others.begin(), fill_others.begin() + nf, data_others.begin()))
        continue;
      if (run < 0) {  // rows of one element: a copy of one-element rows, each followed by its zeros
        d.loops[d.nloops++] = loop{1, 1, 1, 0};
        d.kind = kernel_kind::copy;
      }
      d.zero_tail = tail;
      nests.erase(nests.begin() + static_cast<std::ptrdiff_t>(z));
      --z;
      break;
    }
  }
}

/// Copies that read the same source rows run tile by tile together. tile_rows cut the
/// long loop J of a copy into tiles, (..., J / tile, tile, K, row) or (..., J / tile, K,
/// tile, row), so that a tile's source rows stay in cache while K's rows are taken from
/// them. Another copy of the rest of those rows (..., J, row': the last, partial channel
/// block of nhwc -> nChw8c with 71 channels) would read each row from memory once more;
/// it gets the same tiles and runs each of its tiles right after the first copy's (see
/// placed_nest::fused_loops).
/// @post the nests visit the same elements with the same offsets
inline void fuse_tiled_copies(std::vector<placed_nest>& nests) {
  for (std::size_t m = 0; m < nests.size(); ++m) {
    const nest& tiled = nests[m].loops;
    if (tiled.kind != kernel_kind::copy || tiled.nloops < 4) continue;
    if (nests[m].fused_loops != 0 || (m + 1 < nests.size() && nests[m + 1].fused_loops != 0)) continue;
    const int q = tiled.nloops - 4;  // the loop of tiles
    // K inside the tile when the kernel owns it (tile_rows' two shapes)
    const bool across = tiled.owned_loops() == 3;
    if (tiled.owned_loops() != 2 && !across) continue;
    const loop tiles = tiled.loops[q], K = tiled.loops[across ? q + 2 : q + 1], tile = tiled.loops[across ? q + 1 : q + 2];
    // (a fused copy's tile loop must stay an owned loop of its own: tiles of few_rows or more)
    if (tile.extent < nest::few_rows || tiles.src_stride != tile.src_stride * tile.extent ||
        tiles.dst_stride != tile.dst_stride * tile.extent ||
        tiles.scale_stride != tile.scale_stride * tile.extent || K.src_stride >= tile.src_stride)
      continue;
    for (std::size_t b = 0; b < nests.size(); ++b) {
      nest& rest = nests[b].loops;
      if (b == m || rest.kind != kernel_kind::copy || rest.nloops != q + 2 || nests[b].fused_loops != 0) continue;
      const loop J = rest.loops[q], row = rest.loops[q + 1];
      if (J != loop{tiles.extent * tile.extent, tile.src_stride, tile.dst_stride, tile.scale_stride} ||
          row.extent > nest::short_row || !std::equal(rest.loops, rest.loops + q, tiled.loops))
        continue;
      rest.loops[q] = tiles;
      rest.loops[q + 1] = tile;
      rest.loops[q + 2] = row;
      rest.nloops = q + 3;
      placed_nest moved = std::move(nests[b]);
      moved.fused_loops = q + 1;
      nests.erase(nests.begin() + static_cast<std::ptrdiff_t>(b));
      const std::size_t at = b < m ? m : m + 1;  // right after the tiled copy
      nests.insert(nests.begin() + static_cast<std::ptrdiff_t>(at), std::move(moved));
      if (b < m) --m;
      break;
    }
  }
}

/// Lowers src -> dst into nests: the copies of the valid region, then the zero fills of
/// the destination's padding (folded into the copies where they continue their rows,
/// unless `zero_tails` is false). Returns false when the blockings do not nest.
/// @pre same dims, both blocked; `scale_strides[d]` is d's row-major stride in the
///      scale array (0 for dims the scales do not vary over)
inline bool lower(const desc& src, const desc& dst, const dims& scale_strides, std::vector<placed_nest>& out,
                  bool zero_tails = true) {
  const int n = src.get_ndims();
  const dims logical = dst.get_dims(), padded = dst.get_padded_dims();
  const blocking src_blocking = src.get_blocking(), dst_blocking = dst.get_blocking();
  std::array<dim_pieces, max_ndims> cuts;  // (the first n only: not zeroed, see dim_levels)
  // the boxes of dim d are boxes[first[d], first[d + 1]), its copy boxes the first copies[d]
  std::vector<dim_box> boxes;
  boxes.reserve(static_cast<std::size_t>(4 * n));
  std::array<std::size_t, max_ndims + 1> first{};
  std::array<std::size_t, max_ndims> copies{};
  for (int d = 0; d < n; ++d) {
    const auto at = static_cast<std::size_t>(d);
    dim_pieces& cut = cuts[at];
    if (!cut_dim(src, src_blocking, dst, dst_blocking, d, scale_strides[d], cut)) return false;
    cut.pieces[0].extent = (padded[d] + cut.pieces[0].weight - 1) / cut.pieces[0].weight;
    first[at] = boxes.size();
    if (logical[d] > 0) decompose(cut, 0, 0, logical[d], dim_box{}, boxes);
    copies[at] = boxes.size() - first[at];
    if (padded[d] > logical[d] && logical[d] > 0) decompose(cut, 0, logical[d], padded[d], dim_box{}, boxes);
    first[at + 1] = boxes.size();
  }
  for (int d = 0; d < n; ++d)  // (after every dim is cut: blocks that do not nest still give false)
    if (first[static_cast<std::size_t>(d) + 1] == first[static_cast<std::size_t>(d)]) return true;  // a dim of 0: nothing to do
  // every combination of one box per dim; a combination with a padding box is a zero fill
  std::size_t combinations = 1;
  for (int d = 0; d < n; ++d) combinations *= first[static_cast<std::size_t>(d) + 1] - first[static_cast<std::size_t>(d)];
  out.reserve(out.size() + combinations);
  std::array<std::size_t, max_ndims> pick{};
  const auto dst_bytes = static_cast<dim>(data_type_size(dst.get_data_type()));
  for (;;) {
    placed_nest& p = out.emplace_back();  // in place: a nest is over a kilobyte
    bool zero_fill = false;
    for (int d = 0; d < n; ++d) {
      const auto at = static_cast<std::size_t>(d);
      const dim_box& box = boxes[first[at] + pick[at]];
      zero_fill = zero_fill || pick[at] >= copies[at];
      const dim_pieces& cut = cuts[at];
      for (int l = 0; l < cut.count; ++l) {
        const piece& pc = cut.pieces[static_cast<std::size_t>(l)];
        const dim start = box.start[static_cast<std::size_t>(l)];
        p.src_base += start * pc.src_stride;
        p.dst_base += start * pc.dst_stride;
        p.scale_base += start * pc.scale_stride;
        p.loops.loops[p.loops.nloops++] = loop{box.count[static_cast<std::size_t>(l)], pc.src_stride, pc.dst_stride,
                                               pc.scale_stride};
      }
    }
    if (zero_fill) {
      p.src_base = 0;
      for (int i = 0; i < p.loops.nloops; ++i) p.loops.loops[i].src_stride = 0;
    }
    simplify(p.loops, zero_fill, dst_bytes);
    if (p.loops.kind == kernel_kind::gather) gather_tables(p.loops, p.gather_src, p.gather_scale);
    int d = n - 1;
    for (; d >= 0; --d) {
      const auto at = static_cast<std::size_t>(d);
      if (++pick[at] < first[at + 1] - first[at]) break;
      pick[at] = 0;
    }
    if (d < 0) break;
  }
  if (zero_tails) merge_zero_tails(out);
  fuse_tiled_copies(out);
  return true;
}

}  // namespace memfmt::detail
