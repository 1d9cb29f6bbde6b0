// The kernel kinds' contracts (memfmt/reorder/kernel/nest.hpp, meets_contract): for
// each kind a nest that holds it and nests that break it in one way each, derived by
// hand from the contract's statement. (That a broken nest still runs correctly, as
// strided rows, is kernel_test's "a kind whose stride contract does not hold".)
#include <catch2/catch.hpp>

#include <cstdint>
#include <initializer_list>

#include "memfmt/reorder/kernel/nest.hpp"

using memfmt::data_type;
using memfmt::detail::kernel_kind;
using memfmt::detail::loop;
using memfmt::detail::meets_contract;
using memfmt::detail::nest;

namespace {

nest make(kernel_kind kind, std::initializer_list<loop> loops) {
  nest n;
  n.kind = kind;
  for (const loop& l : loops) n.loops[n.nloops++] = l;
  n.cvt.src = n.cvt.dst = data_type::f32;
  return n;
}

}  // namespace

TEST_CASE("copy: the innermost loop contiguous in both buffers", "[nest]") {
  CHECK(meets_contract(make(kernel_kind::copy, {{3, 64, 80}, {64, 1, 1}})));
  CHECK_FALSE(meets_contract(make(kernel_kind::copy, {{3, 64, 80}, {64, 1, 2}})));
  CHECK_FALSE(meets_contract(make(kernel_kind::copy, {{3, 64, 80}, {64, 2, 1}})));
  CHECK_FALSE(meets_contract(make(kernel_kind::copy, {})));  // one element, no loop: strided
}

TEST_CASE("transpose: J dense in dst, I dense in src, a third loop continuing I in src", "[nest]") {
  // nchw -> nhwc, 16 channels of 8 x 8: J = channels (src 64, dst 1), I = pixels (src 1, dst 16)
  const nest plain = make(kernel_kind::transpose, {{16, 64, 1}, {64, 1, 16}});
  CHECK(meets_contract(plain));
  CHECK_FALSE(meets_contract(make(kernel_kind::transpose, {{16, 64, 2}, {64, 1, 16}})));
  CHECK_FALSE(meets_contract(make(kernel_kind::transpose, {{16, 64, 1}, {64, 2, 16}})));
  CHECK_FALSE(meets_contract(make(kernel_kind::transpose, {{64, 1, 16}})));  // one loop

  // columns over two loops: C (src stride 8 = I's extent) continues I in src
  nest folded = make(kernel_kind::transpose, {{8, 8, 256}, {16, 64, 1}, {8, 1, 16}});
  folded.column_loops = 2;
  CHECK(meets_contract(folded));
  folded.loops[0].src_stride = 9;  // not I's continuation
  CHECK_FALSE(meets_contract(folded));
  folded.loops[0].src_stride = 8;
  folded.loops[2].scale_stride = 1;  // the scales must continue too: C's would be 8
  CHECK_FALSE(meets_contract(folded));
  folded.loops[0].scale_stride = 8;
  CHECK(meets_contract(folded));
  // the same loops with one column loop: the outer loop is not owned, nothing to continue
  folded.column_loops = 1;
  folded.loops[0].src_stride = 9;
  CHECK(meets_contract(folded));
}

TEST_CASE("gather: its tables and 1 to nloops block loops", "[nest]") {
  static const std::int32_t offsets[4] = {0, 3, 1, 2};
  nest n = make(kernel_kind::gather, {{5, 4, 4}, {4, 1, 1}});
  n.gather_src = offsets;
  n.gather_loops = 1;
  CHECK(meets_contract(n));
  n.gather_loops = 2;
  CHECK(meets_contract(n));
  n.gather_loops = 3;
  CHECK_FALSE(meets_contract(n));
  n.gather_loops = 0;
  CHECK_FALSE(meets_contract(n));
  n.gather_loops = 1;
  n.gather_src = nullptr;
  CHECK_FALSE(meets_contract(n));
}

TEST_CASE("interleave: a block map_interleave takes, and no sum", "[nest]") {
  // 16o4i: o (16, dst stride 4), r = 4 input channels (src 1, dst 1); 9 such blocks
  nest n = make(kernel_kind::interleave, {{9, 64, 64}, {16, 4, 4}, {4, 1, 1}});
  n.gather_loops = 2;
  CHECK(meets_contract(n));
  n.cvt.beta = 0.5f;  // a sum reads the destination, which the kernel's buffer is not
  CHECK_FALSE(meets_contract(n));
  n.cvt.beta = 0.f;
  n.gather_loops = 4;  // more block loops than the nest has
  CHECK_FALSE(meets_contract(n));
  n.gather_loops = 1;  // no o and r
  CHECK_FALSE(meets_contract(n));
  n.gather_loops = 2;
  n.loops[2].extent = 5;  // r of 5: at most 4
  CHECK_FALSE(meets_contract(n));
}

TEST_CASE("zero fill and strided: any nest", "[nest]") {
  for (const kernel_kind k : {kernel_kind::zero_fill, kernel_kind::strided}) {
    CHECK(meets_contract(make(k, {{7, 3, 5}, {2, 11, 13}})));
    CHECK(meets_contract(make(k, {})));
  }
}

TEST_CASE("tile: at most tile_rows_max rows (zeros after them included), 3 column loops", "[nest]") {
  // an outer loop, rows of 16 x 16, columns 9
  nest n = make(kernel_kind::tile, {{4, 2304, 2304}, {16, 144, 16}, {16, 9, 1}, {9, 1, 256}});
  n.tile_row_loops = 2;
  CHECK(meets_contract(n));
  n.zero_tail = 1;  // 16 x 17 rows
  CHECK_FALSE(meets_contract(n));
  n.zero_tail = 0;
  n.tile_row_loops = 3;  // 4 x 16 x 16
  CHECK_FALSE(meets_contract(n));
  n.tile_row_loops = 0;
  n.tile_column_loops = 4;
  CHECK_FALSE(meets_contract(n));
  n.tile_column_loops = 5;  // more loops than the nest has
  CHECK_FALSE(meets_contract(n));
}
