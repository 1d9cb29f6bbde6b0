// A sum (beta) together with zero points through memfmt::reorder, against the order of
// steps docs/reorder.md states, computed here step by step:
//   x = src - zp_src;  x = (s_src / s_dst) * x;  d = dst_old - zp_dst;
//   x = x + (beta / s_dst) * d;  x = x + zp_dst;  then stored in the destination type,
// each step rounded to f32 (computed in double and rounded: for +, - and * of two floats
// that is the f32 result), a step whose parameter is neutral skipped. The layouts take
// the vector kernels (converted rows, transposes, blocks with padding) and the
// element-by-element paths (blockings that do not nest, a beta per index).
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "../support/elements.hpp"
#include "../support/reference.hpp"

using namespace memfmt_test;
using memfmt::reorder;
using memfmt::reorder_attr;

namespace {

// One rounding to f32.
float f32(double v) { return static_cast<float>(v); }

// A problem's attributes, scales common (one value) or per channel (dim 1).
struct sum_attr {
  float beta = 1.f;
  std::int32_t src_zp = 0, dst_zp = 0;
  std::vector<float> src_scales, dst_scales;  // empty: none
  int src_mask = 0, dst_mask = 0;             // 0 or 1 << 1

  reorder_attr to_reorder_attr() const {
    reorder_attr a;
    a.sum_beta = beta;
    a.src_zero_points = memfmt::zero_points::common(src_zp);
    a.dst_zero_points = memfmt::zero_points::common(dst_zp);
    if (!src_scales.empty()) a.src_scales = {src_mask, src_scales};
    if (!dst_scales.empty()) a.dst_scales = {dst_mask, dst_scales};
    return a;
  }
};

// The value the stated order gives from the source value `src` and the old destination
// value `old` of an element of channel `c`.
float expected_value(const sum_attr& a, float src, float old, dim c) {
  const auto pick = [c](const std::vector<float>& v, int mask) {
    return v.empty() ? 1.f : v[mask == 0 ? 0 : static_cast<std::size_t>(c)];
  };
  const float s_src = pick(a.src_scales, a.src_mask), s_dst = pick(a.dst_scales, a.dst_mask);
  const bool scaled = a.src_mask != 0 || a.dst_mask != 0 || s_src / s_dst != 1.f;
  // the factors: s_src / s_dst and beta / s_dst, each rounded once
  const float factor = s_dst == 1.f ? s_src : f32(double{s_src} / double{s_dst});
  const float beta = s_dst == 1.f ? a.beta : f32(double{a.beta} / double{s_dst});
  float x = src;
  if (a.src_zp != 0) x = f32(double{x} - a.src_zp);
  if (scaled) x = f32(double{factor} * double{x});
  float d = old;
  if (a.dst_zp != 0) d = f32(double{d} - a.dst_zp);
  const float product = f32(double{beta} * double{d});
  x = f32(double{x} + double{product});
  if (a.dst_zp != 0) x = f32(double{x} + a.dst_zp);
  return x;
}

// Bits of type `dt` for the values a test draws from: ordinary values, and for floating
// point NaN, infinities, -0, a subnormal, values beyond the integers' ranges and ties.
std::uint32_t draw(data_type dt, std::mt19937& rng) {
  const int pick = static_cast<int>(rng() % 16);
  if (dt == data_type::f32 || dt == data_type::bf16) {
    static constexpr float specials[] = {std::numeric_limits<float>::quiet_NaN(), INFINITY, -INFINITY, -0.f, 1e-40f,
                                         3e9f, -3e9f, 2.5f, -3.5f, 127.5f};
    const float v = pick < 10 ? specials[pick] : std::uniform_real_distribution<float>(-300.f, 300.f)(rng);
    const auto bits = std::bit_cast<std::uint32_t>(v);
    return dt == data_type::f32 ? bits : bits >> 16;  // (bf16: truncated, a bf16 value)
  }
  if (dt == data_type::s32) {
    static constexpr std::int32_t specials[] = {2147483647, -2147483647 - 1, 16777217, -16777219, 0};
    const std::int32_t v = pick < 5 ? specials[pick] : static_cast<std::int32_t>(rng() % 2001) - 1000;
    return static_cast<std::uint32_t>(v);
  }
  return rng() & 0xFFu;  // s8, u8: every value
}

// `src` -> `dst` with `a` on random elements: memfmt's destination, padding included,
// bit for bit against the stated order (zeros in the padding). Requires the plan to run
// element by element or not, as `elementwise` says, so that each path is reached.
void check(const desc& src, const desc& dst, const sum_attr& a, bool elementwise, std::uint32_t seed) {
  const data_type from = src.get_data_type(), to = dst.get_data_type();
  const std::size_t ssize = memfmt::data_type_size(from), dsize = memfmt::data_type_size(to);
  std::mt19937 rng(seed);
  std::vector<unsigned char> s(src.get_size()), initial(dst.get_size());
  for (std::size_t k = 0; k + ssize <= s.size(); k += ssize) {
    const std::uint32_t b = draw(from, rng);
    std::memcpy(&s[k], &b, ssize);
  }
  for (std::size_t k = 0; k + dsize <= initial.size(); k += dsize) {
    const std::uint32_t b = draw(to, rng);
    std::memcpy(&initial[k], &b, dsize);
  }
  const reorder r(src, dst, a.to_reorder_attr());
  INFO(src.str() << " -> " << dst.str() << " beta " << a.beta << " zp " << a.src_zp << "/" << a.dst_zp << " scales "
                 << a.src_scales.size() << "/" << a.dst_scales.size());
  CHECK(r.is_elementwise() == elementwise);
  std::vector<unsigned char> out = initial, expected(initial.size(), 0);  // zeros: the padding
  r.execute(s.data(), out.data());
  for_each_index(dst.get_dims(), [&](const dims& i) {
    const auto at = static_cast<std::size_t>(dst.offset(i)) * dsize;
    const float x = value_of(from, bits_at(from, &s[static_cast<std::size_t>(src.offset(i)) * ssize]));
    const std::uint32_t v = store_bits(to, expected_value(a, x, value_of(to, bits_at(to, &initial[at])), i[1]));
    std::memcpy(&expected[at], &v, dsize);
  });
  if (out != expected) {
    std::size_t first = 0;
    while (out[first] == expected[first]) ++first;
    const std::size_t at = first / dsize * dsize;
    FAIL("element " << at / dsize << ": memfmt bits 0x" << std::hex << bits_at(to, &out[at]) << ", expected 0x"
                    << bits_at(to, &expected[at]) << ", destination before 0x" << bits_at(to, &initial[at]));
  }
}

const data_type destinations[] = {data_type::u8, data_type::s8, data_type::s32, data_type::f32, data_type::bf16};

// A destination zero point for `to`: u8 accumulating around 128, the others around a
// small offset (f32 and bf16 too: memfmt applies zero points to any type).
std::int32_t dst_zero_point(data_type to) {
  return to == data_type::u8 ? 128 : to == data_type::s8 ? -5 : to == data_type::s32 ? 1000 : 7;
}

}  // namespace

