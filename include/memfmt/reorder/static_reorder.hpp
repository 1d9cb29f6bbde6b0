#pragma once
/// @file
/// `static_reorder`: a reorder between two fully static layouts of the same extents,
/// with no run-time plan. Offsets are compile-time straight-line code; what it does
/// (sizes in bytes, element count) can be stated in `static_assert`s.

#include <array>
#include <cstddef>
#include <utility>

#include "memfmt/core/data_type.hpp"
#include "memfmt/layout/static_layout.hpp"
#include "memfmt/reorder/kernel/convert_scalar.hpp"

namespace memfmt {

/// Converts a tensor of `SrcType` in layout `Src` to `DstType` in layout `Dst`, with
/// memfmt's exact conversions (round to nearest even, saturation), zeros in Dst's padding.
/// @pre both layouts fully static, with equal extents
template <class Src, class Dst, data_type SrcType, data_type DstType = SrcType>
struct static_reorder {
  static_assert(Src::is_static && Dst::is_static, "memfmt::static_reorder: both layouts need static extents");
  static_assert(Src{}.extents() == Dst{}.extents(), "memfmt::static_reorder: source and destination extents differ");
  static_assert(SrcType != data_type::undef && DstType != data_type::undef, "memfmt::static_reorder: undef data type");
  static_assert(!is_sub_byte(SrcType) && !is_sub_byte(DstType),
                "memfmt::static_reorder: s4 and u4 elements have no address of their own (memfmt::reorder takes them)");

  using src_type = detail::storage_t<SrcType>;  ///< f16 and bf16 as std::uint16_t bits
  using dst_type = detail::storage_t<DstType>;

  static constexpr dim elements = Src{}.extents().product();
  static constexpr std::size_t src_bytes = Src{}.size_bytes(SrcType);  ///< what `run` reads from, padding included
  static constexpr std::size_t dst_bytes = Dst{}.size_bytes(DstType);  ///< what `run` writes, padding included

  /// @pre src spans src_bytes, dst spans dst_bytes
  static void run(const src_type* src, dst_type* dst) noexcept {
    detail::conversion cvt;
    cvt.src = SrcType;
    cvt.dst = DstType;
    run_over(src, dst, cvt, std::make_index_sequence<static_cast<std::size_t>(Dst::rank)>{});
  }

 private:
  static constexpr dims padded = Dst{}.padded_extents();
  static constexpr dims extents = Dst{}.extents();
  static constexpr dim padded_elements = padded.product();

  template <std::size_t... D>
  static void run_over(const src_type* src, dst_type* dst, const detail::conversion& cvt, std::index_sequence<D...>) noexcept {
    for (dim linear = 0; linear < padded_elements; ++linear) {
      std::array<dim, sizeof...(D)> index{};
      dim rest = linear;
      for (int d = static_cast<int>(sizeof...(D)) - 1; d >= 0; --d) {
        index[static_cast<std::size_t>(d)] = rest % padded[d];
        rest /= padded[d];
      }
      const bool inside = ((index[D] < extents[static_cast<int>(D)]) && ...);
      const dim to = Dst{}.offset(index[D]...);
      if (inside)
        detail::convert_element<SrcType, DstType>(cvt, src + Src{}.offset(index[D]...), dst + to, nullptr);
      else
        dst[to] = dst_type{};
    }
  }
};

}  // namespace memfmt
