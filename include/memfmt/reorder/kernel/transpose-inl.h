// Per-target `transpose` kernel: the two innermost loops J (dst stride 1) and I (src
// stride 1) form a 2-D block, its columns possibly spanning a third loop C contiguous
// with I in the source. Plain blocks go to the block transpose (transpose/block-inl.h),
// blocks of a few tiles in one loop (transpose/small_blocks-inl.h), blocks 2 to 4 wide on
// a packed side by interleaved loads or stores. Converting blocks convert each strip of
// source rows into a buffer of the destination type first, then transpose that; with
// beta, which reads the destination, they transpose f32 values and convert destination
// rows.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_TRANSPOSE_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_TRANSPOSE_INL_H_
#undef MEMFMT_REORDER_KERNEL_TRANSPOSE_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_TRANSPOSE_INL_H_
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

/// The `transpose` kind for one nest: everything that does not change per block.
struct transpose_kernel {
  const conversion* cvt;
  bool plain;
  bool stream;
  std::size_t src_size, dst_size;
  dim spare;  ///< the zeros after each column's destination run (see column_map::spare)
  tile_plain_fn tile_plain = nullptr;    ///< the widest tile; null: no tiles on this target
  interleave_plain_fn interleave = nullptr;
  deinterleave_plain_fn deinterleave = nullptr;
  std::array<tile_plain_fn, 3> f32_tiles{};  ///< conversions: f32 tile transposes, widest first
  to_f32_row_fn to_f32 = nullptr;
  store_row_fn store = nullptr;
  convert_rows_fn convert = nullptr;  ///< one pass, for the rows converts_in_one_pass allows

  explicit transpose_kernel(const nest& n) : transpose_kernel(n, n.cvt) {}