TEST_CASE("sum with zero points: the stated order, on the vector kernels and element by element", "[reorder][attr][sum]") {
  const dims shape{2, 19, 3, 5};  // 19 channels: a partial block of 8 and 16, padded
  struct layouts {
    const char* src;
    const char* dst;
    bool elementwise;
  };
  // rows converted in place, transposes, blocks with padding; blocks of 3 and 4 (which
  // do not nest) element by element
  const layouts pairs[] = {{"nchw", "nchw", false}, {"nchw", "nChw8c", false}, {"nhwc", "nchw", false},
                           {"nChw16c", "nhwc", false}, {"Abcd3a", "Abcd4a", true}};
  std::uint32_t seed = 1;
  int checked = 0;
  for (const data_type from : {data_type::f32, data_type::u8, data_type::s8, data_type::s32}) {
    for (const data_type to : destinations) {
      for (const float beta : {1.f, 0.5f, -2.f}) {
        sum_attr a;
        a.beta = beta;
        a.src_zp = memfmt::is_integral(from) ? 3 : 0;
        a.dst_zp = dst_zero_point(to);
        for (int scales = 0; scales < 4; ++scales) {
          a.src_scales.clear();
          a.dst_scales.clear();
          a.src_mask = a.dst_mask = 0;
          if (scales == 1) a.src_scales = {0.5f};  // common
          if (scales == 2) {                        // common, source and destination
            a.src_scales = {1.75f};
            a.dst_scales = {3.f};
          }
          if (scales == 3) {  // per channel
            a.src_mask = 1 << 1;
            for (int c = 0; c < 19; ++c) a.src_scales.push_back(0.25f + 0.375f * static_cast<float>(c % 7));
          }
          for (const layouts& l : pairs) {
            check(desc(shape, from, l.src), desc(shape, to, l.dst), a, l.elementwise, seed++);
            ++checked;
          }
        }
        // destination scales per channel with a sum: a beta per channel, element by element
        a.src_scales = {2.f};
        a.src_mask = 0;
        a.dst_mask = 1 << 1;
        a.dst_scales.clear();
        for (int c = 0; c < 19; ++c) a.dst_scales.push_back(c % 3 == 0 ? 0.5f : c % 3 == 1 ? 3.f : 1.f);
        check(desc(shape, from, "nchw"), desc(shape, to, "nChw8c"), a, true, seed++);
        ++checked;
      }
    }
  }
  CHECK(checked == 4 * 5 * 3 * (4 * 5 + 1));
}

