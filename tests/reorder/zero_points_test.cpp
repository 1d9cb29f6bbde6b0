// Zero points per dim and per group (oneDNN 3.x's `set_zero_points(arg, mask, groups,
// data_type)`) and the storage types of scales, through memfmt::reorder, against values
// computed here from the definition (attr.hpp): `x = src - zp_src; x = (s_src / s_dst) *
// x; x = x + (beta / s_dst) * (dst_old - zp_dst); x = x + zp_dst`, each step rounded to
// f32, then stored in the destination type (tests/support/elements.hpp rounds and
// saturates apart from the library; s4 and u4 saturate to 4 bits). Destinations are
// filled with garbage first: their padding must come out zero.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../support/elements.hpp"
#include "../support/reference.hpp"

using namespace memfmt_test;
using memfmt::reorder;
using memfmt::reorder_attr;
using memfmt::scale_type;
using memfmt::zero_points;

namespace {

float f32(double v) { return static_cast<float>(v); }

// The value of the element at linear offset `at` of `p`, as f32 (s32 rounded to it).
float value_at(data_type dt, const unsigned char* p, dim at) {
  if (memfmt::is_sub_byte(dt)) return static_cast<float>(nibble_value(dt, p, at));
  const auto size = static_cast<dim>(memfmt::data_type_size(dt));
  const std::uint32_t bits = bits_at(dt, p + at * size);
  return memfmt::is_integral(dt) ? static_cast<float>(integer_of(dt, bits)) : value_of(dt, bits);
}

// Stores `x` as the element at linear offset `at` of `p`, as a conversion does.
void store_at(data_type dt, unsigned char* p, dim at, float x) {
  if (memfmt::is_sub_byte(dt)) {  // rounded and saturated to 8 bits, then to 4
    const data_type wide = dt == data_type::s4 ? data_type::s8 : data_type::u8;
    const auto v = static_cast<int>(integer_of(wide, store_bits(wide, x)));
    store_nibble(p, at, dt == data_type::s4 ? std::clamp(v, -8, 7) : std::clamp(v, 0, 15));
    return;
  }
  const std::size_t size = memfmt::data_type_size(dt);
  const std::uint32_t bits = store_bits(dt, x);
  std::memcpy(p + static_cast<std::size_t>(at) * size, &bits, size);
}

// The value of `q` (scales or zero points) for the element at `i`, 1 or 0 without values.
template <class Q>
auto param(const Q& q, const dims& shape, const dims& i, decltype(q.values[0]) none) {
  return q.empty() ? none : q.values[static_cast<std::size_t>(scale_index(shape, i, q))];
}

// A source of `from` in layout `stag`: random values, NaN, infinities, -0 and extremes.
std::vector<unsigned char> draw_source(const desc& src, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> s(src.get_size());
  fill_random(src.get_data_type(), s.data(), s.size(), rng);
  return s;
}

// `src` -> `dst` with `attr` (the destination, before, `old` when there is a sum, else
// garbage): memfmt's whole buffer against the definition. Returns whether the plan ran
// element by element (the kernels take zero points per index in copies of rows only).
bool check(const desc& src, const desc& dst, const reorder_attr& attr, std::uint32_t seed) {
  const data_type from = src.get_data_type(), to = dst.get_data_type();
  const dims shape = src.get_dims();
  const std::vector<unsigned char> s = draw_source(src, seed);
  std::vector<unsigned char> before(dst.get_size(), 0xA5);
  if (attr.sum_beta != 0.f) {  // old values, padding zero (what a reorder leaves)
    std::mt19937 rng(seed + 1);
    fill_random(to, before.data(), before.size(), rng);
    memfmt::zero_padding(dst, before.data());
  }
  // (dense layouts: every byte is an element or padding)
  std::vector<unsigned char> expected(dst.get_size(), 0);
  const bool integer = memfmt::is_integral(from) && memfmt::is_integral(to) &&
                       (from == data_type::s32 || to == data_type::s32) && attr.src_scales.empty() &&
                       attr.dst_scales.empty() && attr.sum_beta == 0.f;
  for_each_index(shape, [&](const dims& i) {
    const std::int32_t zs = param(attr.src_zero_points, shape, i, 0);
    const std::int32_t zd = param(attr.dst_zero_points, shape, i, 0);
    if (integer) {  // exact integers, saturated
      const std::uint32_t b = bits_at(from, &s[static_cast<std::size_t>(src.offset(i)) * memfmt::data_type_size(from)]);
      const std::int64_t lo = to == data_type::s32 ? INT32_MIN : to == data_type::s8 ? -128 : 0;
      const std::int64_t hi = to == data_type::s32 ? INT32_MAX : to == data_type::s8 ? 127 : 255;
      const std::int64_t v = std::clamp(integer_of(from, b) - zs + zd, lo, hi);
      const auto w = static_cast<std::uint32_t>(v);
      std::memcpy(&expected[static_cast<std::size_t>(dst.offset(i)) * memfmt::data_type_size(to)], &w,
                  memfmt::data_type_size(to));
      return;
    }
    const float ss = param(attr.src_scales, shape, i, 1.f), ts = param(attr.dst_scales, shape, i, 1.f);
    float x = value_at(from, s.data(), src.offset(i));
    if (zs != 0) x = f32(double{x} - zs);
    const float factor = ts == 1.f ? ss : f32(double{ss} / double{ts});
    if (factor != 1.f) x = f32(double{factor} * double{x});
    if (attr.sum_beta != 0.f) {
      const float beta = ts == 1.f ? attr.sum_beta : f32(double{attr.sum_beta} / double{ts});
      float old = value_at(to, before.data(), dst.offset(i));
      if (zd != 0) old = f32(double{old} - zd);
      x = f32(double{x} + double{f32(double{beta} * double{old})});
    }
    if (zd != 0) x = f32(double{x} + zd);
    store_at(to, expected.data(), dst.offset(i), x);
  });
  bool elementwise = false;
  for (const int threads : {1, 0}) {
    reorder_attr a = attr;
    a.threads = threads;
    std::vector<unsigned char> out = before;
    const reorder r(src, dst, a);
    elementwise = r.is_elementwise();
    r.execute(s.data(), out.data());
    if (out == expected) continue;
    std::size_t first = 0;
    while (out[first] == expected[first]) ++first;
    FAIL(src.str() << " -> " << dst.str() << ", threads " << threads << ": byte " << first << " is 0x" << std::hex
                   << int{out[first]} << ", expected 0x" << int{expected[first]});
  }
  return elementwise;
}

// Zero points that change from group to group, within the range of `type`.
zero_points zps(int mask, std::vector<std::int64_t> groups, data_type type, std::size_t count, int first) {
  const bool is_signed = type == data_type::s32 || type == data_type::s8 || type == data_type::s4;
  const int lo = is_signed ? -8 : 0;
  zero_points z{mask, {}, std::move(groups), type};
  for (std::size_t k = 0; k < count; ++k) z.values.push_back(lo + (first + 5 * static_cast<int>(k)) % 16);
  return z;
}

// Scales that change from group to group (powers of two and not, all f16 and bf16 values).
memfmt::scales scale_values(int mask, std::vector<std::int64_t> groups, std::size_t count, float first) {
  memfmt::scales s{mask, {}, std::move(groups)};
  for (std::size_t k = 0; k < count; ++k) s.values.push_back(first + 0.375f * static_cast<float>(k % 11));
  return s;
}

const data_type zero_point_types[] = {data_type::s32, data_type::s8, data_type::u8, data_type::s4, data_type::u4};

}  // namespace

