// The core vocabulary: dims (a constexpr fixed-capacity vector), data types, errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

#include <memfmt/memfmt.hpp>

namespace {

using memfmt::data_type;
using memfmt::dim;
using memfmt::dims;

// ---- dims in constant expressions ----
constexpr dims nchw_dims{2, 17, 5, 4};
static_assert(nchw_dims.size() == 4);
static_assert(!nchw_dims.empty());
static_assert(nchw_dims[0] == 2 && nchw_dims[1] == 17 && nchw_dims[2] == 5 && nchw_dims[3] == 4);
static_assert(nchw_dims.product() == 2 * 17 * 5 * 4);
static_assert(dims{}.empty() && dims{}.size() == 0 && dims{}.product() == 1);
static_assert(nchw_dims == dims{2, 17, 5, 4});
static_assert(nchw_dims != dims{2, 17, 5});
static_assert(nchw_dims != dims{2, 17, 5, 3});
static_assert(dims{} == dims{});
static_assert(dims::filled(3, 7) == dims{7, 7, 7});
static_assert(dims::filled(0, 7).empty());
static_assert(dims::filled(memfmt::max_ndims, 1).size() == 12);
static_assert(memfmt::max_ndims == 12);
static_assert(std::is_same_v<dim, std::int64_t>);
static_assert(dims{0, 3}.product() == 0);
static_assert(dims{std::int64_t{1} << 40, 4}[0] == std::int64_t{1} << 40);  // 64-bit extents

// Constexpr, but pushing a 13th dim throws (and so is no constant expression).
constexpr dims thirteen_dims() {
  dims d;
  for (int i = 0; i <= memfmt::max_ndims; ++i) d.push_back(i + 1);
  return d;
}
constexpr dims twelve() {
  dims d;
  for (int i = 0; i < memfmt::max_ndims; ++i) d.push_back(i + 1);
  d[0] = 100;
  return d;
}
static_assert(twelve().size() == 12 && twelve()[0] == 100 && twelve()[11] == 12);
constexpr dims twelve_dims = twelve();
static_assert(twelve_dims.end() - twelve_dims.begin() == 12);

// ---- data types: sizes are those of the C++ types with the same representation ----
static_assert(memfmt::data_type_size(data_type::f32) == sizeof(float));
static_assert(memfmt::data_type_size(data_type::s32) == sizeof(std::int32_t));
static_assert(memfmt::data_type_size(data_type::s8) == sizeof(std::int8_t));
static_assert(memfmt::data_type_size(data_type::u8) == sizeof(std::uint8_t));
static_assert(memfmt::data_type_size(data_type::f16) == sizeof(std::uint16_t));
static_assert(memfmt::data_type_size(data_type::bf16) == sizeof(std::uint16_t));
static_assert(memfmt::data_type_size(data_type::f64) == sizeof(double));
static_assert(memfmt::data_type_size(data_type::undef) == 0);

}  // namespace

TEST_CASE("dims: construction, access, iteration", "[core][dims]") {
  dims d{3, 1, 4, 1, 5};
  CHECK(d.size() == 5);
  CHECK(d[2] == 4);
  d[2] = 9;
  CHECK(d[2] == 9);
  std::vector<dim> seen(d.begin(), d.end());
  CHECK(seen == std::vector<dim>{3, 1, 9, 1, 5});
  CHECK(d.end() - d.begin() == 5);
  CHECK(d.data() == d.begin());
  // Elements past size() are zero (the invariant that makes == and copies exact).
  for (int i = d.size(); i < memfmt::max_ndims; ++i) CHECK(d.data()[i] == 0);
  const dims max = dims::filled(memfmt::max_ndims, -1);
  CHECK(max.size() == memfmt::max_ndims);
  CHECK(max.product() == 1);
}

