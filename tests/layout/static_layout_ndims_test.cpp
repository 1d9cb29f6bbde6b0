// static_layout beyond 4-D tags: 1-D to 12-D, static and dynamic extents, extents of 0 and
// 1, against oneDNN's descriptor of the same tag: its padded dims, strides and size, and
// the offsets its blocking descriptor defines.
#include <array>
#include <type_traits>
#include <utility>

#include <memfmt/memfmt.hpp>

// Compile-time values, worked out by hand (they need no oneDNN).
namespace tags = memfmt::tags;
using memfmt::dims;

// A 5-D blocked layout folds to constants: its offsets are compile-time values.
// gOIhw4i16o4i {2, 20, 9, 3, 3}: o pads to 32, i to 16; one 4i16o4i block is 256
// elements; strides w 256, h 3 * 256 = 768, I 3 * 768 = 2304, O 1 * 2304, g 2 * 2304.
using weights = memfmt::static_layout<tags::gOIhw4i16o4i, 2, 20, 9, 3, 3>;
static_assert(weights{}.padded_extents() == dims{2, 32, 16, 3, 3});
static_assert(weights{}.strides() == dims{4608, 2304, 2304, 768, 256});
// (1, 17, 6, 2, 1): g 4608 + O (17 / 16) * 2304 + I 0 + h 2 * 768 + w 256, then inner
// i 6 / 4 % 4 = 1 -> 64, o 17 % 16 = 1 -> 4, i 6 % 4 = 2.
static_assert(weights{}.offset(1, 17, 6, 2, 1) == 4608 + 2304 + 1536 + 256 + 64 + 4 + 2);
static_assert(memfmt::static_layout<tags::x, 5>{}.offset(4) == 4);
static_assert(memfmt::static_layout<tags::aBc4b, 2, 0, 3>{}.size() == 0);  // a zero extent: nothing to hold
static_assert(memfmt::static_layout<tags::aBc4b, 1, 1, 1>{}.size() == 4);   // one element, one block

#if MEMFMT_HAVE_ONEDNN
#include <catch2/catch.hpp>

#include "../tag/onednn_oracle.hpp"

namespace {

using memfmt::data_type;
using memfmt::dim;
using ft = dnnl::memory::format_tag;

template <class Layout, std::size_t... I>
dim offset_at(const Layout& layout, const dims& index, std::index_sequence<I...>) {
  return layout.offset(index[static_cast<int>(I)]...);
}

/// Every query of `layout` against oneDNN's descriptor of the same tag and extents.
template <class Layout>
void check(const Layout& layout, std::string_view tag, ft onednn_tag) {
  const dims extents = layout.extents();
  INFO(tag << " " << oracle::show(extents));
  const dnnl_memory_desc_t md = oracle::by_tag(extents.to_vector(), data_type::f32, onednn_tag);
  REQUIRE(md.ndims == Layout::rank);
  CHECK(oracle::show(layout.padded_extents()) == oracle::show(md.padded_dims, md.ndims));
  CHECK(oracle::show(layout.strides()) == oracle::show(md.format_desc.blocking.strides, md.ndims));
  CHECK(layout.size_bytes(data_type::f32) == dnnl_memory_desc_get_size(&md));
  dim mismatches = 0;
  oracle::for_each_index(extents, [&](const dims& index) {
    mismatches += offset_at(layout, index, std::make_index_sequence<static_cast<std::size_t>(Layout::rank)>{}) !=
                  oracle::onednn_offset(md, index);
  });
  CHECK(mismatches == 0);
}

/// The tag with extents `E...`: fully static, then with every other extent dynamic.
template <auto Tag, dim... E>
void check_both(ft onednn_tag) {
  check(memfmt::static_layout<Tag, E...>{}, Tag.name(), onednn_tag);
  constexpr std::array<dim, sizeof...(E)> values{E...};
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    using dynamic = memfmt::static_layout<Tag, (I % 2 == 1 ? memfmt::dynamic_extent : values[I])...>;
    std::array<dim, dynamic::rank_dynamic> dyn{};
    std::size_t k = 0;
    ((I % 2 == 1 ? void(dyn[k++] = values[I]) : void()), ...);
    [&]<std::size_t... J>(std::index_sequence<J...>) { check(dynamic(dyn[J]...), Tag.name(), onednn_tag); }
    (std::make_index_sequence<dynamic::rank_dynamic>{});
  }(std::make_index_sequence<sizeof...(E)>{});
}

}  // namespace

TEST_CASE("static layouts of 1 to 12 dims agree with oneDNN", "[layout][static][onednn]") {
  check_both<tags::x, 7>(ft::x);
  check_both<tags::a, 0>(ft::a);
  check_both<tags::BA16b4a, 5, 33>(ft::BA16b4a);
  check_both<tags::nCw16c, 2, 17, 3>(ft::nCw16c);
  check_both<tags::NCw16n16c, 17, 3, 2>(ft::NCw16n16c);
  check_both<tags::tnc, 3, 2, 5>(ft::tnc);
  check_both<tags::ldgOI32o4i, 1, 2, 3, 33, 5>(ft::ldgOI32o4i);
  check_both<tags::nCdhw16c, 2, 1, 3, 1, 2>(ft::nCdhw16c);
  check_both<tags::gOIhw4i16o4i, 2, 20, 9, 3, 1>(ft::gOIhw4i16o4i);
  check_both<tags::gIOhw2i8o16i2o, 2, 9, 17, 1, 2>(ft::gIOhw2i8o16i2o);  // a oneDNN spelling quirk
  check_both<tags::aBCdef16b16c2b, 1, 17, 3, 1, 2, 1>(ft::aBCdef16b16c2b);
  check_both<tags::abcdefghijkl, 2, 1, 2, 1, 2, 1, 2, 1, 1, 2, 1, 2>(ft::abcdefghijkl);
  check_both<tags::nChw16c, 2, 0, 3, 3>(ft::nChw16c);  // zero extent: no element, size 0
}

#else
int main() { return 77; }  // oneDNN not available: skipped
#endif
