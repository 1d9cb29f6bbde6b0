// One vector of elements to and from f32, exactly as convert_scalar.hpp: loads that
// widen storage types to f32, stores that round, saturate and narrow f32 to them
// (bf16 and f16 rounded to nearest even, NaN canonical), whole or the first lanes.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_CONVERT_LANES_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_CONVERT_LANES_INL_H_
#undef MEMFMT_REORDER_KERNEL_CONVERT_LANES_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_CONVERT_LANES_INL_H_
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "memfmt/reorder/kernel/convert_scalar.hpp"
#include "memfmt/reorder/kernel/vectors-inl.h"
#include "memfmt/reorder/kernel/x86/avx2-inl.h"
#include "memfmt/reorder/kernel/x86/sse4-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// Storage-type elements, as many as f32 lanes.
template <data_type DT>
using DStore = hn::Rebind<storage_t<DT>, DF>;

// Elements per chunk of the converting row kernels' stack buffers.
inline constexpr dim chunk_elems = 512;

/// Whether this target moves any number of bytes up to a vector with masked
/// loads and stores that touch nothing else (AVX-512BW byte masks).
inline constexpr bool exact_masked_bytes = HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL;

/// Whether this target's masked loads of lanes of T read nothing outside the mask:
/// AVX-512's, and AVX2's of 4- and 8-byte lanes (vpmaskmov; a masked load, where a
/// partial load through a stack buffer would wait for the stores that fill it). Loads
/// only: AVX2's masked stores are slow on some processors (transpose/registers-inl.h's
/// exact_masked_rows decides both for the tiles' rows of 4 bytes).
template <class T>
inline constexpr bool exact_masked_load = exact_masked_bytes || (HWY_TARGET == HWY_AVX2 && sizeof(T) >= 4);

/// Bytes a masked move covers: one vector.
inline constexpr std::size_t masked_bytes = exact_masked_bytes ? hn::MaxLanes(hn::ScalableTag<std::uint8_t>()) : 0;

/// Copies `bytes` <= Max <= 64 with at most two overlapping moves of a fixed size each,
/// as a short memcpy does, without the call (which costs more than the move itself).
template <std::size_t Max = 64>
HWY_INLINE void copy_few(std::byte* dst, const std::byte* src, std::size_t bytes) {
  static_assert(Max <= 64);
  const auto both_ends = [&]<std::size_t N>() {
    std::memcpy(dst, src, N);
    std::memcpy(dst + bytes - N, src + bytes - N, N);
  };
  if constexpr (Max >= 32) {
    if (bytes >= 32) return both_ends.template operator()<32>();
  }
  if constexpr (Max >= 16) {
    if (bytes >= 16) return both_ends.template operator()<16>();
  }
  if constexpr (Max >= 8) {
    if (bytes >= 8) return both_ends.template operator()<8>();
  }
  if constexpr (Max >= 4) {
    if (bytes >= 4) return both_ends.template operator()<4>();
  }
  if constexpr (Max >= 2) {
    if (bytes >= 2) return both_ends.template operator()<2>();
  }
  if (bytes == 1) *dst = *src;
}

/// `v` through an optimisation barrier: the multiplication that produced it cannot
/// be fused with a later addition (GCC contracts even intrinsics into FMA), so
/// every target rounds each step like the scalar reference.
template <class V>
HWY_INLINE V no_contract_v(V v) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
  __asm__("" : "+v"(v.raw));
#elif HWY_TARGET == HWY_SCALAR
  v.raw = detail::no_contract(v.raw);
#elif HWY_TARGET == HWY_EMU128
#if defined(__FMA__) || defined(__aarch64__)  // only then may the emulation be contracted
  __asm__("" : "+m"(v.raw));
#endif
#elif defined(__aarch64__)
  __asm__("" : "+w"(v.raw));
#endif
  return v;
}

/// Round to nearest even. Highway 1.0's emulated NearestInt adds 0.5 and
/// truncates, which is wrong just below halves; real hardware converts exactly.
HWY_INLINE VI round_to_i32(VF v) {
#if HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR
  const DF df;
  const DI di;
  HWY_ALIGN float in[hn::MaxLanes(df)];
  HWY_ALIGN std::int32_t out[hn::MaxLanes(di)];
  hn::Store(v, df, in);
  for (std::size_t i = 0; i < hn::Lanes(df); ++i) out[i] = static_cast<std::int32_t>(std::nearbyint(in[i]));
  return hn::Load(di, out);
#else
  return hn::NearestInt(v);
#endif
}

