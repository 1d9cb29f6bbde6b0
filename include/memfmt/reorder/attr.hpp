#pragma once
/// @file
/// Reorder attributes, the model of oneDNN 3.x's reference reorder (benchdnn):
/// `dst = (s_src * (src - zp_src) + beta * (dst_old - zp_dst)) / s_dst + zp_dst`:
/// a sum reads the old destination without its zero point.
///
/// Computed per element in f32 (in f64 when either side is f64), each step rounded to
/// that type, in this order (a step whose parameter is neutral skipped: zero point 0,
/// factor 1, no sum):
/// `x = src - zp_src; x = (s_src / s_dst) * x; d = dst_old - zp_dst;
///  x = x + (beta / s_dst) * d; x = x + zp_dst`, then stored in the destination type
/// (rounded to nearest even, integers saturated). `s_src / s_dst` and `beta / s_dst` are
/// each rounded once; the product `(beta / s_dst) * d` is rounded before it is added
/// (no fused multiply-add). The zero point is added last, after the sum, as 3.x's
/// reference adds it; oneDNN 2.6's `simple:any` adds it before the sum (`(x + zp_dst) +
/// beta * dst_old`), which for f32 destinations can change the last bit. oneDNN's own
/// reorders read the old destination as stored (docs/reorder.md).

#include <cstdint>
#include <vector>

#include "memfmt/core/data_type.hpp"

namespace memfmt {

/// How a model stores its scale factors (oneDNN 3.x's scales data type). `e8m0` holds
/// a power of two, 2^-127 to 2^127, in 8 exponent bits (the OCP MX scale type).
enum class scale_type { f32, f16, bf16, e8m0 };

/// The name oneDNN gives `t` ("f32", "f16", "bf16", "e8m0").
constexpr const char* to_string(scale_type t) noexcept {
  return t == scale_type::f16 ? "f16" : t == scale_type::bf16 ? "bf16" : t == scale_type::e8m0 ? "e8m0" : "f32";
}

/// Scale factors, one (`mask == 0`) or one per index of the masked dims (bit d = dim d),
/// in row-major order of those dims, as oneDNN stores them; or, with `groups`, one per
/// group of consecutive indices along each masked dim (oneDNN 3.x's grouped scales).
///
/// Example: `oi` weights of 64 x 512, one scale per output channel and 128 input
/// channels: `{.mask = 0b11, .values = /* 64 * 4 */, .groups = {1, 128}}`; the element
/// (o, i) is scaled by `values[o * 4 + i / 128]`.
struct scales {
  int mask = 0;
  std::vector<float> values;  ///< empty: no scaling
  /// Group sizes, one per masked dim in increasing dim order; empty: groups of 1. Each
  /// divides its dim. (`= {}`: `{mask, values}` stays a complete initializer.)
  std::vector<std::int64_t> groups = {};
  /// The type the values were stored in: each value must be one of that type's (a
  /// reorder checks), so that memfmt scales by exactly what oneDNN reads from such a
  /// buffer. The arithmetic is the same for every type: f32.
  scale_type type = scale_type::f32;
  bool empty() const noexcept { return values.empty(); }
};

/// Zero points, laid out as `scales` are: one (`mask == 0`), or one per index or group
/// of indices of the masked dims, row-major over them.
///
/// Example: u4 weights `oi` of 64 x 512 with one zero point per output channel and 128
/// input channels: `{.mask = 0b11, .values = /* 64 * 4 */, .groups = {1, 128},
/// .type = data_type::u4}`.
struct zero_points {
  int mask = 0;
  std::vector<std::int32_t> values;  ///< empty: zero points of 0
  std::vector<std::int64_t> groups = {};  ///< as scales::groups
  /// The type the values were stored in: s32, s8, u8, s4 or u4; each value must lie in
  /// its range (a reorder checks).
  data_type type = data_type::s32;
  bool empty() const noexcept { return values.empty(); }
  /// One zero point for every element: `zero_points::common(8)`.
  static zero_points common(std::int32_t value) { return {0, {value}}; }
  /// The zero point of every element when one serves them all (`mask == 0`); 0 when
  /// there are none, and when there is one per index.
  std::int32_t common_value() const noexcept { return mask == 0 && !empty() ? values[0] : 0; }
};

/// What a reorder does besides moving and converting elements.
struct reorder_attr {
  scales src_scales;                 ///< s_src
  scales dst_scales;                 ///< s_dst
  zero_points src_zero_points;       ///< zp_src
  zero_points dst_zero_points;       ///< zp_dst
  float sum_beta = 0.f;              ///< beta: accumulate into the destination
  /// 0: all cores (OpenMP builds), 1: the calling thread only. The plan cuts its work
  /// into pieces for this many threads (0: every processor; 1: none), also when a
  /// caller's `parallel_for` runs it.
  int threads = 0;
};

}  // namespace memfmt
