#pragma once
/// @file
/// The scalar reference of every element conversion: the definition the SIMD
/// kernels reproduce bit for bit, and the code the scalar fallback and kernel
/// edges run. Plain C++ (no Highway).
///
/// Rounding relies on the default floating-point environment (round to nearest
/// even, no flush-to-zero / denormals-are-zero), as oneDNN does.

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "memfmt/core/data_type.hpp"
#include "memfmt/reorder/kernel/nest.hpp"

namespace memfmt::detail {

/// The C++ type that stores one element of each data type (f16/bf16 as raw bits).
template <data_type DT>
struct storage;
template <>
struct storage<data_type::f32> {
  using type = float;
};
template <>
struct storage<data_type::bf16> {
  using type = std::uint16_t;
};
template <>
struct storage<data_type::f16> {
  using type = std::uint16_t;
};
template <>
struct storage<data_type::s32> {
  using type = std::int32_t;
};
template <>
struct storage<data_type::s8> {
  using type = std::int8_t;
};
template <>
struct storage<data_type::u8> {
  using type = std::uint8_t;
};
template <>
struct storage<data_type::f64> {
  using type = double;
};
template <>
struct storage<data_type::f8_e5m2> {
  using type = std::uint8_t;
};
template <>
struct storage<data_type::f8_e4m3> {
  using type = std::uint8_t;
};
template <data_type DT>
using storage_t = typename storage<DT>::type;

/// The quiet NaN every non-plain conversion produces for any NaN result: NaN
/// payloads and signs coming out of arithmetic depend on operand order, which
/// would make targets disagree.
inline constexpr std::uint32_t canonical_nan_bits = 0x7FC00000u;
/// The same for an f64 result.
inline constexpr std::uint64_t canonical_nan_bits_f64 = 0x7FF8000000000000u;

// ---------------------------------------------------------------- f16 / bf16

/// Exact f16 -> f32 (every f16 value is representable). NaN keeps sign and payload.
constexpr float f16_bits_to_f32(std::uint16_t h) noexcept {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1Fu;
  const std::uint32_t mant = h & 0x3FFu;
  if (exp == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mant << 13));  // Inf, NaN
  if (exp == 0) {  // zero or subnormal: mant * 2^-24, exact in f32
    const float magnitude = static_cast<float>(mant) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exp + 127 - 15) << 23) | (mant << 13));
}

/// f32 -> f16, round to nearest even; overflow gives Inf; NaN stays a quiet NaN
/// (sign and the top payload bits kept).
constexpr std::uint16_t f32_to_f16_bits(float f) noexcept {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  const std::uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7E00u | ((a >> 13) & 0x3FFu));
  if (a >= 0x47800000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // >= 2^16 or Inf
  const int exp = static_cast<int>(a >> 23);
  if (exp == 0) return sign;  // f32 subnormals are far below half the smallest f16
  // |f| = mant * 2^(exp - 150) with a 24-bit integer mant.
  const std::uint32_t mant = (a & 0x7FFFFFu) | 0x800000u;
  const int e16 = exp - 127;                            // unbiased exponent
  const int quantum = (e16 < -14 ? -14 : e16) - 10;     // log2 of the f16 spacing at |f|
  const int shift = quantum - (exp - 150);              // bits of mant below the spacing, >= 13
  if (shift >= 25) return sign;                         // below half the smallest subnormal
  std::uint32_t r = mant >> shift;
  const std::uint32_t rest = mant & ((1u << shift) - 1);
  const std::uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (r & 1u))) ++r;
  // Subnormal (and the smallest binade): the bits are the count of 2^-24 quanta;
  // r == 1024 carries into the exponent by itself. Normal: a carry of r into
  // 2048 bumps the exponent, up to Inf.
  const std::uint32_t bits = e16 <= -14 ? r : (std::uint32_t(e16 + 15) << 10) + (r - 1024);
  if (bits >= 0x7C00u) return static_cast<std::uint16_t>(sign | 0x7C00u);
  return static_cast<std::uint16_t>(sign | bits);
}

/// Exact bf16 -> f32.
constexpr float bf16_bits_to_f32(std::uint16_t b) noexcept {
  return std::bit_cast<float>(std::uint32_t(b) << 16);
}

