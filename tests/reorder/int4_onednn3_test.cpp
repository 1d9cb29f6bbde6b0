// s4 and u4 against oneDNN 3.x (the second oracle, which has them): the problems of
// oneDNN's own int4 batch (test_reorder_int4) and more, element by element, padding
// included, with values at rounding ties, beyond the range, NaN and infinities, and with
// scales and zero points, grouped and stored in every type, as oneDNN's decompression
// batch runs them. A problem oneDNN refuses is counted, and the count is bounded.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "../support/onednn_bridge.hpp"
#include "../support/reference.hpp"

using namespace memfmt_test;
using memfmt::reorder_attr;

namespace {

// f32 values that test a conversion to 4 bits: halves (ties) from -20 to 20, and specials.
std::vector<float> values(std::size_t count, std::mt19937& rng) {
  std::vector<float> v(count);
  for (float& x : v) {
    const unsigned pick = rng() % 64;
    x = pick == 0 ? NAN : pick == 1 ? INFINITY : pick == 2 ? -INFINITY : pick == 3 ? -0.f : static_cast<float>(static_cast<int>(rng() % 81) - 40) / 2;
  }
  return v;
}

// The value of the 4 bits of element `at` (linear).
int nibble(data_type dt, const std::vector<unsigned char>& b, dim at) { return nibble_value(dt, b.data(), at); }

struct problem {
  dims shape;
  data_type from, to;
  const char *a, *b;
  reorder_attr attr = {};
};

// 1 when memfmt's result equals oneDNN's at every element and padding position, 0 when
// oneDNN refuses the problem or the layout has odd strides (which oneDNN 3.13 refuses to
// make from a tag too); a mismatch fails the test.
int compare(const problem& p, std::mt19937& rng) {
  const desc src(p.shape, p.from, p.a, true), dst(p.shape, p.to, p.b, true);
  if (src.is_zero() || dst.is_zero()) return 0;
  INFO(memfmt::to_string(p.from) << " " << p.a << " -> " << memfmt::to_string(p.to) << " " << p.b << " " << src.str());
  std::vector<unsigned char> s(bytes_spanned(src));
  if (p.from == data_type::f32) {
    const std::vector<float> v = values(s.size() / 4, rng);
    std::memcpy(s.data(), v.data(), v.size() * 4);
  } else {
    for (unsigned char& x : s) x = static_cast<unsigned char>(rng());
  }
  std::vector<unsigned char> initial(bytes_spanned(dst));
  for (unsigned char& x : initial) x = static_cast<unsigned char>(rng());
  std::vector<unsigned char> ours = initial, theirs = initial;
  try {
    memfmt_onednn::reorder r(src, dst, p.attr);
    r.run(s.data(), theirs.data());
  } catch (const memfmt_onednn::unsupported&) {
    return 0;
  }
  memfmt::reorder(src, dst, p.attr).execute(s.data(), ours.data());
  const std::size_t size = memfmt::data_type_size(p.to);
  dim wrong = 0;
  for_each_index(dst.get_padded_dims(), [&](const dims& i) {
    bool inside = true;
    for (int d = 0; d < i.size(); ++d) inside = inside && i[d] < dst.get_dims()[d];
    const dim at = inside ? dst.offset(i) : memfmt::detail::padded_offset(dst, i);
    const bool same = memfmt::is_sub_byte(p.to) ? nibble(p.to, ours, at) == nibble(p.to, theirs, at)
                                                : std::memcmp(&ours[at * size], &theirs[at * size], size) == 0;
    if (!same && ++wrong <= 3) {
      const dim from_at = inside ? src.offset(i) : -1;
      float x = 0;
      if (from_at >= 0 && p.from == data_type::f32) std::memcpy(&x, &s[from_at * 4], 4);
      FAIL_CHECK("element " << at << (inside ? "" : " (padding)") << ": ours "
                            << (memfmt::is_sub_byte(p.to) ? nibble(p.to, ours, at) : ours[at * size]) << ", oneDNN "
                            << (memfmt::is_sub_byte(p.to) ? nibble(p.to, theirs, at) : theirs[at * size])
                            << ", source " << (p.from == data_type::f32 ? x : static_cast<float>(from_at >= 0 ? nibble(p.from, s, from_at) : 0)));
    }
  });
  CHECK(wrong == 0);
  return 1;
}

const std::vector<dims> shapes4 = {{2, 64, 14, 14}, {2, 56, 14, 14}, {3, 18, 5, 4}};
const std::vector<dims> shapes5 = {{2, 64, 64, 3, 3}, {2, 56, 56, 3, 3}, {4, 16, 16, 3, 3}, {2, 16, 6, 3, 2}, {2, 2, 10, 2, 3}};

TEST_CASE("f32 into s4 and u4, and back, in oneDNN's int4 batch's layouts") {
  std::mt19937 rng(4);
  int compared = 0, total = 0;
  for (const data_type q : {data_type::u4, data_type::s4}) {
    for (const auto* pair : {"abcd:abcd", "acdb:abcd", "abcd:acdb", "acdb:acdb", "abcd:aBcd16b"})
      for (const dims& shape : shapes4) {
        const std::string t(pair);
        const std::string a = t.substr(0, t.find(':')), b = t.substr(t.find(':') + 1);
        compared += compare({shape, data_type::f32, q, a.c_str(), b.c_str()}, rng);
        compared += compare({shape, q, data_type::f32, b.c_str(), a.c_str()}, rng);
        total += 2;
      }
    for (const char* b : {"abcde", "aBCde16c16b", "aBCde8c16b2c", "aBCde8b16c2b", "aBCde2c4b2c", "aBCde4c8b2c"})
      for (const dims& shape : shapes5) {
        compared += compare({shape, data_type::f32, q, "abcde", b}, rng);
        compared += compare({shape, q, data_type::f32, b, "abcde"}, rng);
        total += 2;
      }
    for (const dims& shape : {dims{15, 16}, dims{16, 15}, dims{16, 16}, dims{17, 33}}) {
      compared += compare({shape, q, q, "ab", "ba"}, rng);
      compared += compare({shape, q, data_type::f32, "ab", "ba"}, rng);
      compared += compare({shape, data_type::f32, q, "ba", "ab"}, rng);
      total += 3;
    }
  }
  // oneDNN 3.13.2 runs 112 of the 204 (none with some 4-D shapes, nor s4 -> s4 or
  // u4 -> u4; odd strides, which neither library makes, count as not run), and each
  // must equal memfmt's
  INFO("oneDNN " << memfmt_onednn::version() << " ran " << compared << " of " << total);
  CHECK(compared >= 112);
}

TEST_CASE("s4 and u4 with scales and zero points") {
  std::mt19937 rng(8);
  int compared = 0, total = 0;
  for (const data_type q : {data_type::u4, data_type::s4}) {
    const std::int32_t zp = q == data_type::u4 ? 8 : 1;
    reorder_attr quantize;
    quantize.dst_scales = {0, {0.5f}};
    quantize.dst_zero_points = memfmt::zero_points::common(zp);
    reorder_attr dequantize;
    dequantize.src_scales = {0, {0.25f}};
    dequantize.src_zero_points = memfmt::zero_points::common(zp);
    for (const auto& [shape, a, b] : {std::tuple{dims{2, 64, 64, 3, 3}, "abcde", "abcde"}, std::tuple{dims{2, 16, 6, 3, 2}, "abcde", "aBCde2c4b2c"},
                                      std::tuple{dims{16, 16}, "ba", "ab"}}) {
      reorder_attr per_channel;
      per_channel.src_scales = {0b10, std::vector<float>(static_cast<std::size_t>(shape[1]), 2.f)};
      compared += compare({shape, data_type::f32, q, a, b, quantize}, rng);
      compared += compare({shape, q, data_type::f32, b, a, dequantize}, rng);
      compared += compare({shape, q, data_type::f32, b, a, per_channel}, rng);
      total += 3;
    }
  }
  // oneDNN 3.13.2 runs 2 of the 18 (it creates few s4 and u4 reorders with attributes)
  INFO("oneDNN " << memfmt_onednn::version() << " ran " << compared << " of " << total);
  CHECK(compared >= 2);
}

}  // namespace

