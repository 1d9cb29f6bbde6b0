#pragma once
/// @file
/// Conversions staged through a scratch block. A nest that converts as it changes the
/// layout (f32 `ab` -> s8 `OI16i64o2i`, a scale per input channel) runs in the
/// conversion kernels a few elements per row; the same layout change as a plain copy
/// runs as tiles, whole vectors in and out. Such a nest becomes a pair that goes block
/// by block of its inner loops through a thread's scratch (in L1): the conversion, in
/// the order of the side it reads or writes contiguously, and the tile move, in the
/// narrower of the two types (the source's, with a sum). Each element is converted once, by the same arithmetic,
/// so results are those of one pass, bit for bit.
///
/// Example (f32 `ab` -> s8 `OI16i64o2i`, 384 x 171, scales along b, one thread):
///
///     copy @src+0 scratch: 6(10944,0) | 64(171,160) 160(1,1,sc1)
///     tile @scratch dst+0: 6(0,12288) | rows 64(160,2) columns 80(2,128) unit 2(1,1)  staged ...
///
/// Per block of 64 a, the first converts 64 rows of 160 source elements into the
/// scratch, the second moves them as tiles of 2-byte units (2 b).

#include <algorithm>
#include <cstdint>

#include "memfmt/core/data_type.hpp"
#include "memfmt/reorder/kernel/nest.hpp"
#include "memfmt/reorder/pass/simplify.hpp"
#include "memfmt/reorder/pass/threads.hpp"
#include "memfmt/reorder/pass/tiles.hpp"
#include "memfmt/reorder/placed_nest.hpp"

