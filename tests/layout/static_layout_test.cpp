// static_layout: the same offsets, padded extents, strides and sizes as the runtime
// descriptor for every 4-D oneDNN tag; static and dynamic extents agree; values usable
// in constant expressions.
#include <catch2/catch.hpp>

#include <boost/hana/integral_constant.hpp>
#include <type_traits>
#include <vector>

#include <memfmt/memfmt.hpp>

namespace hana = boost::hana;
using memfmt::data_type;
using memfmt::desc;
using memfmt::dim;
using memfmt::dims;

// constant expressions: sizes and offsets of a padded blocked layout
using act = memfmt::static_layout<memfmt::tags::nChw16c, 2, 17, 3, 5>;
static_assert(act::is_static && act::rank == 4 && act::rank_dynamic == 0);
static_assert(act{}.size() == 2 * 32 * 3 * 5);
static_assert(act{}.offset(1, 16, 2, 4) == desc({2, 17, 3, 5}, data_type::f32, "nChw16c").offset({1, 16, 2, 4}));
static_assert(act{}.strides() == desc({2, 17, 3, 5}, data_type::f32, "nChw16c").get_strides());
static_assert(act::require_tag<memfmt::tag<"aBcd16b">>());
using vnni = memfmt::static_layout<memfmt::tags::OIhw4i16o4i, 17, 33, 1, 1>;
static_assert(vnni{}.size_bytes(data_type::s8) == 32 * 48);

namespace {

// What a layout says, gathered by a small template; compared by plain code (keeps the
// hundreds of instantiations cheap to compile).
struct layout_values {
  dims extents, padded, strides;
  dim size = 0;
  std::vector<dim> offsets;  // of every logical index, row-major
};

template <class Layout>
layout_values collect(const Layout& layout) {
  layout_values v{layout.extents(), layout.padded_extents(), layout.strides(), layout.size(), {}};
  const dims e = v.extents;
  for (dim a = 0; a < e[0]; ++a)
    for (dim b = 0; b < e[1]; ++b)
      for (dim c = 0; c < e[2]; ++c)
        for (dim w = 0; w < e[3]; ++w) v.offsets.push_back(layout.offset(a, b, c, w));
  return v;
}

void compare(const desc& d, const layout_values& v) {
  REQUIRE(v.extents == d.get_dims());
  REQUIRE(v.padded == d.get_padded_dims());
  REQUIRE(v.strides == d.get_strides());
  REQUIRE(static_cast<std::size_t>(v.size) * 4 == d.get_size());
  const dims e = d.get_dims();
  std::size_t k = 0;
  for (dim a = 0; a < e[0]; ++a)
    for (dim b = 0; b < e[1]; ++b)
      for (dim c = 0; c < e[2]; ++c)
        for (dim w = 0; w < e[3]; ++w) REQUIRE(v.offsets[k++] == d.offset({a, b, c, w}));
}

template <class Layout>
void check_against_desc(const desc& d, const Layout& layout) {
  compare(d, collect(layout));
}

template <auto Tag>
void check_tag() {
  if constexpr (std::remove_cvref_t<decltype(Tag)>::ndims == 4) {
    const desc d({3, 19, 2, 5}, data_type::f32, Tag);
    INFO(Tag.name());
    check_against_desc(d, memfmt::static_layout<Tag, 3, 19, 2, 5>{});
    check_against_desc(d, memfmt::static_layout<Tag, 3, memfmt::dynamic_extent, 2, memfmt::dynamic_extent>(19, 5));
  }
}

}  // namespace

TEST_CASE("static layouts agree with descriptors for 4-D tags of every kind of blocking", "[layout][static]") {
  // plain orders, one blocked dim, two, multi-level blocks of one dim, blocks of both
  // batch and channels, a block larger than the dim; tests/desc checks every tag's math
  using namespace memfmt::tags;
  check_tag<nchw>(), check_tag<nhwc>(), check_tag<chwn>(), check_tag<cdba>(), check_tag<bacd>();
  check_tag<nChw4c>(), check_tag<nChw8c>(), check_tag<nChw16c>(), check_tag<nChw32c>(), check_tag<Acdb32a>();
  check_tag<NChw16n16c>(), check_tag<NChw32n32c>(), check_tag<NChw40n32c>(), check_tag<NChw2c32n8c>();
  check_tag<OIhw16i16o>(), check_tag<OIhw16o16i>(), check_tag<IOhw16o16i>(), check_tag<OIhw8i8o>(), check_tag<Ohwi16o>();
  check_tag<OIhw4i16o4i>(), check_tag<OIhw8i16o2i>(), check_tag<OIhw2i8o4i>(), check_tag<OIhw4o8i8o4i>();
  check_tag<IOhw4i8o8i4o>(), check_tag<OIhw2i8o16i4o>(), check_tag<ABcd8b16a2b>(), check_tag<aBCd2b4c2b>();
  check_tag<aBCd16b16c>(), check_tag<hwIo4i>(), check_tag<OhwI32o>();
}

TEST_CASE("make_layout takes integral constants as static extents", "[layout][static]") {
  const auto hana_layout = memfmt::make_layout(memfmt::tags::nhwc, hana::int_c<1>, hana::int_c<3>, 7, 9);
  static_assert(decltype(hana_layout)::rank_dynamic == 2);
  static_assert(decltype(hana_layout)::is_static_extent(0) && !decltype(hana_layout)::is_static_extent(2));
  const auto std_layout = memfmt::make_layout(memfmt::tags::nhwc, std::integral_constant<int, 1>{}, 3, 7, 9);
  static_assert(decltype(std_layout)::rank_dynamic == 3);
  const desc d({1, 3, 7, 9}, data_type::f32, "nhwc");
  check_against_desc(d, hana_layout);
  check_against_desc(d, std_layout);
  constexpr auto all_static = memfmt::make_layout(memfmt::tags::nchw, hana::int_c<2>, hana::int_c<3>, hana::int_c<4>, hana::int_c<5>);
  static_assert(decltype(all_static)::is_static && all_static.offset(1, 2, 3, 4) == 119);
}

TEST_CASE("negative dynamic extents are rejected", "[layout][static][errors]") {
  using layout = memfmt::static_layout<memfmt::tags::nchw, 1, memfmt::dynamic_extent, 4, 4>;
  REQUIRE_THROWS_WITH(layout(-3), Catch::Contains("negative"));
}