namespace {

// Scales per group of the last two dims of `shape` (groups {g0, g1}), stored as `type`:
// powers of two when `exact` (a quantization divides by them), else values with 8 bits
// of significand (in f16 and bf16 alike).
memfmt::scales grouped_scales(const dims& shape, dim g0, dim g1, memfmt::scale_type type, bool exact) {
  const int n = shape.size();
  memfmt::scales s{(1 << n) - 1, {}, {}, type};
  dim count = 1;
  for (int d = 0; d < n; ++d) {
    const dim g = d == n - 2 ? g0 : d == n - 1 ? g1 : 1;
    s.groups.push_back(g);
    count *= shape[d] / g;
  }
  for (dim k = 0; k < count; ++k) {
    const float p = std::ldexp(1.f, static_cast<int>(k % 5) - 2);
    s.values.push_back(exact || type == memfmt::scale_type::e8m0 ? p : p * (1.f + static_cast<float>(k % 7) / 128));
  }
  return s;
}

// Zero points laid out as grouped_scales, in `type`'s range.
memfmt::zero_points grouped_zero_points(const memfmt::scales& like, data_type type) {
  const bool is_signed = type == data_type::s32 || type == data_type::s8 || type == data_type::s4;
  memfmt::zero_points z{like.mask, {}, like.groups, type};
  for (std::size_t k = 0; k < like.values.size(); ++k) z.values.push_back((is_signed ? -8 : 0) + static_cast<int>(k * 5 % 16));
  return z;
}

}  // namespace