/// f32 -> bf16, round to nearest even (overflow gives Inf); NaN stays a quiet NaN.
constexpr std::uint16_t f32_to_bf16_bits(float f) noexcept {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((u >> 16) | 0x0040u);
  return static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// ---------------------------------------------------------------- f8 (OCP)

/// The two 8-bit floating-point formats of the OCP 8-bit floating point specification
/// (OFP8): E5M2, laid out as the top byte of an f16 (infinities, NaNs), and E4M3, with
/// no infinities and one NaN pattern per sign (S.1111.111), whose largest value is 448.
enum class f8_format { e5m2, e4m3 };

/// Exponent and mantissa bits of format `F`.
template <f8_format F>
inline constexpr int f8_mantissa_bits = F == f8_format::e5m2 ? 2 : 3;
template <f8_format F>
inline constexpr int f8_bias = F == f8_format::e5m2 ? 15 : 7;

/// Exact f8 -> f32 (every f8 value is representable). E5M2 NaN keeps sign and payload,
/// as f16 -> f32 does; E4M3 NaN becomes a quiet NaN of the same sign.
template <f8_format F>
constexpr float f8_bits_to_f32(std::uint8_t b) noexcept {
  if constexpr (F == f8_format::e5m2) {
    return f16_bits_to_f32(static_cast<std::uint16_t>(b << 8));
  } else {
    const std::uint32_t sign = std::uint32_t(b & 0x80u) << 24;
    const std::uint32_t exp = (b >> 3) & 0xFu, mant = b & 0x7u;
    if (exp == 0xF && mant == 0x7) return std::bit_cast<float>(sign | 0x7FC00000u);
    if (exp == 0) {  // zero or subnormal: mant * 2^-9
      const float magnitude = static_cast<float>(mant) * 0x1p-9f;
      return sign ? -magnitude : magnitude;
    }
    return std::bit_cast<float>(sign | ((exp + 127 - 7) << 23) | (mant << 20));
  }
}

/// f32 -> f8, rounded once to nearest even (not through f16, which rounds twice).
/// Beyond the largest finite value, after rounding, E5M2 gives Inf and E4M3 NaN (the
/// specification's conversion without saturation, as for f16 and bf16: an overflow
/// stays visible). Inf gives Inf (E5M2) or NaN (E4M3); NaN gives the quiet NaN
/// (E5M2 S.11111.10, E4M3 S.1111.111) of the same sign; -0 stays -0; subnormals are kept.
template <f8_format F>
constexpr std::uint8_t f32_to_f8_bits(float f) noexcept {
  constexpr int M = f8_mantissa_bits<F>, bias = f8_bias<F>, emin = 1 - bias;
  constexpr std::uint32_t nan = F == f8_format::e5m2 ? 0x7Eu : 0x7Fu;
  // the first pattern past the largest finite value: Inf, or E4M3's NaN
  constexpr std::uint32_t overflow = F == f8_format::e5m2 ? 0x7Cu : 0x7Fu;
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint8_t>((u >> 24) & 0x80u);
  const std::uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return static_cast<std::uint8_t>(sign | nan);
  if (a == 0x7F800000u) return static_cast<std::uint8_t>(sign | overflow);
  const int exp = static_cast<int>(a >> 23);
  if (exp == 0) return sign;  // f32 subnormals are far below half the smallest f8
  // |f| = mant * 2^(exp - 150) with a 24-bit integer mant.
  const std::uint32_t mant = (a & 0x7FFFFFu) | 0x800000u;
  const int e = exp - 127;                           // unbiased exponent
  const int quantum = (e < emin ? emin : e) - M;     // log2 of the f8 spacing at |f|
  const int shift = quantum - (exp - 150);           // bits of mant below the spacing, >= 20
  if (shift >= 25) return sign;                      // below half the smallest subnormal
  std::uint32_t r = mant >> shift;
  const std::uint32_t rest = mant & ((1u << shift) - 1);
  const std::uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (r & 1u))) ++r;
  // As for f16: subnormal bits count quanta (a carry into the smallest normal comes by
  // itself); a normal r carrying into 2^(M+1) bumps the exponent.
  const std::uint32_t bits = e <= emin ? r : (std::uint32_t(e + bias) << M) + (r - (1u << M));
  if (bits >= overflow) return static_cast<std::uint8_t>(sign | overflow);
  return static_cast<std::uint8_t>(sign | bits);
}