TEST_CASE("zero points per dim and per group, in every storage type", "[reorder][attr][zero_points]") {
  // k x n weights (256 x 24): a zero point per (k / 128, n), per n, per k / 64
  const dims shape{256, 24};
  std::uint32_t seed = 1;
  for (const data_type zt : zero_point_types) {
    for (const data_type from : {data_type::u8, data_type::s8, data_type::s4, data_type::u4}) {
      for (const char* tag : {"ab", "ba", "AB16b16a"}) {
        INFO(to_string(zt) << " zero points, " << to_string(from) << " source, " << tag);
        const desc src(shape, from, "ab"), dst(shape, data_type::f32, tag);
        reorder_attr a;
        a.src_zero_points = zps(0b11, {128, 1}, zt, 2 * 24, 3);
        check(src, dst, a, seed++);
        a.src_zero_points = zps(0b10, {}, zt, 24, 1);
        check(src, dst, a, seed++);
        a.src_zero_points = zps(0b01, {64}, zt, 4, 7);
        a.src_scales = scale_values(0b11, {128, 1}, 2 * 24, 0.25f);  // scales grouped otherwise
        check(src, dst, a, seed++);
      }
    }
  }
}

TEST_CASE("quantize f32 into s4 and u4: grouped scales and zero points, and back", "[reorder][attr][zero_points]") {
  // the weights of a matmul, k x n = 256 x 40, a scale and zero point per (k / 128, n)
  const dims shape{256, 40};
  std::uint32_t seed = 100;
  for (const data_type q : {data_type::u4, data_type::s4, data_type::u8, data_type::s8}) {
    for (const char* tag : {"ab", "ba", "BA16a64b4a", "AB16b16a"}) {
      INFO(to_string(q) << " " << tag);
      reorder_attr quantize;
      quantize.dst_scales = scale_values(0b11, {128, 1}, 2 * 40, 0.5f);
      const bool is_signed = q == data_type::s4 || q == data_type::s8;
      quantize.dst_zero_points = zps(0b11, {128, 1}, is_signed ? data_type::s4 : data_type::u4, 2 * 40, 2);
      const bool elementwise = check(desc(shape, data_type::f32, "ab"), desc(shape, q, tag), quantize, seed++);
      // in the kernels where the conversion is a copy of rows (staged for BA16a64b4a)
      if (tag == std::string("ab") || tag == std::string("BA16a64b4a")) CHECK_FALSE(elementwise);
      reorder_attr dequantize;
      dequantize.src_scales = quantize.dst_scales;
      dequantize.src_zero_points = quantize.dst_zero_points;
      for (const data_type to : {data_type::f32, data_type::bf16, data_type::f16})
        check(desc(shape, q, tag), desc(shape, to, "ab"), dequantize, seed++);
    }
  }
}

