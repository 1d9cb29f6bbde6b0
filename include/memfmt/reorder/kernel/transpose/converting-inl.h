// Per-target block strategies of the `transpose` kernel (transpose-inl.h) for blocks
// that change the type or scale: conversion is vectorised along contiguous rows, so
// each strategy arranges for long rows on one side of a plain transpose (convert then
// transpose, transpose then convert), or, with beta, which reads the destination in its
// own order, transposes f32 tiles between the two conversion stages.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_TRANSPOSE_CONVERTING_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_TRANSPOSE_CONVERTING_INL_H_
#undef MEMFMT_REORDER_KERNEL_TRANSPOSE_CONVERTING_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_TRANSPOSE_CONVERTING_INL_H_
#endif

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "memfmt/reorder/kernel/convert-inl.h"
#include "memfmt/reorder/kernel/path.hpp"
#include "memfmt/reorder/kernel/prefetch.hpp"
#include "memfmt/reorder/kernel/scalar_rows.hpp"
#include "memfmt/reorder/kernel/transpose/block-inl.h"
#include "memfmt/reorder/kernel/transpose/small_blocks-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

inline const float* advance_scales(const float* scales, dim offset) {
  return scales != nullptr ? scales + offset : nullptr;
}

/// What the `transpose` kind knows of one nest's conversion, and the block strategies
/// that convert.
struct transpose_converting {
  const conversion* cvt;
  bool plain;
  bool stream;
  std::size_t src_size, dst_size;
  dim spare;  ///< the zeros after each column's destination run (see column_map::spare)
  std::array<tile_plain_fn, 3> f32_tiles{};  ///< f32 tile transposes, widest first; none without tiles
  to_f32_row_fn to_f32 = nullptr;
  store_row_fn store = nullptr;
  convert_rows_fn convert = nullptr;  ///< one pass, for the rows converts_in_one_pass allows

  /// The conversion `c` over the loops of `n`. @pre `c` outlives this object
  transpose_converting(const nest& n, const conversion& c)
      : cvt(&c),
        plain(c.is_plain_copy()),
        stream(n.stream_stores),
        src_size(data_type_size(c.src)),
        dst_size(data_type_size(c.dst)),
        spare(n.zero_tail) {
    if constexpr (tile_lanes >= 4) {
      f32_tiles = plain_tiles<4>();
      if (!plain) {
        to_f32 = pick_to_f32_row(c.src);
        store = pick_store_row(c.dst);
        if (converts_in_one_pass(c, 0)) convert = pick_convert_rows(c.src, c.dst);
      }
    }
  }

  /// Rows j in [j0, j1) of the block, elements i in [i0, i1), with the scalar strided rows.
  void scalar_part(const std::byte* src, std::byte* dst, const float* scales, const loop& J, const loop& I, dim j0,
                   dim j1, dim i0, dim i1) const {
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    for (dim j = j0; j < j1; ++j) {
      strided_row(*cvt, src + (j * J.src_stride + i0) * ssz, 1, dst + (j + i0 * I.dst_stride) * dsz, I.dst_stride,
                  advance_scales(scales, j * J.scale_stride + i0 * I.scale_stride), I.scale_stride, i1 - i0);
    }
  }

  /// Converting rows [j0, j1) x elements [i0, i1) in strips of W rows (W of
  /// level `level`): stage A along the source rows (long, vectorised), W x W
  /// f32 tile transposes, stage B along the destination (one long row when the
  /// destination strip is packed, e.g. a blocked layout's inner block); then the
  /// strips left over with narrower tiles, the last ones scalar.
  void convert_region(const std::byte* src, std::byte* dst, const float* scales, const loop& J, const loop& I, dim j0,
                      dim j1, dim i0, dim i1, std::size_t level) const {
    if (j0 >= j1 || i0 >= i1) return;
    if (level == 0) MEMFMT_KERNEL_PATH("f32 tiles, converted rows");
    if (level >= tile_levels) {
      scalar_part(src, dst, scales, J, I, j0, j1, i0, i1);
      return;
    }
    constexpr dim chunk = 4 * static_cast<dim>(tile_lanes);  // elements of i per pass, a multiple of every W
    const auto W = static_cast<dim>(tile_lanes >> level);
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    const dim j_full = j0 + (j1 - j0) / W * W, i_full = i0 + (i1 - i0) / W * W;
    const bool packed_dst =
        I.dst_stride == W && (cvt->scales == nullptr || I.scale_stride == W * J.scale_stride);
    HWY_ALIGN float staged[tile_lanes * chunk];  // W source rows of `chunk` f32
    HWY_ALIGN float tile[chunk * tile_lanes];    // `chunk` destination rows of W f32
    for (dim j = j0; j < j_full; j += W) {
      for (dim i = i0; i < i_full; i += chunk) {
        const dim count = i_full - i < chunk ? i_full - i : chunk;
        for (dim k = 0; k < W; ++k) to_f32(src + ((j + k) * J.src_stride + i) * ssz, staged + k * chunk, count);
        for (dim t = 0; t < count; t += W) {
          f32_tiles[level](reinterpret_cast<const std::byte*>(staged + t), chunk, reinterpret_cast<std::byte*>(tile + t * W),
                           W);
        }
        if (packed_dst) {
          const row_params p{cvt, advance_scales(scales, j * J.scale_stride + i * I.scale_stride), J.scale_stride, false};
          store(tile, dst + (j + i * I.dst_stride) * dsz, count * W, p);
          continue;
        }
        for (dim t = 0; t < count; ++t) {
          const row_params p{cvt, advance_scales(scales, j * J.scale_stride + (i + t) * I.scale_stride), J.scale_stride,
                             false};
          store(tile + t * W, dst + (j + (i + t) * I.dst_stride) * dsz, W, p);
        }
      }
    }
    convert_region(src, dst, scales, J, I, j0, j_full, i_full, i1, level + 1);  // right strip
    convert_region(src, dst, scales, J, I, j_full, j1, i0, i1, level + 1);      // bottom strip
  }