// ---------------------------------------------------------------- arithmetic

/// Returns `x` through an optimisation barrier, so the compiler cannot fuse the
/// multiplication that produced it with a later addition (GCC contracts into
/// FMA even in ISO mode), which would round differently from the SIMD kernels.
template <class T>
inline T no_contract(T x) noexcept {
  static_assert(std::is_floating_point_v<T>);
#if defined(__GNUC__) && defined(__x86_64__)
  __asm__("" : "+x"(x));
#elif defined(__GNUC__) && defined(__aarch64__)
  __asm__("" : "+w"(x));
#elif defined(__GNUC__)
  __asm__("" : "+g"(x));
#endif
  return x;
}

/// Round to nearest even, then saturate to [lo, hi]; NaN gives 0 (oneDNN leaves
/// NaN -> integer unspecified; 0 is deterministic across targets).
template <class I, class F>
I saturate_round(F f, F lo, F hi) noexcept {
  if (std::isnan(f)) return 0;
  f = f < lo ? lo : f;
  f = f > hi ? hi : f;
  return static_cast<I>(std::nearbyint(f));
}

/// The largest float below 2^31, oneDNN's upper bound for f32 -> s32.
inline constexpr float s32_upper_bound = 2147483520.f;
inline constexpr float s32_lower_bound = -2147483648.f;

/// The value of one stored element, as f32 (s32 rounds to nearest even).
template <data_type DT>
float to_f32(storage_t<DT> v) noexcept {
  if constexpr (DT == data_type::f32) return v;
  else if constexpr (DT == data_type::bf16) return bf16_bits_to_f32(v);
  else if constexpr (DT == data_type::f16) return f16_bits_to_f32(v);
  else if constexpr (DT == data_type::f8_e5m2) return f8_bits_to_f32<f8_format::e5m2>(v);
  else if constexpr (DT == data_type::f8_e4m3) return f8_bits_to_f32<f8_format::e4m3>(v);
  else return static_cast<float>(v);  // (f64 and s32: rounded to nearest even)
}

/// One f32 stored as `DT`: f32 as is; f16/bf16/f8 round to nearest even (NaN stays
/// quiet NaN); integers round to nearest even and saturate, NaN -> 0.
template <data_type DT>
storage_t<DT> from_f32(float f) noexcept {
  if constexpr (DT == data_type::f32) return f;
  else if constexpr (DT == data_type::f64) return static_cast<double>(f);
  else if constexpr (DT == data_type::bf16) return f32_to_bf16_bits(f);
  else if constexpr (DT == data_type::f16) return f32_to_f16_bits(f);
  else if constexpr (DT == data_type::f8_e5m2) return f32_to_f8_bits<f8_format::e5m2>(f);
  else if constexpr (DT == data_type::f8_e4m3) return f32_to_f8_bits<f8_format::e4m3>(f);
  else if constexpr (DT == data_type::s32) return saturate_round<std::int32_t>(f, s32_lower_bound, s32_upper_bound);
  else if constexpr (DT == data_type::s8) return saturate_round<std::int8_t>(f, -128.f, 127.f);
  else return saturate_round<std::uint8_t>(f, 0.f, 255.f);
}

// ---------------------------------------------------------------- f64

/// f64 -> f32 rounded to odd: the f32 next to `d` toward zero, its last mantissa bit set
/// when `d` is not exactly an f32 (beyond the largest finite f32: the largest, which is
/// odd). Rounding that to nearest even into a format of at most 22 significant bits (at
/// least two fewer than f32's 24, over the same or a narrower exponent range) gives the
/// nearest even of `d` itself, one rounding, where rounding `d` to nearest even in f32
/// first could land on a midpoint of the narrower format and round twice.
/// @pre `d` is not NaN
inline float f64_to_f32_round_odd(double d) noexcept {
  float f = static_cast<float>(d);
  if (std::isinf(f) && !std::isinf(d)) f = std::copysign(std::numeric_limits<float>::max(), f);
  if (static_cast<double>(f) == d) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.f);
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(f) | 1u);
}

