// The scalar reference conversions against independent oracles (F16C hardware,
// exact arithmetic in double), and every target's kernels against the
// reference over all 65536 f16 / bf16 bit patterns and a dense f32 sweep.

#include <catch2/catch.hpp>

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <vector>

#include "kernel_test_util.hpp"

using namespace memfmt_test;
using memfmt::detail::bf16_bits_to_f32;
using memfmt::detail::f16_bits_to_f32;
using memfmt::detail::f32_to_bf16_bits;
using memfmt::detail::f32_to_f16_bits;

namespace {

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }

bool f16_is_nan(std::uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0; }

/// f32 bit patterns that stress f16/bf16 rounding: every sign/exponent/top-10
/// mantissa combination with the low 13 bits at and around the rounding points,
/// every 97th pattern where f16 is subnormal, and random patterns.
const std::vector<std::uint32_t>& f32_sweep() {
  static const std::vector<std::uint32_t> sweep = [] {
    std::vector<std::uint32_t> v;
    const std::uint32_t lows[] = {0, 1, 0x7FF, 0xFFF, 0x1000, 0x1001, 0x17FF, 0x1FFF};
    for (std::uint32_t hi = 0; hi < (1u << 19); ++hi)
      for (const std::uint32_t lo : lows) v.push_back(hi << 13 | lo);
    for (std::uint32_t u = 0x33000000u; u < 0x38900000u; u += 97) {  // 2^-25 .. 2^-14
      v.push_back(u);
      v.push_back(u | 0x80000000u);
    }
    std::mt19937 rng(11);
    for (int k = 0; k < 1 << 20; ++k) v.push_back(rng());
    return v;
  }();
  return sweep;
}

/// The correctly rounded (nearest even) f16 of a finite f32, from exact double arithmetic.
std::uint16_t f16_by_double(float f) {
  const double x = std::fabs(static_cast<double>(f));
  const std::uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  if (x >= 65520.0) return sign | 0x7C00;
  // Spacing of f16 values at x: 2^-24 below 2^-14, else 2^(e - 10).
  int e = x == 0 ? -30 : std::ilogb(x);
  if (e < -14) e = -14;
  const double quantum = std::ldexp(1.0, e - 10);
  const double q = x / quantum;  // exact: a power-of-two division
  double r = std::floor(q);
  const double rest = q - r;
  if (rest > 0.5 || (rest == 0.5 && std::fmod(r, 2.0) == 1.0)) r += 1;
  const double value = r * quantum;
  // Encode value (a multiple of the quantum, at most 65504 or exactly 65536 -> Inf).
  if (value >= 65536.0) return sign | 0x7C00;
  if (value < 0x1p-14) return sign | static_cast<std::uint16_t>(value / 0x1p-24);
  const int ev = std::ilogb(value);
  const auto mant = static_cast<std::uint16_t>(value / std::ldexp(1.0, ev - 10) - 1024);
  return sign | static_cast<std::uint16_t>((ev + 15) << 10) | mant;
}

/// The correctly rounded (nearest even) bf16 of a finite f32, from exact double arithmetic.
std::uint16_t bf16_by_double(float f) {
  const std::uint32_t u = bits(f);
  const std::uint32_t lo = u & 0xFFFF0000u;
  const double x = std::fabs(static_cast<double>(f));
  const double below = std::fabs(static_cast<double>(std::bit_cast<float>(lo)));
  // The next bf16 up in magnitude; past the largest finite one it is "2^128" (Inf).
  const double above = (lo & 0x7FFFFFFFu) == 0x7F7F0000u ? 0x1p128 : std::fabs(static_cast<double>(std::bit_cast<float>(lo + 0x10000u)));
  const double d_below = x - below, d_above = above - x;
  const bool up = d_above < d_below || (d_above == d_below && ((lo >> 16) & 1u));
  return static_cast<std::uint16_t>((up ? lo + 0x10000u : lo) >> 16);
}

/// Highway's AVX2 target implies F16C and FMA (asked without a test mock).
bool cpu_has_f16c_and_fma() {
  hwy::SetSupportedTargetsForTest(0);
  return (hwy::SupportedTargets() & (HWY_AVX2 | HWY_AVX3 | HWY_AVX3_DL)) != 0;
}