  /// The kernel of `n`'s loops with the conversion `c` instead of the nest's own.
  /// @pre `c` outlives the kernel
  transpose_kernel(const nest& n, const conversion& c)
      : cvt(&c),
        plain(c.is_plain_copy()),
        stream(n.stream_stores),
        src_size(data_type_size(c.src)),
        dst_size(data_type_size(c.dst)),
        spare(n.zero_tail) {
    if constexpr (tile_lanes >= 4) {
      f32_tiles = plain_tiles<4>();
      tile_plain = f32_tiles[0];
      if (plain) {
        if (dst_size == 4) {
          interleave = &interleave_plain<4>;
          deinterleave = &deinterleave_plain<4>;
        }
        if (dst_size == 2) {
          interleave = &interleave_plain<2>;
          deinterleave = &deinterleave_plain<2>;
        }
        if (dst_size == 1) {
          interleave = &interleave_plain<1>;
          deinterleave = &deinterleave_plain<1>;
        }
      } else {
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

  /// A block 2, 3 or 4 wide on a packed side, with interleaved stores or loads;
  /// false when the block is not such a block.
  bool narrow(const std::byte* src, std::byte* dst, const float* scales, const loop& J, const loop& I) const {
    constexpr auto V = static_cast<dim>(tile_lanes);
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    const DF df;
    HWY_ALIGN float staged[4 * tile_lanes];
    HWY_ALIGN float tile[4 * tile_lanes];
    // Few destination rows, packed: dst[i * m + j].
    const dim mj = J.extent;
    const bool linear_scales = cvt->scales == nullptr || I.scale_stride == mj * J.scale_stride;
    if (mj >= 2 && mj <= 4 && I.dst_stride == mj && (plain || linear_scales)) {
      MEMFMT_KERNEL_PATH("interleaved stores");
      dim done = 0;
      if (plain) {
        done = interleave(src, J.src_stride, dst, mj, I.extent);
      } else {
        // a vector of columns at a time; the last, fewer, stored in part
        for (dim count = 0; done < I.extent; done += count) {
          count = I.extent - done < V ? I.extent - done : V;
          for (dim j = 0; j < mj; ++j) {
            to_f32(src + (j * J.src_stride + done) * ssz, staged + j * V, count);
            std::fill(staged + j * V + count, staged + (j + 1) * V, 0.f);
          }
          interleave_rows(df, staged, V, tile, mj, V);
          // In the packed destination the scales advance by J's scale stride per element.
          const row_params p{cvt, advance_scales(scales, done * I.scale_stride), J.scale_stride, false};
          store(tile, dst + done * mj * dsz, mj * count, p);
        }
      }
      scalar_part(src, dst, scales, J, I, 0, mj, done, I.extent);
      return true;
    }
    // Few source columns, packed: src[j * m + i].
    const dim mi = I.extent;
    if (mi >= 2 && mi <= 4 && J.src_stride == mi) {
      MEMFMT_KERNEL_PATH("interleaved loads");
      dim done = 0;
      if (plain) {
        done = deinterleave(src, dst, I.dst_stride, mi, J.extent);
      } else {
        // a vector of rows at a time; the last, fewer, stored in part
        for (dim count = 0; done < J.extent; done += count) {
          count = J.extent - done < V ? J.extent - done : V;
          to_f32(src + done * mi * ssz, staged, mi * count);
          std::fill(staged + mi * count, staged + mi * V, 0.f);
          deinterleave_rows(df, staged, tile, V, mi, V);
          for (dim i = 0; i < mi; ++i) {
            const row_params p{cvt, advance_scales(scales, done * J.scale_stride + i * I.scale_stride), J.scale_stride,
                               false};
            store(tile + i * V, dst + (done + i * I.dst_stride) * dsz, count, p);
          }
        }
      }
      scalar_part(src, dst, scales, J, I, done, J.extent, 0, mi);
      return true;
    }
    // Plain copies of 2 or 3 source columns in wider source rows (nChw16c -> nchw with 3
    // channels: 3 of each pixel's 16): blocks of rows staged packed in L1, a few moves per
    // row, then as above. (As block transposes, their tiles of 4 lanes moved 2 or 3
    // useful ones per row; 4 columns fill the tiles and stay there. Conversions keep
    // their own paths, which convert whole strips.)
    if (plain && mi >= 2 && mi <= 3 && J.src_stride > mi && J.extent >= V) {
      MEMFMT_KERNEL_PATH("interleaved loads, staged");
      constexpr dim block = 16 * V;  // rows per block
      HWY_ALIGN std::byte packed[block * 4 * sizeof(float)];
      const auto row_bytes = static_cast<std::size_t>(mi * ssz);
      for (dim done = 0; done < J.extent; done += block) {
        const dim count = J.extent - done < block ? J.extent - done : block;
        const std::byte* from = src + done * J.src_stride * ssz;
        for (dim j = 0; j < count; ++j)
          copy_few<16>(packed + j * static_cast<dim>(row_bytes), from + j * J.src_stride * ssz, row_bytes);
        narrow(packed, dst + done * J.dst_stride * dsz, advance_scales(scales, done * J.scale_stride),
               loop{count, mi, J.dst_stride, J.scale_stride}, I);
      }
      return true;
    }
    return false;
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
  /// vectorise), which is then transposed as plain elements of that type.
  void convert_then_transpose(const std::byte* src, std::byte* dst, const float* scales, const loop& J, const loop& I,
                              const loop& C) const {
    MEMFMT_KERNEL_PATH("converted then transposed");
    constexpr dim chunk = 256;  // columns per strip
    constexpr auto W = static_cast<dim>(tile_lanes);
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    const dim columns = C.extent * I.extent;
    const column_map map{I.extent, I.dst_stride, C.dst_stride, spare};
    const transpose_block_fn transpose = pick_transpose_block(dst_size, tile_side(J, I, C));
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

  /// One block: J = loops[n-2] (dst stride 1), I = loops[n-1] (src stride 1) and,
  /// when the nest folds columns, C = loops[n-3] (src stride I.extent); else C has
  /// extent 1.
  /// The block transpose for plain blocks of rows J, columns I (and C).
  transpose_block_fn plain_block(const loop& J, const loop& I, const loop& C) const {
    const auto dsz = static_cast<dim>(dst_size);
    const bool rows_share_sets = !stream && C.extent == 1 && J.extent >= 16 && I.dst_stride > J.src_stride &&
                                 (I.dst_stride * dsz) % 2048 == 0;
    return pick_transpose_block(dst_size, tile_side(J, I, C), rows_share_sets);
  }

  /// Whether the tiles write the zeros after each destination row themselves: rows of
  /// J.extent elements and `spare` zeros that make exactly one tile's lanes (nchw ->
  /// nChw8c or nChw16c with 3 channels: 3 + 5 or 3 + 13), its other source rows zero.
  /// Else the zeros go row by row after the kernel (see transpose_block's few rows).
  bool completes_tails(const loop& J, const loop& I, const loop& C) const {
    const dim lanes = J.extent + spare;
    // (not blocks of 2 to 4 packed columns, which go through narrow())
    return tile_plain != nullptr && (plain || cvt->beta == 0.f) && spare > 0 && J.extent < C.extent * I.extent &&
           (C.extent > 1 || I.extent > 4) &&
           lanes <= static_cast<dim>(tile_lanes) && (lanes == 4 || lanes == 8 || lanes == static_cast<dim>(tile_lanes));
  }

  /// The narrow side of a block for pick_transpose_block: with completes_tails, the
  /// tile's lanes.
  dim tile_side(const loop& J, const loop& I, const loop& C) const {
    const dim columns = C.extent * I.extent;
    return completes_tails(J, I, C) ? J.extent + spare : J.extent < columns ? J.extent : columns;
  }

  /// The blocks along loop L, each as block() would do it; for plain blocks, the transpose
  /// is chosen once for all (a choice per block costs a tenth or more of blocks of a few
  /// tiles).
  void blocks(const std::byte* src, std::byte* dst, const float* scales, const loop& L, const loop& J, const loop& I,
              const loop& C) const {
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    dim done = 0;
    if (plain && tile_plain != nullptr && L.extent > 0) {
      if constexpr (tile_lanes >= 4) {
        // Blocks a line of 32-bit elements wide at most (a whole number of tiles: 16
        // channels) and a few tiles long: whole tiles, inline, the last of a row or column
        // moved back to end at the edge. Against a block transpose per block, or masked
        // tiles with 8 lanes, they gain up to half on AVX-512 and AVX2 and double SSE4's
        // speed for 3 x 3 to 7 x 7 pixels; from 8 x 8 on they gain nothing or lose (hence
        // `longest`).
        constexpr auto W = static_cast<dim>(tile_lanes);
        constexpr dim longest = W == 16 ? 64 : W == 8 ? 56 : 32;
        const auto fits = [](dim wide, dim along) { return wide % W == 0 && wide <= 16 && along > W && along <= longest; };
        if (dst_size == 4 && C.extent == 1 && (fits(J.extent, I.extent) || fits(I.extent, J.extent)) && spare == 0 &&
            !stream) {
          transpose_short_blocks<4, tile_lanes>(src, J.src_stride * 4, L.src_stride * 4, dst, I.dst_stride * 4,
                                                L.dst_stride * 4, J.extent, I.extent, L.extent);
          return;
        }
      }
      // Other small blocks, by masked rows: of at most a tile, or, in 8-lane tiles, a strip
      // of at most two tiles of at most 8192 elements (the source in L1). Against a block
      // transpose per block, two to four times as fast for blocks of a tile or less (and
      // than interleaved loads or stores for 2 x 2 pixels); larger blocks lost, and so did
      // blocks of several 16-lane masked tiles.
      if constexpr (exact_masked_rows<4> && tile_lanes >= 8) {
        constexpr auto W = static_cast<dim>(tile_lanes);
        const bool small = W < 16 ? (J.extent <= 2 * W || I.extent <= 2 * W) && J.extent * I.extent <= 8192
                                  : J.extent <= W && I.extent <= W;
        if (dst_size == 4 && C.extent == 1 && small && spare == 0 && !stream) {
          transpose_small_blocks<tile_lanes>(src, J.src_stride * 4, L.src_stride * 4, dst, I.dst_stride * 4,
                                             L.dst_stride * 4, J.extent, I.extent, L.extent);
          return;
        }
      }
      if (C.extent == 1 && narrow(src, dst, scales, J, I)) {
        done = 1;  // blocks 2 to 4 wide: each on its own
      } else {
        const transpose_block_fn each = plain_block(J, I, C);
        const column_map cols_at{I.extent, I.dst_stride, C.dst_stride, spare};
        for (dim l = 0; l < L.extent; ++l)
          each(src + l * L.src_stride * ssz, J.src_stride, dst + l * L.dst_stride * dsz, cols_at, 0, J.extent,
               C.extent * I.extent, stream);
        return;
      }
    }
    for (dim l = done; l < L.extent; ++l)
      block(src + l * L.src_stride * ssz, dst + l * L.dst_stride * dsz, advance_scales(scales, l * L.scale_stride), J, I,
            C);
  }

  void block(const std::byte* src, std::byte* dst, const float* scales, const loop& J, const loop& I,
             const loop& C) const {
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    const auto each_c = [&](auto&& f) {
      for (dim c = 0; c < C.extent; ++c)
        f(src + c * C.src_stride * ssz, dst + c * C.dst_stride * dsz, advance_scales(scales, c * C.scale_stride));
    };
    if (tile_plain == nullptr) {
      MEMFMT_KERNEL_PATH("scalar rows");
      each_c([&](const std::byte* s, std::byte* d, const float* sc) {
        scalar_part(s, d, sc, J, I, 0, J.extent, 0, I.extent);
      });
      return;
    }
    if (C.extent == 1 && narrow(src, dst, scales, J, I)) return;
    if (plain) {
      plain_block(J, I, C)(src, J.src_stride, dst, column_map{I.extent, I.dst_stride, C.dst_stride, spare}, 0, J.extent,
                           C.extent * I.extent, stream);
      return;
    }
    if (C.extent == 1 && I.extent < static_cast<dim>(tile_lanes) && J.extent >= 4 * static_cast<dim>(tile_lanes) &&
        spare == 0) {
      transpose_then_convert(src, dst, scales, J, I);
      return;
    }
    if (cvt->beta == 0.f) {
      convert_then_transpose(src, dst, scales, J, I, C);
      return;
    }
    each_c([&](const std::byte* s, std::byte* d, const float* sc) {
      convert_region(s, d, sc, J, I, 0, J.extent, 0, I.extent, 0);  // reads dst in dst order
    });
  }
};


}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_TRANSPOSE_INL_H_
