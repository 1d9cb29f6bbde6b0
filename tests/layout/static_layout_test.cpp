// static_layout: offsets, padded extents, strides and sizes for every kind of 4-D
// blocking, static and dynamic extents, against a layout worked out from the abstract
// tag's spelling by brute force; values usable in constant expressions.
#include <catch2/catch.hpp>

#include <boost/hana/integral_constant.hpp>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <memfmt/memfmt.hpp>

namespace hana = boost::hana;
using memfmt::data_type;
using memfmt::dim;
using memfmt::dims;

// constant expressions: sizes and offsets of a padded blocked layout
// nChw16c {2, 17, 3, 5}: c pads to 32; strides w 16, h 5 * 16 = 80, C 3 * 80 = 240,
// n 2 * 240 = 480; size 2 * 32 * 3 * 5 = 960.
using act = memfmt::static_layout<memfmt::tags::nChw16c, 2, 17, 3, 5>;
static_assert(act::is_static && act::rank == 4 && act::rank_dynamic == 0);
static_assert(act{}.size() == 960);
static_assert(act{}.padded_extents() == dims{2, 32, 3, 5});
static_assert(act{}.strides() == dims{480, 240, 80, 16});
// (1, 16, 2, 4): n 480 + C (16 / 16) * 240 + h 2 * 80 + w 4 * 16 + c 16 % 16 = 944.
static_assert(act{}.offset(1, 16, 2, 4) == 944);
static_assert(act::require_tag<memfmt::tag<"aBcd16b">>());
// OIhw4i16o4i {17, 33, 1, 1}: o pads to 32 (16o), i to 48 (4i * 4i = 16); 32 * 48 bytes.
using vnni = memfmt::static_layout<memfmt::tags::OIhw4i16o4i, 17, 33, 1, 1>;
static_assert(vnni{}.size_bytes(data_type::s8) == 1536);
// (17, 6, 0, 0): strides I 256 (one 4i16o4i block), O 3 * 256 (i has 3 blocks), so
// O 1 * 768 + I 0; inner i 6 / 4 % 4 = 1 -> 64, o 17 % 16 = 1 -> 4, i 6 % 4 = 2.
static_assert(vnni{}.offset(17, 6, 0, 0) == 768 + 64 + 4 + 2);
// to_desc: the runtime descriptor of a static layout, usable in constant expressions.
static_assert(memfmt::to_desc(act{}, data_type::f32) == memfmt::desc({2, 17, 3, 5}, data_type::f32, "aBcd16b") &&
              memfmt::to_desc(act{}, data_type::f32).get_size() == 960 * 4);

namespace {

/// A layout worked out from an abstract tag's spelling alone: "ABcd4b16a4b" has the outer
/// dims a, b, c, d (outermost first) and the inner blocks 4b, 16a, 4b (outermost first).
/// An offset is the index written in the mixed radix of that physical order. Shares no
/// code with memfmt's parser or blocking math.
struct reference {
  std::vector<int> order;                   // outer dims, outermost first
  std::vector<std::pair<dim, int>> blocks;  // (size, dim), outermost first
  dims extents;

  reference(std::string_view tag, const dims& e) : extents(e) {
    std::size_t i = 0;
    for (; i < tag.size() && (tag[i] < '0' || tag[i] > '9'); ++i)
      order.push_back(tag[i] >= 'a' ? tag[i] - 'a' : tag[i] - 'A');
    while (i < tag.size()) {
      dim size = 0;
      for (; tag[i] >= '0' && tag[i] <= '9'; ++i) size = size * 10 + (tag[i] - '0');
      blocks.emplace_back(size, tag[i++] - 'a');
    }
  }
  dim block(int d) const {
    dim b = 1;
    for (auto [size, of] : blocks) b *= of == d ? size : 1;
    return b;
  }
  dim padded(int d) const { return (extents[d] + block(d) - 1) / block(d) * block(d); }

