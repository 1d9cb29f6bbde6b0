// The f64 conversions against exact integer arithmetic written from the formats'
// layouts (not from the code under test): f64 -> every type rounded once to nearest
// even, densely around every rounding point of every destination (each value, each
// midpoint, the doubles next to them, the overflow threshold, half the smallest
// subnormal) and at random (subnormal doubles, huge ones, NaN with payloads,
// infinities, -0); every type -> f64 exactly, over all 8- and 16-bit patterns and
// random f32 and s32 values. Each check runs through the scalar reference
// (convert_element) and through a reorder on the kernel target of the session (the
// main runs the session once per target).

#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <memfmt/reorder/kernel/convert_scalar.hpp>
#include <memfmt/reorder/kernel/run.hpp>
#include <memfmt/reorder/reorder.hpp>

namespace {

using memfmt::data_type;
using memfmt::dim;
using memfmt::detail::conversion;

constexpr double inf = std::numeric_limits<double>::infinity();

/// A binary floating-point format as its specification lays it out.
struct format {
  data_type dt;
  int bits, e_bits, m_bits, bias;
  bool has_inf;              // else (E4M3) the all-ones exponent and mantissa is NaN, and no infinity
  std::uint64_t quiet_nan;   // the canonical quiet NaN memfmt documents for the type
};

constexpr format formats[] = {
    {data_type::f32, 32, 8, 23, 127, true, 0x7FC00000u},
    {data_type::bf16, 16, 8, 7, 127, true, 0x7FC0u},
    {data_type::f16, 16, 5, 10, 15, true, 0x7E00u},
    {data_type::f8_e5m2, 8, 5, 2, 15, true, 0x7Eu},
    {data_type::f8_e4m3, 8, 4, 3, 7, false, 0x7Fu},
};

std::uint64_t exp_ones(const format& f) { return (std::uint64_t{1} << f.e_bits) - 1; }
/// The largest finite pattern, and the pattern past it: infinity, or E4M3's NaN.
std::uint64_t max_finite(const format& f) {
  return f.has_inf ? ((exp_ones(f) - 1) << f.m_bits) | ((std::uint64_t{1} << f.m_bits) - 1)
                   : (exp_ones(f) << f.m_bits) | ((std::uint64_t{1} << f.m_bits) - 2);
}
std::uint64_t overflow(const format& f) { return f.has_inf ? exp_ones(f) << f.m_bits : max_finite(f) + 1; }

bool is_nan(const format& f, std::uint64_t b) {
  const std::uint64_t exp = (b >> f.m_bits) & exp_ones(f), mant = b & ((std::uint64_t{1} << f.m_bits) - 1);
  return exp == exp_ones(f) && (f.has_inf ? mant != 0 : mant == (std::uint64_t{1} << f.m_bits) - 1);
}

/// The value of a non-NaN pattern.
double decode(const format& f, std::uint64_t b) {
  const std::uint64_t exp = (b >> f.m_bits) & exp_ones(f), mant = b & ((std::uint64_t{1} << f.m_bits) - 1);
  const bool negative = (b >> (f.bits - 1) & 1) != 0;
  double magnitude;
  if (f.has_inf && exp == exp_ones(f)) magnitude = inf;
  else if (exp == 0) magnitude = std::ldexp(static_cast<double>(mant), 1 - f.bias - f.m_bits);
  else magnitude = std::ldexp(static_cast<double>((std::uint64_t{1} << f.m_bits) + mant), static_cast<int>(exp) - f.bias - f.m_bits);
  return negative ? -magnitude : magnitude;
}

/// `x` rounded once to nearest even into `f`, on the integer significand of the double:
/// past the largest finite value the overflow pattern, NaN the canonical quiet NaN, the
/// sign kept (-0 and values that round to zero included).
std::uint64_t encode(const format& f, double x) {
  if (std::isnan(x)) return f.quiet_nan;
  const std::uint64_t sign = std::signbit(x) ? std::uint64_t{1} << (f.bits - 1) : 0;
  const double a = std::fabs(x);
  if (std::isinf(a)) return sign | overflow(f);
  if (a == 0) return sign;
  int e2 = 0;
  const double frac = std::frexp(a, &e2);  // a = frac * 2^e2, frac in [0.5, 1)
  const auto m = static_cast<std::uint64_t>(std::ldexp(frac, 53));  // a = m * 2^(e2 - 53), exactly
  const int e = e2 - 53;
  const int emin = 1 - f.bias;
  int q = std::max(e2 - 1, emin) - f.m_bits;  // the exponent of f's spacing at a
  // (q - e >= 52 - m_bits > 0: m has more bits than f)
  std::uint64_t r = 0;
  if (const int shift = q - e; shift <= 60) {
    r = m >> shift;
    const std::uint64_t rest = m & ((std::uint64_t{1} << shift) - 1), half = std::uint64_t{1} << (shift - 1);
    if (rest > half || (rest == half && (r & 1) != 0)) ++r;
  }  // (else a is below 2^-7 of the spacing: zero)
  if (r == 0) return sign;
  const std::uint64_t one = std::uint64_t{1} << f.m_bits;
  if (r == 2 * one) {
    r = one;
    ++q;
  }
  std::uint64_t pattern = r;  // a subnormal counts spacings; its carry into `one` is the smallest normal
  if (r >= one) {
    const std::int64_t biased = q + f.m_bits + f.bias;
    if (biased > static_cast<std::int64_t>(exp_ones(f))) return sign | overflow(f);
    pattern = (static_cast<std::uint64_t>(biased) << f.m_bits) | (r - one);
  }
  return sign | (pattern > max_finite(f) ? overflow(f) : pattern);
}

/// `x` rounded to the nearest integer, ties to even, saturated to [lo, hi]; NaN 0.
std::int64_t round_saturate(double x, std::int64_t lo, std::int64_t hi) {
  if (std::isnan(x)) return 0;
  if (x <= static_cast<double>(lo)) return lo;
  if (x >= static_cast<double>(hi)) return hi;
  const double below = std::floor(x), part = x - below;  // exact: |x| < 2^32
  auto r = static_cast<std::int64_t>(below);
  if (part > 0.5 || (part == 0.5 && r % 2 != 0)) ++r;
  return std::min(std::max(r, lo), hi);
}

std::uint64_t bits_of(data_type dt, const void* p) {
  std::uint64_t b = 0;
  std::memcpy(&b, p, memfmt::data_type_size(dt));
  return b;
}

/// f64 -> `dt` by the oracle, as the destination's bits.
std::uint64_t expected_from_f64(data_type dt, double x) {
  for (const format& f : formats)
    if (f.dt == dt) return encode(f, x);
  switch (dt) {
    case data_type::s8: return static_cast<std::uint8_t>(static_cast<std::int8_t>(round_saturate(x, -128, 127)));
    case data_type::u8: return static_cast<std::uint8_t>(round_saturate(x, 0, 255));
    case data_type::s32:
      return static_cast<std::uint32_t>(static_cast<std::int32_t>(round_saturate(x, INT32_MIN, INT32_MAX)));
    default: break;
  }
  return std::bit_cast<std::uint64_t>(x);  // f64 -> f64
}

/// The elements of `src` (of type `from`) converted to `to` by `c`, by the scalar
/// reference and by a reorder of a 1-D tensor; checks that both agree and returns them.
std::vector<std::uint64_t> convert(conversion c, const std::vector<unsigned char>& src, const memfmt::reorder_attr& attr = {}) {
  const std::size_t ssz = memfmt::data_type_size(c.src), dsz = memfmt::data_type_size(c.dst);
  const auto n = static_cast<dim>(src.size() / ssz);
  std::vector<unsigned char> scalar(static_cast<std::size_t>(n) * dsz, 0x5A), planned(scalar.size() + 64, 0x5A);
  for (dim k = 0; k < n; ++k)
    memfmt::detail::convert_element(c, src.data() + k * static_cast<dim>(ssz), scalar.data() + k * static_cast<dim>(dsz), nullptr);
  const memfmt::reorder r(memfmt::desc({n}, c.src, "a"), memfmt::desc({n}, c.dst, "a"), attr);
  r.execute(src.data(), planned.data());
  std::vector<std::uint64_t> out(static_cast<std::size_t>(n));
  std::size_t differ = 0;
  for (dim k = 0; k < n; ++k) {
    out[static_cast<std::size_t>(k)] = bits_of(c.dst, scalar.data() + k * static_cast<dim>(dsz));
    differ += std::memcmp(scalar.data() + k * static_cast<dim>(dsz), planned.data() + k * static_cast<dim>(dsz), dsz) != 0;
  }
  INFO(memfmt::to_string(c.src) << " -> " << memfmt::to_string(c.dst) << " on " << hwy::TargetName(memfmt::detail::kernel_target_now()));
  CHECK(differ == 0);
  CHECK(std::all_of(planned.end() - 64, planned.end(), [](unsigned char b) { return b == 0x5A; }));
  return out;
}

template <class T>
std::vector<unsigned char> bytes_of(const std::vector<T>& v) {
  std::vector<unsigned char> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

/// Checks f64 -> `dt` of every value of `xs` against the oracle; returns how many.
std::size_t check_from_f64(data_type dt, const std::vector<double>& xs) {
  conversion c;
  c.src = data_type::f64;
  c.dst = dt;
  const std::vector<std::uint64_t> got = convert(c, bytes_of(xs));
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < xs.size(); ++k) {
    const std::uint64_t want = expected_from_f64(dt, xs[k]);
    if (got[k] == want) continue;
    if (++wrong <= 5)
      FAIL_CHECK("f64 " << xs[k] << " (0x" << std::hex << std::bit_cast<std::uint64_t>(xs[k]) << ") -> "
                        << memfmt::to_string(dt) << " 0x" << got[k] << ", exact 0x" << want);
  }
  CHECK(wrong == 0);
  return xs.size();
}

/// x and the doubles next to it, both signs.
void push_around(std::vector<double>& v, double x) {
  for (const double y : {x, std::nextafter(x, inf), std::nextafter(x, 0.0)}) {
    v.push_back(y);
    v.push_back(-y);
  }
}

/// The value of pattern `b` and the midpoint to the next one (past the largest finite
/// value: to the value the next pattern would have with an unbounded exponent), with the
/// doubles next to each: where f's rounding is decided.
void push_rounding_points(std::vector<double>& v, const format& f, std::uint64_t b) {
  const double x = decode(f, b);
  const double next = b < max_finite(f) ? decode(f, b + 1) : x + (x - decode(f, b - 1));
  push_around(v, x);
  push_around(v, (x + next) / 2);
}

/// Every rounding point of a format of at most 16 bits.
std::vector<double> rounding_points(const format& f) {
  std::vector<double> v;
  for (std::uint64_t b = 0; b <= max_finite(f); ++b) push_rounding_points(v, f, b);
  return v;
}

/// The same for f32, over every exponent with mantissas at the ends of the range and
/// around its middle, and random ones.
std::vector<double> f32_rounding_points() {
  std::vector<double> v;
  std::mt19937 rng(64);
  for (std::uint32_t exp = 0; exp < 255; ++exp)
    for (std::uint32_t mant : {0u, 1u, 2u, 3u, 0x3FFFFFu, 0x400000u, 0x400001u, 0x7FFFFEu, 0x7FFFFFu,
                               static_cast<std::uint32_t>(rng()) & 0x7FFFFFu, static_cast<std::uint32_t>(rng()) & 0x7FFFFFu})
      push_rounding_points(v, formats[0], exp << 23 | mant);
  return v;
}

/// Random doubles: random bit patterns (NaN with payloads, infinities, subnormal and
/// huge doubles among them), random values over the exponents of the narrower types
/// and of the integers, random subnormal doubles, and the special ones.
std::vector<double> random_doubles() {
  std::vector<double> v;
  std::mt19937_64 rng(6464);
  for (int k = 0; k < 1 << 18; ++k) v.push_back(std::bit_cast<double>(rng()));
  for (int k = 0; k < 1 << 18; ++k) {
    const auto exp = static_cast<std::uint64_t>(1023 - 160 + static_cast<int>(rng() % 300));
    v.push_back(std::bit_cast<double>((rng() & 0x800FFFFFFFFFFFFFu) | exp << 52));
  }
  for (int k = 0; k < 1 << 12; ++k) v.push_back(std::bit_cast<double>(rng() & 0x800FFFFFFFFFFFFFu));
  const std::uint64_t specials[] = {0x0000000000000000u, 0x8000000000000000u, 0x7FF0000000000000u, 0xFFF0000000000000u,
                                    0x7FF8000000000000u, 0xFFF8000000000000u, 0x7FF0000000000001u, 0xFFF4000000000123u,
                                    0x7FFFFFFFFFFFFFFFu, 0x0000000000000001u, 0x8000000000000001u, 0x0010000000000000u,
                                    0x7FEFFFFFFFFFFFFFu, 0xFFEFFFFFFFFFFFFFu};
  for (const std::uint64_t b : specials) v.push_back(std::bit_cast<double>(b));
  return v;
}

/// Integers and the halves between them over [lo, hi], and the doubles next to each.
std::vector<double> integer_points(std::int64_t lo, std::int64_t hi) {
  std::vector<double> v;
  for (std::int64_t k = lo; k <= hi; ++k)
    for (const double x : {static_cast<double>(k), static_cast<double>(k) + 0.5})
      for (const double y : {x, std::nextafter(x, inf), std::nextafter(x, -inf)}) v.push_back(y);
  return v;
}

}  // namespace

