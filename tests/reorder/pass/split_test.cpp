// Plain f64 copies as pairs of 4-byte elements (memfmt/reorder/pass/split.hpp): the
// pass on a nest written out by hand; lowered f64 plans against the same layouts
// lowered as 4-byte elements with one more dim of 2 innermost; and, over plain and
// blocked layouts with padding, every unit of the split plan against the elements of
// the unsplit one.
#include <catch2/catch.hpp>

#include <algorithm>
#include <tuple>
#include <vector>

#include "memfmt/reorder/lower.hpp"
#include "memfmt/reorder/reorder.hpp"
#include "nest_elements.hpp"

using memfmt::data_type;
using memfmt::desc;
using memfmt::dim;
using memfmt::dims;
using memfmt::detail::kernel_kind;
using memfmt::detail::loop;
using memfmt::detail::placed_nest;
using memfmt_test::loops_of;
using memfmt_test::make_nest;

namespace {

std::vector<placed_nest> lowered(const desc& src, const desc& dst, dim parts, bool zero_tails = true) {
  std::vector<placed_nest> nests;
  REQUIRE(memfmt::detail::lower(src, dst, dims::filled(src.get_ndims(), 0), nests, zero_tails, parts));
  return nests;
}

using element = std::tuple<bool, dim, dim>;  // zero fill, src, dst (absolute offsets)

// Every element the nests visit, with their bases, sorted.
std::vector<element> visited(const std::vector<placed_nest>& nests) {
  std::vector<element> all;
  for (const placed_nest& p : nests) {
    const bool zeros = p.loops.kind == kernel_kind::zero_fill;
    for (const auto& [s, d, c] : memfmt_test::elements(p.loops, 0, p.loops.outer_count()))
      all.emplace_back(zeros, zeros ? 0 : p.src_base + s, p.dst_base + d);
  }
  std::sort(all.begin(), all.end());
  return all;
}

}  // namespace

TEST_CASE("an element splits into units: strides and offsets doubled, a loop of 2 innermost", "[pass][split]") {
  // f64 nchw -> nhwc, 3 channels x 20 pixels, as lowering gives it
  placed_nest p;
  p.loops = make_nest(kernel_kind::strided, {{3, 20, 1}, {20, 1, 3}});
  p.src_base = 5;
  p.dst_base = 7;
  memfmt::detail::split_elements(p, 2, false);
  CHECK(loops_of(p.loops) == std::vector<loop>{{3, 40, 2}, {20, 2, 6}, {2, 1, 1}});
  CHECK(p.src_base == 10);
  CHECK(p.dst_base == 14);
  CHECK(p.parts == 2);
  // a scale stride stays: the units of an element share its scale
  placed_nest q;
  q.loops = make_nest(kernel_kind::strided, {{4, 1, 4, 1}});
  memfmt::detail::split_elements(q, 2, false);
  CHECK(loops_of(q.loops) == std::vector<loop>{{4, 2, 8, 1}, {2, 1, 1, 0}});
  // a zero fill reads nothing: source stride 0
  placed_nest z;
  z.loops = make_nest(kernel_kind::strided, {{5, 0, 8}});
  memfmt::detail::split_elements(z, 2, true);
  CHECK(loops_of(z.loops) == std::vector<loop>{{5, 0, 16}, {2, 0, 1}});
}

TEST_CASE("a plain f64 plan is the plan of 4-byte elements with an innermost dim of 2", "[pass][split]") {
  const dims shape{2, 3, 4, 5}, wide{2, 3, 4, 5, 2};
  for (const auto& [from, to, from5, to5] :
       {std::tuple{"nchw", "nhwc", "abcde", "acdbe"}, std::tuple{"nhwc", "nchw", "acdbe", "abcde"},
        std::tuple{"nchw", "chwn", "abcde", "bcdae"}, std::tuple{"nchw", "nchw", "abcde", "abcde"}}) {
    INFO(from << " -> " << to);
    const std::vector<placed_nest> split = lowered(desc(shape, data_type::f64, from), desc(shape, data_type::f64, to), 2);
    const std::vector<placed_nest> pairs = lowered(desc(wide, data_type::f32, from5), desc(wide, data_type::f32, to5), 1);
    REQUIRE(split.size() == pairs.size());
    for (std::size_t k = 0; k < split.size(); ++k) {
      CHECK(split[k].parts == 2);
      CHECK(split[k].loops.kind == pairs[k].loops.kind);
      CHECK(loops_of(split[k].loops) == loops_of(pairs[k].loops));
      CHECK(split[k].src_base == pairs[k].src_base);
      CHECK(split[k].dst_base == pairs[k].dst_base);
    }
  }
}

TEST_CASE("split plans visit both units of every element and of every padding zero", "[pass][split]") {
  const dims acts{2, 3, 4, 5}, weights{20, 12, 3, 3};
  for (const auto& [shape, from, to] :
       {std::tuple{acts, "nchw", "nChw8c"}, std::tuple{acts, "nChw8c", "nchw"}, std::tuple{acts, "nhwc", "nChw16c"},
        std::tuple{weights, "oihw", "OIhw8i8o"}, std::tuple{weights, "OIhw8i8o", "hwio"},
        std::tuple{weights, "oihw", "OIhw4i16o4i"}}) {
    INFO(from << " -> " << to);
    const desc src(shape, data_type::f64, from), dst(shape, data_type::f64, to);
    // (zero fills kept apart: which copy a zero fill joins depends on the unit)
    const std::vector<element> whole = visited(lowered(src, dst, 1, false));
    const std::vector<placed_nest> nests = lowered(src, dst, 2, false);
    for (const placed_nest& p : nests) CHECK(p.parts == 2);
    std::vector<element> units;
    for (const auto& [zeros, s, d] : whole)
      for (dim u = 0; u < 2; ++u) units.emplace_back(zeros, zeros ? 0 : 2 * s + u, 2 * d + u);
    std::sort(units.begin(), units.end());
    CHECK(visited(nests) == units);
  }
}

TEST_CASE("an f64 reorder plans its plain copies as 4-byte kernels, and its conversions as they are", "[pass][split]") {
  const dims shape{2, 3, 4, 5};
  const memfmt::reorder copy(desc(shape, data_type::f64, "nchw"), desc(shape, data_type::f64, "nChw8c"));
  REQUIRE(!copy.nests().empty());
  for (const placed_nest& p : copy.nests()) {
    CHECK(p.parts == 2);
    CHECK(p.loops.cvt.src == data_type::f32);  // (a plain copy of the units)
    CHECK(p.loops.cvt.dst == data_type::f32);
  }
  // a conversion keeps its f64 elements (scalar rows)
  const memfmt::reorder convert(desc(shape, data_type::f64, "nchw"), desc(shape, data_type::f32, "nChw8c"));
  for (const placed_nest& p : convert.nests()) {
    CHECK(p.parts == 1);
    CHECK(p.loops.cvt.src == data_type::f64);
  }
  // with an attribute, f64 -> f64 converts: not split
  memfmt::reorder_attr attr;
  attr.sum_beta = 1.f;
  const memfmt::reorder summed(desc(shape, data_type::f64, "nchw"), desc(shape, data_type::f64, "nhwc"), attr);
  for (const placed_nest& p : summed.nests()) CHECK(p.parts == 1);
}