  /// (digit, radix) of `index` for every outer dim, then every inner block: the outer
  /// digit of a dim is index / block; an inner block's is index / (the dim's blocks
  /// inside it) % its size.
  std::vector<std::pair<dim, dim>> digits(const dims& index) const {
    std::vector<std::pair<dim, dim>> r;
    for (int d : order) r.emplace_back(index[d] / block(d), padded(d) / block(d));
    for (std::size_t k = 0; k < blocks.size(); ++k) {
      dim inside = 1;
      for (std::size_t j = k + 1; j < blocks.size(); ++j) inside *= blocks[j].second == blocks[k].second ? blocks[j].first : 1;
      r.emplace_back(index[blocks[k].second] / inside % blocks[k].first, blocks[k].first);
    }
    return r;
  }
  dim offset(const dims& index) const {
    dim off = 0;
    for (auto [digit, radix] : digits(index)) off = off * radix + digit;
    return off;
  }
  dim size() const {
    dim s = 1;
    for (auto [digit, radix] : digits(dims::filled(extents.size(), 0))) s *= radix;
    return s;
  }
  /// What one step of dim d's outer digit moves: the radices after it (a dim of 0
  /// counts as 1, as in oneDNN: it does not zero the strides of the dims around it).
  dims strides() const {
    const auto r = digits(dims::filled(extents.size(), 0));
    dims s = dims::filled(extents.size(), 1);
    for (std::size_t k = 0; k < order.size(); ++k)
      for (std::size_t j = k + 1; j < r.size(); ++j) s[order[k]] *= r[j].second == 0 ? 1 : r[j].second;
    return s;
  }
};

/// Every query of `layout` against the reference layout of `abstract` for its extents.
template <class Layout>
void check(const Layout& layout, std::string_view abstract) {
  const dims e = layout.extents();
  const reference ref(abstract, e);
  INFO(abstract << " " << Catch::Detail::stringify(e.to_vector()));
  CHECK(layout.padded_extents() == dims{ref.padded(0), ref.padded(1), ref.padded(2), ref.padded(3)});
  CHECK(layout.strides() == ref.strides());
  CHECK(layout.size() == ref.size());
  CHECK(layout.size_bytes(data_type::f32) == static_cast<std::size_t>(ref.size()) * 4);
  dim mismatches = 0;
  for (dim a = 0; a < e[0]; ++a)
    for (dim b = 0; b < e[1]; ++b)
      for (dim c = 0; c < e[2]; ++c)
        for (dim w = 0; w < e[3]; ++w) mismatches += layout.offset(a, b, c, w) != ref.offset({a, b, c, w});
  CHECK(mismatches == 0);
}

/// `Tag`, whose abstract spelling is `abstract`, with static extents, then with two
/// dynamic ones. 17 and 19 cross a block of 16; 3 fits inside every block of dim a.
template <auto Tag>
void check_tag(std::string_view abstract) {
  REQUIRE(Tag.ndims == 4);
  check(memfmt::static_layout<Tag, 17, 19, 2, 3>{}, abstract);
  check(memfmt::static_layout<Tag, 17, memfmt::dynamic_extent, 2, memfmt::dynamic_extent>(19, 3), abstract);
  check(memfmt::static_layout<Tag, 3, 19, 2, 5>{}, abstract);
}

}  // namespace

TEST_CASE("the reference layout is the mixed radix of the tag's physical order", "[layout][static]") {
  // aBcd4b {1, 6, 2, 3}: b pads to 8; strides d 4, c 3 * 4, B 2 * 12, a 2 * 24.
  const reference ref("aBcd4b", {1, 6, 2, 3});
  CHECK(ref.strides() == dims{48, 24, 12, 4});
  CHECK(ref.size() == 48);
  CHECK(ref.offset({0, 5, 1, 2}) == 24 + 12 + 2 * 4 + 1);
  // ABcd2b8a4b {9, 9, 1, 1}: a pads to 16, b to 16 (2 * 4); (9, 6, 0, 0): A 1 * 2 * 64,
  // B 0; inner b 6 / 4 % 2 = 1 -> 32, a 9 % 8 = 1 -> 4, b 6 % 4 = 2.
  CHECK(reference("ABcd2b8a4b", {9, 9, 1, 1}).offset({9, 6, 0, 0}) == 128 + 32 + 4 + 2);
}

TEST_CASE("static layouts of every kind of 4-D blocking match the reference layout", "[layout][static]") {
  // plain orders, one blocked dim, two, multi-level blocks of one dim, blocks of both
  // batch and channels, a block larger than the dim. The abstract spellings are oneDNN's
  // (dnnl_types.h: dnnl_OIhw4i16o4i = dnnl_ABcd4b16a4b, dnnl_OhwI32o = dnnl_Acdb32a).
  using namespace memfmt::tags;
  check_tag<nchw>("abcd"), check_tag<nhwc>("acdb"), check_tag<chwn>("bcda"), check_tag<cdba>("cdba");
  check_tag<bacd>("bacd"), check_tag<nChw4c>("aBcd4b"), check_tag<nChw8c>("aBcd8b"), check_tag<nChw16c>("aBcd16b");
  check_tag<nChw32c>("aBcd32b"), check_tag<Acdb32a>("Acdb32a"), check_tag<NChw16n16c>("ABcd16a16b");
  check_tag<NChw32n32c>("ABcd32a32b"), check_tag<NChw40n32c>("ABcd40a32b"), check_tag<NChw2c32n8c>("ABcd2b32a8b");
  check_tag<OIhw16i16o>("ABcd16b16a"), check_tag<OIhw16o16i>("ABcd16a16b"), check_tag<IOhw16o16i>("BAcd16a16b");
  check_tag<OIhw8i8o>("ABcd8b8a"), check_tag<Ohwi16o>("Acdb16a"), check_tag<OIhw4i16o4i>("ABcd4b16a4b");
  check_tag<OIhw8i16o2i>("ABcd8b16a2b"), check_tag<OIhw2i8o4i>("ABcd2b8a4b"), check_tag<OIhw4o8i8o4i>("ABcd4a8b8a4b");
  check_tag<IOhw4i8o8i4o>("BAcd4b8a8b4a"), check_tag<OIhw2i8o16i4o>("ABcd2b8a16b4a");
  check_tag<ABcd8b16a2b>("ABcd8b16a2b"), check_tag<aBCd2b4c2b>("aBCd2b4c2b"), check_tag<aBCd16b16c>("aBCd16b16c");
  check_tag<hwIo4i>("cdBa4b"), check_tag<OhwI32o>("Acdb32a");
}