TEST_CASE("the oracle gives the formats' documented values", "[convert][f64]") {
  // values a reader checks by hand against the specifications, so that the oracle
  // cannot drift with the code
  CHECK(encode(formats[0], 1.0) == 0x3F800000u);
  CHECK(encode(formats[0], 0x1p-149) == 1u);
  CHECK(encode(formats[0], 0x1p-150) == 0u);                    // tie: to even zero
  CHECK(encode(formats[0], -0x1.0000000000001p-150) == 0x80000001u);
  CHECK(encode(formats[0], 0x1.ffffffp127) == 0x7F800000u);     // FLT_MAX + half a spacing: tie to even infinity
  CHECK(encode(formats[1], 1.0 + 0x1p-8) == 0x3F80u);           // tie: to even
  CHECK(encode(formats[2], 65504.0) == 0x7BFFu);
  CHECK(encode(formats[2], 65520.0) == 0x7C00u);
  CHECK(encode(formats[2], 0x1p-24) == 1u);
  CHECK(encode(formats[3], 57344.0) == 0x7Bu);
  CHECK(encode(formats[3], 61440.0) == 0x7Cu);
  CHECK(encode(formats[4], 448.0) == 0x7Eu);
  CHECK(encode(formats[4], 464.0) == 0x7Eu);
  CHECK(encode(formats[4], std::nextafter(464.0, inf)) == 0x7Fu);
  CHECK(encode(formats[4], -inf) == 0xFFu);
  CHECK(decode(formats[4], 0x7E) == 448.0);
  CHECK(decode(formats[1], 0x0001) == 0x1p-133);
  CHECK(round_saturate(2.5, -128, 127) == 2);
  CHECK(round_saturate(-3.5, -128, 127) == -4);
  CHECK(round_saturate(2147483647.5, INT32_MIN, INT32_MAX) == INT32_MAX);
}

