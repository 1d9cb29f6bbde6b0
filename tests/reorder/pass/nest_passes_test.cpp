// The passes of one nest in order (memfmt/reorder/pass/nest_passes.hpp): what plan_nest
// makes of lowered nests, by brute force over every element they visit, and the
// settings that keep a nest's loops or its conversion in one pass.
#include <catch2/catch.hpp>

#include <vector>

#include "memfmt/desc/desc.hpp"
#include "memfmt/reorder/lower.hpp"
#include "memfmt/reorder/pass/nest_passes.hpp"
#include "nest_elements.hpp"

using memfmt::data_type;
using memfmt::desc;
using memfmt::dim;
using memfmt::dims;
using memfmt::detail::kernel_kind;
using memfmt::detail::placed_nest;
using memfmt::detail::reorder_setting;

namespace {

std::vector<placed_nest> lowered(const desc& src, const desc& dst) {
  std::vector<placed_nest> nests;
  REQUIRE(memfmt::detail::lower(src, dst, dims::filled(src.get_ndims(), 0), nests));
  return nests;
}

reorder_setting setting(data_type s, data_type d, dim threads) {
  reorder_setting r;
  r.cvt.src = s;
  r.cvt.dst = d;
  r.converts = s != d;
  r.may_stage = true;
  r.threads = threads;
  r.src_size = static_cast<dim>(memfmt::data_type_size(s));
  r.dst_size = static_cast<dim>(memfmt::data_type_size(d));
  return r;
}

}  // namespace

TEST_CASE("plan_nest: a plain copy of weights into OIhw4i16o4i becomes tiles, cut for threads, every element visited once as before",
          "[pass]") {
  const desc src({64, 35, 3, 3}, data_type::f32, "oihw"), dst({64, 35, 3, 3}, data_type::f32, "OIhw4i16o4i");
  for (const dim threads : {1, 2, 3}) {
    INFO("threads " << threads);
    std::vector<placed_nest> out;
    for (const placed_nest& p : lowered(src, dst)) {
      const std::vector<memfmt_test::offsets> before = memfmt_test::sorted_elements(p.loops);
      std::vector<placed_nest> one;
      memfmt::detail::plan_nest(p, false, setting(data_type::f32, data_type::f32, threads), one);
      REQUIRE(one.size() == 1);
      CHECK(memfmt_test::sorted_elements(one[0].loops) == before);
      CHECK(one[0].loops.cvt.src == data_type::f32);
      out.push_back(one[0]);
    }
    // (rows of 4 input and 4 output channels: tiles for the full blocks)
    bool tiles = false;
    for (const placed_nest& p : out) tiles = tiles || p.loops.kind == kernel_kind::tile;
    CHECK(tiles);
  }
}

TEST_CASE("plan_nest: a fused nest keeps its loops; a conversion stages only where it may", "[pass]") {
  const desc src({8, 32, 6, 5}, data_type::f32, "nchw"), dst({8, 32, 6, 5}, data_type::bf16, "nChw16c");
  const std::vector<placed_nest> nests = lowered(src, dst);
  REQUIRE(nests.size() == 1);
  reorder_setting s = setting(data_type::f32, data_type::bf16, 1);

  std::vector<placed_nest> fused;
  memfmt::detail::plan_nest(nests[0], true, s, fused);
  REQUIRE(fused.size() == 1);
  CHECK(memfmt_test::loops_of(fused[0].loops) == memfmt_test::loops_of(nests[0].loops));
  CHECK(fused[0].loops.cvt.dst == data_type::bf16);

  s.may_stage = false;
  std::vector<placed_nest> one;
  memfmt::detail::plan_nest(nests[0], false, s, one);
  REQUIRE(one.size() == 1);
  CHECK(one[0].staged == memfmt::detail::stage::none);
  CHECK(memfmt_test::sorted_elements(one[0].loops) == memfmt_test::sorted_elements(nests[0].loops));
}