TEST_CASE("a sum reads the destination without its zero point, per index too", "[reorder][attr][zero_points]") {
  const dims shape{6, 10, 4};
  std::uint32_t seed = 200;
  for (const data_type to : {data_type::s8, data_type::u8, data_type::f32, data_type::u4}) {
    INFO(to_string(to));
    reorder_attr a;
    a.sum_beta = 0.5f;
    a.dst_zero_points = zps(0b010, {5}, data_type::s8, 2, 4);
    if (to == data_type::u8 || to == data_type::u4) a.dst_zero_points = zps(0b010, {5}, data_type::u4, 2, 4);
    a.src_zero_points = zps(0b101, {}, data_type::s8, 6 * 4, 0);
    check(desc(shape, data_type::s8, "abc"), desc(shape, to, "acb"), a, seed++);
    a.dst_scales = scale_values(0b001, {2}, 3, 2.f);  // beta / s_dst per index
    check(desc(shape, data_type::s8, "abc"), desc(shape, to, "abc"), a, seed++);
  }
}

TEST_CASE("zero points per index in copies of rows: along a row, constant along it, with a sum",
          "[reorder][attr][zero_points]") {
  std::uint32_t seed = 250;
  for (const data_type to : {data_type::f32, data_type::s8, data_type::u8, data_type::bf16}) {
    INFO(to_string(to));
    reorder_attr a;  // one zero point per row (dim 0): constant along each row
    a.src_zero_points = zps(0b01, {}, data_type::s8, 64, 5);
    CHECK_FALSE(check(desc({64, 40}, data_type::s8, "ab"), desc({64, 40}, to, "ab"), a, seed++));
    a.src_scales = scale_values(0b10, {8}, 5, 0.5f);  // and scales that change along it
    CHECK_FALSE(check(desc({64, 40}, data_type::s8, "ab"), desc({64, 40}, to, "ab"), a, seed++));
    reorder_attr f;  // f32 sources: a zero point of 0 adds nothing (-0 stays -0)
    f.dst_zero_points = zps(0b10, {}, data_type::s8, 40, 6);
    CHECK_FALSE(check(desc({64, 40}, data_type::f32, "ab"), desc({64, 40}, to, "ab"), f, seed++));
    reorder_attr sum;  // zero points along rows, and a sum
    sum.sum_beta = 0.75f;
    sum.src_zero_points = zps(0b101, {}, data_type::s8, 6 * 36, 0);
    sum.dst_zero_points = zps(0b010, {}, to == data_type::u8 ? data_type::u8 : data_type::s8, 10, 3);
    CHECK_FALSE(check(desc({6, 10, 36}, data_type::s8, "abc"), desc({6, 10, 36}, to, "abc"), sum, seed++));
  }
}