// F16C converts f16 exactly and rounds to nearest even; Highway 1.0's emulation
// for other targets mishandles Inf, NaN, overflow and rounding, so those use the
// integer code below.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
inline constexpr bool f16c_conversions = true;
#else
inline constexpr bool f16c_conversions = false;
#endif

/// f16 bits (one per u32 lane) -> f32, exact; Inf and NaN keep sign and payload.
HWY_INLINE VF f16_bits_to_f32_v(VU h) {
  const DF df;
  const DU du;
  const DI di;
  const VU sign = hn::ShiftLeft<16>(hn::And(h, hn::Set(du, 0x8000u)));
  const VU mag = hn::And(h, hn::Set(du, 0x7FFFu));
  const VU exp = hn::And(mag, hn::Set(du, 0x7C00u));
  const VU normal = hn::Add(hn::ShiftLeft<13>(mag), hn::Set(du, (127u - 15u) << 23));
  const VU inf_nan = hn::Or(hn::ShiftLeft<13>(mag), hn::Set(du, 0x7F800000u));
  // Subnormal: mag * 2^-24, exact in f32.
  const VF subnormal_f = hn::Mul(hn::ConvertTo(df, hn::BitCast(di, mag)), hn::Set(df, 0x1p-24f));
  const VU subnormal = hn::BitCast(du, subnormal_f);
  VU bits = hn::IfThenElse(hn::Eq(exp, hn::Set(du, 0x7C00u)), inf_nan, normal);
  bits = hn::IfThenElse(hn::Eq(exp, hn::Zero(du)), subnormal, bits);
  return hn::BitCast(df, hn::Or(bits, sign));
}

/// f32 -> f16 bits (one per u32 lane), round to nearest even, overflow to Inf,
/// NaN -> quiet NaN 0x7E00 with the sign (inputs reaching here are canonical NaNs).
HWY_INLINE VU f32_to_f16_bits_v(VF v) {
  const DF df;
  const DU du;
  const DI di;
  const VU u = hn::BitCast(du, v);
  const VU sign = hn::And(hn::ShiftRight<16>(u), hn::Set(du, 0x8000u));
  const VU mag = hn::And(u, hn::Set(du, 0x7FFFFFFFu));
  const VI mag_i = hn::BitCast(di, mag);
  // Normal f16 range: rebias the exponent, round the 13 dropped bits to nearest even.
  const VU lsb = hn::And(hn::ShiftRight<13>(mag), hn::Set(du, 1u));
  const VU rebiased = hn::Sub(mag, hn::Set(du, (127u - 15u) << 23));
  const VU normal = hn::ShiftRight<13>(hn::Add(rebiased, hn::Add(hn::Set(du, 0xFFFu), lsb)));
  // Subnormal f16 range (|v| < 2^-14): adding 0.5f leaves |v| / 2^-24, rounded
  // to nearest even by the FPU, in the low mantissa bits.
  const VF shifted = hn::Add(hn::BitCast(df, mag), hn::Set(df, 0.5f));
  const VU subnormal = hn::Sub(hn::BitCast(du, shifted), hn::Set(du, 0x3F000000u));
  VU bits = hn::IfThenElse(hn::RebindMask(du, hn::Lt(mag_i, hn::Set(di, 0x38800000))), subnormal, normal);
  // |v| >= 65520 rounds to Inf.
  bits = hn::IfThenElse(hn::RebindMask(du, hn::Gt(mag_i, hn::Set(di, 0x477FEFFF))), hn::Set(du, 0x7C00u), bits);
  bits = hn::IfThenElse(hn::RebindMask(du, hn::Gt(mag_i, hn::Set(di, 0x7F800000))), hn::Set(du, 0x7E00u), bits);
  return hn::Or(bits, sign);
}

/// The OFP8 format of an f8 data type.
template <data_type DT>
inline constexpr f8_format f8_format_of = DT == data_type::f8_e5m2 ? f8_format::e5m2 : f8_format::e4m3;

