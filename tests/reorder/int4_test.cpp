// s4 and u4 through memfmt::reorder, against exact arithmetic written here: every 4-bit
// pattern into every type, every 8- and 16-bit pattern and f32/f64 values around every
// rounding boundary into s4 and u4, packing (element 2k in the low nibble) in layouts
// with odd extents, padding, gaps and views, attributes, threads, and the errors.
#include <catch2/catch.hpp>

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

constexpr data_type byte_types[] = {data_type::f32, data_type::bf16,    data_type::f16,     data_type::s32, data_type::s8,
                                    data_type::u8,  data_type::f8_e5m2, data_type::f8_e4m3, data_type::f64};

// The value of element `offset` (linear) of a packed buffer (reference.hpp's reading).
int int4_at(data_type dt, const std::vector<unsigned char>& b, dim offset) { return nibble_value(dt, b.data(), offset); }

// The value of an element of a byte type, decoded from its bits here (f8: sign,
// exponent, significand; E4M3 has no infinities and NaN at S.1111.111).
double decoded(data_type dt, const unsigned char* p) {
  std::uint64_t b = 0;
  std::memcpy(&b, p, memfmt::data_type_size(dt));
  switch (dt) {
    case data_type::f64: return std::bit_cast<double>(b);
    case data_type::f8_e5m2: return value_of(data_type::f16, static_cast<std::uint32_t>(b << 8));
    case data_type::f8_e4m3: {
      const double sign = (b & 0x80) != 0 ? -1 : 1;
      const int e = static_cast<int>(b >> 3 & 15), m = static_cast<int>(b & 7);
      if (e == 15 && m == 7) return std::numeric_limits<double>::quiet_NaN();
      return sign * std::ldexp(e == 0 ? m : m + 8, (e == 0 ? 1 : e) - 7 - 3);
    }
    default: return value_of(dt, static_cast<std::uint32_t>(b));
  }
}

// Significand bits (the implicit one included) of a floating-point byte type.
int digits(data_type dt) {
  switch (dt) {
    case data_type::f8_e5m2: return 3;
    case data_type::f8_e4m3: return 4;
    case data_type::bf16: return 8;
    case data_type::f16: return 11;
    case data_type::f32: return 24;
    default: return 53;
  }
}

// An integer v in [-8, 15] as `dt` holds it: integers saturate, floating point rounds
// to nearest even at its precision (every format here holds 16 without overflow).
double stored_integer(data_type dt, int v) {
  if (dt == data_type::u8) return v < 0 ? 0 : v;
  if (!memfmt::is_floating_point(dt) || v == 0) return v;
  const double spacing = std::ldexp(1.0, std::ilogb(static_cast<double>(v)) - (digits(dt) - 1));
  return std::nearbyint(v / spacing) * spacing;
}

// A value stored in s4 or u4: NaN is 0, else rounded to nearest even and saturated.
int stored_int4(data_type dt, double x) {
  if (std::isnan(x)) return 0;
  const double lo = dt == data_type::s4 ? -8 : 0, hi = dt == data_type::s4 ? 7 : 15;
  return static_cast<int>(std::clamp(std::nearbyint(x), lo, hi));
}

// `count` elements of `dt` in a dense 1-D tensor, converted to `to` (1-D, dense).
std::vector<unsigned char> convert_1d(data_type dt, data_type to, const std::vector<unsigned char>& src, dim count) {
  const desc s({count}, dt, "a"), d({count}, to, "a");
  std::vector<unsigned char> out(d.get_size() + 1, 0xA5);
  reorder(s, d).execute(src.data(), out.data());
  CHECK(out.back() == 0xA5);  // nothing past the tensor
  return out;
}