TEST_CASE("dims: more than 12 values is an error naming the limit", "[core][dims]") {
  CHECK_THROWS_AS(thirteen_dims(), memfmt::error);
  CHECK_THROWS_WITH((dims{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}), Catch::Contains("12"));
  CHECK_NOTHROW(dims{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  CHECK_THROWS_WITH(dims::filled(13, 0), Catch::Contains("13") && Catch::Contains("12"));
  CHECK_THROWS_AS(dims::filled(-1, 0), memfmt::error);
  dims d = dims::filled(12, 0);
  CHECK_THROWS_AS(d.push_back(1), memfmt::error);
  CHECK(d.size() == 12);  // unchanged by the failed push
  CHECK_THROWS_AS(dims(std::vector<dim>(13, 1)), memfmt::error);
}

TEST_CASE("dims: converts from and to std::vector", "[core][dims]") {
  const std::vector<dim> v{2, 17, 5, 4};
  const dims d = v;  // implicit, as oneDNN's dims are vectors
  CHECK(d == dims{2, 17, 5, 4});
  CHECK(d.to_vector() == v);
  CHECK(dims(std::vector<dim>{}).empty());
  CHECK(dims{}.to_vector().empty());
  const auto takes_dims = [](const dims& x) { return x.size(); };
  CHECK(takes_dims(std::vector<dim>(12, 3)) == 12);
  static_assert(std::is_convertible_v<std::vector<dim>, dims>);
}

TEST_CASE("dims: equality looks at size and every value", "[core][dims]") {
  CHECK(dims{1, 2} == dims{1, 2});
  CHECK_FALSE(dims{1, 2} == dims{1, 2, 0});  // a trailing 0 is still a dim
  CHECK_FALSE(dims{1, 2} == dims{2, 1});
  CHECK(dims{1, 2} != dims{1});
  dims a{5, 6, 7};
  dims b = a;
  b[2] = 8;
  CHECK(a != b);
}

TEST_CASE("data types: sizes, names and integrality", "[core][data_type]") {
  CHECK(memfmt::to_string(data_type::f32) == "f32");
  CHECK(memfmt::to_string(data_type::bf16) == "bf16");
  CHECK(memfmt::to_string(data_type::f16) == "f16");
  CHECK(memfmt::to_string(data_type::s32) == "s32");
  CHECK(memfmt::to_string(data_type::s8) == "s8");
  CHECK(memfmt::to_string(data_type::u8) == "u8");
  CHECK(memfmt::to_string(data_type::f64) == "f64");
  CHECK(memfmt::to_string(data_type::undef) == "undef");
  CHECK(memfmt::is_floating_point(data_type::f64));
  CHECK_FALSE(memfmt::is_integral(data_type::f64));
  CHECK(std::count(std::begin(memfmt::all_data_types), std::end(memfmt::all_data_types), data_type::f64) == 1);
  CHECK(memfmt::is_integral(data_type::s32));
  CHECK(memfmt::is_integral(data_type::s8));
  CHECK(memfmt::is_integral(data_type::u8));
  CHECK_FALSE(memfmt::is_integral(data_type::f32));
  CHECK_FALSE(memfmt::is_integral(data_type::f16));
  CHECK_FALSE(memfmt::is_integral(data_type::bf16));
  CHECK_FALSE(memfmt::is_integral(data_type::undef));
}

TEST_CASE("fixed_string holds a literal", "[core]") {
  constexpr memfmt::fixed_string s("nChw16c");
  static_assert(s.length == 7);
  static_assert(s.view() == "nChw16c");
  static_assert(std::string_view(s).size() == 7);
  CHECK(std::string(s.view()) == "nChw16c");
}

TEST_CASE("memfmt::error is the exception type, with the message given", "[core]") {
  static_assert(std::is_base_of_v<std::invalid_argument, memfmt::error>);
  try {
    memfmt::detail::fail("dim ", 3, " is ", -2, ", char ", 'x');
    FAIL("fail() returned");
  } catch (const memfmt::error& e) {
    CHECK(std::string(e.what()) == "dim 3 is -2, char x");
  }
}
