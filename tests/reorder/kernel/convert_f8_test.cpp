// The f8 conversions of convert_scalar.hpp against exact arithmetic in double: every
// one of the 256 patterns of each format decoded, and f32 -> f8 at and around every
// rounding point (midpoints between neighbouring f8 values, the overflow threshold,
// half the smallest subnormal), over the f32 patterns near every f8 rounding bit, and
// at random.

#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <memfmt/reorder/kernel/convert_scalar.hpp>

#include "f8_values.hpp"

namespace {

using memfmt::detail::f8_format;

/// The layout of a format, written out from the OFP8 specification (not from the code
/// under test): exponent and mantissa bits, bias, and which patterns are special.
struct format_spec {
  int e_bits, m_bits, bias;
  bool has_inf;  // E5M2: S.11111.00 is Inf, S.11111.xx NaN; E4M3: only S.1111.111 is NaN
};

constexpr format_spec spec(f8_format f) {
  return f == f8_format::e5m2 ? format_spec{5, 2, 15, true} : format_spec{4, 3, 7, false};
}

bool is_nan_pattern(f8_format f, unsigned b) {
  const format_spec s = spec(f);
  const unsigned exp = (b >> s.m_bits) & ((1u << s.e_bits) - 1), mant = b & ((1u << s.m_bits) - 1);
  const unsigned top = (1u << s.e_bits) - 1;
  return s.has_inf ? exp == top && mant != 0 : exp == top && mant == (1u << s.m_bits) - 1;
}

bool is_inf_pattern(f8_format f, unsigned b) {
  const format_spec s = spec(f);
  return s.has_inf && (b & 0x7F) == ((1u << s.e_bits) - 1) << s.m_bits;
}

/// The value of a finite pattern, in double.
double exact_value(f8_format f, unsigned b) {
  const format_spec s = spec(f);
  const unsigned exp = (b >> s.m_bits) & ((1u << s.e_bits) - 1), mant = b & ((1u << s.m_bits) - 1);
  const double magnitude = exp == 0 ? std::ldexp(mant, 1 - s.bias - s.m_bits)
                                    : std::ldexp((1 << s.m_bits) + mant, static_cast<int>(exp) - s.bias - s.m_bits);
  return (b & 0x80) ? -magnitude : magnitude;
}

/// The non-negative finite values in order, with their patterns, and one more: the
/// value the next pattern would have with an unbounded exponent, whose pattern is the
/// overflow result (E5M2: Inf, 0x7C, mantissa 0 and so even; E4M3: NaN, 0x7F, odd), so
/// that rounding to nearest even decides the overflow threshold as the specification does.
struct ladder {
  std::vector<double> values;
  std::vector<unsigned> patterns;
};

ladder make_ladder(f8_format f) {
  ladder l;
  unsigned b = 0;
  for (; b < 0x80 && !is_nan_pattern(f, b) && !is_inf_pattern(f, b); ++b) {
    l.values.push_back(exact_value(f, b));
    l.patterns.push_back(b);
  }
  const double top = l.values.back(), step = top - l.values[l.values.size() - 2];
  l.values.push_back(top + step);
  l.patterns.push_back(spec(f).has_inf ? b : 0x7F);
  return l;
}

/// f32 -> f8 by exact arithmetic: the nearest value, ties to the even pattern, beyond
/// the ladder the overflow pattern; NaN a NaN pattern, Inf the overflow pattern; the
/// sign kept, also when the result is zero. Returns the pattern, or -1 for "some NaN".
int exact_encode(f8_format f, const ladder& l, float x) {
  if (std::isnan(x)) return -1;
  const unsigned sign = std::signbit(x) ? 0x80 : 0;
  const double a = std::fabs(static_cast<double>(x));
  const auto hi = std::lower_bound(l.values.begin(), l.values.end(), a);
  if (hi == l.values.end()) return static_cast<int>(sign | l.patterns.back());
  const auto k = static_cast<std::size_t>(hi - l.values.begin());
  if (*hi == a || k == 0) return static_cast<int>(sign | l.patterns[k]);
  // a lies strictly between values[k - 1] and values[k]; both differences are exact
  // in double (a and both neighbours are multiples of a's f32 spacing or coarser)
  const double below = a - l.values[k - 1], above = l.values[k] - a;
  std::size_t pick = below < above ? k - 1 : above < below ? k : (l.patterns[k - 1] % 2 == 0 ? k - 1 : k);
  return static_cast<int>(sign | l.patterns[pick]);
  (void)f;
}

template <f8_format F>
void check_decode_all() {
  for (unsigned b = 0; b < 256; ++b) {
    const float got = memfmt::detail::f8_bits_to_f32<F>(static_cast<std::uint8_t>(b));
    INFO("pattern 0x" << std::hex << b);
    if (is_nan_pattern(F, b)) {
      CHECK(std::isnan(got));
      CHECK(std::signbit(got) == ((b & 0x80) != 0));
    } else if (is_inf_pattern(F, b)) {
      CHECK(got == ((b & 0x80) ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity()));
    } else {
      CHECK(static_cast<double>(got) == exact_value(F, b));
      CHECK(std::signbit(got) == ((b & 0x80) != 0));  // -0 included
    }
  }
}

/// The f32 values where f8 rounding is decided: each f8 value, each midpoint between
/// neighbours (including the one below the overflow value and half the smallest
/// subnormal), and the f32 values on both sides of each, with both signs.
std::vector<float> rounding_points(const ladder& l) {
  std::vector<float> v;
  const float inf = std::numeric_limits<float>::infinity();
  for (std::size_t k = 0; k < l.values.size(); ++k) {
    const auto point = static_cast<float>(l.values[k]);
    const float mid = k + 1 < l.values.size() ? static_cast<float>((l.values[k] + l.values[k + 1]) / 2) : point;
    for (const float p : {point, mid})
      for (const float q : {p, std::nextafter(p, inf), std::nextafter(p, 0.f)}) {
        v.push_back(q);
        v.push_back(-q);
      }
  }
  return v;
}

/// f32 patterns around every rounding bit of both formats, and random ones.
std::vector<float> pattern_sweep() {
  std::vector<float> v = memfmt_test::f8_rounding_bit_patterns();
  std::mt19937 rng(8);
  for (int i = 0; i < 1 << 20; ++i) v.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(rng())));
  return v;
}

