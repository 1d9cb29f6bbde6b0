#pragma once
/// @file
/// Lowering a reorder to loop nests, the planner's first passes in order: each logical
/// dim cut into pieces and its valid region and padding into boxes (pass/cut.hpp); a
/// box of every dim becomes a nest of loops (extent, source stride, destination
/// stride, scale stride), simplified for a kernel (pass/simplify.hpp); padding joins
/// the copies it follows (pass/zero_tails.hpp) and copies of the same source rows run
/// together (pass/fuse.hpp). reorder.hpp runs the later passes on each nest: staging
/// (pass/stage.hpp), tiles (pass/tiles.hpp), threads (pass/threads.hpp).

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "memfmt/core/dims.hpp"
#include "memfmt/desc/desc.hpp"
#include "memfmt/reorder/kernel/nest.hpp"
#include "memfmt/reorder/pass/cut.hpp"
#include "memfmt/reorder/pass/fuse.hpp"
#include "memfmt/reorder/pass/simplify.hpp"
#include "memfmt/reorder/pass/split.hpp"
#include "memfmt/reorder/pass/zero_tails.hpp"
#include "memfmt/reorder/placed_nest.hpp"

namespace memfmt::detail {

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

/// Lowers src -> dst into nests: the copies of the valid region, then the zero fills of
/// the destination's padding (folded into the copies where they continue their rows,
/// unless `zero_tails` is false). Returns false when the blockings do not nest.
/// `parts` > 1 splits every element into that many units (pass/split.hpp) where the
/// nests have room for the loop it adds (then every nest's `parts` says so).
/// `scale_groups[d]` (none: 1) consecutive indices of dim d share a scale; false also
/// when such a group does not nest with the blockings.
/// @pre same dims, both blocked; `scale_strides[d]` is the stride of d's groups in the
///      scale array, row-major (0 for dims the scales do not vary over); `parts` divides
///      the destination element's bytes; each group divides its dim
inline bool lower(const desc& src, const desc& dst, const dims& scale_strides, std::vector<placed_nest>& out,
                  bool zero_tails = true, dim parts = 1, const dims& scale_groups = {}) {
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
    const dim group = scale_groups.empty() ? 1 : scale_groups[d];
    if (!cut_dim(src, src_blocking, dst, dst_blocking, d, scale_strides[d], cut, group)) return false;
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
  // every nest has a loop per piece of every dim before simplify
  int raw_loops = 0;
  for (int d = 0; d < n; ++d) raw_loops += cuts[static_cast<std::size_t>(d)].count;
  if (raw_loops > max_loops) return false;  // (a group's boundary can add one loop per dim)
  if (raw_loops >= max_loops) parts = 1;
  const auto dst_bytes = static_cast<dim>(data_type_size(dst.get_data_type())) / parts;
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
    if (parts > 1) split_elements(p, parts, zero_fill);
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