__attribute__((target("f16c"))) float f16c_to_f32(std::uint16_t h) { return _cvtsh_ss(h); }
__attribute__((target("f16c"))) std::uint16_t f16c_from_f32(float f) {
  return static_cast<std::uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
}

/// run_nest over a 1-D contiguous copy of `count` elements, converting with `c`.
void run_copy(conversion c, const void* src, void* dst, dim count) {
  nest n;
  n.nloops = 1;
  n.kind = kernel_kind::copy;
  n.loops[0] = loop{count, 1, 1, 0};
  n.cvt = c;
  memfmt::detail::run_nest(n, src, dst, 0, n.outer_count());
}

/// Converts `src` (count elements of c.src) with the kernels of every target and
/// with the reference, into `old` (count elements of c.dst, which a sum reads; null:
/// zeros); returns the number of elements that differ.
std::size_t compare_all_targets(const conversion& c, const void* src, dim count, const void* old = nullptr) {
  const std::size_t dsz = memfmt::data_type_size(c.dst), ssz = memfmt::data_type_size(c.src);
  std::vector<std::byte> initial(static_cast<std::size_t>(count) * dsz);
  if (old != nullptr) std::memcpy(initial.data(), old, initial.size());
  std::vector<std::byte> expected = initial;
  for (dim k = 0; k < count; ++k)
    memfmt::detail::convert_element(c, static_cast<const std::byte*>(src) + k * ssz, expected.data() + k * dsz, nullptr);
  std::size_t differ = 0;
  for_each_target([&](std::int64_t target) {
    std::vector<std::byte> dst = initial;
    run_copy(c, src, dst.data(), count);
    if (dst == expected) return;
    std::size_t here = 0;
    for (dim k = 0; k < count; ++k)
      if (std::memcmp(dst.data() + k * dsz, expected.data() + k * dsz, dsz) != 0) ++here;
    if (here != 0) {
      UNSCOPED_INFO(hwy::TargetName(target) << ": " << here << " of " << count << " differ for "
                                            << memfmt::to_string(c.src) << "->" << memfmt::to_string(c.dst));
    }
    differ += here;
  });
  return differ;
}

}  // namespace

// ------------------------------------------------------------------ reference

static_assert(f32_to_f16_bits(1.f) == 0x3C00);
static_assert(f32_to_f16_bits(65504.f) == 0x7BFF);
static_assert(f32_to_f16_bits(65520.f) == 0x7C00);  // the tie above the largest f16 rounds to Inf
static_assert(f32_to_f16_bits(0x1p-24f) == 0x0001);
static_assert(f32_to_f16_bits(0x1p-25f) == 0x0000);    // tie to even: 0
static_assert(f32_to_f16_bits(0x1.8p-24f) == 0x0002);  // tie to even: 2
static_assert(f32_to_f16_bits(-0.f) == 0x8000);
static_assert(f16_bits_to_f32(0x7BFF) == 65504.f);
static_assert(f16_bits_to_f32(0x0001) == 0x1p-24f);
static_assert(f32_to_bf16_bits(1.f) == 0x3F80);
static_assert(f32_to_bf16_bits(std::bit_cast<float>(0x3F808000u)) == 0x3F80);  // tie to even
static_assert(f32_to_bf16_bits(std::bit_cast<float>(0x3F818000u)) == 0x3F82);
static_assert(f32_to_bf16_bits(std::bit_cast<float>(0x7F7FFFFFu)) == 0x7F80);  // overflow to Inf
static_assert(f32_to_bf16_bits(std::bit_cast<float>(0x7F800001u)) == 0x7FC0);  // sNaN -> quiet NaN