/// f8 bits (one per u32 lane) -> f32, exact, as f8_bits_to_f32.
template <f8_format F>
HWY_INLINE VF f8_bits_to_f32_v(VU b) {
  const DF df;
  const DU du;
  if constexpr (F == f8_format::e5m2) {
    return f16_bits_to_f32_v(hn::ShiftLeft<8>(b));  // E5M2 is the top byte of an f16
  } else {
    // the exponent and mantissa fields where f32 has them, then rebiased by a
    // multiplication by 2^(127 - 7), which also scales the subnormals exactly
    const VU mag = hn::And(b, hn::Set(du, 0x7Fu));
    const VF value = hn::Mul(hn::BitCast(df, hn::ShiftLeft<20>(mag)), hn::Set(df, 0x1p120f));
    const VU bits = hn::IfThenElse(hn::Eq(mag, hn::Set(du, 0x7Fu)), hn::Set(du, 0x7FC00000u), hn::BitCast(du, value));
    return hn::BitCast(df, hn::Or(bits, hn::ShiftLeft<24>(hn::And(b, hn::Set(du, 0x80u)))));
  }
}

/// f32 -> f8 bits (one per u32 lane) as f32_to_f8_bits: rounded once to nearest even,
/// past the largest value Inf (E5M2) or NaN (E4M3), NaN the quiet NaN with the sign.
template <f8_format F>
HWY_INLINE VU f32_to_f8_bits_v(VF v) {
  constexpr bool e5m2 = F == f8_format::e5m2;
  constexpr int drop = 23 - f8_mantissa_bits<F>;  // f32 mantissa bits below an f8 mantissa
  const DF df;
  const DU du;
  const DI di;
  const VU u = hn::BitCast(du, v);
  const VU sign = hn::And(hn::ShiftRight<24>(u), hn::Set(du, 0x80u));
  const VU mag = hn::And(u, hn::Set(du, 0x7FFFFFFFu));
  const VI mag_i = hn::BitCast(di, mag);
  // Normal range: rebias the exponent, round the dropped bits to nearest even.
  const VU lsb = hn::And(hn::ShiftRight<drop>(mag), hn::Set(du, 1u));
  const VU rebiased = hn::Sub(mag, hn::Set(du, std::uint32_t(127 - f8_bias<F>) << 23));
  const VU normal = hn::ShiftRight<drop>(hn::Add(rebiased, hn::Add(hn::Set(du, (1u << (drop - 1)) - 1), lsb)));
  // Subnormal range: added to 2^(23 - 16) (E5M2) or 2^(23 - 9) (E4M3), whose spacing is
  // the smallest subnormal, |v| leaves its count of them, rounded by the FPU, in the
  // low mantissa bits.
  constexpr float magic = e5m2 ? 128.f : 16384.f;
  constexpr std::uint32_t magic_bits = e5m2 ? 0x43000000u : 0x46800000u;
  const VU subnormal = hn::Sub(hn::BitCast(du, hn::Add(hn::BitCast(df, mag), hn::Set(df, magic))), hn::Set(du, magic_bits));
  constexpr std::int32_t smallest_normal = e5m2 ? 0x38800000 : 0x3C800000;  // 2^-14, 2^-6
  VU bits = hn::IfThenElse(hn::RebindMask(du, hn::Lt(mag_i, hn::Set(di, smallest_normal))), subnormal, normal);
  // From 61440 (E5M2, rounds to 2^16) or past 464 (E4M3, the tie below 480) on: overflow.
  constexpr std::int32_t last_in_range = e5m2 ? 0x476FFFFF : 0x43E80000;
  bits = hn::IfThenElse(hn::RebindMask(du, hn::Gt(mag_i, hn::Set(di, last_in_range))), hn::Set(du, e5m2 ? 0x7Cu : 0x7Fu),
                        bits);
  bits = hn::IfThenElse(hn::RebindMask(du, hn::Gt(mag_i, hn::Set(di, 0x7F800000))), hn::Set(du, e5m2 ? 0x7Eu : 0x7Fu),
                        bits);
  return hn::Or(bits, sign);
}

