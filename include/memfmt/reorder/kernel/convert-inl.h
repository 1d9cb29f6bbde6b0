// Per-target row conversions (of one vector at a time: convert/lanes-inl.h), the row
// stages every converting kernel is built from:
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

#include "memfmt/reorder/kernel/convert/lanes-inl.h"
#include "memfmt/reorder/kernel/convert_scalar.hpp"
#include "memfmt/reorder/kernel/nest.hpp"
#include "memfmt/reorder/kernel/path.hpp"
#include "memfmt/reorder/kernel/prefetch.hpp"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// Stage A: `rows` rows of `n` elements of type S, row r at `src` + r * src_step
/// bytes -> f32 at `out` + r * out_step. Nothing past a row is read or written.
template <data_type S>
void to_f32_rows(const void* src, dim src_step, float* HWY_RESTRICT out, dim out_step, dim n, dim rows) {
  const DF df;
  const auto N = static_cast<dim>(hn::Lanes(df));
  constexpr auto size = static_cast<dim>(sizeof(storage_t<S>));
  const dim prefetch_end = row_prefetch_end(n, size);
  for (dim r = 0; r < rows; ++r) {
    const auto* s = static_cast<const std::byte*>(src) + r * src_step;
    float* o = out + r * out_step;
    dim k = 0;
    for (; k + N <= n; k += N) {
      if (k < prefetch_end) prefetch_ahead(s + k * size, row_prefetch);
      hn::StoreU(load_f32<S>(s + k * size), df, o + k);
    }
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

/// The entries of elements [k, k + count) of a row of a table read as load_scales reads
/// the scales (`stride` 0: one entry for the row).
HWY_INLINE VF load_entries(const float* table, dim stride, dim k, dim count) {
  return stride == 0 ? hn::Set(DF(), table[0]) : load_scales(table, stride, k, count);
}

/// `v + zp`, lane by lane where zp is not 0: an addition of 0 is skipped, as the scalar
/// arithmetic skips it (-0 + 0 would be +0).
HWY_INLINE VF add_zero_point(VF v, VF zp) {
  return hn::IfThenElse(hn::Eq(zp, hn::Zero(DF())), v, hn::Add(v, zp));
}

/// Whether this target has convert_rows. EMU128, Highway's fallback for CPUs without
/// SSE4, does not: its vectors are arrays of lanes, and its 36 one-pass functions took
/// half of the compile time of all kernels under AddressSanitizer (300 of 600 s with
/// clang 14). It converts in two stages, which a CPU without SSE4 hardly notices.
inline constexpr bool has_convert_rows = HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR;

/// Whether rows convert in one pass (convert_rows): the conversion multiplies a row by
/// one factor at most (no zero points, no sum, no scale that changes along a row).
inline bool converts_in_one_pass(const conversion& c, dim scale_stride) {
  return c.src_zero_point == 0 && c.dst_zero_point == 0 && c.zero_point_tables == 0 && c.beta == 0.f &&
         (c.scales == nullptr || scale_stride == 0);
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

/// The rows of convert_rows_inline, multiplied (by alpha times the row's scale when
/// `scales` is not null) when `scaled`. Whether the results may be NaN is chosen at
/// compile time (integers not multiplied convert to no NaN, and their stores skip the
/// checks); streaming and `scaled` are not: each as a template parameter would double
/// the function's code per pair of types, where a branch on a register per vector costs
/// next to nothing. Arguments by value: a vector store may alias anything it can reach,
/// so that a loop would read captures through a reference again each step.
template <data_type S, data_type D, bool MayBeNaN>
HWY_INLINE void convert_rows_as(const std::byte* src, dim src_step, std::byte* dst, dim dst_step, dim n, dim rows,
                                bool scaled, float alpha, const float* scales, dim row_scale_stride, dim zeros,
                                bool stream) {
  const DF df;
  const auto N = static_cast<dim>(hn::Lanes(df));
  constexpr auto src_size = static_cast<dim>(sizeof(storage_t<S>));
  constexpr auto dst_size = static_cast<dim>(sizeof(storage_t<D>));
  // a row's scale folds into alpha with the same single rounding as alpha * scale
  const auto factor = [=](dim r) { return scales != nullptr ? alpha * scales[r * row_scale_stride] : alpha; };
  // (no multiplication without a factor: with FTZ/DAZ set by the host, x * 1 would flush
  // subnormals that the scalar reference keeps)
  const auto times = [scaled](VF m, VF v) { return scaled ? hn::Mul(m, v) : v; };
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
      const auto out = to_storage<D, MayBeNaN>(v);
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
      store_f32<D, MayBeNaN>(v, dst + r * dst_step, stream);
    }
  }
  const dim prefetch_end = row_prefetch_end(n, src_size);
  for (; r < rows; ++r) {
    const std::byte* s = src + r * src_step;
    std::byte* d = dst + r * dst_step;
    const VF m = hn::Set(df, factor(r));
    const auto load = [&](dim at) {
      if (at < prefetch_end) prefetch_ahead(s + at * src_size, row_prefetch);
      return times(m, load_f32<S>(s + at * src_size));
    };
    const dim k = store_row_vectors<D, MayBeNaN>(load, d, n, stream);
    if (k < n) store_f32_first<D, MayBeNaN>(times(m, load_f32_first<S>(s + k * src_size, n - k)), d + k * dst_size, n - k);
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
  const bool scaled = c.scales != nullptr || c.alpha != 1.f;
  // integers not multiplied convert to no NaN: their stores leave out the checks for one
  if constexpr (S == data_type::s8 || S == data_type::u8 || S == data_type::s32) {
    if (!scaled)
      return convert_rows_as<S, D, false>(s, src_step, d, dst_step, n, rows, false, 1.f, nullptr, 0, p.zero_tail,
                                          p.stream);
  }
  return convert_rows_as<S, D, true>(s, src_step, d, dst_step, n, rows, scaled, c.alpha, scales, p.row_scale_stride,
                                     p.zero_tail, p.stream);
}

/// convert_rows_inline, called.
template <data_type S, data_type D>
void convert_rows(const void* src, dim src_step, void* dst, dim dst_step, dim n, dim rows, const row_params& p) {
  convert_rows_inline<S, D>(src, src_step, dst, dst_step, n, rows, p);
}

/// store_rows for the common quantization: a scale per element, consecutive (a scale per
/// channel along rows of channels), zero points per element laid out as the scales or
/// none, and no sum; the same arithmetic, in the stores that pack 2 or 4 vectors at once
/// (per vector, with the general steps' branches, f32 -> s8 along rows of 171 ran at a
/// third of a common scale's speed).
template <data_type D>
void scale_rows(const float* x, dim x_step, void* dst, dim dst_step, dim n, dim rows, const row_params& p) {
  const DF df;
  constexpr auto size = static_cast<dim>(sizeof(storage_t<D>));
  const VF alpha = hn::Set(df, p.cvt->alpha);
  const bool stream = p.stream;
  const dim gap = p.cvt->zero_point_tables;
  const auto N = static_cast<dim>(hn::Lanes(df));
  if (gap == 0 && p.row_scale_stride == 0 && n % N == 0 && n <= 4 * N) {
    // rows of a few whole vectors with the same scales (a scale per column of blocks of
    // 16 columns: ab -> AB16a16b): the factors once, then a load, a product and a store
    // per vector
    MEMFMT_KERNEL_PATH("rows of whole vectors, the same scales");
    VF m[4];
    for (dim k = 0; k < n / N; ++k) m[k] = hn::Mul(alpha, hn::LoadU(df, p.scales + k * N));
    for (dim r = 0; r < rows; ++r) {
      const float* xr = x + r * x_step;
      auto* d = static_cast<std::byte*>(dst) + r * dst_step;
      for (dim k = 0; k < n / N; ++k)
        store_f32<D>(no_contract_v(hn::Mul(m[k], hn::LoadU(df, xr + k * N))), d + k * N * size, stream);
    }
    return;
  }
  for (dim r = 0; r < rows; ++r) {
    const float* xr = x + r * x_step;
    const float* scales = p.scales + r * p.row_scale_stride;
    auto* d = static_cast<std::byte*>(dst) + r * dst_step;
    // (alpha * scale rounds once, then the product with the value: as store_rows)
    const auto convert = [&](VF v, VF scale, dim at, dim count) {
      if (gap != 0) v = hn::Sub(v, load_scales(scales + gap, 1, at, count));
      v = no_contract_v(hn::Mul(hn::Mul(alpha, scale), v));
      return gap != 0 ? add_zero_point(v, load_scales(scales + 2 * gap, 1, at, count)) : v;
    };
    const auto load = [&](dim at) { return convert(hn::LoadU(df, xr + at), hn::LoadU(df, scales + at), at, N); };
    const dim k = store_row_vectors<D, true>(load, d, n, stream);
    if (k < n) {
      const dim left = n - k;
      const VF v = convert(load_first(df, xr + k, left), load_scales(scales, 1, k, left), k, left);
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
      return scale_rows<D>(x, x_step, dst, dst_step, n, rows, p);  // (zero points per index too)
  }
  const bool multiply = has_scales || c.alpha != 1.f;
  const dim gap = c.zero_point_tables;  // (zero points per lane: see conversion)
  const bool has_src_zp = c.src_zero_point != 0 || gap != 0;
  const bool has_beta = c.beta != 0.f;
  const bool has_dst_zp = c.dst_zero_point != 0 || gap != 0;
  const VF alpha = hn::Set(df, c.alpha);
  const VF src_zp = hn::Set(df, static_cast<float>(c.src_zero_point));
  const VF dst_zp = hn::Set(df, static_cast<float>(c.dst_zero_point));
  const VF beta = hn::Set(df, c.beta);
  // every step but the store, on `count` lanes of values v at element k of a row
  const auto convert = [&](VF v, const float* scales, VF row_multiplier, dim k, dim count, const std::byte* old_at) {
    if (has_src_zp) v = hn::Sub(v, gap != 0 ? load_entries(scales + gap, p.scale_stride, k, count) : src_zp);
    if (multiply) {
      VF m = row_multiplier;
      if (per_lane_scale) m = hn::Mul(alpha, load_scales(scales, p.scale_stride, k, count));
      v = no_contract_v(hn::Mul(m, v));
    }
    const VF zp = gap != 0 ? load_entries(scales + 2 * gap, p.scale_stride, k, count) : dst_zp;
    if (has_beta) {
      VF old = count == N ? load_f32<D>(old_at) : load_f32_first<D>(old_at, count);
      if (has_dst_zp) old = hn::Sub(old, zp);  // the sum reads dst without its zero point
      v = hn::Add(v, no_contract_v(hn::Mul(beta, old)));
    }
    if (has_dst_zp) v = gap != 0 ? add_zero_point(v, zp) : hn::Add(v, zp);
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

/// Whether the vector conversions take type DT: all but f64, whose conversions go as
/// scalar rows (run_nest_target), in double.
template <data_type DT>
inline constexpr bool vector_type = DT != data_type::f64;

/// Whether convert_rows<S, D> exists: not for the f8 types, whose conversions, rarer,
/// take the two stages rather than 28 more one-pass functions per target.
template <data_type S, data_type D>
inline constexpr bool one_pass_pair = S != data_type::f8_e5m2 && S != data_type::f8_e4m3 &&
                                      D != data_type::f8_e5m2 && D != data_type::f8_e4m3 && vector_type<S> &&
                                      vector_type<D>;

/// convert_rows for run-time source and destination types; null where the target has
/// none (has_convert_rows) or the pair has none (one_pass_pair).
inline convert_rows_fn pick_convert_rows(data_type s, data_type d) {
#if HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR  // (as has_convert_rows says)
  (void)s, (void)d;
  return nullptr;
#else
  return visit_data_type(s, [d]<data_type S>() {
    return visit_data_type(d, []<data_type D>() -> convert_rows_fn {
      if constexpr (one_pass_pair<S, D>) return &convert_rows<S, D>;
      return nullptr;
    });
  });
#endif
}

// (The stages of the vector types; null for f64, which no vector kernel is given.)

/// Stage A for a run-time source type.
inline to_f32_row_fn pick_to_f32_row(data_type s) {
  return visit_data_type(s, []<data_type S>() -> to_f32_row_fn {
    if constexpr (vector_type<S>) return &to_f32_row<S>;
    return nullptr;
  });
}

/// Stage A over rows for a run-time source type.
inline to_f32_rows_fn pick_to_f32_rows(data_type s) {
  return visit_data_type(s, []<data_type S>() -> to_f32_rows_fn {
    if constexpr (vector_type<S>) return &to_f32_rows<S>;
    return nullptr;
  });
}

/// Stage B over rows for a run-time destination type.
inline store_rows_fn pick_store_rows(data_type d) {
  return visit_data_type(d, []<data_type D>() -> store_rows_fn {
    if constexpr (vector_type<D>) return &store_rows<D>;
    return nullptr;
  });
}

/// Stage B for a run-time destination type.
inline store_row_fn pick_store_row(data_type d) {
  return visit_data_type(d, []<data_type D>() -> store_row_fn {
    if constexpr (vector_type<D>) return &store_row<D>;
    return nullptr;
  });
}

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_CONVERT_INL_H_
