#pragma once
/// @file
/// The loop nest a reorder plan hands to the kernel layer: what to iterate,
/// with which strides, and which conversion to apply to every element.
/// Plain C++ (no Highway), so the plan can build nests without compiling kernels.

#include <cstdint>

#include "memfmt/core/data_type.hpp"
#include "memfmt/core/dim.hpp"

namespace memfmt::detail {

/// The most loops a nest may have: a dim can appear once as an outer loop and
/// up to twice more as inner blocks, on either side.
inline constexpr int max_loops = 3 * max_ndims;

/// Blocks of the `interleave` kind hold at most this many elements (the block and the
/// kernel's transposed copy of it stay in L1).
inline constexpr dim interleave_max = 4096;

/// One loop of the nest. Strides are in elements (not bytes) of the respective
/// buffer; `scale_stride` indexes `conversion::scales`.
struct loop {
  dim extent = 1;
  dim src_stride = 0;
  dim dst_stride = 0;
  dim scale_stride = 0;

  friend constexpr bool operator==(const loop&, const loop&) = default;
};

/// Which kernel runs the innermost loop(s); see `nest::owned_loops`.
enum class kernel_kind {
  copy,       ///< innermost loop has src_stride == dst_stride == 1: contiguous convert/copy
  transpose,  ///< loops[n-1] has src_stride 1, loops[n-2] has dst_stride 1: 2-D transpose tiles
  strided,    ///< anything else: innermost loop with arbitrary strides
  zero_fill,  ///< writes zeros of the dst type at dst offsets (src unused)
  gather,     ///< the innermost `gather_loops` loops form a block that is contiguous in
              ///< dst; `gather_src[k]` is the src offset of its k-th element
  interleave, ///< the innermost `gather_loops` loops form a block that is contiguous in dst:
              ///< loops[n-1] = r (dst stride 1, extent 2 to 4), loops[n-2] = o (dst stride
              ///< r.extent), the others and r contiguous in src, starting at stride 1 (the
              ///< 4i16o4i blocks of weights): tiles transpose o against the source's columns
              ///< into a buffer, then r rows at a time are interleaved into dst
  tile        ///< W x W tiles of units (`tile_unit` elements, contiguous in both, or of 1
              ///< or 2 bytes, or 2 or 4 of 4 bytes, spread in one; use_tiles gives fours no rows, which the kernel
              ///< would move unit by unit): the innermost loop is the unit (when
              ///< tile_unit > 1), the `tile_column_loops` (1 to 3) before it the columns,
              ///< dense in src from unit to unit (from element to element where src
              ///< spreads the unit; without rows, dense on the plain side), the `tile_row_loops` before those the rows, dense in
              ///< dst likewise: each tile reads W rows along the columns and writes each
              ///< column's W rows as one vector. No rows: the units go straight
              ///< through, an innermost column loop dense in both at unit level (a run),
              ///< and the loops that continue the plain side's rows past a short run
};

/// Whether a `transpose` block of rows J (dst stride 1) by columns I (src stride 1) has 2
/// to 4 columns back to back in the source: the kernel moves it with interleaved loads,
/// a vector of rows at a time.
constexpr bool packed_source_columns(const loop& J, const loop& I) {
  return I.extent >= 2 && I.extent <= 4 && J.src_stride == I.extent;
}

/// Converted rows shorter than this many elements go through a buffer when they lie
/// back to back on one side (the copy kernel's converted_rows): converted as one long row.
inline constexpr dim short_converted_row = 64;

/// Rows a nest of the `tile` kind has at most (its kernel keeps their source offsets).
inline constexpr dim tile_rows_max = 256;

/// How many kinds there are (kernel_kind::tile is the last).
inline constexpr int kernel_kind_count = static_cast<int>(kernel_kind::tile) + 1;

/// The element conversion, oneDNN's reorder semantics:
/// `dst = saturate(round(alpha * scales[k] * (src - src_zp) + beta * (dst_old - dst_zp) + dst_zp))`,
/// computed in f32 (in f64 when a side is f64), one rounding per operation (never fused
/// into an FMA).
/// See convert_scalar.hpp for the exact definition every kernel reproduces bit for bit.
struct conversion {
  data_type src = data_type::undef, dst = data_type::undef;
  float alpha = 1.f;              ///< common scale (src_scale / dst_scale combined)
  const float* scales = nullptr;  ///< optional per-element factor, indexed by sum(idx * scale_stride); multiplies alpha
  float beta = 0.f;               ///< sum: dst = ... + beta * (dst_old - dst_zp) (the plan's beta / s_dst)
  std::int32_t src_zero_point = 0, dst_zero_point = 0;
  /// With zero points per index: how far (in floats) the table of zp_src lies after
  /// `scales`, and the table of zp_dst after that, each entry at its factor's index (the
  /// two fields above are then unused); 0: no tables.
  dim zero_point_tables = 0;

