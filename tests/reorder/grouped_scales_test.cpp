// Grouped scales (one scale per group of consecutive indices along each masked dim, as
// oneDNN 3.x's `set_scales(arg, mask, groups)`) through memfmt::reorder, against values
// computed here from the definition: the factor of an element is `s_src / s_dst` of its
// groups, rounded once, then `x = factor * x` (and with a sum `x + (beta / s_dst) * old`),
// each step rounded to f32, stored in the destination type (tests/support/elements.hpp
// rounds and saturates independently of the library). Destinations are filled with
// garbage first: their padding must come out zero.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "../support/elements.hpp"
#include "../support/reference.hpp"

using namespace memfmt_test;
using memfmt::reorder;
using memfmt::reorder_attr;

namespace {

float f32(double v) { return static_cast<float>(v); }

// The source's values: ordinary values and NaN, infinities, -0, a value beyond s8.
std::vector<float> draw_values(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  static constexpr float specials[] = {std::numeric_limits<float>::quiet_NaN(), INFINITY, -INFINITY, -0.f, 1e9f, 2.5f};
  std::vector<float> v(n);
  for (float& x : v) {
    const auto pick = rng() % 32;
    x = pick < std::size(specials) ? specials[pick] : std::uniform_real_distribution<float>(-300.f, 300.f)(rng);
  }
  return v;
}

// Scale values that change from group to group (powers of two and not).
std::vector<float> scale_values(std::size_t n, float first) {
  std::vector<float> v(n);
  for (std::size_t k = 0; k < n; ++k) v[k] = first + 0.375f * static_cast<float>(k % 11);
  return v;
}

// What a test expects of one element: its source scale and destination scale.
using scale_of = std::function<float(const dims&)>;

// `src` (f32, in layout `src_tag`) -> `dst` with `attr`: memfmt's whole destination buffer
// against the definition, `s(i)` and `t(i)` giving the element's source and destination
// scales, `beta` the sum (the destination holds `old` before).
void check(const dims& shape, const char* src_tag, const char* dst_tag, data_type to, const reorder_attr& attr,
           const scale_of& s, const scale_of& t, std::uint32_t seed) {
  const desc src(shape, data_type::f32, src_tag), dst(shape, to, dst_tag);
  const std::size_t dsize = memfmt::data_type_size(to);
  const std::vector<float> x = draw_values(src.get_size() / 4, seed);
  std::vector<unsigned char> out(dst.get_size(), 0xA5), expected(dst.get_size(), 0);
  if (attr.sum_beta != 0.f) {  // an old destination of small values, padding zero
    for_each_index(shape, [&](const dims& i) {
      const std::uint32_t v = store_bits(to, static_cast<float>((i[0] * 7 + i[1] * 3) % 13) - 6.f);
      std::memcpy(&out[static_cast<std::size_t>(dst.offset(i)) * dsize], &v, dsize);
    });
  }
  const std::vector<unsigned char> before = out;
  INFO(src.str() << " -> " << dst.str() << ", beta " << attr.sum_beta);
  reorder(src, dst, attr).execute(x.data(), out.data());
  for_each_index(shape, [&](const dims& i) {
    const auto at = static_cast<std::size_t>(dst.offset(i)) * dsize;
    const float ss = s(i), ts = t(i);
    const float factor = ts == 1.f ? ss : f32(double{ss} / double{ts});
    float v = f32(double{factor} * double{x[static_cast<std::size_t>(src.offset(i))]});
    if (attr.sum_beta != 0.f) {
      const float beta = ts == 1.f ? attr.sum_beta : f32(double{attr.sum_beta} / double{ts});
      v = f32(double{v} + double{f32(double{beta} * double{value_of(to, bits_at(to, &before[at]))})});
    }
    const std::uint32_t bits = store_bits(to, v);
    std::memcpy(&expected[at], &bits, dsize);
  });
  if (out != expected) {
    std::size_t first = 0;
    while (out[first] == expected[first]) ++first;
    const std::size_t at = first / dsize * dsize;
    FAIL("byte " << first << ": memfmt bits 0x" << std::hex << bits_at(to, &out[at]) << ", expected 0x"
                 << bits_at(to, &expected[at]));
  }
}

const data_type destinations[] = {data_type::f32, data_type::bf16, data_type::s8, data_type::u8};
const scale_of none = [](const dims&) { return 1.f; };

}  // namespace