/// The largest and smallest doubles an f64 -> s32 conversion saturates to.
inline constexpr double s32_upper_bound_f64 = 2147483647.0;
inline constexpr double s32_lower_bound_f64 = -2147483648.0;

/// The value of one stored element as f64, exact for every type.
template <data_type DT>
double to_f64(storage_t<DT> v) noexcept {
  if constexpr (DT == data_type::f64 || DT == data_type::s32) return static_cast<double>(v);
  else return static_cast<double>(to_f32<DT>(v));  // (every value of the others is an f32)
}

/// One f64 stored as `DT`, rounded once: f64 as is; f32 to nearest even (overflow to
/// Inf); f16/bf16/f8 to nearest even as `from_f32` rounds an f32, without an
/// intermediate rounding (through `f64_to_f32_round_odd`); integers round to nearest
/// even and saturate, NaN -> 0.
template <data_type DT>
storage_t<DT> from_f64(double d) noexcept {
  if constexpr (DT == data_type::f64) return d;
  else if constexpr (DT == data_type::f32) return static_cast<float>(d);
  else if constexpr (DT == data_type::s32) return saturate_round<std::int32_t>(d, s32_lower_bound_f64, s32_upper_bound_f64);
  else if constexpr (DT == data_type::s8) return saturate_round<std::int8_t>(d, -128.0, 127.0);
  else if constexpr (DT == data_type::u8) return saturate_round<std::uint8_t>(d, 0.0, 255.0);
  else return std::isnan(d) ? from_f32<DT>(static_cast<float>(d)) : from_f32<DT>(f64_to_f32_round_odd(d));
}

/// Calls `f(std::integral_constant-like tag)` with the data type as a template value.
template <class F>
decltype(auto) visit_data_type(data_type dt, F&& f) {
  switch (dt) {
    case data_type::f32: return f.template operator()<data_type::f32>();
    case data_type::bf16: return f.template operator()<data_type::bf16>();
    case data_type::f16: return f.template operator()<data_type::f16>();
    case data_type::s32: return f.template operator()<data_type::s32>();
    case data_type::s8: return f.template operator()<data_type::s8>();
    case data_type::f64: return f.template operator()<data_type::f64>();
    case data_type::f8_e5m2: return f.template operator()<data_type::f8_e5m2>();
    case data_type::f8_e4m3: return f.template operator()<data_type::f8_e4m3>();
    case data_type::u8: break;
    case data_type::s4:  // (no address of their own: reorders unpack them to s8 and u8 first)
    case data_type::u4:
    case data_type::undef: break;
  }
  return f.template operator()<data_type::u8>();
}

/// The element at `p` of type `dt`, as f32.
/// @pre dt != undef
inline float load_as_f32(data_type dt, const void* p) noexcept {
  return visit_data_type(dt, [p]<data_type DT>() {
    storage_t<DT> v;
    std::memcpy(&v, p, sizeof v);
    return to_f32<DT>(v);
  });
}

/// Stores `f` at `p` as type `dt` (see `from_f32`).
/// @pre dt != undef
inline void store_from_f32(data_type dt, float f, void* p) noexcept {
  visit_data_type(dt, [f, p]<data_type DT>() {
    const storage_t<DT> v = from_f32<DT>(f);
    std::memcpy(p, &v, sizeof v);
  });
}

/// The type a conversion's arithmetic runs in: double when either side is f64 (so that
/// f64 values go through exactly), f32 otherwise.
template <data_type S, data_type D>
using arithmetic_t = std::conditional_t<S == data_type::f64 || D == data_type::f64, double, float>;

/// The value of one stored element in the arithmetic type `T` (`to_f32` or `to_f64`).
template <class T, data_type DT>
T value_as(storage_t<DT> v) noexcept {
  if constexpr (std::is_same_v<T, double>) return to_f64<DT>(v);
  else return to_f32<DT>(v);
}

