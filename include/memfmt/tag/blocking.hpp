#pragma once
/// @file
/// `blocking`: what a format tag says, independent of any dims.

#include <array>
#include <cstdint>

#include "memfmt/core/dim.hpp"

namespace memfmt {

/// The layout a tag names: the physical order of the outer dims and the inner blocks.
/// Two tags describe the same layout exactly when their blockings are equal.
/// @invariant `order` is a permutation of 0..ndims-1; every inner block's dim is < ndims;
///            `inner_blks` are >= 1 and their product fits comfortably in 32 bits.
struct blocking {
  int ndims = 0;
  std::array<std::int8_t, max_ndims> order{};       ///< logical dim at each physical position, outermost first
  int inner_nblks = 0;
  std::array<dim, max_ndims> inner_blks{};          ///< inner block sizes, outermost first
  std::array<std::int8_t, max_ndims> inner_idxs{};  ///< logical dim of each inner block

  /// The product of the inner blocks of logical dim `d` (1 when `d` is not blocked).
  constexpr dim block_of(int d) const noexcept {
    dim b = 1;
    // (max_ndims bounds the loop for GCC 12, which otherwise warns of a read past the array)
    for (int k = 0; k < inner_nblks && k < max_ndims; ++k)
      if (inner_idxs[static_cast<std::size_t>(k)] == d) b *= inner_blks[static_cast<std::size_t>(k)];
    return b;
  }

  /// True when logical dim `d` has at least one inner block.
  constexpr bool is_blocked(int d) const noexcept {
    for (int k = 0; k < inner_nblks; ++k)
      if (inner_idxs[static_cast<std::size_t>(k)] == d) return true;
    return false;
  }

  /// The product of all inner blocks: the elements of one innermost block.
  constexpr dim block_size() const noexcept {
    dim b = 1;
    for (int k = 0; k < inner_nblks; ++k) b *= inner_blks[static_cast<std::size_t>(k)];
    return b;
  }

  constexpr bool operator==(const blocking&) const = default;
};

}  // namespace memfmt
