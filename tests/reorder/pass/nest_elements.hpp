// Every element a nest visits, by brute force: for the tests of the planner's passes,
// which compare the offsets a nest visits before and after a pass. And nests written
// out by hand, loop by loop, printable in the tests' messages.
#pragma once

#include <algorithm>
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
  std::vector<offsets> out;
  for (dim it = begin; it < end; ++it) {
    dim index[memfmt::detail::max_loops] = {};
    for (dim rest = it, k = outer_loops - 1; k >= 0; --k) {
      index[k] = rest % n.loops[k].extent;
      rest /= n.loops[k].extent;
    }
    for (;;) {
      dim s = 0, d = 0, c = 0;
      for (int k = 0; k < n.nloops; ++k) {
        s += index[k] * n.loops[k].src_stride;
        d += index[k] * n.loops[k].dst_stride;
        c += index[k] * n.loops[k].scale_stride;
      }
      out.emplace_back(s, d, c);
      int k = n.nloops - 1;
      for (; k >= outer_loops; --k) {
        if (++index[k] < n.loops[k].extent) break;
        index[k] = 0;
      }
      if (k < outer_loops) break;
    }
  }
  return out;
}

// Every element of `n`, sorted: what a pass that reorders or regroups loops keeps.
inline std::vector<offsets> sorted_elements(const memfmt::detail::nest& n) {
  std::vector<offsets> all = elements(n, 0, n.outer_count());
  std::sort(all.begin(), all.end());
  return all;
}

}  // namespace memfmt_test