  /// Same type and no arithmetic: the kernels copy bytes, bit-exactly (NaN payloads,
  /// s32 beyond 2^24 and all).
  constexpr bool is_plain_copy() const {
    return src == dst && alpha == 1.f && scales == nullptr && beta == 0.f && src_zero_point == 0 &&
           dst_zero_point == 0 && zero_point_tables == 0;
  }

  /// f64 on either side: the kernels run such nests as scalar rows (every kind but
  /// zero_fill), the arithmetic in double.
  constexpr bool has_f64() const { return src == data_type::f64 || dst == data_type::f64; }
};

/// A loop nest, outermost loop first. The kernel owns the innermost loops (see
/// owned_loops); the caller splits the remaining "outer" iterations among threads.
struct nest {
  /// Rows up to this many elements are "short" (see owned_loops).
  static constexpr dim short_row = 256;
  /// A copy of short rows whose loop around them has fewer iterations than this
  /// also owns the loop around that one.
  static constexpr dim few_rows = 16;

  int nloops = 0;
  loop loops[max_loops] = {};
  kernel_kind kind = kernel_kind::strided;
  conversion cvt;
  /// Hint: the destination is large and will not be read soon; aligned contiguous
  /// stores bypass the cache. Results are identical either way.
  bool stream_stores = false;
  /// Zeros (destination padding) that follow each run of the loop with dst stride 1:
  /// each row of a `copy`, each column of a `transpose` (its loops[n-2] run). The
  /// kernel writes them in the same pass as the data.
  dim zero_tail = 0;
  /// The `transpose` kind: 1, or 2 when its columns also span loops[n-3], which is
  /// contiguous with loops[n-1] in src (src_stride == loops[n-1].extent, and likewise
  /// the scale stride) but not in dst.
  int column_loops = 1;
  /// The `gather` and `interleave` kinds: how many innermost loops form the block.
  /// The `gather` kind: per element of the block (row-major over those loops) its src
  /// offset and its scale offset (null: the scale does not vary within the block).
  /// Offsets are relative to the block's first element.
  int gather_loops = 0;
  /// The `tile` kind: elements per unit (1, the 2 to 8 contiguous in src and dst that
  /// make 2 to 8 bytes, 4 contiguous 4-byte elements (16 bytes), or the 2 to 8 elements
  /// of 1 or 2 bytes that make 2, 4 or 8 bytes, or 2 or 4 of 4 bytes, spread in one), and the loops of its rows
  /// (0: none, no transpose) and columns.
  int tile_unit = 1;
  int tile_row_loops = 0;
  int tile_column_loops = 1;
  const std::int32_t* gather_src = nullptr;
  const std::int32_t* gather_scale = nullptr;

  /// How many innermost loops the kernel iterates itself: the transpose's two (three
  /// when it folds columns); the copy's (and zero fill's) rows and the loop around them when the rows
  /// are short (so the kernel, not the outer cursor, steps from row to row), and the
  /// next loop too when the loop around the rows has fewer than few_rows iterations;
  /// a gather's block loops; one otherwise.
  constexpr int owned_loops() const {
    if (kind == kernel_kind::transpose) return 1 + column_loops;
    if (kind == kernel_kind::gather || kind == kernel_kind::interleave) return gather_loops;
    if (kind == kernel_kind::tile) return tile_row_loops + tile_column_loops + (tile_unit > 1 ? 1 : 0);
    if ((kind == kernel_kind::copy || kind == kernel_kind::zero_fill) && nloops >= 2 &&
        loops[nloops - 1].extent <= short_row)
      return nloops >= 3 && loops[nloops - 2].extent < few_rows ? 3 : 2;
    return 1;
  }

  /// Elements per block of the `gather` kind.
  constexpr dim gather_count() const {
    dim count = 1;
    for (int k = nloops - gather_loops; k < nloops; ++k) count *= loops[k].extent;
    return count;
  }