TEST_CASE("f64 -> f32, bf16, f16, f8 rounds once at every rounding point", "[convert][f64]") {
  std::size_t checked = 0;
  const std::vector<double> f32_points = f32_rounding_points();
  for (const format& f : formats) {
    const std::vector<double> points = f.bits <= 16 ? rounding_points(f) : f32_points;
    INFO("points of " << memfmt::to_string(f.dt));
    for (const format& g : formats) checked += check_from_f64(g.dt, points);  // (the others' points too)
    for (const data_type dt : {data_type::s8, data_type::u8, data_type::s32}) checked += check_from_f64(dt, points);
  }
  CHECK(checked > 1'000'000);
}

TEST_CASE("f64 -> every type at random, with NaN payloads, infinities, subnormal and huge doubles", "[convert][f64]") {
  const std::vector<double> xs = random_doubles();
  for (const data_type dt : memfmt::all_data_types)
    if (dt != data_type::f64 && !memfmt::is_sub_byte(dt)) check_from_f64(dt, xs);  // (s4, u4: reorder.int4)
}

TEST_CASE("f64 -> s8, u8, s32 rounds half to even and saturates", "[convert][f64]") {
  check_from_f64(data_type::s8, integer_points(-140, 140));
  check_from_f64(data_type::u8, integer_points(-10, 265));
  std::vector<double> s32 = integer_points(-300, 300);
  for (const std::int64_t base : {std::int64_t{INT32_MAX} - 5, std::int64_t{INT32_MIN} - 5, std::int64_t{1} << 24, -(std::int64_t{1} << 30)}) {
    const std::vector<double> more = integer_points(base, base + 10);
    s32.insert(s32.end(), more.begin(), more.end());
  }
  for (const double x : {0x1p40, -0x1p40, 0x1p52 + 1, 1e300, -1e300, inf, -inf, std::nan("")}) s32.push_back(x);
  check_from_f64(data_type::s32, s32);
  // the f32 bound of f32 -> s32 does not apply: doubles reach INT32_MAX
  CHECK(expected_from_f64(data_type::s32, 2147483600.0) == 2147483600u);
}