template <f8_format F>
void check_encode(const std::vector<float>& values) {
  const ladder l = make_ladder(F);
  int checked = 0;
  for (const float x : values) {
    const int want = exact_encode(F, l, x);
    const unsigned got = memfmt::detail::f32_to_f8_bits<F>(x);
    if (want < 0) {
      if (!is_nan_pattern(F, got)) FAIL("f32 NaN 0x" << std::hex << std::bit_cast<std::uint32_t>(x) << " -> 0x" << got);
    } else if (static_cast<unsigned>(want) != got) {
      FAIL("f32 " << x << " (0x" << std::hex << std::bit_cast<std::uint32_t>(x) << ") -> 0x" << got << ", exact 0x"
                  << want);
    }
    ++checked;
  }
  CHECK(checked == static_cast<int>(values.size()));
}

}  // namespace

TEST_CASE("f8 -> f32 is exact for all 256 patterns", "[convert][f8]") {
  check_decode_all<f8_format::e5m2>();
  check_decode_all<f8_format::e4m3>();
}

TEST_CASE("the ladders are the formats' documented ranges", "[convert][f8]") {
  // the specification's extremes, so that the oracle above cannot drift with the code
  const ladder e5 = make_ladder(f8_format::e5m2), e4 = make_ladder(f8_format::e4m3);
  CHECK(e5.values[1] == std::ldexp(1.0, -16));
  CHECK(e5.values[e5.values.size() - 2] == 57344.0);
  CHECK(e5.patterns.back() == 0x7C);
  CHECK(e4.values[1] == std::ldexp(1.0, -9));
  CHECK(e4.values[e4.values.size() - 2] == 448.0);
  CHECK(e4.patterns.back() == 0x7F);
}

