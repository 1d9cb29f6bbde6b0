// Padding written with the data (memfmt/reorder/pass/zero_tails.hpp): a zero fill that
// continues a copy's destination runs becomes the copy's zero tail, and only such a fill.
#include <catch2/catch.hpp>

#include <vector>

#include "memfmt/reorder/pass/zero_tails.hpp"
#include "nest_elements.hpp"

using memfmt::dim;
using memfmt::detail::kernel_kind;
using memfmt::detail::loop;
using memfmt::detail::placed_nest;
using memfmt_test::loops_of;
using memfmt_test::make_nest;

namespace {

placed_nest placed(kernel_kind kind, std::initializer_list<loop> loops, dim src_base, dim dst_base) {
  placed_nest p;
  p.loops = make_nest(kind, loops);
  p.src_base = src_base;
  p.dst_base = dst_base;
  return p;
}

}  // namespace

TEST_CASE("the padding of a partial block joins the copy whose runs it continues (nhwc -> nChw16c, 3 channels)",
          "[pass][zero_tails]") {
  // 64 pixels: runs of 3 channels 16 apart, then 13 zeros after each
  std::vector<placed_nest> nests{placed(kernel_kind::copy, {{64, 3, 16}, {3, 1, 1}}, 0, 0),
                                 placed(kernel_kind::zero_fill, {{64, 0, 16}, {13, 0, 1}}, 0, 3)};
  memfmt::detail::merge_zero_tails(nests);
  REQUIRE(nests.size() == 1);
  CHECK(nests[0].loops.kind == kernel_kind::copy);
  CHECK(nests[0].loops.zero_tail == 13);
  CHECK(loops_of(nests[0].loops) == std::vector<loop>{{64, 3, 16}, {3, 1, 1}});
  // the fill first in the plan: the same
  std::vector<placed_nest> reversed{placed(kernel_kind::zero_fill, {{64, 0, 16}, {13, 0, 1}}, 0, 3),
                                    placed(kernel_kind::copy, {{64, 3, 16}, {3, 1, 1}}, 0, 0)};
  memfmt::detail::merge_zero_tails(reversed);
  REQUIRE(reversed.size() == 1);
  CHECK(reversed[0].loops.zero_tail == 13);
}

TEST_CASE("rows of one element become a copy of one-element rows, each followed by its zeros (1 channel of 16)",
          "[pass][zero_tails]") {
  std::vector<placed_nest> nests{placed(kernel_kind::strided, {{64, 1, 16}}, 0, 0),
                                 placed(kernel_kind::zero_fill, {{64, 0, 16}, {15, 0, 1}}, 0, 1)};
  memfmt::detail::merge_zero_tails(nests);
  REQUIRE(nests.size() == 1);
  CHECK(nests[0].loops.kind == kernel_kind::copy);
  CHECK(nests[0].loops.zero_tail == 15);
  CHECK(loops_of(nests[0].loops) == std::vector<loop>{{64, 1, 16}, {1, 1, 1}});
}

TEST_CASE("a fill that does not continue a copy's runs stays a fill", "[pass][zero_tails]") {
  const placed_nest copy = placed(kernel_kind::copy, {{64, 3, 16}, {3, 1, 1}}, 0, 0);
  // one element after the runs; over half the pixels; runs 32 apart
  for (const placed_nest& fill : {placed(kernel_kind::zero_fill, {{64, 0, 16}, {12, 0, 1}}, 0, 4),
                                  placed(kernel_kind::zero_fill, {{32, 0, 16}, {13, 0, 1}}, 0, 3),
                                  placed(kernel_kind::zero_fill, {{64, 0, 32}, {13, 0, 1}}, 0, 3)}) {
    std::vector<placed_nest> nests{copy, fill};
    memfmt::detail::merge_zero_tails(nests);
    CHECK(nests.size() == 2);
    CHECK(nests[0].loops.zero_tail == 0);
  }
  // a copy that has its zeros already takes no more
  placed_nest full = copy;
  full.loops.zero_tail = 13;
  std::vector<placed_nest> nests{full, placed(kernel_kind::zero_fill, {{64, 0, 16}, {13, 0, 1}}, 0, 3)};
  memfmt::detail::merge_zero_tails(nests);
  CHECK(nests.size() == 2);
}