TEST_CASE("f64 rounds once: through f32 first it would round twice", "[convert][f64]") {
  // just above a midpoint of the narrow type, by less than f32 can hold: through f32 the
  // value lands on the midpoint and goes to the even neighbour
  struct witness {
    data_type dt;
    double x;
    std::uint64_t once, twice;
  };
  const witness cases[] = {
      {data_type::f16, 1.0 + 0x1p-11 + 0x1p-40, 0x3C01, 0x3C00},
      {data_type::bf16, 1.0 + 0x1p-8 + 0x1p-40, 0x3F81, 0x3F80},
      {data_type::f8_e5m2, 1.0 + 0x1p-3 + 0x1p-40, 0x3D, 0x3C},
      {data_type::f8_e4m3, -(1.0 + 0x1p-4 + 0x1p-40), 0xB9, 0xB8},
      {data_type::f16, 65520.0 - 0x1p-30, 0x7BFF, 0x7C00},  // below the overflow threshold, f32 rounds it up to it
  };
  for (const witness& w : cases) {
    INFO(memfmt::to_string(w.dt) << " " << w.x);
    CHECK(expected_from_f64(w.dt, w.x) == w.once);
    // through f32: the oracle applied twice
    CHECK(encode(*std::find_if(std::begin(formats), std::end(formats), [&](const format& f) { return f.dt == w.dt; }),
                 static_cast<double>(static_cast<float>(w.x))) == w.twice);
    check_from_f64(w.dt, {w.x});
  }
}