namespace memfmt::detail {

/// Bytes of a thread's scratch block: a fraction of an L1 data cache (32 or 48 KiB), which
/// also holds the lines both stages stream through.
inline constexpr dim stage_bytes = dim{16} << 10;

/// Blocks of fewer elements are not staged (two kernel calls and a pass over the scratch
/// per block would cost more than they save).
inline constexpr dim stage_min_elements = 512;

/// Dense strides for the `count` loops of `block` in the order of their source
/// (`by_src`) or destination strides, into `out`; false when those strides do not order
/// the loops (a stride of 0 or below: a broadcast source).
inline bool scratch_strides(const loop* block, int count, bool by_src, dim* out) {
  int order[max_loops];
  for (int i = 0; i < count; ++i) {
    const dim key = by_src ? block[i].src_stride : block[i].dst_stride;
    if (key <= 0) return false;
    int j = i;  // (insertion sort: a few loops, no allocation)
    for (; j > 0 && (by_src ? block[order[j - 1]].src_stride : block[order[j - 1]].dst_stride) > key; --j)
      order[j] = order[j - 1];
    order[j] = i;
  }
  dim stride = 1;
  for (int k = 0; k < count; ++k) {
    out[order[k]] = stride;
    stride *= block[order[k]].extent;
  }
  return true;
}

/// One stage of a pair: the `count` loops of `block` with the scratch's strides on one
/// side (the destination's when `to_scratch`), simplified for elements of `bytes`, as
/// tiles when `tiles`, behind the `nouter` loops of `outer` (at stride 0 on the
/// scratch's side: each block reuses it). False when the kernel would not be the one
/// asked for (tiles, or a contiguous copy) or would own an outer loop.
inline bool stage_nest(const loop* outer, int nouter, const loop* block, int count, const dim* scratch, bool to_scratch,
                       bool scaled, const conversion& cvt, dim zero_tail, dim bytes, bool tiles, nest& out) {
  nest s;
  s.nloops = count;
  for (int i = 0; i < count; ++i) {
    const loop& l = block[i];
    s.loops[i] = loop{l.extent, to_scratch ? l.src_stride : scratch[i], to_scratch ? scratch[i] : l.dst_stride,
                      scaled ? l.scale_stride : 0};
  }
  simplify(s, false, bytes);
  s.zero_tail = zero_tail;
  if (tiles) use_tiles(s, bytes);
  if (s.kind != (tiles ? kernel_kind::tile : kernel_kind::copy) || s.nloops + nouter > max_loops) return false;
  for (int k = s.nloops; k-- > 0;) s.loops[k + nouter] = s.loops[k];
  for (int k = 0; k < nouter; ++k) {
    const loop& l = outer[k];
    s.loops[k] = loop{l.extent, to_scratch ? l.src_stride : 0, to_scratch ? 0 : l.dst_stride, scaled ? l.scale_stride : 0};
  }
  s.nloops += nouter;
  if (s.nloops - s.owned_loops() < nouter) return false;
  s.cvt = cvt;
  out = s;
  return true;
}

/// The block of a tile nest `t` that a stage pair runs at once: the loops its kernel
/// owns and, outside them, as many as keep it within `budget` elements, and a chunk of
/// the next; or, when those it owns are already more, its outermost column loop cut to
/// fit (into whole tiles of 16 when it is the only one). Returns the block's first loop, or -1 when no block of
/// stage_min_elements to `budget` elements fits.
inline int stage_block(nest& t, dim budget) {
  int at = t.nloops - t.owned_loops();
  dim elements = 1;
  for (int k = at; k < t.nloops; ++k) elements *= t.loops[k].extent;
  if (elements <= budget) {
    while (at > 0 && elements * t.loops[at - 1].extent <= budget) elements *= t.loops[--at].extent;
    // and a chunk of the next (a divisor of its extent), if two or more iterations fit
    if (at > 0 && 2 * elements <= budget && t.nloops + 1 <= max_loops) {
      const loop l = t.loops[at - 1];
      dim c = budget / elements;
      while (c > 1 && l.extent % c != 0) --c;
      if (c > 1) {
        for (int k = t.nloops; k > at - 1; --k) t.loops[k] = t.loops[k - 1];
        t.loops[at - 1] = loop{l.extent / c, l.src_stride * c, l.dst_stride * c, l.scale_stride * c};
        t.loops[at].extent = c;
        ++t.nloops;
        elements *= c;
      }
    }
  } else {
    const int pick = at + t.tile_row_loops;
    const loop l = t.loops[pick];
    if (t.zero_tail != 0 && l.dst_stride == 1) return -1;  // (its zeros follow the whole run)
    const dim per = elements / l.extent, granule = t.tile_column_loops == 1 ? 16 : 1;
    dim c = std::min(l.extent, budget / per) / granule * granule;
    while (c > 0 && l.extent % c != 0) c -= granule;
    if (c <= 0 || t.nloops + 1 > max_loops) return -1;
    for (int k = t.nloops; k > at; --k) t.loops[k] = t.loops[k - 1];
    t.loops[at++] = loop{l.extent / c, l.src_stride * c, l.dst_stride * c, l.scale_stride * c};
    t.loops[pick + 1].extent = c;
    ++t.nloops;
    elements = per * c;
  }
  return elements >= stage_min_elements ? at : -1;
}

/// Whether the kernel of the converting nest `n` does as well as a staged pair would:
/// - a copy of rows of 8 to short_converted_row elements back to back on one side, with
///   scales that run on from row to row, which the copy kernel converts as one long row
///   (nChw8c -> nChw16c f32 -> s8; staged, the move of 8-byte rows would be the slower);
/// - a transpose of tiles 8 x 8 or larger without scales, which converts in registers
///   (nChw8c -> nchw f32 -> s8; with a scale per channel, oihw -> OIhw8o8i, its scales
///   cost more than the stage).
inline bool converts_well_in_one_pass(const nest& n) {
  if (n.nloops < 2) return false;
  if (n.kind == kernel_kind::copy) {
    const loop &row = n.loops[n.nloops - 1], &rows = n.loops[n.nloops - 2];
    return row.extent >= 8 && row.extent < short_converted_row &&
           (rows.src_stride == row.extent || rows.dst_stride == row.extent) &&
           rows.scale_stride == row.extent * row.scale_stride;
  }
  if (n.kind == kernel_kind::transpose) {
    const dim columns = n.loops[n.nloops - 1].extent * (n.column_loops == 2 ? n.loops[n.nloops - 3].extent : 1);
    bool scaled = false;
    for (int k = 0; k < n.nloops; ++k) scaled = scaled || n.loops[k].scale_stride != 0;
    return !scaled && std::min(columns, n.loops[n.nloops - 2].extent) >= 8;
  }
  return false;
}

/// Orders the shared loops of a staged pair (`first` reads the source) for a pass from
/// memory: the larger a loop's step in the source, the further out it goes, so that a
/// block's neighbours in the source follow it (f32 `ab` -> u8 `BA16a64b4a`: every block
/// of input channels across the rows of a block of output channels, rather than a strip
/// of 64 columns down all 4096 rows per pass). Both nests keep the same order.
/// @pre the pair from stage_conversion, not split for threads
inline void order_staged_for_memory(placed_nest& first, placed_nest& second) {
  const int shared = second.fused_loops;
  const auto magnitude = [](dim x) { return x < 0 ? -x : x; };
  // (insertion sort: a few loops; stable, so equal steps keep their order)
  for (int i = 1; i < shared; ++i)
    for (int j = i; j > 0 && magnitude(first.loops.loops[j - 1].src_stride) < magnitude(first.loops.loops[j].src_stride); --j) {
      std::swap(first.loops.loops[j - 1], first.loops.loops[j]);
      std::swap(second.loops.loops[j - 1], second.loops.loops[j]);
    }
}

/// The elements `n` reads back to back in the source in loop order: the innermost loop's
/// run, and each loop around it while it steps by the run so far (loops of one skipped).
inline dim source_run(const nest& n) {
  dim run = 1;
  for (int k = n.nloops; k-- > 0;) {
    if (n.loops[k].extent == 1) continue;
    if (n.loops[k].src_stride != run) break;
    run *= n.loops[k].extent;
  }
  return run;
}

/// Splits the converting nest `p` into a staged pair, `first` then `second`, where its
/// layout change as a plain copy of the narrower type (the source's, with a sum) runs
/// as tiles: the conversion into
/// the scratch in source order, then the tiles to the destination; or, with a sum (which
/// reads the destination) or a wider destination, the tiles into the scratch in
/// destination order, then the conversion. Blocks hold at most stage_bytes of the
/// scratch's type, and with `threads` > 1 are small enough to give each 4 or more.
/// `from_memory` (a conversion first): the blocks are those of the tiles as they are or
/// ordered for a pass from memory (order_tiles_for_memory), whichever reads the longer
/// run of the source (source_run) with the shared loops ordered too.
/// `microcoded_gathers`: see tiles_beat_gather.
/// Returns false, writing nothing, where that does not apply or the nest converts well
/// in one pass.
/// @pre p simplified, its conversion set and not a plain copy, not a zero fill, not
///      fused, not split for threads; zero points, if any, not the integer path's
/// @post second.fused_loops >= 1 loops outermost in both, of equal extents; the pair
///       visits the elements of `p` with the same offsets and scale offsets
inline bool stage_conversion(const placed_nest& p, dim threads, placed_nest& first, placed_nest& second,
                             bool from_memory = false, bool microcoded_gathers = false) {
  const nest& n = p.loops;
  if (n.kind == kernel_kind::zero_fill || converts_well_in_one_pass(n)) return false;
  if (n.zero_tail != 0) {  // zeros after runs of one element: simplify would drop the run's loop
    bool run = false;
    for (int k = 0; k < n.nloops; ++k) run = run || (n.loops[k].dst_stride == 1 && n.loops[k].extent > 1);
    if (!run) return false;
  }
  const auto src_bytes = static_cast<dim>(data_type_size(n.cvt.src));
  const auto dst_bytes = static_cast<dim>(data_type_size(n.cvt.dst));
  const bool convert_first = n.cvt.beta == 0.f && dst_bytes <= src_bytes;
  const dim bytes = convert_first ? dst_bytes : src_bytes;  // of the scratch's type
  if (bytes > 4) return false;
  // the layout change as a plain copy of that type, with the destination's zeros (which
  // keep the run they follow among its rows: see stage_block)
  nest t;
  t.nloops = n.nloops;
  for (int k = 0; k < n.nloops; ++k) t.loops[k] = n.loops[k];
  simplify(t, false, bytes);
  t.zero_tail = n.zero_tail;
  const bool gather = t.kind == kernel_kind::gather;
  use_tiles(t, bytes);
  if (t.kind != kernel_kind::tile) return false;
  // (a gather of 4-byte elements as tiles of spread units only where they beat it,
  // tiles_beat_gather; as tiles of elements, which plain copies refuse, it stages
  // well: f32 oihw -> OIhw16o16i2o with a scale per o, about twice as fast as one pass)
  if (gather && bytes == 4 && t.tile_unit > 1 && !tiles_beat_gather(t, from_memory, microcoded_gathers)) return false;
  // (4-byte units whole on the side the conversion walks, spread on the other: the
  // conversion would walk the blocked side's runs of a unit each, a scale apiece; f32
  // BA16a32b2a -> ab with a scale per a ran at a fifteenth of one pass. Without scales
  // these stay in one pass as before, unmeasured.)
  const loop& unit = t.loops[t.nloops - 1];
  if (bytes == 4 && t.tile_unit > 1 && (convert_first ? unit.dst_stride : unit.src_stride) != 1) return false;
  // blocks for 4 or more per thread when the nest is worth sharing (as split_for_threads
  // judges it) and such blocks make a pair; else blocks as large as the scratch
  dim total = 1;
  for (int k = 0; k < t.nloops; ++k) total *= t.loops[k].extent;
  const dim most = stage_bytes / bytes;
  const bool share = threads > 1 && total >= worth_sharing && total / (4 * threads) < most;
  conversion move;  // a plain copy of the scratch's type
  move.src = move.dst = convert_first ? n.cvt.dst : n.cvt.src;
  nest a, b;
  int nouter = 0;
  const auto pair = [&](const nest& tiles, dim budget) {
    nest cut = tiles;
    const int at = stage_block(cut, budget);
    if (at < 0) return false;
    // the outer loops (a loop of one when the block is the whole nest: the pair's shared loop)
    const loop one{1, 0, 0, 0};
    const loop* outer = at > 0 ? cut.loops : &one;
    nouter = at > 0 ? at : 1;
    const int count = cut.nloops - at;
    const loop* block = cut.loops + at;
    dim scratch[max_loops];
    if (!scratch_strides(block, count, convert_first, scratch)) return false;
    return convert_first
               ? stage_nest(outer, nouter, block, count, scratch, true, true, n.cvt, 0, dst_bytes, false, a) &&
                     stage_nest(outer, nouter, block, count, scratch, false, false, move, n.zero_tail, dst_bytes, true, b)
               : stage_nest(outer, nouter, block, count, scratch, true, false, move, 0, src_bytes, true, a) &&
                     stage_nest(outer, nouter, block, count, scratch, false, true, n.cvt, n.zero_tail, dst_bytes, false, b);
  };
  const auto pair_of = [&](const nest& tiles) {
    return (share && pair(tiles, std::max(total / (4 * threads), stage_min_elements))) || pair(tiles, most);
  };
  bool made = pair_of(t);
  // from memory, a conversion first takes the tiles as they are or ordered for memory,
  // whichever pair's conversion reads the longer run of the source once its shared loops
  // are ordered too (order_staged_for_memory, as the plan does next) (f32 -> s8
  // `gOIhw2o8i16o4i` -> `goihw`: ordered, whole blocks, not runs of 512 elements; 256 x
  // 128 x 3 x 3 `OIhw8i16o2i` -> `oihw`: as they are, the whole source, not runs of 128;
  // ties: ordered). The destination's runs are not weighed. (The move first stays as it
  // is: ordered, it would write the destination in shorter runs, which is slower.)
  const auto planned_run = [&] {
    placed_nest f, s;
    f.loops = a;
    s.loops = b;
    s.fused_loops = nouter;
    order_staged_for_memory(f, s);
    return source_run(f.loops);
  };
  nest ordered = t;
  if (from_memory && convert_first) order_tiles_for_memory(ordered, bytes, true);
  const bool reordered =
      ordered.nloops != t.nloops || !std::equal(t.loops, t.loops + t.nloops, ordered.loops);
  if (from_memory && convert_first && reordered) {
    const nest first_as_is = a, second_as_is = b;
    const int shared_as_is = nouter;
    const dim run_as_is = made ? planned_run() : 0;
    if (!pair_of(ordered) || (made && planned_run() < run_as_is)) {
      a = first_as_is;
      b = second_as_is;
      nouter = shared_as_is;
    } else {
      made = true;
    }
  }
  if (!made) return false;
  first = placed_nest{};
  second = placed_nest{};
  first.loops = a;
  second.loops = b;
  first.src_base = p.src_base;
  second.dst_base = p.dst_base;
  (convert_first ? first : second).scale_base = p.scale_base;
  first.staged = convert_first ? stage::convert_to_scratch : stage::move_to_scratch;
  second.staged = convert_first ? stage::move_from_scratch : stage::convert_from_scratch;
  second.fused_loops = nouter;
  return true;
}

}  // namespace memfmt::detail
