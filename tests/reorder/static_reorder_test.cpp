// static_reorder: what it states at compile time, and the same bytes as the planned
// runtime reorder (padding included).
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include <memfmt/memfmt.hpp>
#include <memfmt/reorder/reorder.hpp>
#include <memfmt/reorder/static_reorder.hpp>

#include "../support/reference.hpp"

using memfmt::data_type;
using memfmt::static_layout;
namespace tags = memfmt::tags;

using plain = static_layout<tags::nchw, 2, 17, 3, 5>;
using blocked = static_layout<tags::nChw16c, 2, 17, 3, 5>;
using to_bf16 = memfmt::static_reorder<plain, blocked, data_type::f32, data_type::bf16>;
static_assert(to_bf16::elements == 2 * 17 * 3 * 5);
static_assert(to_bf16::src_bytes == 2 * 17 * 3 * 5 * 4);
static_assert(to_bf16::dst_bytes == 2 * 32 * 3 * 5 * 2);

namespace {

template <class Reorder, class Src, class Dst>
void same_as_runtime(data_type from, data_type to) {
  const memfmt::desc src(Src{}.extents(), from, Src::tag), dst(Dst{}.extents(), to, Dst::tag);
  std::mt19937 rng(42);
  std::vector<unsigned char> s(Reorder::src_bytes), ours(Reorder::dst_bytes, 0xEE), theirs(Reorder::dst_bytes, 0xEE);
  memfmt_test::fill_random(from, s.data(), s.size(), rng);
  Reorder::run(reinterpret_cast<const typename Reorder::src_type*>(s.data()), reinterpret_cast<typename Reorder::dst_type*>(ours.data()));
  memfmt::reorder(src, dst).execute(s.data(), theirs.data());
  REQUIRE(ours == theirs);
}

}  // namespace

TEST_CASE("static_reorder gives the runtime reorder's bytes", "[reorder][static]") {
  same_as_runtime<to_bf16, plain, blocked>(data_type::f32, data_type::bf16);
  using weights_src = static_layout<tags::oihw, 17, 33, 3, 3>;
  using weights_dst = static_layout<tags::OIhw4i16o4i, 17, 33, 3, 3>;
  same_as_runtime<memfmt::static_reorder<weights_src, weights_dst, data_type::f32, data_type::s8>, weights_src, weights_dst>(
      data_type::f32, data_type::s8);
  using back = memfmt::static_reorder<blocked, static_layout<tags::nhwc, 2, 17, 3, 5>, data_type::f16, data_type::f32>;
  same_as_runtime<back, blocked, static_layout<tags::nhwc, 2, 17, 3, 5>>(data_type::f16, data_type::f32);
}
