#pragma once
/// @file
/// Scalar row kernels shared by every target: the `strided` kind, the edges of
/// the SIMD kernels and the `zero_fill` kind. Plain C++ compiled once per
/// translation unit for the baseline ISA (never inside a per-target pass, so no
/// template here is ever instantiated with a target attribute).

#include <cstddef>
#include <cstring>

#include "memfmt/reorder/kernel/convert_scalar.hpp"

namespace memfmt::detail {

/// Copies `n` elements of `size` bytes from src[k * ss] to dst[k * ds] (strides in elements).
inline void copy_row_scalar(std::size_t size, const void* src, dim ss, void* dst, dim ds, dim n) noexcept {
  const auto* s = static_cast<const std::byte*>(src);
  auto* d = static_cast<std::byte*>(dst);
  const auto sz = static_cast<dim>(size);
  if (ss == 1 && ds == 1) {
    if (n > 0) std::memcpy(d, s, static_cast<std::size_t>(n) * size);
    return;
  }
  // Fixed-size memcpy compiles to one move.
  switch (size) {
    case 4:
      for (dim k = 0; k < n; ++k) std::memcpy(d + k * ds * 4, s + k * ss * 4, 4);
      return;
    case 2:
      for (dim k = 0; k < n; ++k) std::memcpy(d + k * ds * 2, s + k * ss * 2, 2);
      return;
    case 1:
      for (dim k = 0; k < n; ++k) d[k * ds] = s[k * ss];
      return;
    default:
      for (dim k = 0; k < n; ++k) std::memcpy(d + k * ds * sz, s + k * ss * sz, size);
  }
}

/// Writes `n` zero elements of `size` bytes at dst[k * ds]; all-zero bits is zero in every data type.
inline void zero_row_scalar(std::size_t size, void* dst, dim ds, dim n) noexcept {
  auto* d = static_cast<std::byte*>(dst);
  if (ds == 1) {
    if (n > 0) std::memset(d, 0, static_cast<std::size_t>(n) * size);
    return;
  }
  const auto sz = static_cast<dim>(size);
  for (dim k = 0; k < n; ++k) std::memset(d + k * ds * sz, 0, size);
}

/// `n` elements src[k * ss] -> dst[k * ds] through conversion `c`, element k
/// scaled by scales[k * scs] (when `c.scales` is set).
template <data_type S, data_type D>
void convert_row_scalar(const conversion& c, const void* src, dim ss, void* dst, dim ds, const float* scales, dim scs,
                        dim n) noexcept {
  const auto* s = static_cast<const std::byte*>(src);
  auto* d = static_cast<std::byte*>(dst);
  constexpr auto ssz = static_cast<dim>(sizeof(storage_t<S>));
  constexpr auto dsz = static_cast<dim>(sizeof(storage_t<D>));
  for (dim k = 0; k < n; ++k) {
    const float* scale = c.scales != nullptr ? scales + k * scs : nullptr;
    convert_element<S, D>(c, s + k * ss * ssz, d + k * ds * dsz, scale);
  }
}

/// The strided row with run-time types: a byte copy when `c` is plain, else the reference conversion.
/// @param scales  `c.scales` advanced to this row's first element (ignored when `c.scales` is null)
inline void strided_row(const conversion& c, const void* src, dim ss, void* dst, dim ds, const float* scales, dim scs,
                        dim n) noexcept {
  if (c.is_plain_copy()) {
    copy_row_scalar(data_type_size(c.src), src, ss, dst, ds, n);
    return;
  }
  visit_data_type(c.src, [&]<data_type S>() {
    visit_data_type(c.dst, [&]<data_type D>() { convert_row_scalar<S, D>(c, src, ss, dst, ds, scales, scs, n); });
  });
}

}  // namespace memfmt::detail
