#pragma once
/// @file
/// The blocking math: padded dims, strides, size and the offset of a logical index.
/// Every function is constexpr: descriptors, typed tags and static layouts all call these.

#include <cstddef>

#include "memfmt/core/dims.hpp"
#include "memfmt/tag/blocking.hpp"

namespace memfmt {

/// Dims rounded up to a multiple of each dim's inner block.
/// @pre `d.size() == b.ndims`, every `d[i] >= 0`
constexpr dims padded_dims(const blocking& b, const dims& d) {
  dims padded = d;
  for (int i = 0; i < d.size(); ++i) {
    const dim block = b.block_of(i);
    padded[i] = (d[i] + (block - 1)) / block * block;  // no overflow for unblocked dims up to 2^63 - 1
  }
  return padded;
}

/// Strides of the outer dims: the innermost outer dim strides over one whole inner
/// block, each dim further out over everything inside it.
/// A dim of 0 does not zero the strides outside it (as in oneDNN).
/// @pre `padded` is `padded_dims(b, dims)`
constexpr dims outer_strides(const blocking& b, const dims& padded) {
  dims strides = dims::filled(b.ndims, 0);
  dim stride = b.block_size();
  for (int k = b.ndims - 1; k >= 0; --k) {
    const int d = b.order[static_cast<std::size_t>(k)];
    strides[d] = stride;
    if (padded[d] != 0) stride *= padded[d] / b.block_of(d);
  }
  return strides;
}

/// Elements spanned by a blocked tensor (oneDNN's size rule, in elements): the largest
/// extent any outer dim reaches, where a dim that spans a single block does not count its
/// stride; the whole inner block at least; 0 when any dim is 0.
/// @pre strides >= 0; `padded` are multiples of the blocks
constexpr dim span_in_elements(const blocking& b, const dims& dims_, const dims& padded, const dims& strides) {
  for (dim v : dims_)
    if (v == 0) return 0;
  dim span = 0;
  for (int d = 0; d < padded.size(); ++d) {
    const dim outer = padded[d] / b.block_of(d);
    const dim reach = outer == 1 ? 1 : outer * strides[d];
    if (reach > span) span = reach;
  }
  if (span == 1 && b.inner_nblks != 0) span = b.block_size();
  return span;
}

/// The offset, in elements, of a physical index (logical index plus padded offsets):
/// inner blocks take the low parts of each index, innermost first; what is left
/// of each index goes through the outer strides.
/// @pre 0 <= index[i] < padded dims
constexpr dim element_offset(const blocking& b, const dims& strides, dims index) {
  dim offset = 0;
  dim block_stride = 1;
  for (int k = b.inner_nblks - 1; k >= 0; --k) {
    const int d = b.inner_idxs[static_cast<std::size_t>(k)];
    const dim blk = b.inner_blks[static_cast<std::size_t>(k)];
    offset += index[d] % blk * block_stride;
    index[d] /= blk;
    block_stride *= blk;
  }
  for (int d = 0; d < strides.size(); ++d) offset += index[d] * strides[d];
  return offset;
}

}  // namespace memfmt
