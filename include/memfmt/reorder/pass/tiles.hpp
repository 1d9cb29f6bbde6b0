#pragma once
/// @file
/// Plain copies as tiles (`use_tiles`): the loops of a nest regrouped into rows dense in
/// the destination and columns dense in the source, moved by the tile kernel whole
/// vectors at a time; their order for a pass from memory (`order_tiles_for_memory`);
/// and the outer loops that join the rows (`take_outer_rows`).

#include <algorithm>
#include <cstddef>

#include "memfmt/reorder/kernel/nest.hpp"
#include "memfmt/reorder/pass/simplify.hpp"

namespace memfmt::detail {

/// The rows (and columns) of a tile of units of `unit_bytes` on the widest target,
/// AVX-512: 16 lanes of 32 bits, 8 of 64, or 4 blocks of 128.
constexpr dim tile_side(dim unit_bytes) { return unit_bytes == 16 ? 4 : unit_bytes == 8 ? 8 : 16; }

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

/// The tile kind on the loops of `n` as they are (see try_tiles).
inline bool tiles_fit(nest& n, dim unit_bytes, int unit, dim row_unit, dim col_unit) {
  const int count = unit > 1 ? n.nloops - 1 : n.nloops;
  const dim lanes = tile_side(unit_bytes);
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
  // runs of fewer columns than a vector of AVX-512 holds, a power of 2 (runs and a
  // vector's columns then divide one another on every x86 target; elsewhere the kernel
  // moves a vector at a time within a run): the loops that go on
  // along the plain side's rows past a run are columns too (zipped a vector at a time,
  // then copied out run by run, or the reverse: a call of the kernel per run would cost
  // more than the run)
  const dim run = ncols == 1 ? n.loops[cols[0]].extent : 0;
  const bool packing = col_unit == 1;
  if (ncols == 1 && run * (unit_bytes / (packing ? row_unit : col_unit)) < 64 && (run & (run - 1)) == 0) {
    dim columns = run;
    for (int i = 0; i < count && ncols < 3; ++i)
      if (!taken[i] && (packing ? n.loops[i].src_stride : n.loops[i].dst_stride) == columns &&
          n.loops[i].extent > 1) {
        taken[i] = true;
        cols[ncols++] = i;
        columns *= n.loops[i].extent;
        i = -1;  // (the next one may come before it)
      }
  }
  if (ncols == 0) {
    nrows = dense_loops(n, count, false, row_unit, n.zero_tail, lanes, max_loops, taken, rows, nrow_elems);
    ncols = nrow_elems >= lanes ? dense_loops(n, count, true, col_unit, 0, dim{1} << 40, 2, taken, cols, ncol_elems) : 0;
    const bool lone = nrows == 1 && unit == 1;
    if (ncols > 0 && ncol_elems >= std::min<dim>(lanes, 8)) {  // (fewer columns: most of each tile wasted)
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

/// Cuts the loop of `n` (of the first `count`) that starts the rows, dense in dst at
/// stride `row_unit`, into (extent / c, c) when it alone holds more than tile_rows_max
/// rows: c is its largest divisor within tile_rows_max, a multiple of `lanes` if it has
/// one (a tile's rows, all used), and at least `lanes`. False, `n` untouched, when no
/// loop needs it or none fits.
inline bool cut_long_rows(nest& n, int count, dim row_unit, dim lanes) {
  if (n.zero_tail != 0 || n.nloops + 1 > max_loops) return false;  // (zeros follow a whole run)
  for (int i = 0; i < count; ++i) {
    const loop l = n.loops[i];
    if (l.dst_stride != row_unit || l.extent <= tile_rows_max) continue;
    dim c = 0;
    for (dim d = tile_rows_max / lanes * lanes; d >= lanes && c == 0; d -= lanes)
      if (l.extent % d == 0) c = d;
    for (dim d = tile_rows_max; d > lanes && c == 0; --d)
      if (l.extent % d == 0) c = d;
    if (c == 0) return false;
    for (int j = n.nloops; j > i + 1; --j) n.loops[j] = n.loops[j - 1];
    ++n.nloops;
    n.loops[i] = loop{l.extent / c, l.src_stride * c, l.dst_stride * c, l.scale_stride * c};
    n.loops[i + 1] = loop{c, l.src_stride, l.dst_stride, l.scale_stride};
    return true;
  }
  return false;
}

/// The tile kind on the loops of `n` but its unit (the unit's loop, if any, innermost):
/// rows dense in dst from stride `row_unit`, columns dense in src from `col_unit` (see
/// use_tiles); with `cut`, after a loop of more rows than a tile holds is cut into runs
/// that fit (cut_long_rows). False, `n` untouched, when no tiles fit.
inline bool try_tiles(nest& n, dim unit_bytes, int unit, dim row_unit, dim col_unit, bool cut) {
  if (!cut) return tiles_fit(n, unit_bytes, unit, row_unit, col_unit);
  nest t = n;
  if (!cut_long_rows(t, unit > 1 ? t.nloops - 1 : t.nloops, row_unit, tile_side(unit_bytes)) ||
      !tiles_fit(t, unit_bytes, unit, row_unit, col_unit))
    return false;
  n = t;
  return true;
}

/// Makes a plain copy a nest of the `tile` kind (see kernel_kind::tile) where its units
/// go whole vectors in and out. The unit is the first of these that tiles fit:
/// - the 2 to 8 elements of an innermost loop contiguous on both sides that make 2 to 8
///   bytes, or the 4 that make 16 bytes of 4-byte elements (AB8b32a2b: 2 b; f32
///   gOwI32o4i: 4 i);
/// - for 1- and 2-byte elements, the 2, 4 or 8 bytes of the destination's innermost
///   loop, packed from strided source elements (OIhw4i16o4i from oihw: 4 i, 9 apart),
///   or of the source's innermost loop, unpacked to strided destination elements (the
///   reverse); the other side's columns or rows then step by one element;
/// - an element;
/// - for 4-byte elements, pairs (8 bytes) spread likewise, and fours (16 bytes) with
///   no rows: tried after an element, or first where tiles of elements would fill a
///   quarter of their rows or less (ab -> BA4b8a8b4a: 4 a as rows).
/// Tiles have rows dense in the destination from the unit on, whose units fill the
/// tile's W lanes (tile_side: 16 of 32 bits, 8 of 64, 4 of 128 on AVX-512), and columns
/// dense in the source (up to 3 loops, 8 columns or more, or W; without rows, dense on the
/// plain side). Weights into blocks take
/// the rows first (the fewest loops that fill the lanes, at most tile_rows_max rows, the zeros after each
/// run of the first among them: a destination's padding), then the columns; blocks into
/// plain layouts take the columns first (OIhw8i16o2i -> oihw: 2 x 16 channels), then as
/// many rows as there are. A loop dense on both sides at unit level (a spread unit's
/// only) is a run of columns and there are no rows: no transpose (ab -> BA16a16b4a: 4 a
/// packed along 16 b); the loops that continue the plain side's rows past a run
/// shorter than a vector join the columns (the 256 blocks of b there), packing or
/// unpacking. A lone loop of rows against a lone loop of columns is a 2-D transpose, and
/// stays one where its columns are a tile or more (nchw -> nChw16c: the transpose kind
/// streams and blocks for the caches); against fewer (the 3 x 3 of weights), tiles are
/// partial either way, and these are faster. Where no tiles fit the loops as they are,
/// a copy tries the same choices with a loop of more rows than a tile holds cut into
/// runs that fit (cut_long_rows: bf16 OhwI32o2i -> ohwi, 1008 pairs of input channels
/// per output channel, otherwise copied a pair at a time); a transpose stays one (its
/// kernel walks long loops of rows in strips: nChw8c -> nchw).
/// @pre n simplified (loops ordered by dst stride), not split for threads; elements of
///      `bytes` (1, 2 or 4) on both sides
inline void use_tiles(nest& n, dim bytes) {
  if (n.nloops < 2 || n.kind == kernel_kind::zero_fill) return;
  const loop last = n.loops[n.nloops - 1];
  const auto unit_fits = [&](dim extent, dim most) {
    const dim b = extent * bytes;
    return extent > 1 && b <= most && (b & (b - 1)) == 0;
  };
  // packed: the destination's innermost loop; unpacked: the source's (moved innermost).
  // Unpacked units of 8 bytes, in half as many lanes, come after single elements, whose
  // tiles store rows of 16 (bf16 OIhw16i16o4i -> oihw, 9 rows of h x w, is a tenth
  // faster so than as unpacked 4i).
  // (units of 16 bytes spread, 4 f32, only go straight, without rows: their parts zip
  // into 128-bit blocks, which tiles with rows do not build)
  const auto spread = [&](bool packed, dim most, bool cut) {
    if (n.zero_tail != 0) return false;
    for (int i = 0; i < n.nloops; ++i) {
      const loop l = n.loops[i];
      if ((packed ? l.dst_stride : l.src_stride) != 1 || !unit_fits(l.extent, most)) continue;
      nest t = n;
      for (int j = i; j + 1 < t.nloops; ++j) t.loops[j] = t.loops[j + 1];
      t.loops[t.nloops - 1] = l;
      if (try_tiles(t, l.extent * bytes, static_cast<int>(l.extent), packed ? l.extent : 1, packed ? 1 : l.extent,
                    cut) &&
          (l.extent * bytes < 16 || t.tile_row_loops == 0)) {
        n = t;
        return true;
      }
    }
    return false;
  };
  const auto choose = [&](bool cut) {
    if (last.src_stride == 1 && last.dst_stride == 1 && last.extent > 1) {
      // (longer rows on both sides: a copy; zeros after units: left to the copy; rows of
      // one element, each followed by zeros, are rows like any other; 16 bytes of 1- or
      // 2-byte elements stay rows: the copy kernel's fixed moves and zipped runs beat
      // tiles of them, s8 nhwc -> nChw16c by 3x)
      return unit_fits(last.extent, bytes == 4 ? 16 : 8) && n.zero_tail == 0 &&
             try_tiles(n, last.extent * bytes, static_cast<int>(last.extent), last.extent, last.extent, cut);
    }
    // (4-byte elements: pairs or fours spread on one side where tiles of elements do not
    // fit, ABcd4a2b -> oihw, or fill at most a quarter of their 16 rows, ab ->
    // BA4b8a8b4a; where they fit, their 16 lanes beat 8 pairs)
    if (bytes == 4) {
      nest t = n;
      const bool elements = try_tiles(t, bytes, 1, 1, 1, cut);
      if (elements && (t.tile_row_loops == 0 || 4 * t.tile_rows() > tile_side(bytes))) {
        n = t;
        return true;
      }
      // (a transpose of 4 packed source columns along long rows keeps its interleaved
      // loads: unzipped as fours it lost a tenth, gOihw4o -> goihw)
      const bool deinterleaves = n.kind == kernel_kind::transpose && n.column_loops == 1 &&
                                 packed_narrow_side(n.loops[n.nloops - 2], n.loops[n.nloops - 1]);
      if (spread(true, 16, cut) || spread(false, 8, cut) || (!deinterleaves && spread(false, 16, cut))) return true;
      if (elements) n = t;
      return elements;
    }
    return spread(true, 8, cut) || spread(false, 4, cut) || try_tiles(n, bytes, 1, 1, 1, cut) || spread(false, 8, cut);
  };
  // every way as the loops are, then, for a copy, every way with long loops of rows cut
  // (a transpose's kernel walks long rows in strips of its own)
  if (!choose(false) && n.kind == kernel_kind::copy) choose(true);
}

/// Columns a call of tiles of spread 4-byte pairs moves at least, with no rows, to
/// replace a gather: 4 vectors of pairs or more (BA16a32b2a <-> ab gained a tenth to
/// two thirds; at 16 columns, BA16a16b2a -> ab and ab -> BA4b8a16b2a lost a seventh to
/// a third to the cost of a call).
inline constexpr dim pair_tile_min_columns = 32;

/// Whether `t`, a gather of 4-byte elements made tiles by use_tiles, moves faster so.
/// With `microcoded_gathers` (gathers_microcoded, on a target that gathers by vector
/// gathers), any tiles do: slower than as many loads, the gathers lose to tiles of
/// every shape. Else pairs spread on one side, no rows (a transpose of 4 rows of pairs,
/// oihw -> ABcd4a2b, lost a third), pair_tile_min_columns or more; `from_memory`, in one
/// run (BA4b8a8b2a -> ab, runs of 8 pairs 128 blocks apart, lost a third: a stream per
/// run).
constexpr bool tiles_beat_gather(const nest& t, bool from_memory, bool microcoded_gathers) {
  if (t.kind != kernel_kind::tile) return false;
  if (microcoded_gathers) return true;
  if (t.tile_unit != 2 || t.tile_row_loops != 0) return false;
  const int innermost = t.nloops - 2;
  dim columns = 1;
  for (int k = innermost + 1 - t.tile_column_loops; k <= innermost; ++k) columns *= t.loops[k].extent;
  return (from_memory ? t.loops[innermost].extent : columns) >= pair_tile_min_columns;
}

/// Bytes (source and destination) beyond which tile nests are ordered for a pass from
/// memory: more than a core's L2 holds (1 to 2 MiB today).
inline constexpr std::size_t tiles_from_memory = std::size_t{4} << 20;

/// Takes the outer loops just outside a tile nest's rows into its rows while they
/// continue the rows densely in dst (up to tile_rows_max rows): the same walk, with
/// fewer calls of the kernel, each over more tiles (OIhw8i16o2i from oihw: 8 x 16 x 2
/// rows, not 16 x 2 rows 8 times). With `threads` > 1, at least 4 outer iterations per
/// thread stay for split_for_threads to share.
inline void take_outer_rows(nest& n, dim threads = 1) {
  if (n.kind != kernel_kind::tile || n.tile_row_loops == 0) return;
  const dim keep = threads > 1 ? 4 * threads : 1;
  for (int first = n.nloops - n.owned_loops(); first > 0; --first) {
    const dim rows = n.tile_rows();
    const loop& inner = n.loops[first + n.tile_row_loops - 1];
    const loop& next = n.loops[first - 1];
    if (next.dst_stride != rows * inner.dst_stride || rows * next.extent > tile_rows_max ||
        n.outer_count() / next.extent < keep)
      return;
    ++n.tile_row_loops;
  }
}

/// Destination columns at least this many bytes apart share one or two of an L1's 64
/// sets; band_min_columns of them or more hold more lines than those sets have ways.
inline constexpr dim band_column_bytes = 2048;
inline constexpr dim band_min_columns = 32;

/// Cuts a tile nest's single column loop (of elements of `elem` bytes) into bands of
/// `tile_side` columns, the band loop outside the kernel, when band_min_columns or more
/// columns lie band_column_bytes or more apart in dst and the rows are few
/// (tile_rows_max / 8 or fewer): each call then writes its columns' rows whole, where a
/// call over every column walks the row groups outside the columns and leaves each
/// destination line partly written until the lines of every other column have passed
/// through the same sets (OhwI48o4i -> ohwi: 48 columns 2052 bytes apart, 14 rows).
/// @post the nest visits the same elements with the same offsets
inline void band_columns(nest& n, dim elem) {
  if (n.kind != kernel_kind::tile || n.tile_row_loops == 0 || n.tile_column_loops != 1 || n.nloops >= max_loops)
    return;
  const dim side = tile_side(n.tile_unit * elem);
  const int first = n.nloops - n.owned_loops();
  const int col = first + n.tile_row_loops;
  const loop c = n.loops[col];
  if (c.extent < band_min_columns || c.extent % side != 0 || c.dst_stride * elem < band_column_bytes ||
      n.tile_rows() > tile_rows_max / 8)
    return;
  for (int k = n.nloops; k > first; --k) n.loops[k] = n.loops[k - 1];
  n.loops[first] = loop{c.extent / side, c.src_stride * side, c.dst_stride * side, c.scale_stride * side};
  n.loops[col + 1].extent = side;
  ++n.nloops;
}

/// The elements a call of `n`'s kernel covers back to back on one side (`src`, or dst):
/// the product of its owned loops that are dense there from stride 1, in any order (loops
/// of one skipped; in dst, the run at stride 1 counts the zero tail after it, a run of
/// one element followed by zeros too).
/// @pre strides >= 0 (as descriptors have them)
inline dim block_run(const nest& n, bool src) {
  dim run = 1;
  bool taken[max_loops] = {};
  const int first = n.nloops - n.owned_loops() < 0 ? 0 : n.nloops - n.owned_loops();
  for (bool grew = true; grew;) {
    grew = false;
    for (int i = first; i < n.nloops; ++i) {
      const loop& l = n.loops[i];
      const dim extent = l.extent + (!src && l.dst_stride == 1 ? n.zero_tail : 0);
      if (taken[i] || extent <= 1 || (src ? l.src_stride : l.dst_stride) != run) continue;
      run *= extent;
      taken[i] = true;
      grew = true;
    }
  }
  return run;
}

/// Whether stores around the caches (nest::stream_stores) would write whole lines of the
/// destination: a call's run there (block_run, elements of `bytes`) is a whole number of
/// 64-byte lines (taken to start on one), or 4 lines or more. Else the vector stores that
/// happen to be aligned would go around the caches beside ordinary stores into the rest
/// of their lines, which costs more than storing all of them through the cache (f32
/// `gOIhw16i16o2i` -> `goihw`: runs of 2 x 9 pixels, 72 bytes). (A tile kernel stores a
/// vector per column, so its runs of 4 lines or more may still mix the two where the
/// columns are not a whole number of lines apart.)
inline bool writes_whole_lines(const nest& n, dim bytes) {
  const dim run = block_run(n, false) * bytes;
  return run % 64 == 0 || run >= 256;
}

/// Orders the outer loops of a `tile` or `transpose` nest for a pass from memory. Of
/// the two loops that finish lines, P (the smallest step on either side: it walks
/// along rows of the side whose blocks lie in many rows) and Q (the smallest step on
/// the other side: it walks from block to block there), Q goes innermost and P around
/// it, over chunks of Q that keep a window of each side in cache. Packing f32 `ab` ->
/// `BA16a64b4a` thus reads a few rows at a time, each once and while it is in cache,
/// rather than a strip of 64 columns down every row (a page per row, 64 passes), and
/// writes the blocks in runs; unpacking walks the same way with the sides swapped.
/// Only where Q's step is a block's run on Q's side (block_run), so that the blocks of
/// Q's iterations lie back to back there; else the loops stay as they are (in
/// destination order, as simplify and use_tiles leave them), which writes the
/// destination in runs: f32 `oihw` -> `OIhw4o8i8o4i` (9 pixels of 4 i per call and
/// source row, Q the blocks of 32 i, 288 apart) is such a nest. With `even_if_apart`,
/// also where Q's blocks are apart (stage_conversion weighs both orders).
/// @pre n.kind == tile or transpose, not split for threads; `bytes`: the size of an element
inline void order_tiles_for_memory(nest& n, dim bytes, bool even_if_apart = false) {
  constexpr dim window = dim{1} << 18;  // (a quarter of L2: the lines of both sides stay)
  const int outer = n.nloops - n.owned_loops();
  if (outer < 2 || n.nloops + 1 > max_loops) return;
  const auto magnitude = [](dim x) { return x < 0 ? -x : x; };
  const auto step = [&](int i, bool src) { return magnitude(src ? n.loops[i].src_stride : n.loops[i].dst_stride); };
  int p = 0;
  bool p_src = step(0, true) <= step(0, false);
  for (int i = 1; i < outer; ++i)
    for (bool src : {true, false})
      if (step(i, src) < step(p, p_src)) {
        p = i;
        p_src = src;
      }
  int q = p == 0 ? 1 : 0;
  for (int i = 0; i < outer; ++i)
    if (i != p && step(i, !p_src) < step(q, !p_src)) q = i;
  const loop P = n.loops[p], Q = n.loops[q];
  dim block = bytes;
  for (int i = outer; i < n.nloops; ++i) block *= n.loops[i].extent;
  if (block <= 0 || P.extent <= 0 || step(p, p_src) == 0) return;  // (no elements, or a broadcast)
  if (!even_if_apart && step(q, !p_src) != block_run(n, !p_src)) return;  // (Q's blocks are apart there)
  // the largest chunk of Q (a divisor of its extent) within the window, and with at
  // most 16 rows of a source walked along its rows (more, 4 KiB apart, share L1's sets
  // and evict each other's prefetched lines before they are read)
  dim most = window / (P.extent * block);
  if (p_src) most = std::min(most, 16 / std::max(block / (step(p, true) * bytes), dim{1}));
  dim c = std::min(Q.extent, std::max(most, dim{1}));
  while (c > 1 && Q.extent % c != 0) --c;
  // the other outer loops in their order, then Q / c, P, c (Q, P when a chunk is one of
  // Q's iterations; P, Q when Q is one chunk)
  loop rest[max_loops];
  int k = 0;
  for (int i = 0; i < outer; ++i)
    if (i != p && i != q) rest[k++] = n.loops[i];
  loop owned[max_loops];
  for (int i = outer; i < n.nloops; ++i) owned[i - outer] = n.loops[i];
  const int nowned = n.nloops - outer;
  if (c > 1 && c < Q.extent) rest[k++] = loop{Q.extent / c, Q.src_stride * c, Q.dst_stride * c, Q.scale_stride * c};
  if (c == 1) {
    rest[k++] = Q;
    rest[k++] = P;
  } else {
    rest[k++] = P;
    rest[k++] = loop{c, Q.src_stride, Q.dst_stride, Q.scale_stride};
  }
  n.nloops = k + nowned;
  for (int i = 0; i < k; ++i) n.loops[i] = rest[i];
  for (int i = 0; i < nowned; ++i) n.loops[k + i] = owned[i];
}

}  // namespace memfmt::detail