  /// A tile nest's rows: the product of its row loops' extents, the zero tail counted
  /// after the innermost one's run.
  /// @pre kind == tile, owned_loops() <= nloops
  constexpr dim tile_rows() const {
    const int first = nloops - owned_loops();
    dim rows = 1;
    for (int k = first; k < first + tile_row_loops; ++k)
      rows *= loops[k].extent + (k + 1 == first + tile_row_loops ? zero_tail : 0);
    return rows;
  }

  /// Product of the extents of the loops the kernel does not own.
  /// @pre 0 <= nloops <= max_loops
  constexpr dim outer_count() const {
    dim count = 1;
    for (int k = 0; k < nloops - owned_loops(); ++k) count *= loops[k].extent;
    return count;
  }
};

/// Where the kernel of the `interleave` kind puts a block's source columns. Its buffer
/// holds the block with o and r swapped (o at stride 1, r at stride o's extent, the
/// other loops at their dst strides); in source order, the columns' first loop steps
/// by `inner_stride` through it for `period` columns, and the others together by
/// `outer_stride` (one 2-level column map).
struct interleave_map {
  bool fits = false;      ///< the block is one of the kind (see kernel_kind::interleave) and fits interleave_max
  dim columns = 0;        ///< source columns per o (the product of the column loops' extents)
  dim period = 0, inner_stride = 0, outer_stride = 0;
};

/// The map of an `interleave` block: `block` holds its loops in nest order, o and r last.
/// The one statement of the kind's contract, for the planner and the kernel alike.
constexpr interleave_map map_interleave(const loop* block, int count) {
  interleave_map map;
  if (count < 2) return map;
  const loop& r = block[count - 1];
  const dim o_extent = block[count - 2].extent;
  if (r.dst_stride != 1 || r.extent < 2 || r.extent > 4 || block[count - 2].dst_stride != r.extent) return map;
  loop c[max_loops] = {};  // the column loops by source stride, at their buffer strides
  int n = 0;
  for (int k = 0; k < count; ++k) {
    if (k == count - 2) continue;
    loop l = block[k];
    if (k == count - 1) l.dst_stride = o_extent;
    int at = n++;
    for (; at > 0 && c[at - 1].src_stride > l.src_stride; --at) c[at] = c[at - 1];
    c[at] = l;
  }
  dim columns = 1;
  for (int k = 0; k < n; ++k) {
    if (c[k].src_stride != columns || c[k].scale_stride != 0) return map;
    if (k >= 2 && c[k].dst_stride != c[k - 1].dst_stride * c[k - 1].extent) return map;
    columns *= c[k].extent;
  }
  if (columns * o_extent > interleave_max) return map;
  map.fits = true;
  map.columns = columns;
  map.period = c[0].extent;
  map.inner_stride = c[0].dst_stride;
  map.outer_stride = n >= 2 ? c[1].dst_stride : 0;
  return map;
}

/// The innermost loop of `n`; a nest without loops is one element.
constexpr loop innermost(const nest& n) { return n.nloops >= 1 ? n.loops[n.nloops - 1] : loop{1, 0, 0, 0}; }

/// The loop the kernel owns `k` places out from the innermost (1: the one around it), or
/// an empty loop when it owns fewer.
constexpr loop owned_loop(const nest& n, int k) {
  const int owned = n.owned_loops() < n.nloops ? n.owned_loops() : n.nloops;
  return owned > k ? n.loops[n.nloops - 1 - k] : loop{};
}

/// Whether `n` holds its kind's contract (see kernel_kind), which the planner guarantees
/// and each kind's kernel assumes: the one statement of it. run_nest_target runs a nest
/// that does not hold it as strided rows, which are right for any strides.
/// - copy: the innermost loop is contiguous in both buffers;
/// - transpose: loops[n-1] contiguous in src, loops[n-2] in dst, and a third owned loop,
///   if any, continues loops[n-1] in src (and in the scales);
/// - gather: its tables and 1 to nloops block loops;
/// - interleave: a block map_interleave takes, and no sum (beta reads the destination,
///   not the kernel's buffer);
/// - tile, zero_fill and strided: any nest.
constexpr bool meets_contract(const nest& n) {
  const loop inner = innermost(n);
  switch (n.kind) {
    case kernel_kind::copy:
      return inner.src_stride == 1 && inner.dst_stride == 1;
    case kernel_kind::transpose: {
      if (n.nloops < 2) return false;
      const loop& J = n.loops[n.nloops - 2];
      const loop C = owned_loop(n, 2);
      const bool folds =
          C.extent == 1 || (C.src_stride == inner.extent && C.scale_stride == inner.extent * inner.scale_stride);
      return inner.src_stride == 1 && J.dst_stride == 1 && folds;
    }
    case kernel_kind::gather:
      return n.gather_src != nullptr && n.gather_loops >= 1 && n.gather_loops <= n.nloops;
    case kernel_kind::interleave:
      return n.cvt.beta == 0.f && n.gather_loops >= 2 && n.gather_loops <= n.nloops &&
             map_interleave(n.loops + (n.nloops - n.gather_loops), n.gather_loops).fits;
    case kernel_kind::tile: {
      // (the kernel holds the rows' offsets and walks at most 3 column loops)
      return n.owned_loops() <= n.nloops && n.tile_rows() <= tile_rows_max && n.tile_column_loops <= 3;
    }
    case kernel_kind::zero_fill:
    case kernel_kind::strided:
      return true;
  }
  return false;
}

/// Calls f(src, dst, scale) with the offsets of every row of the loops the kernel owns
/// except the innermost one (row-major); for kernels' plain fallbacks.
template <class F>
constexpr void for_each_owned_row(const nest& n, F&& f) {
  const int owned = n.owned_loops() < n.nloops ? n.owned_loops() : n.nloops;
  const int first = n.nloops - owned, last = n.nloops - 1;  // loops [first, last) are walked
  dim index[max_loops] = {};
  for (int k = first; k < last; ++k)
    if (n.loops[k].extent <= 0) return;
  for (;;) {
    dim s = 0, d = 0, c = 0;
    for (int k = first; k < last; ++k) {
      s += index[k] * n.loops[k].src_stride;
      d += index[k] * n.loops[k].dst_stride;
      c += index[k] * n.loops[k].scale_stride;
    }
    f(s, d, c);
    int k = last - 1;
    for (; k >= first; --k) {
      if (++index[k] < n.loops[k].extent) break;
      index[k] = 0;
    }
    if (k < first) return;
  }
}

/// Walks the outer loops of a nest in row-major order and tracks the offsets
/// of the current iteration. Plain code shared by every target.
struct outer_cursor {
  int nouter = 0;
  dim index[max_loops] = {};
  dim src = 0, dst = 0, scale = 0;  ///< offsets (elements) of the current iteration
  const loop* loops = nullptr;

