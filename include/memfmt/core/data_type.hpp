#pragma once
/// @file
/// Element types, their sizes and their names.

#include <cstddef>
#include <string_view>

namespace memfmt {

/// The element type of a tensor (oneDNN's `memory::data_type`, the subset memfmt
/// converts). f64 is the IEEE 754 binary64 double; f8_e5m2 and f8_e4m3 are the OCP
/// 8-bit floating-point formats (OFP8); s4 and u4 are 4-bit integers packed two per
/// byte, as oneDNN 3.x packs them: the element at linear offset 2k in the low nibble of
/// byte k, the element at 2k + 1 in its high nibble.
enum class data_type { undef, f16, bf16, f32, s32, s8, u8, f64, f8_e5m2, f8_e4m3, s4, u4 };

/// Every data type but `undef`.
inline constexpr data_type all_data_types[] = {data_type::f32,     data_type::bf16,    data_type::f16,
                                               data_type::s32,     data_type::s8,      data_type::u8,
                                               data_type::f8_e5m2, data_type::f8_e4m3, data_type::f64,
                                               data_type::s4,      data_type::u4};

/// Bits per element; 0 for `undef`.
constexpr int data_type_bits(data_type dt) noexcept {
  switch (dt) {
    case data_type::s4:
    case data_type::u4: return 4;
    case data_type::s8:
    case data_type::u8:
    case data_type::f8_e5m2:
    case data_type::f8_e4m3: return 8;
    case data_type::f16:
    case data_type::bf16: return 16;
    case data_type::f32:
    case data_type::s32: return 32;
    case data_type::f64: return 64;
    case data_type::undef: break;
  }
  return 0;
}

/// True for the types packed two per byte (s4, u4): an element has no address of its
/// own, only a byte and a nibble.
constexpr bool is_sub_byte(data_type dt) noexcept { return data_type_bits(dt) == 4; }

/// Bytes per element, rounded up to a whole byte (1 for s4 and u4, as oneDNN's
/// `data_type_size` says; their tensors' sizes count half a byte each: desc::get_size);
/// 0 for `undef`.
constexpr std::size_t data_type_size(data_type dt) noexcept {
  switch (dt) {
    case data_type::f64: return 8;
    case data_type::f16:
    case data_type::bf16: return 2;
    case data_type::f32:
    case data_type::s32: return 4;
    case data_type::s8:
    case data_type::u8:
    case data_type::f8_e5m2:
    case data_type::f8_e4m3:
    case data_type::s4:
    case data_type::u4: return 1;
    case data_type::undef: break;
  }
  return 0;
}

/// The name oneDNN prints for `dt` ("f32", "s8", ...).
constexpr std::string_view to_string(data_type dt) noexcept {
  switch (dt) {
    case data_type::f16: return "f16";
    case data_type::bf16: return "bf16";
    case data_type::f32: return "f32";
    case data_type::s32: return "s32";
    case data_type::s8: return "s8";
    case data_type::u8: return "u8";
    case data_type::f64: return "f64";
    case data_type::f8_e5m2: return "f8_e5m2";
    case data_type::f8_e4m3: return "f8_e4m3";
    case data_type::s4: return "s4";
    case data_type::u4: return "u4";
    case data_type::undef: break;
  }
  return "undef";
}

/// True for the integer types, whose conversions saturate and round.
constexpr bool is_integral(data_type dt) noexcept {
  return dt == data_type::s32 || dt == data_type::s8 || dt == data_type::u8 || dt == data_type::s4 ||
         dt == data_type::u4;
}

/// True for the floating-point types, which hold NaN.
constexpr bool is_floating_point(data_type dt) noexcept {
  return dt != data_type::undef && !is_integral(dt);
}

}  // namespace memfmt
