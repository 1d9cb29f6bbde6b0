// Every element a nest visits, by brute force: for the tests of the planner's passes
// (lower_test, stage_test), which compare the offsets a nest visits before and after.
#pragma once

#include <tuple>
#include <vector>

#include "memfmt/reorder/kernel/nest.hpp"

namespace memfmt_test {

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

}  // namespace memfmt_test