  /// Positions the cursor at linear outer iteration `linear`.
  /// @pre 0 <= linear < n.outer_count()
  constexpr outer_cursor(const nest& n, dim linear) : loops(n.loops) {
    nouter = n.nloops - n.owned_loops();
    if (nouter < 0) nouter = 0;
    for (int k = nouter - 1; k >= 0; --k) {
      const dim e = loops[k].extent;
      index[k] = linear % e;
      linear /= e;
      src += index[k] * loops[k].src_stride;
      dst += index[k] * loops[k].dst_stride;
      scale += index[k] * loops[k].scale_stride;
    }
  }

  /// Moves to the next outer iteration (an odometer step; wraps after the last).
#if defined(__GNUC__)
  __attribute__((always_inline))
#endif
  constexpr void next() {
    for (int k = nouter - 1; k >= 0; --k) {
      const loop& l = loops[k];
      if (++index[k] < l.extent) {
        src += l.src_stride;
        dst += l.dst_stride;
        scale += l.scale_stride;
        return;
      }
      index[k] = 0;
      src -= (l.extent - 1) * l.src_stride;
      dst -= (l.extent - 1) * l.dst_stride;
      scale -= (l.extent - 1) * l.scale_stride;
    }
  }

  /// Moves `count` outer iterations on, the innermost outer loop's last one at most.
  /// @pre nouter > 0, 0 < count <= loops[nouter - 1].extent - index[nouter - 1]
  constexpr void skip(dim count) {
    const loop& l = loops[nouter - 1];
    index[nouter - 1] += count - 1;
    src += (count - 1) * l.src_stride;
    dst += (count - 1) * l.dst_stride;
    scale += (count - 1) * l.scale_stride;
    next();
  }
};

}  // namespace memfmt::detail