TEST_CASE("f16 -> f32 reference equals F16C on all 65536 patterns", "[convert]") {
  if (!cpu_has_f16c_and_fma()) return;  // no oracle on this CPU
  int mismatches = 0, nans = 0;
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const float ref = f16_bits_to_f32(static_cast<std::uint16_t>(h));
    const float hw = f16c_to_f32(static_cast<std::uint16_t>(h));
    // F16C quiets signalling NaNs; the reference keeps the payload as it is.
    nans += std::isnan(hw);
    const bool same = std::isnan(hw) ? std::isnan(ref) && (bits(ref) | 0x00400000u) == bits(hw) : bits(ref) == bits(hw);
    if (!same && ++mismatches <= 5) FAIL_CHECK("f16 " << h << ": reference " << bits(ref) << ", F16C " << bits(hw));
  }
  CHECK(mismatches == 0);
  CHECK(nans == 2 * 1023);
}

TEST_CASE("f32 -> f16 reference equals F16C and exact arithmetic on a dense sweep", "[convert]") {
  const bool f16c = cpu_has_f16c_and_fma();
  int mismatches = 0;
  for (const std::uint32_t u : f32_sweep()) {
    const float f = std::bit_cast<float>(u);
    const std::uint16_t ref = f32_to_f16_bits(f);
    if (std::isnan(f)) {
      if (!f16_is_nan(ref) || !(ref & 0x200)) ++mismatches;  // a quiet NaN
      continue;
    }
    const std::uint16_t exact = std::isinf(f) ? static_cast<std::uint16_t>((u >> 16 & 0x8000u) | 0x7C00u) : f16_by_double(f);
    const bool same = ref == exact && (!f16c || ref == f16c_from_f32(f));
    if (!same && ++mismatches <= 5) FAIL_CHECK("f32 " << u << ": reference " << ref << ", exact " << exact);
  }
  CHECK(mismatches == 0);
}

TEST_CASE("f32 -> bf16 reference equals exact arithmetic on a dense sweep", "[convert]") {
  int mismatches = 0;
  for (const std::uint32_t u : f32_sweep()) {
    const float f = std::bit_cast<float>(u);
    const std::uint16_t ref = f32_to_bf16_bits(f);
    if (std::isnan(f)) {
      if ((ref & 0x7FC0) != 0x7FC0 || (ref & 0x8000) != (u >> 16 & 0x8000)) ++mismatches;  // quiet NaN, same sign
      continue;
    }
    const std::uint16_t exact = std::isinf(f) ? static_cast<std::uint16_t>(u >> 16) : bf16_by_double(f);
    if (ref != exact && ++mismatches <= 5) FAIL_CHECK("f32 " << u << ": reference " << ref << ", exact " << exact);
  }
  CHECK(mismatches == 0);
  int wrong = 0;
  for (std::uint32_t b = 0; b < 0x10000; ++b) wrong += bits(bf16_bits_to_f32(static_cast<std::uint16_t>(b))) != b << 16;
  CHECK(wrong == 0);
}

TEST_CASE("integer destinations round to nearest even, saturate like oneDNN, and map NaN to 0", "[convert]") {
  using memfmt::detail::from_f32;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  CHECK(from_f32<data_type::s32>(2147483520.f) == 2147483520);
  CHECK(from_f32<data_type::s32>(2147483648.f) == 2147483520);  // clamped below 2^31
  CHECK(from_f32<data_type::s32>(inf) == 2147483520);
  CHECK(from_f32<data_type::s32>(-2147483648.f) == std::numeric_limits<std::int32_t>::min());
  CHECK(from_f32<data_type::s32>(-inf) == std::numeric_limits<std::int32_t>::min());
  CHECK(from_f32<data_type::s32>(nan) == 0);
  CHECK(from_f32<data_type::s32>(2.5f) == 2);
  CHECK(from_f32<data_type::s32>(3.5f) == 4);
  CHECK(from_f32<data_type::s32>(-2.5f) == -2);
  CHECK(from_f32<data_type::s32>(0.49999997f) == 0);
  CHECK(from_f32<data_type::s8>(127.5f) == 127);
  CHECK(from_f32<data_type::s8>(126.5f) == 126);
  CHECK(from_f32<data_type::s8>(-128.5f) == -128);
  CHECK(from_f32<data_type::s8>(-1e30f) == -128);
  CHECK(from_f32<data_type::s8>(nan) == 0);
  CHECK(from_f32<data_type::u8>(-0.5f) == 0);
  CHECK(from_f32<data_type::u8>(-7.f) == 0);
  CHECK(from_f32<data_type::u8>(254.5f) == 254);
  CHECK(from_f32<data_type::u8>(255.5f) == 255);
  CHECK(from_f32<data_type::u8>(nan) == 0);
  // s32 sources convert to f32 with round to nearest even.
  CHECK(memfmt::detail::to_f32<data_type::s32>(16777217) == 16777216.f);
  CHECK(memfmt::detail::to_f32<data_type::s32>(16777219) == 16777220.f);
}

