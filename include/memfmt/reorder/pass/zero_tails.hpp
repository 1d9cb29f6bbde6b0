#pragma once
/// @file
/// Padding written with the data (`merge_zero_tails`): the zero fill of a partial
/// block's padding folded into the copy whose destination runs it continues.

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>
#include <vector>

#include "memfmt/reorder/kernel/nest.hpp"
#include "memfmt/reorder/placed_nest.hpp"

namespace memfmt::detail {

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

}  // namespace memfmt::detail
