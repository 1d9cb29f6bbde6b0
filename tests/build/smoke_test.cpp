// memfmt is a header-only library: <memfmt/memfmt.hpp> compiles on its own,
// together with Highway in either order, and several translation units that
// include it link into one program (no non-inline definitions in headers).
#include <cstdint>
#include <type_traits>

#include <catch2/catch.hpp>
#include <memfmt/memfmt.hpp>

#include "smoke.hpp"

static_assert(memfmt::max_ndims == 12);
static_assert(std::is_same_v<memfmt::dim, std::int64_t>);

TEST_CASE("memfmt.hpp links from several translation units", "[build]") {
  const auto a = memfmt_smoke::from_memfmt_first_tu();
  const auto b = memfmt_smoke::from_hwy_first_tu();

  CHECK(a.max_ndims == 12);
  CHECK(b.max_ndims == 12);
  CHECK(a.zero_desc_is_zero);
  CHECK(b.zero_desc_is_zero);
  CHECK(a.zero_desc_ndims == 0);
  CHECK(b.zero_desc_ndims == 0);
  // Highway always has at least one target (the scalar fallback), and every
  // translation unit sees the same CPU.
  CHECK(a.hwy_targets != 0);
  CHECK(a.hwy_targets == b.hwy_targets);
}

TEST_CASE("the threading flavour matches the build", "[build]") {
#if defined(MEMFMT_USE_OPENMP)
#if defined(_OPENMP)
  SUCCEED("memfmt::openmp: MEMFMT_USE_OPENMP and OpenMP are both on");
#else
  FAIL("MEMFMT_USE_OPENMP is defined, but the compiler is not in OpenMP mode");
#endif
#else
  SUCCEED("memfmt::memfmt without OpenMP");
#endif
}