TEST_CASE("make_layout takes integral constants as static extents", "[layout][static]") {
  const auto hana_layout = memfmt::make_layout(memfmt::tags::nhwc, hana::int_c<1>, hana::int_c<3>, 7, 9);
  static_assert(decltype(hana_layout)::rank_dynamic == 2);
  static_assert(decltype(hana_layout)::is_static_extent(0) && !decltype(hana_layout)::is_static_extent(2));
  const auto std_layout = memfmt::make_layout(memfmt::tags::nhwc, std::integral_constant<int, 1>{}, 3, 7, 9);
  static_assert(decltype(std_layout)::rank_dynamic == 3);
  REQUIRE(hana_layout.extents() == dims{1, 3, 7, 9});
  REQUIRE(std_layout.extents() == dims{1, 3, 7, 9});
  check(hana_layout, "acdb");
  check(std_layout, "acdb");
  // nchw {2, 3, 4, 5}: (1, 2, 3, 4) is 1 * 60 + 2 * 20 + 3 * 5 + 4.
  constexpr auto all_static = memfmt::make_layout(memfmt::tags::nchw, hana::int_c<2>, hana::int_c<3>, hana::int_c<4>, hana::int_c<5>);
  static_assert(decltype(all_static)::is_static && all_static.offset(1, 2, 3, 4) == 119);
}

TEST_CASE("negative dynamic extents are rejected", "[layout][static][errors]") {
  using layout = memfmt::static_layout<memfmt::tags::nchw, 1, memfmt::dynamic_extent, 4, 4>;
  REQUIRE_THROWS_WITH(layout(-3), Catch::Contains("negative"));
}

namespace {
/// `to_desc(layout, dt)` against the descriptor built from a tag string (parsed at run
/// time) and dims written out: same descriptor, strides of the reference layout, and
/// `get_size()` the layout's own size in bytes.
template <class Layout>
void check_desc(const Layout& layout, data_type dt, std::string_view tag, std::string_view abstract, const dims& e) {
  INFO(tag << " " << Catch::Detail::stringify(e.to_vector()));
  const memfmt::desc d = memfmt::to_desc(layout, dt);
  CHECK(d == memfmt::desc(e, dt, tag));
  CHECK(d == memfmt::desc(e, dt, abstract));
  CHECK(d.get_dims() == e);
  CHECK(d.get_data_type() == dt);
  CHECK(d.get_strides() == reference(abstract, e).strides());
  CHECK(d.get_size() == layout.size_bytes(dt));
}
}  // namespace

TEST_CASE("to_desc gives the descriptor of the layout's tag and extents", "[layout][static][desc]") {
  using memfmt::dynamic_extent;
  using namespace memfmt::tags;
  constexpr dim dyn = dynamic_extent;
  check_desc(memfmt::static_layout<nchw, 2, 3, 4, 5>{}, data_type::f32, "nchw", "abcd", {2, 3, 4, 5});
  check_desc(memfmt::static_layout<nhwc, 1, dyn, 7, dyn>(3, 9), data_type::u8, "nhwc", "acdb", {1, 3, 7, 9});
  check_desc(memfmt::static_layout<nChw16c, 2, 17, 3, 5>{}, data_type::bf16, "nChw16c", "aBcd16b", {2, 17, 3, 5});
  check_desc(memfmt::static_layout<nChw16c, dyn, 17, dyn, 5>(2, 3), data_type::f32, "nChw16c", "aBcd16b", {2, 17, 3, 5});
  check_desc(memfmt::static_layout<nChw16c, 1, dyn, 2, 2>(33), data_type::f32, "nChw16c", "aBcd16b", {1, 33, 2, 2});
  check_desc(memfmt::static_layout<OIhw4i16o4i, 17, 33, 1, 1>{}, data_type::s8, "OIhw4i16o4i", "ABcd4b16a4b", {17, 33, 1, 1});
  check_desc(memfmt::static_layout<OIhw4i16o4i, 64, dyn, 3, 3>(33), data_type::s8, "OIhw4i16o4i", "ABcd4b16a4b", {64, 33, 3, 3});
  check_desc(memfmt::static_layout<gOIhw4i16o4i, 2, 20, 9, 3, 3>{}, data_type::s8, "gOIhw4i16o4i", "aBCde4c16b4c", {2, 20, 9, 3, 3});
  check_desc(memfmt::static_layout<gOIhw4i16o4i, dyn, 20, dyn, 3, 1>(2, 9), data_type::s8, "gOIhw4i16o4i", "aBCde4c16b4c",
             {2, 20, 9, 3, 1});
  // make_layout with integral constants and run-time extents.
  check_desc(memfmt::make_layout(nChw8c, hana::int_c<1>, 12, hana::int_c<4>, 4), data_type::f32, "nChw8c", "aBcd8b", {1, 12, 4, 4});
}