TEST_CASE("s32 with zero points per index: exact integers, saturated", "[reorder][attr][zero_points]") {
  const dims shape{4, 8, 3};
  std::uint32_t seed = 300;
  for (const auto& [from, to] : {std::pair{data_type::s32, data_type::s8}, std::pair{data_type::s32, data_type::u8},
                                 std::pair{data_type::s8, data_type::s32}, std::pair{data_type::s32, data_type::s32}}) {
    INFO(to_string(from) << " -> " << to_string(to));
    reorder_attr a;
    a.src_zero_points = zps(0b010, {2}, data_type::s32, 4, 1);
    a.dst_zero_points = zps(0b100, {}, data_type::s32, 3, 9);
    // s32 values beyond 2^24 and near its ends come out exact (no trip through f32)
    check(desc(shape, from, "abc"), desc(shape, to, "cab"), a, seed++);
  }
}

TEST_CASE("zero points: masks, groups, counts and values that do not fit", "[reorder][attr][zero_points]") {
  const desc src({8, 6}, data_type::u8, "ab"), dst({8, 6}, data_type::f32, "ba");
  const auto error_of = [&](const reorder_attr& a) {
    try {
      reorder r(src, dst, a);
    } catch (const memfmt::error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  reorder_attr a;
  a.src_zero_points = {0b100, {1, 2}};
  CHECK(error_of(a) == "reorder: source zero points mask 4 names dims beyond 2");
  a.src_zero_points = {0b01, {1, 2}, {3}};
  CHECK(error_of(a) == "reorder: source zero points: the group size 3 does not divide dim 0 (8)");
  a.src_zero_points = {0b11, std::vector<std::int32_t>(12, 1), {4}};
  CHECK(error_of(a) == "reorder: source zero points with mask 3 need one group size per masked dim (2), got 1");
  a.src_zero_points = {0b10, std::vector<std::int32_t>(5, 1)};
  CHECK(error_of(a) == "reorder: source zero points with mask 2 need 6 values, got 5");
  a.src_zero_points = {0b10, {1, 2, 3, 4, 5, 16}, {}, data_type::u4};
  CHECK(error_of(a) == "reorder: source zero point 5 (16) is outside u4 [0, 15]");
  a.src_zero_points = {0, {-9}, {}, data_type::s4};
  CHECK(error_of(a) == "reorder: source zero point 0 (-9) is outside s4 [-8, 7]");
  a.src_zero_points = {0, {-1}, {}, data_type::u8};
  CHECK(error_of(a) == "reorder: source zero point 0 (-1) is outside u8 [0, 255]");
  a.src_zero_points = {0, {1}, {}, data_type::f32};
  CHECK(error_of(a) == "reorder: source zero points of type f32: zero points are s32, s8, u8, s4 or u4");
  a.src_zero_points = {};
  a.dst_zero_points = {0b01, std::vector<std::int32_t>(8, 200), {}, data_type::s8};
  CHECK(error_of(a) == "reorder: destination zero point 0 (200) is outside s8 [-128, 127]");
  a.dst_zero_points = {0b01, std::vector<std::int32_t>(8, 200), {}, data_type::u8};
  CHECK(error_of(a) == "no error");
  // without values, zero points are none, whatever their mask and groups say
  a.src_zero_points = {0b11, {}, {0}};
  CHECK(error_of(a) == "no error");
  a.src_scales = {0b10, {}, {0, 5}};
  CHECK(error_of(a) == "no error");
}

TEST_CASE("scales stored as f16, bf16 or e8m0: their values only, the same results as f32",
          "[reorder][attr][scales]") {
  const dims shape{4, 6};
  const desc src(shape, data_type::s8, "ab"), dst(shape, data_type::f32, "ba");
  const auto error_of = [&](const memfmt::scales& s) {
    reorder_attr a;
    a.src_scales = s;
    try {
      reorder r(src, dst, a);
    } catch (const memfmt::error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // f16: 11 significant bits, largest 65504, smallest subnormal 2^-24
  CHECK(error_of({0, {65504.f}, {}, scale_type::f16}) == "no error");
  CHECK(error_of({0, {0x1p-24f}, {}, scale_type::f16}) == "no error");
  CHECK(error_of({0, {1.f + 0x1p-10f}, {}, scale_type::f16}) == "no error");
  CHECK(error_of({0, {1.f + 0x1p-11f}, {}, scale_type::f16}) ==
        "reorder: source scale 0 (1.0004883) is not exactly an f16, the type the scales are stored in");
  CHECK(error_of({0, {65536.f}, {}, scale_type::f16}) != "no error");
  CHECK(error_of({0, {0x1p-25f}, {}, scale_type::f16}) != "no error");
  // bf16: 8 significant bits, f32's exponents
  CHECK(error_of({0, {1.f + 0x1p-7f}, {}, scale_type::bf16}) == "no error");
  CHECK(error_of({0, {0x1p100f}, {}, scale_type::bf16}) == "no error");
  CHECK(error_of({0, {1.f + 0x1p-8f}, {}, scale_type::bf16}) != "no error");
  // e8m0: powers of two from 2^-127 to 2^127, and NaN
  for (const float v : {0x1p-127f, 0x1p-126f, 0.25f, 1.f, 0x1p127f, std::numeric_limits<float>::quiet_NaN()})
    CHECK(error_of({0, {v}, {}, scale_type::e8m0}) == "no error");
  for (const float v : {0.f, -1.f, 3.f, 0x1p-128f, std::numeric_limits<float>::infinity()}) {
    INFO(v);
    CHECK(error_of({0, {v}, {}, scale_type::e8m0}) != "no error");
  }
  CHECK(error_of({0b10, {1.f, 2.f, 0.5f, 4.f, 6.f, 8.f}, {}, scale_type::e8m0}) ==
        "reorder: source scale 4 (6) is not exactly an e8m0, the type the scales are stored in");

  // the type says how the scales were stored; the arithmetic is the same
  std::uint32_t seed = 400;
  for (const scale_type t : {scale_type::f32, scale_type::f16, scale_type::bf16, scale_type::e8m0}) {
    reorder_attr a;
    a.src_scales = {0b11, {0.5f, 2.f, 0.25f, 4.f}, {2, 3}, t};
    check(src, dst, a, seed++);
  }
}
