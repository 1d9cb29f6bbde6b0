#pragma once
/// @file
/// The first pass of lowering: each logical dim cut into the pieces that the blockings of
/// source and destination both respect (`cut_dim`), and a range of its indices into
/// boxes of those pieces (`decompose`). A box of every dim is a nest of loops.

#include <algorithm>
#include <array>
#include <cstddef>
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

/// Cuts dim `d` into pieces that both layouts respect, and groups of `group` indices
/// that share a scale (`scale_stride` apart from group to group: pieces within a group
/// have a scale stride of 0); false when their blocks do not nest (e.g. 3 and 4), which
/// needs the element-wise path, or the group does not nest with them.
inline bool cut_dim(const desc& src, const blocking& src_blocking, const desc& dst, const blocking& dst_blocking, int d,
                    dim scale_stride, dim_pieces& out, dim group = 1) {
  const dim_levels s = levels_of(src, src_blocking, d), t = levels_of(dst, dst_blocking, d);
  std::array<dim, 2 * (max_ndims + 1) + 1> bounds;  // no allocation: plans are built often
  std::size_t nbounds = 0;
  for (int l = 0; l <= s.count; ++l) bounds[nbounds++] = s.bound[static_cast<std::size_t>(l)];
  for (int l = 0; l <= t.count; ++l) bounds[nbounds++] = t.bound[static_cast<std::size_t>(l)];
  bounds[nbounds++] = group;
  std::sort(bounds.begin(), bounds.begin() + static_cast<std::ptrdiff_t>(nbounds));
  nbounds = static_cast<std::size_t>(std::unique(bounds.begin(), bounds.begin() + static_cast<std::ptrdiff_t>(nbounds)) -
                                     bounds.begin());
  for (std::size_t k = 1; k < nbounds; ++k)
    if (bounds[k] % bounds[k - 1] != 0) return false;
  // pieces outermost first: the outer one, then one per pair of consecutive bounds
  const int inner = static_cast<int>(nbounds) - 1;
  if (nbounds > out.pieces.size()) return false;
  out.count = inner + 1;
  for (int p = 0; p < out.count; ++p) {
    const int level = inner - p;  // index into bounds of this piece's weight
    piece& pc = out.pieces[static_cast<std::size_t>(p)];
    pc.weight = bounds[static_cast<std::size_t>(level)];
    pc.extent = p == 0 ? 0 : bounds[static_cast<std::size_t>(level + 1)] / pc.weight;
    pc.src_stride = stride_of(s, pc.weight);
    pc.dst_stride = stride_of(t, pc.weight);
    pc.scale_stride = pc.weight >= group ? scale_stride * (pc.weight / group) : 0;
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

}  // namespace memfmt::detail