TEST_CASE("every s4 and u4 pattern converts exactly to every type") {
  for (const data_type from : {data_type::s4, data_type::u4}) {
    // the 16 patterns, twice, in both nibble orders
    std::vector<unsigned char> packed;
    for (unsigned k = 0; k < 16; ++k) packed.push_back(static_cast<unsigned char>(k | (15 - k) << 4));
    for (const data_type to : byte_types) {
      INFO(to_string(from) << " -> " << to_string(to));
      const std::vector<unsigned char> out = convert_1d(from, to, packed, 32);
      const std::size_t size = memfmt::data_type_size(to);
      for (dim k = 0; k < 32; ++k) {
        const int v = int4_at(from, packed, k);
        INFO("element " << k << " = " << v);
        CHECK(decoded(to, out.data() + k * size) == stored_integer(to, v));
      }
    }
    for (const data_type to : {data_type::s4, data_type::u4}) {
      INFO(to_string(from) << " -> " << to_string(to));
      const std::vector<unsigned char> out = convert_1d(from, to, packed, 32);
      for (dim k = 0; k < 32; ++k) CHECK(int4_at(to, out, k) == stored_int4(to, int4_at(from, packed, k)));
    }
  }
}

// The source elements `src` (of `dt`, `count` of them) into s4 and u4, checked against
// their decoded values.
void check_into_int4(data_type dt, const std::vector<unsigned char>& src, dim count) {
  const std::size_t size = memfmt::data_type_size(dt);
  for (const data_type to : {data_type::s4, data_type::u4}) {
    const std::vector<unsigned char> out = convert_1d(dt, to, src, count);
    dim wrong = 0;
    for (dim k = 0; k < count; ++k) {
      const double x = decoded(dt, src.data() + k * size);
      if (int4_at(to, out, k) != stored_int4(to, x) && ++wrong <= 5)
        FAIL_CHECK(to_string(dt) << " " << x << " -> " << to_string(to) << ": " << int4_at(to, out, k)
                                 << ", expected " << stored_int4(to, x));
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("every 8- and 16-bit pattern converts exactly to s4 and u4") {
  for (const data_type dt : {data_type::s8, data_type::u8, data_type::f8_e5m2, data_type::f8_e4m3}) {
    std::vector<unsigned char> src(256);
    for (int k = 0; k < 256; ++k) src[static_cast<std::size_t>(k)] = static_cast<unsigned char>(k);
    check_into_int4(dt, src, 256);
  }
  for (const data_type dt : {data_type::f16, data_type::bf16}) {
    std::vector<unsigned char> src(2 * 65536);
    for (std::uint32_t k = 0; k < 65536; ++k) std::memcpy(src.data() + 2 * k, &k, 2);
    check_into_int4(dt, src, 65536);
  }
}

TEST_CASE("f32, f64 and s32 values around every rounding boundary convert exactly to s4 and u4") {
  std::vector<double> values = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, 1e-45, -1e-45, 1e30, -1e30, 2147483647.0, -2147483648.0};
  for (int k = -20; k <= 20; ++k)
    for (const double base : {static_cast<double>(k), k + 0.5})
      for (int step = -3; step <= 3; ++step) values.push_back(base + step * std::ldexp(1.0, -20));
  std::vector<float> f32s;
  std::vector<double> f64s;
  std::vector<std::int32_t> s32s;
  for (const double v : values) {
    const auto f = static_cast<float>(v);
    f32s.insert(f32s.end(), {std::nextafter(f, -INFINITY), f, std::nextafter(f, INFINITY)});
    f64s.insert(f64s.end(), {std::nextafter(v, -INFINITY), v, std::nextafter(v, INFINITY)});
    if (std::isfinite(v) && std::fabs(v) < 2e9) s32s.push_back(static_cast<std::int32_t>(v));
  }
  s32s.insert(s32s.end(), {INT32_MIN, INT32_MAX, INT32_MIN + 1, 16, -9});
  const auto bytes = [](const auto& v) {
    std::vector<unsigned char> b(v.size() * sizeof v[0]);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  check_into_int4(data_type::f32, bytes(f32s), static_cast<dim>(f32s.size()));
  check_into_int4(data_type::f64, bytes(f64s), static_cast<dim>(f64s.size()));
  check_into_int4(data_type::s32, bytes(s32s), static_cast<dim>(s32s.size()));
}

// Random values (integers in [-10, 17] and halves) of an f32 tensor in layout `s`.
std::vector<float> some_values(const desc& s, std::mt19937& rng) {
  std::vector<float> v(bytes_spanned(s) / 4);
  std::uniform_int_distribution<int> pick(-20, 34);
  for (float& x : v) x = static_cast<float>(pick(rng)) / 2;
  return v;
}

TEST_CASE("packing: element 2k in the low nibble, in layouts with odd extents, padding, gaps and views") {
  std::mt19937 rng(7);
  struct layout {
    desc d;
    const char* name;
  };
  for (const data_type to : {data_type::s4, data_type::u4}) {
    const std::vector<layout> layouts = {
        {desc({5}, to, "a"), "5 a (the last byte half used)"},
        {desc({3, 6}, to, "ab"), "3x6 ab"},
        {desc({6, 3}, to, "ba"), "6x3 ba"},
        {desc({17, 34}, to, "ab"), "17x34 ab"},
        {desc({2, 19, 3, 3}, to, "OIhw16i16o"), "OIhw16i16o, padded"},
        {desc({2, 19, 3, 3}, to, "OIhw8i16o2i"), "OIhw8i16o2i, padded"},
        {desc({64, 40}, to, "BA16a64b4a"), "BA16a64b4a, padded"},
        {desc({4, 6}, to, dims{16, 2}), "strides 16 and 2 (gaps)"},
        {desc({8, 10}, to, "ab").submemory_desc({4, 6}, {2, 2}), "a view of 8x10 ab at (2, 2)"},
        {desc({126}, to, "A8a5a").submemory_desc({6}, {80}), "a view of a part of a block of 40"},
    };
    for (const layout& l : layouts) {
      for (const int threads : {1, 2}) {
        INFO(l.name << " " << to_string(to) << ", threads " << threads);
        const desc src(l.d.get_dims(), data_type::f32, dims{});
        const std::vector<float> values = some_values(src, rng);
        // the destination buffer starts as garbage: what is outside the tensor must stay
        std::vector<unsigned char> out(bytes_spanned(l.d) + 1, 0x5A), before = out;
        reorder_attr attr;
        attr.threads = threads;
        reorder(src, l.d, attr).execute(values.data(), out.data());
        std::vector<bool> touched(out.size() * 2, false);
        for_each_index(l.d.get_padded_dims(), [&](const dims& i) {
          bool inside = true;
          for (int d = 0; d < i.size(); ++d) inside = inside && i[d] < l.d.get_dims()[d];
          const dim at = inside ? l.d.offset(i) : memfmt::detail::padded_offset(l.d, i);
          touched[static_cast<std::size_t>(at)] = true;
          const int expected = inside ? stored_int4(to, values[static_cast<std::size_t>(src.offset(i))]) : 0;
          if (int4_at(to, out, at) != expected)
            FAIL_CHECK("element " << at << ": " << int4_at(to, out, at) << ", expected " << expected);
        });
        for (std::size_t k = 0; k < touched.size(); ++k)
          if (!touched[k] && int4_at(data_type::u4, out, static_cast<dim>(k)) != int4_at(data_type::u4, before, static_cast<dim>(k)))
            FAIL_CHECK("nibble " << k << " outside the tensor was written");
      }
    }
  }
}

TEST_CASE("threads: large tensors pack and unpack by pieces, each element once") {
  std::mt19937 rng(5);
  const dims shape{4, 100001 * 2};  // pieces of 2^16 elements and a short last one
  const desc f(shape, data_type::f32, "ab");
  const std::vector<float> values = some_values(f, rng);
  for (const data_type q : {data_type::s4, data_type::u4})
    for (const int threads : {1, 2}) {
      INFO(to_string(q) << ", threads " << threads);
      reorder_attr attr;
      attr.threads = threads;
      const desc d(shape, q, "ba");
      std::vector<unsigned char> packed(d.get_size(), 0x77);
      reorder(f, d, attr).execute(values.data(), packed.data());
      std::vector<float> back(values.size(), -1.f);
      reorder(d, f, attr).execute(packed.data(), back.data());
      dim wrong = 0;
      for_each_index(shape, [&](const dims& i) {
        const int v = stored_int4(q, values[static_cast<std::size_t>(f.offset(i))]);
        wrong += int4_at(q, packed, d.offset(i)) != v || back[static_cast<std::size_t>(f.offset(i))] != v;
      });
      CHECK(wrong == 0);
    }
}

TEST_CASE("s4 and u4 sources in blocked layouts, garbage in their padding, into f32 and bf16") {
  std::mt19937 rng(11);
  for (const data_type from : {data_type::s4, data_type::u4})
    for (const char* t : {"ab", "ba", "AB16b16a", "BA16a64b4a"}) {
      const desc s({38, 70}, from, t);
      std::vector<unsigned char> src(bytes_spanned(s));
      for (unsigned char& b : src) b = static_cast<unsigned char>(rng());
      for (const data_type to : {data_type::f32, data_type::bf16}) {
        INFO(to_string(from) << " " << t << " -> " << to_string(to));
        const desc d({38, 70}, to, "ba");
        std::vector<unsigned char> out(d.get_size());
        reorder(s, d).execute(src.data(), out.data());
        dim wrong = 0;
        for_each_index(s.get_dims(), [&](const dims& i) {
          const int v = int4_at(from, src, s.offset(i));
          wrong += decoded(to, out.data() + d.offset(i) * memfmt::data_type_size(to)) != v;
        });
        CHECK(wrong == 0);
      }
    }
}

TEST_CASE("grouped scales, zero points and a sum into u4 and s4, as docs/reorder.md orders them") {
  // oi weights, one scale per output channel and group of 4 input channels, a
  // destination zero point (u4) and a sum
  const dims shape{6, 16};
  std::mt19937 rng(3);
  std::vector<float> w(96), scales(6 * 4);
  std::uniform_real_distribution<float> real(-9.f, 9.f);
  for (float& x : w) x = real(rng);
  for (float& x : scales) x = std::ldexp(1.f, static_cast<int>(rng() % 4) - 1);  // 0.5 .. 4: exact quotients
  for (const data_type to : {data_type::u4, data_type::s4})
    for (const float beta : {0.f, 1.f}) {
      INFO(to_string(to) << " beta " << beta);
      reorder_attr attr;
      attr.dst_scales = {0b11, scales, {1, 4}};
      attr.dst_zero_points = memfmt::zero_points::common(to == data_type::u4 ? 8 : 1);
      attr.sum_beta = beta;
      const desc s(shape, data_type::f32, "ab"), d(shape, to, "BA16a64b4a");
      std::vector<unsigned char> out(d.get_size());
      for (unsigned char& b : out) b = static_cast<unsigned char>(rng());
      const std::vector<unsigned char> old = out;
      reorder(s, d, attr).execute(w.data(), out.data());
      for_each_index(shape, [&](const dims& i) {
        const float t = scales[static_cast<std::size_t>(i[0] * 4 + i[1] / 4)];
        const auto zp = static_cast<float>(attr.dst_zero_points.common_value());
        float x = static_cast<float>(1.0 / t) * w[static_cast<std::size_t>(i[0] * 16 + i[1])];
        if (beta != 0.f)
          x = x + static_cast<float>(beta / t) * (static_cast<float>(int4_at(to, old, d.offset(i))) - zp);
        x = x + zp;
        CHECK(int4_at(to, out, d.offset(i)) == stored_int4(to, x));
      });
    }
}

TEST_CASE("large weights a region at a time: grouped scales, zero points, a sum, threads, and back") {
  // oi weights, one scale per output channel and 128 input channels (one scale with a sum,
  // which takes per-index scales element by element), a zero point; large enough that the
  // reorder on bytes runs in regions (pass/chunks.hpp), whose plan says so
  const dims shape{512, 384};
  std::mt19937 rng(13);
  std::vector<float> w(512 * 384), scales(512 * 3);
  std::uniform_real_distribution<float> real(-9.f, 9.f);
  for (float& x : w) x = real(rng);
  for (float& x : scales) x = std::ldexp(1.f, static_cast<int>(rng() % 4) - 1);  // 0.5 .. 4: exact quotients
  const memfmt::scales grouped{0b11, scales, {1, 128}};
  const desc f(shape, data_type::f32, "ab");
  int regions = 0;
  for (const data_type q : {data_type::u4, data_type::s4})
    for (const char* tag : {"BA16a64b4a", "AB16b16a", "ab", "ba"})
      for (const float beta : {0.f, 1.f})
        for (const int threads : {1, 2}) {
          INFO(to_string(q) << " " << tag << " beta " << beta << ", threads " << threads);
          const desc d(shape, q, tag);
          const int zp = q == data_type::u4 ? 8 : 1;
          reorder_attr attr;
          attr.threads = threads;
          attr.dst_scales = beta == 0.f ? grouped : memfmt::scales{0, {2.f}};
          attr.dst_zero_points = memfmt::zero_points::common(zp);
          attr.sum_beta = beta;
          std::vector<unsigned char> out(d.get_size() + 1);
          for (unsigned char& b : out) b = static_cast<unsigned char>(rng());
          const std::vector<unsigned char> old = out;
          const reorder pack(f, d, attr);
          const bool in_regions = pack.plan_str().find("regions") != std::string::npos;
          regions += in_regions;
          if (std::string(tag) == "BA16a64b4a") CHECK(in_regions);
          pack.execute(w.data(), out.data());
          CHECK(out.back() == old.back());  // nothing past the tensor
          dim wrong = 0;
          for_each_index(shape, [&](const dims& i) {
            const float t = beta == 0.f ? scales[static_cast<std::size_t>(i[0] * 3 + i[1] / 128)] : 2.f;
            float x = static_cast<float>(1.0 / t) * w[static_cast<std::size_t>(i[0] * 384 + i[1])];
            if (beta != 0.f)
              x = x + static_cast<float>(beta / t) * (static_cast<float>(int4_at(q, old, d.offset(i))) - static_cast<float>(zp));
            x = x + static_cast<float>(zp);
            wrong += int4_at(q, out, d.offset(i)) != stored_int4(q, x);
          });
          CHECK(wrong == 0);
          // and back to f32: s * (v - zp), exact in f32
          reorder_attr back_attr;
          back_attr.threads = threads;
          back_attr.src_scales = grouped;
          back_attr.src_zero_points = memfmt::zero_points::common(zp);
          const reorder unpack(d, f, back_attr);
          regions += unpack.plan_str().find("regions") != std::string::npos;
          std::vector<float> back(w.size() + 1, -1.f);
          unpack.execute(out.data(), back.data());
          CHECK(back.back() == -1.f);
          wrong = 0;
          for_each_index(shape, [&](const dims& i) {
            const float t = scales[static_cast<std::size_t>(i[0] * 3 + i[1] / 128)];
            wrong += back[static_cast<std::size_t>(i[0] * 384 + i[1])] != t * static_cast<float>(int4_at(q, out, d.offset(i)) - zp);
          });
          CHECK(wrong == 0);
        }
  CHECK(regions >= 40);  // (most packings and some unpackings: the regions were tested)
}

TEST_CASE("s4 weights a region at a time into s8 with compensation, as the reference writes it") {
  // the packed source in regions, the destination's compensation after them
  std::mt19937 rng(17);
  for (const memfmt::dim o : {64, 128}) {
    const dims shape{o, 48, 4, 4};
    const desc s(shape, data_type::s4, "oihw");
    const desc d = desc(shape, data_type::s8, "OIhw4i16o4i")
                       .with_extra(weights_extra(memfmt::extra_flags::compensation_conv_s8s8, 1));
    std::vector<unsigned char> src(s.get_size());
    for (unsigned char& b : src) b = static_cast<unsigned char>(rng());
    const reorder r(s, d);
    INFO(o << " output channels\n" << r.plan_str());
    CHECK(r.plan_str().find("regions") != std::string::npos);
    std::vector<unsigned char> out(d.get_size(), 0x5A), expected(d.get_size(), 0x5A);
    r.execute(src.data(), out.data());
    reference_reorder(s, d, {}, src.data(), expected.data());
    const bool same = out == expected;  // (not printed: 50 KiB)
    CHECK(same);
  }
}

TEST_CASE("s4 and u4 descriptors: sizes in half bytes, the strides and views oneDNN allows") {
  CHECK(desc({9}, data_type::s4, "a").get_size() == 5);  // the last byte half used
  CHECK(desc({2, 19, 3, 3}, data_type::u4, "OIhw16i16o").get_size() == 32 * 16 * 9 / 2);
  CHECK(desc({4, 6}, data_type::u4, dims{16, 2}).get_size() == 4 * 16 / 2);  // (oneDNN: extent x stride of the outermost dim)
  CHECK(memfmt::data_type_bits(data_type::s4) == 4);
  CHECK(memfmt::to_string(data_type::u4) == "u4");
  // oneDNN 3.x's rule: a dim that steps over more than one element steps over whole
  // bytes, whatever makes the strides (given, a tag, a reshape, another library's fields)
  const char* odd = "s4 packs two elements per byte, so dim 0's stride must be 0, 1 or even (is 3)";
  CHECK_THROWS_WITH(desc({4, 3}, data_type::s4, dims{3, 1}), Catch::Contains(odd));
  CHECK_THROWS_WITH(desc({4, 3}, data_type::s4, "ab"), Catch::Contains(odd));
  CHECK_THROWS_WITH(desc({2, 3, 3}, data_type::u4, "abc"), Catch::Contains("u4 packs two elements per byte, so dim 0's stride must be 0, 1 or even (is 9)"));
  CHECK(desc({4, 3}, data_type::s4, "ab", true).is_zero());
  CHECK_NOTHROW(desc({1, 3}, data_type::s4, dims{3, 1}));  // (a dim of 1 never steps)
  CHECK_NOTHROW(desc({4, 3}, data_type::s4, "Ab2a"));      // (where `ab` is refused: strides 6 and 2)
  CHECK_THROWS_WITH(desc({4, 6}, data_type::s4, "ab").reshape({4, 2, 3}), Catch::Contains("dim 1 would have stride 3"));
  CHECK_THROWS_WITH(desc({3, 10}, data_type::u4, "ab").submemory_desc({2, 5}, {1, 5}),
                    Catch::Contains("a view of u4 must start on a byte, but starts at element 15"));
  CHECK_NOTHROW(desc({4, 10}, data_type::u4, "ab").submemory_desc({2, 5}, {1, 2}));
  memfmt::desc_fields f = desc({4, 6}, data_type::s4, "ab").fields();
  f.offset0 = 3;
  CHECK_THROWS_WITH(desc::from_fields(f), Catch::Contains("a view of s4 must start on a byte, but offset0 is 3"));
  // compensation sums s8 or u8 weights
  const desc comp = desc({16, 16}, data_type::s8, "ab").with_extra(weights_extra(memfmt::extra_flags::compensation_conv_s8s8, 1));
  memfmt::desc_fields g = comp.fields();
  g.dt = data_type::s4;
  CHECK_THROWS_WITH(reorder(desc({16, 16}, data_type::f32, "ab"), desc::from_fields(g)), Catch::Contains("holds s4"));
}

TEST_CASE("memory: s4 and u4 elements by value, never by reference") {
  memfmt::memory m(desc({9}, data_type::s4, "a"));
  for (int k = 0; k < 9; ++k) m.set_int4({k}, k - 8 + (k > 4 ? 6 : 0));
  for (int k = 0; k < 9; ++k) CHECK(m.get_int4({k}) == k - 8 + (k > 4 ? 6 : 0));
  const auto* b = static_cast<const unsigned char*>(m.get_data_handle());
  CHECK(b[0] == (0x8 | 0x9 << 4));  // -8 low, -7 high
  CHECK_THROWS_WITH(m.set_int4({0}, 8), Catch::Contains("8 does not fit s4"));
  CHECK_THROWS_WITH(m.at<std::int8_t>({0}), Catch::Contains("s4 elements are packed two per byte"));
  memfmt::memory f(desc({2}, data_type::f32, "a"));
  CHECK_THROWS_WITH(f.get_int4({0}), Catch::Contains("the data type is f32, not s4 or u4"));
  // padding nibbles are zeroed on allocation; their neighbours are the user's
  memfmt::memory p(desc({3, 17}, data_type::u4, "AB16b16a"));
  const auto* q = static_cast<const unsigned char*>(p.get_data_handle());
  const desc& pd = p.get_desc();
  for_each_index(pd.get_padded_dims(), [&](const dims& i) {
    if (i[0] >= 3 || i[1] >= 17) CHECK(nibble_value(data_type::u4, q, memfmt::detail::padded_offset(pd, i)) == 0);
  });
}

}  // namespace