TEST_CASE("f32 -> f8 rounds once to nearest even at every rounding point", "[convert][f8]") {
  const std::vector<float> e5 = rounding_points(make_ladder(f8_format::e5m2));
  const std::vector<float> e4 = rounding_points(make_ladder(f8_format::e4m3));
  check_encode<f8_format::e5m2>(e5);
  check_encode<f8_format::e4m3>(e4);
  check_encode<f8_format::e5m2>(e4);
  check_encode<f8_format::e4m3>(e5);
}

TEST_CASE("f32 -> f8 over patterns near every rounding bit and at random", "[convert][f8]") {
  const std::vector<float> sweep = pattern_sweep();
  check_encode<f8_format::e5m2>(sweep);
  check_encode<f8_format::e4m3>(sweep);
}

TEST_CASE("f32 -> f8 special values", "[convert][f8]") {
  using memfmt::detail::f32_to_f8_bits;
  constexpr float inf = std::numeric_limits<float>::infinity();
  // values a reader can check against the specification's tables by hand
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e5m2>(1.f) == 0x3C);
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e4m3>(1.f) == 0x38);
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e5m2>(-0.f) == 0x80);
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e4m3>(-0.f) == 0x80);
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e5m2>(inf) == 0x7C);
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e5m2>(-inf) == 0xFC);
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e4m3>(inf) == 0x7F);
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e4m3>(-inf) == 0xFF);
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e4m3>(448.f) == 0x7E);
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e4m3>(464.f) == 0x7E);             // tie: to the even 448
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e4m3>(464.00003f) == 0x7F);        // past it: NaN
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e5m2>(57344.f) == 0x7B);
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e5m2>(61439.996f) == 0x7B);        // below the tie
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e5m2>(61440.f) == 0x7C);           // tie: to the even Inf
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e5m2>(0x1p-16f) == 0x01);          // smallest subnormal
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e5m2>(0x1p-17f) == 0x00);          // half of it: to even 0
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e5m2>(-0x1.000002p-17f) == 0x81);  // just past half
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e4m3>(0x1p-9f) == 0x01);
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e4m3>(-0x1p-10f) == 0x80);
  // rounded once, not through f16: 1 + 2^-3 + 2^-15 is above E5M2's midpoint 1.125
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e5m2>(1.f + 0x1p-3f + 0x1p-15f) == 0x3D);
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e4m3>(1.f + 0x1p-4f + 0x1p-15f) == 0x39);
  // NaN: the quiet NaN of the same sign
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e5m2>(std::bit_cast<float>(0x7FC00000u)) == 0x7E);
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e5m2>(std::bit_cast<float>(0xFF800001u)) == 0xFE);
  STATIC_REQUIRE(f32_to_f8_bits<f8_format::e4m3>(std::bit_cast<float>(0xFFC00000u)) == 0xFF);
}

TEST_CASE("f8 -> f32 -> f8 is the identity on every non-NaN pattern", "[convert][f8]") {
  using memfmt::detail::f32_to_f8_bits;
  using memfmt::detail::f8_bits_to_f32;
  for (unsigned b = 0; b < 256; ++b) {
    INFO("pattern 0x" << std::hex << b);
    if (!is_nan_pattern(f8_format::e5m2, b))
      CHECK(f32_to_f8_bits<f8_format::e5m2>(f8_bits_to_f32<f8_format::e5m2>(static_cast<std::uint8_t>(b))) == b);
    if (!is_nan_pattern(f8_format::e4m3, b))
      CHECK(f32_to_f8_bits<f8_format::e4m3>(f8_bits_to_f32<f8_format::e4m3>(static_cast<std::uint8_t>(b))) == b);
  }
}