TEST_CASE("sum into u8 with zero point 128: every old value", "[reorder][attr][sum]") {
  // every u8 old value against each source value, along rows (`a`) and by a transpose
  const float sources[] = {0.f, 1.f, -1.f, 0.5f, 2.5f, -3.5f, 100.f, -100.f, 1e30f, -INFINITY, INFINITY,
                           std::numeric_limits<float>::quiet_NaN(), -0.f};
  const dim n = std::size(sources);
  for (const float beta : {1.f, 0.5f, -2.f}) {
    for (const bool transposed : {false, true}) {
      // dims {old value, source}: the source is read along dim 1 (`ab`) or dim 0 (`ba`)
      const desc src({256, n}, data_type::f32, transposed ? "ba" : "ab"), dst({256, n}, data_type::u8, "ab");
      std::vector<float> s(static_cast<std::size_t>(256 * n));
      std::vector<std::uint8_t> out(static_cast<std::size_t>(256 * n));
      for (dim old = 0; old < 256; ++old)
        for (dim k = 0; k < n; ++k) {
          s[static_cast<std::size_t>(src.offset({old, k}))] = sources[k];
          out[static_cast<std::size_t>(dst.offset({old, k}))] = static_cast<std::uint8_t>(old);
        }
      reorder_attr attr;
      attr.sum_beta = beta;
      attr.dst_zero_points = memfmt::zero_points::common(128);
      reorder(src, dst, attr).execute(s.data(), out.data());
      for (dim old = 0; old < 256; ++old)
        for (dim k = 0; k < n; ++k) {
          sum_attr a;
          a.beta = beta;
          a.dst_zp = 128;
          const std::uint32_t expected = store_bits(data_type::u8, expected_value(a, sources[k], static_cast<float>(old), 0));
          INFO("beta " << beta << ", source " << sources[k] << ", old " << old << (transposed ? ", transposed" : ""));
          REQUIRE(out[static_cast<std::size_t>(dst.offset({old, k}))] == expected);
        }
      // by hand: beta 1 adds the source to the old value (the zero point cancels),
      // saturated; 1e30 and infinity saturate, NaN gives 0
      for (dim old = 0; old < 256 && beta == 1.f; ++old) {
        const auto at = [&](dim k) { return int{out[static_cast<std::size_t>(dst.offset({old, k}))]}; };
        INFO("old " << old);
        CHECK(at(0) == old);
        CHECK(at(1) == std::min<int>(static_cast<int>(old) + 1, 255));
        CHECK(at(2) == std::max<int>(static_cast<int>(old) - 1, 0));
        CHECK(at(8) == 255);
        CHECK(at(9) == 0);
        CHECK(at(11) == 0);
      }
    }
  }
}