  /// Converting without beta: each strip of source rows is converted, in source
  /// order, into a buffer of the destination type (the long contiguous rows
  /// vectorise), which is then transposed as plain elements of that type by
  /// `transpose`.
  void convert_then_transpose(const std::byte* src, std::byte* dst, const float* scales, const loop& J, const loop& I,
                              const loop& C, transpose_block_fn transpose) const {
    MEMFMT_KERNEL_PATH("converted then transposed");
    constexpr dim chunk = 256;  // columns per strip
    constexpr auto W = static_cast<dim>(tile_lanes);
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    const dim columns = C.extent * I.extent;
    const column_map map{I.extent, I.dst_stride, C.dst_stride, spare};
    const bool in_one_pass = one_pass(convert, scales, I.scale_stride);
    if (in_one_pass) MEMFMT_KERNEL_PATH("strips converted in one pass");
    HWY_ALIGN float staged[chunk];
    HWY_ALIGN std::byte converted[tile_lanes * chunk * 4];  // W rows of `chunk` dst elements
    for (dim j = 0; j < J.extent; j += W) {
      const dim rows = J.extent - j < W ? J.extent - j : W;
      for (dim i = 0; i < columns; i += chunk) {
        const dim cols = columns - i < chunk ? columns - i : chunk;
        const std::byte* first = src + (j * J.src_stride + i) * ssz;
        const dim left = columns - i - cols;  // of each row, after this chunk
        if (stream && left > 0) {
          // from memory: ask for the rows' next chunk while this one converts (W rows far
          // apart outrun the hardware prefetcher)
          for (dim k = 0; k < rows; ++k) {
            const auto next = reinterpret_cast<std::uintptr_t>(first + k * J.src_stride * ssz + cols * ssz);
            const auto last = next + static_cast<std::uintptr_t>(std::min(left, chunk) * ssz);
            for (auto line = next & ~std::uintptr_t{63}; line < last; line += 64) prefetch_line(line);
          }
        }
        if (in_one_pass) {
          // the strip's rows in one call (two calls per row cost a fifth of nChw16c -> nchw
          // bf16 -> f32, whose rows are 16 elements)
          const row_params p{cvt, advance_scales(scales, j * J.scale_stride + i * I.scale_stride), 0, false,
                             J.scale_stride};
          convert(first, J.src_stride * ssz, converted, chunk * dsz, cols, rows, p);
        } else {
          for (dim k = 0; k < rows; ++k) {
            const std::byte* row = first + k * J.src_stride * ssz;
            const float* x = staged;
            if (cvt->src == data_type::f32) {
              x = reinterpret_cast<const float*>(row);  // read with unaligned loads only
            } else {
              to_f32(row, staged, cols);
            }
            const row_params p{cvt, advance_scales(scales, (j + k) * J.scale_stride + i * I.scale_stride),
                               I.scale_stride, false};
            store(x, converted + k * chunk * dsz, cols, p);
          }
        }
        transpose(converted, chunk, dst + j * dsz, map, i, rows, cols, stream);
      }
    }
  }

  /// Converting with fewer columns than a tile and many rows (nChw16c -> nchw with 3
  /// channels, a type change): strips of rows are transposed plain, in the source type,
  /// into a buffer whose rows are the destination's, which then convert as long rows
  /// (converted first, each source row was a conversion of 3 elements, at a tenth of
  /// oneDNN's speed). Beta reads the destination in its own order.
  void transpose_then_convert(const std::byte* src, std::byte* dst, const float* scales, const loop& J,
                              const loop& I) const {
    MEMFMT_KERNEL_PATH("transposed then converted");
    constexpr dim chunk = 512;  // rows per strip: destination elements per converted row
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    const transpose_block_fn transpose = pick_transpose_block(src_size, I.extent);
    const column_map map{I.extent, chunk, 0, 0};
    HWY_ALIGN std::byte staged[static_cast<std::size_t>(tile_lanes) * chunk * 4];  // I.extent rows of `chunk`
    HWY_ALIGN float values[chunk];
    const bool in_one_pass = one_pass(convert, scales, J.scale_stride);
    if (in_one_pass) MEMFMT_KERNEL_PATH("transposed, then converted in one pass");
    for (dim j = 0; j < J.extent; j += chunk) {
      const dim rows = J.extent - j < chunk ? J.extent - j : chunk;
      transpose(src + j * J.src_stride * ssz, J.src_stride, staged, map, 0, rows, I.extent, false);
      for (dim i = 0; i < I.extent; ++i) {
        const std::byte* row = staged + i * chunk * ssz;
        const row_params p{cvt, advance_scales(scales, i * I.scale_stride + j * J.scale_stride), J.scale_stride, stream};
        if (in_one_pass) {
          convert(row, 0, dst + (j + i * I.dst_stride) * dsz, 0, rows, 1, p);
          continue;
        }
        const float* x = values;
        if (cvt->src == data_type::f32) {
          x = reinterpret_cast<const float*>(row);
        } else {
          to_f32(row, values, rows);
        }
        store(x, dst + (j + i * I.dst_stride) * dsz, rows, p);
      }
    }
  }
};

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_TRANSPOSE_CONVERTING_INL_H_