/// The arithmetic of a non-plain conversion, in this order, each step rounded to `T`
/// (f32, or f64 when a side is f64: see arithmetic_t):
/// `x -= src_zp; x = (alpha * scale) * x; d = dst_old - dst_zp; x += beta * d;
/// x += dst_zp`. The sum reads the old destination without its zero point, as oneDNN
/// 3.x's reference does (`d` only with a sum). A step whose parameter is neutral (zero
/// point 0, alpha 1 without scales, beta 0) is skipped, so -0.f survives a type
/// conversion.
/// The zero points, common or the element's entries of the tables (c.zero_point_tables),
/// which hold them as f32.
/// @param scale  the element's entry of `c.scales`, or nullptr when there are none
template <class T>
inline T convert_value(const conversion& c, T x, const float* scale, T dst_old) noexcept {
  const bool tables = c.zero_point_tables != 0 && scale != nullptr;
  const T src_zp = tables ? static_cast<T>(scale[c.zero_point_tables]) : static_cast<T>(c.src_zero_point);
  const T dst_zp = tables ? static_cast<T>(scale[2 * c.zero_point_tables]) : static_cast<T>(c.dst_zero_point);
  if (src_zp != 0) x = x - src_zp;
  if (scale != nullptr) x = no_contract((static_cast<T>(c.alpha) * static_cast<T>(*scale)) * x);
  else if (c.alpha != 1.f) x = no_contract(static_cast<T>(c.alpha) * x);
  if (c.beta != 0.f) {
    const T d = dst_zp != 0 ? dst_old - dst_zp : dst_old;
    x = x + no_contract(static_cast<T>(c.beta) * d);
  }
  if (dst_zp != 0) x = x + dst_zp;
  return x;
}

/// `f` as a non-plain conversion stores it: NaN becomes the canonical quiet NaN
/// for floating-point destinations, then `from_f32`.
template <data_type DT>
storage_t<DT> store_converted(float f) noexcept {
  if constexpr (is_floating_point(DT)) {
    if (std::isnan(f)) f = std::bit_cast<float>(canonical_nan_bits);
  }
  return from_f32<DT>(f);
}

/// The same for a result in f64: NaN becomes the destination's canonical quiet NaN
/// (`canonical_nan_bits_f64` for f64), then `from_f64`, one rounding.
template <data_type DT>
storage_t<DT> store_converted(double d) noexcept {
  if constexpr (DT == data_type::f64) {
    if (std::isnan(d)) return std::bit_cast<double>(canonical_nan_bits_f64);
  } else if constexpr (is_floating_point(DT)) {
    if (std::isnan(d)) return store_converted<DT>(std::bit_cast<float>(canonical_nan_bits));
  }
  return from_f64<DT>(d);
}

/// One element through the full conversion `c` (a byte copy when plain).
/// @param scale  the element's entry of `c.scales`, ignored when `c.scales` is null
/// Elements are accessed with memcpy: buffers need not be aligned to their type.
template <data_type S, data_type D>
void convert_element(const conversion& c, const void* src, void* dst, const float* scale) noexcept {
  if constexpr (S == D) {
    if (c.is_plain_copy()) {
      std::memcpy(dst, src, sizeof(storage_t<D>));
      return;
    }
  }
  using T = arithmetic_t<S, D>;
  storage_t<S> s;
  std::memcpy(&s, src, sizeof s);
  T old = 0;
  if (c.beta != 0.f) {
    storage_t<D> d;
    std::memcpy(&d, dst, sizeof d);
    old = value_as<T, D>(d);
  }
  const T f = convert_value(c, value_as<T, S>(s), c.scales != nullptr ? scale : nullptr, old);
  const storage_t<D> v = store_converted<D>(f);
  std::memcpy(dst, &v, sizeof v);
}

/// The reference of one element with run-time types: what every kernel computes.
/// @pre c.src and c.dst are not undef; `scale` points into `c.scales` when it is not null
inline void convert_element(const conversion& c, const void* src, void* dst, const float* scale) noexcept {
  visit_data_type(c.src, [&]<data_type S>() {
    visit_data_type(c.dst, [&]<data_type D>() {
      convert_element<S, D>(c, src, dst, scale);
    });
  });
}

}  // namespace memfmt::detail
