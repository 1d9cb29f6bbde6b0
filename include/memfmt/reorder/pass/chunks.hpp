#pragma once
/// @file
/// Regions of one side that a plan can run one at a time (`find_chunks`): how a reorder
/// of s4 or u4 keeps its bytes in a scratch the size of the cache, not of the tensor.
/// The reorder on bytes runs a chunk's iterations, and the packed side's region of
/// them is unpacked before or packed after (reorder::plan_unpacked).

#include <algorithm>
#include <cstddef>

#include "memfmt/reorder/kernel/nest.hpp"
#include "memfmt/reorder/placed_nest.hpp"

namespace memfmt::detail {

/// Chunks of one side of a group of nests: fix the first `count - 1` of `loops` to one
/// iteration each and the last to `run` iterations (fewer at its end), and the group's
/// iterations there reach that side only in one contiguous region, disjoint from every
/// other chunk's, which starts at `sum(i[k] * stride[k])` over the chosen loops and
/// holds `iterations * stride[last]` elements.
/// Example: f32 `ab` 4096 x 4096 into u4 `BA16a64b4a` (dst side, a target of 65,536):
/// the loops over pairs of blocks of 64 columns and over the pair fixed, the loop over
/// 16 blocks of 16 rows in runs of 4: 256 regions of 65,536 elements.
struct side_chunks {
  int count = 0;                 ///< loops that pick a chunk; 0: the side has no chunks
  int loops[max_loops] = {};     ///< those loops (shared by the group), by decreasing stride
  dim strides[max_loops] = {};   ///< their strides on the side
  dim extents[max_loops] = {};   ///< their extents
  dim run = 1;                   ///< iterations of the last loop per chunk

  /// Elements of the largest region (what a thread's scratch holds).
  dim region() const { return count == 0 ? 0 : run * strides[count - 1]; }

