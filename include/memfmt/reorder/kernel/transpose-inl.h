// Per-target `transpose` kernel: the two innermost loops J (dst stride 1) and I (src
// stride 1) form a 2-D block, its columns possibly spanning a third loop C contiguous
// with I in the source. Plain blocks go to the block transpose (transpose/block-inl.h),
// blocks of a few tiles in one loop (transpose/small_blocks-inl.h), blocks 2 to 4 wide on
// a packed side by interleaved loads or stores; converting blocks to the strategies of
// transpose/converting-inl.h.
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
#include "memfmt/reorder/kernel/transpose/block-inl.h"
#include "memfmt/reorder/kernel/transpose/converting-inl.h"
#include "memfmt/reorder/kernel/transpose/small_blocks-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// The `transpose` kind for one nest: everything that does not change per block.
struct transpose_kernel : transpose_converting {
  tile_plain_fn tile_plain = nullptr;  ///< the widest tile; null: no tiles on this target
  interleave_plain_fn interleave = nullptr;
  deinterleave_plain_fn deinterleave = nullptr;

  explicit transpose_kernel(const nest& n) : transpose_kernel(n, n.cvt) {}

  /// The kernel of `n`'s loops with the conversion `c` instead of the nest's own.
  /// @pre `c` outlives the kernel
  transpose_kernel(const nest& n, const conversion& c) : transpose_converting(n, c) {
    if constexpr (tile_lanes >= 4) {
      tile_plain = f32_tiles[0];
      if (plain && dst_size == 4) {
        interleave = &interleave_plain<4>;
        deinterleave = &deinterleave_plain<4>;
      }
      if (plain && dst_size == 2) {
        interleave = &interleave_plain<2>;
        deinterleave = &deinterleave_plain<2>;
      }
      if (plain && dst_size == 1) {
        interleave = &interleave_plain<1>;
        deinterleave = &deinterleave_plain<1>;
      }
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
        done = interleave(src, J.src_stride, dst, mj, I.extent, stream);
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
    if (packed_source_columns(J, I)) {
      MEMFMT_KERNEL_PATH("interleaved loads");
      dim done = 0;
      if (plain) {
        done = deinterleave(src, dst, I.dst_stride, mi, J.extent, stream);
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
      // than interleaved stores for 2 x 2 pixels); larger blocks lost, and so did blocks
      // of several 16-lane masked tiles. A vector of rows or more of 2 to 4 packed source
      // columns is left to interleaved loads, a fifth faster (BA16b4a -> ab).
      if constexpr (exact_masked_rows<4> && tile_lanes >= 8) {
        constexpr auto W = static_cast<dim>(tile_lanes);
        const bool small = W < 16 ? (J.extent <= 2 * W || I.extent <= 2 * W) && J.extent * I.extent <= 8192
                                  : J.extent <= W && I.extent <= W;
        const bool packed_columns = packed_source_columns(J, I) && J.extent >= W;
        if (dst_size == 4 && C.extent == 1 && small && !packed_columns && spare == 0 && !stream) {
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
      convert_then_transpose(src, dst, scales, J, I, C, pick_transpose_block(dst_size, tile_side(J, I, C)));
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