/// A vector of DStore<DT> (Lanes(DF) elements of type DT) as f32, exact.
template <data_type DT>
HWY_INLINE VF widen_to_f32(hn::Vec<DStore<DT>> v) {
  const DF df;
  const DI di;
  const DU du;
  if constexpr (DT == data_type::f32) {
    return v;
  } else if constexpr (DT == data_type::s32) {
    return hn::ConvertTo(df, v);
  } else if constexpr (DT == data_type::s8 || DT == data_type::u8) {
    return hn::ConvertTo(df, hn::PromoteTo(di, v));
  } else if constexpr (DT == data_type::bf16) {
    return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du, v)));
  } else if constexpr (DT == data_type::f8_e5m2 || DT == data_type::f8_e4m3) {
    return f8_bits_to_f32_v<f8_format_of<DT>>(hn::PromoteTo(du, v));
  } else {  // f16
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
    const hn::Rebind<hwy::float16_t, DF> dh;
    return hn::PromoteTo(df, hn::BitCast(dh, v));
#else
    return f16_bits_to_f32_v(hn::PromoteTo(du, v));
#endif
  }
}

/// Loads Lanes(DF) elements of type DT from `p` (any alignment) as f32.
template <data_type DT>
HWY_INLINE VF load_f32(const void* p) {
  const DStore<DT> ds;
  return widen_to_f32<DT>(hn::LoadU(ds, static_cast<const storage_t<DT>*>(p)));
}

/// The first `count` lanes of `d` from `p` (any alignment), reading no byte after them;
/// the other lanes are zero. @pre 0 < count < Lanes(d)
template <class D>
HWY_INLINE hn::Vec<D> load_first(D d, const hn::TFromD<D>* p, dim count) {
  if constexpr (exact_masked_load<hn::TFromD<D>>) {
    return hn::MaskedLoad(hn::FirstN(d, static_cast<std::size_t>(count)), d, p);
  } else {
    HWY_ALIGN hn::TFromD<D> lanes[hn::MaxLanes(d)] = {};
    copy_few<sizeof lanes - 1>(reinterpret_cast<std::byte*>(lanes), reinterpret_cast<const std::byte*>(p),
                               static_cast<std::size_t>(count) * sizeof(hn::TFromD<D>));
    return hn::Load(d, lanes);
  }
}

/// Stores the first `count` lanes of `v` at `p` (any alignment), writing no byte after
/// them. @pre 0 < count < Lanes(d)
template <class D>
HWY_INLINE void store_first(hn::Vec<D> v, D d, hn::TFromD<D>* p, dim count) {
  if constexpr (exact_masked_bytes) {
    hn::BlendedStore(v, hn::FirstN(d, static_cast<std::size_t>(count)), d, p);
  } else {
    HWY_ALIGN hn::TFromD<D> lanes[hn::MaxLanes(d)];
    hn::Store(v, d, lanes);
    copy_few<sizeof lanes - 1>(reinterpret_cast<std::byte*>(p), reinterpret_cast<const std::byte*>(lanes),
                               static_cast<std::size_t>(count) * sizeof(hn::TFromD<D>));
  }
}

/// The first `count` elements of type DT at `p` as f32 (see load_first).
template <data_type DT>
HWY_INLINE VF load_f32_first(const void* p, dim count) {
  const DStore<DT> ds;
  return widen_to_f32<DT>(load_first(ds, static_cast<const storage_t<DT>*>(p), count));
}

/// Stores the narrow vector `v` at `p`, streaming past the caches when asked and
/// possible (a whole aligned register: Highway 1.0's Stream of a partial x86
/// vector would write a full 16 bytes).
template <class D>
HWY_INLINE void store_maybe_stream(hn::Vec<D> v, D d, hn::TFromD<D>* p, bool stream) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
  constexpr std::size_t bytes = hn::MaxLanes(D()) * sizeof(hn::TFromD<D>);
  if constexpr (bytes >= 16) {
    if (stream && reinterpret_cast<std::uintptr_t>(p) % bytes == 0) {
      hn::Stream(v, d, p);
      return;
    }
  }
#else
  (void)stream;
#endif
  hn::StoreU(v, d, p);
}

