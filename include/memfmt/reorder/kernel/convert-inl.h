// Per-target vector conversions between the storage types and f32, and the
// row stages every converting kernel is built from:
//   stage A (`to_f32_row<S>`): source elements -> f32, exact;
//   stage B (`store_row<D>`):  f32 -> conversion arithmetic -> destination elements;
//   one pass (`convert_rows<S, D>`): both at once, for the conversions that multiply
//   a row by one factor at most (no zero points, no sum), which are most of them.
// The two stages serve every conversion with 6 + 6 functions per target; the one
// pass takes 36, small ones, and saves the f32 rows in between (about 1.6 times as
// fast in cache). Every result equals convert_scalar.hpp bit for bit.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_CONVERT_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_CONVERT_INL_H_
#undef MEMFMT_REORDER_KERNEL_CONVERT_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_CONVERT_INL_H_
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "memfmt/reorder/kernel/convert_scalar.hpp"
#include "memfmt/reorder/kernel/nest.hpp"
#include "memfmt/reorder/kernel/path.hpp"
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
  if constexpr (exact_masked_bytes) {
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
  if constexpr (MayBeNaN && (DT == data_type::f32 || DT == data_type::bf16 || DT == data_type::f16)) v = canonical_nan(v);
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
  } else {  // s8, u8
    const float lo = DT == data_type::s8 ? -128.f : 0.f, hi = DT == data_type::s8 ? 127.f : 255.f;
    const auto is_nan = hn::RebindMask(du, hn::IsNaN(v));
    const VF clamped = hn::Min(hn::Max(v, hn::Set(df, lo)), hn::Set(df, hi));
    // Adding 1.5 * 2^23 rounds a value this small to an integer (to nearest even, as a
    // conversion does) in the low bits of the sum, two's complement: its low byte is
    // the result. Cheaper than a conversion, whose overflow checks cannot fire here.
    const VU bits = hn::BitCast(du, hn::Add(clamped, hn::Set(df, 12582912.f)));
    const hn::Rebind<std::uint8_t, DF> d8;
    const VU low = MayBeNaN ? hn::IfThenZeroElse(is_nan, bits) : bits;
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

/// Stage A: `rows` rows of `n` elements of type S, row r at `src` + r * src_step
/// bytes -> f32 at `out` + r * out_step. Nothing past a row is read or written.
template <data_type S>
void to_f32_rows(const void* src, dim src_step, float* HWY_RESTRICT out, dim out_step, dim n, dim rows) {
  const DF df;
  const auto N = static_cast<dim>(hn::Lanes(df));
  constexpr auto size = static_cast<dim>(sizeof(storage_t<S>));
  for (dim r = 0; r < rows; ++r) {
    const auto* s = static_cast<const std::byte*>(src) + r * src_step;
    float* o = out + r * out_step;
    dim k = 0;
    for (; k + N <= n; k += N) hn::StoreU(load_f32<S>(s + k * size), df, o + k);
    if (k < n) store_first(load_f32_first<S>(s + k * size, n - k), df, o + k, n - k);
  }
}

/// Stage A for one row.
template <data_type S>
void to_f32_row(const void* src, float* HWY_RESTRICT out, dim n) {
  to_f32_rows<S>(src, 0, out, 0, n, 1);
}

/// The per-row constants of stage B.
struct row_params {
  const conversion* cvt;
  const float* scales;  ///< this row's first scale (when cvt->scales is set)
  dim scale_stride;     ///< between consecutive elements of the row
  bool stream;
  dim row_scale_stride = 0;  ///< between the first scales of consecutive rows (store_rows)
  dim zero_tail = 0;         ///< zeros after each row, written with it (convert_rows; < Lanes(DF))
};

/// The scale factors of elements [k, k + count) of a row, in the first `count` lanes
/// (the others 1). @pre 0 < count <= Lanes(DF)
HWY_INLINE VF load_scales(const float* scales, dim stride, dim k, dim count = static_cast<dim>(hn::Lanes(DF()))) {
  const DF df;
  const auto N = static_cast<dim>(hn::Lanes(df));
  if (stride == 1 && count == N) return hn::LoadU(df, scales + k);
  HWY_ALIGN float lanes[hn::MaxLanes(df)];
  for (dim i = 0; i < N; ++i) lanes[i] = i < count ? scales[(k + i) * stride] : 1.f;
  return hn::Load(df, lanes);
}

/// Whether this target has convert_rows. EMU128, Highway's fallback for CPUs without
/// SSE4, does not: its vectors are arrays of lanes, and its 36 one-pass functions took
/// half of the compile time of all kernels under AddressSanitizer (300 of 600 s with
/// clang 14). It converts in two stages, which a CPU without SSE4 hardly notices.
inline constexpr bool has_convert_rows = HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR;

/// Whether rows convert in one pass (convert_rows): the conversion multiplies a row by
/// one factor at most (no zero points, no sum, no scale that changes along a row).
inline bool converts_in_one_pass(const conversion& c, dim scale_stride) {
  return c.src_zero_point == 0 && c.dst_zero_point == 0 && c.beta == 0.f && (c.scales == nullptr || scale_stride == 0);
}

/// Stores the whole vectors of a row of `n` results as type D at `d`, `load(k)` giving
/// the f32 results of elements [k, k + lanes), 4 or 2 vectors at a time where stores
/// pack them; returns where the whole vectors end.
template <data_type D, bool MayBeNaN, class Load>
HWY_INLINE dim store_row_vectors(const Load& load, std::byte* d, dim n, bool stream) {
  const auto N = static_cast<dim>(hn::Lanes(DF()));
  constexpr auto size = static_cast<dim>(sizeof(storage_t<D>));
  dim k = 0;
  if constexpr ((D == data_type::s8 || D == data_type::u8) && packs_bytes) {
    for (; k + 4 * N <= n; k += 4 * N)
      store_f32_quad<D, MayBeNaN>(load(k), load(k + N), load(k + 2 * N), load(k + 3 * N), d + k * size, stream);
  }
  for (; k + 2 * N <= n; k += 2 * N) store_f32_pair<D, MayBeNaN>(load(k), load(k + N), d + k * size, stream);
  for (; k + N <= n; k += N) store_f32<D, MayBeNaN>(load(k), d + k * size, stream);
  return k;
}

/// The rows of convert_rows_inline, with the multiplication (by alpha times the row's
/// scale when `scales` is not null) chosen at compile time. (Streaming is not: as a
/// template parameter it added 15 % to the compile time of memfmt.hpp with header-only
/// kernels, and a branch on a register per store costs next to nothing.) Arguments by value: a vector
/// store may alias anything it can reach, so that a loop would read captures through a
/// reference again each step.
template <data_type S, data_type D, bool Scaled>
HWY_INLINE void convert_rows_as(const std::byte* src, dim src_step, std::byte* dst, dim dst_step, dim n, dim rows,
                                float alpha, const float* scales, dim row_scale_stride, dim zeros, bool stream) {
  const DF df;
  const auto N = static_cast<dim>(hn::Lanes(df));
  constexpr auto src_size = static_cast<dim>(sizeof(storage_t<S>));
  constexpr auto dst_size = static_cast<dim>(sizeof(storage_t<D>));
  // a row's scale folds into alpha with the same single rounding as alpha * scale
  const auto factor = [=](dim r) { return scales != nullptr ? alpha * scales[r * row_scale_stride] : alpha; };
  // integers not multiplied convert to no NaN: the checks for one are left out
  constexpr bool may_be_nan = Scaled || !(S == data_type::s8 || S == data_type::u8 || S == data_type::s32);
  const auto times = [](VF m, VF v) {
    if constexpr (Scaled) {
      return hn::Mul(m, v);
    } else {
      // no multiplication without a factor: with FTZ/DAZ set by the host, x * 1 would
      // flush subnormals that the scalar reference keeps
      return v;
    }
  };
  const dim span = n + zeros;  // a row and its zeros
  dim r = 0;
#if !HWY_HAVE_SCALABLE && HWY_TARGET != HWY_SCALAR
  if (2 * span == N) {
    MEMFMT_KERNEL_PATH(zeros == 0 ? "rows of half a vector, two per vector"
                                  : "rows and their zeros in half a vector, two per vector");
    const DStore<S> ds;
    const hn::Half<DStore<S>> half_s;
    const DStore<D> dd;
    const hn::Half<DStore<D>> half_d;
    const hn::Half<DF> half_f;
    const bool src_pairs = zeros == 0 && src_step == n * src_size, dst_pairs = dst_step == span * dst_size;
    // the lanes of the rows, not of their zeros (0 * a negative factor would be -0)
    const DI di;
    const auto row_lanes = hn::RebindMask(df, hn::Lt(hn::And(hn::Iota(di, 0), hn::Set(di, span - 1)), hn::Set(di, n)));
    const bool same_factor = scales == nullptr || row_scale_stride == 0;
    const VF common = hn::Set(df, factor(0));
    for (; r + 2 <= rows; r += 2) {
      const auto* s = reinterpret_cast<const storage_t<S>*>(src + r * src_step);
      const auto* s_next = reinterpret_cast<const storage_t<S>*>(src + (r + 1) * src_step);
      auto* d = reinterpret_cast<storage_t<D>*>(dst + r * dst_step);
      auto* d_next = reinterpret_cast<storage_t<D>*>(dst + (r + 1) * dst_step);
      const auto in = src_pairs  ? hn::LoadU(ds, s)
                      : zeros == 0 ? hn::Combine(ds, hn::LoadU(half_s, s_next), hn::LoadU(half_s, s))
                                   : hn::Combine(ds, load_first(half_s, s_next, n), load_first(half_s, s, n));
      const VF m = same_factor ? common : hn::Combine(df, hn::Set(half_f, factor(r + 1)), hn::Set(half_f, factor(r)));
      VF v = times(m, widen_to_f32<S>(in));
      if (zeros != 0) v = hn::IfThenElseZero(row_lanes, v);
      const auto out = to_storage<D, may_be_nan>(v);
      if (dst_pairs) {
        store_maybe_stream(out, dd, d, stream);
      } else {  // (half vectors go through the cache: streaming stores pay for whole lines)
        hn::StoreU(hn::LowerHalf(half_d, out), half_d, d);
        hn::StoreU(hn::UpperHalf(half_d, out), half_d, d_next);
      }
    }
  }
#endif
  if (span == N) {  // a vector per row: no loop along it
    const auto row_lanes = hn::FirstN(df, static_cast<std::size_t>(n));
    for (; r < rows; ++r) {
      const VF m = hn::Set(df, factor(r));
      const std::byte* s = src + r * src_step;
      VF v = times(m, zeros == 0 ? load_f32<S>(s) : load_f32_first<S>(s, n));
      if (zeros != 0) v = hn::IfThenElseZero(row_lanes, v);
      store_f32<D, may_be_nan>(v, dst + r * dst_step, stream);
    }
  }
  for (; r < rows; ++r) {
    const std::byte* s = src + r * src_step;
    std::byte* d = dst + r * dst_step;
    const VF m = hn::Set(df, factor(r));
    const auto load = [&](dim at) { return times(m, load_f32<S>(s + at * src_size)); };
    const dim k = store_row_vectors<D, may_be_nan>(load, d, n, stream);
    if (k < n) store_f32_first<D, may_be_nan>(times(m, load_f32_first<S>(s + k * src_size, n - k)), d + k * dst_size, n - k);
    if (zeros != 0) store_f32_first<D, false>(hn::Zero(df), d + n * dst_size, zeros);
  }
}

/// convert_rows: `rows` rows of `n` elements of type S, row r at `src` + r * src_step
/// bytes, converted in one pass to type D at `dst` + r * dst_step bytes: the results of
/// to_f32_rows then store_rows, without the f32 rows in between. Rows of half a vector
/// go two to a vector (one row of 8 f32 per AVX-512 vector cost half of it, masked), also
/// with the p.zero_tail zeros after them that fill it (nChw8c with 3 channels). Nothing
/// past a row and its zeros is read or written.
/// @pre converts_in_one_pass(*p.cvt, p.scale_stride); p.zero_tail < Lanes(DF)
template <data_type S, data_type D>
HWY_INLINE void convert_rows_inline(const void* src, dim src_step, void* dst, dim dst_step, dim n, dim rows,
                                    const row_params& p) {
  const conversion& c = *p.cvt;
  const auto* s = static_cast<const std::byte*>(src);
  auto* d = static_cast<std::byte*>(dst);
  const float* scales = c.scales != nullptr ? p.scales : nullptr;
  if (c.scales != nullptr || c.alpha != 1.f) {
    return convert_rows_as<S, D, true>(s, src_step, d, dst_step, n, rows, c.alpha, scales, p.row_scale_stride,
                                       p.zero_tail, p.stream);
  }
  return convert_rows_as<S, D, false>(s, src_step, d, dst_step, n, rows, 1.f, nullptr, 0, p.zero_tail, p.stream);
}

/// convert_rows_inline, called.
template <data_type S, data_type D>
void convert_rows(const void* src, dim src_step, void* dst, dim dst_step, dim n, dim rows, const row_params& p) {
  convert_rows_inline<S, D>(src, src_step, dst, dst_step, n, rows, p);
}

/// store_rows for the common quantization: a scale per element, consecutive (a scale per
/// channel along rows of channels), and nothing else; the same arithmetic, in the
/// stores that pack 2 or 4 vectors at once (per vector, with the general steps' branches,
/// f32 -> s8 along rows of 171 ran at a third of a common scale's speed).
template <data_type D>
void scale_rows(const float* x, dim x_step, void* dst, dim dst_step, dim n, dim rows, const row_params& p) {
  const DF df;
  constexpr auto size = static_cast<dim>(sizeof(storage_t<D>));
  const VF alpha = hn::Set(df, p.cvt->alpha);
  const bool stream = p.stream;
  for (dim r = 0; r < rows; ++r) {
    const float* xr = x + r * x_step;
    const float* scales = p.scales + r * p.row_scale_stride;
    auto* d = static_cast<std::byte*>(dst) + r * dst_step;
    // (alpha * scale rounds once, then the product with the value: as store_rows)
    const auto load = [&](dim at) {
      return no_contract_v(hn::Mul(hn::Mul(alpha, hn::LoadU(df, scales + at)), hn::LoadU(df, xr + at)));
    };
    const dim k = store_row_vectors<D, true>(load, d, n, stream);
    if (k < n) {
      const dim left = n - k;
      const VF v = no_contract_v(hn::Mul(hn::Mul(alpha, load_scales(scales, 1, k, left)), load_first(df, xr + k, left)));
      store_f32_first<D>(v, d + k * size, left);
    }
  }
}

/// Stage B: `rows` rows of `n` f32 values, row r at `x` + r * x_step (any alignment),
/// through the conversion arithmetic, stored as type D at `dst` + r * dst_step bytes
/// (which is also read when beta != 0); row r's first scale is p.scales + r *
/// p.row_scale_stride. Nothing past a row is read or written: a row's last partial
/// vector goes through masked (AVX-512) or buffered loads and stores, so that a row
/// shorter than a vector costs about what a vector does.
template <data_type D>
void store_rows(const float* x, dim x_step, void* dst, dim dst_step, dim n, dim rows, const row_params& p) {
  const conversion& c = *p.cvt;
  if constexpr (has_convert_rows) {
    if (converts_in_one_pass(c, p.scale_stride)) {
      // (inline: a call more per row cost a fifth of nChw16c -> nchw bf16 -> f32, whose
      // transposes store rows of 16)
      return convert_rows_inline<data_type::f32, D>(x, x_step * static_cast<dim>(sizeof(float)), dst, dst_step, n,
                                                    rows, p);
    }
  }
  const DF df;
  const auto N = static_cast<dim>(hn::Lanes(df));
  constexpr auto size = static_cast<dim>(sizeof(storage_t<D>));

  const bool has_scales = c.scales != nullptr;
  const bool per_lane_scale = has_scales && p.scale_stride != 0;
  if constexpr (has_convert_rows) {  // (EMU128: see has_convert_rows)
    if (per_lane_scale && p.scale_stride == 1 && c.src_zero_point == 0 && c.beta == 0.f && c.dst_zero_point == 0)
      return scale_rows<D>(x, x_step, dst, dst_step, n, rows, p);
  }
  const bool multiply = has_scales || c.alpha != 1.f;
  const bool has_src_zp = c.src_zero_point != 0;
  const bool has_beta = c.beta != 0.f;
  const bool has_dst_zp = c.dst_zero_point != 0;
  const VF alpha = hn::Set(df, c.alpha);
  const VF src_zp = hn::Set(df, static_cast<float>(c.src_zero_point));
  const VF dst_zp = hn::Set(df, static_cast<float>(c.dst_zero_point));
  const VF beta = hn::Set(df, c.beta);
  // every step but the store, on `count` lanes of values v at element k of a row
  const auto convert = [&](VF v, const float* scales, VF row_multiplier, dim k, dim count, const std::byte* old_at) {
    if (has_src_zp) v = hn::Sub(v, src_zp);
    if (multiply) {
      VF m = row_multiplier;
      if (per_lane_scale) m = hn::Mul(alpha, load_scales(scales, p.scale_stride, k, count));
      v = no_contract_v(hn::Mul(m, v));
    }
    if (has_beta) {
      const VF old = count == N ? load_f32<D>(old_at) : load_f32_first<D>(old_at, count);
      v = hn::Add(v, no_contract_v(hn::Mul(beta, old)));
    }
    if (has_dst_zp) v = hn::Add(v, dst_zp);
    return v;
  };

  for (dim r = 0; r < rows; ++r) {
    const float* xr = x + r * x_step;
    auto* d = static_cast<std::byte*>(dst) + r * dst_step;
    const float* scales = has_scales ? p.scales + r * p.row_scale_stride : nullptr;
    // A row-wide scale folds into alpha with the same single rounding as alpha * scale.
    const VF row_multiplier = hn::Set(df, has_scales && !per_lane_scale ? c.alpha * scales[0] : c.alpha);
    dim k = 0;
    for (; k + N <= n; k += N)
      store_f32<D>(convert(hn::LoadU(df, xr + k), scales, row_multiplier, k, N, d + k * size), d + k * size, p.stream);
    if (k < n) {
      const dim left = n - k;
      const VF v = convert(load_first(df, xr + k, left), scales, row_multiplier, k, left, d + k * size);
      store_f32_first<D>(v, d + k * size, left);
    }
  }
}

/// Stage B for one row.
template <data_type D>
void store_row(const float* x, void* dst, dim n, const row_params& p) {
  store_rows<D>(x, 0, dst, 0, n, 1, p);
}

using to_f32_row_fn = void (*)(const void*, float*, dim);
using store_row_fn = void (*)(const float*, void*, dim, const row_params&);
using to_f32_rows_fn = void (*)(const void*, dim, float*, dim, dim, dim);
using store_rows_fn = void (*)(const float*, dim, void*, dim, dim, dim, const row_params&);

using convert_rows_fn = void (*)(const void*, dim, void*, dim, dim, dim, const row_params&);

/// Whether a kernel's rows convert in one pass: it has `convert` (from
/// pick_convert_rows), and their scales, `scales` (null: none) `scale_stride` apart along
/// a row, give one factor per row.
inline bool one_pass(convert_rows_fn convert, const float* scales, dim scale_stride) {
  return convert != nullptr && (scales == nullptr || scale_stride == 0);
}

/// convert_rows for run-time source and destination types; null where the target has
/// none (has_convert_rows).
inline convert_rows_fn pick_convert_rows(data_type s, data_type d) {
#if HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR  // (as has_convert_rows says)
  (void)s, (void)d;
  return nullptr;
#else
  return visit_data_type(s, [d]<data_type S>() {
    return visit_data_type(d, []<data_type D>() -> convert_rows_fn { return &convert_rows<S, D>; });
  });
#endif
}

/// Stage A for a run-time source type.
inline to_f32_row_fn pick_to_f32_row(data_type s) {
  return visit_data_type(s, []<data_type S>() -> to_f32_row_fn { return &to_f32_row<S>; });
}

/// Stage A over rows for a run-time source type.
inline to_f32_rows_fn pick_to_f32_rows(data_type s) {
  return visit_data_type(s, []<data_type S>() -> to_f32_rows_fn { return &to_f32_rows<S>; });
}

/// Stage B over rows for a run-time destination type.
inline store_rows_fn pick_store_rows(data_type d) {
  return visit_data_type(d, []<data_type D>() -> store_rows_fn { return &store_rows<D>; });
}

/// Stage B for a run-time destination type.
inline store_row_fn pick_store_row(data_type d) {
  return visit_data_type(d, []<data_type D>() -> store_row_fn { return &store_row<D>; });
}

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_CONVERT_INL_H_
