// Format selection for `any`: the documented choices (docs/select.md), at compile time and
// at run time.
#include <catch2/catch.hpp>

#include <memfmt/memfmt.hpp>

using memfmt::data_type;
using memfmt::desc;
using memfmt::select_format;
using memfmt::simd_target;
using memfmt::tensor_role;

// Usable in constant expressions for a given target.
static_assert(select_format(desc::any({2, 17, 5, 5}, data_type::f32), tensor_role::activation, simd_target::avx512)
                  .matches(memfmt::tags::nChw16c));
static_assert(select_format(desc::any({2, 17, 5, 5}, data_type::f32), tensor_role::activation, simd_target::avx2)
                  .matches(memfmt::tags::nChw8c));

namespace {
struct choice {
  memfmt::dims dims;
  data_type dt;
  tensor_role role;
  simd_target target;
  const char* expected;
};
}  // namespace

TEST_CASE("select_format picks the documented layout", "[select]") {
  const choice table[] = {
      {{2, 17, 5, 5}, data_type::f32, tensor_role::activation, simd_target::avx512, "nChw16c"},
      {{2, 17, 5, 5}, data_type::bf16, tensor_role::activation, simd_target::avx512, "nChw16c"},
      {{2, 17, 5, 5}, data_type::f32, tensor_role::activation, simd_target::avx2, "nChw8c"},
      {{2, 17, 5, 5}, data_type::f32, tensor_role::activation, simd_target::sse4, "nChw8c"},
      {{2, 17, 5, 5}, data_type::f32, tensor_role::activation, simd_target::scalar, "nchw"},
      {{2, 17, 5}, data_type::f32, tensor_role::activation, simd_target::avx512, "nCw16c"},
      {{2, 17, 3, 5, 5}, data_type::f16, tensor_role::activation, simd_target::avx2, "nCdhw8c"},
      {{2, 17, 5, 5}, data_type::u8, tensor_role::activation, simd_target::avx512, "nhwc"},
      {{2, 17, 3, 5, 5}, data_type::s8, tensor_role::activation, simd_target::avx2, "ndhwc"},
      {{2, 17}, data_type::f32, tensor_role::activation, simd_target::avx512, "nc"},
      {{32, 17, 3, 3}, data_type::f32, tensor_role::weights, simd_target::avx512, "OIhw16i16o"},
      {{32, 17, 3, 3}, data_type::f32, tensor_role::weights, simd_target::avx2, "OIhw8i8o"},
      {{32, 17, 3, 3}, data_type::bf16, tensor_role::weights, simd_target::avx512, "OIhw8i16o2i"},
      {{32, 17, 3, 3}, data_type::s8, tensor_role::weights, simd_target::avx512, "OIhw4i16o4i"},
      {{32, 17, 3, 3}, data_type::s8, tensor_role::weights, simd_target::avx2, "OIhw2i8o4i"},
      {{32, 17, 3}, data_type::f32, tensor_role::weights, simd_target::avx512, "OIw16i16o"},
      {{2, 32, 17, 3, 3}, data_type::f32, tensor_role::grouped_weights, simd_target::avx512, "gOIhw16i16o"},
      {{2, 32, 17, 3, 3}, data_type::s8, tensor_role::grouped_weights, simd_target::avx512, "gOIhw4i16o4i"},
      {{32, 17}, data_type::f32, tensor_role::weights, simd_target::avx512, "oi"},
      {{2, 3, 4, 5}, data_type::f32, tensor_role::generic, simd_target::avx512, "abcd"},
      // the rest of docs/select.md's table, one row per cell
      {{2, 17, 5}, data_type::f16, tensor_role::activation, simd_target::avx2, "nCw8c"},
      {{2, 17, 3, 5, 5}, data_type::f32, tensor_role::activation, simd_target::avx512, "nCdhw16c"},
      {{2, 17, 5, 5}, data_type::s32, tensor_role::activation, simd_target::sse4, "nhwc"},
      {{2, 17, 5, 5}, data_type::u8, tensor_role::activation, simd_target::scalar, "nchw"},
      {{32, 17, 3, 3}, data_type::f32, tensor_role::weights, simd_target::sse4, "OIhw8i8o"},
      {{32, 17, 3, 3}, data_type::f16, tensor_role::weights, simd_target::avx512, "OIhw8i16o2i"},
      {{32, 17, 3, 3}, data_type::bf16, tensor_role::weights, simd_target::avx2, "OIhw4i8o2i"},
      {{32, 17, 3, 3}, data_type::u8, tensor_role::weights, simd_target::sse4, "OIhw2i8o4i"},
      {{32, 17, 3, 3}, data_type::f32, tensor_role::weights, simd_target::scalar, "oihw"},
      {{32, 17, 3, 3, 3}, data_type::f32, tensor_role::weights, simd_target::avx512, "OIdhw16i16o"},
      {{2, 32, 17, 3, 3}, data_type::f32, tensor_role::grouped_weights, simd_target::avx2, "gOIhw8i8o"},
      {{2, 32, 17, 3, 3}, data_type::bf16, tensor_role::grouped_weights, simd_target::avx512, "gOIhw8i16o2i"},
      {{2, 32, 17, 3, 3}, data_type::s8, tensor_role::grouped_weights, simd_target::scalar, "goihw"},
      {{2, 32, 17}, data_type::f32, tensor_role::grouped_weights, simd_target::avx512, "abc"},
      {{2, 17, 5, 5}, data_type::f32, tensor_role::generic, simd_target::avx2, "nchw"},
  };
  for (const choice& c : table) {
    const desc chosen = select_format(desc::any(c.dims, c.dt), c.role, c.target);
    INFO("expected " << c.expected << ", got " << chosen.str());
    REQUIRE(chosen.get_format_kind() == memfmt::format_kind::blocked);
    REQUIRE(chosen.get_data_type() == c.dt);
    REQUIRE(chosen.get_dims() == c.dims);
    REQUIRE(chosen == desc(c.dims, c.dt, c.expected));
  }
}

TEST_CASE("select_format keeps concrete descriptors and rejects the zero one", "[select]") {
  const desc concrete({2, 3, 4, 5}, data_type::f32, "nhwc");
  REQUIRE(select_format(concrete, tensor_role::activation) == concrete);
  REQUIRE_THROWS_WITH(select_format(desc(), tensor_role::activation, simd_target::avx2), Catch::Contains("zero descriptor"));
}

TEST_CASE("without a target, select_format chooses for the CPU running the code", "[select]") {
  const simd_target t = memfmt::current_simd_target();
  const desc chosen = select_format(desc::any({1, 32, 4, 4}, data_type::f32), tensor_role::activation);
  const char* expected = t == simd_target::avx512 ? "nChw16c" : t == simd_target::scalar ? "nchw" : "nChw8c";
  INFO("expected " << expected << ", got " << chosen.str());
  REQUIRE(chosen == desc({1, 32, 4, 4}, data_type::f32, expected));
#if defined(__x86_64__)
  REQUIRE(t != simd_target::scalar);  // every x86-64 CPU memfmt supports has at least SSE4
#endif
}