TEST_CASE("grouped scales: one scale per output channel and group of input channels", "[reorder][attr][scales]") {
  // oihw weights, 20 x 24 x 3 x 3: a scale per (o, i / 8), per (o / 4, i / 8), per i / 6
  const dims shape{20, 24, 3, 3};
  const char* layouts[][2] = {{"abcd", "abcd"}, {"abcd", "ABcd8b8a"}, {"abcd", "ABcd4b16a4b"}, {"acdb", "bacd"},
                              {"abcd", "Abcd3a"}};
  std::uint32_t seed = 1;
  for (const data_type to : destinations) {
    for (const auto& l : layouts) {
      reorder_attr a;
      a.src_scales = {0b11, scale_values(20 * 3, 0.25f), {1, 8}};
      check(shape, l[0], l[1], to, a, [&](const dims& i) { return a.src_scales.values[i[0] * 3 + i[1] / 8]; }, none,
            seed++);
      a.src_scales = {0b11, scale_values(5 * 3, 0.5f), {4, 8}};
      check(shape, l[0], l[1], to, a, [&](const dims& i) { return a.src_scales.values[i[0] / 4 * 3 + i[1] / 8]; },
            none, seed++);
      a.src_scales = {0b10, scale_values(4, 1.5f), {6}};
      check(shape, l[0], l[1], to, a, [&](const dims& i) { return a.src_scales.values[i[1] / 6]; }, none, seed++);
      // groups of 1 are per-index scales
      a.src_scales = {0b01, scale_values(20, 0.75f), {1}};
      check(shape, l[0], l[1], to, a, [&](const dims& i) { return a.src_scales.values[i[0]]; }, none, seed++);
    }
  }
}

TEST_CASE("grouped scales: matmul weights, groups of 128 input channels", "[reorder][attr][scales]") {
  // ab weights (k x n = 512 x 40, n not a multiple of the blocks), a scale per (k / 128, n)
  const dims shape{512, 40};
  reorder_attr a;
  a.src_scales = {0b11, scale_values(4 * 40, 0.125f), {128, 1}};
  const scale_of s = [&](const dims& i) { return a.src_scales.values[i[0] / 128 * 40 + i[1]]; };
  std::uint32_t seed = 100;
  for (const data_type to : destinations)
    for (const char* tag : {"ab", "ba", "BA16a64b4a", "AB16b16a"}) check(shape, "ab", tag, to, a, s, none, seed++);
}

TEST_CASE("grouped scales: source and destination groups differ; a sum", "[reorder][attr][scales]") {
  const dims shape{20, 24, 3, 3};
  std::uint32_t seed = 200;
  for (const data_type to : destinations) {
    reorder_attr a;
    a.src_scales = {0b01, scale_values(20, 0.25f)};      // per o
    a.dst_scales = {0b10, scale_values(3, 2.f), {8}};   // per i / 8
    const scale_of s = [&](const dims& i) { return a.src_scales.values[i[0]]; };
    const scale_of t = [&](const dims& i) { return a.dst_scales.values[i[1] / 8]; };
    check(shape, "abcd", "ABcd8b8a", to, a, s, t, seed++);
    check(shape, "abcd", "abcd", to, a, s, t, seed++);
    // with a sum: beta / s_dst per group of the destination's scales
    a.sum_beta = 0.5f;
    check(shape, "abcd", "ABcd8b8a", to, a, s, t, seed++);
    a.src_scales = {0b11, scale_values(10 * 8, 1.f), {2, 3}};
    const scale_of s2 = [&](const dims& i) { return a.src_scales.values[i[0] / 2 * 8 + i[1] / 3]; };
    check(shape, "abcd", "abcd", to, a, s2, t, seed++);
  }
}

TEST_CASE("grouped scales: errors name what is wrong", "[reorder][attr][scales]") {
  const desc src({20, 24, 3, 3}, data_type::f32, "abcd"), dst({20, 24, 3, 3}, data_type::s8, "ABcd8b8a");
  const auto with_src = [&](memfmt::scales s) {
    reorder_attr a;
    a.src_scales = std::move(s);
    return reorder(src, dst, a);
  };
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(with_src({0b11, std::vector<float>(20 * 24), {1, 7}}),
                    Contains("source scales: the group size 7 does not divide dim 1 (24)"));
  CHECK_THROWS_WITH(with_src({0b11, std::vector<float>(20), {0, 24}}),
                    Contains("source scales: the group size 0 does not divide dim 0 (20)"));
  CHECK_THROWS_WITH(with_src({0b11, std::vector<float>(60), {8}}),
                    Contains("source scales with mask 3 need one group size per masked dim (2), got 1"));
  CHECK_THROWS_WITH(with_src({0b11, std::vector<float>(59), {1, 8}}),
                    Contains("source scales with mask 3 need 60 values, got 59"));
  CHECK_THROWS_WITH(with_src({1 << 4, {1.f}, {1}}), Contains("source scales mask 16 names dims beyond 4"));
  reorder_attr a;
  a.dst_scales = {0b10, std::vector<float>(5), {5}};
  CHECK_THROWS_WITH(reorder(src, dst, a), Contains("destination scales: the group size 5 does not divide dim 1 (24)"));
  // a valid one plans
  CHECK_NOTHROW(with_src({0b11, std::vector<float>(60, 1.f), {1, 8}}));
}