TEST_CASE("every type -> f64 is exact: all 8- and 16-bit patterns, random f32 and s32", "[convert][f64]") {
  const auto check_exact = [](data_type from, const std::vector<unsigned char>& src, auto&& value_of) {
    conversion c;
    c.src = from;
    c.dst = data_type::f64;
    const std::vector<std::uint64_t> got = convert(c, src);
    const std::size_t size = memfmt::data_type_size(from);
    std::size_t wrong = 0;
    for (std::size_t k = 0; k < got.size(); ++k) {
      const double want = value_of(bits_of(from, src.data() + k * size));
      // NaN: the canonical quiet NaN of f64
      const std::uint64_t want_bits = std::isnan(want) ? 0x7FF8000000000000u : std::bit_cast<std::uint64_t>(want);
      if (got[k] != want_bits && ++wrong <= 5)
        FAIL_CHECK(memfmt::to_string(from) << " 0x" << std::hex << bits_of(from, src.data() + k * size) << " -> 0x" << got[k]
                                           << ", exact 0x" << want_bits);
    }
    CHECK(wrong == 0);
  };
  for (const format& f : formats) {
    if (f.bits > 16) continue;
    std::vector<unsigned char> all(memfmt::data_type_size(f.dt) << f.bits);
    for (std::uint64_t b = 0; b < (std::uint64_t{1} << f.bits); ++b) std::memcpy(all.data() + b * (f.bits / 8), &b, f.bits / 8);
    check_exact(f.dt, all, [&](std::uint64_t b) { return is_nan(f, b) ? std::nan("") : decode(f, b); });
  }
  std::vector<unsigned char> bytes(256);
  for (int b = 0; b < 256; ++b) bytes[static_cast<std::size_t>(b)] = static_cast<unsigned char>(b);
  check_exact(data_type::s8, bytes, [](std::uint64_t b) { return static_cast<double>(static_cast<std::int8_t>(b)); });
  check_exact(data_type::u8, bytes, [](std::uint64_t b) { return static_cast<double>(b); });
  std::mt19937 rng(32);
  std::vector<std::uint32_t> words{0, 0x80000000u, 0x7FFFFFFFu, 0x7F800000u, 0xFF800000u, 0x7FA00001u, 0xFFC00123u, 1u, 0x80000001u, 0x01000001u};
  for (int k = 0; k < 1 << 20; ++k) words.push_back(rng());
  check_exact(data_type::f32, bytes_of(words),
              [](std::uint64_t b) { return is_nan(formats[0], b) ? std::nan("") : decode(formats[0], b); });
  check_exact(data_type::s32, bytes_of(words), [](std::uint64_t b) { return static_cast<double>(static_cast<std::int32_t>(b)); });
}