TEST_CASE("grouped scales and zero points in their storage types, as oneDNN's decompression batch runs them") {
  std::mt19937 rng(35);
  int compared = 0, total = 0;
  const std::tuple<dims, dim, dim> groupings[] = {{dims{128, 16}, 8, 1}, {dims{128, 16}, 1, 16}, {dims{64, 48}, 16, 8},
                                                  {dims{12, 25, 16, 32}, 1, 16}};
  for (const auto& [shape, g0, g1] : groupings) {
    const bool four = shape.size() == 4;
    for (const char* tag : {four ? "abcd" : "ab", four ? "abdc" : "ba"}) {
      // dequantize: s_src * (src - zp_src), into f32, bf16 and f16
      for (const data_type q : {data_type::s8, data_type::u8, data_type::s4, data_type::u4}) {
        for (const memfmt::scale_type st : {memfmt::scale_type::f32, memfmt::scale_type::f16, memfmt::scale_type::bf16,
                                            memfmt::scale_type::e8m0}) {
          problem p{shape, q, data_type::f32, tag, four ? "abcd" : "ab"};
          p.attr.src_scales = grouped_scales(shape, g0, g1, st, false);
          p.attr.src_zero_points = grouped_zero_points(p.attr.src_scales, q == data_type::s4 || q == data_type::u4 ? q : data_type::s8);
          for (const data_type to : {data_type::f32, data_type::bf16, data_type::f16}) {
            p.to = to;
            compared += compare(p, rng);
            ++total;
          }
        }
      }
      // quantize: f32 / s_dst + zp_dst, into 8 and 4 bits
      for (const data_type q : {data_type::s8, data_type::u8, data_type::s4, data_type::u4}) {
        for (const data_type zt : {data_type::s32, data_type::s8, data_type::u8, data_type::s4, data_type::u4}) {
          problem p{shape, data_type::f32, q, four ? "abcd" : "ab", tag};
          p.attr.dst_scales = grouped_scales(shape, g0, g1, memfmt::scale_type::f32, true);
          p.attr.dst_zero_points = grouped_zero_points(p.attr.dst_scales, zt);
          compared += compare(p, rng);
          ++total;
        }
      }
    }
  }
  // oneDNN 3.13.2 runs 352 of the 544 (it refuses some zero point types and groups), and
  // each must equal memfmt's
  INFO("oneDNN " << memfmt_onednn::version() << " ran " << compared << " of " << total);
  CHECK(compared >= 352);
}
