#pragma once
/// @file
/// Plain copies of 8-byte elements (f64) as pairs of 4-byte ones (`split_elements`): the
/// kernels move elements of 1, 2 and 4 bytes, and a bit-exact copy does not care how an
/// element's bytes are grouped, so an f64 nest becomes the f32 nest of twice the strides
/// with one more loop innermost, of 2, at stride 1 on both sides. Every copy, transpose
/// and tile of 4-byte elements then applies (the pair folds into contiguous rows, or
/// becomes a unit of 8 bytes of the tile kind).

#include "memfmt/reorder/kernel/nest.hpp"
#include "memfmt/reorder/placed_nest.hpp"

namespace memfmt::detail {

/// Splits each element of `p` into `parts` contiguous units: its source and destination
/// strides and offsets multiplied by `parts` (the scale strides stay: the units of an
/// element share its scale), and an innermost loop of `parts` units at stride 1 (source
/// stride 0 in a zero fill, which reads nothing). Records `parts` in `p.parts`.
/// @pre `p` as lowering builds it, before simplify, with fewer than max_loops loops
inline void split_elements(placed_nest& p, dim parts, bool zero_fill) {
  nest& n = p.loops;
  for (int i = 0; i < n.nloops; ++i) {
    n.loops[i].src_stride *= parts;
    n.loops[i].dst_stride *= parts;
  }
  n.loops[n.nloops++] = loop{parts, zero_fill ? 0 : 1, 1, 0};
  p.src_base *= parts;
  p.dst_base *= parts;
  p.parts = parts;
}

}  // namespace memfmt::detail