TEST_CASE("f64 -> f64: bit for bit without attributes, in double with them", "[convert][f64]") {
  std::vector<double> xs = random_doubles();
  xs.resize(1 << 12);
  conversion c;
  c.src = c.dst = data_type::f64;
  const std::vector<std::uint64_t> same = convert(c, bytes_of(xs));
  for (std::size_t k = 0; k < xs.size(); ++k) CHECK(same[k] == std::bit_cast<std::uint64_t>(xs[k]));  // NaN payloads too
  // a scale and zero points: (x - 3) * 0.1f + 5, each step in double, NaN canonical
  c.alpha = 0.1f;
  c.src_zero_point = 3;
  c.dst_zero_point = 5;
  memfmt::reorder_attr attr;
  attr.src_scales = memfmt::scales{0, {0.1f}};
  attr.src_zero_points = memfmt::zero_points::common(3);
  attr.dst_zero_points = memfmt::zero_points::common(5);
  const std::vector<std::uint64_t> scaled = convert(c, bytes_of(xs), attr);
  for (std::size_t k = 0; k < xs.size(); ++k) {
    const volatile double step = (xs[k] - 3.0) * static_cast<double>(0.1f);
    const double want = step + 5.0;
    CHECK(scaled[k] == (std::isnan(want) ? 0x7FF8000000000000u : std::bit_cast<std::uint64_t>(want)));
  }
}

TEST_CASE("conversions with f64 run their arithmetic in double", "[convert][f64]") {
  // f32 -> f64 with a scale: the product of two f32 values, exact in double, where f32
  // arithmetic rounds it
  const float x = 1.f + 0x1p-23f, s = 1.f + 0x1p-23f;
  conversion c;
  c.src = data_type::f32;
  c.dst = data_type::f64;
  c.alpha = s;
  memfmt::reorder_attr attr;
  attr.src_scales = memfmt::scales{0, {s}};
  CHECK(convert(c, bytes_of(std::vector<float>{x}), attr)[0] == std::bit_cast<std::uint64_t>(1.0 + 0x1p-22 + 0x1p-46));
  // s32 -> f64 with a zero point: s32 values beyond 2^24 stay exact
  c.src = data_type::s32;
  c.alpha = 1.f;
  c.src_zero_point = 1;
  attr = {};
  attr.src_zero_points = memfmt::zero_points::common(1);
  CHECK(convert(c, bytes_of(std::vector<std::int32_t>{INT32_MAX}), attr)[0] == std::bit_cast<std::uint64_t>(2147483646.0));
  // f64 -> f16 with a sum: x + 0.5 * dst_old in double, then one rounding; the sum of the
  // two lands just above an f16 midpoint that f32 arithmetic would round onto
  c = conversion{};
  c.src = data_type::f64;
  c.dst = data_type::f16;
  c.beta = 0.5f;
  const double v = 0x1p-11 + 0x1p-40;  // + 0.5 * 2 = 1 + 2^-11 + 2^-40
  const std::uint16_t old = 0x4000;    // 2.0
  unsigned char out[2];
  std::memcpy(out, &old, 2);
  memfmt::detail::convert_element(c, &v, out, nullptr);
  std::uint16_t got = 0;
  std::memcpy(&got, out, 2);
  CHECK(got == 0x3C01);
}