namespace {

/// The conversion arithmetic with every step rounded to f32 separately, in double.
float stepwise(const conversion& c, float x, float scale, float old) {
  auto r = [](double v) { return static_cast<float>(v); };
  if (c.src_zero_point != 0) x = r(double{x} - double{static_cast<float>(c.src_zero_point)});
  x = r(double{r(double{c.alpha} * double{scale})} * double{x});
  if (c.beta != 0.f) {
    const float d = c.dst_zero_point != 0 ? r(double{old} - double{static_cast<float>(c.dst_zero_point)}) : old;
    x = r(double{x} + double{r(double{c.beta} * double{d})});
  }
  if (c.dst_zero_point != 0) x = r(double{x} + double{static_cast<float>(c.dst_zero_point)});
  return x;
}

// Inlined into code that may use FMA: the reference must still round every step.
__attribute__((target("avx2,fma"))) float convert_value_with_fma(const conversion& c, float x, const float* scale,
                                                                  float old) {
  return memfmt::detail::convert_value(c, x, scale, old);
}

}  // namespace

TEST_CASE("the conversion arithmetic rounds every step, never fused into an FMA", "[convert]") {
  const bool fma = cpu_has_f16c_and_fma();
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-10.f, 10.f);
  conversion c;
  c.src = c.dst = data_type::f32;
  c.src_zero_point = 3;
  c.dst_zero_point = -5;
  int mismatches = 0;
  for (int k = 0; k < 100000; ++k) {
    c.alpha = u(rng);
    c.beta = u(rng);
    const float x = u(rng), scale = u(rng), old = u(rng);
    c.scales = &scale;
    const float expected = stepwise(c, x, scale, old);
    if (bits(memfmt::detail::convert_value(c, x, &scale, old)) != bits(expected)) ++mismatches;
    if (fma && bits(convert_value_with_fma(c, x, &scale, old)) != bits(expected)) ++mismatches;
  }
  CHECK(mismatches == 0);
}

// ---------------------------------------------------------- kernels, exhaustive

/// Every bit pattern of each of `sources` (elements of `Bits`) into every type, with and
/// without arithmetic, on every target, against the reference.
template <class Bits>
void check_every_pattern(std::initializer_list<data_type> sources) {
  std::vector<Bits> all(std::size_t{1} << (8 * sizeof(Bits)));
  for (std::size_t b = 0; b < all.size(); ++b) all[b] = static_cast<Bits>(b);
  const auto count = static_cast<dim>(all.size());
  for (const data_type s : sources) {
    for (const data_type d : all_types) {
      conversion c;
      c.src = s;
      c.dst = d;
      if (s == d) c.alpha = 0.75f;  // else a plain copy
      CHECK(compare_all_targets(c, all.data(), count) == 0);
      c.alpha = -3.f;
      c.dst_zero_point = 7;
      CHECK(compare_all_targets(c, all.data(), count) == 0);
    }
  }
}

TEST_CASE("every target converts all 65536 f16 and bf16 patterns like the reference", "[convert][kernel]") {
  check_every_pattern<std::uint16_t>({data_type::f16, data_type::bf16});
}

