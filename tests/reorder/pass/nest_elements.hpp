// Every element a nest visits, by brute force: for the tests of the planner's passes,
// which compare the offsets a nest visits before and after a pass. And nests written
// out by hand, loop by loop, printable in the tests' messages.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <ostream>
#include <tuple>
#include <vector>

#include "memfmt/reorder/kernel/nest.hpp"

namespace memfmt::detail {

// extent(source stride, destination stride, scale stride), as plans print a loop
inline std::ostream& operator<<(std::ostream& os, const loop& l) {
  return os << l.extent << "(" << l.src_stride << "," << l.dst_stride << "," << l.scale_stride << ")";
}

}  // namespace memfmt::detail

namespace memfmt_test {

// A nest of `kind` with `loops`, outermost first.
inline memfmt::detail::nest make_nest(memfmt::detail::kernel_kind kind, std::initializer_list<memfmt::detail::loop> loops,
                                      int column_loops = 1) {
  memfmt::detail::nest n;
  n.kind = kind;
  n.column_loops = column_loops;
  for (const memfmt::detail::loop& l : loops) n.loops[n.nloops++] = l;
  return n;
}

// The loops of `n`, outermost first.
inline std::vector<memfmt::detail::loop> loops_of(const memfmt::detail::nest& n) {
  return {n.loops, n.loops + n.nloops};
}

using offsets = std::tuple<memfmt::dim, memfmt::dim, memfmt::dim>;  // src, dst, scale

// The offsets of every element of the outer iterations [begin, end) of `n`, in visiting order.
inline std::vector<offsets> elements(const memfmt::detail::nest& n, memfmt::dim begin, memfmt::dim end) {
  using memfmt::dim;
  const int outer_loops = n.nloops - n.owned_loops();
  dim inner_count = 1;  // elements per outer iteration
  for (int k = outer_loops; k < n.nloops; ++k) inner_count *= n.loops[k].extent;
  std::vector<offsets> out;
  for (int k = 0; k < n.nloops; ++k)
    if (n.loops[k].extent <= 0) return out;  // (an empty nest visits nothing)
  out.reserve(static_cast<std::size_t>(std::max<dim>(end - begin, 0) * inner_count));
  for (dim it = begin; it < end; ++it) {
    dim index[memfmt::detail::max_loops] = {};
    for (dim rest = it, k = outer_loops - 1; k >= 0; --k) {
      index[k] = rest % n.loops[k].extent;
      rest /= n.loops[k].extent;
    }
    dim s = 0, d = 0, c = 0;
    for (int k = 0; k < n.nloops; ++k) {
      s += index[k] * n.loops[k].src_stride;
      d += index[k] * n.loops[k].dst_stride;
      c += index[k] * n.loops[k].scale_stride;
    }
    // the owned loops as an odometer: a step adds a loop's strides, a wrap takes its whole run back
    for (;;) {
      out.emplace_back(s, d, c);
      int k = n.nloops - 1;
      for (; k >= outer_loops; --k) {
        const memfmt::detail::loop& l = n.loops[k];
        if (++index[k] < l.extent) {
          s += l.src_stride, d += l.dst_stride, c += l.scale_stride;
          break;
        }
        index[k] = 0;
        s -= (l.extent - 1) * l.src_stride, d -= (l.extent - 1) * l.dst_stride, c -= (l.extent - 1) * l.scale_stride;
      }
      if (k < outer_loops) break;
    }
  }
  return out;
}

// Every element of `n` in one order that depends only on the set of elements: by
// destination offset, then source, then scale. What a pass that reorders or regroups
// loops keeps. (A counting sort on the destination offset where those are dense, as a
// reorder's are: linear, for the tests' nests of millions of elements.)
inline std::vector<offsets> sorted_elements(const memfmt::detail::nest& n) {
  using memfmt::dim;
  std::vector<offsets> all = elements(n, 0, n.outer_count());
  const auto by_dst = [](const offsets& a, const offsets& b) {
    return std::tie(std::get<1>(a), std::get<0>(a), std::get<2>(a)) < std::tie(std::get<1>(b), std::get<0>(b), std::get<2>(b));
  };
  if (all.empty()) return all;
  const auto [lo, hi] = std::minmax_element(all.begin(), all.end(),
                                            [](const offsets& a, const offsets& b) { return std::get<1>(a) < std::get<1>(b); });
  const dim low = std::get<1>(*lo), range = std::get<1>(*hi) - low + 1;
  if (range > 2 * static_cast<dim>(all.size()) + 1024) {  // sparse: sort
    std::sort(all.begin(), all.end(), by_dst);
    return all;
  }
  // end[k]: where the elements of destination offset low + k end, once counted and summed;
  // filled from the back, each ends up at the start of its own
  std::vector<std::size_t> end(static_cast<std::size_t>(range), 0);
  for (const offsets& o : all) ++end[static_cast<std::size_t>(std::get<1>(o) - low)];
  for (std::size_t k = 1; k < end.size(); ++k) end[k] += end[k - 1];
  std::vector<offsets> sorted(all.size());
  for (auto o = all.rbegin(); o != all.rend(); ++o) sorted[--end[static_cast<std::size_t>(std::get<1>(*o) - low)]] = *o;
  all = {};
  for (std::size_t k = 0; k < end.size(); ++k) {  // the elements that share a destination offset
    const std::size_t first = end[k], last = k + 1 < end.size() ? end[k + 1] : sorted.size();
    if (last - first > 1)
      std::sort(sorted.begin() + static_cast<std::ptrdiff_t>(first), sorted.begin() + static_cast<std::ptrdiff_t>(last), by_dst);
  }
  return sorted;
}

}  // namespace memfmt_test
