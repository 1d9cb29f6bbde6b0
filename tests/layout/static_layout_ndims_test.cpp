// static_layout beyond 4-D tags: 1-D to 12-D, static and dynamic extents, extents of 0 and
// 1, against the run-time descriptor (which tests/desc checks against oneDNN).
#include <catch2/catch.hpp>

#include <array>
#include <type_traits>
#include <utility>

#include <memfmt/memfmt.hpp>

namespace {

using memfmt::data_type;
using memfmt::desc;
using memfmt::dim;
using memfmt::dims;
namespace tags = memfmt::tags;

// A 5-D blocked layout folds to constants: its offsets are compile-time values.
using weights = memfmt::static_layout<tags::gOIhw4i16o4i, 2, 20, 9, 3, 3>;
static_assert(weights{}.offset(1, 17, 6, 2, 1) == desc({2, 20, 9, 3, 3}, data_type::f32, "gOIhw4i16o4i").offset({1, 17, 6, 2, 1}));
static_assert(weights{}.padded_extents() == dims{2, 32, 16, 3, 3});
static_assert(memfmt::static_layout<tags::x, 5>{}.offset(4) == 4);
static_assert(memfmt::static_layout<tags::aBc4b, 2, 0, 3>{}.size() == 0);  // a zero extent: nothing to hold
static_assert(memfmt::static_layout<tags::aBc4b, 1, 1, 1>{}.size() == 4);   // one element, one block

/// Calls `f(index)` for every index of `extents`, row-major.
template <class F>
void for_each_index(const dims& extents, F&& f) {
  for (dim e : extents)
    if (e == 0) return;
  dims index = dims::filled(extents.size(), 0);
  for (;;) {
    f(index);
    int d = extents.size() - 1;
    for (; d >= 0 && ++index[d] == extents[d]; --d) index[d] = 0;
    if (d < 0) return;
  }
}

template <class Layout, std::size_t... I>
dim offset_at(const Layout& layout, const dims& index, std::index_sequence<I...>) {
  return layout.offset(index[static_cast<int>(I)]...);
}

/// Every query of `layout` against the descriptor of the same tag and extents.
template <class Layout>
void check(const Layout& layout, std::string_view tag) {
  const dims extents = layout.extents();
  INFO(tag << " " << Catch::Detail::stringify(extents.to_vector()));
  const desc d(extents, data_type::f32, tag);
  CHECK(layout.padded_extents() == d.get_padded_dims());
  CHECK(layout.strides() == d.get_strides());
  CHECK(layout.size_bytes(data_type::f32) == d.get_size());
  dim mismatches = 0;
  for_each_index(extents, [&](const dims& index) {
    mismatches += offset_at(layout, index, std::make_index_sequence<static_cast<std::size_t>(Layout::rank)>{}) != d.offset(index);
  });
  CHECK(mismatches == 0);
}

/// The tag with extents `E...`: fully static, then with every other extent dynamic.
template <auto Tag, dim... E>
void check_both() {
  check(memfmt::static_layout<Tag, E...>{}, Tag.name());
  constexpr std::array<dim, sizeof...(E)> values{E...};
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    using dynamic = memfmt::static_layout<Tag, (I % 2 == 1 ? memfmt::dynamic_extent : values[I])...>;
    std::array<dim, dynamic::rank_dynamic> dyn{};
    std::size_t k = 0;
    ((I % 2 == 1 ? void(dyn[k++] = values[I]) : void()), ...);
    [&]<std::size_t... J>(std::index_sequence<J...>) { check(dynamic(dyn[J]...), Tag.name()); }
    (std::make_index_sequence<dynamic::rank_dynamic>{});
  }(std::make_index_sequence<sizeof...(E)>{});
}

}  // namespace

TEST_CASE("static layouts of 1 to 12 dims agree with descriptors", "[layout][static]") {
  check_both<tags::x, 7>();
  check_both<tags::a, 0>();
  check_both<tags::BA16b4a, 5, 33>();
  check_both<tags::nCw16c, 2, 17, 3>();
  check_both<tags::NCw16n16c, 17, 3, 2>();
  check_both<tags::tnc, 3, 2, 5>();
  check_both<tags::ldgOI32o4i, 1, 2, 3, 33, 5>();
  check_both<tags::nCdhw16c, 2, 1, 3, 1, 2>();
  check_both<tags::gOIhw4i16o4i, 2, 20, 9, 3, 1>();
  check_both<tags::gIOhw2i8o16i2o, 2, 9, 17, 1, 2>();  // a oneDNN spelling quirk
  check_both<tags::aBCdef16b16c2b, 1, 17, 3, 1, 2, 1>();
  check_both<tags::abcdefghijkl, 2, 1, 2, 1, 2, 1, 2, 1, 1, 2, 1, 2>();
  check_both<tags::nChw16c, 2, 0, 3, 3>();  // zero extent: no element, size 0
}
