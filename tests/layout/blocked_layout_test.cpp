// The blocking math (padded dims, strides, span, element offsets) by brute force over
// every oneDNN tag of up to 5 dims, with oneDNN's reorder as the oracle for each offset.
#if MEMFMT_HAVE_ONEDNN
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "../tag/onednn_oracle.hpp"

namespace {

using memfmt::blocking;
using memfmt::dim;
using memfmt::dims;

constexpr blocking nChw16c = memfmt::tag_t<"nChw16c">::layout;
constexpr dims nChw16c_dims{2, 17, 5, 4};
constexpr dims nChw16c_padded = memfmt::padded_dims(nChw16c, nChw16c_dims);
constexpr dims nChw16c_strides = memfmt::outer_strides(nChw16c, nChw16c_padded);
// By hand: c pads to 32; strides w 16, h 4*16, C 5*4*16, n 2*5*4*16.
static_assert(nChw16c_padded == dims{2, 32, 5, 4});
static_assert(nChw16c_strides == dims{640, 320, 64, 16});
static_assert(memfmt::span_in_elements(nChw16c, nChw16c_dims, nChw16c_padded, nChw16c_strides) == 1280);
// (1, 17, 2, 3): n 640 + C (17 / 16) * 320 + h 2 * 64 + w 3 * 16 + c 17 % 16.
static_assert(memfmt::element_offset(nChw16c, nChw16c_strides, {1, 17, 2, 3}) == 1137);
// OIhw4i16o4i, dims {20, 9, 1, 1}: o pads to 32, i to 16; block 4i16o4i = 256 elements.
constexpr blocking OIhw4i16o4i = memfmt::tag_t<"OIhw4i16o4i">::layout;
static_assert(memfmt::padded_dims(OIhw4i16o4i, {20, 9, 1, 1}) == dims{32, 16, 1, 1});
static_assert(memfmt::outer_strides(OIhw4i16o4i, {32, 16, 1, 1}) == dims{256, 256, 256, 256});
// o = 17, i = 6: outer O 1 * 256; inner: i 6 / 4 = 1 -> 1 * 64; o 17 % 16 = 1 -> 1 * 4; i 6 % 4 = 2.
static_assert(memfmt::element_offset(OIhw4i16o4i, {256, 256, 256, 256}, {17, 6, 0, 0}) == 256 + 64 + 4 + 2);
// A dim of 0: zero span, and the dims outside it keep non-zero strides (as in oneDNN).
static_assert(memfmt::span_in_elements(memfmt::tag_t<"abc">::layout, {2, 0, 3}, {2, 0, 3}, {3, 3, 1}) == 0);
static_assert(memfmt::outer_strides(memfmt::tag_t<"abc">::layout, {2, 0, 3}) == dims{3, 3, 1});

/// Shapes for an n-D tag: all ones, then random dims in 1..5 (every blocked dim is then
/// padded: oneDNN's blocks are >= 2 ... except 1-sized ones, which the ones cover).
std::vector<dims> shapes(int n, std::mt19937_64& rng) {
  std::vector<dims> result{dims::filled(n, 1)};
  std::uniform_int_distribution<dim> extent(1, 5);
  for (int r = 0; r < 3; ++r) {
    dims d = dims::filled(n, 1);
    for (dim& v : d) v = extent(rng);
    result.push_back(d);
  }
  return result;
}

}  // namespace

TEST_CASE("every tag up to 5-D: offsets are a bijection of the padded box onto [0, span), and oneDNN's",
          "[layout][onednn]") {
  std::mt19937_64 rng(515);
  int tags_checked = 0;
  for (const auto& tag : oracle::all_tags()) {
    const blocking b = memfmt::parse_tag(tag.name).layout;
    if (b.ndims > 5) continue;
    ++tags_checked;
    for (const dims& d : shapes(b.ndims, rng)) {
      INFO("tag " << tag.name << ", dims " << oracle::show(d));
      const dims padded = memfmt::padded_dims(b, d);
      const dims strides = memfmt::outer_strides(b, padded);
      const dim span = memfmt::span_in_elements(b, d, padded, strides);
      for (int i = 0; i < b.ndims; ++i) {
        const dim block = b.block_of(i);
        CHECK(padded[i] % block == 0);
        CHECK(padded[i] >= d[i]);
        CHECK(padded[i] - d[i] < block);
      }

      // Every index of the padded box, logical or padding, has its own offset in [0, span),
      // and together they fill it: the layout is dense, and the offsets no logical index
      // uses are exactly those of the padding.
      std::vector<char> used(static_cast<std::size_t>(span), 0);
      dim in_range = 0, collisions = 0, padding = 0;
      oracle::for_each_index(padded, [&](const dims& index) {
        const dim off = memfmt::element_offset(b, strides, index);
        if (off < 0 || off >= span) return;
        ++in_range;
        collisions += used[static_cast<std::size_t>(off)]++ != 0;
        bool is_padding = false;
        for (int i = 0; i < index.size(); ++i) is_padding = is_padding || index[i] >= d[i];
        padding += is_padding;
      });
      CHECK(in_range == padded.product());
      CHECK(collisions == 0);
      CHECK(span == padded.product());
      CHECK(padding == span - d.product());

      // oneDNN's offsets, by reordering 1, 2, 3, ... into this layout.
      const dnnl_memory_desc_t md = oracle::by_tag(d.to_vector(), memfmt::data_type::f32, tag.onednn);
      REQUIRE(md.ndims == b.ndims);
      CHECK(static_cast<std::size_t>(span) * sizeof(float) == dnnl_memory_desc_get_size(&md));
      const std::vector<dim> expected = oracle::offsets_by_reorder(md);
      std::size_t k = 0;
      dim mismatches = 0;
      oracle::for_each_index(d, [&](const dims& index) {
        const dim mine = memfmt::element_offset(b, strides, index);
        if (mine != expected[k]) {
          if (mismatches++ == 0) {
            INFO("index " << oracle::show(index));
            CHECK(mine == expected[k]);
          }
        }
        ++k;
      });
      CHECK(mismatches == 0);
      CHECK(k == expected.size());
    }
  }
  CHECK(tags_checked == 851);  // the names of oneDNN 2.6.3 with 1 to 5 dims
}

#else
int main() { return 77; }  // oneDNN not available: skipped
#endif