TEST_CASE("a sum with a destination zero point: every target reads the old destination less its zero point like "
          "the reference",
          "[convert][kernel]") {
  // random bits of each type (NaN, infinities, -0, subnormals among them) as sources and
  // old destinations, 1001 of them: whole vectors and a tail on every target
  std::mt19937 rng(31);
  constexpr dim count = 1001;
  const auto random_bytes = [&](data_type dt) {
    std::vector<std::byte> v(static_cast<std::size_t>(count) * memfmt::data_type_size(dt));
    for (std::byte& b : v) b = static_cast<std::byte>(rng());
    return v;
  };
  for (const data_type s : all_types) {
    for (const data_type d : all_types) {
      const std::vector<std::byte> src = random_bytes(s), old = random_bytes(d);
      for (const float beta : {1.f, 0.5f, -2.f}) {
        conversion c;
        c.src = s;
        c.dst = d;
        c.beta = beta;
        c.dst_zero_point = d == data_type::u8 ? 128 : -5;
        INFO(memfmt::to_string(s) << " -> " << memfmt::to_string(d) << ", beta " << beta);
        CHECK(compare_all_targets(c, src.data(), count, old.data()) == 0);
        c.alpha = 0.75f;  // with a scale and a source zero point
        c.src_zero_point = 3;
        CHECK(compare_all_targets(c, src.data(), count, old.data()) == 0);
      }
    }
  }
}

TEST_CASE("every target converts all 256 f8 patterns like the reference", "[convert][kernel][f8]") {
  check_every_pattern<std::uint8_t>({data_type::f8_e5m2, data_type::f8_e4m3});
}

TEST_CASE("every target converts f32 at every f8 rounding point like the reference", "[convert][kernel][f8]") {
  // each f8 value, the midpoints between neighbours and past the largest, and the f32
  // values next to each, both signs, with the ones far below and above the range
  std::vector<float> points{0.f, 0x1p-30f, 1e-40f, 1e30f, std::numeric_limits<float>::infinity()};
  for (const data_type f8 : {data_type::f8_e5m2, data_type::f8_e4m3}) {
    std::vector<float> values;
    for (std::uint64_t b = 0; b < 0x80; ++b) {  // (as wide as the widest type load_as_f32 reads)
      const float v = memfmt::detail::load_as_f32(f8, &b);
      if (!std::isnan(v) && !std::isinf(v)) values.push_back(v);
    }
    std::sort(values.begin(), values.end());
    const float step = values.back() - values[values.size() - 2];
    values.push_back(values.back() + step);
    for (std::size_t k = 0; k < values.size(); ++k) {
      const float mid = k + 1 < values.size() ? (values[k] + values[k + 1]) / 2 : values[k];
      for (const float p : {values[k], mid})
        for (const float q : {p, std::nextafter(p, 1e38f), std::nextafter(p, 0.f)}) points.push_back(q);
    }
  }
  const std::size_t positive = points.size();
  for (std::size_t k = 0; k < positive; ++k) points.push_back(-points[k]);
  for (const data_type d : {data_type::f8_e5m2, data_type::f8_e4m3}) {
    conversion c;
    c.src = data_type::f32;
    c.dst = d;
    CHECK(compare_all_targets(c, points.data(), static_cast<dim>(points.size())) == 0);
    c.alpha = 0.5f;  // through the multiplying path
    CHECK(compare_all_targets(c, points.data(), static_cast<dim>(points.size())) == 0);
  }
}

TEST_CASE("every target converts a dense f32 sweep like the reference", "[convert][kernel]") {
  const std::vector<std::uint32_t>& sweep = f32_sweep();
  const auto count = static_cast<dim>(sweep.size());
  for (const data_type d : all_types) {
    conversion c;
    c.src = data_type::f32;
    c.dst = d;
    if (d == data_type::f32) c.alpha = 0.5f;
    CHECK(compare_all_targets(c, sweep.data(), count) == 0);
  }
  // Integers near the saturation bounds, as f32 multiples and halves.
  std::vector<float> edges;
  for (const float center : {0.f, 127.f, -128.f, 255.f, 2147483520.f, -2147483648.f}) {
    for (int k = -300; k <= 300; ++k) edges.push_back(center + static_cast<float>(k) * 0.25f);
    float up = center, down = center;
    for (int k = 0; k < 300; ++k) edges.push_back(up = std::nextafter(up, 1e38f));
    for (int k = 0; k < 300; ++k) edges.push_back(down = std::nextafter(down, -1e38f));
  }
  for (const data_type d : {data_type::s32, data_type::s8, data_type::u8}) {
    conversion c;
    c.src = data_type::f32;
    c.dst = d;
    CHECK(compare_all_targets(c, edges.data(), static_cast<dim>(edges.size())) == 0);
  }
}