/// `v` with its NaN lanes replaced by the canonical quiet NaN. The check is a compare and
/// a test of its mask; the blend runs only when a lane is NaN: rare in real tensors, and
/// an op per vector that a conversion bound by its ops cannot afford (a fifth of f32 ->
/// bf16 in L1).
HWY_INLINE VF canonical_nan(VF v) {
  const DF df;
  const auto is_nan = hn::IsNaN(v);
  if (HWY_UNLIKELY(!hn::AllFalse(df, is_nan))) v = hn::IfThenElse(is_nan, hn::BitCast(df, hn::Set(DU(), canonical_nan_bits)), v);
  return v;
}

/// The bf16 of `v` (NaN already canonical) in the upper half of each lane: f32 bits
/// rounded to nearest even at bit 16 (the canonical NaN stays 0x7FC0).
HWY_INLINE VU bf16_rounded_high(VF v) {
  const DU du;
  const VU u = hn::BitCast(du, v);
  const VU lsb = hn::And(hn::ShiftRight<16>(u), hn::Set(du, 1u));
  return hn::Add(u, hn::Add(hn::Set(du, 0x7FFFu), lsb));
}

/// Lanes(DF) f32 results as type DT, like `store_converted<DT>`: NaN -> canonical
/// quiet NaN for floating-point types, round to nearest even, saturation and NaN -> 0
/// for integers. Without `MayBeNaN` (values converted from integers, not multiplied),
/// the NaN checks are left out.
template <data_type DT, bool MayBeNaN = true>
HWY_INLINE hn::Vec<DStore<DT>> to_storage(VF v) {
  const DF df;
  const DI di;
  const DU du;
  const DStore<DT> ds;
  if constexpr (MayBeNaN && is_floating_point(DT)) v = canonical_nan(v);
  if constexpr (DT == data_type::f32) {
    return v;
  } else if constexpr (DT == data_type::bf16) {
    const VU rounded = hn::ShiftRight<16>(bf16_rounded_high(v));
    return hn::DemoteTo(ds, hn::BitCast(di, rounded));
  } else if constexpr (DT == data_type::f16) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
    const hn::Rebind<hwy::float16_t, DF> dh;
    return hn::BitCast(ds, hn::DemoteTo(dh, v));
#else
    return hn::DemoteTo(ds, hn::BitCast(di, f32_to_f16_bits_v(v)));
#endif
  } else if constexpr (DT == data_type::s32) {
    const auto is_nan = hn::RebindMask(di, hn::IsNaN(v));
    const VF clamped = hn::Min(hn::Max(v, hn::Set(df, s32_lower_bound)), hn::Set(df, s32_upper_bound));
    return MayBeNaN ? hn::IfThenZeroElse(is_nan, round_to_i32(clamped)) : round_to_i32(clamped);
  } else {  // s8, u8, f8
    VU low;
    if constexpr (DT == data_type::f8_e5m2 || DT == data_type::f8_e4m3) {
      low = f32_to_f8_bits_v<f8_format_of<DT>>(v);
    } else {
      const float lo = DT == data_type::s8 ? -128.f : 0.f, hi = DT == data_type::s8 ? 127.f : 255.f;
      const auto is_nan = hn::RebindMask(du, hn::IsNaN(v));
      const VF clamped = hn::Min(hn::Max(v, hn::Set(df, lo)), hn::Set(df, hi));
      // Adding 1.5 * 2^23 rounds a value this small to an integer (to nearest even, as a
      // conversion does) in the low bits of the sum, two's complement: its low byte is
      // the result. Cheaper than a conversion, whose overflow checks cannot fire here.
      const VU bits = hn::BitCast(du, hn::Add(clamped, hn::Set(df, 12582912.f)));
      low = MayBeNaN ? hn::IfThenZeroElse(is_nan, bits) : bits;
    }
    const hn::Rebind<std::uint8_t, DF> d8;
#if HWY_TARGET == HWY_AVX3_DL
    // Highway 1.0.3's TruncateTo from 32 to 8 bits is wrong on AVX3_DL (it permutes
    // 32-bit lanes by byte indices): the low byte, alone in its lane, is demoted instead
    const auto bytes = hn::DemoteTo(d8, hn::BitCast(di, hn::And(low, hn::Set(du, 0xFFu))));
#else
    const auto bytes = hn::TruncateTo(d8, low);
#endif
    return hn::BitCast(ds, bytes);
  }
}