  /// Chunks in all: each fixed loop's extent times the runs of the last.
  dim chunks() const {
    dim n = count == 0 ? 0 : (extents[count - 1] + run - 1) / run;
    for (int k = 0; k + 1 < count; ++k) n *= extents[k];
    return n;
  }
};

/// Whether a nest of a group reads (`dst_side` false) or writes that side of the plan, not
/// a stage's scratch or nothing.
inline bool reaches_side(const placed_nest& p, bool dst_side) {
  if (dst_side) return p.staged != stage::convert_to_scratch && p.staged != stage::move_to_scratch;
  return p.staged != stage::move_from_scratch && p.staged != stage::convert_from_scratch &&
         p.loops.kind != kernel_kind::zero_fill;
}

/// The chunks of a side of one group of nests (a nest alone, or the nests fused with the
/// first) whose regions hold at most `target` elements where the loops allow it, and
/// never more than `most` (a thread's scratch holds one), or none.
/// `span`: the side's elements (its regions stay inside). Regions start and end on even
/// elements (bytes of nibbles). With `cover`, the regions together are the whole span:
/// where the group writes every element of the side once, a chunk's iterations then
/// write every element of its region.
/// @pre the nests are planned (pass/fuse.hpp, pass/stage.hpp); `group` holds `size` nests
inline side_chunks find_chunks(const placed_nest* group, std::size_t size, bool dst_side, dim span, dim target, bool cover,
                               dim most) {
  side_chunks none;
  if (size == 0 || span <= 0) return none;
  const nest& first = group[0].loops;
  const int shared = size == 1 ? first.nloops - first.owned_loops() : group[1].fused_loops;
  const placed_nest* touching = nullptr;
  const auto stride = [dst_side](const loop& l) { return dst_side ? l.dst_stride : l.src_stride; };
  for (std::size_t k = 0; k < size; ++k) {
    const placed_nest& p = group[k];
    if (!reaches_side(p, dst_side)) continue;
    if ((dst_side ? p.dst_base : p.src_base) != 0 || p.parts != 1) return none;
    for (int l = 0; l < p.loops.nloops; ++l)
      if (stride(p.loops.loops[l]) < 0) return none;
    // (fused nests share their first loops: one set of strides for all)
    if (touching != nullptr)
      for (int l = 0; l < shared; ++l)
        if (stride(p.loops.loops[l]) != stride(touching->loops.loops[l])) return none;
    touching = &p;
  }
  if (touching == nullptr) return none;
  // the shared loops by decreasing stride on the side; a chunk fixes a prefix of them
  int order[max_loops];
  int candidates = 0;
  for (int l = 0; l < shared; ++l)
    if (touching->loops.loops[l].extent > 1 && stride(touching->loops.loops[l]) > 0) order[candidates++] = l;
  std::stable_sort(order, order + candidates, [&](int a, int b) {
    return stride(touching->loops.loops[a]) > stride(touching->loops.loops[b]);
  });
  // the farthest element the loops outside the prefix reach (plus the zeros that end a run)
  const auto reach = [&](const placed_nest& p, int fixed) {
    dim far = dst_side ? p.loops.zero_tail : 0;
    for (int l = 0; l < p.loops.nloops; ++l)
      if (std::find(order, order + fixed, l) == order + fixed) far += (p.loops.loops[l].extent - 1) * stride(p.loops.loops[l]);
    return far;
  };
  int chosen = 0;
  for (int j = 1; j <= candidates; ++j) {
    const dim s = stride(touching->loops.loops[order[j - 1]]);
    bool fits = s % 2 == 0;  // (regions of whole bytes)
    for (std::size_t k = 0; k < size && fits; ++k)
      if (reaches_side(group[k], dst_side)) fits = reach(group[k], j) < s;
    if (!fits) break;  // (regions nest: a longer prefix needs each shorter one to fit)
    chosen = j;
    if (s <= target) break;
  }
  if (chosen == 0) return none;
  side_chunks c;
  c.count = chosen;
  dim volume = 1, last = 0;  // the regions' elements in all, the farthest element + 1
  for (int k = 0; k < chosen; ++k) {
    const loop& l = touching->loops.loops[order[k]];
    c.loops[k] = order[k];
    c.strides[k] = stride(l);
    c.extents[k] = l.extent;
    volume *= l.extent;
    last += (l.extent - 1) * stride(l);
  }
  const dim s = c.strides[chosen - 1];
  volume *= s;
  last += s;
  if (last > span || (cover && volume != span) || s > most) return none;
  // each fixed loop's iterations, with all of their regions, within the step of the loop
  // outside it: regions that reach no further than the loops do can still overlap
  for (int k = 1; k < chosen; ++k)
    if (c.extents[k] * c.strides[k] > c.strides[k - 1]) return none;
  c.run = std::clamp<dim>(target / s, 1, c.extents[chosen - 1]);
  return c;
}

/// One chunk: the first iteration of each loop that picks it, the last loop's iterations,
/// and its region on the side.
struct chunk {
  dim start[max_loops] = {};
  dim iterations = 0;
  dim region = 0;    ///< the region's first element
  dim elements = 0;  ///< the region's elements
};

/// Chunk `q` of `c` (row-major over the fixed loops and the last loop's runs).
/// @pre 0 <= q < c.chunks()
inline chunk chunk_at(const side_chunks& c, dim q) {
  chunk k;
  const int last = c.count - 1;
  const dim runs = (c.extents[last] + c.run - 1) / c.run;
  k.start[last] = q % runs * c.run;
  for (int j = last - 1; j >= 0; --j) {
    q /= j == last - 1 ? runs : c.extents[j + 1];
    k.start[j] = q % c.extents[j];
  }
  k.iterations = std::min(c.run, c.extents[last] - k.start[last]);
  for (int j = 0; j <= last; ++j) k.region += k.start[j] * c.strides[j];
  k.elements = k.iterations * c.strides[last];
  return k;
}

/// A nest of the group cut to chunk `k`: the loops that pick chunks reduced to its
/// iterations, and the offsets of its first element added to `src`, `dst` and `scale`.
inline void cut_to_chunk(const side_chunks& c, const chunk& k, nest& n, dim& src, dim& dst, dim& scale) {
  for (int j = 0; j < c.count; ++j) {
    loop& l = n.loops[c.loops[j]];
    src += k.start[j] * l.src_stride;
    dst += k.start[j] * l.dst_stride;
    scale += k.start[j] * l.scale_stride;
    l.extent = j + 1 == c.count ? k.iterations : 1;
  }
}

}  // namespace memfmt::detail
