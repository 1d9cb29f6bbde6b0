// Simplifying a nest for a kernel (memfmt/reorder/pass/simplify.hpp): worked examples,
// each nest written out as lowering gives it and checked loop by loop and kind by kind
// after the pass; and, for all of them, the same elements at the same offsets.
#include <catch2/catch.hpp>

#include <vector>

#include "memfmt/reorder/pass/simplify.hpp"
#include "nest_elements.hpp"

using memfmt::dim;
using memfmt::detail::kernel_kind;
using memfmt::detail::loop;
using memfmt::detail::nest;
using memfmt_test::loops_of;
using memfmt_test::make_nest;
using memfmt_test::sorted_elements;

namespace {

// `n` simplified for destination elements of `dst_bytes`, after checking that it visits
// the same elements at the same offsets as before.
nest simplified(const nest& n, dim dst_bytes = 4, bool zero_fill = false) {
  nest s = n;
  memfmt::detail::simplify(s, zero_fill, dst_bytes);
  CHECK(sorted_elements(s) == sorted_elements(n));
  return s;
}

}  // namespace

TEST_CASE("unit loops drop out and loops contiguous on both sides fold: nchw -> nchw is one row", "[pass][simplify]") {
  // 2 x 3 x 4 x 5, and a unit loop lowering may leave
  const nest s = simplified(make_nest(kernel_kind::strided, {{2, 60, 60}, {1, 7, 9}, {3, 20, 20}, {4, 5, 5}, {5, 1, 1}}));
  CHECK(s.kind == kernel_kind::copy);
  CHECK(loops_of(s) == std::vector<loop>{{120, 1, 1}});
  // nothing but unit loops: one element
  const nest one = simplified(make_nest(kernel_kind::strided, {{1, 5, 5}, {1, 1, 1}}));
  CHECK(one.kind == kernel_kind::copy);
  CHECK(loops_of(one) == std::vector<loop>{{1, 1, 1}});
}

TEST_CASE("loops go in the order of their destination strides; a run of the source becomes the columns of a transpose",
          "[pass][simplify]") {
  // nchw -> nhwc, 32 channels x 64 pixels: c (source 64 apart, destination 1), hw (1, 32)
  const nest s = simplified(make_nest(kernel_kind::strided, {{32, 64, 1}, {64, 1, 32}}));
  CHECK(s.kind == kernel_kind::transpose);
  CHECK(s.column_loops == 1);
  // rows: c, the destination's run; columns: hw, the source's
  CHECK(loops_of(s) == std::vector<loop>{{32, 64, 1}, {64, 1, 32}});
  // the same loops given the other way round: the same nest
  const nest t = simplified(make_nest(kernel_kind::strided, {{64, 1, 32}, {32, 64, 1}}));
  CHECK(loops_of(t) == loops_of(s));
}

TEST_CASE("few columns take in the loop around them that continues them in the source (oihw -> hwio)",
          "[pass][simplify]") {
  // 32 x 32 x 3 x 3: o (288, 1), i (9, 32), hw (1, 1024). The 9 columns of hw are
  // continued in the source by i: columns over two loops, i outermost.
  const nest s = simplified(make_nest(kernel_kind::strided, {{32, 288, 1}, {32, 9, 32}, {9, 1, 1024}}));
  CHECK(s.kind == kernel_kind::transpose);
  CHECK(s.column_loops == 2);
  CHECK(loops_of(s) == std::vector<loop>{{32, 9, 32}, {32, 288, 1}, {9, 1, 1024}});
}

TEST_CASE("a transpose whose tile would be narrower than 4 gathers by table, but for long rows of packed source "
          "columns; zero fills stay zero fills",
          "[pass][simplify]") {
  // 2 channels blocked (aBcd2b) -> nchw, 32 pixels: tiles of 2 x 32
  const nest s = simplified(make_nest(kernel_kind::strided, {{2, 1, 32}, {32, 2, 1}}));
  CHECK(s.kind == kernel_kind::gather);
  CHECK(s.gather_loops == 2);  // the whole nest is one block of 64 elements
  CHECK(loops_of(s) == std::vector<loop>{{2, 1, 32}, {32, 2, 1}});
  // with 64 pixels, rows long enough for interleaved loads of the 2 packed channels
  const nest t = simplified(make_nest(kernel_kind::strided, {{2, 1, 64}, {64, 2, 1}}));
  CHECK(t.kind == kernel_kind::transpose);
  CHECK(loops_of(t) == std::vector<loop>{{64, 2, 1}, {2, 1, 64}});
  // ... but not where the 2 channels are 3 apart (not packed): a gather
  CHECK(simplified(make_nest(kernel_kind::strided, {{2, 1, 64}, {64, 3, 1}})).kind == kernel_kind::gather);
  // nor where the destination's side is the packed one (nchw -> aBcd2b goes by table)
  CHECK(simplified(make_nest(kernel_kind::strided, {{2, 64, 1}, {64, 1, 2}})).kind == kernel_kind::gather);
  // with 4 channels the tile is 4 wide: a transpose
  CHECK(simplified(make_nest(kernel_kind::strided, {{4, 1, 64}, {64, 4, 1}})).kind == kernel_kind::transpose);
  // a zero fill (source strides 0) folds like a copy and stays a fill
  const nest z = simplified(make_nest(kernel_kind::strided, {{3, 0, 16}, {13, 0, 1}}), 4, true);
  CHECK(z.kind == kernel_kind::zero_fill);
  CHECK(loops_of(z) == std::vector<loop>{{3, 0, 16}, {13, 0, 1}});
}

TEST_CASE("short rows whose source rows the loop around them steps within go across it (nhwc -> nChw8c)",
          "[pass][simplify]") {
  // 32 channels x 1024 pixels, f32: c blocks (8, 8192), hw (32, 8), c in a block (1, 1):
  // rows of 32 bytes, 4 blocks: the blocks move inside the pixels, each source row read
  // once for all 4 of its blocks
  const nest s = simplified(make_nest(kernel_kind::strided, {{4, 8, 8192}, {1024, 32, 8}, {8, 1, 1}}));
  CHECK(s.kind == kernel_kind::copy);
  CHECK(loops_of(s) == std::vector<loop>{{1024, 32, 8}, {4, 8, 8192}, {8, 1, 1}});
  // 3136 pixels (56 x 56), more than a tile of 1024: tiles of 784 (2^4 x 7^2), the
  // blocks inside each tile
  const nest t = simplified(make_nest(kernel_kind::strided, {{4, 8, 25088}, {3136, 32, 8}, {8, 1, 1}}));
  CHECK(t.kind == kernel_kind::copy);
  CHECK(loops_of(t) == std::vector<loop>{{4, 32 * 784, 8 * 784}, {784, 32, 8}, {4, 8, 25088}, {8, 1, 1}});
  // rows of a whole line (16 f32): the blocks inside, whatever the length
  const nest l = simplified(make_nest(kernel_kind::strided, {{2, 16, 50176}, {3136, 32, 16}, {16, 1, 1}}));
  CHECK(loops_of(l) == std::vector<loop>{{3136, 32, 16}, {2, 16, 50176}, {16, 1, 1}});
}