/// Stores Lanes(DF) f32 results at `p` as type DT (see to_storage).
template <data_type DT, bool MayBeNaN = true>
HWY_INLINE void store_f32(VF v, void* p, bool stream) {
  store_maybe_stream(to_storage<DT, MayBeNaN>(v), DStore<DT>(), static_cast<storage_t<DT>*>(p), stream);
}

/// Stores the first `count` of Lanes(DF) f32 results at `p` as type DT (see to_storage,
/// store_first).
template <data_type DT, bool MayBeNaN = true>
HWY_INLINE void store_f32_first(VF v, void* p, dim count) {
  store_first(to_storage<DT, MayBeNaN>(v), DStore<DT>(), static_cast<storage_t<DT>*>(p), count);
}

/// Stores 2 Lanes(DF) f32 results, v0 first, at `p` as type DT, like two store_f32:
/// bf16 packs both halves into one vector (one shuffle instead of two demotions).
template <data_type DT, bool MayBeNaN = true>
HWY_INLINE void store_f32_pair(VF v0, VF v1, void* p, bool stream) {
#if HWY_TARGET != HWY_SCALAR  // (which lacks ConcatOdd)
  if constexpr (DT == data_type::bf16) {
    const hn::Repartition<std::uint16_t, DF> d16;
    const VU r0 = bf16_rounded_high(MayBeNaN ? canonical_nan(v0) : v0);
    const VU r1 = bf16_rounded_high(MayBeNaN ? canonical_nan(v1) : v1);
    const auto packed = hn::ConcatOdd(d16, hn::BitCast(d16, r1), hn::BitCast(d16, r0));
    store_maybe_stream(packed, d16, static_cast<std::uint16_t*>(p), stream);
    return;
  }
#endif
  store_f32<DT, MayBeNaN>(v0, p, stream);
  store_f32<DT, MayBeNaN>(v1, static_cast<std::byte*>(p) + hn::Lanes(DF()) * sizeof(storage_t<DT>), stream);
}

/// Whether store_f32_quad packs s8 and u8 results with saturating packs: x86 below
/// AVX-512, where a truncation moves only 8 or 4 bytes per vector (AVX-512 has one
/// instruction for it).
inline constexpr bool packs_bytes = HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4;

/// Stores 4 Lanes(DF) f32 results, v0 first, at `p` as type DT, like four store_f32:
/// s8 and u8 (with packs_bytes) fill one vector with two rounds of packs.
template <data_type DT, bool MayBeNaN = true>
HWY_INLINE void store_f32_quad(VF v0, VF v1, VF v2, VF v3, void* p, bool stream) {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4
  if constexpr (DT == data_type::s8 || DT == data_type::u8) {
    const DF df;
    const DI di;
    const float lo = DT == data_type::s8 ? -128.f : 0.f, hi = DT == data_type::s8 ? 127.f : 255.f;
    // rounded as in store_f32, then the integer itself (the sum's bits less the constant's);
    // the packs saturate nothing, the values are in range already
    const auto to_int = [&](VF v) {
      const VF clamped = hn::Min(hn::Max(v, hn::Set(df, lo)), hn::Set(df, hi));
      const auto bits = hn::Sub(hn::BitCast(di, hn::Add(clamped, hn::Set(df, 12582912.f))), hn::Set(di, 0x4B400000));
      return MayBeNaN ? hn::IfThenZeroElse(hn::RebindMask(di, hn::IsNaN(v)), bits) : bits;
    };
    const auto i0 = to_int(v0), i1 = to_int(v1), i2 = to_int(v2), i3 = to_int(v3);
    const hn::Repartition<std::uint8_t, DF> d8;
    auto* bytes = static_cast<std::uint8_t*>(p);
    const hn::Vec<decltype(d8)> in_order = pack_to_bytes<DT == data_type::s8>(i0, i1, i2, i3);
    store_maybe_stream(in_order, d8, bytes, stream);
    return;
  }
#endif
  const std::size_t step = hn::Lanes(DF()) * sizeof(storage_t<DT>);
  store_f32_pair<DT, MayBeNaN>(v0, v1, p, stream);
  store_f32_pair<DT, MayBeNaN>(v2, v3, static_cast<std::byte*>(p) + 2 * step, stream);
}

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_CONVERT_LANES_INL_H_
