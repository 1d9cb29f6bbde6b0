#pragma once
/// @file
/// Resolving `format_kind::any`: the layout a kernel of a SIMD target prefers for a
/// tensor role and data type (see docs/select.md for the choices and why).

#include "memfmt/core/data_type.hpp"
#include "memfmt/core/error.hpp"
#include "memfmt/desc/desc.hpp"
#include "memfmt/tag/blocking.hpp"

namespace memfmt {

/// What a tensor is for.
enum class tensor_role {
  generic,          ///< no preference: plain row-major
  activation,       ///< n c [d] [h] w data of a convolution
  weights,          ///< o i [d] [h] w convolution weights
  grouped_weights,  ///< g o i [d] [h] w convolution weights
};

/// The SIMD instruction sets layouts are chosen for.
enum class simd_target { scalar, sse4, avx2, avx512 };

/// The best target of the CPU running this code.
inline simd_target current_simd_target() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq"))
    return simd_target::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return simd_target::avx2;
  if (__builtin_cpu_supports("sse4.1")) return simd_target::sse4;
#endif
  return simd_target::scalar;
}

namespace detail {

/// Plain order a, b, c, ... with `channel` blocked by `block` (no block when block <= 1).
constexpr blocking channel_blocked(int ndims, int channel, dim block) {
  blocking b;
  b.ndims = ndims;
  for (int i = 0; i < ndims; ++i) b.order[static_cast<std::size_t>(i)] = static_cast<std::int8_t>(i);
  if (block > 1) {
    b.inner_nblks = 1;
    b.inner_blks[0] = block;
    b.inner_idxs[0] = static_cast<std::int8_t>(channel);
  }
  return b;
}

/// Channels innermost: n [d] [h] w c, as int8 kernels read them.
constexpr blocking channels_last(int ndims) {
  blocking b;
  b.ndims = ndims;
  int k = 0;
  b.order[static_cast<std::size_t>(k++)] = 0;
  for (int i = 2; i < ndims; ++i) b.order[static_cast<std::size_t>(k++)] = static_cast<std::int8_t>(i);
  b.order[static_cast<std::size_t>(k)] = 1;
  return b;
}

/// O and I blocked: O I [d] [h] w with inner blocks `blocks` over (o, i) dims.
constexpr blocking weights_blocked(int ndims, int o, const dim (&sizes)[3], const int (&which)[3], int nblocks) {
  blocking b = channel_blocked(ndims, o, 1);
  b.inner_nblks = nblocks;
  for (int k = 0; k < nblocks; ++k) {
    b.inner_blks[static_cast<std::size_t>(k)] = sizes[k];
    b.inner_idxs[static_cast<std::size_t>(k)] = static_cast<std::int8_t>(o + which[k]);  // 0: o, 1: i
  }
  return b;
}

constexpr blocking preferred_blocking(const desc& d, tensor_role role, simd_target target) {
  const int n = d.get_ndims();
  const data_type dt = d.get_data_type();
  if (role == tensor_role::generic || target == simd_target::scalar) return channel_blocked(n, 0, 1);
  if (role == tensor_role::activation) {
    if (n < 3) return channel_blocked(n, 0, 1);
    if (is_integral(dt)) return channels_last(n);           // int8 kernels: nhwc
    // one vector of f32 channels: nChw16c on AVX-512, nChw8c on AVX2 and SSE4 (whose
    // kernels use pairs of 16-byte registers, as oneDNN's do)
    return channel_blocked(n, 1, target == simd_target::avx512 ? 16 : 8);
  }
  const int o = role == tensor_role::grouped_weights ? 1 : 0;
  if (n - o < 3) return channel_blocked(n, 0, 1);
  const dim block = target == simd_target::avx512 ? 16 : 8;
  if (dt == data_type::s8 || dt == data_type::u8) {  // 4 input channels per 32-bit lane (VNNI)
    const dim sizes[3] = {block / 4, block, 4};
    const int which[3] = {1, 0, 1};
    return weights_blocked(n, o, sizes, which, 3);     // OIhw4i16o4i / OIhw2i8o4i
  }
  if (dt == data_type::bf16 || dt == data_type::f16) {  // 2 input channels per 32-bit lane
    const dim sizes[3] = {block / 2, block, 2};
    const int which[3] = {1, 0, 1};
    return weights_blocked(n, o, sizes, which, 3);     // OIhw8i16o2i / OIhw4i8o2i
  }
  const dim sizes[3] = {block, block, 1};
  const int which[3] = {1, 0, 0};
  return weights_blocked(n, o, sizes, which, 2);       // OIhw16i16o / OIhw8i8o
}

}  // namespace detail

/// The concrete descriptor a kernel for `target` prefers for `d` in `role`. A descriptor
/// that is already concrete is returned unchanged.
/// @throws error for the zero descriptor
constexpr desc select_format(const desc& d, tensor_role role, simd_target target) {
  if (d.get_format_kind() == format_kind::undef) detail::fail("select_format: the zero descriptor has no dims");
  if (d.get_format_kind() == format_kind::blocked) return d;
  return desc(d.get_dims(), d.get_data_type(), detail::preferred_blocking(d, role, target));
}

/// `select_format` for the CPU running this code.
inline desc select_format(const desc& d, tensor_role role) { return select_format(d, role, current_simd_target()); }

}  // namespace memfmt
