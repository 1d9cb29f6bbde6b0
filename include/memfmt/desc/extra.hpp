#pragma once
/// @file
/// The extra information a descriptor may carry: weights compensation for int8 convolutions.

#include <cstdint>

namespace memfmt {

/// Flags of `extra_info` (oneDNN's `memory_extra_flags`).
namespace extra_flags {
inline constexpr std::uint32_t none = 0x0U;
/// an s32 buffer after the data holds -128 * (sum of the s8 weights) per masked index
inline constexpr std::uint32_t compensation_conv_s8s8 = 0x1U;
/// the weights were scaled by `scale_adjust` (e.g. 0.5 to avoid s8 overflow in VNNI-less kernels)
inline constexpr std::uint32_t scale_adjust = 0x2U;
/// an s32 buffer (after the s8s8 one, if any) holds -(sum of the weights) per masked index
inline constexpr std::uint32_t compensation_conv_asymmetric_src = 0x8U;
}  // namespace extra_flags

/// Extra information attached to a descriptor (oneDNN's `memory_extra_desc_t`).
struct extra_info {
  std::uint32_t flags = extra_flags::none;
  int compensation_mask = 0;        ///< dims the s8s8 compensation is kept per (bit d = dim d)
  float scale_adjust = 1.0f;
  int asymm_compensation_mask = 0;  ///< dims the zero-point compensation is kept per

  constexpr bool operator==(const extra_info&) const = default;
};

}  // namespace memfmt
